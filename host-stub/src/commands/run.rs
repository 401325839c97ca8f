//! The `q7emu run` command line.

use std::path::PathBuf;
use std::sync::Arc;

use q7_emulator::platform::ConsoleSize;

use q7_conventions::number::{parse_cycle_range, parse_range, parse_threads, parse_u32, parse_u64};
use q7_conventions::output::{AtomicFile, Named};
use q7_emulator::platform::trace_port::Poison;
use q7_observe::profile::ProfileSpec;
use q7_observe::trace::timeline::{parse_max_events, MaxEvents};
use q7_observe::trace::{
    parse_max_bytes, MaxBytes, ObserveSpec, PcSelect, Summary, TimelineSpec, TraceSpec,
};
use q7_run::op::{outputs, run_observed, Library, OpRequest, RunError};
use q7_runtime::debugger::Debugger;
use q7_runtime::timing_profile::{Profile, ProfileError};
use q7_tensor::dtype::Dtype;
use q7_tensor::npy::{self, NpyError};

/// `q7emu run BUILD_DIR --op NAME --input FILE.npy... [--scalar V]... [--output FILE.npy]
/// [--out-shape D0,D1,...] [--out-dtype DTYPE] [--threads N] [--max-cycles N]
/// [--timing FILE] [--console-bytes BYTES] [--console-all-cores] [--json | --json-file FILE]
/// [--trace-dir DIR [--trace-cores N,...] [--trace-pc LO..HI | --trace-fn NAME]
/// [--trace-cycles A..B] [--trace-max-bytes BYTES|none]]
/// [--timeline FILE.json [--timeline-max-events N|none]]`
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The build directory (`q7emu build -o`).
    #[arg(value_name = "BUILD_DIR")]
    pub build_dir: PathBuf,
    /// The op to run: its name, or ns::op for a project's library (examples/sdk/BUILD.md
    /// "Projects").
    #[arg(long)]
    pub op: String,
    /// A tensor argument (repeat, in schema order).
    #[arg(long = "input", value_name = "FILE.npy")]
    pub inputs: Vec<PathBuf>,
    /// A scalar argument (repeat, in schema order), as its type takes it: an integer (decimal
    /// or 0x hex), a decimal fraction (0.5, 1e-3), inf, nan, true or false (docs/cli.md
    /// "Scalars").
    #[arg(long = "scalar", value_name = "V", allow_hyphen_values = true)]
    pub scalars: Vec<String>,
    /// Write the output tensor here (replaced only once written whole).
    #[arg(long, value_name = "FILE.npy")]
    pub output: Option<PathBuf>,
    /// The output's shape (default: what the op's shape function computes, else what the
    /// kernel returns).
    #[arg(long, value_name = "D0,D1,...", value_delimiter = ',', value_parser = parse_u64)]
    pub out_shape: Option<Vec<u64>>,
    /// The output's dtype, a numpy name: float32, float16, bfloat16, int8, uint8, int16,
    /// int32, int64 (default: what the op's shape function computes, else what the kernel
    /// returns).
    #[arg(long, value_name = "DTYPE", value_parser = parse_dtype)]
    pub out_dtype: Option<Dtype>,
    /// Host threads running the cores, at least 1 (results and cycle counts are identical for
    /// any count, unless cores race on HBM within the dispatch: `--check` finds that)
    #[arg(long, default_value_t = q7_run::op::DEFAULT_THREADS, value_parser = parse_threads)]
    pub threads: usize,
    /// Cycle budget per core before the kernel counts as runaway.
    #[arg(long, default_value_t = q7_runtime::firmware::CALL_BUDGET, value_parser = parse_u64)]
    pub max_cycles: u64,
    /// A timing profile (.json or .toml) laid over the default timing model.
    #[arg(long, value_name = "FILE")]
    pub timing: Option<PathBuf>,
    /// Bytes of each core's console ring, printf's buffer: a power of two up to 131072 (the
    /// oldest output is overwritten when it is full), or 0 to disable printf (PLATFORM.md
    /// "Console").
    #[arg(long, value_name = "BYTES", default_value = "4096")]
    pub console_bytes: ConsoleSize,
    /// Print the console of every core that printed, not only core 0's (which is what hardware
    /// prints in multicore mode).
    #[arg(long)]
    pub console_all_cores: bool,
    /// The run report as JSON: `--json` on stdout instead of the summary, `--json-file FILE`
    /// besides it (docs/cli.md "Conventions").
    #[command(flatten)]
    pub report: crate::json_output::JsonOutput,
    /// Write an instruction trace of each core into this directory: core0.trace, core1.trace,
    /// ... (text) and core0.jsonl, ... (JSON lines), docs/tracing.md.
    #[arg(long, value_name = "DIR", value_parser = any_path())]
    pub trace_dir: Option<PathBuf>,
    /// Trace only these cores (comma-separated PRIDs; default every core the library runs on).
    #[arg(long, value_name = "N,...", value_delimiter = ',', value_parser = parse_u32, requires = "trace_dir")]
    pub trace_cores: Option<Vec<u32>>,
    /// Trace only the instructions at LO <= PC < HI.
    #[arg(long, value_name = "LO..HI", value_parser = parse_range, requires = "trace_dir", conflicts_with = "trace_fn")]
    pub trace_pc: Option<(u32, u32)>,
    /// Trace only the instructions of the function NAME (demangled, with or without its
    /// parameters), found in each traced core's unstripped image.
    #[arg(long, value_name = "NAME", requires = "trace_dir")]
    pub trace_fn: Option<String>,
    /// Trace only the instructions that start at cycle A <= cycle < B of their core.
    #[arg(long, value_name = "A..B", value_parser = parse_cycle_range, requires = "trace_dir")]
    pub trace_cycles: Option<(u64, u64)>,
    /// Most bytes of each traced core's two files together, at least 4096, or `none` for no
    /// cap (default 1 GiB, 0x40000000); a core's trace that reaches it ends with a
    /// `truncated` notice, said on stderr too.
    #[arg(long, value_name = "BYTES|none", value_parser = parse_max_bytes, requires = "trace_dir")]
    pub trace_max_bytes: Option<MaxBytes>,
    /// Write the run's timeline as Chrome trace-event JSON (Perfetto, chrome://tracing): per
    /// core its calls, kernel phases, function spans, SDMA transfers, exceptions and runtime
    /// events, docs/tracing.md.
    #[arg(long, value_name = "FILE.json", value_parser = any_path())]
    pub timeline: Option<PathBuf>,
    /// Most events of each core's timeline, at least 100, or `none` for no cap (default
    /// 200000); a core's timeline that reaches it is cut there, marked by a `timeline
    /// truncated` instant, said on stderr too.
    #[arg(long, value_name = "N|none", value_parser = parse_max_events, requires = "timeline")]
    pub timeline_max_events: Option<MaxEvents>,
    /// Write an exact cycle profile of the dispatch to DIR (made when missing): every cycle of
    /// every core attributed to its instruction, function, source line and call path, split
    /// into issue cycles and stall categories — profile.json, folded stacks, flame graphs
    /// (flame.svg) and pprof's profile.pb.gz; read it with `q7emu profile report DIR`
    /// (docs/profiling.md).
    #[arg(long, value_name = "DIR", value_parser = any_path())]
    pub profile: Option<PathBuf>,
    /// Serve the GDB remote protocol on 127.0.0.1:PORT (0: a free port, printed on stderr)
    /// and wait for a debugger with the cores stopped before the kernel's first instruction
    /// (docs/gdb.md); no traces or timeline of the debugged dispatch. With --profile, the
    /// profile is the plain run's: the debugger adds no cycle.
    #[arg(long, value_name = "PORT", conflicts_with_all = ["trace_dir", "timeline"])]
    pub gdb: Option<u16>,
    /// Checked mode: report the kernel bugs hardware swallows — out-of-bounds accesses,
    /// races between cores, output bytes no core wrote, reads of memory nothing wrote, leaks,
    /// bad frees, accessors the API leaves undefined in multicore mode — on stderr and in the
    /// JSON report; exit 132 when any is an error (docs/checked-mode.md). With --gdb, a core
    /// stops in the debugger at the first error it makes.
    #[arg(long)]
    pub check: bool,
    /// Fill each allocation the kernel makes — tensors from empty()/zeros() before they are
    /// filled, neuron_hbm_allocate, neuron_dataram_allocate, tcm_malloc — with a poison word
    /// before it sees it: `nan` (0x7FC07FC0, NaN as float32, bfloat16 and float16) or
    /// `pattern` (0xDEADBEEF), so that a read of memory nothing wrote shows in the output
    /// (docs/checked-mode.md "Poison").
    #[arg(long, value_name = "nan|pattern", value_parser = parse_poison)]
    pub poison: Option<Poison>,
    #[command(flatten)]
    pub jit: crate::command::JitArg,
}

