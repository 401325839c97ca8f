//! Operand kinds: where an operand lives in the instruction word, how its value is decoded and
//! encoded, and how GNU objdump prints it (isa/ISA.md §1.1, §2.1).
//!
//! Decoded values are `u32`: register numbers, immediates (two's complement when negative),
//! absolute targets for PC-relative operands, and row indices into the register-name tables for
//! special/user registers. Encoding is the exact inverse and rejects values the field cannot
//! hold, so `encode(decode(w)) == w` for every word that decodes.

use crate::config::CoreConfig;
use crate::sreg::{self, Access, SPECIAL_REGISTERS, USER_REGISTERS};

/// One operand of an opcode row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// Address register in field r (bits 15:12).
    ArR,
    /// Address register in field s (bits 11:8).
    ArS,
    /// Address register in field t (bits 7:4).
    ArT,
    /// MAC16 register m0/m1 selected by bit 14 (`mx`).
    MrX,
    /// MAC16 register m2/m3 selected by bit 6 (`my`).
    MrY,
    /// MAC16 register m0..m3 in bits 13:12 (`mw`, load destination).
    MrW,
    /// Boolean register in field r.
    BrR,
    /// Boolean register in field s.
    BrS,
    /// Boolean register in field t.
    BrT,
    /// Boolean register group b0/b4/b8/b12 in field s (`s[1:0]` = 0; ANY4/ALL4).
    BrS4,
    /// Boolean register group b0/b8 in field s (`s[2:0]` = 0; ANY8/ALL8).
    BrS8,
    /// Field s that the instruction ignores; kept so the word re-encodes exactly. Not printed.
    HiddenS,
    /// Field t that the instruction ignores; kept so the word re-encodes exactly. Not printed.
    HiddenT,
    /// imm8 sign-extended (ADDI).
    Simm8,
    /// imm8 sign-extended, times 256 (ADDMI).
    Simm8x256,
    /// imm8 (L8UI, S8I).
    Uimm8,
    /// imm8 × 2 (16-bit loads/stores).
    Uimm8x2,
    /// imm8 × 4 (32-bit loads/stores, cache "hit" operations).
    Uimm8x4,
    /// op2 × 16 (cache "index" operations).
    Uimm4x16,
    /// s‖imm8 sign-extended from 12 bits (MOVI).
    Simm12b,
    /// imm12 × 8 (ENTRY frame size).
    Uimm12x8,
    /// Field t sign-extended from 4 bits (ROTW).
    Simm4,
    /// (r × 4) − 64 (L32E/S32E).
    Immrx4,
    /// r × 4 (L32I.N, S32I.N, S32NB).
    Lsi4x4,
    /// MOVI.N immediate {`t[2:0]`, r}: −32..95.
    Simm7,
    /// ADDI.N immediate: t, with 0 meaning −1.
    Ai4const,
    /// `B4CONST[r]` (BEQI, BNEI, BLTI, BGEI).
    B4const,
    /// `B4CONSTU[r]` (BLTUI, BGEUI).
    B4constu,
    /// SLLI shift: 32 − {`op2[0]`, t}.
    Msalp32,
    /// EXTUI mask width: op2 + 1.
    Op2p1,
    /// EXTUI shift: {`op1[0]`, s}.
    Sae,
    /// SSAI shift: {`t[0]`, s}.
    Sas,
    /// SRAI shift: {`op2[0]`, s}.
    Sargt,
    /// Field s as an immediate (SRLI shift, interrupt levels, BREAK first operand).
    ImmS,
    /// Field t as an immediate (BREAK second operand).
    ImmT,
    /// SEXT/CLAMPS bit: t + 7.
    Tp7,
    /// BBCI/BBSI bit: {`r[0]`, t}.
    Bbi,
    /// SETB_EXPSTATE/CLRB_EXPSTATE bit: {`s[0]`, t}.
    Bitindex,
    /// imm16 (CONST16).
    Imm16,
    /// Branch target PC + 4 + sext(imm8).
    Label8,
    /// Loop end PC + 4 + imm8.
    Ulabel8,
    /// Branch target PC + 4 + sext(imm12).
    Label12,
    /// Jump target PC + 4 + sext(offset18).
    Soffset,
    /// Call target (PC & ~3) + 4 + (sext(offset18) << 2).
    Soffsetx4,
    /// Narrow branch target PC + 4 + {`t[1:0]`, r}.
    Uimm6,
    /// L32R literal address ((PC + 3) & ~3) + ((0xFFFF0000 | imm16) << 2).
    L32rTarget,
    /// Special register read by RSR (bits 15:8); value = row in [`SPECIAL_REGISTERS`].
    SrRead,
    /// Special register written by WSR; value = row in [`SPECIAL_REGISTERS`].
    SrWrite,
    /// Special register exchanged by XSR; value = row in [`SPECIAL_REGISTERS`].
    SrExchange,
    /// User register read by RUR ({s, t}, bits 11:4); value = row in [`USER_REGISTERS`].
    UrRead,
    /// User register written by WUR ({r, s}, bits 15:8); value = row in [`USER_REGISTERS`].
    UrWrite,
}

