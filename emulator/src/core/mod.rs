//! One core: fetch through the decoded-instruction cache, the per-instruction gate (window
//! overflow and privilege), interlocks, execution, zero-overhead loop-back and the cycle model
//! of [`crate::timing`]. Instruction semantics live in one module per family; exception entry
//! and return in [`Vector`]'s module; fault reports in their own. Exceptions go to
//! VECBASE-relative vectors when code is installed there; otherwise the core stops with a
//! [`FaultReport`](crate::fault::FaultReport).

use std::ops::Range;

use q7_isa::{CoreConfig, Opcode};

use crate::bus::Bus;
use crate::fault::{FaultKind, Stop};
use crate::predecode::{DecodeCache, DecodedOps, Op, Undecodable};
use crate::progress::Progress;
use crate::state::{ps, CoreState};
use crate::stop_request::{StopRequest, POLL_CYCLES, POLL_CYCLES_UNWATCHED};
use crate::timing::{Latency, Stats, TimingModel};
use crate::trace::{Access, Event, Tracer};

mod alu;
mod branch;
mod exception;
mod mac16;
mod memory;
mod registers;
mod report;
mod tier2;
mod window;

#[cfg(test)]
pub(crate) mod testing;

pub use self::exception::Vector;
pub use self::exception::WindowTrap;
pub use self::registers::{RegisterError, RegisterFile};
pub use self::report::backtrace;
pub use crate::semihost::Console;

use self::exception::{Exc, Reason};

type Res<T = ()> = Result<T, Exc>;

/// How an instruction continues: the target of a taken branch, jump, call or return, and the
/// cycles it takes beyond its issue cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Flow {
    target: Option<u32>,
    extra: u32,
}

impl Flow {
    /// On to the next instruction, no extra cycles.
    const NEXT: Flow = Flow {
        target: None,
        extra: 0,
    };

    /// A taken control transfer to `target`.
    #[inline(always)]
    fn to(target: u32) -> Flow {
        Flow {
            target: Some(target),
            extra: 0,
        }
    }

    /// To `target` when `taken`, else on.
    #[inline(always)]
    fn branch(taken: bool, target: u32) -> Flow {
        Flow {
            target: if taken { Some(target) } else { None },
            extra: 0,
        }
    }
}

/// What an interlock waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StallKind {
    Load,
    Multiply,
}

/// A long-latency result not yet usable: its register (as a logical mask) and ready cycle.
#[derive(Debug, Clone, Copy)]
struct Pending {
    mask: u16,
    ready: u64,
    kind: StallKind,
}

impl Pending {
    const NONE: Pending = Pending {
        mask: 0,
        ready: 0,
        kind: StallKind::Load,
    };
}

/// Where a program's stack lives: it grows down from `top` and must stay within
/// `bottom..=top`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackRegion {
    /// Lowest address the stack may use.
    pub bottom: u32,
    /// The initial stack pointer.
    pub top: u32,
}

impl StackRegion {
    /// Whether stack pointer `sp` has left the region: run off the bottom, or wrapped round
    /// the address space past 0 so that it lies above the top.
    pub fn overflowed(&self, sp: u32) -> bool {
        !(self.bottom..=self.top).contains(&sp)
    }

    /// The overflow of stack pointer `sp`, and what it went on to cause if anything.
    pub fn overflow(&self, sp: u32, then: Option<FaultKind>) -> FaultKind {
        FaultKind::StackOverflow {
            sp,
            bottom: self.bottom,
            top: self.top,
            then: then.map(Box::new),
        }
    }
}

