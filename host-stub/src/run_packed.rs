//! `q7emu run-packed`: one packed custom-op library through the whole host and device path of
//! PLATFORM.md "Host flow" — prelinked and staged per core by [`Context::create`], loaded by 0x1095 records,
//! its `.kernel_info_table` bound, the kernel dispatched by key, then unloaded and destroyed.
//!
//! Invocation arguments are raw ARG_TENSOR descriptors (0x30 bytes, PLATFORM.md "ARG_TENSOR descriptor"): each `--arg`
//! gives the leading little-endian words of one descriptor, the rest zero.
//!
//! Results are handed to a [`Report`] as each dispatch completes and are not kept, so memory
//! stays bounded for any number of dispatches: [`TextReport`] prints them, [`JsonReport`] streams
//! them as one JSON document, and [`run_file`] does both for the command line.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use crate::console::CoreConsole;
use crate::firmware::{CoreResult, Firmware, FirmwareError};
use crate::json_output::{AtomicFile, JsonOutput};
use crate::nrtucode::{coretype, Context, NrtError, Source};
use crate::progress::{self, Watch};
use q7_conventions::exit_code::{Exit, Kind};
use q7_emulator::jit::JitStats;
use q7_emulator::platform::{Cluster, ClusterConfig, HbmError};
use q7_emulator::TimingModel;
use q7_loader::input::{self, InputError, InputKind};

/// Size of one ARG_TENSOR descriptor (PLATFORM.md).
pub const ARG_BYTES: usize = q7_tensor::descriptor::SIZE;
/// The custom-op opcode every dispatch carries (the registry's constant, 133).
pub const CUSTOM_OP_OPCODE: u32 = q7_loader::ucode_lib::CUSTOM_OP_OPCODE as u32;
/// The library selector `run-packed` loads under.
pub const SELECTOR: u32 = 1;

/// What to run and how.
#[derive(Debug, Clone)]
pub struct RunPacked {
    /// Library name (its per-core instances are `<name>_cpu<N>`).
    pub name: String,
    /// 8 (one instance per core, 2 MiB windows) or 1 (core 0, the 32 MiB window).
    pub cores: u32,
    /// Kernel key: spec << 8 | opcode.
    pub key: u32,
    /// Sub-opcode of the invocation.
    pub sub_opcode: u32,
    /// ARG_TENSOR descriptors, each given by its leading words.
    pub args: Vec<Vec<u32>>,
    /// How many times to dispatch (library state persists between dispatches).
    pub dispatches: u32,
    /// Host threads for the cores.
    pub threads: usize,
    /// Cycle budget of each firmware call.
    pub call_budget: u64,
    /// The timing model of every core.
    pub timing: TimingModel,
    /// Draw the progress line of a long dispatch on stderr when it is a terminal
    /// ([`crate::progress`]).
    pub progress: bool,
}

