//! `q7emu run-elf`: a bare-metal ELF32-Xtensa executable on one emulated core.
//!
//! Every PT_LOAD segment is loaded at its address into a flat 4 GiB memory; the core starts in
//! QEMU's reset state (at the reset vector when the image has code there, else at the ELF
//! entry). Semihosting output goes to stdout/stderr (on a terminal with its control characters
//! shown escaped, [`q7_conventions::terminal`]); the run ends at the semihosting exit, a fault (reported
//! with registers and backtrace), or the cycle budget.
//!
//! The process exit code says which ([`Ending::exit`], from the table of
//! [`q7_conventions::exit_code`], docs/exit-codes.md): a guest status that fits 0..=[`STATUS_MAX`]
//! is passed through; a guest status that does not fit, a fault and a runaway each have a code
//! of their own.

use q7_emulator::baremetal::{self, LoadSegment};
use q7_emulator::{Core, FlatMemory, NoTrace, StackRegion, Stats, Stop, TimingModel};
use q7_isa::CoreConfig;
use q7_loader::ElfFile;
use serde::Serialize;

use q7_conventions::exit_code::{Exit, Kind, STATUS_MAX};

/// Why a program could not be run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The ELF is unusable.
    #[error(transparent)]
    Elf(#[from] q7_loader::ElfError),
    /// Not an executable (ET_EXEC).
    #[error("ELF type is {}, expected ET_EXEC (an executable): run-elf runs linked bare-metal programs{}", kind.describe(), match kind {
        q7_loader::ElfKind::Relocatable => "; link the object first (a packed custom-op library runs with `q7emu run-packed`)",
        q7_loader::ElfKind::Shared => "; a device image runs from its packed library with `q7emu run-packed`",
        _ => "",
    })]
    NotExecutable {
        /// The type found.
        kind: q7_loader::ElfKind,
    },
    /// The ELF has nothing to load.
    #[error("no PT_LOAD segment: nothing to run")]
    NoSegments,
    /// The emulator could not be set up.
    #[error(transparent)]
    Setup(#[from] q7_emulator::baremetal::SetupError),
}

/// Statistics as written by `--json-file` (docs/cli.md "Conventions").
#[derive(Debug, Serialize)]
pub struct RunStats<'a> {
    /// Core profile.
    pub profile: &'a str,
    /// Instructions completed.
    pub instructions: u64,
    /// Cycles.
    pub cycles: u64,
    /// Exit code, when the program exited.
    pub exit_code: Option<i32>,
    /// Full counters, stall breakdown included.
    pub stats: &'a Stats,
    /// The timing model used.
    pub timing: &'a TimingModel,
    /// The fault, when the core stopped on one.
    pub fault: Option<&'a q7_emulator::FaultReport>,
    /// Which engine ran the program: `tier2` (compiled hot code with the interpreter) or
    /// `interpreter` (`--jit off`, or a debugger attached); docs/jit.md.
    pub engine: &'static str,
    /// What tier 2 compiled (zeros for the interpreter alone).
    pub jit: q7_emulator::jit::JitStats,
}

/// How a run ended, as the process exit code tells it ([`q7_conventions::exit_code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The program exited with this status.
    Exited(i32),
    /// The core faulted.
    Fault,
    /// The cycle budget ran out.
    Runaway,
    /// Stopped by Ctrl-C.
    Interrupted,
}

impl Ending {
    /// How `stop` ends the run.
    pub fn of(stop: &Stop) -> Ending {
        match stop {
            Stop::Exited(c) => Ending::Exited(*c),
            Stop::Fault(r) => match Kind::of_fault(&r.kind) {
                Kind::Runaway => Ending::Runaway,
                Kind::Interrupted => Ending::Interrupted,
                _ => Ending::Fault,
            },
        }
    }

    /// The process exit: the status passed through when it fits, else its own code; a fault
    /// and a runaway each have theirs.
    pub fn exit(self) -> Exit {
        match self {
            Ending::Exited(c) => Exit::guest(c),
            Ending::Fault => Exit::of(Kind::Fault),
            Ending::Runaway => Exit::of(Kind::Runaway),
            Ending::Interrupted => Exit::of(Kind::Interrupted),
        }
    }

