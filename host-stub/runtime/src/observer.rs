//! What watches the cores while the firmware runs them: the seam between the runtime and
//! its observers (traces, timelines and checked mode are q7-observe's, docs/tracing.md and
//! docs/checked-mode.md), so that the firmware never names one of them.
//!
//! An observer runs each firmware call's cores itself ([`Observer::run_cores`]), with tracers
//! of its own concrete type: the core loop stays monomorphic and inlined, and the runtime
//! pays one virtual call per firmware call, not one per instruction.

use std::fmt;

use q7_emulator::debug::StopHook;
use q7_emulator::platform::{Cluster, PlatformBus};
use q7_emulator::{Core, Stop};

/// How the firmware names a dispatch to its observers: `what` is this, a space and the
/// kernel key (`kernel of key 0x1`); the run report counts these calls alone.
pub const DISPATCH: &str = "kernel of key";

/// An observer of one run (made for a library's images before anything runs).
pub trait Observer: fmt::Debug + Send + Sync {
    /// Runs `cores` of `cluster` (prepared for the firmware call `what`) for at most `budget`
    /// cycles each on `threads` host threads, each core with this observer's tracer, and
    /// takes every tracer back when its core stops; their stops, in the order of `cores`.
    fn run_cores(
        &self,
        cluster: &mut Cluster,
        cores: &[usize],
        threads: usize,
        budget: u64,
        what: &str,
    ) -> Vec<Stop>;

    /// The firmware pulled a `bytes`-byte image into `core`'s window from cycle `start` to
    /// `end`.
    fn image_pull(&self, core: u32, start: u64, end: u64, bytes: u32);

    /// The hook that sees every instruction and exception of the debugged `cores` of the
    /// dispatch `what` (stopped before the kernel's first instruction), as this observer's
    /// tracers see a plain run's: checked mode's checks, which stop a core at the first error
    /// they find (docs/gdb.md "Checked mode"), and the cycle profile's recorders, so that a
    /// debugged dispatch's profile is the plain run's (docs/profiling.md); `None` when this
    /// observer does neither.
    fn dispatch_hook<'a>(
        &'a self,
        cores: &[&Core<PlatformBus>],
        what: &str,
    ) -> Option<Box<dyn DispatchHook + 'a>>;
}

/// A [`StopHook`] that keeps what it saw for the run's report.
pub trait DispatchHook: StopHook {
    /// The debugged dispatch is over, its `cores` stopped for good: hands what the hook saw
    /// to the observer that made it.
    fn finish(self: Box<Self>, cores: &[&Core<PlatformBus>]);
}
