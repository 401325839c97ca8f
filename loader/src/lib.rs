//! # q7-loader — ELF32-Xtensa images for q7emu
//!
//! Parses the little-endian ELF32 Xtensa files that the kernel toolchain produces (reference
//! xtensa-isa.md §8): header checks with precise errors, sections, program headers, symbols and
//! the Xtensa property tables (`.xt.prop`) that tell literals from code. Knows nothing of
//! execution.

pub mod elf;
pub mod props;

pub use elf::{ElfError, ElfFile, ElfKind, Section, Segment, Symbol, EM_XTENSA};
pub use props::{PropBlocks, PropEntry, PropFlags};
