//! Observing a run (docs/tracing.md): instruction traces of the cores (`--trace-dir`,
//! [`insn`], written by [`writer`]) and the run's timeline (`--timeline`, [`timeline`]). The
//! firmware hands every core it runs a [`CoreTracer`] made by the run's [`Observer`] and gives
//! it back when the core stops. Observing never changes what a core computes or a cycle it
//! counts: tracers only read the state the emulator shows them, and the devices record what
//! they did only as a side list.

pub mod insn;
pub mod timeline;
pub mod writer;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use q7_emulator::debug::{HookStop, StopHook};
use q7_emulator::platform::{Cluster, PlatformBus};
use q7_emulator::trace::{Event, NoTrace, Tracer};
use q7_emulator::{Core, Stop};

use self::insn::{CoreCap, CoreFilter, RegisterNames, Sink};
use self::timeline::{CoreTimeline, MaxEvents, Timeline, Truncation};
use self::writer::{CoreFiles, Writer};
use crate::check::{Checker, CoreCheck, DebugHook};
use crate::profile::record::CoreProfile;
use crate::profile::{ProfileSpec, ProfileSummary, Profiler};
use q7_conventions::output::{AtomicFile, WriteError};
use q7_runtime::observer::DispatchHook;
use q7_symbols::Symbols;

/// The cap of each traced core's two files together unless `--trace-max-bytes` says
/// otherwise: 1 GiB (a whole trace of one core of the 8-core ReLU, 137 MB, fits seven times).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;
/// The smallest cap `--trace-max-bytes` takes: room for the header lines, the first events and
/// the notice of a truncated trace.
pub const MIN_MAX_BYTES: u64 = 4096;

/// `--trace-max-bytes`: a cap of at least [`MIN_MAX_BYTES`] bytes (decimal or `0x` hex), or
/// `none` for no cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxBytes(pub Option<u64>);

impl Default for MaxBytes {
    fn default() -> Self {
        MaxBytes(Some(DEFAULT_MAX_BYTES))
    }
}

/// Parses `--trace-max-bytes`: `none`, or a number of bytes of at least [`MIN_MAX_BYTES`].
pub fn parse_max_bytes(s: &str) -> Result<MaxBytes, String> {
    if s.trim() == "none" {
        return Ok(MaxBytes(None));
    }
    let n = q7_conventions::number::parse_u64(s)?;
    if n < MIN_MAX_BYTES {
        return Err(format!(
            "{n} bytes: a trace cap is at least {MIN_MAX_BYTES} bytes (the header lines and the notice of a truncated trace must fit), or `none` for no cap"
        ));
    }
    Ok(MaxBytes(Some(n)))
}

/// Which instructions `--trace-pc` or `--trace-fn` select.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PcSelect {
    /// `LO..HI`: LO ≤ PC < HI.
    Range(u32, u32),
    /// The instructions of the function of this name (resolved in each core's symbols).
    Function(String),
}

/// What `--trace-dir` and its filters ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceSpec {
    /// The directory of the trace files.
    pub dir: PathBuf,
    /// The cores traced (all of the library's when `None`).
    pub cores: Option<Vec<u32>>,
    /// The PCs traced (all when `None`).
    pub pc: Option<PcSelect>,
    /// `[A, B)` of the cycles traced (all when `None`).
    pub cycles: Option<(u64, u64)>,
    /// Most bytes of each traced core's two files together (`--trace-max-bytes`).
    pub max_bytes: MaxBytes,
}

/// What `--timeline` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimelineSpec {
    /// The timeline file.
    pub path: PathBuf,
    /// Most events of each core's timeline (`--timeline-max-events`).
    pub max_events: MaxEvents,
}

/// What a run observes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObserveSpec {
    /// Instruction traces.
    pub trace: Option<TraceSpec>,
    /// The timeline.
    pub timeline: Option<TimelineSpec>,
    /// Checked mode (`--check`, docs/checked-mode.md).
    pub check: bool,
    /// The cycle profile (`--profile`, docs/profiling.md).
    pub profile: Option<ProfileSpec>,
}

