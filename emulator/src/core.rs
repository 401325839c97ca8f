//! One core: fetch (through the decoded-instruction cache), the window-overflow check, execute,
//! zero-overhead loop-back, the cycle model, and XEA2-style exception dispatch
//! (reference/xtensa-isa.md §2–§6). Exceptions go to VECBASE-relative vectors when code is
//! installed there; otherwise the core stops with a [`FaultReport`].

use std::io::Write;
use std::ops::Range;

use q7_isa::{sreg, CoreConfig, Opcode, Options};

use crate::bus::{Bus, BusFault};
use crate::fault::{ExcCause, FaultKind, FaultReport, Frame, Stop};
use crate::predecode::{DecodeCache, DecodedOps, Op, Undecodable};
use crate::state::{ps, sr, CoreState};
use crate::timing::{Stats, TimingModel};
use crate::trace::{Event, Tracer};

/// Vector offsets from VECBASE (reference §5.2).
pub mod vector {
    /// WindowOverflow4.
    pub const OVERFLOW4: u32 = 0x000;
    /// WindowUnderflow4.
    pub const UNDERFLOW4: u32 = 0x040;
    /// WindowOverflow8.
    pub const OVERFLOW8: u32 = 0x080;
    /// WindowUnderflow8.
    pub const UNDERFLOW8: u32 = 0x0c0;
    /// WindowOverflow12.
    pub const OVERFLOW12: u32 = 0x100;
    /// WindowUnderflow12.
    pub const UNDERFLOW12: u32 = 0x140;
    /// KernelExceptionVector (PS.UM = 0).
    pub const KERNEL: u32 = 0x300;
    /// UserExceptionVector (PS.UM = 1).
    pub const USER: u32 = 0x340;
    /// DoubleExceptionVector.
    pub const DOUBLE: u32 = 0x3c0;
}

/// An exception raised by an instruction (before any of its effects). Kept to two words so
/// the per-instruction `Result` travels in registers; the rare detailed cases are boxed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Exc {
    General(Box<GeneralExc>),
    Overflow(u32),
    Underflow(u32),
    Fatal(Box<(FaultKind, Option<u32>)>),
    Exit(i32),
}

/// A general exception: EXCCAUSE, EXCVADDR and what exactly happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GeneralExc {
    cause: ExcCause,
    vaddr: Option<u32>,
    detail: String,
}

fn fatal(kind: FaultKind, address: Option<u32>) -> Exc {
    Exc::Fatal(Box::new((kind, address)))
}

type Res<T = ()> = Result<T, Exc>;

fn general(cause: ExcCause, vaddr: Option<u32>, detail: impl Into<String>) -> Exc {
    Exc::General(Box::new(GeneralExc {
        cause,
        vaddr,
        detail: detail.into(),
    }))
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

/// Where semihosting output goes.
pub struct Console {
    /// File descriptor 1.
    pub stdout: Box<dyn Write + Send>,
    /// File descriptor 2.
    pub stderr: Box<dyn Write + Send>,
}

impl std::fmt::Debug for Console {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Console")
    }
}

impl Default for Console {
    fn default() -> Self {
        Console {
            stdout: Box::new(std::io::stdout()),
            stderr: Box::new(std::io::stderr()),
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
            cache: DecodeCache::new(),
            ops: Some(DecodedOps::new()),
            pending: [Pending::NONE; 2],
            pending_until: 0,
            ccount_offset: 0,
            window_limit: 3,
        };
        core.refresh();
        core
    }

    /// Forgets decoded instructions (after memory was changed behind the core's back).
    pub fn invalidate_code(&mut self) {
        self.cache.clear();
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
        let mut ops = self.take_ops();
        // The PC lives in a register between instructions (the state's copy is written as each
        // instruction starts), so the next fetch does not wait on a store of the last one.
        let mut pc = self.state.pc;
        let stop = loop {
            if self.stats.cycles >= deadline {
                self.state.pc = pc;
                break None;
            }
            match self.step_at(&mut ops, pc, tracer) {
                Ok(next) => pc = next,
                Err(stop) => break Some(stop),
            }
        };
        self.ops = Some(ops);
        stop.unwrap_or_else(|| {
            Stop::Fault(Box::new(self.report(
                pc,
                FaultKind::BudgetExhausted { max_cycles: budget },
                None,
            )))
        })
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
        let slot = match self.cache.slot(pc) {
            Some(slot) => slot,
            None => self.fill(ops, pc),
        };
        let op = ops.get(slot);
        if B::FETCH_TIMING {
            let c = self.bus.fetch_cycles(pc);
            if c != 0 {
                self.stats.cycles += u64::from(c);
                self.stats.stalls.fetch += u64::from(c);
            }
        }
        if T::ENABLED {
            tracer.event(Event::Before {
                state: &self.state,
                insn: op,
            });
        }
        match self.execute(op, pc) {
            Ok(next) => {
                self.stats.instructions += 1;
                Ok(next)
            }
            Err(e) => match self.take(pc, op, e, tracer) {
                Some(stop) => Err(stop),
                None => Ok(self.state.pc),
            },
        }
    }

    /// Decodes the instruction at `pc` into the cache; its slot.
    #[cold]
    #[inline(never)]
    fn fill(&mut self, ops: &mut DecodedOps, pc: u32) -> usize {
        let mut buf = [0u8; 16];
        let op = match self.bus.fetch(pc, &mut buf) {
            Ok(n) => Op::decode(&buf[..n], pc, self.config),
            Err(_) => Op {
                bad: Some(Undecodable::Fetch),
                ..Op::decode(&[], pc, self.config)
            },
        };
        self.cache.insert(ops, pc, op)
    }

    // ----------------------------------------------------------------------------- registers

    #[inline]
    fn a(&self, r: u32) -> u32 {
        self.state.a(r)
    }

    #[inline]
    fn set(&mut self, r: u32, v: u32) {
        self.state.set_a(r, v)
    }

    fn privileged(&self, what: &str) -> Res {
        if self.state.cring() != 0 {
            return Err(general(
                ExcCause::Privileged,
                None,
                format!("{what} in ring {}", self.state.cring()),
            ));
        }
        Ok(())
    }

    // -------------------------------------------------------------------------------- memory

    fn mem_fault(e: BusFault, addr: u32, store: bool) -> Exc {
        match e {
            BusFault::Unmapped { .. } => general(
                ExcCause::LoadStoreError,
                Some(addr),
                format!(
                    "{} of unmapped address {addr:#010x}",
                    if store { "store" } else { "load" }
                ),
            ),
            BusFault::Device { message, .. } => {
                general(ExcCause::LoadStoreError, Some(addr), message)
            }
            BusFault::Prohibited { kind, .. } => general(
                if store {
                    ExcCause::StoreProhibited
                } else {
                    ExcCause::LoadProhibited
                },
                Some(addr),
                format!("{kind} not allowed at {addr:#010x}"),
            ),
        }
    }

