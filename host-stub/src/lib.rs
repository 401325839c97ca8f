//! # q7-host — host side of q7emu
//!
//! The `q7emu` command line and the pieces behind it: objdump-style disassembly of
//! ELF32-Xtensa files ([`disasm`]) and bare-metal execution of ELF executables ([`run_elf`]).

pub mod disasm;
pub mod run_elf;
