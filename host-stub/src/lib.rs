//! # q7-host — host side of q7emu
//!
//! The `q7emu` command line ([`cli`], run by `src/main.rs`) and the pieces behind it, one
//! concern a module (the conventions every command keeps — exit codes, output files, Ctrl-C,
//! guest text on a terminal, numeric flags — are the crate q7-conventions'; tensors, `.npy` files
//! and scalar arguments are q7-tensor's; symbols and source lines of images q7-symbols'; the SDK build driver
//! behind `q7emu build` q7-kernel-build's; snapshot tests of kernels q7-testing's):
//!
//! | module | what |
//! |---|---|
//! | [`cli`] | the command line: parse, dispatch, report, exit code |
//! | [`command`] | the shape of every subcommand (`Args` and `run`), how a failure is reported |
//! | [`commands`] | the subcommands' command lines: `build` |
//! | [`builtin`] | the builtin SORT/TOPK library: its internal build and its staging (examples/builtin/README.md) |
//! | [`check`] | checked mode: the per-core checker, its findings and their report (docs/checked-mode.md) |
//! | [`console`] | what each core printed: its console ring, as reports and failures show it |
//! | [`disasm`] | `q7emu disasm`: objdump-style disassembly of ELF32-Xtensa files |
//! | [`firmware`] | the device firmware model: load records, kernel tables, dispatch (PLATFORM.md "Host flow") |
//! | [`gdb`] | the GDB server of `--gdb`: the remote protocol, the Xtensa register layout (docs/gdb.md) |
//! | [`inspect`] | `q7emu inspect`: what an image or a build holds |
//! | [`json_output`] | `--json` / `--json-file FILE`, the one convention of machine-readable output |
//! | [`nrtucode`] | the nrtucode-style host API: create, stage, load and unload sequences, destroy |
//! | [`progress`] | the progress line of long dispatches |
//! | [`run_elf`] | `q7emu run-elf`: a bare-metal executable on one core, and its bounds |
//! | [`run_op`] | `q7emu run`: an op of a built library on `.npy` tensors, and its report |
//! | [`run_packed`] | `q7emu run-packed`: a packed library through the whole host and device path |
//! | [`timing_profile`] | `--timing` profiles over the cycle model |
//! | [`trace`] | instruction traces and timelines of a run (docs/tracing.md) |

pub mod builtin;
pub mod check;
pub mod cli;
pub mod command;
pub mod commands;
pub mod console;
pub mod disasm;
pub mod firmware;
pub mod gdb;
pub mod inspect;
pub mod json_output;
pub mod nrtucode;
pub mod progress;
pub mod run_elf;
pub mod run_op;
pub mod run_packed;
pub mod timing_profile;
pub mod trace;
