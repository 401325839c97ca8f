//! The opcode table: the single source of truth for decode, encode and disassembly.

use crate::config::Options;
use crate::operand::OperandKind;

/// One row of the opcode table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The opcode this row describes.
    pub opcode: Opcode,
    /// Mnemonic as GNU objdump prints it. For `rsr`/`wsr`/`xsr`/`rur`/`wur` the register name
    /// is appended after a dot.
    pub mnemonic: &'static str,
    /// Instruction length in bytes (2 or 3).
    pub len: u8,
    /// Value of the fixed bits of the little-endian instruction word.
    pub match_bits: u32,
    /// Which bits are fixed; every other bit belongs to exactly one operand.
    pub mask: u32,
    /// Operands in display order (hidden ones last).
    pub operands: &'static [OperandKind],
    /// Operands the instruction reads (bit i = operand i), from the ISA's operand directions.
    pub reads: u8,
    /// Operands the instruction writes (bit i = operand i).
    pub writes: u8,
    /// Options a core needs for this row to decode.
    pub options: Options,
}

macro_rules! define_opcodes {
    ($($name:ident = ($mn:literal, $len:literal, $match:literal, $mask:literal,
        [$($op:ident),*], $reads:literal, $writes:literal, $($opt:ident)|+);)*) => {
        /// Every instruction of every supported configuration (one variant per table row).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $mn, "`")]
                $name,
            )*
        }

        /// The opcode table, indexed by `Opcode as usize`.
        pub static OPCODES: &[OpcodeInfo] = &[$(
            OpcodeInfo {
                opcode: Opcode::$name,
                mnemonic: $mn,
                len: $len,
                match_bits: $match,
                mask: $mask,
                operands: &[$(OperandKind::$op),*],
                reads: $reads,
                writes: $writes,
                options: Options::BASE$(.union(Options::$opt))+,
            },
        )*];
    };
}

include!("opcodes.rs");

impl Opcode {
    /// This opcode's table row.
    #[inline]
    pub fn info(self) -> &'static OpcodeInfo {
        &OPCODES[self as usize]
    }

    /// The base mnemonic (without a special-register suffix).
    pub fn mnemonic(self) -> &'static str {
        self.info().mnemonic
    }

    /// Looks up an opcode by its table mnemonic.
    pub fn from_mnemonic(mnemonic: &str) -> Option<Opcode> {
        OPCODES
            .iter()
            .find(|o| o.mnemonic == mnemonic)
            .map(|o| o.opcode)
    }
}
