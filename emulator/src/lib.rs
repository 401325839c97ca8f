//! # q7-emulator — cycle-level emulation of the Vision-Q7 (ncore2gp) Xtensa core
//!
//! * [`core`]: one core — fetch through the decode cache, the per-instruction gate (window
//!   overflow, privilege), interlocks, zero-overhead loops and the cycle model of [`timing`],
//!   behind one seam ([`core::Core::run`]); instruction semantics in one submodule per family
//!   (ALU, loads/stores, branches and loops, windows, registers, MAC16), exception entry and
//!   return with one [`Vector`] kind, fault reports and backtrace;
//! * [`jit`]: tier 2, hot code compiled with Cranelift, cycles exact (docs/jit.md);
//! * [`predecode`]: decoded instructions with the facts execution needs, and their cache;
//! * [`state`]: the architectural state, laid out by the register table of `q7_isa::sreg`;
//! * [`semihost`]: SIMCALL semihosting behind a small host trait;
//! * [`bus`]: memory as a core sees it, and the flat 4 GiB bare-metal memory;
//! * [`bootrom`]: window overflow/underflow handlers that run as real instructions;
//! * [`baremetal`]: loading PT_LOAD segments and running from QEMU's reset state;
//! * [`debug`]: stepping a core under a debugger: breakpoints, watchpoints, a stop hook;
//! * [`fault`]: typed exceptions and the structured report of a stopped core;
//! * [`stop_request`]: stopping running cores from outside (Ctrl-C);
//! * [`progress`]: how far running cores have got, published for a display outside the run;
//! * [`timing`]: the cycle model's parameters and the counters it fills;
//! * [`trace`]: per-instruction trace hooks;
//! * [`vector`]: the XEA2 exception vectors, their offsets and what each is taken for;
//! * [`platform`]: the POOL cluster's devices and cores.

pub mod baremetal;
pub mod bootrom;
pub mod bus;
pub mod core;
pub mod debug;
pub mod fault;
pub mod jit;
pub mod platform;
pub mod predecode;
pub mod progress;
pub mod semihost;
pub mod state;
pub mod stop_request;
pub mod timing;
pub mod trace;
pub mod vector;

pub use crate::bus::{Bus, BusFault, DataLatency, FlatMemory};
pub use crate::core::{CodeImage, Console, Core, RegisterError, RegisterFile, StackRegion};
pub use crate::fault::{ExcCause, FaultKind, FaultReport, Frame, Stop};
pub use crate::progress::Progress;
pub use crate::state::CoreState;
pub use crate::stop_request::StopRequest;
pub use crate::timing::{Latency, Stalls, Stats, TimingError, TimingModel};
pub use crate::trace::{NoTrace, Tracer};
pub use crate::vector::Vector;