/// Why a run failed, naming the step.
#[derive(Debug, thiserror::Error)]
pub enum RunPackedError {
    /// Only 1- and 8-core libraries exist (PLATFORM.md "Device load, bind and dispatch": a core count of 1 or `NUM_POOL_CORES`).
    #[error("--cores {0}: a library runs on 1 core or on all 8")]
    Cores(u32),
    /// An argument has more words than a descriptor holds.
    #[error("argument {index}: {words} words, an ARG_TENSOR descriptor holds 12")]
    ArgTooLong {
        /// Which argument.
        index: usize,
        /// Words given.
        words: usize,
    },
    /// The cluster's HBM could not be mapped.
    #[error("cluster: {0}")]
    Cluster(#[from] HbmError),
    /// Host-side API failure (packed image, prelink, buffer).
    #[error("core {core}: {source}")]
    Host {
        /// Core whose instance failed.
        core: u32,
        /// Why.
        source: NrtError,
    },
    /// Device-side failure (load, dispatch, unload), with what each core it names printed.
    #[error("{}", crate::console::failure_text(source, "", console))]
    Device {
        /// Why.
        source: FirmwareError,
        /// What each core the failure names printed (its console ring).
        console: Box<[CoreConsole]>,
    },
    /// A report could not be written.
    #[error(transparent)]
    Report(#[from] ReportError),
}

impl q7_conventions::exit_code::Outcome for RunPackedError {
    /// The outcome it ends `run-packed` with ([`q7_conventions::exit_code`]): the device's, or bad
    /// input.
    fn kind(&self) -> Kind {
        match self {
            RunPackedError::Device { source, .. } => source.kind(),
            _ => Kind::BadInput,
        }
    }
}

/// A report that could not be written, naming where it goes.
#[derive(Debug, thiserror::Error)]
#[error("{to}: {source}")]
pub struct ReportError {
    /// Where the report goes ("stdout", a file name).
    pub to: String,
    /// Why it failed.
    pub source: std::io::Error,
}

/// The library as loaded on every core, before its first dispatch.
#[derive(Debug, Clone, Serialize)]
pub struct Loaded {
    /// Library name.
    pub name: String,
    /// Prelinked UCPL image size of each core's instance, by core.
    pub prelinked_sizes: Vec<u32>,
    /// Kernel key.
    pub key: u32,
    /// Which engine runs the dispatches: `tier2` or `interpreter` (docs/jit.md).
    pub engine: &'static str,
}

/// Receives a run's results as they happen; nothing is kept for it.
pub trait Report {
    /// The library is loaded on every core.
    fn loaded(&mut self, lib: &Loaded) -> Result<(), ReportError>;
    /// Dispatch `n` (from 0) completed with `results`, by core, each core having printed
    /// `console` during it (in the same order).
    fn dispatch(
        &mut self,
        n: u32,
        results: &[CoreResult],
        console: &[CoreConsole],
    ) -> Result<(), ReportError>;
    /// Every dispatch completed and the library is unloaded; tier 2 compiled `jit` on the way
    /// (host-time figures: they vary run to run).
    fn finished(&mut self, jit: &JitStats) -> Result<(), ReportError>;
}

impl<A: Report, B: Report> Report for (A, B) {
    fn loaded(&mut self, lib: &Loaded) -> Result<(), ReportError> {
        self.0.loaded(lib)?;
        self.1.loaded(lib)
    }
    fn dispatch(
        &mut self,
        n: u32,
        results: &[CoreResult],
        console: &[CoreConsole],
    ) -> Result<(), ReportError> {
        self.0.dispatch(n, results, console)?;
        self.1.dispatch(n, results, console)
    }
    fn finished(&mut self, jit: &JitStats) -> Result<(), ReportError> {
        self.0.finished(jit)?;
        self.1.finished(jit)
    }
}

/// The human-readable report: a header line, then as each dispatch completes one line per
/// core and what each core printed during it ([`CoreConsole::printed`]), and at the end the
/// engine's line ([`q7_emulator::jit::describe`]). The kernels' text is written as it is: give
/// a terminal through [`q7_conventions::terminal::guest_stdout`].
#[derive(Debug)]
pub struct TextReport<W: Write> {
    out: W,
    to: String,
    /// The engine the header named.
    engine: &'static str,
}

impl<W: Write> TextReport<W> {
    /// A report written to `out`, called `to` in errors.
    pub fn new(out: W, to: &str) -> Self {
        TextReport {
            out,
            to: to.to_string(),
            engine: q7_emulator::jit::engine(false),
        }
    }

    fn write(&mut self, text: &str) -> Result<(), ReportError> {
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|source| ReportError {
                to: self.to.clone(),
                source,
            })
    }
}

impl<W: Write> Report for TextReport<W> {
    fn loaded(&mut self, lib: &Loaded) -> Result<(), ReportError> {
        self.engine = lib.engine;
        let line = format!(
            "library {}: {} core(s), key {:#x}, prelinked {} bytes per core, engine {}\n",
            lib.name,
            lib.prelinked_sizes.len(),
            lib.key,
            lib.prelinked_sizes.first().copied().unwrap_or(0),
            lib.engine
        );
        self.write(&line)
    }

    fn dispatch(
        &mut self,
        n: u32,
        results: &[CoreResult],
        console: &[CoreConsole],
    ) -> Result<(), ReportError> {
        let mut text = String::new();
        for r in results {
            let response = match r.response {
                Some(v) => format!("{v:#010x} ({v})"),
                None => "none".to_string(),
            };
            text.push_str(&format!(
                "dispatch {n} core {}: response {response}, {} instructions, {} cycles\n",
                r.core, r.stats.instructions, r.stats.cycles
            ));
        }
        for c in console.iter().filter(|c| !c.is_empty()) {
            text.push_str(&c.printed());
        }
        self.write(&text)
    }

