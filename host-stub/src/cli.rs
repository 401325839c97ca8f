//! The `q7emu` command line: parses the arguments and dispatches, each subcommand a module of
//! this crate with its arguments and `run` ([`crate::command`]). The `q7emu` binary is
//! [`main`] over the process's arguments; the Python package's `q7emu` command is the same
//! function (python/, docs/python.md).

use std::ffi::OsString;

use clap::{Parser, Subcommand};

use crate::command::Failure;
use q7_conventions::exit_code::{Exit, Kind};

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
    Disasm(crate::commands::disasm::DisasmArgs),
    /// Run a bare-metal ELF32-Xtensa executable on one core (semihosting I/O and exit).
    RunElf(crate::commands::run_elf::RunElfArgs),
    /// Load a packed custom-op library on the cluster, dispatch one kernel by key, print each
    /// core's response and counters, then unload it (the host flow of PLATFORM.md, end to end).
    RunPacked(crate::commands::run_packed::RunPackedArgs),
    /// Build a custom-op library from C++ sources: wrapper codegen, compile, link (once, or
    /// per core with --multicore), strip and pack, ucode_lib.json and q7build.json.
    Build(crate::commands::build::BuildArgs),
    /// Run an op of a library built by `q7emu build` on .npy tensors: load it on the cluster
    /// (8 cores for a multicore build), dispatch the op, print or save its output.
    Run(Box<crate::commands::run::RunArgs>),
    /// Show what an image or a build holds: ELF header and segments, the packed container, the
    /// UCPL header and relocations of the prelinked image, the kernel table with its ops, and
    /// the build's q7build.json and ucode_lib.json.
    Inspect(crate::commands::inspect::InspectArgs),
    /// Read an exact cycle profile written by `q7emu run --profile DIR`: the hottest
    /// functions per core and for the cluster, with their stall split.
    Profile(crate::commands::profile::ProfileArgs),
}

/// Crates whose own logs stay at warn unless `RUST_LOG` names them: Cranelift logs the IR of
/// every block tier 2 compiles at info, and it and its register allocator each pass at debug
/// and below, thousands of lines a run that would bury q7emu's own (docs/tracing.md
/// "Diagnostics").
const QUIET_UNLESS_NAMED: [&str; 2] = ["cranelift", "regalloc2"];

/// The diagnostics filter of `rust_log`, `RUST_LOG`'s value in tracing-subscriber's
/// `EnvFilter` syntax (e.g. `q7_runtime=debug`): nothing when it is unset or empty, and
/// [`QUIET_UNLESS_NAMED`]'s crates at warn unless it names them.
fn diagnostics_filter(
    rust_log: Option<&str>,
) -> Result<tracing_subscriber::EnvFilter, tracing_subscriber::filter::ParseError> {
    use tracing_subscriber::filter::{EnvFilter, LevelFilter};
    let log = rust_log.unwrap_or_default();
    let mut filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::OFF.into())
        .parse(log)?;
    for quiet in QUIET_UNLESS_NAMED {
        if !log.contains(quiet) {
            filter = filter.add_directive(format!("{quiet}=warn").parse()?);
        }
    }
    Ok(filter)
}

/// Diagnostics on stderr, filtered by `RUST_LOG` ([`diagnostics_filter`]); nothing without it.
/// Set up once, before anything runs.
fn init_diagnostics() {
    let filter = match std::env::var("RUST_LOG") {
        Ok(log) => diagnostics_filter(Some(&log)).map_err(|e| e.to_string()),
        Err(std::env::VarError::NotPresent) => diagnostics_filter(None).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    }
    .unwrap_or_else(|e| {
        eprintln!("q7emu: warning: RUST_LOG ignored: {e}");
        tracing_subscriber::EnvFilter::new("off")
    });
    // A host process (Python) may have set a subscriber already: then it keeps it.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// Runs `q7emu` with `args` (the program name first, as `std::env::args_os` gives them):
/// diagnostics set up from `RUST_LOG` once per process, Ctrl-C handled, errors on stderr as
/// `q7emu: error: …`; the exit code (docs/exit-codes.md).
pub fn main(args: impl IntoIterator<Item = OsString>) -> u8 {
    static SETUP: std::sync::Once = std::sync::Once::new();
    SETUP.call_once(|| {
        init_diagnostics();
        if let Err(e) = q7_conventions::interrupt::install_ctrl_c() {
            eprintln!("q7emu: warning: Ctrl-C will end the process without reports: {e}");
        }
    });
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are not errors; everything else clap refuses is a usage error.
            let _ = e.print();
            let kind = if e.use_stderr() {
                Kind::Usage
            } else {
                Kind::Success
            };
            return Exit::of(kind).code();
        }
    };
    match run(cli) {
        Ok(exit) => exit.code(),
        Err(Failure { exit, message }) => {
            // The message may carry guest text (a kernel's console): escaped on a terminal.
            eprintln!(
                "q7emu: error: {}",
                q7_conventions::terminal::for_stderr(&message)
            );
            exit.code()
        }
    }
}

/// Dispatches to the subcommand's module (`crate::command` gives the shape).
fn run(cli: Cli) -> Result<Exit, Failure> {
    match cli.command {
        Command::Disasm(args) => crate::commands::disasm::run(args),
        Command::RunElf(args) => {
            q7_emulator::jit::with_default(args.jit.jit, || crate::commands::run_elf::run(args))
        }
        Command::RunPacked(args) => {
            q7_emulator::jit::with_default(args.jit.jit, || crate::commands::run_packed::run(args))
        }
        Command::Build(args) => crate::commands::build::run(args),
        Command::Run(args) => {
            q7_emulator::jit::with_default(args.jit.jit, || crate::commands::run::run(*args))
        }
        Command::Inspect(args) => crate::commands::inspect::run(args),
        Command::Profile(args) => crate::commands::profile::run(args),
    }
}

#[cfg(test)]
mod tests {
    use super::diagnostics_filter;
    use std::sync::{Arc, Mutex};

    /// What a subscriber filtered by `rust_log` ([`diagnostics_filter`]) writes of an info
    /// event of Cranelift's JIT (the IR of a compiled block), a debug event of regalloc2 and an
    /// info event of q7emu's own.
    fn logged(rust_log: &str) -> String {
        #[derive(Clone, Default)]
        struct Buffer(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Buffer {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().expect("not poisoned").extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(diagnostics_filter(Some(rust_log)).expect("a filter"))
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(target: "cranelift_jit::backend", "defining function b7");
            tracing::debug!(target: "regalloc2::ion::process", "bundle 3");
            tracing::info!(target: "q7_run::op", "library opened");
        });
        let bytes = buffer.0.lock().expect("not poisoned").clone();
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn cranelift_and_regalloc2_log_only_where_rust_log_names_them() {
        // docs/tracing.md "Diagnostics": `RUST_LOG=debug` shows q7emu's events, not the IR of
        // every compiled block or the register allocator's passes; naming a crate brings its
        // events back.
        let all = logged("debug");
        assert!(all.contains("library opened"), "{all}");
        assert!(!all.contains("defining function"), "{all}");
        assert!(!all.contains("bundle 3"), "{all}");
        let named = logged("info,cranelift_jit=info,regalloc2=debug");
        assert!(named.contains("defining function b7"), "{named}");
        assert!(named.contains("bundle 3"), "{named}");
        assert!(named.contains("library opened"), "{named}");
        assert_eq!(logged(""), "", "nothing without RUST_LOG");
    }
}
