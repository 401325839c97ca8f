//! The run's timeline (`--timeline FILE.json`, docs/tracing.md "Timeline"): Chrome
//! trace-event JSON, which Perfetto and `chrome://tracing` open. One process, the cluster; per
//! core a track of its firmware calls with the kernel's phases inside and instants for what its
//! runtime reports, exceptions and translate-window programming; a track of its function calls
//! when its image has symbols; a track per SDMA queue with each transfer. Timestamps are the
//! core's own cycle count from its boot, converted at the clock of PLATFORM.md "Cores".

use std::collections::BTreeMap;

use q7_emulator::platform::map::{self, CLOCK_HZ};
use q7_emulator::platform::mem_window::WindowEvent;
use q7_emulator::platform::sdma::{self, TransferRecord};
use q7_emulator::platform::trace_port::{self, code, RuntimeEvent};
use q7_emulator::platform::PlatformBus;
use q7_emulator::predecode::Op;
use q7_emulator::{CoreState, Stop, Vector};
use q7_isa::sreg::sr;
use q7_isa::Opcode;
use serde::Serialize;
use serde_json::{json, Value};

use super::TraceError;
use crate::output::AtomicFile;
use crate::symbolize::Symbols;

/// The `otherData.format` of the file.
pub const FORMAT: &str = "q7emu-timeline";
/// The `otherData.version` of the file.
pub const FORMAT_VERSION: u32 = 1;
/// The one process: the cluster.
pub const PID: u32 = 0;

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

/// Turns the records the timeline reads on or off in a core's devices: annotation-port
/// events, SDMA transfers, MEM_WINDOW writes. Recording changes no cycle.
pub fn record(bus: &mut PlatformBus, on: bool) {
    bus.trace.record = on;
    bus.sdma.record = on;
    bus.windows.record = on;
}

/// A span begins or ends on the function track.
#[derive(Debug, Clone, PartialEq)]
enum Mark {
    Begin(String, u64),
    End(String, u64),
}

/// An instant seen by the tracer: an exception delivered.
#[derive(Debug, Clone)]
struct Raised {
    cycle: u64,
    vector: Vector,
    pc: u32,
    cause: Option<u32>,
}

/// One core's timeline of one firmware call while it runs: its function spans, from the calls
/// and returns it executes (only with symbols), and the exceptions delivered.
#[derive(Debug)]
pub struct CoreTimeline<'a> {
    core: u32,
    what: String,
    start: u64,
    symbols: &'a Symbols,
    /// The functions entered and not yet returned from, innermost last.
    open: Vec<String>,
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
}

