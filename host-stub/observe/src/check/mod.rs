//! Checked mode (`q7emu run … --check`, docs/checked-mode.md): the kernel bugs hardware
//! swallows, found by watching what each core does with memory.
//!
//! Each core's [`CoreCheck`] rides along as part of the run's tracer ([`crate::trace`]) and
//! sees every completed instruction with its data accesses, each with the HBM address it
//! reached ([`q7_emulator::trace::Access::hbm`]); the SDMA transfers the core queues (the
//! engine's [`TransferWatch`]); and the runtime's annotation-port events (PLATFORM.md
//! "Annotation port (TRACE)"), read from the core's own stores to the port. It keeps the HBM
//! bytes the core wrote and read ([`ranges::Ranges`]), the allocations live on the core, and the
//! sites of what it finds as it goes (out-of-bounds accesses, uninitialised reads, bad frees,
//! misused accessors), each repeat counted into the finding it repeats as it happens, with its
//! first [`SAMPLES`] occurrences and its last: a finding's memory is bounded however
//! often it happens. When the call returns, its leaks are grouped by allocation site; when the
//! run is over, [`Checker::findings`] puts the cores together: races between cores, output
//! bytes nobody wrote. Watching changes no cycle count and no result: the checker only reads
//! what the emulator shows it.

pub mod finding;
pub mod ranges;

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use q7_emulator::platform::map::{self, reg};
use q7_emulator::platform::sdma::{TransferRecord, TransferWatch};
use q7_emulator::platform::trace_port::code;
use q7_emulator::platform::PlatformBus;
use q7_emulator::predecode::Op;
use q7_emulator::trace::Access;
use q7_emulator::{Core, CoreState};

use self::finding::{
    element_index, index_text, Class, Finding, Kind, Occurrence, Site, Span, SAMPLES,
};
use self::ranges::Ranges;
use q7_symbols::Symbols;

/// A tensor of the dispatch as the host placed it in HBM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    /// The argument's name in the schema; `output` for the output.
    pub name: String,
    /// HBM address.
    pub addr: u64,
    /// Bytes.
    pub bytes: u64,
    /// Bytes of one element.
    pub element: u64,
    /// Shape, outermost first.
    pub shape: Vec<u64>,
    /// Whether it is the output.
    pub output: bool,
}

/// Heap codes of ALLOC/FREE (PLATFORM.md "Annotation port (TRACE)"), and the HBM heap's
/// block layout.
mod heap {
    pub use q7_emulator::platform::trace_port::heap::{DATARAM, HBM, HBM_STACK, TCM_POOL};
    /// The HBM heap's payload alignment: every payload is 64-byte aligned and follows its
    /// block's 16-byte header (PLATFORM.md "Runtime memory", docs/checked-mode.md).
    pub const HBM_ALIGN: u64 = 64;
    /// Bytes of a block header of the runtime's heaps.
    pub const HEADER: u64 = 16;
}

use q7_emulator::platform::trace_port::{accessor, phase, BIND_OUTPUT};

/// An instruction where something was found, before symbolising.
#[derive(Debug, Clone)]
struct RawSite {
    core: u32,
    pc: u32,
    /// The core's cycle count once the instruction completed.
    cycle: u64,
    disassembly: String,
    /// Return addresses of the callers still in the register file.
    callers: Vec<u32>,
}

impl RawSite {
    fn at(core: u32, pc: u32, cycle: u64, insn: &Op, state: &CoreState) -> RawSite {
        RawSite::with_callers(core, pc, cycle, insn, callers(pc, state))
    }

    fn with_callers(core: u32, pc: u32, cycle: u64, insn: &Op, callers: Vec<u32>) -> RawSite {
        RawSite {
            core,
            pc,
            cycle,
            disassembly: insn.insn.to_string(),
            callers,
        }
    }
}

/// Return addresses of the callers of the instruction at `pc` still in the register file,
/// innermost first.
fn callers(pc: u32, state: &CoreState) -> Vec<u32> {
    let (frames, _) = q7_emulator::core::backtrace(state, pc, |_| None);
    frames.iter().skip(1).map(|f| f.pc).collect()
}

/// What one occurrence of a finding had of its own, kept raw until the report words it
/// ([`Occurrence::detail`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Detail {
    /// Nothing: every occurrence is alike.
    Same,
    /// Bytes `[lo, hi)` accessed (HBM addresses, or the core's own for its local heaps).
    Bytes(u64, u64),
    /// An allocation: its start and bytes.
    Alloc(u64, u64),
    /// The address freed.
    Freed(u64),
    /// The bytes asked of `tcm_malloc`.
    Asked(u32),
}

/// One occurrence, raw.
#[derive(Debug, Clone, Copy)]
struct RawOcc {
    core: u32,
    cycle: u64,
    detail: Detail,
}

/// How often one finding happened: its count, its first [`SAMPLES`] occurrences and its last.
/// A repeat is counted in as it happens, in constant memory.
#[derive(Debug, Clone)]
struct Tally {
    count: u64,
    samples: Vec<RawOcc>,
    last: RawOcc,
}

impl Tally {
    fn new(first: RawOcc) -> Tally {
        Tally {
            count: 1,
            samples: vec![first],
            last: first,
        }
    }

    fn add(&mut self, o: RawOcc) {
        self.count += 1;
        if self.samples.len() < SAMPLES {
            self.samples.push(o);
        }
        self.last = o;
    }
}

/// An allocation live on a core.
#[derive(Debug, Clone)]
struct Alloc {
    heap: u32,
    start: u64,
    bytes: u64,
    /// The call that made it.
    call: u64,
    /// Its allocation site, an index of [`Carried::sites`].
    site: u32,
    /// The core's cycle count once the ALLOC event's store completed.
    cycle: u64,
    /// Its number among the core's allocations, from 1 ([`Carried::allocs`]).
    seq: u64,
}

impl Alloc {
    /// One past its last byte (the runtime's event says where; a kernel writing the port
    /// itself may say anything, so this saturates).
    fn end(&self) -> u64 {
        self.start.saturating_add(self.bytes)
    }
}

/// An object, `[start, end)` of HBM: a tensor of the call or a live HBM allocation.
type Object = (u64, u64);

/// An access outside the object its site is bound to: that object, and the object the access
/// landed inside, if one.
type Overrun = (Object, Option<Object>);

/// Accesses of one kind at one instruction: how many, and the bytes they spanned.
#[derive(Debug, Clone)]
struct AccessSite {
    kind: Kind,
    /// For an uninitialised read, the heap of the allocation read; [`IRAM_SITE`] for a store
    /// into IRAM; else 0.
    heap: u32,
    site: RawSite,
    write: bool,
    tally: Tally,
    lo: u64,
    hi: u64,
    /// The live HBM allocation nearest the first access, (start, bytes), for its words.
    near: Option<(u64, u64)>,
    /// For an access of the kernel's own code outside the object its site is bound to
    /// ([`CoreCheck::bound`]): that object, `[start, end)`, and the object the first such
    /// access landed inside, if it landed in one.
    bound: Option<Overrun>,
}

/// What a core keeps between its calls: its live allocations, indexed, their allocation sites
/// and counts of its calls and allocations.
#[derive(Debug, Clone, Default)]
struct Carried {
    /// By heap and start.
    live: BTreeMap<(u32, u64), Alloc>,
    /// The live allocations of the HBM heap and HBM stacks, the objects an HBM access may be
    /// in: start → (end, heap, [`Alloc::seq`]).
    objects: BTreeMap<u64, (u64, u32, u64)>,
    /// Allocation sites: the ALLOC event's instruction, and its callers as [`CoreCheck::site_key`]
    /// keys them.
    sites: Vec<RawSite>,
    /// [`Carried::sites`] by key.
    site_index: HashMap<(u32, Vec<u32>), u32>,
    calls: u64,
    /// Allocations made so far.
    allocs: u64,
}

/// The key of a finding made from runtime events: its kind, the event's instruction, its
/// callers up to the kernel's own code ([`CoreCheck::site_key`]), and what it was about (the
/// heap, the accessor's kind and tensor; kind-specific).
type EventKey = (Kind, u32, Vec<u32>, (u32, u64));

