//! `q7emu`: run, inspect and test GPSIMD custom-op kernels on an emulated Vision-Q7 cluster.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand};
use q7_host::exit_code::{Exit, Kind};
use q7_host::number::{parse_threads, parse_u32, parse_u64, parse_words};
use q7_host::run_elf::{Bounds, StackCheck};
use q7_host::timing_profile::Profile;
use q7_isa::CoreConfig;

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
    Disasm {
        /// Core profile whose instruction set decodes the file.
        #[arg(long, default_value = q7_isa::NCORE2GP.name, value_parser = profile_parser())]
        profile: &'static CoreConfig,
        /// Print runs of zero bytes instead of collapsing them to `...` (objdump's -z).
        #[arg(short = 'z', long)]
        disassemble_zeroes: bool,
        /// The ELF file.
        file: PathBuf,
    },
    /// Run a bare-metal ELF32-Xtensa executable on one core (semihosting I/O and exit).
    RunElf {
        /// Core profile.
        #[arg(long, default_value = q7_isa::NCORE2GP.name, value_parser = profile_parser())]
        profile: &'static CoreConfig,
        /// Stop with a report after this many cycles (a runaway program never hangs).
        #[arg(long, default_value_t = q7_emulator::baremetal::DEFAULT_MAX_CYCLES, value_parser = parse_u64)]
        max_cycles: u64,
        /// Instruction count, cycles, the stall breakdown and any fault as JSON (the
        /// program's own output has stdout, so only to a file).
        #[command(flatten)]
        report: q7_host::json_output::JsonFile,
        /// Most memory the program may touch, in MiB (counted in 64 KiB granules, its
        /// segments included); a store beyond it stops the run with a report.
        #[arg(long, default_value_t = q7_emulator::baremetal::DEFAULT_MEMORY_LIMIT >> 20, value_parser = parse_u64)]
        max_memory_mib: u64,
        /// The stack region LO..HI that a1 must stay in, or `none`; by default the image's
        /// `_stack_top`/`__stack` and `_end`/`end` symbols give it (no check without them).
        #[arg(long, value_parser = parse_stack)]
        stack: Option<StackCheck>,
        /// A timing profile (.json or .toml) laid over the default timing model.
        #[arg(long, value_name = "FILE")]
        timing: Option<PathBuf>,
        /// The ELF executable.
        file: PathBuf,
    },
    /// Load a packed custom-op library on the cluster, dispatch one kernel by key, print each
    /// core's response and counters, then unload it (the host flow of PLATFORM.md, end to end).
    RunPacked {
        /// Kernel key: spec << 8 | opcode, e.g. 0x185.
        #[arg(long, value_parser = parse_u32)]
        key: u32,
        /// One ARG_TENSOR descriptor given by its leading 32-bit words, comma-separated
        /// (repeat for more arguments), e.g. --arg 10 or --arg 0x1000,64.
        #[arg(long = "arg", value_parser = parse_words)]
        args: Vec<Vec<u32>>,
        /// 8: one instance per core in its 2 MiB window; 1: core 0 in the 32 MiB window.
        #[arg(long, default_value_t = 8, value_parser = parse_u32)]
        cores: u32,
        /// Sub-opcode of the invocation.
        #[arg(long, default_value_t = 0, value_parser = parse_u32)]
        sub_opcode: u32,
        /// Dispatch this many times (library state persists between dispatches).
        #[arg(long, default_value_t = 1, value_parser = parse_u32)]
        dispatches: u32,
        /// Host threads running the cores, at least 1 (results are identical for any count unless the cores
        /// communicate through HBM within a dispatch).
        #[arg(long, default_value_t = q7_host::run_op::DEFAULT_THREADS, value_parser = parse_threads)]
        threads: usize,
        /// Cycle budget of each firmware call before the kernel counts as runaway.
        #[arg(long, default_value_t = q7_host::firmware::CALL_BUDGET, value_parser = parse_u64)]
        max_cycles: u64,
        /// The results as JSON: `--json` on stdout instead of the text, `--json-file FILE`
        /// besides it (and no progress line either way).
        #[command(flatten)]
        report: q7_host::json_output::JsonOutput,
        /// A timing profile (.json or .toml) laid over the default timing model.
        #[arg(long, value_name = "FILE")]
        timing: Option<PathBuf>,
        /// The packed library (`.so` made by the packager, with `lib_func`).
        file: PathBuf,
    },
    /// Build a custom-op library from C++ sources: wrapper codegen, compile, link (once, or
    /// per core with --multicore), strip and pack, ucode_lib.json and q7build.json.
    Build(q7_host::build::cli::BuildArgs),
    /// Run an op of a library built by `q7emu build` on .npy tensors: load it on the cluster
    /// (8 cores for a multicore build), dispatch the op, print or save its output.
    Run(q7_host::run_op::cli::RunArgs),
    /// Show what an image or a build holds: ELF header and segments, the packed container, the
    /// UCPL header and relocations of the prelinked image, the kernel table with its ops, and
    /// the build's q7build.json and ucode_lib.json.
    Inspect {
        /// What it holds as one JSON document: `--json` on stdout instead of the text,
        /// `--json-file FILE` besides it.
        #[command(flatten)]
        report: q7_host::json_output::JsonOutput,
        /// Cycle budget of each start symbol run to fill the kernel table.
        #[arg(long, default_value_t = q7_host::firmware::CALL_BUDGET, value_parser = parse_u64)]
        max_cycles: u64,
        /// An ELF image (device image, packed library, bare-metal executable) or a build
        /// directory of `q7emu build`.
        #[arg(value_name = "IMAGE|BUILD_DIR")]
        input: PathBuf,
    },
}

