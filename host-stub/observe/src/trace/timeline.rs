//! The run's timeline (`--timeline FILE.json`, docs/tracing.md "Timeline"): Chrome
//! trace-event JSON, which Perfetto and `chrome://tracing` open. One process, the cluster; per
//! core a track of its firmware calls with the kernel's phases inside and instants for what its
//! runtime reports, exceptions and translate-window programming; a track of its function calls
//! when its image has symbols; a track per SDMA queue with each transfer. Timestamps are the
//! core's own cycle count from its boot, converted at the clock of PLATFORM.md "Cores".
//!
//! Each core's timeline keeps at most a cap of events (`--timeline-max-events`,
//! [`DEFAULT_MAX_EVENTS`]; docs/tracing.md "Timeline", "Cap"): past it the core's records are
//! cut at one cycle, marked by a `timeline truncated` instant, and no more are kept. The file
//! is written event by event, at most one call's events of a core's track in memory.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use q7_emulator::platform::map::{self, queue, CLOCK_HZ};
use q7_emulator::platform::mem_window::WindowEvent;
use q7_emulator::platform::recording::{Record, Recording};
use q7_emulator::platform::sdma::{self, TransferRecord};
use q7_emulator::platform::trace_port::{self, code, RuntimeEvent};
use q7_emulator::platform::PlatformBus;
use q7_emulator::predecode::{Frame, Op};
use q7_emulator::{CoreState, Stop, Vector};
use q7_isa::sreg::sr;
use serde::Serialize;
use serde_json::{json, Value};

use super::TraceError;
use q7_conventions::output::AtomicFile;
use q7_symbols::Symbols;

/// The `otherData.format` of the file.
pub const FORMAT: &str = "q7emu-timeline";
/// The `otherData.version` of the file.
pub const FORMAT_VERSION: u32 = 1;
/// The one process: the cluster.
pub const PID: u32 = 0;

/// The cap of each core's timeline unless `--timeline-max-events` says otherwise: 200,000
/// events (docs/tracing.md "Timeline", "Cap"). The 8-core ReLU's kernel is 140 events a core,
/// so whole runs of small kernels fit many times over; what the cap stops is a kernel that
/// loops, whose function spans grow by an event every 50 cycles or so, some 40 million in the
/// default cycle budget of a call. At the cap a core's records take some 10 MB and its events
/// some 20 MB of the file, and eight capped cores make a file Perfetto still opens.
pub const DEFAULT_MAX_EVENTS: u64 = 200_000;
/// The smallest cap `--timeline-max-events` takes: below it a timeline would hold too little of
/// a kernel to read (the 8-core ReLU's is 140 events a core), so a smaller number is taken for
/// a slip.
pub const MIN_MAX_EVENTS: u64 = 100;

/// `--timeline-max-events`: a cap of at least [`MIN_MAX_EVENTS`] events per core (decimal or
/// `0x` hex), or `none` for no cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxEvents(pub Option<u64>);

impl Default for MaxEvents {
    fn default() -> Self {
        MaxEvents(Some(DEFAULT_MAX_EVENTS))
    }
}

/// Parses `--timeline-max-events`: `none`, or a number of events of at least
/// [`MIN_MAX_EVENTS`].
pub fn parse_max_events(s: &str) -> Result<MaxEvents, String> {
    if s.trim() == "none" {
        return Ok(MaxEvents(None));
    }
    let n = q7_conventions::number::parse_u64(s)?;
    if n < MIN_MAX_EVENTS {
        return Err(format!(
            "{n} events: a timeline cap is at least {MIN_MAX_EVENTS} events per core, or `none` for no cap"
        ));
    }
    Ok(MaxEvents(Some(n)))
}

/// The track numbers (`tid`) of a core's tracks, and their display order.
pub mod track {
    /// The core: its firmware calls, phases and instants.
    pub fn core(core: u32) -> u32 {
        core
    }
    /// Its function calls.
    pub fn functions(core: u32) -> u32 {
        100 + core
    }
    /// Its SDMA queue `queue`.
    pub fn sdma(core: u32, queue: u32) -> u32 {
        200 + 2 * core + queue
    }
    /// Where the track with `tid` sorts: each core's tracks together, in the order above.
    pub fn sort_index(tid: u32) -> u32 {
        match tid {
            0..100 => 10 * tid,
            100..200 => 10 * (tid - 100) + 1,
            _ => 10 * ((tid - 200) / 2) + 2 + (tid - 200) % 2,
        }
    }
}

/// Microseconds (the format's unit) of `cycle` at [`CLOCK_HZ`].
pub fn micros(cycle: u64) -> f64 {
    cycle as f64 * 1e6 / CLOCK_HZ as f64
}

/// Makes a core's devices keep the records the timeline reads (annotation-port events, SDMA
/// transfers, MEM_WINDOW writes), `room` events' worth of them (`None`: no limit); recording
/// changes no cycle.
pub fn record(bus: &mut PlatformBus, room: Option<u64>) {
    bus.recording = Recording::with_room(room);
}

/// A span begins or ends on the function track: the address called (the function the span is
/// named after, resolved when the file is written) and the cycle.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mark {
    Begin(u32, u64),
    End(u32, u64),
}

impl Record for Mark {
    fn cycle(&self) -> u64 {
        match *self {
            Mark::Begin(_, c) | Mark::End(_, c) => c,
        }
    }
    /// Its B or E.
    fn weight(&self) -> u64 {
        1
    }
}

/// An instant seen by the tracer: an exception delivered.
#[derive(Debug, Clone)]
struct Raised {
    cycle: u64,
    vector: Vector,
    pc: u32,
    cause: Option<u32>,
}

impl Record for Raised {
    fn cycle(&self) -> u64 {
        self.cycle
    }
    /// Its instant.
    fn weight(&self) -> u64 {
        1
    }
}