    /// What stderr says about the exit code beyond the report, if anything.
    pub fn note(self) -> Option<String> {
        let exit = self.exit();
        match self {
            Ending::Exited(c) if exit.kind() == Kind::StatusDoesNotFit => Some(format!(
                "the program exited with status {c}, outside 0..={STATUS_MAX}: exit code {}",
                exit.code()
            )),
            _ => None,
        }
    }
}

/// Where the stack check of a run gets its region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackCheck {
    /// From the image's link symbols ([`baremetal::STACK_TOP_SYMBOLS`],
    /// [`baremetal::STACK_BOTTOM_SYMBOLS`]); no check when it has none.
    FromSymbols,
    /// This region.
    Region(StackRegion),
    /// No check (a program that moves its stack elsewhere on purpose).
    Off,
}

/// How far a program may go beyond its cycle budget's bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Most bytes of bare-metal memory stores may touch (loaded segments included).
    pub memory_limit: u64,
    /// The stack region the stack pointer must stay in.
    pub stack: StackCheck,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            memory_limit: baremetal::DEFAULT_MEMORY_LIMIT,
            stack: StackCheck::FromSymbols,
        }
    }
}

/// The stack region an image's link symbols give, if they give one
/// ([`baremetal::stack_region`]: `_stack_top`/`__stack` above `_end`/`end`).
pub fn stack_region_of(elf: &ElfFile<'_>) -> Option<StackRegion> {
    baremetal::stack_region(|name| elf.global_symbol(name))
}

/// Loads `elf`, which must be an executable (ET_EXEC), for `config`, with the default
/// [`Bounds`].
pub fn prepare(
    elf: &ElfFile<'_>,
    config: &'static CoreConfig,
) -> Result<Core<FlatMemory>, RunError> {
    prepare_bounded(elf, config, Bounds::default())
}

/// Loads `elf`, which must be an executable (ET_EXEC), for `config`, bounded by `bounds`;
/// the core stops on the process-wide [`q7_conventions::interrupt::stop_request`].
pub fn prepare_bounded(
    elf: &ElfFile<'_>,
    config: &'static CoreConfig,
    bounds: Bounds,
) -> Result<Core<FlatMemory>, RunError> {
    if elf.kind != q7_loader::ElfKind::Executable {
        return Err(RunError::NotExecutable { kind: elf.kind });
    }
    let segments: Vec<LoadSegment<'_>> = elf
        .segments
        .iter()
        .filter(|s| s.is_load())
        .map(|s| LoadSegment {
            addr: s.vaddr,
            data: s.data,
            memsz: s.memsz,
            exec: s.is_exec(),
        })
        .collect();
    if segments.is_empty() {
        return Err(RunError::NoSegments);
    }
    let mut core = baremetal::load_limited(config, &segments, elf.entry, bounds.memory_limit)?;
    core.stack_region = match bounds.stack {
        StackCheck::FromSymbols => stack_region_of(elf),
        StackCheck::Region(r) => Some(r),
        StackCheck::Off => None,
    };
    core.stop_request = q7_conventions::interrupt::stop_request();
    Ok(core)
}

/// Runs a prepared core; returns how it stopped.
pub fn run_core(core: &mut Core<FlatMemory>, max_cycles: u64) -> Stop {
    core.run(max_cycles, &mut NoTrace)
}

// ---------------------------------------------------------------------------------------------
// The command line.

