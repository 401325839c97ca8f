//! Decoding: bytes → [`Decoded`] for a [`CoreConfig`] (isa/ISA.md §1.2–§1.4).
//!
//! The length is known from the first byte (and byte 3 for ncore2gp bundles) before anything
//! else, so a short buffer yields [`DecodeError::Truncated`] with the length it needs. Lookup is
//! table-driven: 16-bit words index a 65,536-entry table directly; 24-bit words index candidate
//! rows by their op0/op1/op2/r nibbles and the first row whose mask matches wins.

use std::fmt;

use crate::config::{CoreConfig, DecodeTables, Options};
use crate::flix::{self, BundleLen};
use crate::opcode::{Opcode, OpcodeInfo, OPCODES};

/// Maximum number of operands of any row.
pub const MAX_OPERANDS: usize = 4;

/// A decoded (non-bundle) instruction: its opcode, length and operand values in table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Insn {
    /// The opcode.
    pub opcode: Opcode,
    /// Length in bytes (2 or 3).
    pub len: u8,
    /// Operand values, in the order of `opcode.info().operands` (see [`crate::OperandKind`]).
    pub operands: [u32; MAX_OPERANDS],
}

impl Insn {
    /// The instruction's table row.
    #[inline]
    pub fn info(&self) -> &'static OpcodeInfo {
        self.opcode.info()
    }

    /// Operand `i` (table order).
    #[inline]
    pub fn operand(&self, i: usize) -> u32 {
        self.operands[i]
    }

    /// Builds an instruction from operand values in table order (for encoding).
    pub fn new(opcode: Opcode, operands: &[u32]) -> Insn {
        let mut ops = [0; MAX_OPERANDS];
        ops[..operands.len()].copy_from_slice(operands);
        Insn {
            opcode,
            len: opcode.info().len,
            operands: ops,
        }
    }
}

/// The result of decoding the bytes at one address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decoded {
    /// An instruction of the table.
    Insn(Insn),
    /// A Vision-Q7 FLIX bundle (ncore2gp only), recognised by length; its slots are opaque.
    Bundle {
        /// Bundle length in bytes (8 or 16).
        len: u8,
    },
}

impl Decoded {
    /// Length in bytes.
    pub fn len(&self) -> u8 {
        match self {
            Decoded::Insn(i) => i.len,
            Decoded::Bundle { len } => *len,
        }
    }

    /// Never true; present for API symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Why bytes do not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Fewer bytes are available than the instruction's length (known from its first bytes).
    #[error("truncated instruction at {pc:#010x}: needs {needed} bytes, {available} available")]
    Truncated {
        /// Address of the instruction.
        pc: u32,
        /// Bytes needed (the instruction length, or 4 to learn a bundle's length).
        needed: u8,
        /// Bytes that were available.
        available: usize,
    },
    /// The first byte starts no instruction format of this configuration.
    #[error("illegal instruction at {pc:#010x}: first byte {byte:#04x} (op0 {op0:#x}) starts no instruction format on {profile}")]
    NoFormat {
        /// Address of the instruction.
        pc: u32,
        /// The first byte.
        byte: u8,
        /// Its low nibble.
        op0: u8,
        /// Configuration name.
        profile: &'static str,
    },
    /// The length is known but no row of this configuration matches the word.
    #[error("illegal instruction at {pc:#010x}: {} is not an instruction on {profile}", HexWord(*.word, *.len))]
    Illegal {
        /// Address of the instruction.
        pc: u32,
        /// The little-endian instruction word.
        word: u32,
        /// Its length in bytes.
        len: u8,
        /// Configuration name.
        profile: &'static str,
    },
}

impl DecodeError {
    /// Address of the instruction that failed to decode.
    pub fn pc(&self) -> u32 {
        match *self {
            DecodeError::Truncated { pc, .. }
            | DecodeError::NoFormat { pc, .. }
            | DecodeError::Illegal { pc, .. } => pc,
        }
    }
}

/// An instruction word printed with the digits its length implies.
#[derive(Debug, Clone, Copy)]
pub struct HexWord(pub u32, pub u8);

impl fmt::Display for HexWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "word {:#0w$x}", self.0, w = 2 + 2 * self.1 as usize)
    }
}

#[inline]
fn wide_key(w: u32) -> usize {
    ((w & 0xf) | ((w >> 8) & 0xfff0)) as usize
}