/// The repeats of one event finding on one core.
#[derive(Debug, Clone)]
struct EventGroup {
    kind: Kind,
    /// The first occurrence's words.
    message: String,
    site: RawSite,
    tally: Tally,
}

/// The allocations of one call, one heap and one allocation site the kernel had not freed
/// when it returned.
#[derive(Debug, Clone)]
struct LeakGroup {
    heap: u32,
    site: RawSite,
    bytes: u64,
    tally: Tally,
}

/// The part of a core's tracer that checks (see the module documentation), for one firmware
/// call.
#[derive(Debug)]
pub struct CoreCheck {
    prid: u32,
    kernel: bool,
    multicore: bool,
    call: u64,
    tensors: Arc<Vec<TensorInfo>>,
    /// This core's HBM heap, `[start, end)` (MBOX_HEAP_*).
    heap: (u64, u64),
    carried: Carried,
    watch: TransferWatch,
    args: [u32; 4],
    writes: Ranges,
    reads: Ranges,
    /// The functions of the kernel's own code, `[start, end)` sorted (from the unstripped
    /// image; empty without one).
    own_code: Arc<Vec<(u32, u32)>>,
    /// Per site — an instruction of the kernel's own code called from one return address —
    /// the object (a tensor of the call or a live HBM allocation, `[start, end)`) its first
    /// HBM access fell in, with [`Carried::allocs`] then: a later access of the site outside it
    /// is out of bounds even when it lands inside another object, unless that object was
    /// allocated since. Emptied when the kernel makes an accessor.
    bound: HashMap<(u32, u32), ((u64, u64), u64)>,
    /// Direct-mapped by PC: a site, `(pc, return address)`, and the object its last access
    /// fell in, `[start, end)`; an access of the site inside it needs no other look.
    hot: Box<[(u32, u32, u64, u64); HOT]>,
    /// Out-of-bounds and uninitialised accesses, by kind, PC, direction and heap (0 for an
    /// out-of-bounds access).
    sites: BTreeMap<(Kind, u32, bool, u32), AccessSite>,
    /// Allocations of this call the checker watches for reads before writes, by whether their
    /// addresses are the core's own ([`local_heap`]) and start; one written whole in one run
    /// of bytes is watched no more.
    fresh: BTreeMap<(bool, u64), Fresh>,
    /// Findings made from runtime events (bad frees, misused accessors, failed allocations,
    /// streams), in the order they were first made.
    events: Vec<EventGroup>,
    /// [`CoreCheck::events`] by key.
    event_index: HashMap<EventKey, usize>,
    /// Where each run of bytes in `writes` or `reads` began, by its tag (an instruction's PC,
    /// or [`DMA`] with the transfer's number, whose site is its doorbell with the callers of
    /// that moment), for the races those runs may be part of.
    pcs: HashMap<u64, RawSite>,
    /// SDMA transfers seen, numbering their tags.
    transfers: u64,
    /// The bytes the last tcm_malloc that failed asked for.
    failed: Option<u32>,
    /// The cycle the instruction being looked at completed by.
    cycle: u64,
    /// The heap of the next site recorded (an uninitialised read's allocation, or
    /// [`IRAM_SITE`]); 0 otherwise.
    next_site_heap: u32,
    /// The bound object of the next site recorded, and the object its access landed in
    /// ([`AccessSite::bound`]).
    next_bound: Option<Overrun>,
    /// The runtime's phase (the last PHASE_BEGIN's, [`phase`]).
    phase: u32,
    /// A stream just opened (its words, its [`EventKey`] object and site), until the next
    /// event says whether it got one of the runtime's four stream buffers.
    stream_opened: Option<(String, (u32, u64), RawSite)>,
    /// The first error-class finding this core made since [`CoreCheck::take_new_error`] last
    /// took one: its kind and words (for a debugger to stop at).
    new_error: Option<(Kind, String)>,
}

/// An allocation of the call watched for reads before writes: its heap, its range (HBM
/// addresses for the HBM heap, the core's own DATARAM addresses for the DATARAM heap and the
/// TCM pool) and the bytes written so far.
#[derive(Debug)]
struct Fresh {
    heap: u32,
    start: u64,
    end: u64,
    written: Ranges,
}

/// Whether a heap's addresses are the core's own (DATARAM) rather than HBM's.
fn local_heap(heap: u32) -> bool {
    heap != heap::HBM
}

/// Entries of [`CoreCheck::hot`] (a power of two): the instructions of a loop body up to this
/// many bytes long never share one.
const HOT: usize = 256;

/// The entry of [`CoreCheck::hot`] for the instruction at `pc`.
fn hot_slot(pc: u32) -> usize {
    pc as usize & (HOT - 1)
}

/// The heap field of an out-of-bounds site that is a store into IRAM (no heap has this code).
const IRAM_SITE: u32 = u32::MAX;

/// The tag bit of a run of bytes an SDMA transfer began (an instruction's tag is its PC).
const DMA: u64 = 1 << 32;

/// MMIO offsets of the registers the checker reads the core's stores to.
fn trace_port_offset(addr: u32) -> Option<u32> {
    addr.checked_sub(map::MMIO.0).filter(|&o| o < map::MMIO.1)
}

impl CoreCheck {
    /// After the instruction at `pc` completed by `cycle` with `accesses` (at least one).
    #[inline(never)]
    pub fn after(
        &mut self,
        pc: u32,
        insn: &Op,
        state: &CoreState,
        accesses: &[Access],
        cycle: u64,
    ) {
        self.cycle = cycle;
        for a in accesses {
            match a.hbm {
                Some(h) if h >= map::HBM_SCRATCH.1 => {
                    let tag = u64::from(pc);
                    self.touch(h, u64::from(a.size), a.write, tag, pc, insn, state);
                }
                Some(_) => {}
                None => {
                    if a.write {
                        if let Some(off) = trace_port_offset(a.addr) {
                            self.device_store(off, a.value, pc, insn, state);
                            continue;
                        }
                        if a.addr.wrapping_sub(map::IRAM.0) < map::IRAM.1 {
                            // IRAM holds the vectors and the boot ROM: no kernel stores there,
                            // but a store through a null pointer lands there.
                            let (at, n) = (u64::from(a.addr), u64::from(a.size));
                            self.next_site_heap = IRAM_SITE;
                            self.site(Kind::OutOfBounds, at, at + n, true, pc, insn, state);
                            continue;
                        }
                    }
                    // The local heaps (the DATARAM heap, the TCM pool) are in DATARAM; the
                    // stack, in the firmware band, is not looked at.
                    if !self.fresh.is_empty()
                        && a.addr.wrapping_sub(map::DATARAM.0) < map::DATARAM.1
                    {
                        let (at, n) = (u64::from(a.addr), u64::from(a.size));
                        self.fresh_access(true, at, at + n, a.write, pc, insn, state);
                    }
                }
            }
        }
    }

    /// A store to MMIO offset `off`: the annotation port's arguments and events, and the SDMA
    /// doorbells whose transfers the engine has just queued.
    #[cold]
    fn device_store(&mut self, off: u32, value: u32, pc: u32, insn: &Op, state: &CoreState) {
        let port = &reg::trace::BLOCK;
        if let Some(i) = (0..4).find(|&i| off == port.at(&reg::trace::ARGS[i], 0)) {
            self.args[i] = value;
        } else if off == port.at(&reg::trace::EVENT, 0) {
            self.runtime_event(value, pc, insn, state);
        } else if (0..map::queue::COUNT).any(|q| off == reg::sdma_doorbell(q)) {
            for t in self.watch.take() {
                self.transfer(&t, pc, insn, state);
            }
        }
    }