    #[cold]
    #[inline(never)]
    fn unaligned(addr: u32, size: u32, what: &str) -> Exc {
        general(
            ExcCause::LoadStoreAlignment,
            Some(addr),
            format!("unaligned {size}-byte {what} {addr:#010x}"),
        )
    }

    /// Alignment check and memory-latency charge shared by every data access.
    #[inline(always)]
    fn access(&mut self, addr: u32, size: u32, what: &'static str) -> Res {
        if addr & (size - 1) != 0 {
            return Err(Self::unaligned(addr, size, what));
        }
        let lat = self.bus.data_latency(addr);
        if lat != 0 {
            self.stats.cycles += u64::from(lat);
            self.stats.stalls.memory += u64::from(lat);
        }
        Ok(())
    }

    #[inline(always)]
    fn load(&mut self, addr: u32, size: u32) -> Res<u32> {
        self.access(addr, size, "load from")?;
        let now = self.stats.cycles;
        self.bus
            .load(addr, size, now)
            .map_err(|e| Self::mem_fault(e, addr, false))
    }

    #[inline(always)]
    fn store(&mut self, addr: u32, size: u32, v: u32) -> Res {
        self.access(addr, size, "store to")?;
        let now = self.stats.cycles;
        let wait = self
            .bus
            .store(addr, size, v, now)
            .map_err(|e| Self::mem_fault(e, addr, true))?;
        if wait != 0 {
            self.stats.cycles += wait;
            self.stats.stalls.device_wait += wait;
        }
        if self.bus.may_hold_code(addr) {
            self.cache.store(addr, size);
        }
        Ok(())
    }

    /// Marks logical register `r` (just written) as usable only `extra` cycles after the next
    /// instruction could issue; `kind` names the stall category a consumer waits in.
    #[inline(always)]
    fn late_result_of(&mut self, r: u32, extra: u32, kind: StallKind) {
        if extra != 0 {
            let ready = self.stats.cycles + u64::from(self.timing.issue + extra);
            self.pending[1] = self.pending[0];
            self.pending[0] = Pending {
                mask: 1 << r,
                ready,
                kind,
            };
            self.pending_until = self.pending_until.max(ready);
        }
    }

    // ------------------------------------------------------------------------------- windows

    /// Window-overflow check for an instruction naming groups up to `g` (§3.3): the n of the
    /// first live frame above WINDOWBASE within `g` groups.
    #[inline]
    fn overflow_needed(&self, g: u32) -> Option<u32> {
        let s = &self.state;
        (1..=g).find(|&k| s.ws_bit(s.windowbase() + k))
    }

    /// Recomputes what the per-instruction window check compares against; call after any
    /// change of WINDOWBASE, WINDOWSTART or PS (the core does; code that edits `state`
    /// directly must too).
    pub fn refresh(&mut self) {
        // Logical register masks of pending results refer to the window they were made in.
        self.pending = [Pending::NONE; 2];
        self.window_limit = if self.state.cwoe() {
            self.overflow_needed(3).map_or(3, |n| n as u8 - 1)
        } else {
            3
        };
    }

    fn rotate(&mut self, n: i32) {
        let groups = self.state.groups() as i32;
        let wb = (self.state.windowbase() as i32 + n).rem_euclid(groups) as u32;
        self.state.set_windowbase(wb);
    }

    fn stack_limit(&self, new_sp: u32) -> Res {
        if !self.config.has(Options::STACK_LIMIT) {
            return Ok(());
        }
        let (register, limit) = if self.state.ps & ps::EXCM != 0 {
            ("ISL", self.state.sr[sr::ISL as usize])
        } else {
            ("KSL", self.state.sr[sr::KSL as usize])
        };
        let limit = limit & !0xf;
        if limit != 0 && new_sp < limit {
            return Err(fatal(
                FaultKind::StackLimit {
                    register,
                    limit,
                    new_sp,
                },
                Some(new_sp),
            ));
        }
        Ok(())
    }

    // ------------------------------------------------------------------------------ execute