/// `--stack`: `none` or `LO..HI`.
fn parse_stack(s: &str) -> Result<StackCheck, String> {
    if s == "none" {
        return Ok(StackCheck::Off);
    }
    let (bottom, top) = q7_host::number::parse_range(s)?;
    Ok(StackCheck::Region(q7_emulator::StackRegion { bottom, top }))
}

/// The built-in profiles of `q7_isa`, by name.
fn profile_parser() -> impl TypedValueParser<Value = &'static CoreConfig> {
    let names = q7_isa::PROFILES
        .iter()
        .map(|c| PossibleValue::new(c.name).help(c.summary));
    PossibleValuesParser::new(names).map(|name| {
        CoreConfig::by_name(&name).expect("the parser accepts only built-in profile names")
    })
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
            eprintln!("q7emu: error: {message}");
            exit.into()
        }
    }
}

/// Why a command failed: the message after `q7emu: error: ` and the exit code.
struct Failure {
    exit: Exit,
    message: String,
}

impl Failure {
    /// A failure with `exit`.
    fn new(exit: Exit, message: impl std::fmt::Display) -> Failure {
        Failure {
            exit,
            message: message.to_string(),
        }
    }

    /// A failure on bad input.
    fn input(message: impl std::fmt::Display) -> Failure {
        Failure::new(Exit::of(Kind::BadInput), message)
    }
}

fn run(cli: Cli) -> Result<Exit, Failure> {
    match cli.command {
        Command::Disasm {
            profile,
            disassemble_zeroes: zeroes,
            file,
        } => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let options = q7_host::disasm::Options { zeroes };
            q7_host::disasm::disassemble_file(&file, profile, options, &mut out)
                .map_err(Failure::input)?;
            Ok(Exit::SUCCESS)
        }
        Command::RunElf {
            profile,
            max_cycles,
            report,
            max_memory_mib,
            stack,
            timing,
            file,
        } => {
            let bounds = Bounds {
                memory_limit: max_memory_mib.saturating_mul(1 << 20),
                stack: stack.unwrap_or(StackCheck::FromSymbols),
            };
            let timing = load_timing(timing.as_deref())?;
            run_elf(profile, max_cycles, report.json_file, bounds, timing, &file)
        }
        Command::RunPacked {
            key,
            args,
            cores,
            sub_opcode,
            dispatches,
            threads,
            max_cycles,
            report,
            timing,
            file,
        } => {
            let stem = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "library".to_string());
            let run = q7_host::run_packed::RunPacked {
                name: stem,
                cores,
                key,
                sub_opcode,
                args,
                dispatches,
                threads,
                call_budget: max_cycles,
                timing: load_timing(timing.as_deref())?.model,
                progress: !report.any(),
            };
            q7_host::run_packed::run_file(&file, &run, &report)
                .map_err(|e| Failure::new(e.exit(), e))?;
            Ok(Exit::SUCCESS)
        }
        Command::Build(args) => q7_host::build::cli::run(args)
            .map(|()| Exit::SUCCESS)
            .map_err(|e| Failure::new(e.exit(), e)),
        Command::Inspect {
            report: out,
            max_cycles,
            input,
        } => {
            let options = q7_host::inspect::Options {
                call_budget: max_cycles,
            };
            let file = out
                .json_file
                .as_deref()
                .map(q7_host::json_output::AtomicFile::create)
                .transpose()
                .map_err(Failure::input)?;
            let report = q7_host::inspect::inspect(&input, &options)
                .map_err(|e| Failure::new(e.exit(), e))?;
            if let Some(file) = file {
                file.write_all_and_commit(report.json().as_bytes())
                    .map_err(Failure::input)?;
            }
            print!(
                "{}",
                if out.json {
                    report.json()
                } else {
                    report.text()
                }
            );
            Ok(Exit::SUCCESS)
        }
        Command::Run(args) => {
            let (text, notes) =
                q7_host::run_op::cli::main(args).map_err(|e| Failure::new(e.exit(), e))?;
            print!("{text}");
            eprint!("{notes}");
            Ok(Exit::SUCCESS)
        }
    }
}

