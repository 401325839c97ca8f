//! A request, from outside a run, that cores stop where they are (Ctrl-C). Cores look at it
//! every [`POLL_CYCLES`] cycles of their own, so a run that nobody interrupts executes exactly
//! as it would without it; an interrupted core stops with
//! [`FaultKind::Interrupted`](crate::fault::FaultKind::Interrupted) and a report of where it was.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Cycles a core runs between two looks at its stop request (and at its stack region, see
/// [`Core::stack_region`](crate::core::Core::stack_region)). 4096 cycles: a stack running
/// away at one 16-byte frame per few cycles is caught within some 16 KiB, a Ctrl-C within
/// microseconds, and the look itself (a call out of the run loop every 4096 cycles) costs
/// nothing measurable.
pub const POLL_CYCLES: u64 = 1 << 12;

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