/// How an operand is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperandStyle {
    /// A register with this file prefix (`a`, `m`, `b`).
    Register(&'static str),
    /// An immediate: decimal when −256 < v < 256, else `0x%x` of the 32-bit value.
    Immediate,
    /// An absolute code or literal address: `0x%x`.
    Address,
    /// Part of the mnemonic (special/user register names) or not printed at all.
    Hidden,
}

const B4CONST: [u32; 16] = [
    -1i32 as u32,
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    10,
    12,
    16,
    32,
    64,
    128,
    256,
];
const B4CONSTU: [u32; 16] = [
    32768, 65536, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 32, 64, 128, 256,
];

#[inline]
fn bits(w: u32, lo: u32, n: u32) -> u32 {
    (w >> lo) & ((1 << n) - 1)
}

#[inline]
fn sext(v: u32, n: u32) -> u32 {
    (((v << (32 - n)) as i32) >> (32 - n)) as u32
}

/// Whether `v` (a two's-complement 32-bit value) fits a signed `n`-bit field.
#[inline]
fn fits_signed(v: u32, n: u32) -> bool {
    sext(v, n) == v
}

impl OperandKind {
    /// How objdump prints this operand.
    pub fn style(self) -> OperandStyle {
        use OperandKind::*;
        match self {
            ArR | ArS | ArT => OperandStyle::Register("a"),
            MrX | MrY | MrW => OperandStyle::Register("m"),
            BrR | BrS | BrT | BrS4 | BrS8 => OperandStyle::Register("b"),
            HiddenS | HiddenT | SrRead | SrWrite | SrExchange | UrRead | UrWrite => {
                OperandStyle::Hidden
            }
            Label8 | Ulabel8 | Label12 | Soffset | Soffsetx4 | Uimm6 | L32rTarget => {
                OperandStyle::Address
            }
            _ => OperandStyle::Immediate,
        }
    }

    /// Whether the operand appears in the disassembly text after the mnemonic.
    pub fn is_visible(self) -> bool {
        self.style() != OperandStyle::Hidden
    }

    /// Whether the value is a PC-relative target (stored as an absolute address).
    pub fn is_pc_relative(self) -> bool {
        self.style() == OperandStyle::Address
    }

    /// The instruction-word bits this operand occupies.
    pub fn field_mask(self) -> u32 {
        use OperandKind::*;
        match self {
            ArT | BrT | HiddenT | ImmT | Simm4 | Tp7 => 0x0000f0,
            ArS | BrS | HiddenS | ImmS => 0x000f00,
            ArR | BrR | Immrx4 | Lsi4x4 | B4const | B4constu => 0x00f000,
            BrS4 => 0x000c00,
            BrS8 => 0x000800,
            MrX => 0x004000,
            MrY => 0x000040,
            MrW => 0x003000,
            Simm8 | Simm8x256 | Uimm8 | Uimm8x2 | Uimm8x4 | Label8 | Ulabel8 => 0xff0000,
            Uimm4x16 | Op2p1 => 0xf00000,
            Simm12b => 0xff0f00,
            Uimm12x8 | Label12 => 0xfff000,
            Simm7 => 0x00f070,
            Uimm6 => 0x00f030,
            Ai4const => 0x0000f0,
            Msalp32 => 0x1000f0,
            Sae => 0x010f00,
            Sas => 0x000f10,
            Sargt => 0x100f00,
            Bbi => 0x0010f0,
            Bitindex => 0x0001f0,
            Imm16 | L32rTarget => 0xffff00,
            Soffset | Soffsetx4 => 0xffffc0,
            SrRead | SrWrite | SrExchange | UrWrite => 0x00ff00,
            UrRead => 0x000ff0,
        }
    }

