//! A request, from outside a run, that cores stop where they are (Ctrl-C). Cores look at it
//! every [`POLL_CYCLES`] cycles of their own, so a run that nobody interrupts executes exactly
//! as it would without it; an interrupted core stops with
//! [`FaultKind::Interrupted`](crate::fault::FaultKind::Interrupted) and a report of where it was.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Cycles a core whose stack is watched runs between two looks at its stop request and at its
/// stack region ([`Core::stack_region`](crate::core::Core::stack_region)). 4096 cycles: a stack
/// running away at one 16-byte frame per few cycles is caught within some 16 KiB, a Ctrl-C
/// within microseconds, and the look itself (a call out of the run loop every 4096 cycles)
/// costs nothing measurable.
pub const POLL_CYCLES: u64 = 1 << 12;

/// Cycles between two looks of a core with no stack region (custom-op calls, which have KSL
/// instead): only the stop request and the progress display are looked at, and a Ctrl-C is
/// still seen within a millisecond. Longer than [`POLL_CYCLES`] because compiled code stops
/// short of every look (docs/jit.md "Exact stops"): the interpreter runs the stretch before
/// it, a few thousand cycles for blocks of HBM accesses.
pub const POLL_CYCLES_UNWATCHED: u64 = 1 << 16;

/// A shared stop flag: clones see the same flag.
#[derive(Debug, Clone, Default)]
pub struct StopRequest(Arc<AtomicBool>);

impl StopRequest {
    /// A flag nobody has raised.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every core holding this flag to stop (safe from a signal-handling thread).
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Lowers the flag again (for a caller that handled the stop and goes on).
    pub fn clear(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_flag() {
        let a = StopRequest::new();
        let b = a.clone();
        assert!(!b.is_requested());
        a.request();
        assert!(b.is_requested());
        b.clear();
        assert!(!a.is_requested());
    }
}
