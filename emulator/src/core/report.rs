//! Fault reports: the state of a stopped core in a kernel author's terms — what happened,
//! the instruction's disassembly, the current window, the window and shift registers, and the
//! a0-chain backtrace.

use q7_isa::sreg::sr;
use q7_isa::CoreConfig;

use super::Core;
use crate::bus::Bus;
use crate::fault::{FaultKind, FaultReport, Frame};
use crate::predecode::{Op, Undecodable};
use crate::state::CoreState;

impl<B: Bus> Core<B> {
    /// A report of the core's state at `pc`, with `op` as the instruction there.
    pub(super) fn report_op(
        &self,
        pc: u32,
        op: &Op,
        kind: FaultKind,
        address: Option<u32>,
    ) -> FaultReport {
        let mut r = self.report(pc, kind, address);
        r.disassembly = disassembly(op, pc, self.config);
        r
    }

    /// A report of the core's state at `pc`.
    /// A stop while the architectural SP is outside the stack region is reported as the stack
    /// overflow it is, with what it caused.
    pub fn report(&self, pc: u32, kind: FaultKind, address: Option<u32>) -> FaultReport {
        let s = &self.state;
        let kind = match (self.stack_region, self.architectural_sp()) {
            (Some(region), Some(sp))
                if self.stack_armed
                    && region.overflowed(sp)
                    && !matches!(kind, FaultKind::StackOverflow { .. }) =>
            {
                region.overflow(sp, Some(kind))
            }
            _ => kind,
        };
        let (backtrace, backtrace_loop) = backtrace(s, pc, |addr| self.bus.peek(addr));
        FaultReport {
            core: s.sr(sr::PRID),
            pc,
            kind,
            address,
            disassembly: match self.ops.as_ref().and_then(|ops| self.cache.get(ops, pc)) {
                Some(op) if op.bad.is_none() => op.insn.to_string(),
                Some(_) => String::from("<not decoded>"),
                // Not decoded yet (a stop before its first execution): decoded from memory
                // here, so that the report does not depend on what was decoded before, which
                // differs between the tiers (docs/jit.md).
                None => self.disassemble_memory(pc),
            },
            registers: s.window(),
            ps: s.ps(),
            windowbase: s.windowbase(),
            windowstart: s.windowstart(),
            sar: s.sar(),
            backtrace,
            backtrace_loop,
            cycles: self.stats.cycles,
        }
    }
}

impl<B: Bus> Core<B> {
    /// The instruction in memory at `pc` (read without side effects), or `<not decoded>`.
    fn disassemble_memory(&self, pc: u32) -> String {
        let Some(word) = self.bus.peek(pc) else {
            return String::from("<not decoded>");
        };
        match q7_isa::decode(&word.to_le_bytes(), pc, self.config) {
            Ok(q7_isa::Decoded::Insn(insn)) => insn.to_string(),
            _ => String::from("<not decoded>"),
        }
    }
}

/// The text of `op` at `pc`, or why it has none.
fn disassembly(op: &Op, pc: u32, config: &CoreConfig) -> String {
    match op.bad {
        None => op.insn.to_string(),
        Some(Undecodable::Bundle(len)) => format!("<{len}-byte Vision-Q7 bundle>"),
        Some(u @ Undecodable::Illegal { .. }) => format!("<{}>", u.describe(pc, config)),
        Some(Undecodable::Fetch) => "<instruction bytes not fetchable>".to_string(),
    }
}

