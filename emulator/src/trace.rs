//! Execution tracing: a [`Tracer`] sees the state before every instruction attempt and every
//! exception delivery. The default [`NoTrace`] compiles away.

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
        /// QEMU's exception index (3/4 overflow/underflow4, 5/6 = 8, 7/8 = 12, 10 kernel,
        /// 11 user, 12 double), so traces line up with QEMU's `-d int`.
        qemu_index: u32,
        /// Address of the instruction that raised it.
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