    /// An SDMA transfer queued by the doorbell at `pc`: M2S reads HBM, S2M writes it.
    fn transfer(&mut self, t: &TransferRecord, pc: u32, insn: &Op, state: &CoreState) {
        let write = t.queue == map::queue::S2M;
        if !self.fresh.is_empty() {
            // The local side: M2S writes DATARAM, S2M reads it.
            let (at, n) = (u64::from(t.local), u64::from(t.len));
            self.fresh_access(true, at, at + n, !write, pc, insn, state);
        }
        if t.hbm.saturating_add(u64::from(t.len)) > map::HBM_SCRATCH.1 {
            let start = t.hbm.max(map::HBM_SCRATCH.1);
            let len = t.hbm + u64::from(t.len) - start;
            self.transfers += 1;
            let tag = DMA | self.transfers;
            self.touch(start, len, write, tag, pc, insn, state);
        }
    }

    fn runtime_event(&mut self, event: u32, pc: u32, insn: &Op, state: &CoreState) {
        let [a0, a1, a2, a3] = self.args;
        let addr = u64::from(a1) | (u64::from(a2) << 32);
        if let Some((what, object, site)) = self.stream_opened.take() {
            // A stream with a buffer allocates it before anything else happens.
            if !(event == code::ALLOC && a0 == heap::TCM_POOL && addr != 0) {
                self.unbuffered_stream(what, object, site);
            }
        }
        let at = (pc, insn, state);
        match event {
            code::ALLOC if addr == 0 && a0 == heap::TCM_POOL => {
                // A tcm_malloc that failed: remembered, for a tcm_free of its nullptr.
                self.event(Kind::AllocFailed, (0, 0), Detail::Asked(a3), at, || {
                    format!("asked tcm_malloc for {a3} bytes, more than the TCM pool had free: it returned nullptr")
                });
                self.failed = Some(a3);
            }
            code::FREE if addr == 0 && a0 == heap::TCM_POOL => {
                let failed = self.failed;
                let object = (0, u64::from(failed.is_some()));
                self.event(Kind::BadFree, object, Detail::Same, at, || {
                    let after = match failed {
                        Some(bytes) => {
                            format!(" after a tcm_malloc({bytes}) that failed and returned it")
                        }
                        None => String::new(),
                    };
                    format!("called tcm_free(nullptr){after}: undefined in the API, which frees only what tcm_malloc returned")
                });
            }
            code::ALLOC => {
                let all = callers(pc, state);
                let key = self.site_key(pc, all.clone());
                let c = &mut self.carried;
                let site = match c.site_index.get(&key) {
                    Some(&i) => {
                        // The register file holds more or fewer outer callers from one call
                        // to the next: the site shows the most it was seen with.
                        let known = &mut c.sites[i as usize];
                        if all.len() > known.callers.len() {
                            known.callers = all;
                        }
                        i
                    }
                    None => {
                        let i = c.sites.len() as u32;
                        let raw = RawSite::with_callers(self.prid, pc, self.cycle, insn, all);
                        c.sites.push(raw);
                        c.site_index.insert(key, i);
                        i
                    }
                };
                if matches!(a0, heap::HBM | heap::DATARAM | heap::TCM_POOL) {
                    self.fresh.insert(
                        (local_heap(a0), addr),
                        Fresh {
                            heap: a0,
                            start: addr,
                            end: addr.saturating_add(u64::from(a3)),
                            written: Ranges::default(),
                        },
                    );
                }
                c.allocs += 1;
                let a = Alloc {
                    heap: a0,
                    start: addr,
                    bytes: u64::from(a3),
                    call: self.call,
                    site,
                    cycle: self.cycle,
                    seq: c.allocs,
                };
                if matches!(a0, heap::HBM | heap::HBM_STACK) {
                    c.objects.insert(addr, (a.end(), a0, a.seq));
                }
                c.live.insert((a0, addr), a);
            }
            code::FREE => match self.carried.live.remove(&(a0, addr)) {
                Some(gone) => {
                    let c = &mut self.carried;
                    if c.objects.get(&gone.start).is_some_and(|o| o.2 == gone.seq) {
                        c.objects.remove(&gone.start);
                    }
                    self.hot.fill((0, 0, 0, 0));
                    let k = (local_heap(gone.heap), gone.start);
                    if self.fresh.get(&k).is_some_and(|f| f.heap == gone.heap) {
                        self.fresh.remove(&k);
                    }
                }
                None => {
                    let heap = q7_emulator::platform::trace_port::name_in(
                        &q7_emulator::platform::trace_port::HEAPS,
                        a0,
                    )
                    .unwrap_or("unknown heap");
                    self.event(Kind::BadFree, (a0, 1), Detail::Freed(addr), at, || {
                        format!(
                            "freed {addr:#x} of the {heap}, where no live allocation starts (freed twice, or never allocated there)"
                        )
                    });
                }
            },
            code::PHASE_BEGIN => self.phase = a0,
            code::TENSOR_BIND
                if self.multicore && self.phase == phase::RETURN && a0 == BIND_OUTPUT =>
            {
                // customop_return_tensor copied the kernel's returned tensor to the output:
                // the kernel never called get_dst_tensor().
                self.event(Kind::Misuse, (0, 0), Detail::Same, at, || {
                    "returned a tensor without calling get_dst_tensor(), which the API requires in multicore mode: the runtime copied the core's whole returned tensor over the output".to_string()
                });
            }
            code::ACCESSOR => {
                self.forget_sites();
                let stream = matches!(a0, accessor::READ_STREAM | accessor::WRITE_STREAM);
                let what = q7_emulator::platform::trace_port::name_in(
                    &q7_emulator::platform::trace_port::ACCESSORS,
                    a0,
                )
                .unwrap_or("accessor");
                let tensor = self
                    .tensor_at(addr)
                    .map(|t| format!(" of `{}`", t.name))
                    .unwrap_or_default();
                let object = (a0, addr);
                if stream {
                    let site = RawSite::at(self.prid, pc, self.cycle, insn, state);
                    self.stream_opened = Some((format!("{what}{tensor}"), object, site));
                }
                if self.multicore && (stream || a0 == accessor::ELEMENT) {
                    self.event(Kind::Misuse, object, Detail::Same, at, || {
                        format!(
                            "made {} {what}{tensor} in multicore mode, where the API leaves it undefined (use TCM accessors)",
                            if what.starts_with('e') { "an" } else { "a" }
                        )
                    });
                }
            }
            _ => {}
        }
    }

    /// A new accessor: the kernel may now reach another tensor from the same instructions
    /// (a loop making one accessor per tensor), so every site is free to be bound again.
    fn forget_sites(&mut self) {
        self.bound.clear();
        self.hot.fill((0, 0, 0, 0));
    }

    /// Whether the instruction at `pc` is the kernel's own code (a function compiled from the
    /// project's sources).
    fn own(&self, pc: u32) -> bool {
        let i = self.own_code.partition_point(|f| f.0 <= pc);
        i > 0 && pc < self.own_code[i - 1].1
    }

    /// The key of the site of an event made by the instruction at `pc` with `callers`: the
    /// callers up to the first in the kernel's own code (the kernel's line that called the
    /// runtime), all of them without one. Outer callers are left out as the register file
    /// holds more or fewer of them from one call to the next.
    fn site_key(&self, pc: u32, mut callers: Vec<u32>) -> (u32, Vec<u32>) {
        if let Some(i) = callers.iter().position(|&c| self.own(c)) {
            callers.truncate(i + 1);
        }
        (pc, callers)
    }

    /// An occurrence of an event finding made by the instruction `at`, about `object`
    /// ([`EventKey`]): counted into its group, or a new group with `message`'s words; a new
    /// error group is also the newest error.
    fn event(
        &mut self,
        kind: Kind,
        object: (u32, u64),
        detail: Detail,
        (pc, insn, state): (u32, &Op, &CoreState),
        message: impl FnOnce() -> String,
    ) {
        let all = callers(pc, state);
        let (_, key) = self.site_key(pc, all.clone());
        let key = (kind, pc, key, object);
        let (prid, cycle) = (self.prid, self.cycle);
        let occ = RawOcc {
            core: prid,
            cycle,
            detail,
        };
        self.group(key, occ, &all, || {
            (
                message(),
                RawSite::with_callers(prid, pc, cycle, insn, all.clone()),
            )
        });
    }

