//! The per-core SDMA engine (PLATFORM.md "SDMA"): two queues with descriptor rings in DATARAM,
//! doorbells, completion counters and waits. Transfers are timed — each starts after the
//! previous one of its queue plus a latency and moves a fixed number of bytes per cycle — and
//! take effect at their end cycle as the core observes it, so results never depend on host
//! timing.

use std::collections::VecDeque;

use super::map::{self, queue};

/// A queued transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    /// Descriptor index (monotonic).
    pub index: u32,
    /// HBM address.
    pub hbm: u64,
    /// DATARAM address.
    pub local: u32,
    /// Bytes.
    pub len: u32,
    /// Core cycle at which it completes.
    pub end: u64,
}

/// One queue's registers and in-flight transfers.
#[derive(Debug, Clone, Default)]
pub struct Queue {
    /// SDMA_RING_BASE.
    pub ring_base: u32,
    /// SDMA_RING_SIZE (0 until programmed).
    pub ring_size: u32,
    /// Descriptors queued so far (the last doorbell value).
    pub queued: u32,
    /// Descriptors whose copies have been applied.
    pub completed: u32,
    /// Transfers not yet applied, in order.
    pub pending: VecDeque<Transfer>,
    /// End cycle of the last queued transfer.
    pub busy_until: u64,
    /// Doorbells and waits as they happened (for traces and tests).
    pub log: Vec<QueueEvent>,
}

/// A doorbell or wait on a queue, with the core cycle it happened at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueEvent {
    /// SDMA_DOORBELL written with `tail` at `cycle`.
    Doorbell {
        /// Core cycle.
        cycle: u64,
        /// New tail.
        tail: u32,
    },
    /// SDMA_WAIT written at `cycle`; the core resumed at `until`.
    Wait {
        /// Core cycle.
        cycle: u64,
        /// Cycle the awaited descriptor completed (≥ `cycle`).
        until: u64,
    },
}

/// Both queues of one core.
#[derive(Debug, Clone, Default)]
pub struct Sdma {
    /// M2S (0) and S2M (1).
    pub queues: [Queue; 2],
}

/// Name of queue `q` for messages.
pub fn queue_name(q: u32) -> &'static str {
    if q == queue::M2S {
        "M2S"
    } else {
        "S2M"
    }
}

/// Checks a DATARAM range of a descriptor.
pub fn local_in_range(local: u32, len: u32) -> bool {
    let (base, size) = map::DATARAM;
    local >= base && u64::from(local) + u64::from(len) <= u64::from(base) + u64::from(size)
}

/// Largest transfer a descriptor may ask for.
pub const MAX_LEN: u32 = 65536;
