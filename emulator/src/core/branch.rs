//! Branches, jumps, non-windowed calls and returns, and zero-overhead loops (LOOP, LOOPNEZ,
//! LOOPGTZ and the loop-back at LEND).

use q7_isa::sreg::sr;
use q7_isa::Opcode;

use super::{not_in_family, Core, Flow};
use crate::bus::Bus;
use crate::predecode::Op;
use crate::state::ps;

impl<B: Bus> Core<B> {
    /// Executes a branch-family instruction; `next` is the address after it (`opcode` is
    /// `op`'s, as a constant of the dispatch).
    #[inline(always)]
    pub(super) fn branch(&mut self, opcode: Opcode, op: &Op, next: u32) -> Flow {
        let o = op.insn.operands;
        let br = |core: &Self| core.state.sr(sr::BR);
        use Opcode::*;
        match opcode {
            Beq => Flow::branch(self.a(o[0]) == self.a(o[1]), o[2]),
            Bne => Flow::branch(self.a(o[0]) != self.a(o[1]), o[2]),
            Blt => Flow::branch((self.a(o[0]) as i32) < (self.a(o[1]) as i32), o[2]),
            Bge => Flow::branch((self.a(o[0]) as i32) >= (self.a(o[1]) as i32), o[2]),
            Bltu => Flow::branch(self.a(o[0]) < self.a(o[1]), o[2]),
            Bgeu => Flow::branch(self.a(o[0]) >= self.a(o[1]), o[2]),
            Bany => Flow::branch(self.a(o[0]) & self.a(o[1]) != 0, o[2]),
            Bnone => Flow::branch(self.a(o[0]) & self.a(o[1]) == 0, o[2]),
            Ball => Flow::branch(!self.a(o[0]) & self.a(o[1]) == 0, o[2]),
            Bnall => Flow::branch(!self.a(o[0]) & self.a(o[1]) != 0, o[2]),
            Bbc => Flow::branch(self.a(o[0]) >> (self.a(o[1]) & 31) & 1 == 0, o[2]),
            Bbs => Flow::branch(self.a(o[0]) >> (self.a(o[1]) & 31) & 1 != 0, o[2]),
            Bbci => Flow::branch(self.a(o[0]) >> o[1] & 1 == 0, o[2]),
            Bbsi => Flow::branch(self.a(o[0]) >> o[1] & 1 != 0, o[2]),
            Beqi => Flow::branch(self.a(o[0]) == o[1], o[2]),
            Bnei => Flow::branch(self.a(o[0]) != o[1], o[2]),
            Blti => Flow::branch((self.a(o[0]) as i32) < (o[1] as i32), o[2]),
            Bgei => Flow::branch((self.a(o[0]) as i32) >= (o[1] as i32), o[2]),
            Bltui => Flow::branch(self.a(o[0]) < o[1], o[2]),
            Bgeui => Flow::branch(self.a(o[0]) >= o[1], o[2]),
            Beqz | BeqzN => Flow::branch(self.a(o[0]) == 0, o[1]),
            Bnez | BnezN => Flow::branch(self.a(o[0]) != 0, o[1]),
            Bltz => Flow::branch((self.a(o[0]) as i32) < 0, o[1]),
            Bgez => Flow::branch((self.a(o[0]) as i32) >= 0, o[1]),
            Bf => Flow::branch(br(self) >> o[0] & 1 == 0, o[1]),
            Bt => Flow::branch(br(self) >> o[0] & 1 != 0, o[1]),

            J => Flow::to(o[0]),
            Jx => Flow::to(self.a(o[0])),
            Call0 => {
                self.set(0, next);
                Flow::to(o[0])
            }
            Callx0 => {
                let t = self.a(o[0]);
                self.set(0, next);
                Flow::to(t)
            }
            Ret | RetN => Flow::to(self.a(0)),

            Loop | Loopnez | Loopgtz => {
                let count = self.a(o[0]);
                self.state.set_sr(sr::LCOUNT, count.wrapping_sub(1));
                self.state.set_sr(sr::LBEG, next);
                self.state.set_sr(sr::LEND, o[1]);
                let skip = match opcode {
                    Loopnez => count == 0,
                    Loopgtz => (count as i32) <= 0,
                    _ => false,
                };
                Flow::branch(skip, o[1])
            }
            _ => not_in_family("branch", op),
        }
    }