    /// Decodes the operand from instruction word `w` at `pc`. `None` when the field names a
    /// register the configuration does not have (special/user registers only).
    #[inline]
    pub fn decode(self, w: u32, pc: u32, config: &CoreConfig) -> Option<u32> {
        use OperandKind::*;
        let t = bits(w, 4, 4);
        let s = bits(w, 8, 4);
        let r = bits(w, 12, 4);
        let v = match self {
            ArT | BrT | HiddenT | ImmT => t,
            ArS | BrS | BrS4 | BrS8 | HiddenS | ImmS => s,
            ArR | BrR => r,
            MrX => bits(w, 14, 1),
            MrY => bits(w, 6, 1) + 2,
            MrW => bits(w, 12, 2),
            Simm8 => sext(bits(w, 16, 8), 8),
            Simm8x256 => sext(bits(w, 16, 8), 8) << 8,
            Uimm8 => bits(w, 16, 8),
            Uimm8x2 => bits(w, 16, 8) << 1,
            Uimm8x4 => bits(w, 16, 8) << 2,
            Uimm4x16 => bits(w, 20, 4) << 4,
            Simm12b => sext((s << 8) | bits(w, 16, 8), 12),
            Uimm12x8 => bits(w, 12, 12) << 3,
            Simm4 => sext(t, 4),
            Immrx4 => (r << 2).wrapping_sub(64),
            Lsi4x4 => r << 2,
            Simm7 => {
                let imm7 = ((t & 7) << 4) | r;
                if imm7 & 0x60 == 0x60 {
                    imm7 | !0x7f
                } else {
                    imm7
                }
            }
            Ai4const => {
                if t == 0 {
                    u32::MAX
                } else {
                    t
                }
            }
            B4const => B4CONST[r as usize],
            B4constu => B4CONSTU[r as usize],
            Msalp32 => 32 - ((bits(w, 20, 1) << 4) | t),
            Op2p1 => bits(w, 20, 4) + 1,
            Sae => (bits(w, 16, 1) << 4) | s,
            Sas => ((t & 1) << 4) | s,
            Sargt => (bits(w, 20, 1) << 4) | s,
            Tp7 => t + 7,
            Bbi => ((r & 1) << 4) | t,
            Bitindex => ((s & 1) << 4) | t,
            Imm16 => bits(w, 8, 16),
            Label8 => pc.wrapping_add(4).wrapping_add(sext(bits(w, 16, 8), 8)),
            Ulabel8 => pc.wrapping_add(4).wrapping_add(bits(w, 16, 8)),
            Label12 => pc.wrapping_add(4).wrapping_add(sext(bits(w, 12, 12), 12)),
            Soffset => pc.wrapping_add(4).wrapping_add(sext(bits(w, 6, 18), 18)),
            Soffsetx4 => (pc & !3)
                .wrapping_add(4)
                .wrapping_add(sext(bits(w, 6, 18), 18) << 2),
            Uimm6 => pc.wrapping_add(4).wrapping_add(((t & 3) << 4) | r),
            L32rTarget => {
                (pc.wrapping_add(3) & !3).wrapping_add((0xffff_0000 | bits(w, 8, 16)) << 2)
            }
            SrRead => return sr_row(bits(w, 8, 8), Access::READ, config),
            SrWrite => return sr_row(bits(w, 8, 8), Access::WRITE, config),
            SrExchange => return sr_row(bits(w, 8, 8), Access::EXCHANGE, config),
            UrRead => return ur_row(bits(w, 4, 8), Access::READ, config),
            UrWrite => return ur_row(bits(w, 8, 8), Access::WRITE, config),
        };
        Some(v)
    }

