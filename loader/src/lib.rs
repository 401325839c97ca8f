//! # q7-loader — ELF32-Xtensa images and the host ↔ device formats
//!
//! Parses the little-endian ELF32 Xtensa files the kernel toolchain produces, with precise
//! errors, and writes and reads the byte formats that cross from host to device. Images are
//! bounded by the platform layout of `q7_layout`; input files by [`input`]. Knows nothing of
//! execution.
//!
//! | module | what |
//! |---|---|
//! | [`elf`] | header checks, sections, program headers, symbols |
//! | [`dynamic`] | the dynamic section and its relocations |
//! | [`props`] | the Xtensa property tables (`.xt.prop`) that tell literals from code |
//! | [`input`] | every input file read with a bound per kind (PLATFORM.md "Input file limits") |
//! | [`packed`] | packed load-libs: the device image under `lib_func` (examples/sdk/BUILD.md "Strip and pack") |
//! | [`prelink`] | the host prelinker: a device image relocated to its window (PLATFORM.md "Image size limits") |
//! | [`ucpl`] | the UCPL header of a prelinked image (PLATFORM.md "Host ↔ device formats") |
//! | [`ktab`] | q7emu's `KTAB` trailer: where the kernel table lands |
//! | [`kernel_table`] | `.kernel_info_table` entries: dispatch keys and kernel addresses |
//! | [`load_record`] | the 0x1095 load and unload records |
//! | [`ucode_lib`] | the library registry and `ucode_lib.json` (PLATFORM.md "Host flow") |
//! | [`neff`] | the NEFF-style bundle of a model's custom-op part |

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