    /// [`CoreCheck::event`] for a site already made: `occ`, whose instruction had `callers`,
    /// counted into the group of `key`, or a new group of the words and site `make` gives.
    fn group(
        &mut self,
        key: EventKey,
        occ: RawOcc,
        callers: &[u32],
        make: impl FnOnce() -> (String, RawSite),
    ) {
        if let Some(&i) = self.event_index.get(&key) {
            let g = &mut self.events[i];
            g.tally.add(occ);
            // The register file holds more or fewer outer callers from one call to the next:
            // the site shows the most it was seen with.
            if callers.len() > g.site.callers.len() {
                g.site.callers = callers.to_vec();
            }
            return;
        }
        let kind = key.0;
        let (message, site) = make();
        if kind.info().class == Class::Error && self.new_error.is_none() {
            self.new_error = Some((kind, message.clone()));
        }
        self.event_index.insert(key, self.events.len());
        self.events.push(EventGroup {
            kind,
            message,
            site,
            tally: Tally::new(occ),
        });
    }

    /// A stream opened at `site` that got no stream buffer (`what`: its kind and tensor).
    fn unbuffered_stream(&mut self, what: String, object: (u32, u64), site: RawSite) {
        let (_, callers) = self.site_key(site.pc, site.callers.clone());
        let key = (Kind::Streams, site.pc, callers, object);
        let occ = RawOcc {
            core: site.core,
            cycle: site.cycle,
            detail: Detail::Same,
        };
        let all = site.callers.clone();
        self.group(key, occ, &all, || {
            (
                format!("opened a {what} while four streams were active, more than the API's four: it got none of the runtime's four stream buffers and moves its tensor element by element"),
                site,
            )
        });
    }

    /// The first error-class finding made since the last call, if any: kind and words.
    pub fn take_new_error(&mut self) -> Option<(Kind, String)> {
        self.new_error.take()
    }

    fn tensor_at(&self, addr: u64) -> Option<&TensorInfo> {
        self.tensors
            .iter()
            .find(|t| addr >= t.addr && addr < t.addr + t.bytes.max(1))
    }

    /// `len` bytes of HBM at `h` read or written by the instruction at `pc`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn touch(
        &mut self,
        h: u64,
        len: u64,
        write: bool,
        tag: u64,
        pc: u32,
        insn: &Op,
        state: &CoreState,
    ) {
        let end = h + len;
        let began = if write {
            self.writes.insert(h, end, tag)
        } else {
            self.reads.insert(h, end, tag)
        };
        if began && !self.pcs.contains_key(&tag) {
            self.pcs
                .insert(tag, RawSite::at(self.prid, pc, self.cycle, insn, state));
        }
        let from = state.a(0);
        let hot = &self.hot[hot_slot(pc)];
        if !(hot.0 == pc && hot.1 == from && h >= hot.2 && end <= hot.3) {
            self.judge(h, end, write, pc, from, insn, state);
        }
        if !self.fresh.is_empty() {
            self.fresh_access(false, h, end, write, pc, insn, state);
        }
    }

    /// Whether `[h, end)`, accessed by the instruction at `pc` called from return address
    /// `from`, is in bounds: inside the object its site is bound to when the instruction is
    /// the kernel's own code (or inside an object allocated since the site was bound: the
    /// site has moved on to it), else inside any tensor of the call or live HBM allocation
    /// (or, outside every one, in a block header of the HBM heap). An access that is not is a
    /// site of an out-of-bounds finding.
    #[allow(clippy::too_many_arguments)]
    #[cold]
    fn judge(
        &mut self,
        h: u64,
        end: u64,
        write: bool,
        pc: u32,
        from: u32,
        insn: &Op,
        state: &CoreState,
    ) {
        let found = self.object(h, end);
        let object = found.map(|f| f.0);
        let own = self.own(pc);
        let bound = if own {
            let kept = self.bound.get(&(pc, from)).copied().filter(|&(b, since)| {
                // An object freed since the site was bound frees the site, and so does an
                // access inside an object allocated since.
                self.is_object(b) && !found.is_some_and(|(o, seq)| o != b && seq > since)
            });
            match kept {
                Some((b, _)) => Some(b),
                None => {
                    match object {
                        Some(o) => self.bound.insert((pc, from), (o, self.carried.allocs)),
                        None => self.bound.remove(&(pc, from)),
                    };
                    object
                }
            }
        } else {
            object
        };
        match bound {
            Some(b) if h >= b.0 && end <= b.1 => {
                self.hot[hot_slot(pc)] = (pc, from, b.0, b.1);
            }
            Some(b) if own => {
                self.next_bound = Some((b, object));
                self.site(Kind::OutOfBounds, h, end, write, pc, insn, state);
            }
            _ if self.block_header(h, end) => {}
            _ => self.site(Kind::OutOfBounds, h, end, write, pc, insn, state),
        }
    }

    /// Whether `[start, end)` is still a tensor of the call or a live HBM allocation.
    fn is_object(&self, (start, end): (u64, u64)) -> bool {
        self.tensors
            .iter()
            .any(|t| t.addr == start && t.addr + t.bytes == end)
            || self.carried.objects.get(&start).is_some_and(|o| o.0 == end)
    }

    /// An access of `[h, end)` — the core's own addresses when `local`, else HBM's — checked
    /// against the watched allocations: a write marks its bytes written, a read of bytes
    /// nothing wrote is an uninitialised read.
    #[allow(clippy::too_many_arguments)]
    #[cold]
    fn fresh_access(
        &mut self,
        local: bool,
        h: u64,
        end: u64,
        write: bool,
        pc: u32,
        insn: &Op,
        state: &CoreState,
    ) {
        // The allocations do not overlap: the one starting last before `end` is the only one
        // the access may be in.
        let Some((&key, f)) = self.fresh.range_mut((local, 0)..(local, end)).next_back() else {
            return;
        };
        if h >= f.end {
            return;
        }
        let (lo, hi, heap) = (h.max(f.start), end.min(f.end), f.heap);
        if write {
            f.written.insert(lo, hi, u64::from(pc));
            if f.written.run_covers(f.start, f.end) {
                // Written whole (in one run: a loop, a DMA transfer): no read of it can be
                // uninitialised any more.
                self.fresh.remove(&key);
            }
        } else if !f.written.covers(lo, hi) {
            self.next_site_heap = heap;
            self.site(Kind::Uninitialised, lo, hi, false, pc, insn, state);
        }
    }

    /// Whether `[h, end)` lies in one block header of the core's HBM heap: the allocator's
    /// own bookkeeping, which it reads and writes on every allocation and free.
    fn block_header(&self, h: u64, end: u64) -> bool {
        let (a, hdr) = (heap::HBM_ALIGN, heap::HEADER);
        h >= self.heap.0 && end <= self.heap.1 && h % a >= a - hdr && (end - 1) / a == h / a
    }

    /// The tensor or live allocation `[h, end)` lies in, `[start, end)`, with its
    /// [`Alloc::seq`] (0 for a tensor of the call).
    #[cold]
    fn object(&self, h: u64, end: u64) -> Option<((u64, u64), u64)> {
        if let Some(t) = self
            .tensors
            .iter()
            .find(|t| h >= t.addr && end <= t.addr + t.bytes)
        {
            return Some(((t.addr, t.addr + t.bytes), 0));
        }
        // Live allocations do not overlap: the one starting last at or before `h`.
        let (&s, &(e, _, seq)) = self.carried.objects.range(..=h).next_back()?;
        (end <= e).then_some(((s, e), seq))
    }

    /// The live allocation of the HBM heap nearest `h`, (start, bytes), for an access's words.
    fn nearest_allocation(&self, h: u64) -> Option<(u64, u64)> {
        let hbm =
            |(&s, &(e, heap, _)): (&u64, &(u64, u32, u64))| (heap == heap::HBM).then_some((s, e));
        let below = self.carried.objects.range(..=h).rev().find_map(hbm);
        let above = self
            .carried
            .objects
            .range(h.saturating_add(1)..)
            .find_map(hbm);
        let distance = |(s, e): (u64, u64)| if h >= e { h - e } else { s.saturating_sub(h) };
        match (below, above) {
            (Some(b), Some(a)) if distance(a) < distance(b) => Some(a),
            (Some(b), _) => Some(b),
            (None, a) => a,
        }
        .map(|(s, e)| (s, e - s))
    }

    #[allow(clippy::too_many_arguments)]
    #[cold]
    fn site(
        &mut self,
        kind: Kind,
        h: u64,
        end: u64,
        write: bool,
        pc: u32,
        insn: &Op,
        state: &CoreState,
    ) {
        let (prid, cycle) = (self.prid, self.cycle);
        let heap = std::mem::take(&mut self.next_site_heap);
        let bound = self.next_bound.take();
        let occ = RawOcc {
            core: prid,
            cycle,
            detail: Detail::Bytes(h, end),
        };
        let near = match self.sites.contains_key(&(kind, pc, write, heap)) {
            true => None,
            false => self.nearest_allocation(h),
        };
        let s = match self.sites.entry((kind, pc, write, heap)) {
            Entry::Occupied(e) => {
                let s = e.into_mut();
                s.tally.add(occ);
                s
            }
            Entry::Vacant(e) => e.insert(AccessSite {
                kind,
                heap,
                site: RawSite::at(prid, pc, cycle, insn, state),
                write,
                tally: Tally::new(occ),
                lo: h,
                hi: end,
                near,
                bound,
            }),
        };
        if let (Some((b, None)), Some((_, Some(inside)))) = (s.bound, bound) {
            s.bound = Some((b, Some(inside)));
        }
        s.lo = s.lo.min(h);
        s.hi = s.hi.max(end);
        if s.tally.count == 1 && self.new_error.is_none() {
            let site = Site::bare(prid, pc, cycle);
            let f = access_finding(s, &self.tensors, site);
            self.new_error = Some((kind, f.message));
        }
    }
}

