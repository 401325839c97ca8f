//! # q7-loader — ELF32-Xtensa images for q7emu
//!
//! Parses the little-endian ELF32 Xtensa files that the kernel toolchain produces: header checks
//! with precise errors, sections, program headers, symbols, the dynamic section and the Xtensa
//! property tables (`.xt.prop`) that tell literals from code; the byte formats that cross from
//! host to device (UCPL header and its `KTAB` trailer, 0x1095 load records,
//! `.kernel_info_table`) and the compiler-side `ucode_lib.json` registry. Input files are read with a bound per kind ([`input`]); images are
//! bounded by the platform layout of `q7_layout`. Knows nothing of execution.

pub mod dynamic;
pub mod elf;
pub mod input;
pub mod kernel_table;
pub mod ktab;
pub mod load_record;
pub mod neff;
pub mod packed;
pub mod prelink;
pub mod props;
pub mod ucode_lib;
pub mod ucpl;

pub use elf::{ElfError, ElfFile, ElfKind, Section, Segment, Symbol, EM_XTENSA};
pub use props::{PropBlocks, PropEntry, PropFlags};