/// One core attached to a bus.
#[derive(Debug)]
pub struct Core<B: Bus> {
    /// Architectural state.
    pub state: CoreState,
    /// Memory.
    pub bus: B,
    /// The core's configuration.
    pub config: &'static CoreConfig,
    /// The cycle model.
    pub timing: TimingModel,
    /// Counters.
    pub stats: Stats,
    /// Semihosting output.
    pub console: Console,
    /// Address ranges that hold exception-handler code (program code or boot ROM). A vector
    /// outside them is "not installed": the exception stops the core with a report.
    pub handler_code: Vec<Range<u32>>,
    /// Raised from outside (Ctrl-C) to stop the core where it is; looked at every
    /// [`Core::poll_period`] cycles.
    pub stop_request: StopRequest,
    /// The program's stack region, when known (a bare-metal image's link symbols): once the
    /// architectural SP (a1 outside exception handlers) has been inside it, an SP outside it
    /// is reported as a [`FaultKind::StackOverflow`] — at the ENTRY or MOVSP that takes it
    /// there from inside the region, and otherwise (call0 code moves a1 with ordinary
    /// instructions) when seen every [`POLL_CYCLES`] cycles, at an exception or when the core
    /// stops. `None`: no check (custom-op calls have KSL/ISL instead).
    pub stack_region: Option<StackRegion>,
    /// The lowest stack pointer an ENTRY or MOVSP has put in a1 since [`Core::prepare_call`]
    /// (`u32::MAX` before any): how deep the stack went. Window spills need no look of their
    /// own: a spill stores a frame's a0..a3 in the 16 bytes below the SP of the frame it
    /// called, and a CALL8/CALL12 frame's further registers in its own frame, so every byte a
    /// spill writes lies at most 16 bytes below an SP that ENTRY or MOVSP set.
    pub lowest_sp: u32,
    /// Where the core publishes its cycle count for an observer outside the run (a progress
    /// display): every [`Core::poll_period`] cycles and when a run ends. `None`: nothing
    /// published.
    pub progress: Option<Progress>,
    /// The cycle count the current run stops at (semihosting output is cut to fit it).
    deadline: u64,
    /// a1 has been seen inside [`Core::stack_region`] (the check is live).
    stack_armed: bool,
    cache: DecodeCache,
    /// The cache's decoded entries (moved out while [`Core::run`] executes from them in place).
    ops: Option<DecodedOps>,
    /// The two most recent long-latency results (latencies are at most two instructions deep,
    /// so older ones can no longer stall anything), by logical register of the current window.
    pending: [Pending; 2],
    /// The latest ready cycle among `pending` (skip the check when the pipeline is quiet).
    pending_until: u64,
    /// CCOUNT = cycles + this (WSR.CCOUNT moves it).
    ccount_offset: u32,
    /// Register groups above WINDOWBASE an instruction may name without a window overflow:
    /// the free groups before the next live frame (3 when checks are off). See [`Core::refresh`].
    window_limit: u8,
    /// The bits ([`Gate::bit`](crate::predecode::Gate::bit)) of the gates that may not run
    /// now: the instruction names a group beyond `window_limit`, or needs ring 0 outside it.
    /// See [`Core::refresh`].
    traps: u8,
    /// The data accesses of the current instruction, recorded only for an enabled tracer.
    accesses: Vec<Access>,
    /// Tier 2 (docs/jit.md), `None` when off: plain runs enter compiled blocks.
    jit: Option<Box<crate::jit::Jit>>,
    /// Set by an instruction that transferred control (taken branch, jump, loop-back): where
    /// it went may start a block.
    taken: bool,
}

/// A core as [`Core::checkpoint`] kept it: its architectural state, memory (the bus), counters
/// and pipeline, everything a later run starts from. Not kept: the decoded instructions (a
/// restore forgets them; decoding is not timed), the console, stop request and progress.
#[derive(Debug, Clone)]
pub struct CoreCheckpoint<B> {
    state: CoreState,
    bus: B,
    timing: TimingModel,
    stats: Stats,
    handler_code: Vec<Range<u32>>,
    stack_region: Option<StackRegion>,
    lowest_sp: u32,
    deadline: u64,
    stack_armed: bool,
    pending: [Pending; 2],
    pending_until: u64,
    ccount_offset: u32,
    window_limit: u8,
    traps: u8,
}

impl<B: Bus + Clone> Core<B> {
    /// The core now, to come back to with [`Core::restore`].
    pub fn checkpoint(&self) -> CoreCheckpoint<B> {
        CoreCheckpoint {
            state: self.state.clone(),
            bus: self.bus.clone(),
            timing: self.timing.clone(),
            stats: self.stats.clone(),
            handler_code: self.handler_code.clone(),
            stack_region: self.stack_region,
            lowest_sp: self.lowest_sp,
            deadline: self.deadline,
            stack_armed: self.stack_armed,
            pending: self.pending,
            pending_until: self.pending_until,
            ccount_offset: self.ccount_offset,
            window_limit: self.window_limit,
            traps: self.traps,
        }
    }

    /// Makes the core what it was at `c` (decoded instructions forgotten).
    pub fn restore(&mut self, c: &CoreCheckpoint<B>) {
        self.restore_keeping_code(c);
        self.invalidate_code();
    }

    /// Makes the core what it was at `c` but keeps its decoded and compiled code, which the
    /// caller must then check against memory with [`Core::keep_code_if_unchanged`] (given the
    /// [`Core::code_image`] taken before), once all memory it reads is restored too.
    pub fn restore_keeping_code(&mut self, c: &CoreCheckpoint<B>) {
        self.state = c.state.clone();
        self.bus = c.bus.clone();
        self.timing = c.timing.clone();
        self.stats = c.stats.clone();
        self.handler_code = c.handler_code.clone();
        self.stack_region = c.stack_region;
        self.lowest_sp = c.lowest_sp;
        self.deadline = c.deadline;
        self.stack_armed = c.stack_armed;
        self.pending = c.pending;
        self.pending_until = c.pending_until;
        self.ccount_offset = c.ccount_offset;
        self.window_limit = c.window_limit;
        self.traps = c.traps;
        self.accesses.clear();
        // The memory's touched granules may be fewer now: compiled stores go through the
        // helper again, which counts them.
        self.cache.forget_store_ok();
    }
}