/// The timing profile of `--timing`, or the defaults.
fn load_timing(path: Option<&std::path::Path>) -> Result<Profile, Failure> {
    path.map_or_else(|| Ok(Profile::default()), Profile::load)
        .map_err(Failure::input)
}

fn run_elf(
    profile: &'static CoreConfig,
    max_cycles: u64,
    json_file: Option<PathBuf>,
    bounds: Bounds,
    timing: Profile,
    file: &std::path::Path,
) -> Result<Exit, Failure> {
    use q7_emulator::Stop;
    let name = file.display();
    let data = q7_loader::input::read_file(file, q7_loader::input::InputKind::ElfImage)
        .map_err(Failure::input)?;
    let elf =
        q7_loader::ElfFile::parse(&data).map_err(|e| Failure::input(format!("{name}: {e}")))?;
    let mut core = q7_host::run_elf::prepare_bounded(&elf, profile, bounds)
        .map_err(|e| Failure::input(format!("{name}: {e}")))?;
    // A report file that cannot be written is refused before the run, not after it.
    let json_file = json_file
        .as_deref()
        .map(q7_host::json_output::AtomicFile::create)
        .transpose()
        .map_err(Failure::input)?;
    core.timing = timing.model.clone();
    let start = std::time::Instant::now();
    let stop = q7_host::run_elf::run(&mut core, max_cycles);
    let secs = start.elapsed().as_secs_f64();
    let s = &core.stats;
    eprintln!(
        "q7emu: {s} in {secs:.3} s ({:.1} MIPS)",
        s.instructions as f64 / secs.max(1e-9) / 1e6
    );
    eprintln!("q7emu: {}", core.timing);
    if timing.source.is_some() {
        eprintln!("q7emu: {}", timing.summary());
    }
    let (code, fault) = match &stop {
        Stop::Exited(c) => (Some(*c), None),
        Stop::Fault(r) => {
            eprint!("q7emu: {r}");
            let symbols = q7_host::symbolize::Symbols::from_elf(&data);
            let symbolised = symbols.report_backtrace(r, "from the ELF");
            if !symbolised.is_empty() {
                eprintln!("{}", symbolised.trim_start());
            }
            (None, Some(r.as_ref()))
        }
    };
    if let Some(json_file) = json_file {
        let j = q7_host::run_elf::RunStats {
            profile: profile.name,
            instructions: s.instructions,
            cycles: s.cycles,
            exit_code: code,
            stats: s,
            timing: &core.timing,
            fault,
        };
        let text = serde_json::to_string_pretty(&j).map_err(Failure::input)?;
        json_file
            .write_all_and_commit((text + "\n").as_bytes())
            .map_err(Failure::input)?;
    }
    let ending = q7_host::run_elf::Ending::of(&stop);
    if let Some(note) = ending.note() {
        eprintln!("q7emu: {note}");
    }
    Ok(ending.exit())
}
