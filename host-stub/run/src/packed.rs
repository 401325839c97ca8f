//! `q7emu run-packed`: one packed custom-op library through the whole host and device path of
//! PLATFORM.md "Host flow" — prelinked and staged per core by [`Context::create`], loaded by 0x1095 records,
//! its `.kernel_info_table` bound, the kernel dispatched by key, then unloaded and destroyed.
//!
//! Invocation arguments are raw ARG_TENSOR descriptors (0x30 bytes, PLATFORM.md "ARG_TENSOR descriptor"): each `--arg`
//! gives the leading little-endian words of one descriptor, the rest zero.
//!
//! Results are handed to a [`Report`] as each dispatch completes and are not kept, so memory
//! stays bounded for any number of dispatches: [`TextReport`] prints them, [`JsonReport`] streams
//! them as one JSON document (the command line, q7-host's `commands::run_packed`, sends them to
//! stdout and `--json-file`).

use std::io::Write;

use serde::Serialize;

use q7_conventions::exit_code::Kind;
use q7_emulator::jit::JitStats;
use q7_emulator::platform::{Cluster, ClusterConfig, HbmError};
use q7_emulator::TimingModel;
use q7_runtime::console::CoreConsole;
use q7_runtime::firmware::{CoreResult, Firmware, FirmwareError};
use q7_runtime::nrtucode::{coretype, Context, NrtError, Source};
use q7_runtime::progress::{self, Watch};

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
    /// ([`q7_runtime::progress`]).
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
    #[error("{}", q7_runtime::firmware::failure_text(source, "", console))]
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
        console: q7_runtime::firmware::failure_consoles(cluster, &source),
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
            stack: q7_runtime::firmware::StackUse::of(q7_runtime::firmware::CALL_SP),
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