impl ObserveSpec {
    /// Whether anything is observed.
    pub fn any(&self) -> bool {
        self.trace.is_some() || self.timeline.is_some() || self.check || self.profile.is_some()
    }
}

/// Why observing failed, naming what and where.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// A trace or timeline file or directory could not be made or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `--trace-cores` names a core the library does not run on.
    #[error("--trace-cores {core}: the library runs on core(s) 0..{}", cores - 1)]
    Core {
        /// The core named.
        core: u32,
        /// The library's cores.
        cores: u32,
    },
    /// `--trace-fn` with no symbols to resolve it.
    #[error("--trace-fn {name}: the build directory has no unstripped images to resolve it (build it again with `q7emu build`, which keeps them)")]
    NoSymbols {
        /// The name.
        name: String,
    },
    /// `--trace-fn` names no function of a traced core's image.
    #[error("--trace-fn {name}: core {core}'s image has no function of that name")]
    UnknownFunction {
        /// The name.
        name: String,
        /// The core.
        core: u32,
    },
    /// `--trace-fn` names more than one function.
    #[error("--trace-fn {name}: core {core}'s image has {} functions of that name ({}); give the whole name", candidates.len(), candidates.join(", "))]
    Ambiguous {
        /// The name.
        name: String,
        /// The core.
        core: u32,
        /// The demangled names it matches.
        candidates: Vec<String>,
    },
    /// The profile could not be written.
    #[error(transparent)]
    Profile(#[from] crate::profile::ProfileError),
    /// The timeline does not serialise.
    #[error("{}: {source}", path.display())]
    Json {
        /// The timeline file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
}

impl From<WriteError> for TraceError {
    fn from(e: WriteError) -> TraceError {
        TraceError::Io {
            path: e.path,
            source: e.source,
        }
    }
}

/// What the instruction traces of a run hold, once written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceSummary {
    /// The files of each traced core.
    pub files: Vec<CoreFiles>,
    /// Events (instructions and exceptions) kept, over all cores.
    pub kept: u64,
    /// The cores whose trace reached its cap, with the cycle at which it did.
    pub truncated: Vec<(u32, u64)>,
}

/// What the timeline of a run holds, once written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimelineSummary {
    /// Its file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its events.
    pub counts: timeline::Counts,
    /// The cores whose timeline reached its cap.
    pub truncated: Vec<Truncation>,
}

/// What a run observed, once written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The instruction traces.
    pub trace: Option<TraceSummary>,
    /// The timeline.
    pub timeline: Option<TimelineSummary>,
    /// Checked mode's findings, when the run was checked.
    pub check: Option<Vec<crate::check::finding::Finding>>,
    /// The profile, when the run was profiled.
    pub profile: Option<ProfileSummary>,
}

/// The instruction traces of a run.
#[derive(Debug)]
struct InsnTraces {
    /// By core: its filter, when traced.
    filters: Vec<Option<CoreFilter>>,
    /// By core: whether its files have their header.
    headed: Vec<AtomicBool>,
    /// By core: its cap and the bytes used, between its calls.
    caps: Vec<Mutex<CoreCap>>,
    writer: Mutex<Option<Writer>>,
    /// A sender kept for making tracers (taken when the traces are finished).
    tx: Mutex<Option<crossbeam_channel::Sender<writer::Chunk>>>,
    kept: AtomicU64,
}

/// The observer of one run: made from an [`ObserveSpec`] for a library's images, it makes each
/// core's tracer, takes it back when the core stops, and writes everything at the end.
#[derive(Debug)]
pub struct Observer {
    names: RegisterNames,
    /// By core: the symbols of its image (empty without the unstripped image).
    symbols: Vec<Symbols>,
    /// By core: its image's file name.
    images: Vec<String>,
    insn: Option<InsnTraces>,
    /// The timeline: its path, what it records, and the file it goes to (taken when written).
    timeline: Option<(PathBuf, Mutex<Timeline>, Mutex<Option<AtomicFile>>)>,
    /// Checked mode.
    check: Option<Checker>,
    /// The cycle profile.
    profile: Option<Profiler>,
}

