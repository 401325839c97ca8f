//! The subcommands' command lines, one file each: their arguments and how each runs the library
//! crate that does the work.

pub mod build;
pub mod disasm;
pub mod inspect;
pub mod profile;
pub mod run;
pub mod run_elf;
pub mod run_packed;
