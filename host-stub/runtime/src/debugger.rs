//! What serves kernel dispatches to a debugger: the seam between the runtime and the GDB
//! server of `--gdb` (q7-gdb, docs/gdb.md), so that the firmware never names it.

use std::fmt;

use q7_conventions::exit_code::Outcome;
use q7_emulator::debug::StopHook;
use q7_emulator::platform::PlatformBus;
use q7_emulator::{Core, Stop};

/// Why a debugger could not serve a dispatch: an error with its own outcome (Ctrl-C while
/// waiting is an interrupt, the rest a refused input; q7_conventions::exit_code).
pub trait DebuggerFailure: std::error::Error + Outcome + Send + Sync {}

impl<T: std::error::Error + Outcome + Send + Sync> DebuggerFailure for T {}

/// A debugger that kernel dispatches run under instead of on the host threads.
pub trait Debugger: fmt::Debug + Send + Sync {
    /// Runs the dispatch's `cores` (stopped before the kernel's first instruction) for at most
    /// `budget` cycles each under the debugger, `hook` seeing every instruction they complete
    /// and every exception they take, to their end, and adding no cycle; their stops, in the
    /// order of `cores`.
    fn serve(
        &self,
        cores: Vec<&mut Core<PlatformBus>>,
        budget: u64,
        hook: &mut dyn StopHook,
    ) -> Result<Vec<Stop>, Box<dyn DebuggerFailure>>;
}
