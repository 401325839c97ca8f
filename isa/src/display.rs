//! Disassembly text identical to GNU objdump's (binutils `opcodes/xtensa-dis.c`):
//! `mnemonic\toperand, operand, ...`; registers as `a3`/`m2`/`b1`; immediates in decimal when
//! −256 < v < 256, otherwise `0x%x` of the 32-bit value; PC-relative operands as the absolute
//! target `0x%x`; special and user registers as a mnemonic suffix (`rsr.prid`).

use std::fmt;

use crate::decode::{Decoded, Insn};
use crate::operand::{OperandKind, OperandStyle};
use crate::sreg::{SPECIAL_REGISTERS, USER_REGISTERS};

impl Insn {
    /// The full mnemonic, including a special/user-register suffix.
    pub fn mnemonic(&self) -> MnemonicText<'_> {
        MnemonicText(self)
    }

    /// For L32R: the literal's address (objdump appends ` (value)` when it can read it).
    pub fn l32r_literal_address(&self) -> Option<u32> {
        self.info()
            .operands
            .iter()
            .position(|k| *k == OperandKind::L32rTarget)
            .map(|i| self.operands[i])
    }

    /// Targets of PC-relative operands (branch, jump, call, loop end, literal).
    pub fn pc_relative_targets(&self) -> impl Iterator<Item = u32> + '_ {
        self.info()
            .operands
            .iter()
            .zip(self.operands)
            .filter(|(k, _)| k.is_pc_relative())
            .map(|(_, v)| v)
    }
}

/// The mnemonic of an instruction (see [`Insn::mnemonic`]).
#[derive(Debug)]
pub struct MnemonicText<'a>(&'a Insn);

impl fmt::Display for MnemonicText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let insn = self.0;
        let info = insn.info();
        f.write_str(info.mnemonic)?;
        for (kind, &v) in info.operands.iter().zip(&insn.operands) {
            let table = match kind {
                OperandKind::SrRead | OperandKind::SrWrite | OperandKind::SrExchange => {
                    SPECIAL_REGISTERS
                }
                OperandKind::UrRead | OperandKind::UrWrite => USER_REGISTERS,
                _ => continue,
            };
            match table.get(v as usize) {
                Some(row) => write!(f, ".{}", row.name)?,
                None => write!(f, ".<row {v}>")?,
            }
        }
        Ok(())
    }
}

/// Writes one operand value the way objdump does.
pub fn write_operand(f: &mut dyn fmt::Write, kind: OperandKind, v: u32) -> fmt::Result {
    match kind.style() {
        OperandStyle::Register(prefix) => write!(f, "{prefix}{v}"),
        OperandStyle::Immediate => {
            let s = v as i32;
            if s > -256 && s < 256 {
                write!(f, "{s}")
            } else {
                write!(f, "{v:#x}")
            }
        }
        OperandStyle::Address => write!(f, "{v:#x}"),
        OperandStyle::Hidden => Ok(()),
    }
}

impl Insn {
    /// The disassembly text with each PC-relative operand (absolute target) rendered by
    /// `address` — e.g. with a symbol, or as a label for an assembler. `Display` renders them
    /// as objdump does without symbols (`0x%x`).
    pub fn text_with(&self, mut address: impl FnMut(u32) -> String) -> String {
        let mut s = self.mnemonic().to_string();
        let mut first = true;
        for (kind, &v) in self.info().operands.iter().zip(&self.operands) {
            if !kind.is_visible() {
                continue;
            }
            s.push_str(if first { "\t" } else { ", " });
            first = false;
            if kind.is_pc_relative() {
                s.push_str(&address(v));
            } else {
                // Writing to a String cannot fail.
                let _ = write_operand(&mut s, *kind, v);
            }
        }
        s
    }
}

impl fmt::Display for Insn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text_with(|v| format!("{v:#x}")))
    }
}

impl fmt::Display for Decoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decoded::Insn(i) => i.fmt(f),
            Decoded::Bundle { len } => write!(f, "<vision-q7 bundle, {len} bytes>"),
        }
    }
}

/// One line of objdump-style disassembly for the bytes at `pc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisasmLine {
    /// Bytes consumed: the instruction length, or 1 for an undecodable byte (as objdump does).
    pub len: usize,
    /// The text objdump prints after the bytes.
    pub text: String,
    /// The decoded instruction, when the bytes decode.
    pub decoded: Option<Decoded>,
}

/// Disassembles the instruction at `pc` like GNU objdump: the instruction text, with ` (0x%x)`
/// of the literal appended to L32R when `read_literal` can read it, or `.byte 0x%x` covering one
/// byte when the bytes do not decode (including a truncated tail).
pub fn disassemble_one(
    bytes: &[u8],
    pc: u32,
    config: &crate::CoreConfig,
    read_literal: impl Fn(u32) -> Option<u32>,
) -> DisasmLine {
    match crate::decode(bytes, pc, config) {
        Ok(d) => {
            let mut text = d.to_string();
            if let Decoded::Insn(insn) = &d {
                if let Some(value) = insn.l32r_literal_address().and_then(read_literal) {
                    use fmt::Write;
                    let _ = write!(text, " ({value:#x})");
                }
            }
            DisasmLine {
                len: d.len() as usize,
                text,
                decoded: Some(d),
            }
        }
        Err(_) => DisasmLine::undecodable(bytes.first().copied().unwrap_or(0)),
    }
}

impl DisasmLine {
    /// objdump's line for a byte that starts no instruction: `.byte 0x%x` (C's `%#02x`, so
    /// zero prints as `00`), covering one byte.
    pub fn undecodable(byte: u8) -> DisasmLine {
        DisasmLine {
            len: 1,
            text: if byte == 0 {
                ".byte 00".to_string()
            } else {
                format!(".byte {byte:#x}")
            },
            decoded: None,
        }
    }
}
