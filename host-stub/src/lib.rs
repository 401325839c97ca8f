//! # q7-host — the `q7emu` command line
//!
//! The `q7emu` command line ([`cli`], run by `src/main.rs`), one file per subcommand over the
//! library crates that do the work (ARCHITECTURE.md "Layering"):
//!
//! | crate | what |
//! |---|---|
//! | q7-conventions | exit codes, output files, Ctrl-C, guest text on a terminal, numeric flags |
//! | q7-tensor | dtypes, descriptors, `.npy` files, scalar arguments |
//! | q7-symbols | function+offset and source lines of device addresses |
//! | q7-kernel-build | the SDK build driver behind `q7emu build`, and the builtin library |
//! | q7-runtime | the device runtime model: firmware, nrtucode host API, consoles, timing profiles |
//! | q7-observe | traces, timelines and checked mode |
//! | q7-gdb | the GDB server of `--gdb` |
//! | q7-run | ops of built and packed libraries run on the cluster, and their reports |
//! | q7-testing | snapshot tests of kernels |
//!
//! This crate's modules:
//!
//! | module | what |
//! |---|---|
//! | [`cli`] | the command line: parse, dispatch, report, exit code |
//! | [`command`] | the shape of every subcommand (`Args` and `run`), how a failure is reported |
//! | [`commands`] | the subcommands' command lines, one file each |
//! | [`inspect`] | what an image or a build holds, for `q7emu inspect` |
//! | [`json_output`] | `--json` / `--json-file FILE`, the one convention of machine-readable output |

pub mod cli;
pub mod command;
pub mod commands;
pub mod inspect;
pub mod json_output;