/// The stop hook of a debugged dispatch in checked mode (`--gdb` with `--check`,
/// docs/gdb.md): each debugged core's check sees the instructions it completes, and the first
/// error it finds stops the core there, reported to the debugger as SIGSEGV for an
/// out-of-bounds access and SIGTRAP for any other error. The findings are the run's as without
/// a debugger.
#[derive(Debug)]
pub struct DebugHook<'a> {
    checker: &'a Checker,
    cores: BTreeMap<u32, CoreCheck>,
}

impl<'a> DebugHook<'a> {
    /// The hook of `checker` for the firmware call `what` of `cores`.
    pub fn new(checker: &'a Checker, cores: &[&Core<PlatformBus>], what: &str) -> DebugHook<'a> {
        DebugHook {
            checker,
            cores: cores
                .iter()
                .map(|c| (c.bus.prid(), checker.tracer(c, what)))
                .collect(),
        }
    }

    /// The call is over: every core's check goes back to the checker.
    pub fn finish(self) {
        for (_, c) in self.cores {
            self.checker.finish(c);
        }
    }
}

/// POSIX signal numbers the debugger is told (as docs/gdb.md lists them).
const SIGTRAP: u8 = 5;
const SIGSEGV: u8 = 11;

impl q7_emulator::debug::StopHook for DebugHook<'_> {
    fn event(
        &mut self,
        core: u32,
        event: q7_emulator::trace::Event<'_>,
    ) -> Option<q7_emulator::debug::HookStop> {
        let q7_emulator::trace::Event::After {
            pc,
            insn,
            state,
            accesses,
            cycle,
            ..
        } = event
        else {
            return None;
        };
        let c = self.cores.get_mut(&core)?;
        if accesses.is_empty() {
            return None;
        }
        c.after(pc, insn, state, accesses, cycle);
        c.take_new_error()
            .map(|(kind, message)| q7_emulator::debug::HookStop {
                reason: format!("checked mode: error[{}]: {message}", kind.info().name),
                signal: if kind == Kind::OutOfBounds {
                    SIGSEGV
                } else {
                    SIGTRAP
                },
            })
    }
}

/// One finished call of one core, as the checker keeps it for [`Checker::findings`].
#[derive(Debug)]
struct CallLog {
    core: u32,
    writes: Ranges,
    reads: Ranges,
    sites: BTreeMap<(Kind, u32, bool, u32), AccessSite>,
    events: Vec<EventGroup>,
    pcs: HashMap<u64, RawSite>,
    /// Allocations the call made and had not freed when it ended, by heap and site.
    leaks: Vec<LeakGroup>,
}