/// `--poison`: `nan` or `pattern`.
fn parse_poison(s: &str) -> Result<Poison, String> {
    match s {
        "nan" => Ok(Poison::Nan),
        "pattern" => Ok(Poison::Pattern),
        _ => Err(format!("{s}: the poison is `nan` or `pattern`")),
    }
}

/// A path as given, the empty one included: [`outputs::check`] refuses an empty `--trace-dir`
/// or `--timeline` with the message the testing API (and the Python package) gives.
fn any_path() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().map(PathBuf::from)
}

impl RunArgs {
    /// The files the run reads besides the build directory's, each named by its flag: the
    /// tensors, the timing profile.
    fn input_files(&self) -> Vec<Named> {
        let mut files: Vec<Named> = self
            .inputs
            .iter()
            .map(|p| Named::new("--input", p))
            .collect();
        files.extend(self.timing.iter().map(|p| Named::new("--timing", p)));
        files
    }

    /// The files the run writes besides the timeline and the traces, each named by its flag:
    /// the output tensor, the report.
    fn output_files(&self) -> Vec<Named> {
        [
            ("--output", &self.output),
            ("--json-file", &self.report.json_file),
        ]
        .into_iter()
        .filter_map(|(flag, p)| Some(Named::new(flag, p.as_ref()?)))
        .collect()
    }