impl<'a> CoreTimeline<'a> {
    /// The timeline of `core`'s call `what` from `start`, function spans named from `symbols`.
    pub fn new(core: u32, what: &str, start: u64, symbols: &'a Symbols) -> CoreTimeline<'a> {
        CoreTimeline {
            core,
            what: what.to_string(),
            start,
            symbols,
            open: Vec::new(),
            marks: Vec::new(),
            raised: Vec::new(),
        }
    }

    /// The instruction `insn` completed at `cycle`, continuing at `next`: a call opens a span
    /// named after the function at `next`, a return closes the innermost one.
    #[inline]
    pub fn after(&mut self, next: u32, insn: &Op, cycle: u64) {
        use Opcode::*;
        if self.symbols.is_empty() || insn.bad.is_some() {
            return;
        }
        match insn.insn.opcode {
            Call0 | Call4 | Call8 | Call12 | Callx0 | Callx4 | Callx8 | Callx12 => {
                let name = match self.symbols.function(next) {
                    Some((start, name)) if start == next => name.to_string(),
                    Some((start, name)) => format!("{name}+{:#x}", next - start),
                    None => format!("{next:#010x}"),
                };
                self.marks.push(Mark::Begin(name.clone(), cycle));
                self.open.push(name);
            }
            Ret | RetN | Retw | RetwN => {
                if let Some(name) = self.open.pop() {
                    self.marks.push(Mark::End(name, cycle));
                }
            }
            _ => {}
        }
    }

    /// An exception was delivered through `vector` for the instruction at `pc`.
    pub fn exception(&mut self, vector: Vector, pc: u32, state: &CoreState, cycle: u64) {
        self.raised.push(Raised {
            cycle,
            vector,
            pc,
            cause: vector.window().is_none().then(|| state.sr(sr::EXCCAUSE)),
        });
    }

    /// The call ended with `stop` at `end`: closes its open function spans and takes the
    /// records of the core's devices since the call began.
    pub(super) fn finish(self, stop: &Stop, end: u64, bus: &mut PlatformBus) -> (u32, CallEnd) {
        let mut marks = self.marks;
        marks.extend(self.open.into_iter().rev().map(|name| Mark::End(name, end)));
        let call = Call {
            what: self.what,
            start: self.start,
            end,
            stop: match stop {
                Stop::Exited(_) => None,
                Stop::Fault(r) => Some(r.kind.to_string()),
            },
            marks,
            raised: self.raised,
            port: std::mem::take(&mut bus.trace.events),
            transfers: std::mem::take(&mut bus.sdma.transfers),
            windows: std::mem::take(&mut bus.windows.log),
        };
        (self.core, CallEnd(call))
    }
}

/// A finished call, for [`Timeline::add`].
#[derive(Debug)]
pub struct CallEnd(Call);

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

/// The timeline of a run, collected as the cores' calls end.
#[derive(Debug)]
pub struct Timeline {
    /// By core: what happened on it.
    cores: Vec<Vec<Segment>>,
    /// By core: whether its image has symbols (it then has a function track).
    symbols: Vec<bool>,
    /// By core: its image.
    images: Vec<String>,
}

/// One trace event (the JSON object format's `traceEvents` entries).
#[derive(Debug, Clone, Serialize)]
struct Ev {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'static str>,
    ph: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    pid: u32,
    tid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<Value>,
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

/// The events of one call on its core's track, ordered: the call's begin first, its end last,
/// everything else by cycle in between (ties in the order of `body`).
struct Ordered {
    open: Ev,
    body: Vec<(u64, Ev)>,
    close: Vec<Ev>,
}

impl Ordered {
    fn events(mut self) -> Vec<Ev> {
        self.body.sort_by_key(|(cycle, _)| *cycle);
        let mut out = vec![self.open];
        out.extend(self.body.into_iter().map(|(_, e)| e));
        out.extend(self.close);
        out
    }
}

impl Timeline {
    /// An empty timeline of a library whose core `i` runs image `images[i]`, with symbols
    /// when `symbols[i]`.
    pub fn new(images: Vec<String>, symbols: Vec<bool>) -> Timeline {
        Timeline {
            cores: images.iter().map(|_| Vec::new()).collect(),
            symbols,
            images,
        }
    }

    /// A call of `core` ended.
    pub fn add(&mut self, (core, call): (u32, CallEnd)) {
        if let Some(c) = self.cores.get_mut(core as usize) {
            c.push(Segment::Call(call.0));
        }
    }

    /// The firmware pulled a `bytes`-byte image into `core`'s window from `start` to `end`.
    pub fn image_pull(&mut self, core: u32, start: u64, end: u64, bytes: u32) {
        if let Some(c) = self.cores.get_mut(core as usize) {
            c.push(Segment::Pull { start, end, bytes });
        }
    }