/// The checker of one run: makes each core's [`CoreCheck`], takes it back, and puts the
/// cores' findings together.
#[derive(Debug)]
pub struct Checker {
    multicore: bool,
    tensors: Mutex<Arc<Vec<TensorInfo>>>,
    carried: Mutex<Vec<Carried>>,
    kernel_calls: Mutex<Vec<CallLog>>,
    /// By core: the functions of the kernel's own code ([`Symbols::own_code`]).
    own_code: Vec<Arc<Vec<(u32, u32)>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Checker {
    /// The checker of a library of `cores` cores, multicore or not, whose images have
    /// `symbols` (by core; a core without them has its accesses judged by address alone).
    pub fn new(cores: usize, multicore: bool, symbols: &[Symbols]) -> Checker {
        Checker {
            multicore,
            own_code: symbols.iter().map(|s| Arc::new(s.own_code())).collect(),
            tensors: Mutex::new(Arc::new(Vec::new())),
            carried: Mutex::new(vec![Carried::default(); cores]),
            kernel_calls: Mutex::new(Vec::new()),
        }
    }

    /// The tensors of the dispatch about to run (inputs in schema order, the output last).
    pub fn set_tensors(&self, tensors: Vec<TensorInfo>) {
        *lock(&self.tensors) = Arc::new(tensors);
    }

    /// Makes the cores' SDMA engines report every transfer to the checker.
    pub fn attach(&self, cores: &mut [Core<PlatformBus>]) {
        for c in cores {
            c.bus.sdma.watch.get_or_insert_with(TransferWatch::default);
        }
    }

    /// The check of `core` for the firmware call `what` it is about to run.
    pub fn tracer(&self, core: &Core<PlatformBus>, what: &str) -> CoreCheck {
        let prid = core.bus.prid();
        let mut carried = std::mem::take(&mut lock(&self.carried)[prid as usize]);
        carried.calls += 1;
        CoreCheck {
            prid,
            kernel: what.starts_with("kernel"),
            multicore: self.multicore,
            call: carried.calls,
            tensors: lock(&self.tensors).clone(),
            heap: {
                let (base, size) = core.bus.mailbox.heap;
                (base, base + u64::from(size))
            },
            carried,
            watch: core.bus.sdma.watch.clone().unwrap_or_default(),
            args: [0; 4],
            writes: Ranges::default(),
            reads: Ranges::default(),
            own_code: self
                .own_code
                .get(prid as usize)
                .cloned()
                .unwrap_or_default(),
            bound: HashMap::new(),
            hot: Box::new([(0, 0, 0, 0); HOT]),
            sites: BTreeMap::new(),
            fresh: BTreeMap::new(),
            events: Vec::new(),
            event_index: HashMap::new(),
            pcs: HashMap::new(),
            transfers: 0,
            failed: None,
            new_error: None,
            cycle: 0,
            next_site_heap: 0,
            next_bound: None,
            phase: 0,
            stream_opened: None,
        }
    }

    /// `check` is back from its call: its leaks are grouped by heap and allocation site.
    pub fn finish(&self, check: CoreCheck) {
        let mut check = check;
        if let Some((what, object, site)) = check.stream_opened.take() {
            check.unbuffered_stream(what, object, site);
        }
        let CoreCheck {
            prid,
            kernel,
            call,
            mut carried,
            writes,
            reads,
            sites,
            pcs,
            events,
            ..
        } = check;
        let leaks = if kernel {
            leaks(&mut carried, call)
        } else {
            Vec::new()
        };
        lock(&self.carried)[prid as usize] = carried;
        if kernel {
            lock(&self.kernel_calls).push(CallLog {
                core: prid,
                writes,
                reads,
                sites,
                events,
                pcs,
                leaks,
            });
        }
    }

    /// Every finding of the run's dispatches, errors first, each kind in the order of
    /// [`finding::KINDS`]; `symbols` by core.
    pub fn findings(&self, symbols: &[Symbols]) -> Vec<Finding> {
        let tensors = lock(&self.tensors).clone();
        let mut calls = std::mem::take(&mut *lock(&self.kernel_calls));
        calls.sort_by_key(|c| c.core);
        let site = |r: &RawSite| symbolise(r, symbols.get(r.core as usize));
        let mut out = Vec::new();
        for c in &calls {
            for s in c.sites.values() {
                out.push(access_finding(s, &tensors, site(&s.site)));
            }
            for g in &c.events {
                let detail = |d: Detail| match d {
                    Detail::Freed(addr) => Some(format!("{addr:#x}")),
                    Detail::Asked(bytes) => Some(format!("{bytes} bytes")),
                    _ => None,
                };
                let message = g.message.clone();
                out.push(grouped(
                    g.kind,
                    message,
                    site(&g.site),
                    None,
                    &g.tally,
                    detail,
                ));
            }
            for g in &c.leaks {
                out.push(leak_finding(g, site(&g.site)));
            }
        }
        out.extend(races(&mut calls, &tensors, &site));
        out.extend(unwritten(&mut calls, &tensors));
        out.sort_by_key(|f| (f.class, f.kind));
        dedup(out)
    }
}

/// The allocations of call `call` still live in `carried` (HBM stacks aside), taken out of it
/// and grouped by heap and allocation site, in the order of each group's first allocation.
fn leaks(carried: &mut Carried, call: u64) -> Vec<LeakGroup> {
    let mut mine: Vec<Alloc> = Vec::new();
    carried.live.retain(|_, a| {
        let leaked = a.call == call && a.heap != heap::HBM_STACK;
        if leaked {
            mine.push(a.clone());
        }
        !leaked
    });
    for a in &mine {
        if carried.objects.get(&a.start).is_some_and(|o| o.2 == a.seq) {
            carried.objects.remove(&a.start);
        }
    }
    mine.sort_by_key(|a| a.seq);
    let mut groups: Vec<LeakGroup> = Vec::new();
    let mut index: HashMap<(u32, u32), usize> = HashMap::new();
    for a in mine {
        let site = &carried.sites[a.site as usize];
        let occ = RawOcc {
            core: site.core,
            cycle: a.cycle,
            detail: Detail::Alloc(a.start, a.bytes),
        };
        match index.get(&(a.heap, a.site)) {
            Some(&i) => {
                let g = &mut groups[i];
                g.bytes = g.bytes.saturating_add(a.bytes);
                g.tally.add(occ);
            }
            None => {
                index.insert((a.heap, a.site), groups.len());
                let mut site = site.clone();
                site.cycle = a.cycle;
                groups.push(LeakGroup {
                    heap: a.heap,
                    site,
                    bytes: a.bytes,
                    tally: Tally::new(occ),
                });
            }
        }
    }
    groups
}

/// The finding of one [`LeakGroup`]: the first allocation's words, and for more than one, how
/// many more and the bytes in all.
fn leak_finding(g: &LeakGroup, site: Site) -> Finding {
    let heap = q7_emulator::platform::trace_port::name_in(
        &q7_emulator::platform::trace_port::HEAPS,
        g.heap,
    )
    .unwrap_or("unknown heap");
    let (start, bytes) = match g.tally.samples[0].detail {
        Detail::Alloc(start, bytes) => (start, bytes),
        _ => (0, 0),
    };
    let more = match g.tally.count {
        1 => String::new(),
        n => format!(
            ", nor {} more it allocated here, {} bytes in all",
            n - 1,
            g.bytes
        ),
    };
    let message = format!(
        "did not free {bytes} bytes of the {heap} at {start:#x} it allocated before the kernel returned{more}"
    );
    let detail = |d: Detail| match d {
        Detail::Alloc(start, bytes) => Some(format!("{bytes} bytes at {start:#x}")),
        _ => None,
    };
    grouped(Kind::Leak, message, site, Some(g.bytes), &g.tally, detail)
}

/// A finding grouping the occurrences `tally` counts at `site` (its core the finding's), each
/// occurrence's detail worded by `detail`.
fn grouped(
    kind: Kind,
    message: String,
    site: Site,
    bytes: Option<u64>,
    tally: &Tally,
    detail: impl Fn(Detail) -> Option<String>,
) -> Finding {
    let occurrence = |o: &RawOcc| Occurrence {
        core: o.core,
        cycle: o.cycle,
        detail: detail(o.detail),
    };
    Finding {
        kind,
        class: kind.info().class,
        cores: vec![site.core],
        message,
        count: tally.count,
        sites: vec![site],
        span: None,
        bytes,
        first: tally.samples.first().map(occurrence),
        last: Some(occurrence(&tally.last)),
        samples: tally.samples.iter().map(occurrence).collect(),
    }
}

/// The stack findings of a completed dispatch: each core whose deepest use of the firmware
/// stack came within 10 % of its limit (a warning: the next call with a deeper path, or a
/// window spill, overflows).
pub fn stack_findings(cores: &[q7_runtime::firmware::CoreResult]) -> Vec<Finding> {
    cores
        .iter()
        .filter(|c| u64::from(c.stack.bytes) * 10 >= u64::from(c.stack.limit) * 9)
        .map(|c| Finding {
            kind: Kind::Stack,
            class: Kind::Stack.info().class,
            cores: vec![c.core],
            message: format!(
                "used {} of its {} bytes of stack (lowest SP {:#010x}): within 10 % of the limit",
                c.stack.bytes, c.stack.limit, c.stack.lowest_sp
            ),
            count: 1,
            sites: Vec::new(),
            span: None,
            bytes: None,
            first: None,
            last: None,
            samples: Vec::new(),
        })
        .collect()
}

/// The findings that stand when the dispatch did not finish (a fault, a runtime error, a
/// runaway): all but the unwritten output and the leaks, which only a kernel that returned
/// can be held to.
pub fn before_failure(findings: &[Finding]) -> Vec<Finding> {
    findings
        .iter()
        .filter(|f| !matches!(f.kind, Kind::Unwritten | Kind::Leak))
        .cloned()
        .collect()
}

/// Whether any finding is an error (`--check` then exits with `check-failed`).
pub fn failed(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.class == Class::Error)
}

/// The findings as stderr shows them: each rendered, then a count line.
pub fn text(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&f.render());
    }
    let errors = findings.iter().filter(|f| f.class == Class::Error).count();
    out.push_str(&format!(
        "q7emu: check: {errors} error(s), {} warning(s) (docs/checked-mode.md)\n",
        findings.len() - errors
    ));
    out
}

/// The `check` object of the JSON report: the counts and the findings.
pub fn json(findings: &[Finding]) -> serde_json::Value {
    let errors = findings.iter().filter(|f| f.class == Class::Error).count();
    serde_json::json!({
        "errors": errors,
        "warnings": findings.len() - errors,
        "findings": findings,
    })
}

/// Findings of the same kind and message on different cores (the same bug in every core's
/// copy of the kernel), made one listing the cores, with the first core's sites; counts and
/// bytes add, the first and last occurrence are the earliest and latest (by cycle, then core),
/// and the samples the first [`SAMPLES`] of both.
fn dedup(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let mut index: HashMap<(Kind, String, Option<Span>), usize> = HashMap::new();
    let when = |o: &Occurrence| (o.cycle, o.core);
    for f in findings {
        let key = (f.kind, f.message.clone(), f.span.clone());
        let Some(&i) = index.get(&key) else {
            index.insert(key, out.len());
            out.push(f);
            continue;
        };
        let o = &mut out[i];
        o.count += f.count;
        for c in f.cores {
            if !o.cores.contains(&c) {
                o.cores.push(c);
            }
        }
        o.cores.sort_unstable();
        o.bytes = match (o.bytes, f.bytes) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            (a, b) => a.or(b),
        };
        o.first = match (o.first.take(), f.first) {
            (Some(a), Some(b)) => Some(if when(&b) < when(&a) { b } else { a }),
            (a, b) => a.or(b),
        };
        o.last = match (o.last.take(), f.last) {
            (Some(a), Some(b)) => Some(if when(&b) > when(&a) { b } else { a }),
            (a, b) => a.or(b),
        };
        o.samples.extend(f.samples);
        o.samples.sort_by_key(when);
        o.samples.truncate(SAMPLES);
    }
    out
}