/// What a core's decoded and compiled code was made from, as memory held it when taken: every
/// word of every 64-byte granule the code lies in, and the timing model compiled code has its
/// cycles from. A library kept loaded between calls is restored from its checkpoint before
/// each call; its code is kept when this still matches (docs/jit.md "Kept code").
#[derive(Debug, Clone)]
pub struct CodeImage {
    timing: TimingModel,
    words: Vec<(u32, Option<u32>)>,
}

impl<B: Bus> Core<B> {
    /// The core's [`CodeImage`] now.
    pub fn code_image(&self) -> CodeImage {
        let mut granules: Vec<u32> = self.cache.granules().collect();
        if let Some(j) = &self.jit {
            granules.extend(j.granules());
        }
        granules.sort_unstable();
        granules.dedup();
        let words = granules
            .iter()
            .flat_map(|&g| (0..16u32).map(move |i| g.wrapping_add(4 * i)))
            .map(|a| (a, self.bus.peek(a)))
            .collect();
        CodeImage {
            timing: self.timing.clone(),
            words,
        }
    }

    /// Keeps the decoded and compiled code when memory and the timing model are what `image`
    /// saw (every word readable and equal), else forgets it: whether it was kept.
    pub fn keep_code_if_unchanged(&mut self, image: &CodeImage) -> bool {
        let same = image.timing == self.timing
            && image
                .words
                .iter()
                .all(|&(a, w)| w.is_some() && self.bus.peek(a) == w);
        if !same {
            self.invalidate_code();
        }
        same
    }
}

impl<B: Bus> Core<B> {
    /// A core in reset state, starting at `pc` with VECBASE `vecbase`.
    pub fn new(config: &'static CoreConfig, bus: B, prid: u32, pc: u32, vecbase: u32) -> Self {
        let mut core = Core {
            state: CoreState::reset(config, prid, pc, vecbase),
            bus,
            config,
            timing: TimingModel::default(),
            stats: Stats::default(),
            console: Console::default(),
            handler_code: Vec::new(),
            stop_request: StopRequest::default(),
            stack_region: None,
            lowest_sp: u32::MAX,
            progress: None,
            deadline: u64::MAX,
            stack_armed: false,
            cache: DecodeCache::new(),
            ops: Some(DecodedOps::new()),
            pending: [Pending::NONE; 2],
            pending_until: 0,
            ccount_offset: 0,
            window_limit: 3,
            traps: 0,
            accesses: Vec::new(),
            jit: crate::jit::default_on().then(Box::default),
            taken: false,
        };
        core.refresh();
        core
    }

    /// Forgets decoded instructions (after memory was changed behind the core's back).
    pub fn invalidate_code(&mut self) {
        self.cache.clear();
        if let Some(j) = &mut self.jit {
            j.clear();
        }
    }

    /// Sets the core up to run a windowed call from a fresh frame: WINDOWBASE 0 with only
    /// that frame live, PS = WOE alone (ring 0, EXCM clear, interrupt level 0), a1 = `sp` (and
    /// [`Core::lowest_sp`] too), each `(register, value)` of `registers` set in the new window,
    /// execution to start at `pc`.
    pub fn prepare_call(&mut self, pc: u32, sp: u32, registers: &[(u32, u32)]) {
        use q7_isa::sreg::sr;
        self.state.set_windowbase(0);
        self.state.set_sr(sr::WINDOWSTART, 1);
        self.state.set_sr(sr::PS, ps::WOE);
        self.state.set_a(1, sp);
        self.lowest_sp = sp;
        for &(r, v) in registers {
            self.state.set_a(r, v);
        }
        self.state.pc = pc;
        self.refresh();
    }

    /// Runs until exit, fault or until the core's cycle count reaches `max_cycles`.
    pub fn run<T: Tracer>(&mut self, max_cycles: u64, tracer: &mut T) -> Stop {
        self.run_until(max_cycles, max_cycles, tracer)
    }

    /// Runs until exit, fault or `budget` more cycles than the core has already spent.
    pub fn run_for<T: Tracer>(&mut self, budget: u64, tracer: &mut T) -> Stop {
        let deadline = self.stats.cycles.saturating_add(budget);
        self.run_until(deadline, budget, tracer)
    }