/// One core's timeline of one firmware call while it runs: its function spans, from the calls
/// and returns it executes (only with symbols), and the exceptions delivered, kept within the
/// core's room like its devices' records (their lists and these two may each hold the room).
#[derive(Debug)]
pub struct CoreTimeline {
    core: u32,
    what: String,
    start: u64,
    /// Whether the core's image has symbols (then calls and returns make spans).
    functions: bool,
    /// The core's room when the call began.
    room: Option<u64>,
    /// The room of the spans and exceptions.
    rec: Recording,
    /// The addresses called and not yet returned from whose begin is kept, innermost last.
    open: Vec<u32>,
    /// Calls not returned from whose begin was not kept (they are inside those of `open`).
    hidden: u64,
    marks: Vec<Mark>,
    raised: Vec<Raised>,
}

/// What one firmware call of one core did, once it ended.
#[derive(Debug, Clone)]
struct Call {
    what: String,
    start: u64,
    end: u64,
    stop: Option<String>,
    marks: Vec<Mark>,
    raised: Vec<Raised>,
    port: Vec<RuntimeEvent>,
    transfers: Vec<TransferRecord>,
    windows: Vec<WindowEvent>,
    /// The cycle the core's timeline was cut at, when it was in this call.
    cut: Option<u64>,
    /// Events of this call not kept.
    dropped: u64,
}

impl Call {
    /// The events its records count for (closing events of spans left open not included).
    fn weight(&self) -> u64 {
        fn sum<T: Record>(list: &[T]) -> u64 {
            list.iter().map(Record::weight).sum()
        }
        sum(&self.marks)
            + sum(&self.raised)
            + sum(&self.port)
            + sum(&self.transfers)
            + sum(&self.windows)
    }

    /// The cycle to cut at so that the records before it count at most `room` events and none
    /// was refused before it (`lost`: the first refused, if any): the first cycle at which
    /// the records up to it pass `room`, or `lost` if earlier.
    fn cutoff(&self, room: u64, lost: Option<u64>) -> u64 {
        fn add<T: Record>(all: &mut Vec<(u64, u64)>, list: &[T]) {
            all.extend(list.iter().map(|r| (r.cycle(), r.weight())));
        }
        let mut all = Vec::new();
        add(&mut all, &self.marks);
        add(&mut all, &self.raised);
        add(&mut all, &self.port);
        add(&mut all, &self.transfers);
        add(&mut all, &self.windows);
        all.sort_unstable();
        let mut sum = 0;
        let over = all.into_iter().find_map(|(cycle, weight)| {
            sum += weight;
            (sum > room).then_some(cycle)
        });
        match (over, lost) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(self.end),
        }
    }

    /// Keeps only the records before `cycle`.
    fn keep_before(&mut self, cycle: u64) {
        fn cut<T: Record>(list: &mut Vec<T>, cycle: u64) {
            list.retain(|r| r.cycle() < cycle);
        }
        cut(&mut self.marks, cycle);
        cut(&mut self.raised, cycle);
        cut(&mut self.port, cycle);
        cut(&mut self.transfers, cycle);
        cut(&mut self.windows, cycle);
    }
}

impl CoreTimeline {
    /// The timeline of `core`'s call `what` from `start`, with function spans when its image
    /// has symbols (`functions`), within the core's `room` (`None`: no cap).
    pub fn new(
        core: u32,
        what: &str,
        start: u64,
        functions: bool,
        room: Option<u64>,
    ) -> CoreTimeline {
        CoreTimeline {
            core,
            what: what.to_string(),
            start,
            functions,
            room,
            rec: Recording::with_room(room),
            open: Vec::new(),
            hidden: 0,
            marks: Vec::new(),
            raised: Vec::new(),
        }
    }

    /// The instruction `insn` completed at `cycle`, continuing at `next`: a call opens a span
    /// named after the function at `next`, a return closes the innermost one.
    #[inline]
    pub fn after(&mut self, next: u32, insn: &Op, cycle: u64) {
        if !self.functions {
            return;
        }
        match insn.frame {
            Frame::Call => {
                if self.rec.admit(cycle, 1) {
                    self.marks.push(Mark::Begin(next, cycle));
                    self.open.push(next);
                } else {
                    self.hidden += 1;
                }
            }
            Frame::Return => {
                if self.hidden > 0 {
                    // Its span's begin was not kept: counted as dropped.
                    self.hidden -= 1;
                    self.rec.admit(cycle, 1);
                } else if let Some(target) = self.open.pop() {
                    if self.rec.admit(cycle, 1) {
                        self.marks.push(Mark::End(target, cycle));
                    }
                }
            }
            _ => {}
        }
    }

    /// An exception was delivered through `vector` for the instruction at `pc`.
    pub fn exception(&mut self, vector: Vector, pc: u32, state: &CoreState, cycle: u64) {
        let raised = Raised {
            cycle,
            vector,
            pc,
            cause: vector.window().is_none().then(|| state.sr(sr::EXCCAUSE)),
        };
        self.rec.keep(&mut self.raised, raised);
    }

