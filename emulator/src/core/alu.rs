//! Arithmetic, logic, moves, shifts, multiply and divide, and the boolean-register
//! operations.

use q7_isa::sreg::sr;
use q7_isa::Opcode;

use super::exception::{Exc, Reason};
use super::{not_in_family, Core, Flow, Res};
use crate::bus::Bus;
use crate::predecode::Op;

impl<B: Bus> Core<B> {
    /// Executes an ALU-family instruction (`opcode` is `op`'s, as a constant of the dispatch).
    #[inline(always)]
    pub(super) fn alu(&mut self, opcode: Opcode, op: &Op) -> Res<Flow> {
        let o = op.insn.operands;
        use Opcode::*;
        match opcode {
            // ----------------------------------------------------------------- ALU / move
            Add | AddN => self.set(o[0], self.a(o[1]).wrapping_add(self.a(o[2]))),
            Addx2 => self.set(o[0], (self.a(o[1]) << 1).wrapping_add(self.a(o[2]))),
            Addx4 => self.set(o[0], (self.a(o[1]) << 2).wrapping_add(self.a(o[2]))),
            Addx8 => self.set(o[0], (self.a(o[1]) << 3).wrapping_add(self.a(o[2]))),
            Sub => self.set(o[0], self.a(o[1]).wrapping_sub(self.a(o[2]))),
            Subx2 => self.set(o[0], (self.a(o[1]) << 1).wrapping_sub(self.a(o[2]))),
            Subx4 => self.set(o[0], (self.a(o[1]) << 2).wrapping_sub(self.a(o[2]))),
            Subx8 => self.set(o[0], (self.a(o[1]) << 3).wrapping_sub(self.a(o[2]))),
            And => self.set(o[0], self.a(o[1]) & self.a(o[2])),
            Or => self.set(o[0], self.a(o[1]) | self.a(o[2])),
            Xor => self.set(o[0], self.a(o[1]) ^ self.a(o[2])),
            Neg => self.set(o[0], self.a(o[1]).wrapping_neg()),
            Abs => self.set(o[0], (self.a(o[1]) as i32).wrapping_abs() as u32),
            Addi | Addmi | AddiN => self.set(o[0], self.a(o[1]).wrapping_add(o[2])),
            Movi | MoviN => self.set(o[0], o[1]),
            MovN => self.set(o[0], self.a(o[1])),
            Moveqz => {
                if self.a(o[2]) == 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            Movnez => {
                if self.a(o[2]) != 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            Movltz => {
                if (self.a(o[2]) as i32) < 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            Movgez => {
                if (self.a(o[2]) as i32) >= 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            Salt => self.set(
                o[0],
                u32::from((self.a(o[1]) as i32) < (self.a(o[2]) as i32)),
            ),
            Saltu => self.set(o[0], u32::from(self.a(o[1]) < self.a(o[2]))),
            Const16 => self.set(o[0], (self.a(o[0]) << 16) | o[1]),
            Nop | NopN => {}

            // ------------------------------------------------------------------- shifts
            Extui => {
                let v = self.a(o[1]) >> o[2];
                let mask = if o[3] >= 32 {
                    u32::MAX
                } else {
                    (1u32 << o[3]) - 1
                };
                self.set(o[0], v & mask)
            }
            Slli => self.set(o[0], self.a(o[1]) << (o[2] & 31)),
            Srli => self.set(o[0], self.a(o[1]) >> o[2]),
            Srai => self.set(o[0], ((self.a(o[1]) as i32) >> o[2]) as u32),
            Sll => {
                let sa = 32u32.wrapping_sub(self.state.sar()) & 0x3f;
                self.set(o[0], (u64::from(self.a(o[1])) << sa) as u32)
            }
            Srl => self.set(o[0], (u64::from(self.a(o[1])) >> self.state.sar()) as u32),
            Sra => self.set(
                o[0],
                (i64::from(self.a(o[1]) as i32) >> self.state.sar()) as u32,
            ),
            Src => {
                let v = (u64::from(self.a(o[1])) << 32) | u64::from(self.a(o[2]));
                self.set(o[0], (v >> self.state.sar()) as u32)
            }
            Ssr => self.set_sar(self.a(o[0]) & 31),
            Ssl => self.set_sar(32 - (self.a(o[0]) & 31)),
            Ssa8l => self.set_sar((self.a(o[0]) & 3) << 3),
            Ssa8b => self.set_sar(32 - ((self.a(o[0]) & 3) << 3)),
            Ssai => self.set_sar(o[0]),

            // ------------------------------------------------------- multiply / divide / misc
            Mul16u => {
                self.set(o[0], (self.a(o[1]) & 0xffff) * (self.a(o[2]) & 0xffff));
                self.late_result(opcode, o[0]);
            }
            Mul16s => {
                let v = i32::from(self.a(o[1]) as i16) * i32::from(self.a(o[2]) as i16);
                self.set(o[0], v as u32);
                self.late_result(opcode, o[0]);
            }
            Mull => {
                self.set(o[0], self.a(o[1]).wrapping_mul(self.a(o[2])));
                self.late_result(opcode, o[0]);
            }
            Muluh => {
                let v = u64::from(self.a(o[1])) * u64::from(self.a(o[2]));
                self.set(o[0], (v >> 32) as u32);
                self.late_result(opcode, o[0]);
            }
            Mulsh => {
                let v = i64::from(self.a(o[1]) as i32) * i64::from(self.a(o[2]) as i32);
                self.set(o[0], (v >> 32) as u32);
                self.late_result(opcode, o[0]);
            }
            Quos | Quou | Rems | Remu => return self.divide(opcode, op),
            Nsa => {
                let v = self.a(o[1]) as i32;
                let n = if v < 0 {
                    (!v).leading_zeros()
                } else {
                    v.leading_zeros()
                };
                self.set(o[0], n - 1)
            }
            Nsau => self.set(o[0], self.a(o[1]).leading_zeros()),
            Min => self.set(o[0], (self.a(o[1]) as i32).min(self.a(o[2]) as i32) as u32),
            Max => self.set(o[0], (self.a(o[1]) as i32).max(self.a(o[2]) as i32) as u32),
            Minu => self.set(o[0], self.a(o[1]).min(self.a(o[2]))),
            Maxu => self.set(o[0], self.a(o[1]).max(self.a(o[2]))),
            Sext => {
                let sh = 31 - o[2];
                self.set(o[0], (((self.a(o[1]) << sh) as i32) >> sh) as u32)
            }
            Clamps => {
                let v = self.a(o[1]) as i32;
                let hi = (1i32 << o[2]) - 1;
                let lo = -(1i32 << o[2]);
                self.set(o[0], v.clamp(lo, hi) as u32)
            }

            // --------------------------------------------------------------- boolean
            Andb | Andbc | Orb | Orbc | Xorb => {
                let br = self.state.sr(sr::BR);
                let (x, y) = (br >> o[1] & 1, br >> o[2] & 1);
                let v = match opcode {
                    Andb => x & y,
                    Andbc => x & !y & 1,
                    Orb => x | y,
                    Orbc => (x | !y) & 1,
                    _ => x ^ y,
                };
                self.state.set_sr(sr::BR, (br & !(1 << o[0])) | (v << o[0]));
            }
            Any4 | All4 | Any8 | All8 => {
                let br = self.state.sr(sr::BR);
                let width = if matches!(opcode, Any4 | All4) { 4 } else { 8 };
                let bits = (br >> o[1]) & ((1 << width) - 1);
                let v = match opcode {
                    Any4 | Any8 => u32::from(bits != 0),
                    _ => u32::from(bits == (1 << width) - 1),
                };
                self.state.set_sr(sr::BR, (br & !(1 << o[0])) | (v << o[0]));
            }
            Movf => {
                if self.state.sr(sr::BR) >> o[2] & 1 == 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            Movt => {
                if self.state.sr(sr::BR) >> o[2] & 1 != 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            _ => not_in_family("ALU", op),
        }
        Ok(Flow::NEXT)
    }

    #[inline(always)]
    fn set_sar(&mut self, v: u32) {
        self.state.set_sr(sr::SAR, v);
    }

    /// QUOS/QUOU/REMS/REMU: the divider blocks the pipeline for its latency.
    #[inline(always)]
    fn divide(&mut self, opcode: Opcode, op: &Op) -> Res<Flow> {
        let o = op.insn.operands;
        let (x, y) = (self.a(o[1]), self.a(o[2]));
        if y == 0 {
            return Err(Exc::general(Reason::DivideByZero(opcode)));
        }
        let v = match opcode {
            Opcode::Quos => (x as i32).wrapping_div(y as i32) as u32,
            Opcode::Rems => (x as i32).wrapping_rem(y as i32) as u32,
            Opcode::Quou => x / y,
            _ => x % y,
        };
        self.set(o[0], v);
        let extra = self.timing.divide_block();
        self.stats.stalls.divide += u64::from(extra);
        Ok(Flow {
            target: None,
            extra,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{core_with, exec};
    use q7_isa::Opcode::*;
    use q7_isa::{DC233C, NCORE2GP};

    use crate::fault::ExcCause;

    #[test]
    fn arithmetic_wraps_and_shifts_use_sar() {
        let mut c = core_with(&DC233C, &[]);
        c.set(4, 0xffff_fff0);
        c.set(5, 0x20);
        exec(&mut c, Add, &[3, 4, 5]).unwrap();
        assert_eq!(c.a(3), 0x10);
        exec(&mut c, Addx4, &[3, 5, 5]).unwrap();
        assert_eq!(c.a(3), 0xa0);
        exec(&mut c, Ssai, &[4]).unwrap();
        assert_eq!(c.state.sar(), 4);
        exec(&mut c, Src, &[3, 5, 4]).unwrap();
        assert_eq!(c.a(3), 0x0fff_ffff, "a5:a4 >> 4");
        exec(&mut c, Ssl, &[5]).unwrap();
        assert_eq!(c.state.sar(), 32, "SSL of 0x20 & 31 = 0 gives 32");
        exec(&mut c, Sll, &[3, 5]).unwrap();
        assert_eq!(c.a(3), 0x20, "shift by 32 - 32");
    }

    #[test]
    fn min_max_sext_clamps_and_nsa() {
        let mut c = core_with(&NCORE2GP, &[]);
        c.set(4, 0x80);
        exec(&mut c, Sext, &[3, 4, 7]).unwrap();
        assert_eq!(c.a(3), 0xffff_ff80);
        exec(&mut c, Clamps, &[3, 4, 7]).unwrap();
        assert_eq!(c.a(3), 0x7f);
        c.set(5, 0xffff_ffff);
        exec(&mut c, Min, &[3, 4, 5]).unwrap();
        assert_eq!(c.a(3), 0xffff_ffff);
        exec(&mut c, Maxu, &[3, 4, 5]).unwrap();
        assert_eq!(c.a(3), 0xffff_ffff);
        exec(&mut c, Nsa, &[3, 4]).unwrap();
        assert_eq!(c.a(3), 23);
        exec(&mut c, Nsau, &[3, 4]).unwrap();
        assert_eq!(c.a(3), 24);
    }

    #[test]
    fn division_blocks_the_pipeline_and_by_zero_raises_its_cause() {
        let mut c = core_with(&DC233C, &[]);
        c.set(4, 7u32.wrapping_neg());
        c.set(5, 2);
        let before = c.stats.cycles;
        exec(&mut c, Quos, &[3, 4, 5]).unwrap();
        assert_eq!(c.a(3), 3u32.wrapping_neg());
        assert_eq!(c.stats.cycles - before, 32);
        assert_eq!(c.stats.stalls.divide, 31);
        exec(&mut c, Rems, &[3, 4, 5]).unwrap();
        assert_eq!(c.a(3), 1u32.wrapping_neg());
        let e = exec(&mut c, Quou, &[3, 4, 6]).unwrap_err();
        assert_eq!(e.cause(), Some(ExcCause::IntegerDivideByZero));
        assert_eq!(e.describe(c.config), "quou by zero");
    }

    #[test]
    fn multiply_results_arrive_late() {
        let mut c = core_with(&DC233C, &[]);
        c.set(4, 3);
        c.set(5, 5);
        exec(&mut c, Mull, &[3, 4, 5]).unwrap();
        assert_eq!(c.a(3), 15);
        let before = c.stats.cycles;
        exec(&mut c, Add, &[6, 3, 3]).unwrap();
        assert_eq!(c.stats.cycles - before, 2, "one multiply-use stall");
        assert_eq!(c.stats.stalls.multiply, 1);
    }

    #[test]
    fn boolean_registers_combine_bit_by_bit() {
        let mut c = core_with(&NCORE2GP, &[]);
        c.state.set_sr(q7_isa::sreg::sr::BR, 0b0110);
        exec(&mut c, Andb, &[0, 1, 2]).unwrap();
        exec(&mut c, Any4, &[4, 0]).unwrap();
        exec(&mut c, All4, &[8, 0]).unwrap();
        assert_eq!(c.state.sr(q7_isa::sreg::sr::BR), 0b1_0111);
    }
}
