//! # q7-run — running ops on the emulated cluster
//!
//! What `q7emu run`, `q7emu run-packed`, q7-testing and the Python package call to run a
//! library's ops: the runtime (q7-runtime) with the observers a run asks for (q7-observe) and
//! a debugger if one is given (q7-runtime's `Debugger` seam), one concern a module:
//!
//! | module | what |
//! |---|---|
//! | [`op`] | an op of a built library on tensors: arguments, outputs, the kept-loaded session, the report |
//! | [`packed`] | a packed library through the whole host and device path, and its report |
//! | [`api`] | the library/run API Python and Rust tests call: build, make inputs, run an op |

pub mod api;
pub mod op;
pub mod packed;