/// `q7emu run-elf [--profile P] [--max-cycles N] [--json-file FILE] [--max-memory-mib N]
/// [--stack LO..HI|none] [--timing FILE] PROG.elf`.
#[derive(Debug, clap::Args)]
pub struct RunElfArgs {
    /// Core profile.
    #[arg(long, default_value = q7_isa::NCORE2GP.name, value_parser = crate::command::profile_parser())]
    pub profile: &'static CoreConfig,
    /// Stop with a report after this many cycles (a runaway program never hangs).
    #[arg(long, default_value_t = baremetal::DEFAULT_MAX_CYCLES, value_parser = q7_conventions::number::parse_u64)]
    pub max_cycles: u64,
    /// Instruction count, cycles, the stall breakdown and any fault as JSON (the program's
    /// own output has stdout, so only to a file).
    #[command(flatten)]
    pub report: crate::json_output::JsonFile,
    /// Most memory the program may touch, in MiB (counted in 64 KiB granules, its segments
    /// included); a store beyond it stops the run with a report.
    #[arg(long, default_value_t = baremetal::DEFAULT_MEMORY_LIMIT >> 20, value_parser = q7_conventions::number::parse_u64)]
    pub max_memory_mib: u64,
    /// The stack region LO..HI that the stack pointer must stay in, or `none`; by default the
    /// image's `_stack_top`/`__stack` and `_end`/`end` symbols give it (no check without them).
    #[arg(long, value_parser = parse_stack)]
    pub stack: Option<StackCheck>,
    /// A timing profile (.json or .toml) laid over the default timing model.
    #[arg(long, value_name = "FILE")]
    pub timing: Option<std::path::PathBuf>,
    /// Serve the GDB remote protocol on 127.0.0.1:PORT (0: a free port, printed on stderr)
    /// and wait for a debugger before the program's first instruction (docs/gdb.md).
    #[arg(long, value_name = "PORT")]
    pub gdb: Option<u16>,
    #[command(flatten)]
    pub jit: crate::command::JitArg,
    /// The ELF executable.
    pub file: std::path::PathBuf,
}

/// `--stack`: `none` or `LO..HI`.
fn parse_stack(s: &str) -> Result<StackCheck, String> {
    if s == "none" {
        return Ok(StackCheck::Off);
    }
    let (bottom, top) = q7_conventions::number::parse_range(s)?;
    Ok(StackCheck::Region(StackRegion { bottom, top }))
}