    /// Runs until exit, fault or cycle count `deadline`; a runaway is reported as exhausting
    /// `budget`.
    fn run_until<T: Tracer>(&mut self, deadline: u64, budget: u64, tracer: &mut T) -> Stop {
        self.refresh();
        self.deadline = deadline;
        let mut ops = self.take_ops();
        // The PC lives in a register between instructions (the state's copy is written as each
        // instruction starts), so the next fetch does not wait on a store of the last one.
        let mut pc = self.state.pc;
        // One comparison per instruction covers the deadline and the periodic look at the
        // stop request and the stack; the first look is before the first instruction, so a
        // run shorter than the period still sees a stop already requested.
        let mut poll = self.stats.cycles;
        // Tier 2 only for plain runs (docs/jit.md "Observers"); after a block left before an
        // instruction, the interpreter executes that one first.
        // Blocks start where control was transferred to: tier 2 looks at the PC after a taken
        // branch, jump, call, return, loop-back or exception, and where a block left off.
        let tier2 = !T::ENABLED && self.jit.is_some();
        let mut look = tier2;
        // Set when tier 2 asks for the look now, ahead of its cycle (docs/jit.md "Exact stops").
        let mut early = false;
        let stop = loop {
            if self.stats.cycles >= poll || early {
                early = false;
                self.state.pc = pc;
                if let Some(kind) = self.poll(budget) {
                    break Err(kind);
                }
                poll = deadline.min(self.stats.cycles.saturating_add(self.poll_period()));
            }
            if look {
                match self.tier2(&mut ops, pc, poll) {
                    tier2::Tier2::Ran(next, interpret_first) => {
                        pc = next;
                        look = !interpret_first;
                        continue;
                    }
                    tier2::Tier2::LookNow => {
                        early = true;
                        continue;
                    }
                    tier2::Tier2::Interpret => {}
                }
            }
            self.taken = false;
            match self.step_at(&mut ops, pc, tracer) {
                Ok(next) => {
                    pc = next;
                    look = tier2 && self.taken;
                }
                Err(stop) => break Ok(stop),
            }
        };
        self.ops = Some(ops);
        self.deadline = u64::MAX;
        if let Some(p) = &self.progress {
            p.ended(self.stats.cycles);
        }
        stop.unwrap_or_else(|kind| Stop::Fault(Box::new(self.report(pc, kind, None))))
    }

    /// Cycles between two periodic looks: [`POLL_CYCLES`] when the stack is watched
    /// ([`Core::stack_region`]), else [`POLL_CYCLES_UNWATCHED`].
    pub fn poll_period(&self) -> u64 {
        if self.stack_region.is_some() {
            POLL_CYCLES
        } else {
            POLL_CYCLES_UNWATCHED
        }
    }

    /// The periodic look: why the core must stop now, if it must.
    #[cold]
    #[inline(never)]
    fn poll(&mut self, budget: u64) -> Option<FaultKind> {
        if let Some(p) = &self.progress {
            p.publish(self.stats.cycles);
        }
        if self.stats.cycles >= self.deadline {
            return Some(FaultKind::BudgetExhausted { max_cycles: budget });
        }
        if self.stop_request.is_requested() {
            return Some(FaultKind::Interrupted);
        }
        self.stack_overflow()
    }

    /// The periodic look of a run for a caller that steps the core itself
    /// ([`crate::debug::run`]): a stop when the cycle count reached `deadline` (reported as
    /// exhausting `budget`), a stop was requested or the stack left its region.
    pub fn look(&mut self, deadline: u64, budget: u64) -> Option<Stop> {
        let saved = std::mem::replace(&mut self.deadline, deadline);
        let kind = self.poll(budget);
        self.deadline = saved;
        kind.map(|kind| Stop::Fault(Box::new(self.report(self.state.pc, kind, None))))
    }

    /// The architectural stack pointer: a1 of the current window while PS.EXCM is clear.
    /// `None` inside an exception handler (PS.EXCM set), where a1 need not be the program's
    /// SP: a window overflow or underflow handler runs in the rotated window of the frame it
    /// spills or refills, whose a1 holds a stale value until the handler reloads it, and any
    /// other handler may use a1 as it likes.
    #[inline]
    pub(super) fn architectural_sp(&self) -> Option<u32> {
        (self.state.ps() & ps::EXCM == 0).then(|| self.state.a(1))
    }

    /// The stack check: once the architectural SP ([`Core::architectural_sp`]) has been seen
    /// inside the stack region (out of reset a1 holds whatever the reset state gives, until
    /// the program's start-up code sets it), an architectural SP outside it is an overflow.
    /// Inside an exception handler there is nothing to check.
    pub(super) fn stack_overflow(&mut self) -> Option<FaultKind> {
        let region = self.stack_region?;
        let sp = self.architectural_sp()?;
        if !region.overflowed(sp) {
            self.stack_armed = true;
            return None;
        }
        self.stack_armed.then(|| region.overflow(sp, None))
    }

    /// The decoded entries, moved out of the core while it executes from them. (They are only
    /// missing if a run was unwound by a panic; the cache then starts over.)
    fn take_ops(&mut self) -> DecodedOps {
        self.ops.take().unwrap_or_else(|| {
            self.cache.clear();
            DecodedOps::new()
        })
    }