    /// The call ended with `stop` at `end`: takes the records of the core's devices since the
    /// call began and, if they and the spans and exceptions count more events than the core's
    /// room or some did not fit, cuts them all at one cycle ([`Call::cutoff`]); closes the
    /// function spans still open (at the end, or at the cut); gives the devices the room left
    /// for the next call (none after a cut).
    pub(super) fn finish(self, stop: &Stop, end: u64, bus: &mut PlatformBus) -> (u32, CallEnd) {
        let devices = bus.recording;
        let mut call = Call {
            what: self.what,
            start: self.start,
            end,
            stop: match stop {
                Stop::Exited(_) => None,
                Stop::Fault(r) => Some(r.kind.to_string()),
            },
            marks: self.marks,
            raised: self.raised,
            port: std::mem::take(&mut bus.trace.events),
            transfers: std::mem::take(&mut bus.sdma.transfers),
            windows: std::mem::take(&mut bus.windows.log),
            cut: None,
            dropped: 0,
        };
        let lost = self.rec.dropped + devices.dropped;
        let first_lost = [self.rec.first_dropped, devices.first_dropped]
            .into_iter()
            .flatten()
            .min();
        let total = call.weight();
        let (room, open) = match self.room {
            Some(room) if lost > 0 || total > room => {
                let cutoff = call.cutoff(room, first_lost);
                call.keep_before(cutoff);
                call.dropped = total - call.weight() + lost;
                call.cut = Some(cutoff);
                // The spans open at the cut, from the begins and ends kept.
                let mut open = Vec::new();
                for m in &call.marks {
                    match *m {
                        Mark::Begin(target, _) => open.push(target),
                        Mark::End(..) => {
                            open.pop();
                        }
                    }
                }
                (Some(0), open)
            }
            room => (room.map(|r| r - total), self.open),
        };
        let at = call.cut.unwrap_or(end);
        call.marks
            .extend(open.into_iter().rev().map(|target| Mark::End(target, at)));
        record(bus, room);
        (self.core, CallEnd { call, room })
    }
}

/// A finished call, for [`Timeline::add`], and the room its core has left.
#[derive(Debug)]
pub struct CallEnd {
    call: Call,
    room: Option<u64>,
}

/// What happened on one core, in the order it happened.
#[derive(Debug, Clone)]
enum Segment {
    /// The firmware pulled an image into the core's window.
    Pull { start: u64, end: u64, bytes: u32 },
    /// A firmware call.
    Call(Call),
}

/// How many events of each kind a timeline holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Every event of `traceEvents`.
    pub events: u64,
    /// By `ph`.
    pub by_phase: BTreeMap<String, u64>,
    /// By `cat` (metadata has none).
    pub by_category: BTreeMap<String, u64>,
}

impl Counts {
    fn count(&mut self, e: &Ev) {
        self.events += 1;
        *self.by_phase.entry(e.ph.to_string()).or_default() += 1;
        if let Some(cat) = e.cat {
            *self.by_category.entry(cat.to_string()).or_default() += 1;
        }
    }
}

/// A core whose timeline reached its cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncation {
    /// The core.
    pub core: u32,
    /// The cycle its records were cut at: none at or after it is in the file.
    pub cycle: u64,
    /// The cap, in events.
    pub cap: u64,
    /// The events of its records the file does not have, over the whole run.
    pub dropped: u64,
}

/// The cut of a core's timeline: its cycle and the events dropped.
#[derive(Debug, Clone, Copy)]
struct Cut {
    cycle: u64,
    dropped: u64,
}

/// The timeline of a run, collected as the cores' calls end.
#[derive(Debug)]
pub struct Timeline {
    /// By core: what happened on it.
    cores: Vec<Vec<Segment>>,
    /// By core: whether its image has symbols (it then has a function track).
    symbols: Vec<bool>,
    /// By core: its image.
    images: Vec<String>,
    /// The cap of each core, in events.
    cap: Option<u64>,
    /// By core: the events it may still keep.
    room: Vec<Option<u64>>,
    /// By core: where its timeline was cut, once it was.
    cuts: Vec<Option<Cut>>,
    /// By core: checked mode's findings, as instants (category `check`).
    findings: Vec<Vec<Ev>>,
}

/// One trace event (the JSON object format's `traceEvents` entries). Its fields are in the
/// order of their names, as the file has always had them.
#[derive(Debug, Clone, Serialize)]
struct Ev {
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    name: String,
    ph: &'static str,
    pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    tid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
}

impl Ev {
    fn new(
        name: impl Into<String>,
        cat: &'static str,
        ph: &'static str,
        tid: u32,
        cycle: u64,
    ) -> Ev {
        Ev {
            name: name.into(),
            cat: Some(cat),
            ph,
            ts: Some(micros(cycle)),
            dur: None,
            pid: PID,
            tid,
            s: None,
            id: None,
            bp: None,
            args: None,
        }
    }

    fn args(mut self, args: Value) -> Ev {
        self.args = Some(args);
        self
    }

    /// An instant on its track.
    fn instant(name: impl Into<String>, cat: &'static str, tid: u32, cycle: u64) -> Ev {
        let mut e = Ev::new(name, cat, "i", tid, cycle);
        e.s = Some("t");
        e
    }

    fn metadata(name: &'static str, tid: u32, args: Value) -> Ev {
        Ev {
            name: name.to_string(),
            cat: None,
            ph: "M",
            ts: None,
            dur: None,
            pid: PID,
            tid,
            s: None,
            id: None,
            bp: None,
            args: Some(args),
        }
    }
}

/// `addr` as `0x%x`.
fn hex(addr: u64) -> String {
    format!("{addr:#x}")
}

/// A 64-bit address from an event's low and high words.
fn addr64(lo: u32, hi: u32) -> u64 {
    u64::from(lo) | u64::from(hi) << 32
}

/// The name of the span of a call to `target`: the function there, `function+0xoff` inside
/// one, the address outside every function.
fn span_name(symbols: &Symbols, target: u32) -> String {
    match symbols.function(target) {
        Some((start, name)) if start == target => name.to_string(),
        Some((start, name)) => format!("{name}+{:#x}", target - start),
        None => format!("{target:#010x}"),
    }
}

/// The events of one call on its core's track, ordered: the call's begin first, its end last,
/// everything else by cycle in between (ties in the order of `body`).
struct Ordered {
    open: Ev,
    body: Vec<(u64, Ev)>,
    close: Vec<Ev>,
}

impl Ordered {
    fn events(mut self) -> impl Iterator<Item = Ev> {
        self.body.sort_by_key(|(cycle, _)| *cycle);
        std::iter::once(self.open)
            .chain(self.body.into_iter().map(|(_, e)| e))
            .chain(self.close)
    }
}