/// Locks `m`, whether or not a thread panicked holding it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The PC range of `--trace-fn name` in `symbols` of `core`.
fn resolve(symbols: &Symbols, name: &str, core: u32) -> Result<(u32, u32), TraceError> {
    let found = symbols.find(name);
    match found.as_slice() {
        [] => Err(TraceError::UnknownFunction {
            name: name.to_string(),
            core,
        }),
        [(lo, hi, _)] => Ok((*lo, *hi)),
        many => Err(TraceError::Ambiguous {
            name: name.to_string(),
            core,
            candidates: many.iter().map(|f| f.2.to_string()).collect(),
        }),
    }
}

impl Observer {
    /// The observer `spec` asks for, for a library whose core `i` runs image `images[i]` with
    /// symbols `symbols[i]` (a multicore library when `multicore`): resolves `--trace-fn` in
    /// each traced core's symbols and creates the trace files.
    pub fn new(
        spec: &ObserveSpec,
        symbols: Vec<Symbols>,
        images: Vec<String>,
        multicore: bool,
    ) -> Result<Observer, TraceError> {
        let cores = images.len() as u32;
        let insn = match &spec.trace {
            None => None,
            Some(t) => {
                let traced: Vec<u32> = match &t.cores {
                    None => (0..cores).collect(),
                    Some(list) => {
                        if let Some(&core) = list.iter().find(|&&c| c >= cores) {
                            return Err(TraceError::Core { core, cores });
                        }
                        let mut list = list.clone();
                        list.sort_unstable();
                        list.dedup();
                        list
                    }
                };
                let mut filters = vec![None; cores as usize];
                for &core in &traced {
                    let pc = match &t.pc {
                        None => None,
                        Some(PcSelect::Range(lo, hi)) => Some((*lo, *hi)),
                        Some(PcSelect::Function(name)) => {
                            let syms = &symbols[core as usize];
                            if syms.is_empty() {
                                return Err(TraceError::NoSymbols { name: name.clone() });
                            }
                            Some(resolve(syms, name, core)?)
                        }
                    };
                    filters[core as usize] = Some(CoreFilter {
                        pc,
                        cycles: t.cycles,
                    });
                }
                let writer = Writer::start(&t.dir, &traced)?;
                Some(InsnTraces {
                    filters,
                    headed: (0..cores).map(|_| AtomicBool::new(false)).collect(),
                    caps: (0..cores)
                        .map(|_| Mutex::new(CoreCap::new(t.max_bytes.0)))
                        .collect(),
                    tx: Mutex::new(Some(writer.sender())),
                    writer: Mutex::new(Some(writer)),
                    kept: AtomicU64::new(0),
                })
            }
        };
        let timeline = match &spec.timeline {
            None => None,
            Some(t) => {
                // Started now (a temporary file beside it), so that a path that cannot be
                // written fails before the run; renamed over it once written whole.
                let file = AtomicFile::create(&t.path).map_err(TraceError::from)?;
                let has = symbols.iter().map(|s| !s.is_empty()).collect();
                Some((
                    t.path.clone(),
                    Mutex::new(Timeline::new(images.clone(), has, t.max_events)),
                    Mutex::new(Some(file)),
                ))
            }
        };
        let check = spec
            .check
            .then(|| Checker::new(cores as usize, multicore, &symbols));
        let profile = match &spec.profile {
            None => None,
            Some(p) => Some(Profiler::new(p, cores as usize)?),
        };
        Ok(Observer {
            names: RegisterNames::of(&q7_isa::NCORE2GP),
            symbols,
            images,
            insn,
            timeline,
            check,
            profile,
        })
    }

    /// Whether the profile is all the run observes (its cores then run with the profile's
    /// own tracer, [`ProfileTracer`]).
    fn profile_only(&self) -> bool {
        self.insn.is_none() && self.timeline.is_none() && self.check.is_none()
    }

    /// The checker, when the run is checked.
    pub fn checker(&self) -> Option<&Checker> {
        self.check.as_ref()
    }

    /// Makes the cores' devices keep the records the timeline reads (annotation-port events,
    /// SDMA transfers, MEM_WINDOW writes), within each core's cap; call before anything runs.
    /// Nothing without a timeline.
    pub fn attach(&self, cores: &mut [Core<PlatformBus>]) {
        if let Some(c) = &self.check {
            c.attach(cores);
        }
        if let Some((_, tl, _)) = &self.timeline {
            let tl = lock(tl);
            for c in cores {
                let room = tl.room(c.bus.prid());
                timeline::record(&mut c.bus, room);
            }
        }
    }

