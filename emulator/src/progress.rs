//! How far running cores have got, for an observer outside the run (a progress display). A
//! core publishes its cycle count into its [`Progress`] at the periodic look it takes every
//! [`Core::poll_period`](crate::Core::poll_period) cycles and when a run ends, so publishing
//! costs nothing per instruction and never changes what the core does.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Debug, Default)]
struct Cell {
    cycles: AtomicU64,
    runs: AtomicU64,
}

/// One core's published progress: clones see the same counters.
#[derive(Debug, Clone, Default)]
pub struct Progress(Arc<Cell>);

impl Progress {
    /// Counters nobody has published to yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The core's cycle count as last published (at most
    /// [`Core::poll_period`](crate::Core::poll_period) behind a running core's).
    pub fn cycles(&self) -> u64 {
        self.0.cycles.load(Ordering::Relaxed)
    }

    /// How many runs of the core have ended ([`Core::run`](crate::core::Core::run) and its
    /// siblings returning).
    pub fn runs(&self) -> u64 {
        self.0.runs.load(Ordering::Relaxed)
    }

    /// Publishes the cycle count of a running core (the core calls this).
    pub fn publish(&self, cycles: u64) {
        self.0.cycles.store(cycles, Ordering::Relaxed);
    }

    /// Publishes the cycle count of a run that has just ended, and counts the run (the core
    /// calls this).
    pub fn ended(&self, cycles: u64) {
        self.0.cycles.store(cycles, Ordering::Relaxed);
        self.0.runs.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_see_what_the_core_published() {
        let p = Progress::new();
        let observer = p.clone();
        p.publish(4096);
        assert_eq!((observer.cycles(), observer.runs()), (4096, 0));
        p.ended(5000);
        assert_eq!((observer.cycles(), observer.runs()), (5000, 1));
    }
}