    /// Executes one instruction (or takes one exception). `Some` when the core stops.
    pub fn step<T: Tracer>(&mut self, tracer: &mut T) -> Option<Stop> {
        let mut ops = self.take_ops();
        let result = self.step_at(&mut ops, self.state.pc, tracer);
        self.ops = Some(ops);
        match result {
            Ok(next) => {
                self.state.pc = next;
                None
            }
            Err(stop) => Some(stop),
        }
    }

    /// Executes the instruction at `pc` straight from its cache entry (the caller holds the
    /// decoded entries) or takes its exception: the PC to continue at, or why the core stops.
    /// Leaves `state.pc` at `pc` unless an exception moved it.
    #[inline(always)]
    fn step_at<T: Tracer>(
        &mut self,
        ops: &mut DecodedOps,
        pc: u32,
        tracer: &mut T,
    ) -> Result<u32, Stop> {
        self.state.pc = pc;
        let slot = self.decoded(ops, pc);
        let op = ops.get(slot);
        if B::FETCH_TIMING {
            let c = self.bus.fetch_cycles(pc);
            if c != 0 {
                self.stats.cycles += u64::from(c);
                self.stats.stalls.fetch += u64::from(c);
            }
        }
        if T::ENABLED {
            self.accesses.clear();
        }
        if T::ENABLED && T::BEFORE {
            tracer.event(Event::Before {
                state: &self.state,
                insn: op,
                cycle: self.stats.cycles,
            });
        }
        match self.execute::<T>(op, pc) {
            Ok(next) => {
                self.stats.instructions += 1;
                if T::ENABLED {
                    tracer.event(Event::After {
                        pc,
                        next,
                        insn: op,
                        state: &self.state,
                        cycle: self.stats.cycles,
                        stats: &self.stats,
                        accesses: &self.accesses,
                    });
                }
                Ok(next)
            }
            Err(e) => match self.take(pc, op, e, tracer) {
                Some(stop) => Err(stop),
                None => {
                    // Control went to a vector: tier 2 looks there (window handlers compile).
                    self.taken = true;
                    Ok(self.state.pc)
                }
            },
        }
    }

    /// The cache slot of the instruction at `pc`, decoded into the cache first if it is not
    /// there.
    #[inline(always)]
    fn decoded(&mut self, ops: &mut DecodedOps, pc: u32) -> usize {
        match self.cache.slot(pc) {
            Some(slot) => slot,
            None => self.fill(ops, pc),
        }
    }

    /// Decodes the instruction at `pc` into the cache; its slot.
    #[cold]
    #[inline(never)]
    fn fill(&mut self, ops: &mut DecodedOps, pc: u32) -> usize {
        let mut buf = [0u8; 16];
        let op = match self.bus.fetch(pc, &mut buf) {
            Ok(n) => Op::decode(&buf[..n], pc, self.config),
            Err(_) => Op::bad(Undecodable::Fetch),
        };
        self.cache.insert(ops, pc, op)
    }

    // ----------------------------------------------------------------------------- pipeline

    #[inline(always)]
    fn a(&self, r: u32) -> u32 {
        self.state.a(r)
    }

    #[inline(always)]
    fn set(&mut self, r: u32, v: u32) {
        self.state.set_a(r, v)
    }

    /// Recomputes what the per-instruction gate compares against; call after any change of
    /// WINDOWBASE, WINDOWSTART or PS (the core does; code that edits `state` directly must
    /// too, or use [`Core::prepare_call`]).
    pub fn refresh(&mut self) {
        // Logical register masks of pending results refer to the window they were made in.
        self.pending = [Pending::NONE; 2];
        self.window_limit = self.free_groups();
        // Gates 0..3 are groups 0..3, gates 4..7 the same groups privileged: those beyond the
        // window limit trap, and outside ring 0 every privileged one does.
        let beyond = (0xfu8 << (self.window_limit + 1)) & 0xf;
        let privileged = if self.state.cring() != 0 {
            0xf0
        } else {
            beyond << 4
        };
        self.traps = beyond | privileged;
    }

    /// The gate tripped: the window overflow the instruction needs first, else its privilege
    /// exception (raised, as its own check would be, after the interlocks it waits for).
    #[cold]
    #[inline(never)]
    fn gated(&mut self, op: &Op) -> Exc {
        if op.gate.group() > self.window_limit {
            return Exc::overflow(u32::from(self.window_limit) + 1);
        }
        self.interlock(op);
        Exc::general(Reason::Privileged {
            opcode: op.insn.opcode,
            ring: self.state.cring(),
        })
    }

