//! Windowed registers: CALL4/8/12 and CALLX4/8/12, ENTRY, RETW, MOVSP, ROTW, the
//! window-overflow check they and every other instruction are subject to, and the ISL/KSL
//! stack limits of ncore2gp.

use q7_isa::sreg::sr;
use q7_isa::{Opcode, Options};

use super::exception::{Exc, Reason};
use super::{not_in_family, Core, Flow, Res};
use crate::bus::Bus;
use crate::fault::FaultKind;
use crate::predecode::Op;
use crate::state::ps;

impl<B: Bus> Core<B> {
    /// Window-overflow check for an instruction naming groups up to `g`: the n of the first
    /// live frame above WINDOWBASE within `g` groups.
    #[inline]
    pub(super) fn overflow_needed(&self, g: u32) -> Option<u32> {
        // WINDOWSTART from the group above WINDOWBASE up (its groups twice over, shifted down):
        // the lowest set bit among the first `g` is the first live frame.
        let s = &self.state;
        let ws = s.windowstart() & ((1u32 << s.groups()) - 1);
        let twice = u64::from(ws) | u64::from(ws) << s.groups();
        let above = (twice >> (s.windowbase() + 1)) as u32 & ((1u32 << g) - 1);
        (above != 0).then(|| above.trailing_zeros() + 1)
    }

    /// Register groups above WINDOWBASE an instruction may name without a window overflow:
    /// the free groups before the next live frame, 3 when window checks are off.
    pub(super) fn free_groups(&self) -> u8 {
        if self.state.cwoe() {
            self.overflow_needed(3).map_or(3, |n| n as u8 - 1)
        } else {
            3
        }
    }

    /// Moves WINDOWBASE by `n` groups (modulo the group count, a power of two: the wrapping
    /// sum masked by `set_windowbase`, no division).
    pub(super) fn rotate(&mut self, n: i32) {
        let wb = self.state.windowbase().wrapping_add(n as u32);
        self.state.set_windowbase(wb);
    }

    /// Faults when `new_sp` would fall below the active stack limit (ISL inside exception
    /// handlers, KSL outside; 0 = no limit).
    fn stack_limit(&self, new_sp: u32) -> Res {
        if !self.config.has(Options::STACK_LIMIT) {
            return Ok(());
        }
        let (register, limit) = if self.state.ps() & ps::EXCM != 0 {
            ("ISL", self.state.sr(sr::ISL))
        } else {
            ("KSL", self.state.sr(sr::KSL))
        };
        let limit = limit & !0xf;
        if limit != 0 && new_sp < limit {
            return Err(Exc::fatal(
                FaultKind::StackLimit {
                    register,
                    limit,
                    new_sp,
                },
                Some(new_sp),
            ));
        }
        Ok(())
    }

    /// An ENTRY or MOVSP moving the stack pointer from `old_sp` to `new_sp`: faults when
    /// `new_sp` falls below the active stack limit (ISL/KSL), or when it takes the SP out of
    /// the program's stack region ([`Core::stack_region`]) from inside it — the overflow caught
    /// at the instruction that causes it, before the frame is used. An SP that was already
    /// outside the region (a program running on a stack of its own elsewhere) is left alone
    /// here, as is an exception handler's (PS.EXCM set); the SP reached is recorded in
    /// [`Core::lowest_sp`].
    #[inline(always)]
    fn allocate_stack(&mut self, old_sp: u32, new_sp: u32) -> Res {
        self.stack_limit(new_sp)?;
        self.lowest_sp = self.lowest_sp.min(new_sp);
        if let Some(region) = self.stack_region {
            if self.state.ps() & ps::EXCM == 0
                && !region.overflowed(old_sp)
                && region.overflowed(new_sp)
            {
                self.stack_armed = true;
                return Err(Exc::fatal(region.overflow(new_sp, None), None));
            }
        }
        Ok(())
    }

