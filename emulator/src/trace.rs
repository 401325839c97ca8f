//! Execution tracing: a [`Tracer`] sees the state before every instruction attempt and every
//! exception delivery. The default [`NoTrace`] compiles away.

use crate::core::Vector;
use crate::predecode::Op;
use crate::state::CoreState;

/// One trace event.
#[derive(Debug)]
pub enum Event<'a> {
    /// About to execute `insn` with this state (the PC is `state.pc`).
    Before {
        /// State before the instruction.
        state: &'a CoreState,
        /// The decoded instruction.
        insn: &'a Op,
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
    },
}

/// Receives trace events.
pub trait Tracer {
    /// Whether events are produced at all (lets the run loop skip them at compile time).
    const ENABLED: bool;
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
