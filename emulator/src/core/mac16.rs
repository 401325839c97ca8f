//! MAC16: 16×16 multiplies into the 40-bit accumulator ACCHI:ACCLO from address registers or
//! the MAC16 registers m0..m3, with optional loads into m0..m3 (semantics as QEMU's). Which
//! variant an instruction is comes from its decoded [`Mac16`](crate::predecode::Mac16).

use q7_isa::sreg::sr;

use super::{Core, Flow, Res};
use crate::bus::Bus;
use crate::predecode::{MacOp, Op};
use crate::trace::Tracer;

impl<B: Bus> Core<B> {
    /// Executes a MAC16 instruction.
    pub(super) fn mac16<T: Tracer>(&mut self, op: &Op) -> Res<Flow> {
        let o = op.insn.operands;
        let Some(m) = op.mac16 else {
            super::not_in_family("MAC16", op)
        };
        // Operands: [mw, as, x, y] with a load, [x, y] without.
        let loaded = if m.load_step != 0 {
            let addr = self.a(o[1]).wrapping_add(m.load_step as u32);
            Some((addr, self.load::<T>(addr, 4)?))
        } else {
            None
        };
        if let Some(kind) = m.multiply {
            let off = if m.load_step != 0 { 2 } else { 0 };
            let factor = |core: &Self, k: usize, is_m: bool| {
                if is_m {
                    core.state.sr(sr::M0 + o[k] as u8)
                } else {
                    core.a(o[k])
                }
            };
            let x = factor(self, off, m.x_is_m);
            let y = factor(self, off + 1, m.y_is_m);
            let prod = half(x, m.x_high, kind).wrapping_mul(half(y, m.y_high, kind));
            let (lo, hi) = accumulate(self.accumulator(), prod, kind);
            self.state.set_sr(sr::ACCLO, lo);
            self.state.set_sr(sr::ACCHI, hi);
        }
        if let Some((addr, v)) = loaded {
            self.set(o[1], addr);
            self.state.set_sr(sr::M0 + o[0] as u8, v);
        }
        Ok(Flow::NEXT)
    }

    /// ACCHI:ACCLO as one 64-bit value (ACCHI as stored, sign-extended from bit 39).
    fn accumulator(&self) -> u64 {
        (u64::from(self.state.sr(sr::ACCHI)) << 32) | u64::from(self.state.sr(sr::ACCLO))
    }
}

/// The 16-bit half of `v` a factor uses, extended as the multiply needs.
fn half(v: u32, high: bool, kind: MacOp) -> u32 {
    let h = if high { v >> 16 } else { v } & 0xffff;
    if kind == MacOp::Umul {
        h
    } else {
        h as u16 as i16 as i32 as u32
    }
}

/// The new (ACCLO, ACCHI) after `kind` with product `prod` on accumulator `acc`.
fn accumulate(acc: u64, prod: u32, kind: MacOp) -> (u32, u32) {
    match kind {
        MacOp::Umul => (prod, 0),
        MacOp::Mul => (prod, ((prod as i32) >> 31) as u32),
        MacOp::Mula | MacOp::Muls => {
            let p = i64::from(prod as i32) as u64;
            let r = if kind == MacOp::Mula {
                acc.wrapping_add(p)
            } else {
                acc.wrapping_sub(p)
            };
            (r as u32, (r >> 32) as u8 as i8 as i32 as u32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{core_with, exec};
    use super::*;
    use crate::predecode::Mac16;

    /// The decoded variant of a MAC16 opcode.
    fn variant(opcode: q7_isa::Opcode) -> Mac16 {
        Mac16::of(opcode).expect("a MAC16 opcode")
    }
    use q7_isa::Opcode::*;
    use q7_isa::DC233C;

    #[test]
    fn the_variant_is_read_off_the_mnemonic_once() {
        assert_eq!(
            variant(MulaDaHlLdinc),
            Mac16 {
                multiply: Some(MacOp::Mula),
                x_is_m: true,
                y_is_m: false,
                x_high: true,
                y_high: false,
                load_step: 4,
            }
        );
        assert_eq!(variant(Lddec).multiply, None);
        assert_eq!(variant(Lddec).load_step, -4);
        assert_eq!(variant(UmulAaLh).multiply, Some(MacOp::Umul));
        assert!(variant(UmulAaLh).y_high && !variant(UmulAaLh).x_high);
        assert_eq!(Mac16::of(Add), None);
    }

    #[test]
    fn signed_and_unsigned_products_and_a_40_bit_accumulator() {
        let mut c = core_with(&DC233C, &[]);
        c.set(2, 0xffff);
        c.set(3, 0x0002_0003);
        exec(&mut c, UmulAaLl, &[2, 3]).unwrap();
        assert_eq!(
            (c.state.sr(sr::ACCLO), c.state.sr(sr::ACCHI)),
            (0x2_fffd, 0)
        );
        exec(&mut c, MulAaLl, &[2, 3]).unwrap();
        assert_eq!(
            (c.state.sr(sr::ACCLO), c.state.sr(sr::ACCHI)),
            (0xffff_fffd, 0xffff_ffff),
            "-1 * 3"
        );
        exec(&mut c, MulsAaLh, &[2, 3]).unwrap();
        assert_eq!(
            (c.state.sr(sr::ACCLO), c.state.sr(sr::ACCHI)),
            (0xffff_ffff, 0xffff_ffff),
            "-3 - (-1 * 2) = -1"
        );
        c.state.set_sr(sr::ACCLO, 0xffff_ffff);
        c.state.set_sr(sr::ACCHI, 0x7f);
        c.set(2, 1);
        exec(&mut c, MulaAaLl, &[2, 2]).unwrap();
        assert_eq!(
            (c.state.sr(sr::ACCLO), c.state.sr(sr::ACCHI)),
            (0, 0xffff_ff80),
            "bit 39 carries into the sign"
        );
    }

    #[test]
    fn ldinc_loads_an_m_register_and_steps_the_address() {
        let mut c = core_with(&DC233C, &[]);
        c.bus.write(0x604, &0x55u32.to_le_bytes());
        c.set(4, 0x600);
        exec(&mut c, Ldinc, &[2, 4]).unwrap();
        assert_eq!((c.state.sr(sr::M0 + 2), c.a(4)), (0x55, 0x604));
        c.state.set_sr(sr::M0 + 1, 0x0003_0000);
        c.set(5, 7);
        exec(&mut c, MulaDaHlLdinc, &[0, 4, 1, 5]).unwrap();
        assert_eq!(c.state.sr(sr::ACCLO), 21, "m1 high half × a5 low half");
        assert_eq!(c.a(4), 0x608);
    }
}
