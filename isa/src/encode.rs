//! Encoding: [`Insn`] → bytes, the exact inverse of decoding.

use crate::decode::Insn;
use crate::opcode::Opcode;

/// Encoded instruction bytes (little-endian, `len` of them valid).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoded {
    bytes: [u8; 3],
    len: u8,
}

impl Encoded {
    /// The instruction bytes in memory order.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// The little-endian instruction word.
    pub fn word(&self) -> u32 {
        u32::from(self.bytes[0]) | u32::from(self.bytes[1]) << 8 | u32::from(self.bytes[2]) << 16
    }
}

/// Why an instruction cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot encode {mnemonic} at {pc:#010x}: operand {index} = {value:#x}: {reason}")]
pub struct EncodeError {
    /// The opcode's mnemonic.
    pub mnemonic: &'static str,
    /// Address the instruction was to be placed at.
    pub pc: u32,
    /// Operand index (table order).
    pub index: usize,
    /// The offending value.
    pub value: u32,
    /// What the field can hold.
    pub reason: &'static str,
}

/// Encodes `insn` for address `pc` (PC-relative operands hold absolute targets).
pub fn encode(insn: &Insn, pc: u32) -> Result<Encoded, EncodeError> {
    let info = insn.opcode.info();
    let mut w = info.match_bits;
    for (index, (kind, &value)) in info.operands.iter().zip(&insn.operands).enumerate() {
        w |= kind.encode(value, pc).map_err(|reason| EncodeError {
            mnemonic: info.mnemonic,
            pc,
            index,
            value,
            reason,
        })?;
    }
    let b = w.to_le_bytes();
    Ok(Encoded {
        bytes: [b[0], b[1], b[2]],
        len: info.len,
    })
}

impl Opcode {
    /// Encodes this opcode with `operands` (table order) at `pc`.
    pub fn encode(self, operands: &[u32], pc: u32) -> Result<Encoded, EncodeError> {
        encode(&Insn::new(self, operands), pc)
    }
}
