//! # q7-conventions — what every host-side command of q7emu keeps the same
//!
//! The conventions of docs/cli.md "Conventions", one module each, shared by the build driver,
//! the runtime and the command line:
//!
//! | module | what |
//! |---|---|
//! | [`exit_code`] | the one table of exit codes (docs/exit-codes.md) |
//! | [`output`] | every output file written whole, and never onto an input or another output |
//! | [`interrupt`] | Ctrl-C stopping every core |
//! | [`terminal`] | guest text on a terminal: control characters shown escaped |
//! | [`number`] | the one grammar of numeric flags |

pub mod exit_code;
pub mod interrupt;
pub mod number;
pub mod output;
pub mod terminal;