    fn symbols(&self, core: u32) -> &Symbols {
        static NONE: std::sync::OnceLock<Symbols> = std::sync::OnceLock::new();
        self.symbols
            .get(core as usize)
            .unwrap_or_else(|| NONE.get_or_init(Symbols::default))
    }

    /// The tracer of `core` for the firmware call `what` it is about to run.
    pub fn tracer(&self, core: &Core<PlatformBus>, what: &str) -> CoreTracer<'_> {
        let prid = core.bus.prid();
        let cycle = core.stats.cycles;
        let insn = self.insn.as_ref().and_then(|t| {
            let filter = (*t.filters.get(prid as usize)?)?;
            let tx = t.tx.lock().unwrap_or_else(|p| p.into_inner()).clone()?;
            let first = !t.headed[prid as usize].swap(true, Ordering::Relaxed);
            let image = first.then(|| self.images[prid as usize].as_str());
            let cap = *t.caps[prid as usize]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let mut sink = Sink::new(
                prid,
                filter,
                self.symbols(prid),
                &self.names,
                tx,
                &core.state,
                cap,
            );
            sink.start(image, what, cycle);
            Some(sink)
        });
        let timeline = self.timeline.as_ref().map(|(_, tl, _)| {
            let tl = lock(tl);
            CoreTimeline::new(prid, what, cycle, tl.has_symbols(prid), tl.room(prid))
        });
        let check = self.check.as_ref().map(|c| c.tracer(core, what));
        let profile = self.profile.as_ref().and_then(|p| p.tracer(core, what));
        CoreTracer {
            insn,
            timeline,
            check,
            profile,
        }
    }

    /// `core` stopped with `stop` running the call `tracer` was made for.
    pub fn finish(&self, tracer: CoreTracer<'_>, stop: &Stop, core: &mut Core<PlatformBus>) {
        let cycle = core.stats.cycles;
        if let (Some(sink), Some(t)) = (tracer.insn, &self.insn) {
            let prid = core.bus.prid() as usize;
            let (kept, cap) = sink.stop(stop, cycle);
            t.kept.fetch_add(kept, Ordering::Relaxed);
            *t.caps[prid].lock().unwrap_or_else(|p| p.into_inner()) = cap;
        }
        if let (Some(cc), Some(c)) = (tracer.check, &self.check) {
            c.finish(cc);
        }
        if let (Some(cp), Some(p)) = (tracer.profile, &self.profile) {
            p.finish(cp, core);
        }
        if let (Some(ct), Some((_, tl, _))) = (tracer.timeline, &self.timeline) {
            let done = ct.finish(stop, cycle, &mut core.bus);
            lock(tl).add(done);
        }
    }

    /// Writes what is left once every tracer is back: waits for the trace writer, writes the
    /// timeline file. Says on stderr which cores' traces ([`truncation_note`]) and timelines
    /// ([`timeline_note`]) reached their cap, whether the run succeeded or not.
    pub fn close(&self) -> Result<Summary, TraceError> {
        let mut summary = Summary {
            check: self.check.as_ref().map(|c| c.findings(&self.symbols)),
            ..Summary::default()
        };
        if let Some(t) = &self.insn {
            drop(t.tx.lock().unwrap_or_else(|p| p.into_inner()).take());
            let writer = t.writer.lock().unwrap_or_else(|p| p.into_inner()).take();
            let caps: Vec<CoreCap> = t
                .caps
                .iter()
                .map(|c| *c.lock().unwrap_or_else(|p| p.into_inner()))
                .collect();
            let truncated: Vec<(u32, u64)> = caps
                .iter()
                .enumerate()
                .filter_map(|(core, c)| Some((core as u32, c.truncated?)))
                .collect();
            for &(core, cycle) in &truncated {
                let limit = caps[core as usize].limit.unwrap_or(0);
                eprintln!("{}", truncation_note(core, cycle, limit));
            }
            if let Some(w) = writer {
                summary.trace = Some(TraceSummary {
                    files: w.finish()?,
                    kept: t.kept.load(Ordering::Relaxed),
                    truncated,
                });
            }
        }
        if let Some(p) = &self.profile {
            summary.profile = Some(p.close(&self.symbols, &self.images)?);
        }
        if let Some((path, tl, file)) = &self.timeline {
            let file = lock(file).take();
            if let Some(file) = file {
                let mut tl = lock(tl);
                for f in summary.check.iter().flatten() {
                    for s in &f.sites {
                        let name = format!("{}[{}]", f.class.name(), f.kind.info().name);
                        let args = serde_json::json!({
                            "message": f.message,
                            "cores": f.cores,
                            "count": f.count,
                            "pc": format!("{:#010x}", s.pc),
                            "function": s.function,
                            "cycle": s.cycle,
                        });
                        tl.finding(s.core, s.cycle, name, args);
                    }
                }
                let truncated = tl.truncations();
                for t in &truncated {
                    eprintln!("{}", timeline_note(t));
                }
                let (bytes, counts) = tl.write(file, &self.symbols)?;
                summary.timeline = Some(TimelineSummary {
                    path: path.clone(),
                    bytes,
                    counts,
                    truncated,
                });
            }
        }
        Ok(summary)
    }
}