    fn finished(&mut self, jit: &JitStats) -> Result<(), ReportError> {
        let line = format!("{}\n", q7_emulator::jit::describe(self.engine, jit));
        self.write(&line)
    }
}

/// The JSON report, streamed: one object with the [`Loaded`] fields and `dispatches`, an array
/// (per dispatch) of arrays (per core) of results — a [`CoreResult`] with `console` (the
/// bytes the core printed during the dispatch that its ring holds, exact) and
/// `console_dropped` (how many more it overwrote) — each dispatch written as it completes,
/// one per line and flushed. [`JsonReport::finish`] closes the document, with `jit` (tier 2's
/// [`JitStats`]) when the run finished and an `error` member when it failed, so the file is
/// valid JSON either way.
#[derive(Debug)]
pub struct JsonReport<W: Write> {
    out: W,
    to: String,
    /// `Some(dispatches written)` once the header is written.
    written: Option<u32>,
    /// What tier 2 compiled, once the run finished.
    jit: Option<JitStats>,
}

impl<W: Write> JsonReport<W> {
    /// A report written to `out`, called `to` in errors.
    pub fn new(out: W, to: &str) -> Self {
        JsonReport {
            out,
            to: to.to_string(),
            written: None,
            jit: None,
        }
    }

    /// Writes and flushes `text`: what is written is on disk, whatever happens next.
    fn write(&mut self, text: &str) -> Result<(), ReportError> {
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|source| ReportError {
                to: self.to.clone(),
                source,
            })
    }

    /// Ends the document, recording `error` when the run failed, and flushes it; the writer.
    pub fn finish(mut self, error: Option<&str>) -> Result<W, ReportError> {
        let mut members: Vec<String> = Vec::new();
        if let Some(jit) = &self.jit {
            members.push(format!("\"jit\": {}", json(jit)));
        }
        if let Some(e) = error {
            members.push(format!("\"error\": {}", json(&e)));
        }
        let members = members.join(",\n  ");
        let tail = match (self.written, members.is_empty()) {
            (None, true) => "{}\n".to_string(),
            (None, false) => format!("{{\n  {members}\n}}\n"),
            (Some(_), true) => "\n  ]\n}\n".to_string(),
            (Some(_), false) => format!("\n  ],\n  {members}\n}}\n"),
        };
        self.write(&tail)?;
        Ok(self.out)
    }
}

/// Compact JSON of a value that always serialises.
fn json(v: &impl Serialize) -> String {
    serde_json::to_string(v).expect("results serialise")
}

impl<W: Write> Report for JsonReport<W> {
    fn loaded(&mut self, lib: &Loaded) -> Result<(), ReportError> {
        let head = format!(
            "{{\n  \"name\": {},\n  \"prelinked_sizes\": {},\n  \"key\": {},\n  \"engine\": {},\n  \"dispatches\": [",
            json(&lib.name),
            json(&lib.prelinked_sizes),
            lib.key,
            json(&lib.engine)
        );
        self.written = Some(0);
        self.write(&head)
    }

    fn dispatch(
        &mut self,
        _n: u32,
        results: &[CoreResult],
        console: &[CoreConsole],
    ) -> Result<(), ReportError> {
        let written = self.written.unwrap_or(0);
        let sep = if written == 0 { "\n    " } else { ",\n    " };
        self.written = Some(written + 1);
        let cores: Vec<serde_json::Value> = results
            .iter()
            .zip(console)
            .map(|(r, c)| {
                let mut j = serde_json::to_value(r).expect("results serialise");
                j["console"] = c.text.clone().into();
                j["console_dropped"] = c.dropped.into();
                j
            })
            .collect();
        self.write(&format!("{sep}{}", json(&cores)))
    }

    fn finished(&mut self, jit: &JitStats) -> Result<(), ReportError> {
        self.jit = Some(*jit);
        Ok(())
    }
}