    /// Waits for the pending long-latency results `op` reads.
    #[inline(always)]
    fn interlock(&mut self, op: &Op) {
        let now = self.stats.cycles;
        if self.pending_until > now && op.src_mask != 0 {
            let mut stall = 0u64;
            let mut kind = StallKind::Load;
            for p in &self.pending {
                if op.src_mask & p.mask != 0 && p.ready > now + stall {
                    stall = p.ready - now;
                    kind = p.kind;
                }
            }
            if stall != 0 {
                self.stats.cycles += stall;
                match kind {
                    StallKind::Load => self.stats.stalls.load_use += stall,
                    StallKind::Multiply => self.stats.stalls.multiply += stall,
                }
            }
        }
    }

    /// Marks logical register `r` (just written by an instruction of `opcode`) as usable only
    /// after the latency of the opcode's class (a column of the opcode table). `opcode` is a
    /// constant of the dispatch, so the class is too.
    #[inline(always)]
    fn late_result(&mut self, opcode: Opcode, r: u32) {
        let class = opcode.latency();
        let kind = match class {
            Latency::Load => StallKind::Load,
            Latency::Multiply | Latency::MultiplyHigh => StallKind::Multiply,
            Latency::Single | Latency::Divide => return,
        };
        let extra = self.timing.result_delay(class);
        if extra != 0 {
            let ready = self.stats.cycles + u64::from(self.timing.issue) + u64::from(extra);
            self.pending[1] = self.pending[0];
            self.pending[0] = Pending {
                mask: 1 << r,
                ready,
                kind,
            };
            self.pending_until = self.pending_until.max(ready);
        }
    }

    // ------------------------------------------------------------------------------ execute

    /// Executes `op` at `pc`: the next PC. Its data accesses are recorded when `T` is an
    /// enabled tracer.
    #[inline(always)]
    fn execute<T: Tracer>(&mut self, op: &Op, pc: u32) -> Res<u32> {
        if self.traps & op.gate.bit() != 0 {
            return Err(self.gated(op));
        }
        self.interlock(op);
        let next = pc.wrapping_add(u32::from(op.insn.len));
        // One arm per opcode, each handing the family the opcode table names for it the opcode
        // as a constant, so the family's own match folds away and this is the only dispatch.
        let flow = q7_isa::dispatch_by_family!(op.insn.opcode, |k| {
            Alu => self.alu(k, op)?,
            Memory => self.memory::<T>(k, op, pc)?,
            Branch => self.branch(k, op, next),
            Window => self.window(k, op, next)?,
            Register => self.registers(k, op),
            Exception => self.exception(k, op)?,
            Mac16 => self.mac16::<T>(op)?,
        });

        // Completion: cycles, PC and the zero-overhead loop-back.
        let mut cost = u64::from(self.timing.issue) + u64::from(flow.extra);
        let npc = match flow.target {
            Some(t) => {
                cost += u64::from(self.timing.taken_branch);
                self.stats.stalls.taken_branch += u64::from(self.timing.taken_branch);
                self.taken = true;
                t
            }
            None if next == self.state.lend() => match self.loop_back() {
                Some(lbeg) => {
                    cost += u64::from(self.timing.loop_back);
                    self.stats.stalls.taken_branch += u64::from(self.timing.loop_back);
                    self.taken = true;
                    lbeg
                }
                None => next,
            },
            None => next,
        };
        self.stats.cycles += cost;
        Ok(npc)
    }
}

/// An opcode reached a family that does not implement it: the opcode table's family column
/// (which routes the dispatch in `execute`) and the family's own `match` disagree (a bug,
/// caught by the test that runs every opcode).
#[cold]
#[inline(never)]
fn not_in_family(family: &str, op: &Op) -> ! {
    panic!(
        "{} dispatched to the {family} family",
        op.insn.opcode.mnemonic()
    )
}

#[cfg(test)]
mod tests {
    use super::testing::{core_exiting, core_with, run_to_exit, CODE};
    use super::*;
    use crate::predecode::Gate;
    use crate::trace::NoTrace;
    use q7_isa::sreg::sr;
    use q7_isa::{Insn, OPCODES};

    #[test]
    fn every_opcode_of_both_profiles_reaches_the_family_that_implements_it() {
        for config in q7_isa::PROFILES {
            for row in OPCODES.iter().filter(|r| config.has(r.options)) {
                let mut core = core_with(config, &[]);
                // Operand values 1 are valid for every operand kind the emulator reads.
                let insn = Insn::new(row.opcode, &[1, 1, 1, 1][..row.operands.len()]);
                let _ = core.execute::<NoTrace>(&Op::from_insn(insn), 0x1000);
            }
        }
    }