/// The a0 chain from `pc`: each windowed frame's a0 holds its return address (window increment
/// in bits 31:30) and a1 its SP; a caller still in the register file is read there, a spilled
/// one from the base save area [SP − 16, SP − 12] of its callee (read with `peek`). At most 65
/// frames, each once: a frame (PC and SP) already listed ends the walk, and its index is
/// returned as the loop's.
pub fn backtrace(
    s: &CoreState,
    pc: u32,
    peek: impl Fn(u32) -> Option<u32>,
) -> (Vec<Frame>, Option<usize>) {
    let mut frames = vec![Frame { pc, sp: s.a(1) }];
    let mut wb = s.windowbase();
    let mut a0 = s.a(0);
    let mut sp = s.a(1);
    let mut bus_ok = true;
    for _ in 0..64 {
        let n = a0 >> 30;
        if n == 0 || a0 == 0 || !bus_ok {
            break;
        }
        let ret = (pc & 0xc000_0000) | (a0 & 0x3fff_ffff);
        let caller_wb = wb.wrapping_sub(n) & (s.groups() - 1);
        let (c_a0, c_sp) = if s.ws_bit(caller_wb) && caller_wb != s.windowbase() {
            let p = |r: u32| s.ar[((caller_wb * 4 + r) & (s.num_aregs - 1)) as usize];
            (p(0), p(1))
        } else {
            // Spilled: the caller's a0/a1 sit 16/12 bytes below this frame's SP.
            match (peek(sp.wrapping_sub(16)), peek(sp.wrapping_sub(12))) {
                (Some(x), Some(y)) => (x, y),
                _ => {
                    bus_ok = false;
                    (0, 0)
                }
            }
        };
        let frame = Frame { pc: ret, sp: c_sp };
        if let Some(i) = frames.iter().position(|f| *f == frame) {
            return (frames, Some(i));
        }
        frames.push(frame);
        wb = caller_wb;
        a0 = c_a0;
        sp = c_sp;
    }
    (frames, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_isa::DC233C;

    #[test]
    fn the_backtrace_follows_live_frames_then_the_spill_area() {
        let mut s = CoreState::reset(&DC233C, 0, 0, 0);
        // Frame at group 0 (outermost, spilled), 2 (live caller), 4 (current).
        s.set_windowbase(2);
        s.set_a(0, 0x8000_1000); // caller's return into the spilled frame, increment 2
        s.set_a(1, 0x7f00);
        s.set_windowbase(4);
        s.set_a(0, 0x8000_2000); // return into the caller, increment 2
        s.set_a(1, 0x7e00);
        s.set_sr(sr::WINDOWSTART, 0b1_0100);
        let memory = |addr: u32| match addr {
            0x7ef0 => Some(0),      // the outermost frame's a0: end of chain
            0x7ef4 => Some(0x8000), // its SP
            _ => None,
        };
        let (frames, looped) = backtrace(&s, 0x3000, memory);
        assert_eq!(looped, None);
        let got: Vec<(u32, u32)> = frames.iter().map(|f| (f.pc, f.sp)).collect();
        assert_eq!(got, [(0x3000, 0x7e00), (0x2000, 0x7f00), (0x1000, 0x8000)]);
    }

    #[test]
    fn an_unreadable_spill_area_ends_the_chain() {
        let mut s = CoreState::reset(&DC233C, 0, 0, 0);
        s.set_a(0, 0x4000_1234);
        s.set_a(1, 0x100);
        s.set_sr(sr::WINDOWSTART, 1);
        let (frames, _) = backtrace(&s, 0x2000, |_| None);
        assert_eq!(frames.len(), 2);
        assert_eq!((frames[1].pc, frames[1].sp), (0x1234, 0));
    }

    #[test]
    fn a_chain_that_loops_lists_each_frame_once_and_says_where_it_loops() {
        // The current frame returns into a spilled caller whose save area points at itself:
        // its a0 is its own return address and its a1 its own SP.
        let mut s = CoreState::reset(&DC233C, 0, 0, 0);
        s.set_a(0, 0x8000_1000);
        s.set_a(1, 0x7e00);
        s.set_sr(sr::WINDOWSTART, 1);
        let memory = |addr: u32| match addr {
            0x7df0 => Some(0x8000_1000),
            0x7df4 => Some(0x7f00),
            0x7ef0 => Some(0x8000_1000),
            0x7ef4 => Some(0x7f00),
            _ => None,
        };
        let (frames, looped) = backtrace(&s, 0x3000, memory);
        let got: Vec<(u32, u32)> = frames.iter().map(|f| (f.pc, f.sp)).collect();
        assert_eq!(got, [(0x3000, 0x7e00), (0x1000, 0x7f00)]);
        assert_eq!(looped, Some(1));
        let report = FaultReport {
            core: 0,
            pc: 0x3000,
            kind: FaultKind::Interrupted,
            address: None,
            disassembly: String::new(),
            registers: [0; 16],
            ps: 0,
            windowbase: 0,
            windowstart: 1,
            sar: 0,
            backtrace: frames,
            backtrace_loop: looped,
            cycles: 0,
        };
        let text = report.to_string();
        assert!(
            text.ends_with(
                "  backtrace:\n    #0 pc 0x00003000 sp 0x00007e00\n    #1 pc 0x00001000 sp \
                 0x00007f00\n    … then frame #1 again: the chain loops (a corrupted stack), each \
                 frame shown once\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn disassembly_names_what_is_wrong_with_undecodable_bytes() {
        let bundle = Op::bad(Undecodable::Bundle(16));
        assert_eq!(
            disassembly(&bundle, 0, &DC233C),
            "<16-byte Vision-Q7 bundle>"
        );
        let fetch = Op::bad(Undecodable::Fetch);
        assert_eq!(
            disassembly(&fetch, 0, &DC233C),
            "<instruction bytes not fetchable>"
        );
    }
}