    /// What the trace flags ask to observe.
    pub fn observe(&self) -> ObserveSpec {
        ObserveSpec {
            trace: self.trace_dir.as_ref().map(|dir| TraceSpec {
                dir: dir.clone(),
                cores: self.trace_cores.clone(),
                pc: match (&self.trace_pc, &self.trace_fn) {
                    (Some((lo, hi)), _) => Some(PcSelect::Range(*lo, *hi)),
                    (None, Some(name)) => Some(PcSelect::Function(name.clone())),
                    (None, None) => None,
                },
                cycles: self.trace_cycles,
                max_bytes: self.trace_max_bytes.unwrap_or_default(),
            }),
            timeline: self.timeline.as_ref().map(|path| TimelineSpec {
                path: path.clone(),
                max_events: self.timeline_max_events.unwrap_or_default(),
            }),
            check: self.check,
            profile: self
                .profile
                .as_ref()
                .map(|dir| ProfileSpec { dir: dir.clone() }),
        }
    }
}

/// The notes on stderr of what the run observed.
pub fn notes(s: &Summary) -> String {
    let mut out = String::new();
    if let Some(t) = &s.trace {
        let text: u64 = t.files.iter().map(|f| f.text.1).sum();
        let json: u64 = t.files.iter().map(|f| f.json.1).sum();
        let dir = t
            .files
            .first()
            .and_then(|f| f.text.0.parent())
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        out.push_str(&format!(
            "q7emu: trace of {} core(s) in {dir}: {} events, {text} bytes of text, {json} bytes of JSON lines\n",
            t.files.len(),
            t.kept
        ));
    }
    if let Some(t) = &s.timeline {
        out.push_str(&format!(
            "q7emu: timeline {}: {} events, {} bytes\n",
            t.path.display(),
            t.counts.events,
            t.bytes
        ));
    }
    if let Some(p) = &s.profile {
        let cycles: u64 = p.profile.cores.iter().map(|c| c.total.cycles).sum();
        out.push_str(&format!(
            "q7emu: profile of {} core(s) in {}: {cycles} cycles attributed ({}; `q7emu profile report {}`)\n",
            p.profile.cores.len(),
            p.dir.display(),
            p.files
                .iter()
                .filter_map(|f| f.file_name())
                .map(|f| f.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(", "),
            p.dir.display()
        ));
    }
    if let Some(findings) = &s.check {
        out.push_str(&q7_observe::check::text(findings));
    }
    out
}

fn parse_dtype(s: &str) -> Result<Dtype, String> {
    Dtype::from_name(s).ok_or_else(|| {
        format!("{s:?}: not a supported dtype (float32, float16, bfloat16, int8, uint8, int16, int32, int64)")
    })
}

/// Why `q7emu run` failed.
#[derive(Debug, thiserror::Error)]
pub enum RunCliError {
    /// An input or the output file.
    #[error(transparent)]
    Npy(#[from] NpyError),
    /// The run.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The timing profile.
    #[error(transparent)]
    Timing(#[from] ProfileError),
    /// The `--json-file` report or the `--output` tensor could not be written.
    #[error(transparent)]
    Json(#[from] crate::json_output::WriteError),
    /// The `--gdb` server could not listen.
    #[error(transparent)]
    Gdb(#[from] q7_gdb::GdbError),
}

impl q7_conventions::exit_code::Outcome for RunCliError {
    /// The outcome it ends `q7emu run` with: the run's, or bad input.
    fn kind(&self) -> q7_conventions::exit_code::Kind {
        match self {
            RunCliError::Npy(_)
            | RunCliError::Timing(_)
            | RunCliError::Json(_)
            | RunCliError::Gdb(_) => q7_conventions::exit_code::Kind::BadInput,
            RunCliError::Run(e) => e.kind(),
        }
    }
}

/// Runs `q7emu run`: the summary (or the JSON report) on stdout, the trace notes on stderr;
/// on a terminal the kernel's console in the summary is shown escaped
/// ([`q7_conventions::terminal`]).
pub fn run(a: RunArgs) -> Result<q7_conventions::exit_code::Exit, crate::command::Failure> {
    let (text, notes, failed) = report(a)?;
    print!("{}", q7_conventions::terminal::for_stdout(&text));
    eprint!("{}", q7_conventions::terminal::for_stderr(&notes));
    Ok(if failed {
        q7_conventions::exit_code::Exit::of(q7_conventions::exit_code::Kind::CheckFailed)
    } else {
        q7_conventions::exit_code::Exit::SUCCESS
    })
}

/// Runs the op; the text to print on stdout, the notes for stderr, and whether `--check` made
/// an error-class finding.
pub fn report(a: RunArgs) -> Result<(String, String, bool), RunCliError> {
    let timing = match &a.timing {
        Some(path) => Profile::load(path)?,
        None => Profile::default(),
    };
    let spec = a.observe();
    let lib = Library::open(&a.build_dir)?;
    lib.op(&a.op)?;
    // No output may replace an input or another output (docs/cli.md "Output files"), nor
    // the trace directory.
    outputs::check(&lib, &spec, &a.input_files(), &a.output_files()).map_err(RunError::from)?;
    // Headers and sizes checked now; the data goes from each file into HBM during the run.
    let inputs = a
        .inputs
        .iter()
        .map(|p| npy::open(p).map(Into::into))
        .collect::<Result<Vec<_>, _>>()?;
    // An output file that cannot be written is refused before the run, not after it: each is
    // started as a temporary file beside it and renamed into place once written whole.
    let output = a.output.as_deref().map(AtomicFile::create).transpose()?;
    let json_file = a
        .report
        .json_file
        .as_deref()
        .map(AtomicFile::create)
        .transpose()?;
    let debugger = match a.gdb {
        Some(port) => Some(Arc::new(q7_gdb::Server::listen(port)?) as Arc<dyn Debugger>),
        None => None,
    };
    let (result, summary) = run_observed(
        &lib,
        &OpRequest {
            op: a.op,
            inputs,
            scalars: a.scalars,
            out_dtype: a.out_dtype,
            out_shape: a.out_shape,
            threads: a.threads,
            jit: q7_emulator::jit::default_on(),
            call_budget: a.max_cycles,
            timing,
            progress: !a.report.any(),
            console: a.console_bytes,
            debugger,
            poison: a.poison,
        },
        &spec,
    )?;
    if let Some(file) = output {
        npy::write_whole(file, &result.output)?;
    }
    let json = || {
        let mut v = result.json();
        if let (Some(findings), Some(map)) = (&summary.check, v.as_object_mut()) {
            map.insert("check".into(), q7_observe::check::json(findings));
        }
        serde_json::to_string_pretty(&v).expect("JSON values serialize") + "\n"
    };
    if let Some(file) = json_file {
        file.write_all_and_commit(json().as_bytes())?;
    }
    let text = if a.report.json {
        json()
    } else if a.console_all_cores {
        result.text_with_consoles(true)
    } else {
        result.text()
    };
    let failed = summary
        .check
        .as_ref()
        .is_some_and(|f| q7_observe::check::failed(f));
    Ok((text, notes(&summary), failed))
}