/// A writer counting the bytes written through it.
struct Counted<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The `traceEvents` array being written: its events, comma-separated, counted.
struct Events<'w, W> {
    out: &'w mut Counted<W>,
    counts: Counts,
    first: bool,
}

impl<W: Write> Events<'_, W> {
    fn push(&mut self, e: &Ev) -> Result<(), serde_json::Error> {
        if !std::mem::take(&mut self.first) {
            self.out.write_all(b",").map_err(serde_json::Error::io)?;
        }
        serde_json::to_writer(&mut *self.out, e)?;
        self.counts.count(e);
        Ok(())
    }
}

/// The error of writing the timeline to `path`: the file's, or the serialiser's.
fn write_error(path: &Path, e: serde_json::Error) -> TraceError {
    if e.is_io() {
        TraceError::Io {
            path: path.to_path_buf(),
            source: e.into(),
        }
    } else {
        TraceError::Json {
            path: path.to_path_buf(),
            source: e,
        }
    }
}

impl Timeline {
    /// An empty timeline of a library whose core `i` runs image `images[i]`, with symbols
    /// when `symbols[i]`, each core keeping at most `max` events.
    pub fn new(images: Vec<String>, symbols: Vec<bool>, max: MaxEvents) -> Timeline {
        Timeline {
            cores: images.iter().map(|_| Vec::new()).collect(),
            symbols,
            cap: max.0,
            room: images.iter().map(|_| max.0).collect(),
            cuts: images.iter().map(|_| None).collect(),
            findings: images.iter().map(|_| Vec::new()).collect(),
            images,
        }
    }

    /// A finding of checked mode (docs/checked-mode.md) on `core` at `cycle`: an instant
    /// named `name` on the core's track, after its calls, whatever the cap.
    pub fn finding(&mut self, core: u32, cycle: u64, name: String, args: Value) {
        if let Some(list) = self.findings.get_mut(core as usize) {
            list.push(Ev::instant(name, "check", track::core(core), cycle).args(args));
        }
    }

    /// The events `core` may still keep (`None`: no cap).
    pub fn room(&self, core: u32) -> Option<u64> {
        self.room.get(core as usize).copied().flatten()
    }

    /// Whether `core`'s image has symbols.
    pub fn has_symbols(&self, core: u32) -> bool {
        self.symbols.get(core as usize).copied().unwrap_or(false)
    }

    /// A call of `core` ended.
    pub fn add(&mut self, (core, CallEnd { mut call, room }): (u32, CallEnd)) {
        let core = core as usize;
        if core >= self.cores.len() {
            return;
        }
        self.room[core] = room;
        match (&mut self.cuts[core], call.cut) {
            // Cut already: what this call did is dropped too.
            (Some(cut), _) => {
                cut.dropped += call.dropped;
                call.cut = None;
            }
            (none @ None, Some(cycle)) => {
                *none = Some(Cut {
                    cycle,
                    dropped: call.dropped,
                })
            }
            (None, None) => {}
        }
        self.cores[core].push(Segment::Call(call));
    }

    /// The firmware pulled a `bytes`-byte image into `core`'s window from `start` to `end`.
    pub fn image_pull(&mut self, core: u32, start: u64, end: u64, bytes: u32) {
        if let Some(c) = self.cores.get_mut(core as usize) {
            c.push(Segment::Pull { start, end, bytes });
        }
    }

    /// The cores whose timeline reached its cap, in core order.
    pub fn truncations(&self) -> Vec<Truncation> {
        self.cuts
            .iter()
            .enumerate()
            .filter_map(|(core, cut)| {
                let cut = (*cut)?;
                Some(Truncation {
                    core: core as u32,
                    cycle: cut.cycle,
                    cap: self.cap.unwrap_or(0),
                    dropped: cut.dropped,
                })
            })
            .collect()
    }

    /// The calls of `core`.
    fn calls(&self, core: usize) -> impl Iterator<Item = &Call> {
        self.cores[core].iter().filter_map(|s| match s {
            Segment::Call(c) => Some(c),
            Segment::Pull { .. } => None,
        })
    }

    /// The tracks, in order: every core's, the function tracks of the cores with symbols,
    /// the SDMA queues with a transfer.
    fn tracks(&self) -> Vec<u32> {
        let cores = 0..self.cores.len() as u32;
        let mut tids: Vec<u32> = cores.clone().map(track::core).collect();
        tids.extend(
            cores
                .clone()
                .filter(|&c| self.symbols[c as usize])
                .map(track::functions),
        );
        for core in cores {
            for q in 0..queue::COUNT {
                if self
                    .calls(core as usize)
                    .any(|c| c.transfers.iter().any(|t| t.queue == q))
                {
                    tids.push(track::sdma(core, q));
                }
            }
        }
        tids
    }

    /// The metadata: the process's name, each track's name and place.
    fn metadata(&self, tids: &[u32]) -> Vec<Ev> {
        let mut out = vec![Ev::metadata(
            "process_name",
            0,
            json!({ "name": "q7emu POOL cluster" }),
        )];
        for &tid in tids {
            let name = match tid {
                0..100 => format!("core {tid} ({})", self.images[tid as usize]),
                100..200 => format!("core {} functions", tid - 100),
                _ => format!(
                    "core {} SDMA {}",
                    (tid - 200) / 2,
                    sdma::queue_name((tid - 200) % 2)
                ),
            };
            out.push(Ev::metadata("thread_name", tid, json!({ "name": name })));
            out.push(Ev::metadata(
                "thread_sort_index",
                tid,
                json!({ "sort_index": track::sort_index(tid) }),
            ));
        }
        out
    }