    /// Executes a window-family instruction; `next` is the address after it (`opcode` is
    /// `op`'s, as a constant of the dispatch).
    #[inline(always)]
    pub(super) fn window(&mut self, opcode: Opcode, op: &Op, next: u32) -> Res<Flow> {
        let o = op.insn.operands;
        use Opcode::*;
        match opcode {
            Call4 | Call8 | Call12 | Callx4 | Callx8 | Callx12 => {
                let n = match opcode {
                    Call4 | Callx4 => 1,
                    Call8 | Callx8 => 2,
                    _ => 3,
                };
                let t = match opcode {
                    Call4 | Call8 | Call12 => o[0],
                    _ => self.a(o[0]),
                };
                let ps = self.state.ps();
                self.state
                    .set_sr(sr::PS, (ps & !ps::CALLINC) | (n << ps::CALLINC_SHIFT));
                self.set(n * 4, (n << 30) | (next & 0x3fff_ffff));
                return Ok(Flow::to(t));
            }
            Entry => self.entry(o[0], o[1])?,
            Retw | RetwN => return self.retw().map(Flow::to),
            Movsp => {
                let wb = self.state.windowbase();
                if !self.state.ws_bit(wb.wrapping_sub(1))
                    && !self.state.ws_bit(wb.wrapping_sub(2))
                    && !self.state.ws_bit(wb.wrapping_sub(3))
                {
                    return Err(Exc::general(Reason::MovspSpilled));
                }
                let v = self.a(o[1]);
                if o[0] == 1 {
                    self.allocate_stack(self.a(1), v)?;
                }
                self.set(o[0], v);
            }
            Rotw => {
                self.rotate(o[0] as i32);
                self.refresh();
            }
            _ => not_in_family("window", op),
        }
        Ok(Flow::NEXT)
    }

    /// ENTRY as, imm12: allocates the frame the caller's CALLn made room for.
    #[inline(always)]
    pub(super) fn entry(&mut self, s: u32, frame: u32) -> Res {
        let st = &self.state;
        if s > 3 || !st.cwoe() {
            return Err(Exc::general(Reason::Entry {
                above_a3: s > 3,
                ps: st.ps(),
            }));
        }
        let callinc = (st.ps() & ps::CALLINC) >> ps::CALLINC_SHIFT;
        if let Some(n) = self.overflow_needed(callinc) {
            return Err(Exc::overflow(n));
        }
        let sp = self.a(s).wrapping_sub(frame);
        if s == 1 {
            self.allocate_stack(self.a(1), sp)?;
        }
        self.set(callinc * 4 + s, sp);
        self.rotate(callinc as i32);
        let wb = self.state.windowbase();
        self.state
            .set_sr(sr::WINDOWSTART, self.state.sr(sr::WINDOWSTART) | 1 << wb);
        self.refresh();
        Ok(())
    }