/// Encodes argument words as ARG_TENSOR descriptors.
pub fn descriptors(args: &[Vec<u32>]) -> Result<Vec<[u8; ARG_BYTES]>, RunPackedError> {
    args.iter()
        .enumerate()
        .map(|(index, words)| {
            if words.len() > ARG_BYTES / 4 {
                return Err(RunPackedError::ArgTooLong {
                    index,
                    words: words.len(),
                });
            }
            let mut d = [0u8; ARG_BYTES];
            for (slot, w) in d.chunks_exact_mut(4).zip(words) {
                slot.copy_from_slice(&w.to_le_bytes());
            }
            Ok(d)
        })
        .collect()
}

/// Runs packed library `packed` as `run` says, on a fresh default cluster, handing `report`
/// the loaded library and then each dispatch's results as it completes.
pub fn run_packed(
    packed: &[u8],
    run: &RunPacked,
    report: &mut impl Report,
) -> Result<(), RunPackedError> {
    if !matches!(run.cores, 1 | 8) {
        return Err(RunPackedError::Cores(run.cores));
    }
    let _span = tracing::info_span!(
        "run_packed",
        name = run.name,
        cores = run.cores,
        key = format_args!("{:#x}", run.key)
    )
    .entered();
    let args = descriptors(&run.args)?;
    let config = ClusterConfig {
        timing: run.timing.clone(),
        ..ClusterConfig::default()
    };
    let mut device = Firmware::new(Cluster::new(&config)?);
    device.single_core = run.cores == 1;
    device.call_budget = run.call_budget;
    let mut ctx = Context::new(device);
    let host = |core| move |source| RunPackedError::Host { core, source };
    let device = |cluster: &Cluster, source: FirmwareError| RunPackedError::Device {
        console: crate::console::of_failure(cluster, &source),
        source,
    };

    let mut libs = Vec::new();
    for core in 0..run.cores {
        let name = format!("{}_cpu{core}", run.name);
        let mut lib = ctx
            .create(
                coretype::CAYMAN,
                core,
                Some(SELECTOR),
                &name,
                Source::CustomOp(packed),
            )
            .map_err(host(core))?;
        for record in ctx.load_sequence(&mut lib, None) {
            ctx.device
                .process(core, &record)
                .map_err(|e| device(&ctx.device.cluster, e))?;
        }
        libs.push((core, lib));
    }
    report.loaded(&Loaded {
        name: run.name.clone(),
        prelinked_sizes: libs.iter().map(|(_, l)| l.size()).collect(),
        key: run.key,
        engine: q7_emulator::jit::engine(ctx.device.cluster.cores.iter().any(|c| c.jit_enabled())),
    })?;
    for n in 0..run.dispatches {
        let marks: Vec<u64> = (libs.iter())
            .map(|&(c, _)| ctx.device.cluster.cores[c as usize].bus.console.written())
            .collect();
        let watch = Watch::attach(&mut ctx.device.cluster, libs.iter().map(|(c, _)| *c));
        let target = progress::stderr_target(run.progress);
        let label = format!("dispatch {}/{}: ", n + 1, run.dispatches);
        let results =
            progress::while_running(&watch, target, progress::show_after(), &label, || {
                ctx.device.dispatch(
                    run.key,
                    CUSTOM_OP_OPCODE,
                    run.sub_opcode,
                    &args,
                    run.threads,
                )
            })
            .map_err(|e| device(&ctx.device.cluster, e))?;
        let console: Vec<CoreConsole> = (libs.iter().zip(marks))
            .map(|(&(c, _), mark)| CoreConsole::since(&ctx.device.cluster, c, mark))
            .collect();
        report.dispatch(n, &results, &console)?;
    }
    for (core, mut lib) in libs {
        for record in ctx.unload_sequence(&mut lib) {
            ctx.device
                .process(core, &record)
                .map_err(|e| device(&ctx.device.cluster, e))?;
        }
        ctx.destroy(lib).map_err(host(core))?;
    }
    report.finished(&ctx.device.cluster.jit_stats())?;
    Ok(())
}

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
    let report_error = |e: crate::json_output::WriteError| ReportError {
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

// ---------------------------------------------------------------------------------------------
// The command line.

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
    #[arg(long, default_value_t = crate::run_op::DEFAULT_THREADS, value_parser = q7_conventions::number::parse_threads)]
    pub threads: usize,
    /// Cycle budget of each firmware call before the kernel counts as runaway.
    #[arg(long, default_value_t = crate::firmware::CALL_BUDGET, value_parser = q7_conventions::number::parse_u64)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use q7_emulator::Stats;

    fn result(core: u32, response: Option<u32>) -> CoreResult {
        CoreResult {
            core,
            response,
            stats: Stats::default(),
            platform: Default::default(),
            stack: crate::firmware::StackUse::of(crate::firmware::CALL_SP),
        }
    }

    fn console(core: u32, text: &str, dropped: u64) -> CoreConsole {
        CoreConsole {
            core,
            text: text.into(),
            dropped,
        }
    }

    fn loaded() -> Loaded {
        Loaded {
            name: "k".into(),
            prelinked_sizes: vec![0x100, 0x100],
            key: 0x185,
            engine: "tier2",
        }
    }

    #[test]
    fn the_text_report_prints_each_dispatch_as_it_completes() {
        let mut out = Vec::new();
        let mut r = TextReport::new(&mut out, "mem");
        r.loaded(&loaded()).unwrap();
        r.dispatch(
            0,
            &[result(0, Some(7)), result(1, None)],
            &[console(0, "", 0), console(1, "hi \x1b]0;t\x07", 3)],
        )
        .unwrap();
        // What each core printed follows its dispatch's lines, exact (the command line gives
        // a terminal escaping: docs/cli.md "Guest text"), the ring's loss marked.
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "library k: 2 core(s), key 0x185, prelinked 256 bytes per core, engine tier2\n\
             dispatch 0 core 0: response 0x00000007 (7), 0 instructions, 0 cycles\n\
             dispatch 0 core 1: response none, 0 instructions, 0 cycles\n\
             console of core 1:\n… 3 bytes dropped\nhi \x1b]0;t\x07\n"
        );
    }

    #[test]
    fn the_json_report_is_one_document_whether_the_run_ends_or_fails() {
        let doc = |dispatches: u32, error: Option<&str>| {
            let mut out = Vec::new();
            let mut r = JsonReport::new(&mut out, "mem");
            r.loaded(&loaded()).unwrap();
            for n in 0..dispatches {
                r.dispatch(
                    n,
                    &[result(0, Some(n)), result(1, Some(n + 1))],
                    &[console(0, "a\x1b", 0), console(1, "", 5)],
                )
                .unwrap();
            }
            if error.is_none() {
                let jit = JitStats {
                    blocks: 3,
                    ..JitStats::default()
                };
                r.finished(&jit).unwrap();
            }
            r.finish(error).unwrap();
            serde_json::from_slice::<serde_json::Value>(&out).unwrap()
        };
        let ok = doc(2, None);
        assert_eq!(ok["key"], 0x185);
        // Which tier ran, and what it compiled (docs/jit.md "Switch").
        assert_eq!(ok["engine"], "tier2");
        assert_eq!(ok["jit"]["blocks"], 3);
        assert_eq!(ok["prelinked_sizes"], serde_json::json!([256, 256]));
        assert_eq!(ok["dispatches"][1][1]["response"], 2);
        assert_eq!(ok["dispatches"][1][0]["console"], "a\x1b");
        assert_eq!(ok["dispatches"][1][0]["console_dropped"], 0);
        assert_eq!(ok["dispatches"][1][1]["console_dropped"], 5);
        assert_eq!(ok.get("error"), None);
        assert_eq!(doc(0, None)["dispatches"], serde_json::json!([]));
        let failed = doc(1, Some("dispatch \"x\" failed"));
        assert_eq!(failed["dispatches"].as_array().unwrap().len(), 1);
        assert_eq!(failed["error"], "dispatch \"x\" failed");
        assert_eq!(failed.get("jit"), None, "a failed run finished nothing");

        let mut out = Vec::new();
        JsonReport::new(&mut out, "mem")
            .finish(Some("--cores 3"))
            .unwrap();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&out).unwrap(),
            serde_json::json!({ "error": "--cores 3" })
        );
    }
}
