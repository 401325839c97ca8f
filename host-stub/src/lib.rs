//! # q7-host — host side of q7emu
//!
//! The `q7emu` command line and the pieces behind it. Today: objdump-style disassembly of
//! ELF32-Xtensa files ([`disasm`]).

pub mod disasm;