/// The runtime's side of the observer: the firmware runs each call's cores through it.
impl q7_runtime::observer::Observer for Observer {
    fn run_cores(
        &self,
        cluster: &mut Cluster,
        cores: &[usize],
        threads: usize,
        budget: u64,
        what: &str,
    ) -> Vec<Stop> {
        if let (Some(profiler), true) = (&self.profile, self.profile_only()) {
            if !crate::profile::is_dispatch(what) {
                // A call the profile does not record (the runtime's start symbol, a library's
                // load) runs as a plain run's does, compiled hot code included.
                return cluster
                    .run_subset::<NoTrace>(cores, threads, budget)
                    .into_iter()
                    .map(|(stop, _)| stop)
                    .collect();
            }
            let results = cluster.run_subset_with(cores, threads, budget, |c| {
                ProfileTracer(profiler.recorder(c))
            });
            return results
                .into_iter()
                .zip(cores)
                .map(|((stop, tracer), &core)| {
                    profiler.finish(tracer.0, &cluster.cores[core]);
                    stop
                })
                .collect();
        }
        let results = cluster.run_subset_with(cores, threads, budget, |c| self.tracer(c, what));
        results
            .into_iter()
            .zip(cores)
            .map(|((stop, tracer), &core)| {
                self.finish(tracer, &stop, &mut cluster.cores[core]);
                stop
            })
            .collect()
    }

    fn image_pull(&self, core: u32, start: u64, end: u64, bytes: u32) {
        if let Some((_, tl, _)) = &self.timeline {
            lock(tl).image_pull(core, start, end, bytes);
        }
    }

    fn dispatch_hook<'a>(
        &'a self,
        cores: &[&Core<PlatformBus>],
        what: &str,
    ) -> Option<Box<dyn DispatchHook + 'a>> {
        let check = self.check.as_ref().map(|c| DebugHook::new(c, cores, what));
        let profile = self.profile.as_ref().map(|p| {
            let recorders = cores
                .iter()
                .filter_map(|c| Some((c.bus.prid(), ProfileTracer(p.tracer(c, what)?))))
                .collect();
            (p, recorders)
        });
        if check.is_none() && profile.is_none() {
            return None;
        }
        Some(Box::new(DebuggedDispatch { check, profile }))
    }
}

/// What observes a dispatch served to the debugger (`--gdb`), fed by the debugger's stepping
/// loop with the events a plain run's tracers get: checked mode's checks, which stop a core at
/// its first error (docs/gdb.md "Checked mode"), and each core's [`ProfileTracer`], the
/// recorder a profiled plain run gives the core, so that a debugged dispatch's profile is the
/// plain run's (docs/profiling.md "Attribution").
#[derive(Debug)]
struct DebuggedDispatch<'a> {
    check: Option<DebugHook<'a>>,
    /// The profiler and, by PRID, each debugged core's recorder.
    profile: Option<(&'a Profiler, BTreeMap<u32, ProfileTracer>)>,
}

