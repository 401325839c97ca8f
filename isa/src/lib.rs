//! # q7-isa — the Xtensa instruction set of the Vision-Q7 "ncore2gp" core (and QEMU's dc233c)
//!
//! One table ([`OPCODES`], written by hand in `opcodes.rs` from the encodings of `isa/ISA.md`
//! §1–§2 and checked word for word against GNU objdump by `tests/tests/all/objdump_oracle.rs`)
//! drives:
//!
//! * [`decode`] — bytes at a PC → [`Decoded`] (an [`Insn`] or an opaque ncore2gp FLIX bundle),
//!   or a typed [`DecodeError`]; the length is always known when the bytes allow;
//! * [`encode`] — the exact inverse;
//! * `Display` — the text GNU objdump prints;
//! * each opcode's [`Family`] (routed on by [`dispatch_by_family!`]) and [`Latency`] class:
//!   columns of the table, stated by every row (`isa/ISA.md` §2).
//!
//! Which rows decode is decided by a [`CoreConfig`]'s [`Options`]: see [`NCORE2GP`] and
//! [`DC233C`]. Pure: no I/O.

mod config;
mod decode;
mod display;
mod encode;
pub mod flix;
mod opcode;
mod operand;
pub mod sreg;

pub use config::{CoreConfig, Options, DC233C, NCORE2GP, PROFILES};
pub use decode::{
    decode, decode_narrow, decode_wide, DecodeError, Decoded, HexWord, Insn, MAX_OPERANDS,
};
pub use display::{disassemble_one, write_operand, DisasmLine, MnemonicText};
pub use encode::{encode, EncodeError, Encoded};
pub use opcode::{Family, Latency, Opcode, OpcodeInfo, OPCODES};
pub use operand::{OperandKind, OperandStyle};
