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
//! misused accessors). When the run is over, [`Checker::findings`] puts the cores together:
//! races between cores, output bytes nobody wrote, leaks. Watching changes no cycle count
//! and no result: the checker only reads what the emulator shows it.

pub mod finding;
pub mod ranges;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use q7_emulator::platform::map::{self, reg};
use q7_emulator::platform::sdma::{TransferRecord, TransferWatch};
use q7_emulator::platform::trace_port::code;
use q7_emulator::platform::PlatformBus;
use q7_emulator::predecode::Op;
use q7_emulator::trace::Access;
use q7_emulator::{Core, CoreState};

use self::finding::{element_index, index_text, Class, Finding, Kind, Site, Span};
use self::ranges::Ranges;
use crate::symbolize::Symbols;

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
        let (frames, _) = q7_emulator::core::backtrace(state, pc, |_| None);
        RawSite {
            core,
            pc,
            cycle,
            disassembly: insn.insn.to_string(),
            callers: frames.iter().skip(1).map(|f| f.pc).collect(),
        }
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
    site: RawSite,
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
    count: u64,
    lo: u64,
    hi: u64,
    /// The live HBM allocation nearest the first access, (start, bytes), for its words.
    near: Option<(u64, u64)>,
    /// For an access of the kernel's own code outside the object its site is bound to
    /// ([`CoreCheck::bound`]): that object, `[start, end)`, and the object the first such
    /// access landed inside, if it landed in one.
    bound: Option<Overrun>,
}