impl StopHook for DebuggedDispatch<'_> {
    fn event(&mut self, core: u32, event: Event<'_>) -> Option<HookStop> {
        if let Some(recorder) = self.profile.as_mut().and_then(|(_, r)| r.get_mut(&core)) {
            recorder.event(event);
        }
        self.check.as_mut()?.event(core, event)
    }
}

impl DispatchHook for DebuggedDispatch<'_> {
    fn finish(self: Box<Self>, cores: &[&Core<PlatformBus>]) {
        let DebuggedDispatch { check, profile } = *self;
        if let Some(check) = check {
            check.finish();
        }
        if let Some((profiler, mut recorders)) = profile {
            for core in cores {
                if let Some(ProfileTracer(p)) = recorders.remove(&core.bus.prid()) {
                    profiler.finish(p, core);
                }
            }
        }
    }
}

/// The line on stderr saying that a core's timeline reached its cap.
pub fn timeline_note(t: &Truncation) -> String {
    format!(
        "q7emu: timeline of core {} truncated at cycle {}: it reached the cap of {} events \
         ({} more left out; --timeline-max-events N or none)",
        t.core, t.cycle, t.cap, t.dropped
    )
}

/// The line on stderr saying that `core`'s trace reached its cap of `limit` bytes at `cycle`.
pub fn truncation_note(core: u32, cycle: u64, limit: u64) -> String {
    format!(
        "q7emu: trace of core {core} truncated at cycle {cycle}: its two files reached the cap of \
         {limit} bytes (--trace-max-bytes BYTES or none; --trace-cores, --trace-pc, --trace-fn \
         and --trace-cycles narrow a trace)"
    )
}

/// One core's tracer for a dispatch of a run that only profiles: the profile's recorder alone
/// (the run's other firmware calls need none), asking for no `Before` events, which it does
/// not need.
#[derive(Debug)]
pub struct ProfileTracer(CoreProfile);

impl Tracer for ProfileTracer {
    const ENABLED: bool = true;
    const BEFORE: bool = false;
    const HBM_ADDRESSES: bool = false;

    #[inline(always)]
    fn event(&mut self, e: Event<'_>) {
        self.0.event(e);
    }
}

/// One core's tracer for one firmware call: feeds its instruction trace and its timeline.
#[derive(Debug)]
pub struct CoreTracer<'a> {
    insn: Option<Sink<'a>>,
    timeline: Option<CoreTimeline>,
    check: Option<CoreCheck>,
    profile: Option<CoreProfile>,
}

impl Tracer for CoreTracer<'_> {
    const ENABLED: bool = true;

    /// Inlined into the core's loop, which calls it twice per instruction: each observer's
    /// work is a call of its own, made only when the observer is on.
    #[inline(always)]
    fn event(&mut self, e: Event<'_>) {
        if let Some(p) = &mut self.profile {
            p.event(e);
        }
        match e {
            Event::Before { state, insn, cycle } => {
                if let Some(s) = &mut self.insn {
                    s.before(state, insn, cycle);
                }
            }
            Event::After {
                pc,
                next,
                insn,
                state,
                cycle,
                accesses,
                ..
            } => {
                if let Some(s) = &mut self.insn {
                    s.after(state, cycle, accesses);
                }
                if let Some(c) = &mut self.check {
                    if !accesses.is_empty() {
                        c.after(pc, insn, state, accesses, cycle);
                    }
                }
                if let Some(t) = &mut self.timeline {
                    t.after(next, insn, cycle);
                }
            }
            Event::Exception {
                vector,
                pc,
                state,
                cycle,
                ..
            } => self.exception(vector, pc, state, cycle),
        }
    }
}

impl CoreTracer<'_> {
    #[cold]
    fn exception(
        &mut self,
        vector: q7_emulator::Vector,
        pc: u32,
        state: &q7_emulator::CoreState,
        cycle: u64,
    ) {
        if let Some(s) = &mut self.insn {
            s.exception(vector, state, cycle);
        }
        if let Some(t) = &mut self.timeline {
            t.exception(vector, pc, state, cycle);
        }
    }
}
