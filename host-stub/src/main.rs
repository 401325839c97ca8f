//! `q7emu`: run, inspect and test GPSIMD custom-op kernels on an emulated Vision-Q7 cluster.
//! Parses the command line and dispatches: each subcommand is a module of `q7_host` with its
//! arguments and `run` (`q7_host::command`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use q7_host::command::Failure;
use q7_host::exit_code::{Exit, Kind};

#[derive(Parser, Debug)]
#[command(
    name = "q7emu",
    version,
    about = "Emulator and tools for Vision-Q7 (ncore2gp) GPSIMD kernels"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Disassemble the executable sections of an ELF32-Xtensa file (objdump style).
    Disasm(q7_host::disasm::DisasmArgs),
    /// Run a bare-metal ELF32-Xtensa executable on one core (semihosting I/O and exit).
    RunElf(q7_host::run_elf::RunElfArgs),
    /// Load a packed custom-op library on the cluster, dispatch one kernel by key, print each
    /// core's response and counters, then unload it (the host flow of PLATFORM.md, end to end).
    RunPacked(q7_host::run_packed::RunPackedArgs),
    /// Build a custom-op library from C++ sources: wrapper codegen, compile, link (once, or
    /// per core with --multicore), strip and pack, ucode_lib.json and q7build.json.
    Build(q7_host::build::cli::BuildArgs),
    /// Run an op of a library built by `q7emu build` on .npy tensors: load it on the cluster
    /// (8 cores for a multicore build), dispatch the op, print or save its output.
    Run(Box<q7_host::run_op::cli::RunArgs>),
    /// Show what an image or a build holds: ELF header and segments, the packed container, the
    /// UCPL header and relocations of the prelinked image, the kernel table with its ops, and
    /// the build's q7build.json and ucode_lib.json.
    Inspect(q7_host::inspect::InspectArgs),
}

/// Diagnostics on stderr, filtered by `RUST_LOG` (tracing-subscriber's `EnvFilter` syntax, e.g.
/// `RUST_LOG=q7_host=debug`); nothing without it. Set up once, before anything runs.
fn init_diagnostics() {
    use tracing_subscriber::filter::{EnvFilter, LevelFilter};
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::OFF.into())
        .from_env()
        .unwrap_or_else(|e| {
            eprintln!("q7emu: warning: RUST_LOG ignored: {e}");
            EnvFilter::new("off")
        });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn main() -> ExitCode {
    init_diagnostics();
    if let Err(e) = q7_host::interrupt::install_ctrl_c() {
        eprintln!("q7emu: warning: Ctrl-C will end the process without reports: {e}");
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are not errors; everything else clap refuses is a usage error.
            let _ = e.print();
            let kind = if e.use_stderr() {
                Kind::Usage
            } else {
                Kind::Success
            };
            return Exit::of(kind).into();
        }
    };
    match run(cli) {
        Ok(exit) => exit.into(),
        Err(Failure { exit, message }) => {
            // The message may carry guest text (a kernel's console): escaped on a terminal.
            eprintln!("q7emu: error: {}", q7_host::terminal::for_stderr(&message));
            exit.into()
        }
    }
}

/// Dispatches to the subcommand's module (`q7_host::command` gives the shape).
fn run(cli: Cli) -> Result<Exit, Failure> {
    match cli.command {
        Command::Disasm(args) => q7_host::disasm::run(args),
        Command::RunElf(args) => q7_host::run_elf::run(args),
        Command::RunPacked(args) => q7_host::run_packed::run(args),
        Command::Build(args) => q7_host::build::cli::run(args),
        Command::Run(args) => q7_host::run_op::cli::run(*args),
        Command::Inspect(args) => q7_host::inspect::run(args),
    }
}
