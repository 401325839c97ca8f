//! # q7-host — host side of q7emu
//!
//! The `q7emu` command line and the pieces behind it: objdump-style disassembly of
//! ELF32-Xtensa files ([`disasm`]), bare-metal execution of ELF executables ([`run_elf`]), the
//! nrtucode-style host API ([`nrtucode`]), the device firmware model ([`firmware`]) and a
//! packed library run end to end through both ([`run_packed`]), the build driver that makes
//! such libraries from C++ sources ([`build`]), and an op of a built library run on tensors
//! ([`run_op`]) with its host tensors, descriptors and `.npy` files ([`tensor`]) and
//! symbolised fault reports ([`symbolize`]), instruction traces and timelines of a run
//! ([`trace`]), what an image or build holds ([`inspect`]),
//! the one grammar of numeric flags ([`number`]), the one table of exit codes
//! ([`exit_code`]), Ctrl-C stopping every core ([`interrupt`]), timing profiles
//! ([`timing_profile`]), the progress line of long dispatches ([`progress`]), instruction
//! traces and timelines of runs ([`trace`]), and snapshot tests of kernels built, run and
//! summarised in one go ([`testing`]).

pub mod build;
pub mod disasm;
pub mod exit_code;
pub mod firmware;
pub mod inspect;
pub mod interrupt;
pub mod nrtucode;
pub mod number;
pub mod progress;
pub mod run_elf;
pub mod run_op;
pub mod run_packed;
pub mod symbolize;
pub mod tensor;
pub mod testing;
pub mod timing_profile;
pub mod trace;