    /// The zero-overhead loop-back at LEND: with LCOUNT ≠ 0 and PS.EXCM clear, LCOUNT counts
    /// down and execution continues at LBEG. Kept out of line so the per-instruction check is
    /// one comparison with LEND.
    #[inline(never)]
    pub(super) fn loop_back(&mut self) -> Option<u32> {
        let s = &mut self.state;
        if s.lcount() != 0 && s.ps() & ps::EXCM == 0 {
            s.set_sr(sr::LCOUNT, s.sr(sr::LCOUNT) - 1);
            Some(s.lbeg())
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{core_with, exec, op};
    use super::*;
    use q7_isa::DC233C;

    #[test]
    fn conditional_branches_compare_signed_unsigned_and_bits() {
        let mut c = core_with(&DC233C, &[]);
        c.set(2, 0xffff_fffe);
        c.set(3, 1);
        let taken = |c: &mut Core<_>, opcode, operands: &[u32]| {
            c.branch(opcode, &op(opcode, operands), 0x1003)
                .target
                .is_some()
        };
        assert!(taken(&mut c, Opcode::Blt, &[2, 3, 0x2000]));
        assert!(!taken(&mut c, Opcode::Bltu, &[2, 3, 0x2000]));
        assert!(taken(&mut c, Opcode::Bbsi, &[2, 31, 0x2000]));
        assert!(
            !taken(&mut c, Opcode::Bbc, &[2, 3, 0x2000]),
            "bit a3 = 1 of a2 is set"
        );
        assert!(taken(&mut c, Opcode::Bnall, &[2, 3, 0x2000]));
        assert!(taken(&mut c, Opcode::Bgeui, &[2, 1 << 31, 0x2000]));
        assert_eq!(
            c.branch(Opcode::Beqz, &op(Opcode::Beqz, &[3, 0x2000]), 0x1003),
            Flow::NEXT
        );
    }

    #[test]
    fn call0_links_the_next_address_and_a_taken_branch_costs_its_penalty() {
        let mut c = core_with(&DC233C, &[]);
        let before = c.stats.cycles;
        assert_eq!(exec(&mut c, Opcode::Call0, &[0x2000]).unwrap(), 0x2000);
        assert_eq!(c.a(0), 0x1003);
        assert_eq!(c.stats.cycles - before, 3, "issue + taken branch");
        assert_eq!(c.stats.stalls.taken_branch, 2);
    }

    #[test]
    fn loops_set_the_loop_registers_and_loopnez_skips_an_empty_body() {
        let mut c = core_with(&DC233C, &[]);
        c.set(2, 3);
        exec(&mut c, Opcode::Loop, &[2, 0x1010]).unwrap();
        let s = &c.state;
        assert_eq!((s.lbeg(), s.lend(), s.lcount()), (0x1003, 0x1010, 2));
        c.set(2, 0);
        assert_eq!(exec(&mut c, Opcode::Loopnez, &[2, 0x1010]).unwrap(), 0x1010);
        c.set(2, 0x8000_0000);
        assert_eq!(exec(&mut c, Opcode::Loopgtz, &[2, 0x1010]).unwrap(), 0x1010);
    }

    #[test]
    fn the_loop_back_counts_down_and_stops_inside_exception_handlers() {
        let mut c = core_with(&DC233C, &[]);
        c.state.set_sr(sr::LCOUNT, 1);
        c.state.set_sr(sr::LBEG, 0x1234);
        c.state.set_sr(sr::PS, 0);
        assert_eq!(c.loop_back(), Some(0x1234));
        assert_eq!(c.state.lcount(), 0);
        assert_eq!(c.loop_back(), None, "LCOUNT 0");
        c.state.set_sr(sr::LCOUNT, 1);
        c.state.set_sr(sr::PS, ps::EXCM);
        assert_eq!(c.loop_back(), None, "EXCM");
    }
}