    #[test]
    fn prepare_call_starts_a_fresh_windowed_frame() {
        let mut core = core_with(&q7_isa::DC233C, &[]);
        core.state.set_windowbase(3);
        core.state.set_sr(sr::WINDOWSTART, 0b1010);
        core.state.set_sr(sr::PS, ps::EXCM | ps::UM | 5);
        core.prepare_call(0x2000, 0x8000, &[(8, 0x3000), (2, 7)]);
        let s = &core.state;
        assert_eq!((s.pc, s.windowbase(), s.windowstart()), (0x2000, 0, 1));
        assert_eq!(s.ps(), ps::WOE);
        assert_eq!((s.a(1), s.a(2), s.a(8)), (0x8000, 7, 0x3000));
        assert_eq!(core.window_limit, 3, "no live frame above");
    }

    #[test]
    fn the_trap_bits_are_the_gates_beyond_the_window_limit_or_privileged_outside_ring0() {
        let mut core = core_with(&q7_isa::DC233C, &[]);
        for ws in 0..16u32 {
            for ps in [
                ps::WOE,
                ps::WOE | 1 << ps::RING_SHIFT,
                ps::EXCM,
                3 << ps::RING_SHIFT,
            ] {
                core.state.set_sr(sr::WINDOWSTART, ws);
                core.state.set_sr(sr::PS, ps);
                core.refresh();
                let expected = (0..Gate::COUNT)
                    .map(Gate::from_index)
                    .filter(|g| {
                        g.group() > core.window_limit || (g.privileged() && core.state.cring() != 0)
                    })
                    .fold(0, |traps, g| traps | g.bit());
                assert_eq!(core.traps, expected, "WINDOWSTART {ws:#b}, PS {ps:#x}");
            }
        }
    }

    #[test]
    fn the_gate_traps_privileged_ops_outside_ring0_and_overflowing_groups() {
        let mut core = core_with(&q7_isa::DC233C, &[]);
        core.state.set_sr(sr::PS, ps::WOE | (1 << ps::RING_SHIFT));
        core.state.set_sr(sr::WINDOWSTART, 0b101);
        core.refresh();
        assert_eq!(core.window_limit, 1, "frame live two groups up");
        for (group, privileged, traps) in [
            (0, false, false),
            (1, false, false),
            (2, false, true),
            (0, true, true),
        ] {
            let g = Gate::new(group, privileged);
            assert_eq!(core.traps & g.bit() != 0, traps, "{g:?}");
        }
        core.state.set_sr(sr::PS, ps::WOE);
        core.refresh();
        assert_eq!(core.traps & Gate::new(0, true).bit(), 0, "ring 0");
    }

    #[test]
    fn a_stop_requested_before_a_run_stops_it_before_its_first_instruction() {
        let mut core = core_exiting(&q7_isa::DC233C, &[(Opcode::Movi, vec![2, 3])], 2);
        let stop = StopRequest::new();
        core.stop_request = stop.clone();
        stop.request();
        let Stop::Fault(r) = core.run(1000, &mut NoTrace) else {
            panic!("expected the interrupt");
        };
        assert_eq!(
            (r.kind, r.pc, core.stats.instructions),
            (FaultKind::Interrupted, CODE, 0)
        );
        stop.clear();
        assert_eq!(
            core.run(1000, &mut NoTrace),
            Stop::Exited(3),
            "it goes on from there"
        );
    }

    #[test]
    fn a_stack_pointer_outside_its_region_is_seen_at_the_next_look() {
        // a1 starts outside the region (as out of reset), is set to its top, 0x100000, then
        // steps down 16 bytes per loop iteration to past the bottom, 0x80000.
        let code = [
            (Opcode::Movi, vec![1, 0x400]),
            (Opcode::Slli, vec![1, 1, 10]),
            (Opcode::Addi, vec![1, 1, (-16i32) as u32]),
            (Opcode::J, vec![CODE + 6]),
        ];
        let mut core = core_with(&q7_isa::DC233C, &code);
        core.state.set_a(1, 0x8000_0000);
        // Out of an exception handler (the reset PS has EXCM set, where a1 is not looked at).
        core.state.set_sr(q7_isa::sreg::sr::PS, 0);
        core.stack_region = Some(StackRegion {
            bottom: 0x8_0000,
            top: 0x10_0000,
        });
        let Stop::Fault(r) = core.run(1_000_000, &mut NoTrace) else {
            panic!("expected the overflow");
        };
        let FaultKind::StackOverflow {
            sp,
            bottom,
            top,
            then,
        } = r.kind
        else {
            panic!("{r}");
        };
        assert_eq!((bottom, top, then), (0x8_0000, 0x10_0000, None));
        // The look comes every POLL_CYCLES cycles; an iteration (addi, taken j) takes 4.
        assert!(
            sp < bottom && bottom - sp <= POLL_CYCLES as u32 / 4 * 16,
            "{sp:#x}"
        );
        assert_eq!(sp % 16, 0);
        // The same program inside an exception handler (PS.EXCM set, as a window handler
        // runs): a1 is not the program's stack pointer there and is never looked at.
        let mut core = core_with(&q7_isa::DC233C, &code);
        core.state.set_sr(q7_isa::sreg::sr::PS, ps::EXCM);
        core.stack_region = Some(StackRegion {
            bottom: 0x8_0000,
            top: 0x10_0000,
        });
        let Stop::Fault(r) = core.run(1_000_000, &mut NoTrace) else {
            panic!("expected the budget to end the run");
        };
        assert_eq!(
            r.kind,
            FaultKind::BudgetExhausted {
                max_cycles: 1_000_000
            }
        );
    }