    /// RETW / RETW.N: the return address, after the window moved back.
    #[inline(always)]
    pub(super) fn retw(&mut self) -> Res<u32> {
        let st = &self.state;
        let a0 = self.a(0);
        let n = a0 >> 30;
        let wb = st.windowbase();
        let m = (1..=3)
            .find(|&k| st.ws_bit(wb.wrapping_sub(k)))
            .unwrap_or(0);
        if !st.cwoe() || n == 0 || (m != 0 && m != n) {
            return Err(Exc::general(Reason::Retw {
                a0,
                n,
                m,
                ps: st.ps(),
            }));
        }
        if !st.ws_bit(wb.wrapping_sub(n)) {
            return Err(Exc::underflow(n));
        }
        let ret = (self.state.pc & 0xc000_0000) | (a0 & 0x3fff_ffff);
        self.state
            .set_sr(sr::WINDOWSTART, self.state.sr(sr::WINDOWSTART) & !(1 << wb));
        self.rotate(-(n as i32));
        self.refresh();
        Ok(ret)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{core_with, exec};
    use super::*;
    use q7_isa::{DC233C, NCORE2GP};

    /// A core with window checks on and only frame 0 live.
    fn windowed(config: &'static q7_isa::CoreConfig) -> Core<super::super::testing::TestBus> {
        let mut c = core_with(config, &[]);
        c.prepare_call(0x1000, 0x8000, &[]);
        c
    }

    #[test]
    fn call8_entry_retw_round_trip() {
        let mut c = windowed(&DC233C);
        assert_eq!(exec(&mut c, Opcode::Call8, &[0x1100]).unwrap(), 0x1100);
        assert_eq!(c.a(8), 0x8000_1003, "call increment 2 in bits 31:30");
        assert_eq!((c.state.ps() & ps::CALLINC) >> ps::CALLINC_SHIFT, 2);
        c.state.pc = 0x1100;
        exec(&mut c, Opcode::Entry, &[1, 32]).unwrap();
        assert_eq!((c.state.windowbase(), c.state.windowstart()), (2, 0b101));
        assert_eq!(c.a(1), 0x8000 - 32);
        assert_eq!(c.lowest_sp, 0x8000 - 32, "the frame ENTRY allocated");
        assert_eq!(c.window_limit, 3, "frame 0 lives 6 groups up (mod 8)");
        assert_eq!(exec(&mut c, Opcode::Retw, &[]).unwrap(), 0x1003);
        assert_eq!((c.state.windowbase(), c.state.windowstart()), (0, 1));
        assert_eq!(
            c.lowest_sp,
            0x8000 - 32,
            "the deepest SP stays after the return"
        );
        c.prepare_call(0x1000, 0x8000, &[]);
        assert_eq!(c.lowest_sp, 0x8000, "a new call starts at its SP");
    }

    #[test]
    fn retw_to_a_spilled_caller_underflows_and_entry_overflows_onto_a_live_frame() {
        let mut c = windowed(&DC233C);
        c.state.set_windowbase(2);
        c.set(0, 0x8000_1003);
        c.state.set_sr(sr::WINDOWSTART, 0b100);
        c.refresh();
        assert_eq!(exec(&mut c, Opcode::Retw, &[]), Err(Exc::underflow(2)));
        c.state.set_windowbase(0);
        c.state.set_sr(sr::WINDOWSTART, 0b101);
        c.state.set_sr(sr::PS, ps::WOE | 2 << ps::CALLINC_SHIFT);
        c.refresh();
        assert_eq!(exec(&mut c, Opcode::Entry, &[1, 32]), Err(Exc::overflow(2)));
    }

    #[test]
    fn entry_needs_window_checks_and_a_register_up_to_a3() {
        let mut c = core_with(&DC233C, &[]);
        let e = exec(&mut c, Opcode::Entry, &[1, 32]).unwrap_err();
        assert_eq!(
            e.describe(&DC233C),
            "entry with window overflow checks disabled (PS 0x1f)"
        );
    }

    #[test]
    fn movsp_below_ksl_stops_the_core_on_ncore2gp() {
        let mut c = windowed(&NCORE2GP);
        c.state.set_windowbase(1);
        c.state.set_sr(sr::WINDOWSTART, 0b11);
        c.state.set_sr(sr::KSL, 0x7000);
        c.refresh();
        c.set(5, 0x6ff0);
        let e = exec(&mut c, Opcode::Movsp, &[1, 5]).unwrap_err();
        assert_eq!(
            e,
            Exc::fatal(
                FaultKind::StackLimit {
                    register: "KSL",
                    limit: 0x7000,
                    new_sp: 0x6ff0
                },
                Some(0x6ff0)
            )
        );
        assert_eq!(c.lowest_sp, 0x8000, "the refused SP is not counted");
        c.set(5, 0x7000);
        exec(&mut c, Opcode::Movsp, &[1, 5]).unwrap();
        assert_eq!(c.a(1), 0x7000);
        assert_eq!(c.lowest_sp, 0x7000);
    }

    #[test]
    fn entry_and_movsp_leaving_the_stack_region_from_inside_it_are_the_overflow() {
        use crate::core::StackRegion;
        let region = StackRegion {
            bottom: 0x7fc0,
            top: 0x8000,
        };
        let overflow = |sp| Exc::fatal(region.overflow(sp, None), None);
        // ENTRY allocating a frame below the bottom from an SP inside the region.
        let mut c = windowed(&DC233C);
        c.stack_region = Some(region);
        exec(&mut c, Opcode::Call8, &[0x1100]).unwrap();
        c.state.pc = 0x1100;
        assert_eq!(
            exec(&mut c, Opcode::Entry, &[1, 0x50]),
            Err(overflow(0x7fb0))
        );
        assert_eq!(c.a(1), 0x8000, "nothing changed: the frame is refused");
        exec(&mut c, Opcode::Entry, &[1, 0x40]).unwrap();
        assert_eq!(c.a(1), 0x7fc0, "down to the bottom itself is inside");
        // MOVSP (alloca) past the bottom, and past 0 (wrapping above the top).
        c.set(5, 0x7fbc);
        assert_eq!(exec(&mut c, Opcode::Movsp, &[1, 5]), Err(overflow(0x7fbc)));
        // A program that moved its stack elsewhere on purpose allocates there unchecked.
        let mut c = windowed(&DC233C);
        c.stack_region = Some(region);
        c.set(1, 0x4000);
        exec(&mut c, Opcode::Call8, &[0x1100]).unwrap();
        c.state.pc = 0x1100;
        exec(&mut c, Opcode::Entry, &[1, 0x50]).unwrap();
        assert_eq!(c.a(1), 0x3fb0);
        // Inside an exception handler (PS.EXCM) a1 is not the program's SP: no check.
        let mut c = windowed(&DC233C);
        c.stack_region = Some(region);
        c.state.set_windowbase(1);
        c.state.set_sr(sr::WINDOWSTART, 0b11);
        c.state.set_sr(sr::PS, c.state.ps() | ps::EXCM);
        c.refresh();
        c.set(1, 0x8000);
        c.set(5, 0x10);
        exec(&mut c, Opcode::Movsp, &[1, 5]).unwrap();
        assert_eq!(c.a(1), 0x10);
    }
}