impl DecodeTables {
    pub(crate) fn build(config: &CoreConfig) -> DecodeTables {
        let rows: Vec<(usize, &OpcodeInfo)> = OPCODES
            .iter()
            .enumerate()
            .filter(|(_, o)| config.has(o.options))
            .collect();
        // Narrow table: each 16-bit word maps to its first matching row.
        let mut narrow = vec![0u16; 1 << 16].into_boxed_slice();
        for (i, o) in rows.iter().rev().filter(|(_, o)| o.len == 2) {
            for_each_key(o.match_bits, o.mask, 0xffff, |w| {
                narrow[w as usize] = *i as u16 + 1
            });
        }
        // Wide table: for every op0/op1/op2/r key, the rows whose fixed bits allow it, in table
        // order. Rows enumerate their own keys (counting pass, then filling pass).
        let key_of = |w: u32| (w & 0xf) | ((w >> 8) & 0xfff0);
        let wide_rows: Vec<&(usize, &OpcodeInfo)> =
            rows.iter().filter(|(_, o)| o.len == 3).collect();
        let mut counts = vec![0u32; (1 << 16) + 1];
        for (_, o) in &wide_rows {
            for_each_key(key_of(o.match_bits), key_of(o.mask), 0xffff, |k| {
                counts[k as usize] += 1
            });
        }
        let mut wide_start = Vec::with_capacity((1 << 16) + 1);
        let mut total = 0u32;
        for c in &counts[..1 << 16] {
            wide_start.push(total);
            total += c;
        }
        wide_start.push(total);
        let mut fill = wide_start.clone();
        let mut pool = vec![0u16; total as usize];
        for (i, o) in &wide_rows {
            for_each_key(key_of(o.match_bits), key_of(o.mask), 0xffff, |k| {
                pool[fill[k as usize] as usize] = *i as u16;
                fill[k as usize] += 1;
            });
        }
        let pool = pool;
        DecodeTables {
            narrow,
            wide_start: wide_start.into_boxed_slice(),
            pool: pool.into_boxed_slice(),
        }
    }
}

/// Calls `f` for every value within `space` whose bits under `mask` equal those of `value`.
fn for_each_key(value: u32, mask: u32, space: u32, mut f: impl FnMut(u32)) {
    let free = space & !mask;
    let base = value & mask & space;
    let mut sub = 0u32;
    loop {
        f(base | sub);
        sub = sub.wrapping_sub(free) & free;
        if sub == 0 {
            break;
        }
    }
}

/// Decodes one instruction at `pc` from `bytes` (which start at `pc`) for `config`.
pub fn decode(bytes: &[u8], pc: u32, config: &CoreConfig) -> Result<Decoded, DecodeError> {
    let Some(&b0) = bytes.first() else {
        return Err(DecodeError::Truncated {
            pc,
            needed: 1,
            available: 0,
        });
    };
    let op0 = b0 & 0xf;
    let truncated = |needed: u8| DecodeError::Truncated {
        pc,
        needed,
        available: bytes.len(),
    };
    match op0 {
        0..=7 => {
            let [_, b1, b2, ..] = *bytes else {
                return Err(truncated(3));
            };
            let w = u32::from(b0) | u32::from(b1) << 8 | u32::from(b2) << 16;
            decode_wide(w, pc, config).map(Decoded::Insn)
        }
        8..=13 if config.has(Options::DENSITY) => {
            let [_, b1, ..] = *bytes else {
                return Err(truncated(2));
            };
            let w = u32::from(b0) | u32::from(b1) << 8;
            decode_narrow(w, pc, config).map(Decoded::Insn)
        }
        14 | 15 if config.has(Options::FLIX_Q7) => {
            let no_format = DecodeError::NoFormat {
                pc,
                byte: b0,
                op0,
                profile: config.name,
            };
            match flix::bundle_len(b0, bytes.get(3).copied()) {
                BundleLen::NeedByte3 => Err(truncated(4)),
                BundleLen::Bytes(len) if bytes.len() < len as usize => Err(truncated(len)),
                BundleLen::Bytes(len) => Ok(Decoded::Bundle { len }),
                BundleLen::Illegal => Err(no_format),
            }
        }
        _ => Err(DecodeError::NoFormat {
            pc,
            byte: b0,
            op0,
            profile: config.name,
        }),
    }
}

/// Decodes a 24-bit instruction word (op0 0..7).
pub fn decode_wide(w: u32, pc: u32, config: &CoreConfig) -> Result<Insn, DecodeError> {
    let t = config.tables(DecodeTables::build);
    let key = wide_key(w);
    let run = &t.pool[t.wide_start[key] as usize..t.wide_start[key + 1] as usize];
    for &i in run {
        let o = &OPCODES[i as usize];
        if w & o.mask == o.match_bits {
            if let Some(insn) = operands_of(o, w, pc, config) {
                return Ok(insn);
            }
        }
    }
    Err(DecodeError::Illegal {
        pc,
        word: w,
        len: 3,
        profile: config.name,
    })
}

/// Decodes a 16-bit instruction word (op0 8..13).
pub fn decode_narrow(w: u32, pc: u32, config: &CoreConfig) -> Result<Insn, DecodeError> {
    let illegal = DecodeError::Illegal {
        pc,
        word: w,
        len: 2,
        profile: config.name,
    };
    let i = config.tables(DecodeTables::build).narrow[(w & 0xffff) as usize];
    if i == 0 {
        return Err(illegal);
    }
    operands_of(&OPCODES[i as usize - 1], w, pc, config).ok_or(illegal)
}

#[inline]
fn operands_of(o: &OpcodeInfo, w: u32, pc: u32, config: &CoreConfig) -> Option<Insn> {
    let mut operands = [0; MAX_OPERANDS];
    for (slot, kind) in operands.iter_mut().zip(o.operands) {
        *slot = kind.decode(w, pc, config)?;
    }
    Some(Insn {
        opcode: o.opcode,
        len: o.len,
        operands,
    })
}