/// Runs `q7emu run-elf`: the program's output on stdout and stderr, then q7emu's counters, the
/// timing model and any fault report on stderr; the exit code tells how the run ended
/// ([`Ending`]).
pub fn run(args: RunElfArgs) -> Result<Exit, crate::command::Failure> {
    use crate::command::Failure;
    let bounds = Bounds {
        memory_limit: args.max_memory_mib.saturating_mul(1 << 20),
        stack: args.stack.unwrap_or(StackCheck::FromSymbols),
    };
    let timing = crate::command::load_timing(args.timing.as_deref())?;
    let (profile, max_cycles, json_file, file) = (
        args.profile,
        args.max_cycles,
        args.report.json_file,
        &args.file,
    );
    let name = file.display();
    // The report may not replace the program or the timing profile (docs/cli.md "Output
    // files").
    if let Some(json) = &json_file {
        use q7_conventions::output::{check_distinct, Named};
        let mut inputs = vec![Named::new("FILE", file)];
        inputs.extend(args.timing.iter().map(|p| Named::new("--timing", p)));
        check_distinct(&inputs, &[Named::new("--json-file", json)]).map_err(Failure::input)?;
    }
    let data = q7_loader::input::read_file(file, q7_loader::input::InputKind::ElfImage)
        .map_err(Failure::input)?;
    let elf =
        q7_loader::ElfFile::parse(&data).map_err(|e| Failure::input(format!("{name}: {e}")))?;
    let mut core = prepare_bounded(&elf, profile, bounds)
        .map_err(|e| Failure::input(format!("{name}: {e}")))?;
    // A report file that cannot be written is refused before the run, not after it.
    let json_file = json_file
        .as_deref()
        .map(crate::json_output::AtomicFile::create)
        .transpose()
        .map_err(Failure::input)?;
    core.timing = timing.model.clone();
    core.console = q7_emulator::semihost::Console {
        stdout: q7_conventions::terminal::guest_stdout(),
        stderr: q7_conventions::terminal::guest_stderr(),
    };
    let server = args
        .gdb
        .map(q7_gdb::Server::listen)
        .transpose()
        .map_err(Failure::input)?;
    let start = std::time::Instant::now();
    let stop = match &server {
        None => run_core(&mut core, max_cycles),
        Some(server) => {
            let mut hook = q7_emulator::debug::NoHook;
            let stops = server
                .serve(vec![&mut core], max_cycles, &mut hook)
                .map_err(|e| match e {
                    q7_gdb::GdbError::Interrupted { .. } => {
                        Failure::new(Exit::of(Kind::Interrupted), e)
                    }
                    e => Failure::input(e),
                })?;
            stops.into_iter().next().expect("one stop per core served")
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let s = &core.stats;
    eprintln!(
        "q7emu: {s} in {secs:.3} s ({:.1} MIPS)",
        s.instructions as f64 / secs.max(1e-9) / 1e6
    );
    eprintln!("q7emu: {}", core.timing);
    let engine = q7_emulator::jit::engine(core.jit_enabled() && server.is_none());
    eprintln!(
        "q7emu: {}",
        q7_emulator::jit::describe(engine, &core.jit_stats())
    );
    if timing.source.is_some() {
        eprintln!("q7emu: {}", timing.summary());
    }
    let (code, fault) = match &stop {
        Stop::Exited(c) => (Some(*c), None),
        Stop::Fault(r) => {
            eprint!("q7emu: {r}");
            let symbols = q7_symbols::Symbols::from_elf(&data);
            let symbolised = symbols.report_backtrace(r, "from the ELF");
            if !symbolised.is_empty() {
                eprintln!("{}", symbolised.trim_start());
            }
            (None, Some(r.as_ref()))
        }
    };
    if let Some(json_file) = json_file {
        let j = RunStats {
            profile: profile.name,
            instructions: s.instructions,
            cycles: s.cycles,
            exit_code: code,
            stats: s,
            timing: &core.timing,
            fault,
            engine,
            jit: core.jit_stats(),
        };
        let text = serde_json::to_string_pretty(&j).map_err(Failure::input)?;
        json_file
            .write_all_and_commit((text + "\n").as_bytes())
            .map_err(Failure::input)?;
    }
    let ending = Ending::of(&stop);
    if let Some(note) = ending.note() {
        eprintln!("q7emu: {note}");
    }
    Ok(ending.exit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_emulator::FaultKind;

    fn fault(kind: FaultKind) -> Stop {
        Stop::Fault(Box::new(q7_emulator::FaultReport {
            core: 0,
            pc: 0,
            kind,
            address: None,
            disassembly: String::new(),
            registers: [0; 16],
            ps: 0,
            windowbase: 0,
            windowstart: 0,
            sar: 0,
            backtrace: Vec::new(),
            backtrace_loop: None,
            cycles: 0,
        }))
    }

    #[test]
    fn a_fault_a_runaway_and_a_status_that_does_not_fit_have_codes_of_their_own() {
        let code = |stop: &Stop| Ending::of(stop).exit().code();
        assert_eq!(code(&Stop::Exited(0)), 0);
        assert_eq!(code(&Stop::Exited(127)), 127);
        assert_eq!(code(&Stop::Exited(128)), 128);
        assert_eq!(code(&Stop::Exited(256)), 128);
        assert_eq!(code(&Stop::Exited(-1)), 128);
        assert_eq!(code(&fault(FaultKind::WaitForever)), 129);
        let runaway = fault(FaultKind::BudgetExhausted { max_cycles: 5 });
        assert_eq!(code(&runaway), 131);
        assert_eq!(code(&fault(FaultKind::Interrupted)), 130);
        let overflow = |then: Option<FaultKind>| {
            fault(FaultKind::StackOverflow {
                sp: 0,
                bottom: 8,
                top: 16,
                then: then.map(Box::new),
            })
        };
        assert_eq!(code(&overflow(None)), 129, "an overflow seen is a fault");
        assert_eq!(
            code(&overflow(Some(FaultKind::BudgetExhausted {
                max_cycles: 5
            }))),
            131,
            "a runaway with the stack overflowed is still a runaway"
        );
        assert_eq!(
            Ending::of(&Stop::Exited(256)).note().unwrap(),
            "the program exited with status 256, outside 0..=127: exit code 128"
        );
        assert_eq!(Ending::of(&Stop::Exited(3)).note(), None);
    }
}