    /// Every event, metadata first, then each core's tracks.
    fn events(&self) -> Vec<Ev> {
        let mut tracks: BTreeMap<u32, Vec<Ev>> = BTreeMap::new();
        let mut flow = 0u64;
        for (core, segments) in self.cores.iter().enumerate() {
            let core = core as u32;
            let tid = track::core(core);
            tracks.entry(tid).or_default();
            if self.symbols[core as usize] {
                tracks.entry(track::functions(core)).or_default();
            }
            for seg in segments {
                match seg {
                    Segment::Pull { start, end, bytes } => {
                        let t = tracks.entry(tid).or_default();
                        let args = json!({ "bytes": bytes, "cycle": start });
                        t.push(Ev::new("image pull", "firmware", "B", tid, *start).args(args));
                        t.push(Ev::new("image pull", "firmware", "E", tid, *end));
                    }
                    Segment::Call(call) => {
                        let ordered = call_events(core, call, &mut flow, &mut tracks);
                        tracks.entry(tid).or_default().extend(ordered.events());
                        if self.symbols[core as usize] {
                            let f = track::functions(core);
                            let t = tracks.entry(f).or_default();
                            for m in &call.marks {
                                t.push(match m {
                                    Mark::Begin(name, cycle) => {
                                        Ev::new(name.clone(), "function", "B", f, *cycle)
                                    }
                                    Mark::End(name, cycle) => {
                                        Ev::new(name.clone(), "function", "E", f, *cycle)
                                    }
                                });
                            }
                        }
                    }
                }
            }
        }
        let mut out = vec![Ev::metadata(
            "process_name",
            0,
            json!({ "name": "q7emu POOL cluster" }),
        )];
        for (&tid, _) in tracks.iter() {
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
        out.extend(tracks.into_values().flatten());
        out
    }

    /// The JSON document.
    fn document(&self) -> (Value, Counts) {
        let events = self.events();
        let mut counts = Counts {
            events: events.len() as u64,
            ..Counts::default()
        };
        for e in &events {
            *counts.by_phase.entry(e.ph.to_string()).or_default() += 1;
            if let Some(cat) = e.cat {
                *counts.by_category.entry(cat.to_string()).or_default() += 1;
            }
        }
        let doc = json!({
            "traceEvents": events,
            "displayTimeUnit": "ns",
            "otherData": {
                "format": FORMAT,
                "version": FORMAT_VERSION,
                "clock_hz": CLOCK_HZ,
                "cores": self.images.len(),
            },
        });
        (doc, counts)
    }

    /// Writes the timeline to `file` whole and renames it into place: its size in bytes and
    /// its event counts.
    pub fn write(&self, file: AtomicFile) -> Result<(u64, Counts), TraceError> {
        let (doc, counts) = self.document();
        let mut text = serde_json::to_vec(&doc).map_err(|source| TraceError::Json {
            path: file.path().to_path_buf(),
            source,
        })?;
        text.push(b'\n');
        let bytes = text.len() as u64;
        file.write_all_and_commit(&text)?;
        Ok((bytes, counts))
    }
}

/// The events of `call` of `core`: those of its core track, ordered; its SDMA transfers go to
/// their queues' tracks in `tracks`, each with a flow from the doorbell that queued it.
fn call_events(
    core: u32,
    call: &Call,
    flow: &mut u64,
    tracks: &mut BTreeMap<u32, Vec<Ev>>,
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
                let bytes = if e.code == code::ALLOC {
                    held.insert((a0, addr), a3);
                    *per_heap.entry(a0).or_default() += u64::from(a3);
                    a3
                } else {
                    let b = held.remove(&(a0, addr)).unwrap_or(0);
                    let h = per_heap.entry(a0).or_default();
                    *h = h.saturating_sub(u64::from(b));
                    b
                };
                let what = if e.code == code::ALLOC {
                    "ALLOC"
                } else {
                    "FREE"
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
        let q = track::sdma(core, t.queue);
        let name = format!("{} {} B", sdma::queue_name(t.queue), t.len);
        body.push((t.doorbell, {
            let mut s = Ev::new(name.clone(), "sdma", "s", tid, t.doorbell);
            s.id = Some(*flow);
            s
        }));
        let track = tracks.entry(q).or_default();
        let mut x = Ev::new(name.clone(), "sdma", "X", q, t.start).args(json!({
            "bytes": t.len, "descriptor": t.index, "hbm": hex(t.hbm), "local": hex(t.local.into()),
            "doorbell": t.doorbell, "cycle": t.start,
        }));
        x.dur = Some(micros(t.end) - micros(t.start));
        track.push(x);
        let mut f = Ev::new(name, "sdma", "f", q, t.start);
        f.id = Some(*flow);
        f.bp = Some("e");
        track.push(f);
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
