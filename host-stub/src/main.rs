//! `q7emu`: run, inspect and test GPSIMD custom-op kernels on an emulated Vision-Q7 cluster.
//! The command line is [`q7_host::cli`].

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(q7_host::cli::main(std::env::args_os()))
}
