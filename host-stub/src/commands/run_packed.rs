//! `q7emu run-packed`: its command line, and where its report goes (the runner and the
//! report formats are q7-run's [`q7_run::packed`]).

use std::path::Path;

use q7_conventions::exit_code::{Exit, Kind};
use q7_conventions::output::AtomicFile;
use q7_loader::input::{self, InputError, InputKind};
use q7_run::packed::{run_packed, JsonReport, ReportError, RunPacked, RunPackedError, TextReport};

use crate::json_output::JsonOutput;

/// Why `q7emu run-packed` failed, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum RunFileError {
    /// The library file could not be read within its bound.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The run failed.
    #[error("{file}: {source}")]
    Run {
        /// The library file.
        file: String,
        /// Why.
        source: RunPackedError,
    },
    /// A report could not be written.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// The report names the file of an input.
    #[error(transparent)]
    SamePath(#[from] q7_conventions::output::PathClash),
}

impl q7_conventions::exit_code::Outcome for RunFileError {
    /// The outcome it ends `run-packed` with ([`q7_conventions::exit_code`]).
    fn kind(&self) -> Kind {
        match self {
            RunFileError::Run { source, .. } => source.kind(),
            _ => Kind::BadInput,
        }
    }
}

/// `q7emu run-packed`: reads the packed library at `path` (within the packed-library bound)
/// and runs it. The report (docs/cli.md "Conventions"): the text on stdout as
/// dispatches complete; with `--json` the JSON document streamed on stdout instead; with
/// `--json-file FILE` the text and the document written to FILE whole, replacing it only once
/// complete. The document is closed with the error when the run fails, so it is valid JSON
/// either way.
pub fn run_file(path: &Path, run: &RunPacked, out: &JsonOutput) -> Result<(), RunFileError> {
    let packed = input::read_file(path, InputKind::PackedLibrary)?;
    let file = path.display().to_string();
    let failed = |source| match source {
        RunPackedError::Report(e) => RunFileError::Report(e),
        source => RunFileError::Run {
            file: file.clone(),
            source,
        },
    };
    if out.json {
        let mut report = JsonReport::new(std::io::stdout().lock(), "stdout");
        let result = run_packed(&packed, run, &mut report);
        let message = result.as_ref().err().map(|e| e.to_string());
        drop(report.finish(message.as_deref())?);
        return result.map_err(failed);
    }
    let text = TextReport::new(q7_conventions::terminal::guest_stdout(), "stdout");
    let Some(json) = &out.json_file else {
        return run_packed(&packed, run, &mut { text }).map_err(failed);
    };
    let to = json.display().to_string();
    let report_error = |e: q7_conventions::output::WriteError| ReportError {
        to: to.clone(),
        source: e.source,
    };
    let mut reports = (
        text,
        JsonReport::new(AtomicFile::create(json).map_err(report_error)?, &to),
    );
    let result = run_packed(&packed, run, &mut reports);
    let message = result.as_ref().err().map(|e| e.to_string());
    let file = reports.1.finish(message.as_deref())?;
    file.commit().map_err(report_error)?;
    result.map_err(failed)
}

/// `q7emu run-packed [--cores 8|1] --key KEY [--arg W0,W1,...]... [--sub-opcode N]
/// [--dispatches N] [--threads N] [--max-cycles N] [--json | --json-file FILE] [--timing FILE]
/// LIB.so`.
#[derive(Debug, clap::Args)]
pub struct RunPackedArgs {
    /// Kernel key: spec << 8 | opcode, e.g. 0x185.
    #[arg(long, value_parser = q7_conventions::number::parse_u32)]
    pub key: u32,
    /// One ARG_TENSOR descriptor given by its leading 32-bit words, comma-separated
    /// (repeat for more arguments), e.g. --arg 10 or --arg 0x1000,64.
    #[arg(long = "arg", value_parser = q7_conventions::number::parse_words)]
    pub args: Vec<Vec<u32>>,
    /// 8: one instance per core in its 2 MiB window; 1: core 0 in the 32 MiB window.
    #[arg(long, default_value_t = 8, value_parser = q7_conventions::number::parse_u32)]
    pub cores: u32,
    /// Sub-opcode of the invocation.
    #[arg(long, default_value_t = 0, value_parser = q7_conventions::number::parse_u32)]
    pub sub_opcode: u32,
    /// Dispatch this many times (library state persists between dispatches).
    #[arg(long, default_value_t = 1, value_parser = q7_conventions::number::parse_u32)]
    pub dispatches: u32,
    /// Host threads running the cores, at least 1 (results are identical for any count unless
    /// the cores communicate through HBM within a dispatch).
    #[arg(long, default_value_t = q7_run::op::DEFAULT_THREADS, value_parser = q7_conventions::number::parse_threads)]
    pub threads: usize,
    /// Cycle budget of each firmware call before the kernel counts as runaway.
    #[arg(long, default_value_t = q7_runtime::firmware::CALL_BUDGET, value_parser = q7_conventions::number::parse_u64)]
    pub max_cycles: u64,
    /// The results as JSON: `--json` on stdout instead of the text, `--json-file FILE`
    /// besides it (and no progress line either way).
    #[command(flatten)]
    pub report: JsonOutput,
    /// A timing profile (.json or .toml) laid over the default timing model.
    #[arg(long, value_name = "FILE")]
    pub timing: Option<std::path::PathBuf>,
    /// The packed library (`.so` made by the packager, with `lib_func`).
    pub file: std::path::PathBuf,
    #[command(flatten)]
    pub jit: crate::command::JitArg,
}

/// Runs `q7emu run-packed` ([`run_file`]).
pub fn run(a: RunPackedArgs) -> Result<Exit, crate::command::Failure> {
    // The report may not replace the library or the timing profile (docs/cli.md "Output
    // files").
    if let Some(json) = &a.report.json_file {
        use q7_conventions::output::{check_distinct, Named};
        let mut inputs = vec![Named::new("FILE", &a.file)];
        inputs.extend(a.timing.iter().map(|p| Named::new("--timing", p)));
        check_distinct(&inputs, &[Named::new("--json-file", json)]).map_err(RunFileError::from)?;
    }
    let stem = a
        .file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "library".to_string());
    let run = RunPacked {
        name: stem,
        cores: a.cores,
        key: a.key,
        sub_opcode: a.sub_opcode,
        args: a.args,
        dispatches: a.dispatches,
        threads: a.threads,
        call_budget: a.max_cycles,
        timing: crate::command::load_timing(a.timing.as_deref())?.model,
        progress: !a.report.any(),
    };
    run_file(&a.file, &run, &a.report)?;
    Ok(Exit::SUCCESS)
}