    #[test]
    fn a_loop_body_runs_count_times_and_the_loop_back_is_free() {
        // movi a2, 3; movi a3, 0; loop a2, end; addi a3, a3, 1; end: exit with a3.
        let code = [
            (Opcode::Movi, vec![2, 3]),
            (Opcode::Movi, vec![3, 0]),
            (Opcode::Loop, vec![2, 0x100c]),
            (Opcode::Addi, vec![3, 3, 1]),
        ];
        let mut core = core_exiting(&q7_isa::DC233C, &code, 3);
        assert_eq!(core.run(1000, &mut NoTrace), Stop::Exited(3));
        // 3 + 3 body instructions + 3 exit instructions, one cycle each but the exiting
        // SIMCALL, which stops the core before its cycle is counted.
        assert_eq!((core.stats.instructions, core.stats.cycles), (9, 8));
        let s = &core.stats;
        assert_eq!(
            s.cycles,
            (s.instructions + s.exceptions - 1) + s.stalls.total()
        );
        assert_eq!(run_to_exit(&q7_isa::DC233C, &code[..2], 3), Stop::Exited(0));

        // A loop back-edge that costs a cycle is a taken-branch stall: two back-edges.
        let mut core = core_exiting(&q7_isa::DC233C, &code, 3);
        core.timing.loop_back = 1;
        assert_eq!(core.run(1000, &mut NoTrace), Stop::Exited(3));
        assert_eq!((core.stats.cycles, core.stats.stalls.taken_branch), (10, 2));
    }

    #[test]
    fn every_cycle_key_at_its_bound_is_charged_in_full() {
        // A load, a multiply and a high multiply each used by the next instruction, a divide
        // and a taken jump: each charges its key exactly, whatever the keys are within their
        // bounds (docs/timing.md "Bounds"), and every cycle is an issue cycle or a stall.
        let code = [
            (Opcode::Movi, vec![4, 0x200]),
            (Opcode::L32i, vec![3, 4, 0]),
            (Opcode::Add, vec![5, 3, 3]),
            (Opcode::Mull, vec![6, 5, 5]),
            (Opcode::Add, vec![7, 6, 6]),
            (Opcode::Muluh, vec![8, 5, 5]),
            (Opcode::Add, vec![9, 8, 8]),
            (Opcode::Movi, vec![10, 3]),
            (Opcode::Quou, vec![11, 5, 10]),
            (Opcode::J, vec![CODE + 30]),
        ];
        let max = crate::timing::bounds::MAX_CYCLES;
        let at_max = TimingModel {
            issue: max,
            load_use: max,
            taken_branch: max,
            mul_use: max,
            mul_high_use: max,
            divide: max,
            ..TimingModel::default()
        };
        for m in [
            at_max.clone(),
            TimingModel {
                issue: 1,
                ..at_max.clone()
            },
            TimingModel {
                issue: 7,
                load_use: max - 1,
                divide: 3,
                ..at_max
            },
        ] {
            assert_eq!(m.check(), Ok(()));
            let mut core = core_exiting(&q7_isa::NCORE2GP, &code, 10);
            core.timing = m.clone();
            assert_eq!(core.run(u64::MAX / 2, &mut NoTrace), Stop::Exited(3));
            let s = &core.stats;
            assert_eq!(s.instructions, 13);
            assert_eq!(s.stalls.load_use, u64::from(m.load_use));
            assert_eq!(
                s.stalls.multiply,
                u64::from(m.mul_use) + u64::from(m.mul_high_use)
            );
            assert_eq!(s.stalls.divide, u64::from(m.divide.saturating_sub(m.issue)));
            assert_eq!(s.stalls.taken_branch, u64::from(m.taken_branch));
            assert_eq!(
                s.cycles - s.stalls.total(),
                u64::from(m.issue) * (s.instructions + s.exceptions - 1),
                "{m}"
            );
        }
    }

    #[test]
    fn a_core_publishes_its_cycles_when_a_run_ends() {
        let code = [(Opcode::Movi, vec![3, 7])];
        let mut core = core_exiting(&q7_isa::DC233C, &code, 3);
        let progress = Progress::new();
        core.progress = Some(progress.clone());
        assert_eq!(core.run(1000, &mut NoTrace), Stop::Exited(7));
        assert_eq!((progress.cycles(), progress.runs()), (core.stats.cycles, 1));
    }
}