/// `r` in the kernel author's terms (docs/checked-mode.md "Sites"): named at the kernel
/// author's frame of the instruction and its callers ([`Symbols::authors_frame`], the rule
/// profiles name lines by), with the SDK's frames inside it kept in `sdk_frames`; at the
/// instruction itself when it is the kernel's or no frame is (every frame the SDK's, or no
/// line tables).
fn symbolise(r: &RawSite, symbols: Option<&Symbols>) -> Site {
    let pcs: Vec<u32> = std::iter::once(r.pc)
        .chain(r.callers.iter().copied())
        .collect();
    let author = symbols
        .and_then(|s| {
            let i = s.authors_frame(&pcs)?;
            Some((i, s.frame(pcs[i], i > 0)?))
        })
        .filter(|(i, _)| *i > 0);
    let (author, function) = match author {
        Some((i, function)) => (i, Some(function)),
        None => (0, symbols.and_then(|s| s.frame(r.pc, false))),
    };
    let mut frames = Symbols::frame_lines(symbols, &pcs).into_iter();
    let sdk_frames: Vec<String> = frames.by_ref().take(author).collect();
    Site {
        core: r.core,
        pc: r.pc,
        cycle: r.cycle,
        function,
        disassembly: r.disassembly.clone(),
        sdk_frames,
        // The author's own frame is `function`.
        backtrace: frames.skip(1).collect(),
    }
}

/// `[lo, hi)` of HBM in the terms of the tensor holding it, or of the nearest one: the span,
/// and words for the message ("bytes 4000..4016 (elements [1000]..[1003]), past the end of
/// `output`, a [1000] tensor").
fn span_of(lo: u64, hi: u64, tensors: &[TensorInfo]) -> (Span, String) {
    let nearest = tensors.iter().min_by_key(|t| {
        if lo >= t.addr && lo < t.addr + t.bytes {
            0
        } else if lo >= t.addr + t.bytes {
            lo - (t.addr + t.bytes) + 1
        } else {
            t.addr - lo + 1
        }
    });
    let Some(t) = nearest.filter(|t| {
        let gap = if lo >= t.addr + t.bytes {
            lo - (t.addr + t.bytes)
        } else {
            t.addr.saturating_sub(hi)
        };
        gap < 64 * 1024
    }) else {
        return (
            Span::bytes(lo, hi),
            format!("HBM {lo:#x}..{hi:#x}, in no tensor"),
        );
    };
    span_in(lo, hi, t)
}

/// `[lo, hi)` of HBM in the terms of tensor `t`, as [`span_of`] gives it.
fn span_in(lo: u64, hi: u64, t: &TensorInfo) -> (Span, String) {
    let (start, end) = (lo as i64 - t.addr as i64, hi as i64 - t.addr as i64);
    let first = element_index(start, t.element, &t.shape);
    let last = element_index(end - 1, t.element, &t.shape);
    let where_ = if start >= t.bytes as i64 {
        "past the end of"
    } else if end <= 0 {
        "before the start of"
    } else {
        "of"
    };
    let elements = if first == last {
        format!("element {}", index_text(&first))
    } else {
        format!("elements {}..{}", index_text(&first), index_text(&last))
    };
    let shape: Vec<String> = t.shape.iter().map(u64::to_string).collect();
    (
        Span {
            tensor: Some(t.name.clone()),
            shape: Some(t.shape.clone()),
            start,
            end,
            elements: Some((first, last)),
        },
        format!(
            "bytes {start}..{end} ({elements}) {where_} `{}`, a [{}] tensor",
            t.name,
            shape.join(", ")
        ),
    )
}

fn access_finding(s: &AccessSite, tensors: &[TensorInfo], site: Site) -> Finding {
    // The bytes of each occurrence are worded from `base` on, the start of the tensor or
    // allocation the message names, or as addresses.
    let (span, message, base) = match s.kind {
        Kind::Uninitialised => (
            None,
            format!(
                "read {} bytes of the {} at {:#x}..{:#x} that the kernel allocated and nothing had written",
                s.hi - s.lo,
                q7_emulator::platform::trace_port::name_in(
                    &q7_emulator::platform::trace_port::HEAPS,
                    s.heap
                )
                .unwrap_or("heap"),
                s.lo,
                s.hi
            ),
            None,
        ),
        Kind::OutOfBounds if s.heap == IRAM_SITE => (
            None,
            format!(
                "wrote IRAM at {:#x}..{:#x}, where the exception vectors and the boot ROM live: a store through a null pointer (a failed tcm_malloc?) or a wild one",
                s.lo, s.hi
            ),
            None,
        ),
        _ => {
            let tensor_of = |(start, end): (u64, u64)| {
                tensors
                    .iter()
                    .find(|t| t.addr == start && t.addr + t.bytes == end)
            };
            let (span, words, base) = match s.bound {
                Some((b, _)) => match tensor_of(b) {
                    Some(t) => {
                        let (span, words) = span_in(s.lo, s.hi, t);
                        (span, words, Some(t.addr))
                    }
                    None => (
                        Span::bytes(s.lo, s.hi),
                        allocation_words(s.lo, s.hi, b),
                        Some(b.0),
                    ),
                },
                None => match span_of(s.lo, s.hi, tensors) {
                    (span, _) if span.tensor.is_none() && s.near.is_some() => {
                        let (start, bytes) = s.near.unwrap_or_default();
                        let words = allocation_words(s.lo, s.hi, (start, start + bytes));
                        (span, words, Some(start))
                    }
                    (span, words) => {
                        let base = span
                            .tensor
                            .is_some()
                            .then(|| (s.lo as i64 - span.start) as u64);
                        (span, words, base)
                    }
                },
            };
            let inside = match s.bound {
                Some((_, Some(o))) => match tensor_of(o) {
                    Some(t) => format!(", and on inside `{}`", t.name),
                    None => format!(
                        ", and on inside the {}-byte HBM allocation at {:#x}",
                        o.1 - o.0,
                        o.0
                    ),
                },
                _ => String::new(),
            };
            let verb = if s.write { "wrote" } else { "read" };
            (Some(span), format!("{verb} {words}{inside}"), base)
        }
    };
    let detail = |d: Detail| match (d, base) {
        (Detail::Bytes(lo, hi), Some(base)) => Some(format!(
            "bytes {}..{}",
            lo as i64 - base as i64,
            hi as i64 - base as i64
        )),
        (Detail::Bytes(lo, hi), None) => Some(format!("{lo:#x}..{hi:#x}")),
        _ => None,
    };
    Finding {
        span,
        ..grouped(s.kind, message, site, None, &s.tally, detail)
    }
}

/// `[lo, hi)` in the terms of the HBM allocation `[start, end)` (a tensor the kernel made, or
/// `neuron_hbm_allocate`).
fn allocation_words(lo: u64, hi: u64, (start, end): (u64, u64)) -> String {
    let bytes = end - start;
    let (lo, hi) = (lo as i64 - start as i64, hi as i64 - start as i64);
    let where_ = if lo >= bytes as i64 {
        "past the end of"
    } else if hi <= 0 {
        "before the start of"
    } else {
        "of"
    };
    format!("bytes {lo}..{hi} {where_} the {bytes}-byte HBM allocation at {start:#x} (a tensor the kernel made, or neuron_hbm_allocate)")
}

/// The tensor a byte range of HBM lies in, for a race's or a gap's words.
fn race_words(lo: u64, hi: u64, tensors: &[TensorInfo]) -> (Option<Span>, String) {
    let (span, words) = span_of(lo, hi, tensors);
    match span.tensor {
        Some(_) => (Some(span), words),
        None => (None, format!("HBM {lo:#x}..{hi:#x}")),
    }
}