    /// Writes the events of `core`'s own track, one call's in memory at a time; its flows are
    /// numbered from `flow` + 1.
    fn core_track<W: Write>(
        &self,
        core: u32,
        mut flow: u64,
        out: &mut Events<'_, W>,
    ) -> Result<(), serde_json::Error> {
        let tid = track::core(core);
        for seg in &self.cores[core as usize] {
            match seg {
                Segment::Pull { start, end, bytes } => {
                    let args = json!({ "bytes": bytes, "cycle": start });
                    out.push(&Ev::new("image pull", "firmware", "B", tid, *start).args(args))?;
                    out.push(&Ev::new("image pull", "firmware", "E", tid, *end))?;
                }
                Segment::Call(call) => {
                    let cut = call.cut.and(self.cuts[core as usize]);
                    for e in call_events(core, call, &mut flow, cut, self.cap).events() {
                        out.push(&e)?;
                    }
                }
            }
        }
        for e in &self.findings[core as usize] {
            out.push(e)?;
        }
        Ok(())
    }

    /// Writes the function spans of `core`, named from `symbols`.
    fn function_track<W: Write>(
        &self,
        core: u32,
        symbols: &Symbols,
        out: &mut Events<'_, W>,
    ) -> Result<(), serde_json::Error> {
        let f = track::functions(core);
        for call in self.calls(core as usize) {
            for m in &call.marks {
                out.push(&match *m {
                    Mark::Begin(target, cycle) => {
                        Ev::new(span_name(symbols, target), "function", "B", f, cycle)
                    }
                    Mark::End(target, cycle) => {
                        Ev::new(span_name(symbols, target), "function", "E", f, cycle)
                    }
                })?;
            }
        }
        Ok(())
    }

    /// Writes the transfers of `core`'s queue `q`, each with the end of the flow from its
    /// doorbell; the core's flows are numbered from `flow` + 1, over both queues in doorbell
    /// order.
    fn sdma_track<W: Write>(
        &self,
        core: u32,
        q: u32,
        mut flow: u64,
        out: &mut Events<'_, W>,
    ) -> Result<(), serde_json::Error> {
        let tid = track::sdma(core, q);
        for t in self.calls(core as usize).flat_map(|c| &c.transfers) {
            flow += 1;
            if t.queue != q {
                continue;
            }
            let name = format!("{} {} B", sdma::queue_name(t.queue), t.len);
            let mut x = Ev::new(name.clone(), "sdma", "X", tid, t.start).args(json!({
                "bytes": t.len, "descriptor": t.index, "hbm": hex(t.hbm), "local": hex(t.local.into()),
                "doorbell": t.doorbell, "cycle": t.start,
            }));
            x.dur = Some(micros(t.end) - micros(t.start));
            out.push(&x)?;
            let mut f = Ev::new(name, "sdma", "f", tid, t.start);
            f.id = Some(flow);
            f.bp = Some("e");
            out.push(&f)?;
        }
        Ok(())
    }

    /// Writes the timeline to `file`, function spans named from `symbols` (by core), event by
    /// event: the metadata of every track first, then each track's events, at most one call's
    /// events of a core's track in memory (they are ordered by cycle); then renames it into
    /// place. Its size in bytes and its event counts.
    pub fn write(
        &self,
        mut file: AtomicFile,
        symbols: &[Symbols],
    ) -> Result<(u64, Counts), TraceError> {
        let path = file.path().to_path_buf();
        let counts = self
            .write_to(&mut file, symbols)
            .map_err(|e| write_error(&path, e))?;
        file.commit()?;
        Ok(counts)
    }