    /// Encodes `v` (as [`decode`](Self::decode) returns it) into the operand's bits of an
    /// instruction at `pc`, or explains why the field cannot hold it.
    pub fn encode(self, v: u32, pc: u32) -> Result<u32, &'static str> {
        use OperandKind::*;
        let in_range = |ok: bool, why: &'static str| if ok { Ok(()) } else { Err(why) };
        let field = match self {
            ArT | BrT | HiddenT | ImmT => {
                in_range(v < 16, "register or field out of range 0..15")?;
                v << 4
            }
            ArS | BrS | HiddenS | ImmS => {
                in_range(v < 16, "register or field out of range 0..15")?;
                v << 8
            }
            ArR | BrR => {
                in_range(v < 16, "register out of range 0..15")?;
                v << 12
            }
            BrS4 => {
                in_range(
                    v < 16 && v.is_multiple_of(4),
                    "boolean group must be b0, b4, b8 or b12",
                )?;
                v << 8
            }
            BrS8 => {
                in_range(v == 0 || v == 8, "boolean group must be b0 or b8")?;
                v << 8
            }
            MrX => {
                in_range(v < 2, "mx must be m0 or m1")?;
                v << 14
            }
            MrY => {
                in_range(v == 2 || v == 3, "my must be m2 or m3")?;
                (v - 2) << 6
            }
            MrW => {
                in_range(v < 4, "mw must be m0..m3")?;
                v << 12
            }
            Simm8 => {
                in_range(fits_signed(v, 8), "immediate out of range -128..127")?;
                (v & 0xff) << 16
            }
            Simm8x256 => {
                in_range(
                    v & 0xff == 0 && fits_signed(v, 16),
                    "immediate must be a multiple of 256 in -32768..32512",
                )?;
                ((v >> 8) & 0xff) << 16
            }
            Uimm8 => {
                in_range(v < 256, "offset out of range 0..255")?;
                v << 16
            }
            Uimm8x2 => {
                in_range(
                    v < 512 && v.is_multiple_of(2),
                    "offset must be even in 0..510",
                )?;
                (v >> 1) << 16
            }
            Uimm8x4 => {
                in_range(
                    v < 1024 && v.is_multiple_of(4),
                    "offset must be a multiple of 4 in 0..1020",
                )?;
                (v >> 2) << 16
            }
            Uimm4x16 => {
                in_range(
                    v < 256 && v.is_multiple_of(16),
                    "offset must be a multiple of 16 in 0..240",
                )?;
                (v >> 4) << 20
            }
            Simm12b => {
                in_range(fits_signed(v, 12), "immediate out of range -2048..2047")?;
                (((v >> 8) & 0xf) << 8) | ((v & 0xff) << 16)
            }
            Uimm12x8 => {
                in_range(
                    v < 32768 && v.is_multiple_of(8),
                    "frame size must be a multiple of 8 in 0..32760",
                )?;
                (v >> 3) << 12
            }
            Simm4 => {
                in_range(fits_signed(v, 4), "rotation out of range -8..7")?;
                (v & 0xf) << 4
            }
            Immrx4 => {
                let off = v as i32;
                in_range(
                    (-64..=-4).contains(&off) && off % 4 == 0,
                    "offset must be a multiple of 4 in -64..-4",
                )?;
                (((off + 64) as u32) >> 2) << 12
            }
            Lsi4x4 => {
                in_range(
                    v < 64 && v.is_multiple_of(4),
                    "offset must be a multiple of 4 in 0..60",
                )?;
                (v >> 2) << 12
            }
            Simm7 => {
                let x = v as i32;
                in_range((-32..=95).contains(&x), "immediate out of range -32..95")?;
                let imm7 = (x & 0x7f) as u32;
                ((imm7 >> 4) << 4) | ((imm7 & 0xf) << 12)
            }
            Ai4const => {
                let t = match v as i32 {
                    -1 => 0,
                    1..=15 => v,
                    _ => return Err("immediate must be -1 or 1..15"),
                };
                t << 4
            }
            B4const => index_of(&B4CONST, v, "constant not in the B4CONST table")? << 12,
            B4constu => index_of(&B4CONSTU, v, "constant not in the B4CONSTU table")? << 12,
            Msalp32 => {
                in_range((1..=32).contains(&v), "shift out of range 1..32")?;
                let f = 32 - v;
                ((f >> 4) << 20) | ((f & 0xf) << 4)
            }
            Op2p1 => {
                in_range((1..=16).contains(&v), "mask width out of range 1..16")?;
                (v - 1) << 20
            }
            Sae => {
                in_range(v < 32, "shift out of range 0..31")?;
                ((v >> 4) << 16) | ((v & 0xf) << 8)
            }
            Sas => {
                in_range(v < 32, "shift out of range 0..31")?;
                ((v >> 4) << 4) | ((v & 0xf) << 8)
            }
            Sargt => {
                in_range(v < 32, "shift out of range 0..31")?;
                ((v >> 4) << 20) | ((v & 0xf) << 8)
            }
            Tp7 => {
                in_range((7..=22).contains(&v), "bit out of range 7..22")?;
                (v - 7) << 4
            }
            Bbi => {
                in_range(v < 32, "bit out of range 0..31")?;
                ((v >> 4) << 12) | ((v & 0xf) << 4)
            }
            Bitindex => {
                in_range(v < 32, "bit out of range 0..31")?;
                ((v >> 4) << 8) | ((v & 0xf) << 4)
            }
            Imm16 => {
                in_range(v < 65536, "immediate out of range 0..65535")?;
                v << 8
            }
            Label8 => {
                let d = v.wrapping_sub(pc.wrapping_add(4));
                in_range(
                    fits_signed(d, 8),
                    "branch target out of range (-128..127 from PC+4)",
                )?;
                (d & 0xff) << 16
            }
            Ulabel8 => {
                let d = v.wrapping_sub(pc.wrapping_add(4));
                in_range(d < 256, "loop end out of range (0..255 after PC+4)")?;
                d << 16
            }
            Label12 => {
                let d = v.wrapping_sub(pc.wrapping_add(4));
                in_range(
                    fits_signed(d, 12),
                    "branch target out of range (-2048..2047 from PC+4)",
                )?;
                (d & 0xfff) << 12
            }
            Soffset => {
                let d = v.wrapping_sub(pc.wrapping_add(4));
                in_range(fits_signed(d, 18), "jump target out of range (±128 KiB)")?;
                (d & 0x3ffff) << 6
            }
            Soffsetx4 => {
                let d = v.wrapping_sub((pc & !3).wrapping_add(4));
                in_range(d.is_multiple_of(4), "call target must be 4-byte aligned")?;
                let q = ((d as i32) >> 2) as u32;
                in_range(fits_signed(q, 18), "call target out of range (±512 KiB)")?;
                (q & 0x3ffff) << 6
            }
            Uimm6 => {
                let d = v.wrapping_sub(pc.wrapping_add(4));
                in_range(
                    d < 64,
                    "narrow branch target out of range (0..63 after PC+4)",
                )?;
                ((d >> 4) << 4) | ((d & 0xf) << 12)
            }
            L32rTarget => {
                let d = v.wrapping_sub(pc.wrapping_add(3) & !3) as i32;
                in_range(
                    (-262_144..=-4).contains(&d) && d % 4 == 0,
                    "literal must be 4-byte aligned, 4..262144 bytes before the instruction",
                )?;
                (((d >> 2) as u32) & 0xffff) << 8
            }
            SrRead | SrWrite | SrExchange => {
                let row = SPECIAL_REGISTERS
                    .get(v as usize)
                    .ok_or("no such special register")?;
                u32::from(row.number) << 8
            }
            UrRead => {
                let row = USER_REGISTERS
                    .get(v as usize)
                    .ok_or("no such user register")?;
                u32::from(row.number) << 4
            }
            UrWrite => {
                let row = USER_REGISTERS
                    .get(v as usize)
                    .ok_or("no such user register")?;
                u32::from(row.number) << 8
            }
        };
        debug_assert_eq!(
            field & !self.field_mask(),
            0,
            "{self:?} wrote outside its field"
        );
        Ok(field)
    }
}

fn index_of(table: &[u32; 16], v: u32, why: &'static str) -> Result<u32, &'static str> {
    table
        .iter()
        .position(|&x| x == v)
        .map(|i| i as u32)
        .ok_or(why)
}

fn sr_row(number: u32, access: Access, config: &CoreConfig) -> Option<u32> {
    sreg::lookup(SPECIAL_REGISTERS, number, access, config).map(|i| i as u32)
}

fn ur_row(number: u32, access: Access, config: &CoreConfig) -> Option<u32> {
    sreg::lookup(USER_REGISTERS, number, access, config).map(|i| i as u32)
}
