//! # q7-emulator — cycle-level emulation of the Vision-Q7 (ncore2gp) Xtensa core
//!
//! * [`core`]: one core — decode cache, window-overflow check, execution of every instruction
//!   of the ncore2gp profile (and dc233c's extras), zero-overhead loops, XEA2-style exceptions
//!   behind one seam ([`core::Core::run`]), the cycle model of [`timing`];
//! * [`bus`]: memory as a core sees it, and the flat 4 GiB bare-metal memory;
//! * [`bootrom`]: window overflow/underflow handlers that run as real instructions;
//! * [`baremetal`]: loading PT_LOAD segments and running from QEMU's reset state;
//! * [`fault`]: typed exceptions and the structured report of a stopped core;
//! * [`trace`]: per-instruction trace hooks.

pub mod baremetal;
pub mod bootrom;
pub mod bus;
pub mod core;
pub mod fault;
pub mod platform;
pub mod predecode;
pub mod state;
pub mod timing;
pub mod trace;

pub use crate::bus::{Bus, BusFault, FlatMemory};
pub use crate::core::{Console, Core};
pub use crate::fault::{ExcCause, FaultKind, FaultReport, Frame, Stop};
pub use crate::state::CoreState;
pub use crate::timing::{Stalls, Stats, TimingModel};
pub use crate::trace::{NoTrace, Tracer};