    /// The document, written to `out` (buffered by the caller).
    fn write_to(
        &self,
        out: &mut impl Write,
        symbols: &[Symbols],
    ) -> Result<(u64, Counts), serde_json::Error> {
        let io = serde_json::Error::io;
        let mut out = Counted {
            inner: out,
            bytes: 0,
        };
        // The keys in order, as serde_json writes an object's.
        out.write_all(br#"{"displayTimeUnit":"ns","otherData":"#)
            .map_err(io)?;
        let other = json!({
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "clock_hz": CLOCK_HZ,
            "cores": self.images.len(),
        });
        serde_json::to_writer(&mut out, &other)?;
        out.write_all(br#","traceEvents":["#).map_err(io)?;
        let mut events = Events {
            out: &mut out,
            counts: Counts::default(),
            first: true,
        };
        let tids = self.tracks();
        for e in self.metadata(&tids) {
            events.push(&e)?;
        }
        // Flows are numbered over the cores in order: each core's from the count before it.
        let mut flows = Vec::with_capacity(self.cores.len());
        let mut flow = 0u64;
        for core in 0..self.cores.len() {
            flows.push(flow);
            flow += self
                .calls(core)
                .map(|c| c.transfers.len() as u64)
                .sum::<u64>();
        }
        let none = Symbols::default();
        for tid in tids {
            match tid {
                0..100 => self.core_track(tid, flows[tid as usize], &mut events)?,
                100..200 => {
                    let core = tid - 100;
                    let symbols = symbols.get(core as usize).unwrap_or(&none);
                    self.function_track(core, symbols, &mut events)?
                }
                _ => {
                    let core = (tid - 200) / 2;
                    self.sdma_track(core, (tid - 200) % 2, flows[core as usize], &mut events)?
                }
            }
        }
        let counts = events.counts;
        out.write_all(b"]}\n").map_err(io)?;
        out.flush().map_err(io)?;
        Ok((out.bytes, counts))
    }
}

/// The events of `call` of `core` on its core track, ordered: each SDMA transfer's flow
/// starts at its doorbell, numbered from `flow` + 1 (it ends on the queue's track,
/// [`Timeline::sdma_track`]); when the core's timeline was `cut` in this call, an instant
/// there says so, with the cap and the events dropped.
fn call_events(
    core: u32,
    call: &Call,
    flow: &mut u64,
    cut: Option<Cut>,
    cap: Option<u64>,
) -> Ordered {
    let tid = track::core(core);
    let open = Ev::new(call.what.clone(), "firmware", "B", tid, call.start)
        .args(json!({ "cycle": call.start }));
    let mut body: Vec<(u64, Ev)> = Vec::new();
    let mut close = Vec::new();

    // The runtime's own events: phases as spans, the rest as instants; allocations also as a
    // counter of the bytes each heap holds.
    let mut phases: Vec<u32> = Vec::new();
    let mut held: BTreeMap<(u32, u64), u32> = BTreeMap::new();
    let mut per_heap: BTreeMap<u32, u64> = BTreeMap::new();
    for e in &call.port {
        let [a0, a1, a2, a3] = e.args;
        let at = e.cycle;
        match e.code {
            code::PHASE_BEGIN => {
                let name = trace_port::name_in(&trace_port::PHASES, a0).unwrap_or("phase");
                phases.push(a0);
                body.push((
                    at,
                    Ev::new(name, "phase", "B", tid, at).args(json!({ "cycle": at })),
                ));
            }
            code::PHASE_END => {
                // Ends the phase and any begun inside it that did not end; an end without a
                // begin is an instant.
                match phases.iter().rposition(|&p| p == a0) {
                    Some(i) => {
                        for &p in phases[i..].iter().rev() {
                            let name =
                                trace_port::name_in(&trace_port::PHASES, p).unwrap_or("phase");
                            body.push((at, Ev::new(name, "phase", "E", tid, at)));
                        }
                        phases.truncate(i);
                    }
                    None => body.push((
                        at,
                        Ev::instant(
                            format!("PHASE_END {a0} without its begin"),
                            "runtime",
                            tid,
                            at,
                        ),
                    )),
                }
            }
            code::ALLOC | code::FREE => {
                let heap = trace_port::name_in(&trace_port::HEAPS, a0).unwrap_or("heap");
                let addr = addr64(a1, a2);
                // Address 0 in the TCM pool: a failed tcm_malloc, or tcm_free(nullptr)
                // (PLATFORM.md).
                let null = addr == 0 && a0 == trace_port::heap::TCM_POOL;
                let bytes = if null {
                    if e.code == code::ALLOC {
                        a3
                    } else {
                        0
                    }
                } else if e.code == code::ALLOC {
                    held.insert((a0, addr), a3);
                    *per_heap.entry(a0).or_default() += u64::from(a3);
                    a3
                } else {
                    let b = held.remove(&(a0, addr)).unwrap_or(0);
                    let h = per_heap.entry(a0).or_default();
                    *h = h.saturating_sub(u64::from(b));
                    b
                };
                let what = match (e.code == code::ALLOC, null) {
                    (true, false) => "ALLOC",
                    (true, true) => "ALLOC FAILED",
                    (false, false) => "FREE",
                    (false, true) => "FREE nullptr",
                };
                let args = json!({ "heap": heap, "addr": hex(addr), "bytes": bytes, "cycle": at });
                body.push((
                    at,
                    Ev::instant(format!("{what} {heap} {bytes} B"), "alloc", tid, at).args(args),
                ));
                let counter: serde_json::Map<String, Value> = trace_port::HEAPS
                    .iter()
                    .map(|(c, n)| (n.to_string(), json!(per_heap.get(c).copied().unwrap_or(0))))
                    .collect();
                body.push((
                    at,
                    Ev::new(format!("core {core} heap bytes"), "alloc", "C", tid, at)
                        .args(Value::Object(counter)),
                ));
            }
            code::TENSOR_BIND => {
                let arg = if a0 == trace_port::BIND_OUTPUT {
                    "output".to_string()
                } else {
                    format!("argument {a0}")
                };
                let args = json!({ "hbm": hex(addr64(a1, a2)), "bytes": a3, "cycle": at });
                body.push((
                    at,
                    Ev::instant(format!("bind {arg}"), "tensor", tid, at).args(args),
                ));
            }
            code::ACCESSOR => {
                let kind = trace_port::name_in(&trace_port::ACCESSORS, a0).unwrap_or("accessor");
                let args = json!({ "hbm": hex(addr64(a1, a2)), "write": a3 == 1, "cycle": at });
                body.push((at, Ev::instant(kind, "tensor", tid, at).args(args)));
            }
            code::STACK_SWITCH => {
                let name = if a2 == 1 {
                    "stack switch to an HBM stack"
                } else {
                    "stack in place"
                };
                let args = json!({ "sp": hex(a0.into()), "bytes": a1, "cycle": at });
                body.push((at, Ev::instant(name, "stack", tid, at).args(args)));
            }
            code::STACK_RETURN => {
                let args = json!({ "sp": hex(a0.into()), "cycle": at });
                body.push((at, Ev::instant("stack return", "stack", tid, at).args(args)));
            }
            other => body.push((
                at,
                Ev::instant(format!("runtime event {other}"), "runtime", tid, at),
            )),
        }
    }
    for &p in phases.iter().rev() {
        let name = trace_port::name_in(&trace_port::PHASES, p).unwrap_or("phase");
        close.push(Ev::new(name, "phase", "E", tid, call.end));
    }

    for r in &call.raised {
        let mut args = json!({ "pc": hex(r.pc.into()), "cycle": r.cycle });
        if let Some(c) = r.cause {
            args["cause"] = json!(c);
            if let Some(name) = q7_emulator::fault::ExcCause::from_code(c) {
                args["cause_name"] = json!(name.name());
            }
        }
        body.push((
            r.cycle,
            Ev::instant(r.vector.name(), "exception", tid, r.cycle).args(args),
        ));
    }

    // The SDK runtime programs a dynamic window only on a translate-TLB miss.
    for w in &call.windows {
        let pinned = w.window < map::PINNED_WINDOWS;
        let name = if w.enabled {
            format!("MEM_WINDOW {} = HBM {:#x}", w.window, w.base)
        } else {
            format!("MEM_WINDOW {} off", w.window)
        };
        let args = json!({
            "window": w.window, "base": hex(w.base), "enabled": w.enabled, "pinned": pinned,
            "cycle": w.cycle,
        });
        body.push((
            w.cycle,
            Ev::instant(name, "translate", tid, w.cycle).args(args),
        ));
    }

    for t in &call.transfers {
        *flow += 1;
        let name = format!("{} {} B", sdma::queue_name(t.queue), t.len);
        let mut s = Ev::new(name, "sdma", "s", tid, t.doorbell);
        s.id = Some(*flow);
        body.push((t.doorbell, s));
    }

    if let Some(cut) = cut {
        let args = json!({ "cap": cap, "dropped": cut.dropped, "cycle": cut.cycle });
        body.push((
            cut.cycle,
            Ev::instant("timeline truncated", "timeline", tid, cut.cycle).args(args),
        ));
    }

    if let Some(why) = &call.stop {
        close.insert(
            0,
            Ev::instant(format!("stopped: {why}"), "fault", tid, call.end),
        );
    }
    close.push(
        Ev::new(call.what.clone(), "firmware", "E", tid, call.end)
            .args(json!({ "cycle": call.end })),
    );
    Ordered { open, body, close }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use q7_emulator::bus::Bus;
    use q7_emulator::platform::map::reg;
    use q7_emulator::platform::Hbm;
    use q7_emulator::TimingModel;
    use q7_isa::Insn;
    use q7_isa::Opcode;

    use super::*;

    /// Core 0's bus, recording within `room`.
    fn core_bus(room: Option<u64>) -> PlatformBus {
        let hbm = Arc::new(Hbm::new(1 << 20, 0).expect("1 MiB of HBM"));
        let mut bus = PlatformBus::new(0, hbm, &TimingModel::default());
        record(&mut bus, room);
        bus
    }

    /// The core commits annotation-port event `code` with argument 0 `a0` at `cycle`, through
    /// its MMIO registers.
    fn port(bus: &mut PlatformBus, code: u32, a0: u32, cycle: u64) {
        let at = |r| map::MMIO.0 + reg::trace::BLOCK.at(r, 0);
        bus.store(at(&reg::trace::ARGS[0]), 4, a0, cycle).unwrap();
        bus.store(at(&reg::trace::EVENT), 4, code, cycle).unwrap();
    }

    /// The core enables translate window 2 at `cycle`.
    fn window(bus: &mut PlatformBus, cycle: u64) {
        let ctrl = map::MMIO.0 + reg::mem_window_ctrl(2);
        bus.store(ctrl, 4, 1, cycle).unwrap();
    }

    fn call(t: &mut CoreTimeline, target: u32, cycle: u64) {
        let op = Op::from_insn(Insn::new(Opcode::Call0, &[0]));
        t.after(target, &op, cycle);
    }

    fn ret(t: &mut CoreTimeline, cycle: u64) {
        let op = Op::from_insn(Insn::new(Opcode::Ret, &[]));
        t.after(0, &op, cycle);
    }

    fn raise(t: &mut CoreTimeline, cycle: u64) {
        let state = CoreState::reset(&q7_isa::NCORE2GP, 0, 0, 0);
        t.exception(Vector::WindowOverflow8, 0x40, &state, cycle);
    }

    /// The document of `tl`, without symbols.
    fn document(tl: &Timeline) -> Value {
        let mut bytes = Vec::new();
        let (len, counts) = tl.write_to(&mut bytes, &[Symbols::default()]).unwrap();
        assert_eq!(len, bytes.len() as u64);
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            counts.events,
            doc["traceEvents"].as_array().unwrap().len() as u64
        );
        doc
    }

    /// `(ph, name, cycle)` of the events on track `tid`, the cycle from `ts`.
    fn on(doc: &Value, tid: u32) -> Vec<(String, String, u64)> {
        doc["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["tid"] == tid && e["ph"] != "M")
            .map(|e| {
                let us = e["ts"].as_f64().unwrap();
                (
                    e["ph"].as_str().unwrap().to_string(),
                    e["name"].as_str().unwrap().to_string(),
                    (us * CLOCK_HZ as f64 / 1e6).round() as u64,
                )
            })
            .collect()
    }

    fn ev(ph: &str, name: &str, cycle: u64) -> (String, String, u64) {
        (ph.to_string(), name.to_string(), cycle)
    }

    /// A call of core 0 from cycle 100 to 200 whose records count 13 events: 7 of its devices
    /// (a phase's begin and end, two ALLOCs of 2, a window write) and 6 of its own (four
    /// calls and returns, an exception, one more call and return).
    fn thirteen(tl: &Timeline, bus: &mut PlatformBus) -> CallEnd {
        let mut t = CoreTimeline::new(0, "kernel of key 0x85", 100, true, tl.room(0));
        port(bus, code::PHASE_BEGIN, 3, 105);
        call(&mut t, 0x1000, 110);
        port(bus, code::ALLOC, 1, 115);
        call(&mut t, 0x2000, 120);
        raise(&mut t, 125);
        ret(&mut t, 130);
        window(bus, 135);
        call(&mut t, 0x3000, 140);
        port(bus, code::ALLOC, 1, 145);
        ret(&mut t, 150);
        port(bus, code::PHASE_END, 3, 160);
        t.finish(&Stop::Exited(0), 200, bus).1
    }

    #[test]
    fn a_call_past_the_room_is_cut_at_one_cycle_across_all_its_records() {
        let mut tl = Timeline::new(vec!["k.so".into()], vec![true], MaxEvents(Some(10)));
        let mut bus = core_bus(tl.room(0));
        let end = thirteen(&tl, &mut bus);
        tl.add((0, end));
        // By cycle: 105 1, 110 2, 115 4, 120 5, 125 6, 130 7, 135 8, 140 9, 145 11 > 10: the
        // records before cycle 145 are kept, 9 events; the ALLOC at 145, the return at 150
        // and the PHASE_END at 160 (4 events) are not.
        assert_eq!(tl.room(0), Some(0));
        assert_eq!(
            bus.recording,
            Recording::with_room(Some(0)),
            "for the next call"
        );
        assert_eq!(
            tl.truncations(),
            [Truncation {
                core: 0,
                cycle: 145,
                cap: 10,
                dropped: 4
            }]
        );
        // The core's next call keeps nothing; what it did counts as dropped.
        let mut t = CoreTimeline::new(0, "second", 300, true, tl.room(0));
        call(&mut t, 0x4000, 300);
        port(&mut bus, code::PHASE_BEGIN, 1, 305);
        ret(&mut t, 310);
        raise(&mut t, 320);
        ret(&mut t, 330); // returns from nothing kept or dropped: not an event
        tl.add(t.finish(&Stop::Exited(0), 400, &mut bus));
        assert_eq!(tl.truncations()[0].dropped, 4 + 4);

        let doc = document(&tl);
        assert_eq!(
            on(&doc, 0),
            [
                ev("B", "kernel of key 0x85", 100),
                ev("B", "compute", 105),
                ev("i", "ALLOC HBM 0 B", 115),
                ev("C", "core 0 heap bytes", 115),
                ev("i", "WindowOverflow8", 125),
                ev("i", "MEM_WINDOW 2 = HBM 0x0", 135),
                ev("i", "timeline truncated", 145),
                // The phase still open closes with the call.
                ev("E", "compute", 200),
                ev("E", "kernel of key 0x85", 200),
                ev("B", "second", 300),
                ev("E", "second", 400),
            ]
        );
        let instant = doc["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "timeline truncated")
            .unwrap();
        assert_eq!(
            (&instant["cat"], &instant["args"]),
            (
                &json!("timeline"),
                &json!({"cap": 10, "dropped": 8, "cycle": 145})
            )
        );
        // The spans open at the cut close there, innermost first.
        assert_eq!(
            on(&doc, track::functions(0)),
            [
                ev("B", "0x00001000", 110),
                ev("B", "0x00002000", 120),
                ev("E", "0x00002000", 130),
                ev("B", "0x00003000", 140),
                ev("E", "0x00003000", 145),
                ev("E", "0x00001000", 145),
            ]
        );
    }

    #[test]
    fn a_record_that_did_not_fit_cuts_there_though_the_others_had_room() {
        // Room 4: the devices keep the PHASE_BEGIN (1) and the ALLOC (2) and refuse the
        // second ALLOC at 30 (1 left); the calls at 25 and 35 fit the core's own room.
        let mut tl = Timeline::new(vec!["k.so".into()], vec![true], MaxEvents(Some(4)));
        let mut bus = core_bus(tl.room(0));
        let mut t = CoreTimeline::new(0, "start symbol", 0, true, tl.room(0));
        port(&mut bus, code::PHASE_BEGIN, 1, 10);
        port(&mut bus, code::ALLOC, 1, 20);
        call(&mut t, 0x1000, 25);
        port(&mut bus, code::ALLOC, 1, 30);
        call(&mut t, 0x2000, 35);
        tl.add(t.finish(&Stop::Exited(0), 50, &mut bus));
        // Cut at 30, not at 35 where the count passes 4: nothing after a refused record is
        // complete. Kept 10, 20, 25 (4 events); dropped the call at 35 and the ALLOC at 30.
        assert_eq!(tl.truncations()[0].cycle, 30);
        assert_eq!(tl.truncations()[0].dropped, 1 + 2);
        let doc = document(&tl);
        assert_eq!(
            on(&doc, track::functions(0)),
            [ev("B", "0x00001000", 25), ev("E", "0x00001000", 30)]
        );
    }

    #[test]
    fn within_the_room_a_call_is_whole_and_leaves_the_rest_to_the_next() {
        let mut tl = Timeline::new(vec!["k.so".into()], vec![true], MaxEvents(Some(20)));
        let mut bus = core_bus(tl.room(0));
        let end = thirteen(&tl, &mut bus);
        tl.add((0, end));
        assert_eq!((tl.room(0), tl.truncations()), (Some(7), vec![]));
        assert_eq!(bus.recording, Recording::with_room(Some(7)));
        let doc = document(&tl);
        assert!(on(&doc, 0).contains(&ev("E", "compute", 160)));
        // The span still open when the call ends closes there.
        assert_eq!(
            on(&doc, track::functions(0)).last(),
            Some(&ev("E", "0x00001000", 200))
        );

        // Without a cap nothing is counted.
        let mut tl = Timeline::new(vec!["k.so".into()], vec![true], MaxEvents(None));
        let mut bus = core_bus(tl.room(0));
        let end = thirteen(&tl, &mut bus);
        tl.add((0, end));
        assert_eq!((tl.room(0), tl.truncations()), (None, vec![]));
    }

    #[test]
    fn the_cap_is_a_number_of_at_least_100_or_none() {
        assert_eq!(parse_max_events("none"), Ok(MaxEvents(None)));
        assert_eq!(parse_max_events("100"), Ok(MaxEvents(Some(100))));
        assert_eq!(parse_max_events("0x30d40"), Ok(MaxEvents(Some(200_000))));
        assert_eq!(
            parse_max_events("99"),
            Err(
                "99 events: a timeline cap is at least 100 events per core, or `none` for no cap"
                    .into()
            )
        );
        assert!(parse_max_events("many").is_err());
        assert_eq!(MaxEvents::default(), MaxEvents(Some(DEFAULT_MAX_EVENTS)));
    }
}