    /// Executes `op` at `pc`: the next PC.
    #[inline(always)]
    fn execute(&mut self, op: &Op, pc: u32) -> Res<u32> {
        if op.group > self.window_limit {
            return Err(Exc::Overflow(u32::from(self.window_limit) + 1));
        }
        // Interlocks: wait for the pending long-latency results this instruction reads.
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
        let i = &op.insn;
        let o = i.operands;
        let next = pc.wrapping_add(u32::from(i.len));
        let mut target: Option<u32> = None;
        let mut extra = 0u32;

        macro_rules! branch {
            ($cond:expr, $t:expr) => {
                if $cond {
                    target = Some($t);
                }
            };
        }

        use Opcode::*;
        match i.opcode {
            // ----------------------------------------------------------------- ALU / move
            Add | AddN => self.set(o[0], self.a(o[1]).wrapping_add(self.a(o[2]))),
            Addx2 => self.set(o[0], (self.a(o[1]) << 1).wrapping_add(self.a(o[2]))),
            Addx4 => self.set(o[0], (self.a(o[1]) << 2).wrapping_add(self.a(o[2]))),
            Addx8 => self.set(o[0], (self.a(o[1]) << 3).wrapping_add(self.a(o[2]))),
            Sub => self.set(o[0], self.a(o[1]).wrapping_sub(self.a(o[2]))),
            Subx2 => self.set(o[0], (self.a(o[1]) << 1).wrapping_sub(self.a(o[2]))),
            Subx4 => self.set(o[0], (self.a(o[1]) << 2).wrapping_sub(self.a(o[2]))),
            Subx8 => self.set(o[0], (self.a(o[1]) << 3).wrapping_sub(self.a(o[2]))),
            And => self.set(o[0], self.a(o[1]) & self.a(o[2])),
            Or => self.set(o[0], self.a(o[1]) | self.a(o[2])),
            Xor => self.set(o[0], self.a(o[1]) ^ self.a(o[2])),
            Neg => self.set(o[0], self.a(o[1]).wrapping_neg()),
            Abs => self.set(o[0], (self.a(o[1]) as i32).wrapping_abs() as u32),
            Addi | Addmi | AddiN => self.set(o[0], self.a(o[1]).wrapping_add(o[2])),
            Movi | MoviN => self.set(o[0], o[1]),
            MovN => self.set(o[0], self.a(o[1])),
            Moveqz => {
                if self.a(o[2]) == 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            Movnez => {
                if self.a(o[2]) != 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            Movltz => {
                if (self.a(o[2]) as i32) < 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            Movgez => {
                if (self.a(o[2]) as i32) >= 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            Salt => self.set(
                o[0],
                u32::from((self.a(o[1]) as i32) < (self.a(o[2]) as i32)),
            ),
            Saltu => self.set(o[0], u32::from(self.a(o[1]) < self.a(o[2]))),
            Const16 => self.set(o[0], (self.a(o[0]) << 16) | o[1]),
            Nop | NopN | Memw | Extw | Isync | Rsync | Esync | Dsync | Excw => {}

            // ------------------------------------------------------------------- shifts
            Extui => {
                let v = self.a(o[1]) >> o[2];
                let mask = if o[3] >= 32 {
                    u32::MAX
                } else {
                    (1u32 << o[3]) - 1
                };
                self.set(o[0], v & mask)
            }
            Slli => self.set(o[0], self.a(o[1]) << (o[2] & 31)),
            Srli => self.set(o[0], self.a(o[1]) >> o[2]),
            Srai => self.set(o[0], ((self.a(o[1]) as i32) >> o[2]) as u32),
            Sll => {
                let sa = 32u32.wrapping_sub(self.state.sar) & 0x3f;
                self.set(o[0], (u64::from(self.a(o[1])) << sa) as u32)
            }
            Srl => self.set(o[0], (u64::from(self.a(o[1])) >> self.state.sar) as u32),
            Sra => self.set(
                o[0],
                (i64::from(self.a(o[1]) as i32) >> self.state.sar) as u32,
            ),
            Src => {
                let v = (u64::from(self.a(o[1])) << 32) | u64::from(self.a(o[2]));
                self.set(o[0], (v >> self.state.sar) as u32)
            }
            Ssr => self.state.sar = self.a(o[0]) & 31,
            Ssl => self.state.sar = 32 - (self.a(o[0]) & 31),
            Ssa8l => self.state.sar = (self.a(o[0]) & 3) << 3,
            Ssa8b => self.state.sar = 32 - ((self.a(o[0]) & 3) << 3),
            Ssai => self.state.sar = o[0],

            // ------------------------------------------------------- multiply / divide / misc
            Mul16u => {
                self.set(o[0], (self.a(o[1]) & 0xffff) * (self.a(o[2]) & 0xffff));
                self.late_result_of(o[0], self.timing.mul_use, StallKind::Multiply);
            }
            Mul16s => {
                let v = i32::from(self.a(o[1]) as i16) * i32::from(self.a(o[2]) as i16);
                self.set(o[0], v as u32);
                self.late_result_of(o[0], self.timing.mul_use, StallKind::Multiply);
            }
            Mull => {
                self.set(o[0], self.a(o[1]).wrapping_mul(self.a(o[2])));
                self.late_result_of(o[0], self.timing.mul_use, StallKind::Multiply);
            }
            Muluh => {
                let v = u64::from(self.a(o[1])) * u64::from(self.a(o[2]));
                self.set(o[0], (v >> 32) as u32);
                self.late_result_of(o[0], self.timing.mul_high_use, StallKind::Multiply);
            }
            Mulsh => {
                let v = i64::from(self.a(o[1]) as i32) * i64::from(self.a(o[2]) as i32);
                self.set(o[0], (v >> 32) as u32);
                self.late_result_of(o[0], self.timing.mul_high_use, StallKind::Multiply);
            }
            Quos | Quou | Rems | Remu => {
                let (x, y) = (self.a(o[1]), self.a(o[2]));
                if y == 0 {
                    return Err(general(
                        ExcCause::IntegerDivideByZero,
                        None,
                        format!("{} by zero", i.opcode.mnemonic()),
                    ));
                }
                let v = match i.opcode {
                    Quos => (x as i32).wrapping_div(y as i32) as u32,
                    Rems => (x as i32).wrapping_rem(y as i32) as u32,
                    Quou => x / y,
                    _ => x % y,
                };
                self.set(o[0], v);
                extra += self.timing.divide.saturating_sub(self.timing.issue);
                self.stats.stalls.divide +=
                    u64::from(self.timing.divide.saturating_sub(self.timing.issue));
            }
            Nsa => {
                let v = self.a(o[1]) as i32;
                let n = if v < 0 {
                    (!v).leading_zeros()
                } else {
                    v.leading_zeros()
                };
                self.set(o[0], n - 1)
            }
            Nsau => self.set(o[0], self.a(o[1]).leading_zeros()),
            Min => self.set(o[0], (self.a(o[1]) as i32).min(self.a(o[2]) as i32) as u32),
            Max => self.set(o[0], (self.a(o[1]) as i32).max(self.a(o[2]) as i32) as u32),
            Minu => self.set(o[0], self.a(o[1]).min(self.a(o[2]))),
            Maxu => self.set(o[0], self.a(o[1]).max(self.a(o[2]))),
            Sext => {
                let sh = 31 - o[2];
                self.set(o[0], (((self.a(o[1]) << sh) as i32) >> sh) as u32)
            }
            Clamps => {
                let v = self.a(o[1]) as i32;
                let hi = (1i32 << o[2]) - 1;
                let lo = -(1i32 << o[2]);
                self.set(o[0], v.clamp(lo, hi) as u32)
            }

            // ------------------------------------------------------------ loads / stores
            L8ui => {
                let v = self.load(self.a(o[1]).wrapping_add(o[2]), 1)?;
                self.set(o[0], v);
                self.late_result_of(o[0], self.timing.load_use, StallKind::Load);
            }
            L16ui => {
                let v = self.load(self.a(o[1]).wrapping_add(o[2]), 2)?;
                self.set(o[0], v);
                self.late_result_of(o[0], self.timing.load_use, StallKind::Load);
            }
            L16si => {
                let v = self.load(self.a(o[1]).wrapping_add(o[2]), 2)?;
                self.set(o[0], v as u16 as i16 as i32 as u32);
                self.late_result_of(o[0], self.timing.load_use, StallKind::Load);
            }
            L32i | L32iN | L32ai => {
                let v = self.load(self.a(o[1]).wrapping_add(o[2]), 4)?;
                self.set(o[0], v);
                self.late_result_of(o[0], self.timing.load_use, StallKind::Load);
            }
            L32r => {
                let mut addr = o[1];
                let litbase = self.state.sr[sr::LITBASE as usize];
                if litbase & 1 != 0 {
                    let off = o[1].wrapping_sub(pc.wrapping_add(3) & !3);
                    addr = (litbase & 0xffff_f000).wrapping_add(off);
                }
                let v = self.load(addr, 4)?;
                self.set(o[0], v);
                self.late_result_of(o[0], self.timing.load_use, StallKind::Load);
            }
            S8i => self.store(self.a(o[1]).wrapping_add(o[2]), 1, self.a(o[0]))?,
            S16i => self.store(self.a(o[1]).wrapping_add(o[2]), 2, self.a(o[0]))?,
            S32i | S32iN | S32ri | S32nb => {
                self.store(self.a(o[1]).wrapping_add(o[2]), 4, self.a(o[0]))?
            }
            S32c1i => {
                let addr = self.a(o[1]).wrapping_add(o[2]);
                // Flat memory is uncached ("bypass"): ATOMCTL bits 1:0 decide (reference §4.3);
                // 0 = LoadStoreError, as QEMU does for its sim RAM at the reset value 0x28.
                if addr & 3 == 0 && self.state.sr[sr::ATOMCTL as usize] & 3 == 0 {
                    return Err(general(
                        ExcCause::LoadStoreError,
                        Some(addr),
                        format!("s32c1i to {addr:#010x} with ATOMCTL bypass field 0"),
                    ));
                }
                let old = self.load(addr, 4)?;
                if old == self.state.sr[sr::SCOMPARE1 as usize] {
                    self.store(addr, 4, self.a(o[0]))?;
                }
                self.set(o[0], old);
                self.late_result_of(o[0], self.timing.load_use, StallKind::Load);
            }
            L32ex => {
                let addr = self.a(o[1]);
                let v = self.load(addr, 4)?;
                self.state.exclusive = Some((addr, v));
                self.set(o[0], v);
                self.late_result_of(o[0], self.timing.load_use, StallKind::Load);
            }
            S32ex => {
                let addr = self.a(o[1]);
                if addr & 3 != 0 {
                    return Err(general(
                        ExcCause::LoadStoreAlignment,
                        Some(addr),
                        format!("unaligned exclusive store to {addr:#010x}"),
                    ));
                }
                let mut res = 0;
                if let Some((a, val)) = self.state.exclusive {
                    if a == addr && self.load(addr, 4)? == val {
                        self.store(addr, 4, self.a(o[0]))?;
                        res = 1;
                    }
                }
                self.state.exclusive = None;
                let atomctl = &mut self.state.sr[sr::ATOMCTL as usize];
                let old = (*atomctl >> 8) & 1;
                *atomctl = (*atomctl & !0x100) | (res << 8);
                self.set(o[0], old);
            }
            Getex => {
                let atomctl = self.state.sr[sr::ATOMCTL as usize];
                let v = self.a(o[0]);
                self.state.sr[sr::ATOMCTL as usize] = (atomctl & !0x100) | ((v & 1) << 8);
                self.set(o[0], (atomctl >> 8) & 1);
            }
            Clrex => self.state.exclusive = None,
            L32e | S32e => {
                self.privileged(i.opcode.mnemonic())?;
                let addr = self.a(o[1]).wrapping_add(o[2]);
                if i.opcode == L32e {
                    let v = self.load(addr, 4)?;
                    self.set(o[0], v);
                    self.late_result_of(o[0], self.timing.load_use, StallKind::Load);
                } else {
                    self.store(addr, 4, self.a(o[0]))?;
                }
            }

            // ----------------------------------------------------------------- branches
            Beq => branch!(self.a(o[0]) == self.a(o[1]), o[2]),
            Bne => branch!(self.a(o[0]) != self.a(o[1]), o[2]),
            Blt => branch!((self.a(o[0]) as i32) < (self.a(o[1]) as i32), o[2]),
            Bge => branch!((self.a(o[0]) as i32) >= (self.a(o[1]) as i32), o[2]),
            Bltu => branch!(self.a(o[0]) < self.a(o[1]), o[2]),
            Bgeu => branch!(self.a(o[0]) >= self.a(o[1]), o[2]),
            Bany => branch!(self.a(o[0]) & self.a(o[1]) != 0, o[2]),
            Bnone => branch!(self.a(o[0]) & self.a(o[1]) == 0, o[2]),
            Ball => branch!(!self.a(o[0]) & self.a(o[1]) == 0, o[2]),
            Bnall => branch!(!self.a(o[0]) & self.a(o[1]) != 0, o[2]),
            Bbc => branch!(self.a(o[0]) >> (self.a(o[1]) & 31) & 1 == 0, o[2]),
            Bbs => branch!(self.a(o[0]) >> (self.a(o[1]) & 31) & 1 != 0, o[2]),
            Bbci => branch!(self.a(o[0]) >> o[1] & 1 == 0, o[2]),
            Bbsi => branch!(self.a(o[0]) >> o[1] & 1 != 0, o[2]),
            Beqi => branch!(self.a(o[0]) == o[1], o[2]),
            Bnei => branch!(self.a(o[0]) != o[1], o[2]),
            Blti => branch!((self.a(o[0]) as i32) < (o[1] as i32), o[2]),
            Bgei => branch!((self.a(o[0]) as i32) >= (o[1] as i32), o[2]),
            Bltui => branch!(self.a(o[0]) < o[1], o[2]),
            Bgeui => branch!(self.a(o[0]) >= o[1], o[2]),
            Beqz | BeqzN => branch!(self.a(o[0]) == 0, o[1]),
            Bnez | BnezN => branch!(self.a(o[0]) != 0, o[1]),
            Bltz => branch!((self.a(o[0]) as i32) < 0, o[1]),
            Bgez => branch!((self.a(o[0]) as i32) >= 0, o[1]),
            Bf => branch!(self.state.sr[sr::BR as usize] >> o[0] & 1 == 0, o[1]),
            Bt => branch!(self.state.sr[sr::BR as usize] >> o[0] & 1 != 0, o[1]),

            // ------------------------------------------------------------ jumps and calls
            J => target = Some(o[0]),
            Jx => target = Some(self.a(o[0])),
            Call0 => {
                self.set(0, next);
                target = Some(o[0]);
            }
            Callx0 => {
                let t = self.a(o[0]);
                self.set(0, next);
                target = Some(t);
            }
            Call4 | Call8 | Call12 | Callx4 | Callx8 | Callx12 => {
                let n = match i.opcode {
                    Call4 | Callx4 => 1,
                    Call8 | Callx8 => 2,
                    _ => 3,
                };
                let t = match i.opcode {
                    Call4 | Call8 | Call12 => o[0],
                    _ => self.a(o[0]),
                };
                self.state.ps = (self.state.ps & !ps::CALLINC) | (n << ps::CALLINC_SHIFT);
                self.set(n * 4, (n << 30) | (next & 0x3fff_ffff));
                target = Some(t);
            }
            Ret | RetN => target = Some(self.a(0)),
            Entry => self.entry(o[0], o[1])?,
            Retw | RetwN => target = Some(self.retw()?),
            Movsp => {
                let wb = self.state.windowbase();
                if !self.state.ws_bit(wb.wrapping_sub(1))
                    && !self.state.ws_bit(wb.wrapping_sub(2))
                    && !self.state.ws_bit(wb.wrapping_sub(3))
                {
                    return Err(general(
                        ExcCause::Alloca,
                        None,
                        "movsp with the caller's frame spilled",
                    ));
                }
                let v = self.a(o[1]);
                if o[0] == 1 {
                    self.stack_limit(v)?;
                }
                self.set(o[0], v);
            }
            Rotw => {
                self.privileged("rotw")?;
                self.rotate(o[0] as i32);
                self.refresh();
            }

            // -------------------------------------------------------------------- loops
            Loop | Loopnez | Loopgtz => {
                let count = self.a(o[0]);
                self.state.lcount = count.wrapping_sub(1);
                self.state.lbeg = next;
                self.state.lend = o[1];
                let skip = match i.opcode {
                    Loopnez => count == 0,
                    Loopgtz => (count as i32) <= 0,
                    _ => false,
                };
                if skip {
                    target = Some(o[1]);
                }
            }

            // -------------------------------------------------- special / user registers
            Rsr => {
                let n = u32::from(sreg::SPECIAL_REGISTERS[o[1] as usize].number);
                if n >= 64 {
                    self.privileged("rsr")?;
                }
                let v = self.read_sr(n);
                self.set(o[0], v);
            }
            Wsr => {
                let n = u32::from(sreg::SPECIAL_REGISTERS[o[1] as usize].number);
                if n >= 64 {
                    self.privileged("wsr")?;
                }
                let v = self.a(o[0]);
                self.write_sr(n, v);
            }
            Xsr => {
                let n = u32::from(sreg::SPECIAL_REGISTERS[o[1] as usize].number);
                if n >= 64 {
                    self.privileged("xsr")?;
                }
                let old = self.read_sr(n);
                let v = self.a(o[0]);
                self.write_sr(n, v);
                self.set(o[0], old);
            }
            Rur => {
                let v = match u32::from(sreg::USER_REGISTERS[o[1] as usize].number) {
                    crate::state::ur::THREADPTR => self.state.threadptr,
                    _ => self.state.expstate,
                };
                self.set(o[0], v);
            }
            Wur => {
                let v = self.a(o[0]);
                match u32::from(sreg::USER_REGISTERS[o[1] as usize].number) {
                    crate::state::ur::THREADPTR => self.state.threadptr = v,
                    _ => self.state.expstate = v,
                }
            }

            // ------------------------------------------------- exceptions and system
            Rfe => {
                self.privileged("rfe")?;
                self.state.ps &= !ps::EXCM;
                self.refresh();
                target = Some(self.state.sr[sr::EPC1 as usize]);
                extra += self.exception_return_cost();
            }
            Rfde => {
                self.privileged("rfde")?;
                target = Some(self.state.sr[sr::DEPC as usize]);
                extra += self.exception_return_cost();
            }
            Rfwo | Rfwu => {
                self.privileged(i.opcode.mnemonic())?;
                let wb = self.state.windowbase();
                if i.opcode == Rfwo {
                    self.state.windowstart &= !(1 << wb);
                } else {
                    self.state.windowstart |= 1 << wb;
                }
                let owb = (self.state.ps & ps::OWB) >> ps::OWB_SHIFT;
                self.state.set_windowbase(owb);
                self.state.ps &= !ps::EXCM;
                self.refresh();
                target = Some(self.state.sr[sr::EPC1 as usize]);
                extra += self.exception_return_cost();
            }
            Rfi => {
                self.privileged("rfi")?;
                let level = o[0];
                if !(2..=7).contains(&level) {
                    return Err(general(
                        ExcCause::IllegalInstruction,
                        None,
                        format!("rfi {level}"),
                    ));
                }
                self.state.ps = self.state.sr[(sr::EPS2 + level - 2) as usize];
                self.refresh();
                target = Some(self.state.sr[(sr::EPC1 + level - 1) as usize]);
                extra += self.exception_return_cost();
            }
            Rsil => {
                self.privileged("rsil")?;
                let old = self.state.ps;
                self.state.ps = (old & !ps::INTLEVEL) | o[1];
                self.refresh();
                self.set(o[0], old);
            }
            Waiti => {
                self.privileged("waiti")?;
                return Err(fatal(FaultKind::WaitForever, None));
            }
            Syscall => return Err(general(ExcCause::Syscall, None, "syscall")),
            Simcall => self.simcall()?,
            Break | BreakN => {
                return Err(fatal(
                    FaultKind::Breakpoint {
                        imm: (o[0], if i.opcode == Break { o[1] } else { 0 }),
                    },
                    None,
                ))
            }
            Ill | IllN => {
                // Undecodable bytes are cached as `ill` with the reason attached.
                if let Some(bad) = op.bad {
                    return Err(self.undecodable(bad));
                }
                return Err(general(ExcCause::IllegalInstruction, None, "ill"));
            }
            Rfdo | Rfdd => {
                return Err(general(
                    ExcCause::IllegalInstruction,
                    None,
                    format!("{} outside on-chip-debug mode", i.opcode.mnemonic()),
                ))
            }
            Rer => {
                self.privileged("rer")?;
            }
            Wer => {
                self.privileged("wer")?;
            }

            // -------------------------------------------------------------- caches, MMU
            Ipf | Ihi | Dhwb | Dhwbi | Dpfr | Dpfw | Dpfro | Dpfwo => {}
            Iii | Ipfl | Ihu | Iiu | Lict | Licw | Sict | Sicw | Diwb | Diwbi | Dhi | Dii
            | Dpfl | Dhu | Diu | Sdct | Ldct => {
                self.privileged(i.opcode.mnemonic())?;
                if matches!(i.opcode, Lict | Licw | Ldct) {
                    self.set(o[0], 0);
                }
            }
            Idtlb | Pdtlb | Rdtlb0 | Rdtlb1 | Wdtlb | Iitlb | Pitlb | Ritlb0 | Ritlb1 | Witlb
            | Ldpte | Hwwitlba | Hwwdtlba => {
                self.privileged(i.opcode.mnemonic())?;
                return Err(general(
                    ExcCause::IllegalInstruction,
                    None,
                    format!(
                        "{}: MMU TLB operations are not modelled (flat memory)",
                        i.opcode.mnemonic()
                    ),
                ));
            }

            // --------------------------------------------------------------- boolean
            Andb | Andbc | Orb | Orbc | Xorb => {
                let br = self.state.sr[sr::BR as usize];
                let (x, y) = (br >> o[1] & 1, br >> o[2] & 1);
                let v = match i.opcode {
                    Andb => x & y,
                    Andbc => x & !y & 1,
                    Orb => x | y,
                    Orbc => (x | !y) & 1,
                    _ => x ^ y,
                };
                self.state.sr[sr::BR as usize] = (br & !(1 << o[0])) | (v << o[0]);
            }
            Any4 | All4 | Any8 | All8 => {
                let br = self.state.sr[sr::BR as usize];
                let width = if matches!(i.opcode, Any4 | All4) {
                    4
                } else {
                    8
                };
                let bits = (br >> o[1]) & ((1 << width) - 1);
                let v = match i.opcode {
                    Any4 | Any8 => u32::from(bits != 0),
                    _ => u32::from(bits == (1 << width) - 1),
                };
                self.state.sr[sr::BR as usize] = (br & !(1 << o[0])) | (v << o[0]);
            }
            Movf => {
                if self.state.sr[sr::BR as usize] >> o[2] & 1 == 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }
            Movt => {
                if self.state.sr[sr::BR as usize] >> o[2] & 1 != 0 {
                    self.set(o[0], self.a(o[1]))
                }
            }

            // ------------------------------------------------------ dc233c example TIE
            ReadImpwire => self.set(o[0], 0),
            SetbExpstate => self.state.expstate |= 1 << o[0],
            ClrbExpstate => self.state.expstate &= !(1 << o[0]),
            // As QEMU models dc233c's example GPIO state: EXPSTATE = value & mask.
            WrmskExpstate => self.state.expstate = self.a(o[0]) & self.a(o[1]),

            // ---------------------------------------------------------------- MAC16
            MulAaLl | MulAaHl | MulAaLh | MulAaHh | UmulAaLl | UmulAaHl | UmulAaLh | UmulAaHh
            | MulAdLl | MulAdHl | MulAdLh | MulAdHh | MulDaLl | MulDaHl | MulDaLh | MulDaHh
            | MulDdLl | MulDdHl | MulDdLh | MulDdHh | MulaAaLl | MulaAaHl | MulaAaLh | MulaAaHh
            | MulsAaLl | MulsAaHl | MulsAaLh | MulsAaHh | MulaAdLl | MulaAdHl | MulaAdLh
            | MulaAdHh | MulsAdLl | MulsAdHl | MulsAdLh | MulsAdHh | MulaDaLl | MulaDaHl
            | MulaDaLh | MulaDaHh | MulsDaLl | MulsDaHl | MulsDaLh | MulsDaHh | MulaDdLl
            | MulaDdHl | MulaDdLh | MulaDdHh | MulsDdLl | MulsDdHl | MulsDdLh | MulsDdHh
            | MulaDaLlLddec | MulaDaLlLdinc | MulaDaHlLddec | MulaDaHlLdinc | MulaDaLhLddec
            | MulaDaLhLdinc | MulaDaHhLddec | MulaDaHhLdinc | MulaDdLlLddec | MulaDdLlLdinc
            | MulaDdHlLddec | MulaDdHlLdinc | MulaDdLhLddec | MulaDdLhLdinc | MulaDdHhLddec
            | MulaDdHhLdinc | Lddec | Ldinc => self.mac16(op)?,
        }

        // Completion: cycles, PC and the zero-overhead loop-back (§6.2).
        let mut cost = u64::from(self.timing.issue + extra);
        let npc = match target {
            Some(t) => {
                cost += u64::from(self.timing.taken_branch);
                self.stats.stalls.taken_branch += u64::from(self.timing.taken_branch);
                t
            }
            None if next == self.state.lend => match self.loop_back() {
                Some(lbeg) => {
                    cost += u64::from(self.timing.loop_back);
                    lbeg
                }
                None => next,
            },
            None => next,
        };
        self.stats.cycles += cost;
        Ok(npc)
    }

    /// The zero-overhead loop-back at LEND (§6.2): with LCOUNT ≠ 0 and PS.EXCM clear, LCOUNT
    /// counts down and execution continues at LBEG. Kept out of line so the per-instruction
    /// check is one comparison with LEND.
    #[inline(never)]
    fn loop_back(&mut self) -> Option<u32> {
        let s = &mut self.state;
        if s.lcount != 0 && s.ps & ps::EXCM == 0 {
            s.lcount -= 1;
            Some(s.lbeg)
        } else {
            None
        }
    }

    #[cold]
    fn undecodable(&self, bad: Undecodable) -> Exc {
        match bad {
            Undecodable::Bundle(len) => fatal(FaultKind::UnsupportedBundle { len }, None),
            Undecodable::Illegal { .. } => general(
                ExcCause::IllegalInstruction,
                None,
                bad.describe(self.state.pc, self.config),
            ),
            Undecodable::Fetch => general(
                ExcCause::InstructionFetchError,
                Some(self.state.pc),
                "instruction fetch beyond the end of memory",
            ),
        }
    }

    fn exception_return_cost(&mut self) -> u32 {
        // A return is a taken jump (charged as such) plus the exception-return extra.
        let extra = self
            .timing
            .exception_return
            .saturating_sub(self.timing.taken_branch);
        self.stats.stalls.exception += u64::from(extra);
        extra
    }

    /// ENTRY as, imm12 (§3.4).
    fn entry(&mut self, s: u32, frame: u32) -> Res {
        let st = &self.state;
        if s > 3 || !st.cwoe() {
            return Err(general(
                ExcCause::IllegalInstruction,
                None,
                format!(
                    "entry with {} (PS {:#x})",
                    if s > 3 {
                        "a register above a3"
                    } else {
                        "window overflow checks disabled"
                    },
                    st.ps
                ),
            ));
        }
        let callinc = (st.ps & ps::CALLINC) >> ps::CALLINC_SHIFT;
        if let Some(n) = self.overflow_needed(callinc) {
            return Err(Exc::Overflow(n));
        }
        let sp = self.a(s).wrapping_sub(frame);
        if s == 1 {
            self.stack_limit(sp)?;
        }
        self.set(callinc * 4 + s, sp);
        self.rotate(callinc as i32);
        let wb = self.state.windowbase();
        self.state.windowstart |= 1 << wb;
        self.refresh();
        Ok(())
    }

    /// RETW / RETW.N (§3.5): the return address, after the window moved back.
    fn retw(&mut self) -> Res<u32> {
        let st = &self.state;
        let a0 = self.a(0);
        let n = a0 >> 30;
        let wb = st.windowbase();
        let m = (1..=3)
            .find(|&k| st.ws_bit(wb.wrapping_sub(k)))
            .unwrap_or(0);
        if !st.cwoe() || n == 0 || (m != 0 && m != n) {
            return Err(general(
                ExcCause::IllegalInstruction,
                None,
                format!(
                    "retw with a0 {a0:#010x} (call increment {n}, live caller at -{m}, PS {:#x})",
                    st.ps
                ),
            ));
        }
        if !st.ws_bit(wb.wrapping_sub(n)) {
            return Err(Exc::Underflow(n));
        }
        let ret = (self.state.pc & 0xc000_0000) | (a0 & 0x3fff_ffff);
        self.state.windowstart &= !(1 << wb);
        self.rotate(-(n as i32));
        self.refresh();
        Ok(ret)
    }

    fn read_sr(&self, n: u32) -> u32 {
        let s = &self.state;
        match n {
            sr::LBEG => s.lbeg,
            sr::LEND => s.lend,
            sr::LCOUNT => s.lcount,
            sr::SAR => s.sar,
            sr::WINDOWBASE => s.windowbase(),
            sr::WINDOWSTART => s.windowstart,
            sr::PS => s.ps,
            sr::CCOUNT => (self.stats.cycles as u32).wrapping_add(self.ccount_offset),
            _ => s.sr[n as usize],
        }
    }

    fn write_sr(&mut self, n: u32, v: u32) {
        let groups = self.state.groups();
        let s = &mut self.state;
        match n {
            sr::LBEG => s.lbeg = v,
            sr::LEND => s.lend = v,
            sr::LCOUNT => s.lcount = v,
            sr::SAR => s.sar = v & 0x3f,
            sr::WINDOWBASE => s.set_windowbase(v),
            sr::WINDOWSTART => s.windowstart = v & ((1 << groups) - 1),
            sr::PS => {
                let mut mask = ps::WOE | ps::CALLINC | ps::OWB | ps::UM | ps::EXCM | ps::INTLEVEL;
                if self.config.has(Options::MMU) {
                    mask |= ps::RING;
                }
                s.ps = v & mask;
            }
            sr::CCOUNT => self.ccount_offset = v.wrapping_sub(self.stats.cycles as u32),
            sr::BR => s.sr[n as usize] = v & 0xffff,
            sr::LITBASE => s.sr[n as usize] = v & 0xffff_f001,
            sr::ACCHI => s.sr[n as usize] = v as u8 as i8 as i32 as u32,
            sr::ATOMCTL => {
                s.sr[n as usize] = v & if self.config.has(Options::EXCLUSIVE) {
                    0x3ff
                } else {
                    0x3f
                }
            }
            sr::CPENABLE => s.sr[n as usize] = v & 0xff,
            sr::ICOUNTLEVEL => s.sr[n as usize] = v & 0xf,
            // One enable bit per instruction breakpoint (two on both profiles).
            sr::IBREAKENABLE => s.sr[n as usize] = v & 0x3,
            sr::INTSET => s.sr[n as usize] |= v,
            sr::INTCLEAR => s.sr[sr::INTSET as usize] &= !v,
            _ => s.sr[n as usize] = v,
        }
        if matches!(n, sr::WINDOWBASE | sr::WINDOWSTART | sr::PS) {
            self.refresh();
        }
    }

    /// MAC16 (reference §2.2; semantics as QEMU's `translate_mac16`).
    fn mac16(&mut self, op: &Op) -> Res {
        let i = &op.insn;
        let o = i.operands;
        let mnemonic = i.opcode.mnemonic();
        let mut parts = mnemonic.split('.');
        let kind = parts.next().unwrap_or("");
        let ld = if mnemonic.ends_with("ldinc") {
            4i32
        } else if mnemonic.ends_with("lddec") {
            -4
        } else {
            0
        };
        let mut loaded = None;
        if ld != 0 {
            let addr = self.a(o[1]).wrapping_add(ld as u32);
            loaded = Some((addr, self.load(addr, 4)?));
        }
        if kind != "lddec" && kind != "ldinc" {
            let sources = parts.next().unwrap_or("aa");
            let half = parts.next().unwrap_or("ll");
            let off = if ld != 0 { 2 } else { 0 };
            let read = |core: &Self, k: usize, is_ar: bool| {
                if is_ar {
                    core.a(o[k])
                } else {
                    core.state.sr[(sr::M0 + o[k]) as usize]
                }
            };
            let sb = sources.as_bytes();
            let x = read(self, off, sb[0] == b'a');
            let y = read(self, off + 1, sb[1] == b'a');
            let hb = half.as_bytes();
            let unsigned = kind == "umul";
            let pick = |v: u32, high: bool| {
                let h = if high { v >> 16 } else { v } & 0xffff;
                if unsigned {
                    h
                } else {
                    h as u16 as i16 as i32 as u32
                }
            };
            let prod = pick(x, hb[0] == b'h').wrapping_mul(pick(y, hb[1] == b'h'));
            let s = &mut self.state.sr;
            match kind {
                "umul" => {
                    s[sr::ACCLO as usize] = prod;
                    s[sr::ACCHI as usize] = 0;
                }
                "mul" => {
                    s[sr::ACCLO as usize] = prod;
                    s[sr::ACCHI as usize] = ((prod as i32) >> 31) as u32;
                }
                _ => {
                    let acc =
                        (u64::from(s[sr::ACCHI as usize]) << 32) | u64::from(s[sr::ACCLO as usize]);
                    let p = i64::from(prod as i32) as u64;
                    let r = if kind == "mula" {
                        acc.wrapping_add(p)
                    } else {
                        acc.wrapping_sub(p)
                    };
                    s[sr::ACCLO as usize] = r as u32;
                    s[sr::ACCHI as usize] = (r >> 32) as u8 as i8 as i32 as u32;
                }
            }
        }
        if let Some((addr, v)) = loaded {
            self.set(o[1], addr);
            self.state.sr[(sr::M0 + o[0]) as usize] = v;
        }
        Ok(())
    }

    /// SIMCALL semihosting with QEMU's numbering (reference §2.4): exit = 1, read = 3,
    /// write = 4; others fail with ENOSYS. a2 = call, a3..a5 = arguments; a2 = result, a3 = errno.
    fn simcall(&mut self) -> Res {
        const ENOSYS: u32 = 38;
        const EBADF: u32 = 9;
        const EFAULT: u32 = 14;
        let (call, a, b, c) = (self.a(2), self.a(3), self.a(4), self.a(5));
        let (ret, errno) = match call {
            1 => return Err(Exc::Exit(a as i32)),
            3 => (0, 0),
            4 => {
                let mut buf = Vec::with_capacity(c.min(1 << 20) as usize);
                let mut ok = true;
                for k in 0..c {
                    match self.bus.load(b.wrapping_add(k), 1, self.stats.cycles) {
                        Ok(v) => buf.push(v as u8),
                        Err(_) => {
                            ok = false;
                            break;
                        }
                    }
                }
                if !ok {
                    (u32::MAX, EFAULT)
                } else {
                    let w = match a {
                        1 => self
                            .console
                            .stdout
                            .write_all(&buf)
                            .and_then(|_| self.console.stdout.flush()),
                        2 => self
                            .console
                            .stderr
                            .write_all(&buf)
                            .and_then(|_| self.console.stderr.flush()),
                        _ => Err(std::io::Error::from(std::io::ErrorKind::InvalidInput)),
                    };
                    match w {
                        Ok(()) => (c, 0),
                        Err(_) => (u32::MAX, EBADF),
                    }
                }
            }
            _ => (u32::MAX, ENOSYS),
        };
        self.set(2, ret);
        self.set(3, errno);
        Ok(())
    }

    // ---------------------------------------------------------------------------- exceptions

    fn installed(&self, addr: u32) -> bool {
        self.handler_code.iter().any(|r| r.contains(&addr))
    }

    /// Takes exception `e` raised by the instruction at `pc`; `Some` when the core stops.
    #[cold]
    #[inline(never)]
    fn take<T: Tracer>(&mut self, pc: u32, op: &Op, e: Exc, tracer: &mut T) -> Option<Stop> {
        let vecbase = self.state.sr[sr::VECBASE as usize];
        match e {
            Exc::Exit(code) => {
                self.stats.instructions += 1;
                Some(Stop::Exited(code))
            }
            Exc::Fatal(f) => {
                let (kind, address) = *f;
                Some(Stop::Fault(Box::new(self.report_op(pc, op, kind, address))))
            }
            Exc::Overflow(n) => {
                let wb = self.state.windowbase();
                let new_wb = wb + n;
                let vec = if self.state.ws_bit(new_wb + 1) {
                    vector::OVERFLOW4
                } else if self.state.ws_bit(new_wb + 2) {
                    vector::OVERFLOW8
                } else {
                    vector::OVERFLOW12
                };
                let target = vecbase.wrapping_add(vec);
                if !self.installed(target) {
                    let frame = [4, 8, 12][(vec / vector::OVERFLOW8) as usize];
                    return Some(Stop::Fault(Box::new(self.report_op(
                        pc,
                        op,
                        FaultKind::WindowException {
                            kind: "overflow",
                            frame,
                            vector: target,
                        },
                        None,
                    ))));
                }
                self.state.ps = (self.state.ps & !ps::OWB) | (wb << ps::OWB_SHIFT) | ps::EXCM;
                self.rotate(n as i32);
                self.state.sr[sr::EPC1 as usize] = pc;
                self.enter(target, tracer, 3 + vec / 0x40)
            }
            Exc::Underflow(n) => {
                let vec =
                    [vector::UNDERFLOW4, vector::UNDERFLOW8, vector::UNDERFLOW12][n as usize - 1];
                let target = vecbase.wrapping_add(vec);
                if !self.installed(target) {
                    return Some(Stop::Fault(Box::new(self.report_op(
                        pc,
                        op,
                        FaultKind::WindowException {
                            kind: "underflow",
                            frame: 4 * n,
                            vector: target,
                        },
                        None,
                    ))));
                }
                let wb = self.state.windowbase();
                self.state.ps = (self.state.ps & !ps::OWB) | (wb << ps::OWB_SHIFT) | ps::EXCM;
                self.rotate(-(n as i32));
                self.state.sr[sr::EPC1 as usize] = pc;
                self.enter(target, tracer, 3 + vec / 0x40)
            }
            Exc::General(g) => {
                let GeneralExc {
                    cause,
                    vaddr,
                    detail,
                } = *g;
                let double = self.state.ps & ps::EXCM != 0;
                let vec = if double {
                    vector::DOUBLE
                } else if self.state.ps & ps::UM != 0 {
                    vector::USER
                } else {
                    vector::KERNEL
                };
                let target = vecbase.wrapping_add(vec);
                if !self.installed(target) {
                    let kind = if double {
                        FaultKind::DoubleException { cause, detail }
                    } else {
                        FaultKind::Exception { cause, detail }
                    };
                    return Some(Stop::Fault(Box::new(self.report_op(pc, op, kind, vaddr))));
                }
                self.state.sr[sr::EXCCAUSE as usize] = cause.code();
                if let Some(v) = vaddr {
                    self.state.sr[sr::EXCVADDR as usize] = v;
                }
                if double {
                    self.state.sr[sr::DEPC as usize] = pc;
                } else {
                    self.state.sr[sr::EPC1 as usize] = pc;
                }
                self.state.ps |= ps::EXCM;
                let qemu_index = if double {
                    12
                } else if vec == vector::USER {
                    11
                } else {
                    10
                };
                self.enter(target, tracer, qemu_index)
            }
        }
    }

    fn enter<T: Tracer>(&mut self, target: u32, tracer: &mut T, qemu_index: u32) -> Option<Stop> {
        self.refresh();
        self.stats.exceptions += 1;
        let cost = u64::from(self.timing.issue + self.timing.exception_entry);
        self.stats.cycles += cost;
        self.stats.stalls.exception += u64::from(self.timing.exception_entry);
        if T::ENABLED {
            tracer.event(Event::Exception {
                qemu_index,
                pc: self.state.sr[sr::EPC1 as usize],
                state: &self.state,
            });
        }
        self.state.pc = target;
        None
    }

    // ------------------------------------------------------------------------------- reports

    fn report_op(&self, pc: u32, op: &Op, kind: FaultKind, address: Option<u32>) -> FaultReport {
        let mut r = self.report(pc, kind, address);
        r.disassembly = match op.bad {
            None => op.insn.to_string(),
            Some(Undecodable::Bundle(len)) => format!("<{len}-byte Vision-Q7 bundle>"),
            Some(u @ Undecodable::Illegal { .. }) => format!("<{}>", u.describe(pc, self.config)),
            Some(Undecodable::Fetch) => "<instruction bytes not fetchable>".to_string(),
        };
        r
    }

    /// A report of the core's state at `pc`.
    pub fn report(&self, pc: u32, kind: FaultKind, address: Option<u32>) -> FaultReport {
        let s = &self.state;
        FaultReport {
            core: s.sr[sr::PRID as usize],
            pc,
            kind,
            address,
            disassembly: match self.ops.as_ref().and_then(|ops| self.cache.get(ops, pc)) {
                Some(op) if op.bad.is_none() => op.insn.to_string(),
                _ => String::from("<not decoded>"),
            },
            registers: s.window(),
            ps: s.ps,
            windowbase: s.windowbase(),
            windowstart: s.windowstart,
            sar: s.sar,
            backtrace: self.backtrace(pc),
            cycles: self.stats.cycles,
        }
    }

    /// The a0 chain: each windowed frame's a0 holds its return address (window increment in
    /// bits 31:30) and a1 its SP; a caller still in the register file is read there, a spilled
    /// one from the base save area [SP − 16, SP − 12] of its callee (§3.8).
    fn backtrace(&self, pc: u32) -> Vec<Frame> {
        let s = &self.state;
        let mut frames = vec![Frame { pc, sp: s.a(1) }];
        let mut wb = s.windowbase();
        let mut a0 = s.a(0);
        let mut sp = s.a(1);
        let mut bus_ok = true;
        for _ in 0..64 {
            let n = a0 >> 30;
            if n == 0 || a0 == 0 || !bus_ok {
                break;
            }
            let ret = (pc & 0xc000_0000) | (a0 & 0x3fff_ffff);
            let caller_wb = wb.wrapping_sub(n) & (s.groups() - 1);
            let (c_a0, c_sp) = if s.ws_bit(caller_wb) && caller_wb != s.windowbase() {
                let p = |r: u32| s.ar[((caller_wb * 4 + r) & (s.num_aregs - 1)) as usize];
                (p(0), p(1))
            } else {
                // Spilled: the caller's a0/a1 sit 16/12 bytes below this frame's SP.
                match (
                    self.peek(sp.wrapping_sub(16)),
                    self.peek(sp.wrapping_sub(12)),
                ) {
                    (Some(x), Some(y)) => (x, y),
                    _ => {
                        bus_ok = false;
                        (0, 0)
                    }
                }
            };
            frames.push(Frame { pc: ret, sp: c_sp });
            wb = caller_wb;
            a0 = c_a0;
            sp = c_sp;
        }
        frames
    }

    fn peek(&self, addr: u32) -> Option<u32> {
        self.bus.peek(addr)
    }
}