/// One pair of cores' overlap: its kind, the first overlapping range, the bytes and ranges in
/// all, the cores (reader first for a read race) and their sites there.
struct Race {
    kind: Kind,
    lo: u64,
    hi: u64,
    bytes: u64,
    ranges: usize,
    cores: [u32; 2],
    sites: Vec<Site>,
}

/// Bytes two cores both wrote, or one read and another wrote, in the dispatch. Each pair of
/// cores gives its first overlap; pairs whose first overlaps intersect (several cores on the
/// same bytes) make one finding listing every core, with the first pair's sites.
fn races(
    calls: &mut [CallLog],
    tensors: &[TensorInfo],
    site: &dyn Fn(&RawSite) -> Site,
) -> Vec<Finding> {
    let mut pairs: Vec<Race> = Vec::new();
    let n = calls.len();
    for i in 0..n {
        for j in 0..n {
            if i == j || calls[i].core == calls[j].core {
                continue;
            }
            let (a, b) = if i < j {
                let (x, y) = calls.split_at_mut(j);
                (&mut x[i], &mut y[0])
            } else {
                let (x, y) = calls.split_at_mut(i);
                (&mut y[0], &mut x[j])
            };
            // Write/write once per pair (i < j); read/write in both directions.
            let mut found = Vec::new();
            if i < j {
                found.push((Kind::WriteRace, a.writes.overlaps(&mut b.writes)));
            }
            found.push((Kind::ReadRace, a.reads.overlaps(&mut b.writes)));
            for (kind, overlaps) in found {
                let Some(&(lo, hi, pa, pb)) = overlaps.first() else {
                    continue;
                };
                let raw = |core: u32, pc: u64, log: &CallLog| {
                    log.pcs
                        .get(&pc)
                        .map(site)
                        .unwrap_or_else(|| Site::bare(core, pc as u32, 0))
                };
                pairs.push(Race {
                    kind,
                    lo,
                    hi,
                    bytes: overlaps.iter().map(|o| o.1 - o.0).sum(),
                    ranges: overlaps.len(),
                    cores: [a.core, b.core],
                    sites: vec![raw(a.core, pa, a), raw(b.core, pb, b)],
                });
            }
        }
    }
    // Clusters of pairs of one kind whose first overlaps intersect.
    let mut clusters: Vec<Vec<Race>> = Vec::new();
    for r in pairs {
        match clusters
            .iter_mut()
            .find(|c| c[0].kind == r.kind && c.iter().any(|o| r.lo < o.hi && o.lo < r.hi))
        {
            Some(c) => c.push(r),
            None => clusters.push(vec![r]),
        }
    }
    clusters
        .into_iter()
        .map(|c| {
            let kind = c[0].kind;
            let lo = c.iter().map(|r| r.lo).min().expect("a cluster has a pair");
            let hi = c.iter().map(|r| r.hi).max().expect("a cluster has a pair");
            let (span, words) = race_words(lo, hi, tensors);
            let first = &c[0];
            let message = match (kind, c.len()) {
                (Kind::WriteRace, 1) => format!(
                    "each wrote {words} in one dispatch{}",
                    more(first.bytes, hi - lo, first.ranges)
                ),
                (Kind::WriteRace, pairs) => format!(
                    "each wrote {words} in one dispatch ({pairs} pairs of cores overlap there)"
                ),
                (_, 1) => format!(
                    "read and wrote {words} in one dispatch: core {} read what core {} wrote{}",
                    first.cores[0],
                    first.cores[1],
                    more(first.bytes, hi - lo, first.ranges)
                ),
                (_, pairs) => format!(
                    "read and wrote {words} in one dispatch ({pairs} pairs of cores, each one \
                     reading what the other wrote)"
                ),
            };
            let mut cores: Vec<u32> = c.iter().flat_map(|r| r.cores).collect();
            cores.sort_unstable();
            cores.dedup();
            Finding {
                kind,
                class: kind.info().class,
                cores,
                message,
                count: c.iter().map(|r| r.ranges as u64).sum(),
                sites: first.sites.clone(),
                span,
                bytes: None,
                first: None,
                last: None,
                samples: Vec::new(),
            }
        })
        .collect()
}

/// ", 4096 bytes in 3 ranges in all" when the first range is not the whole of it.
fn more(total: u64, first: u64, ranges: usize) -> String {
    if ranges > 1 || total != first {
        format!(" ({total} bytes in {ranges} ranges in all)")
    } else {
        String::new()
    }
}

/// The output's bytes no core wrote during the dispatch: one finding per gap, the first 8.
fn unwritten(calls: &mut [CallLog], tensors: &[TensorInfo]) -> Vec<Finding> {
    let mut all = Ranges::default();
    for c in calls.iter_mut() {
        for (s, e, pc) in c.writes.iter() {
            all.insert(s, e, pc);
        }
    }
    let mut out = Vec::new();
    for t in tensors.iter().filter(|t| t.output && t.bytes > 0) {
        let gaps = all.missing(t.addr, t.addr + t.bytes);
        let total: u64 = gaps.iter().map(|g| g.1 - g.0).sum();
        for &(lo, hi) in gaps.iter().take(8) {
            let (span, words) = span_of(lo, hi, tensors);
            out.push(Finding {
                kind: Kind::Unwritten,
                class: Kind::Unwritten.info().class,
                cores: Vec::new(),
                message: format!(
                    "no core wrote {words} ({total} of its {} bytes unwritten in {} ranges)",
                    t.bytes,
                    gaps.len()
                ),
                count: 1,
                sites: Vec::new(),
                span: Some(span),
                bytes: None,
                first: None,
                last: None,
                samples: Vec::new(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(core: u32, cycle: u64) -> RawOcc {
        RawOcc {
            core,
            cycle,
            detail: Detail::Freed(cycle),
        }
    }

    #[test]
    fn a_tally_keeps_the_first_samples_and_the_last_whatever_the_count() {
        let mut t = Tally::new(occ(0, 1));
        for cycle in 2..=1_000_000 {
            t.add(occ(0, cycle));
        }
        assert_eq!(t.count, 1_000_000);
        let kept: Vec<u64> = t.samples.iter().map(|o| o.cycle).collect();
        assert_eq!(kept, (1..=SAMPLES as u64).collect::<Vec<_>>());
        assert_eq!(t.last.cycle, 1_000_000);
    }

    /// The same leak on two cores: one finding naming both, counts and bytes added, the
    /// earliest first, the latest last, the first SAMPLES samples of both by cycle.
    #[test]
    fn one_bug_on_two_cores_merges_counts_bytes_and_occurrences() {
        let site = |core| Site::bare(core, 0x100, 0);
        let finding = |core: u32, cycles: &[u64]| {
            let mut t = Tally::new(occ(core, cycles[0]));
            for &c in &cycles[1..] {
                t.add(occ(core, c));
            }
            let detail = |d: Detail| match d {
                Detail::Freed(a) => Some(a.to_string()),
                _ => None,
            };
            grouped(Kind::Leak, "m".into(), site(core), Some(10), &t, detail)
        };
        let merged = dedup(vec![finding(0, &[5, 6, 7, 8, 9]), finding(1, &[2, 3, 30])]);
        assert_eq!(merged.len(), 1);
        let f = &merged[0];
        assert_eq!(
            (f.cores.clone(), f.count, f.bytes),
            (vec![0, 1], 8, Some(20))
        );
        let when = |o: &Option<Occurrence>| o.as_ref().map(|o| (o.core, o.cycle));
        assert_eq!(
            (when(&f.first), when(&f.last)),
            (Some((1, 2)), Some((1, 30)))
        );
        let samples: Vec<(u32, u64)> = f.samples.iter().map(|o| (o.core, o.cycle)).collect();
        assert_eq!(samples, [(1, 2), (1, 3), (0, 5), (0, 6)]);
        assert_eq!(f.samples[0].detail.as_deref(), Some("2"));
    }
}
