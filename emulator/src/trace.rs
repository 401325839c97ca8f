//! Execution tracing: a [`Tracer`] sees the state before every instruction attempt, the effects
//! of every instruction that completes, and every exception delivery. The default [`NoTrace`]
//! compiles away: the core produces events, and records the memory accesses they report, only
//! when [`Tracer::ENABLED`] is true, which is a constant of the tracer's type.

use crate::predecode::Op;
use crate::state::CoreState;
use crate::timing::Stats;
use crate::vector::Vector;

/// One data access of an instruction, as the bus answered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// The address.
    pub addr: u32,
    /// Bytes: 1, 2 or 4.
    pub size: u8,
    /// The value loaded (zero-extended, before any sign extension the instruction applies) or
    /// stored (its low `size` bytes).
    pub value: u32,
    /// Whether it is a store.
    pub write: bool,
    /// The HBM address it reached through a translate window ([`crate::Bus::shared_address`]),
    /// as the window stood at the access; `None` for local memory and devices, and for every
    /// access when the tracer asks for none ([`Tracer::HBM_ADDRESSES`]).
    pub hbm: Option<u64>,
}

/// One trace event.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// About to execute `insn` with this state (the PC is `state.pc`).
    Before {
        /// State before the instruction.
        state: &'a CoreState,
        /// The decoded instruction.
        insn: &'a Op,
        /// The core's cycle count as the instruction starts (its fetch included).
        cycle: u64,
    },
    /// `insn` at `pc` completed (an instruction that raises an exception has no `After`).
    After {
        /// Its address.
        pc: u32,
        /// Where execution continues.
        next: u32,
        /// The decoded instruction.
        insn: &'a Op,
        /// State after the instruction (`state.pc` is still `pc`).
        state: &'a CoreState,
        /// The core's cycle count once it completed (stalls included).
        cycle: u64,
        /// The core's counters once it completed: what it and its fetch added since the
        /// previous `After` or `Exception` is the difference (the run report's categories).
        stats: &'a Stats,
        /// Its data accesses, in order.
        accesses: &'a [Access],
    },
    /// An exception was delivered (state after delivery, PC not yet at the vector).
    Exception {
        /// The vector taken.
        vector: Vector,
        /// EPC1 after delivery: the address of the instruction that raised it (for a double
        /// exception, whose address goes to DEPC, EPC1 is left as it was).
        pc: u32,
        /// State after delivery.
        state: &'a CoreState,
        /// The core's cycle count after the entry.
        cycle: u64,
        /// The core's counters after the entry (the entry's cycles and the stalls the
        /// raising instruction charged are the difference since the previous event's).
        stats: &'a Stats,
    },
}

/// Receives trace events.
pub trait Tracer {
    /// Whether events are produced at all (lets the run loop skip them at compile time).
    const ENABLED: bool;
    /// Whether `Before` events are produced (a tracer that needs only `After` and `Exception`
    /// spares the run loop one event per instruction).
    const BEFORE: bool = true;
    /// Whether accesses carry the HBM address a translate window sent them to
    /// ([`Access::hbm`]): a window lookup per access, spared a tracer that does not read it.
    const HBM_ADDRESSES: bool = true;
    /// One event.
    fn event(&mut self, e: Event<'_>);
}

/// No tracing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTrace;

impl Tracer for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn event(&mut self, _: Event<'_>) {}
}
