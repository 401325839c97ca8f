//! The subcommands' command lines, one file each: their arguments and how each runs the library
//! crate that does the work.

pub mod build;