/// What a core keeps between its calls: its live allocations and a count of its calls.
#[derive(Debug, Clone, Default)]
struct Carried {
    live: Vec<Alloc>,
    calls: u64,
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
    /// HBM access fell in: a later access of the site outside it is out of bounds even when it
    /// lands inside another object. Emptied when the kernel makes an accessor.
    bound: HashMap<(u32, u32), (u64, u64)>,
    /// Direct-mapped by PC: a site, `(pc, return address)`, and the object its last access
    /// fell in, `[start, end)`; an access of the site inside it needs no other look.
    hot: Box<[(u32, u32, u64, u64); HOT]>,
    /// Out-of-bounds and uninitialised accesses, by kind, PC, direction and heap (0 for an
    /// out-of-bounds access).
    sites: BTreeMap<(Kind, u32, bool, u32), AccessSite>,
    /// Allocations of this call the checker watches for reads before writes.
    fresh: Vec<Fresh>,
    /// Findings made from single events (bad frees, misused accessors).
    events: Vec<(Kind, String, RawSite)>,
    /// Where each run of bytes in `writes` or `reads` began, by its tag (an instruction's PC,
    /// or [`DMA`] with the transfer's number, whose site is its doorbell with the callers of
    /// that moment), for the races those runs may be part of.
    pcs: HashMap<u64, RawSite>,
    /// SDMA transfers seen, numbering their tags.
    transfers: u64,
    /// The last tcm_malloc that failed: bytes asked, and where.
    failed: Option<(u32, RawSite)>,
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
    /// A stream just opened (its words and site), until the next event says whether it got
    /// one of the runtime's four stream buffers.
    stream_opened: Option<(String, RawSite)>,
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
        if let Some((what, site)) = self.stream_opened.take() {
            // A stream with a buffer allocates it before anything else happens.
            if !(event == code::ALLOC && a0 == heap::TCM_POOL && addr != 0) {
                self.event(unbuffered_stream(what, site));
            }
        }
        match event {
            code::ALLOC if addr == 0 && a0 == heap::TCM_POOL => {
                // A tcm_malloc that failed: remembered, for a tcm_free of its nullptr.
                let site = RawSite::at(self.prid, pc, self.cycle, insn, state);
                self.event((
                    Kind::AllocFailed,
                    format!("asked tcm_malloc for {a3} bytes, more than the TCM pool had free: it returned nullptr"),
                    site.clone(),
                ));
                self.failed = Some((a3, site));
            }
            code::FREE if addr == 0 && a0 == heap::TCM_POOL => {
                let after = match &self.failed {
                    Some((bytes, _)) => {
                        format!(" after a tcm_malloc({bytes}) that failed and returned it")
                    }
                    None => String::new(),
                };
                self.event((
                    Kind::BadFree,
                    format!("called tcm_free(nullptr){after}: undefined in the API, which frees only what tcm_malloc returned"),
                    RawSite::at(self.prid, pc, self.cycle, insn, state),
                ));
            }
            code::ALLOC => {
                let site = RawSite::at(self.prid, pc, self.cycle, insn, state);
                if matches!(a0, heap::HBM | heap::DATARAM | heap::TCM_POOL) {
                    self.fresh.push(Fresh {
                        heap: a0,
                        start: addr,
                        end: addr.saturating_add(u64::from(a3)),
                        written: Ranges::default(),
                    });
                }
                self.carried.live.push(Alloc {
                    heap: a0,
                    start: addr,
                    bytes: u64::from(a3),
                    call: self.call,
                    site,
                });
            }
            code::FREE => {
                let live = &mut self.carried.live;
                match live.iter().position(|l| l.heap == a0 && l.start == addr) {
                    Some(i) => {
                        let gone = live.swap_remove(i);
                        self.hot.fill((0, 0, 0, 0));
                        self.fresh
                            .retain(|f| (f.heap, f.start) != (gone.heap, gone.start));
                    }
                    None => {
                        let heap = q7_emulator::platform::trace_port::name_in(
                            &q7_emulator::platform::trace_port::HEAPS,
                            a0,
                        )
                        .unwrap_or("unknown heap");
                        self.event((
                            Kind::BadFree,
                            format!(
                                "freed {addr:#x} of the {heap}, where no live allocation starts (freed twice, or never allocated there)"
                            ),
                            RawSite::at(self.prid, pc, self.cycle, insn, state),
                        ));
                    }
                }
            }
            code::PHASE_BEGIN => self.phase = a0,
            code::TENSOR_BIND
                if self.multicore && self.phase == phase::RETURN && a0 == BIND_OUTPUT =>
            {
                // customop_return_tensor copied the kernel's returned tensor to the output:
                // the kernel never called get_dst_tensor().
                self.event((
                    Kind::Misuse,
                    "returned a tensor without calling get_dst_tensor(), which the API requires in multicore mode: the runtime copied the core's whole returned tensor over the output".to_string(),
                    RawSite::at(self.prid, pc, self.cycle, insn, state),
                ));
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
                if stream {
                    let site = RawSite::at(self.prid, pc, self.cycle, insn, state);
                    self.stream_opened = Some((format!("{what}{tensor}"), site));
                }
                if self.multicore && (stream || a0 == accessor::ELEMENT) {
                    self.event((
                        Kind::Misuse,
                        format!(
                            "made {} {what}{tensor} in multicore mode, where the API leaves it undefined (use TCM accessors)",
                            if what.starts_with('e') { "an" } else { "a" }
                        ),
                        RawSite::at(self.prid, pc, self.cycle, insn, state),
                    ));
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

    /// A finding made from one event; an error one is also the newest error.
    fn event(&mut self, (kind, message, site): (Kind, String, RawSite)) {
        if kind.info().class == Class::Error && self.new_error.is_none() {
            self.new_error = Some((kind, message.clone()));
        }
        self.events.push((kind, message, site));
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
    /// the kernel's own code, else inside any tensor of the call or live HBM allocation (or,
    /// outside every one, in a block header of the HBM heap). An access that is not is a
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
        let object = self.object(h, end);
        let own = {
            let i = self.own_code.partition_point(|f| f.0 <= pc);
            i > 0 && pc < self.own_code[i - 1].1
        };
        let bound = if own {
            match self.bound.get(&(pc, from)).copied() {
                // An object freed since the site was bound frees the site.
                Some(b) if self.is_object(b) => Some(b),
                _ => {
                    match object {
                        Some(o) => self.bound.insert((pc, from), o),
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
        self.object(start, end) == Some((start, end))
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
        let Some(f) = self
            .fresh
            .iter_mut()
            .find(|f| local_heap(f.heap) == local && h < f.end && end > f.start)
        else {
            return;
        };
        let (lo, hi, heap) = (h.max(f.start), end.min(f.end), f.heap);
        if write {
            f.written.insert(lo, hi, u64::from(pc));
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

    /// The tensor or live allocation `[h, end)` lies in.
    #[cold]
    fn object(&self, h: u64, end: u64) -> Option<(u64, u64)> {
        let tensors = self.tensors.iter().map(|t| (t.addr, t.addr + t.bytes));
        let live = self
            .carried
            .live
            .iter()
            .filter(|a| matches!(a.heap, heap::HBM | heap::HBM_STACK))
            .map(|a| (a.start, a.end()));
        tensors.chain(live).find(|&(s, e)| h >= s && end <= e)
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
        let near = self
            .carried
            .live
            .iter()
            .filter(|a| a.heap == heap::HBM)
            .min_by_key(|a| {
                if h >= a.end() {
                    h - a.end()
                } else {
                    a.start.saturating_sub(h)
                }
            })
            .map(|a| (a.start, a.bytes));
        let heap = std::mem::take(&mut self.next_site_heap);
        let bound = self.next_bound.take();
        let s = self
            .sites
            .entry((kind, pc, write, heap))
            .or_insert_with(|| AccessSite {
                kind,
                heap,
                site: RawSite::at(prid, pc, cycle, insn, state),
                write,
                count: 0,
                lo: h,
                hi: end,
                near,
                bound,
            });
        if let (Some((b, None)), Some((_, Some(inside)))) = (s.bound, bound) {
            s.bound = Some((b, Some(inside)));
        }
        s.count += 1;
        s.lo = s.lo.min(h);
        s.hi = s.hi.max(end);
        if s.count == 1 && self.new_error.is_none() {
            let site = Site {
                core: prid,
                pc,
                cycle,
                function: None,
                disassembly: String::new(),
                backtrace: Vec::new(),
            };
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
    fn after(
        &mut self,
        core: u32,
        pc: u32,
        insn: &Op,
        state: &CoreState,
        accesses: &[Access],
        cycle: u64,
    ) -> Option<q7_emulator::debug::HookStop> {
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
    events: Vec<(Kind, String, RawSite)>,
    pcs: HashMap<u64, RawSite>,
    /// Allocations the call made and had not freed when it ended.
    leaked: Vec<Alloc>,
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
            fresh: Vec::new(),
            events: Vec::new(),
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

    /// `check` is back from its call.
    pub fn finish(&self, check: CoreCheck) {
        let CoreCheck {
            prid,
            kernel,
            call,
            mut carried,
            writes,
            reads,
            sites,
            pcs,
            mut events,
            stream_opened,
            ..
        } = check;
        if let Some((what, site)) = stream_opened {
            events.push(unbuffered_stream(what, site));
        }
        let leaked = if kernel {
            let (mine, rest): (Vec<Alloc>, Vec<Alloc>) = carried
                .live
                .drain(..)
                .partition(|a| a.call == call && a.heap != heap::HBM_STACK);
            carried.live = rest;
            mine
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
                leaked,
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
            for (kind, message, raw) in &c.events {
                out.push(Finding {
                    kind: *kind,
                    class: kind.info().class,
                    cores: vec![c.core],
                    message: message.clone(),
                    count: 1,
                    sites: vec![site(raw)],
                    span: None,
                });
            }
            for a in &c.leaked {
                let heap = q7_emulator::platform::trace_port::name_in(
                    &q7_emulator::platform::trace_port::HEAPS,
                    a.heap,
                )
                .unwrap_or("unknown heap");
                out.push(Finding {
                    kind: Kind::Leak,
                    class: Kind::Leak.info().class,
                    cores: vec![c.core],
                    message: format!(
                        "did not free {} bytes of the {heap} at {:#x} it allocated before the kernel returned",
                        a.bytes, a.start
                    ),
                    count: 1,
                    sites: vec![site(&a.site)],
                    span: None,
                });
            }
        }
        out.extend(races(&mut calls, &tensors, &site));
        out.extend(unwritten(&mut calls, &tensors));
        out.sort_by_key(|f| (f.class, f.kind));
        dedup(out)
    }
}

/// The finding of a stream that got no stream buffer (`what`: its kind and tensor).
fn unbuffered_stream(what: String, site: RawSite) -> (Kind, String, RawSite) {
    (
        Kind::Streams,
        format!("opened a {what} while four streams were active, more than the API's four: it got none of the runtime's four stream buffers and moves its tensor element by element"),
        site,
    )
}

/// The stack findings of a completed dispatch: each core whose deepest use of the firmware
/// stack came within 10 % of its limit (a warning: the next call with a deeper path, or a
/// window spill, overflows).
pub fn stack_findings(cores: &[crate::firmware::CoreResult]) -> Vec<Finding> {
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
/// copy of the kernel), made one listing the cores, with the first core's sites; counts add.
fn dedup(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for f in findings {
        match out
            .iter_mut()
            .find(|o| o.kind == f.kind && o.message == f.message && o.span == f.span)
        {
            Some(o) => {
                o.count += f.count;
                for c in f.cores {
                    if !o.cores.contains(&c) {
                        o.cores.push(c);
                    }
                }
                o.cores.sort_unstable();
            }
            None => out.push(f),
        }
    }
    out
}

fn symbolise(r: &RawSite, symbols: Option<&Symbols>) -> Site {
    Site {
        core: r.core,
        pc: r.pc,
        cycle: r.cycle,
        function: symbols.and_then(|s| s.frame(r.pc, false)),
        disassembly: r.disassembly.clone(),
        backtrace: Symbols::frame_lines(symbols, &r.callers),
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
    let (span, message) = match s.kind {
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
        ),
        Kind::OutOfBounds if s.heap == IRAM_SITE => (
            None,
            format!(
                "wrote IRAM at {:#x}..{:#x}, where the exception vectors and the boot ROM live: a store through a null pointer (a failed tcm_malloc?) or a wild one",
                s.lo, s.hi
            ),
        ),
        _ => {
            let tensor_of = |(start, end): (u64, u64)| {
                tensors
                    .iter()
                    .find(|t| t.addr == start && t.addr + t.bytes == end)
            };
            let (span, words) = match s.bound {
                Some((b, _)) => match tensor_of(b) {
                    Some(t) => span_in(s.lo, s.hi, t),
                    None => (Span::bytes(s.lo, s.hi), allocation_words(s.lo, s.hi, b)),
                },
                None => match span_of(s.lo, s.hi, tensors) {
                    (span, _) if span.tensor.is_none() && s.near.is_some() => {
                        let (start, bytes) = s.near.unwrap_or_default();
                        let words = allocation_words(s.lo, s.hi, (start, start + bytes));
                        (span, words)
                    }
                    found => found,
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
            (Some(span), format!("{verb} {words}{inside}"))
        }
    };
    Finding {
        kind: s.kind,
        class: s.kind.info().class,
        cores: vec![s.site.core],
        message,
        count: s.count,
        sites: vec![site],
        span,
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
                    log.pcs.get(&pc).map(site).unwrap_or(Site {
                        core,
                        pc: pc as u32,
                        cycle: 0,
                        function: None,
                        disassembly: String::new(),
                        backtrace: Vec::new(),
                    })
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
            });
        }
    }
    out
}
