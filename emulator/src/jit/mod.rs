//! Tier 2: hot straight-line code compiled to host code with Cranelift, with the cycle model of
//! the interpreter fixed at translation time (docs/jit.md).
//!
//! The interpreter ([`crate::core`]) stays the reference and tier 1: it counts how often it
//! starts each instruction, and once one has started [`TIER_UP`] times it has the code from
//! there translated into a *block*: a straight run of the instructions listed in
//! `translate::supported`, ending before the first other one, at an unconditional jump, call,
//! return or LOOP, or after [`MAX_BLOCK`] instructions. Conditional branches leave the block when
//! taken; a taken branch or zero-overhead loop-back to the block's own start loops inside it.
//! A windowed call to hot code is followed into its callee and back (docs/jit.md "Calls");
//! other calls leave the block, and a leading ENTRY, a RETW of the block's own code and the
//! window handlers' RFWO/RFWU run through helpers (the interpreter's own routines), which also
//! take the window traps raised there (docs/jit.md "Window traps"). Everything else — other
//! exceptions, devices, special-register access, faults — exits to the interpreter at the
//! instruction, which then executes it exactly.
//!
//! A block is compiled for the state it is entered in (its key): the long-latency results still
//! pending, and whether LEND falls on one of its instruction boundaries. It is entered only when
//! that state matches, no instruction of it would trip the window or privilege gate, and the
//! most cycles it can take (its bound) end before the run's next look
//! ([`crate::stop_request::POLL_CYCLES`]) or deadline, so every stop lands where the interpreter
//! would stop.

pub(crate) mod ahead;
mod perf_map;
pub(crate) mod preserving;
mod share_key;
pub(crate) mod translate;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::default_libcall_names;
use serde::Serialize;

/// Executions of an instruction, counted by the interpreter, after which code is compiled from
/// it. A count, never a time: compilation happens at the same point of every run. Interpreting
/// a typical block this often costs about what compiling it does (docs/jit.md "Tier-up"), so a
/// run that never gets that hot pays little for tier 2.
pub const TIER_UP: u16 = 32768;

/// Arrivals at an address after which the block there is compiled ahead, on a host thread of
/// its own, while the interpreter goes on to [`TIER_UP`] (docs/jit.md "Compiling ahead"): the
/// block is put in and first entered at the [`TIER_UP`]-th arrival, as without compiling ahead.
pub const AHEAD: u16 = TIER_UP / 4;

/// Arrivals at an address after which a core of a cluster sharing its code copies the block
/// another core has compiled there, when its own IR for it is the same (docs/jit.md "Code
/// shared by cores"): a copy costs building the IR, a compile some ten times that, so the
/// count that weighs a compile against interpreting ([`TIER_UP`]) does not apply.
pub const COPY_AT: u16 = 256;

/// Instructions a core of a cluster sharing its code (docs/jit.md "Code shared by cores")
/// retires before its count falls from [`TIER_UP`] to [`TIER_UP`] over the cluster's cores:
/// one compile then serves every core, so the count weighs it against all their arrivals,
/// once the run has shown it is long enough for compiling to pay (the committed 8-core ReLU,
/// 652 K instructions a core, is over before it would).
pub const LONG_RUN: u64 = 1 << 20;

/// A tier-up counter that has counted nothing: address 0 with no arrival, which is what a
/// counter reset for address 0 holds. All zeros, so a core's counters are allocated zeroed
/// and cost memory only where counted.
const EMPTY_HEAT: (u32, u16) = (0, 0);

/// The most instructions of its own code one block holds.
pub const MAX_BLOCK: usize = 64;

/// The most instructions of followed callees one block holds besides (docs/jit.md "Calls").
pub const MAX_FOLLOWED: usize = 128;

/// Versions of a block (for different entry states) kept per address; a further state is
/// left to the interpreter.
pub const MAX_VERSIONS: usize = 4;

/// Bytes of compiled code a core keeps by default before its code cache is emptied and
/// compilation starts over (docs/jit.md "Code cache").
pub const DEFAULT_CODE_LIMIT: u64 = 256 << 20;

/// The environment variable that turns tier 2 off for every core a process makes:
/// `Q7EMU_JIT=off` (docs/jit.md "Switch").
pub const ENV: &str = q7_environment::JIT.name;

/// Whether new cores start with tier 2 on: as [`with_default`] says on this thread, else yes
/// unless [`ENV`] says `off` (or `0`, `false`).
pub fn default_on() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    SCOPED.with(|s| s.get()).unwrap_or_else(|| {
        *ON.get_or_init(|| {
            !matches!(
                std::env::var(ENV).as_deref().map(str::trim),
                Ok("off" | "0" | "false")
            )
        })
    })
}

thread_local! {
    static SCOPED: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
    static SCOPED_TIER_UP: std::cell::Cell<Option<u16>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with cores made on this thread compiling a block at an address's `arrivals`-th
/// arrival instead of [`TIER_UP`]: the oracle tests compile as much as they can this way.
pub fn with_tier_up<R>(arrivals: u16, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<u16>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED_TIER_UP.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SCOPED_TIER_UP.with(|s| s.replace(Some(arrivals.max(1)))));
    f()
}

/// Runs `f` with cores made on this thread starting with tier 2 `on` (a command's `--jit`),
/// `None` leaving the default; the previous setting is back afterwards.
pub fn with_default<R>(on: Option<bool>, f: impl FnOnce() -> R) -> R {
    let Some(on) = on else {
        return f();
    };
    struct Restore(Option<bool>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SCOPED.with(|s| s.replace(Some(on))));
    f()
}

/// The block-table entry of an address no block starts at.
pub(crate) const REFUSED: u32 = u32::MAX;

/// The fewest instructions worth a block that does not loop back to its own start (one that
/// loops is worth it from 1 instruction): a single instruction between two exits is cheaper
/// to interpret than to enter.
pub const MIN_BLOCK: usize = 2;

/// The name of the engine of a run, for reports: `tier2` when compiled code could run
/// (tier 2 on and nothing observing), else `interpreter`.
pub fn engine(tier2: bool) -> &'static str {
    if tier2 {
        "tier2"
    } else {
        "interpreter"
    }
}

/// The report of a run's engine: `engine interpreter`, or `engine tier2: E instructions ran
/// compiled, N blocks compiled (I instructions, B bytes of code) in T ms, A of them ahead
/// (W ms waited)`.
pub fn describe(engine: &str, stats: &JitStats) -> String {
    if engine != "tier2" {
        return format!("engine {engine}");
    }
    format!(
        "engine tier2: {} instructions ran compiled, {} blocks compiled ({} instructions, {} bytes of code) in {:.1} ms, {} of them ahead ({:.1} ms waited)",
        stats.executed,
        stats.blocks,
        stats.instructions,
        stats.code_bytes,
        stats.compile_us as f64 / 1000.0,
        stats.ahead,
        stats.waited_us as f64 / 1000.0
    )
}

/// Direct-mapped slots of the tier-up counters and of the block table.
pub(crate) const SLOTS: usize = 1 << 12;

/// What waits on a pending result, as the interpreter's interlock tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Waits {
    /// A load: `load-use` stalls.
    Load,
    /// A multiply: `multiply` stalls.
    Multiply,
}

/// One slot of the interpreter's two pending results, as a block is compiled for it: the
/// logical registers and what they wait on (`None`: nothing that can still stall).
pub(crate) type Slot = Option<(u16, Waits)>;

/// The entry state a block is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    /// The pending results that can still stall, by slot (slot 0 the newest).
    pub pending: [Slot; 2],
    /// LEND when it is the end of one of the block's instructions (the loop-back is compiled
    /// there); `None` when it is the end of none.
    pub lend: Option<u32>,
}

/// A block's code: a function of Cranelift's `tail` calling convention taking the context
/// and giving the exit kind ([`EXIT_CONTINUE`], [`EXIT_INTERPRET`]). It is only ever called
/// through the module's [`Run`], or tail-called by another block (docs/jit.md "Linking").
pub(crate) type Entry = *const u8;

/// The host-ABI way into compiled code: calls block `entry` with the context and gives its
/// exit kind (the module's trampoline, `translate::compile_run`).
pub(crate) type Run = unsafe extern "C" fn(*mut Ctx, Entry) -> u32;

/// One slot of the block table, laid out for compiled code too (`repr(C)`): a block that
/// leaves for an address links straight on to the block in that address's slot when these
/// say that it fits, as [`Jit::lookup`]'s caller asks (docs/jit.md "Linking").
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Link {
    /// The address (`u32::MAX`: the slot is empty).
    pub pc: u32,
    /// The block's id, or [`REFUSED`].
    pub id: u32,
    /// With `lend_span`: LEND fits when `LEND - lend_lo < lend_span` is `lend_inside`.
    pub lend_lo: u32,
    pub lend_span: u32,
    /// The pending key as compiled code computes it from an exit's state ([`link_key`]).
    pub key: u64,
    /// [`Block::bound`].
    pub bound: u64,
    /// [`Block::entry`] (null for a refused address).
    pub entry: Entry,
    /// [`Block::gates`].
    pub gates: u8,
    /// See `lend_lo`.
    pub lend_inside: u8,
}

impl Link {
    const EMPTY: Link = Link {
        pc: u32::MAX,
        id: u32::MAX,
        lend_lo: 0,
        lend_span: 0,
        key: 0,
        bound: u64::MAX,
        entry: std::ptr::null(),
        gates: u8::MAX,
        // Never fits: no LEND is inside an empty span.
        lend_inside: 1,
    };

    /// The slot of `id`, a block (its checks as [`Block`] says), at `pc`.
    fn of(pc: u32, id: u32, b: &Block) -> Link {
        // A block compiled for LEND at one of its ends fits only that LEND; one compiled for
        // none fits a LEND outside its hull here (and one inside it that is no end only in
        // the dispatcher's exact check).
        let (lend_lo, lend_span, lend_inside) = match b.key.lend {
            Some(l) => (l, 1, 1),
            None => (b.low.wrapping_add(1), b.end.wrapping_sub(b.low), 0),
        };
        Link {
            pc,
            id,
            lend_lo,
            lend_span,
            key: link_key(&b.key.pending),
            bound: b.bound,
            entry: b.entry,
            gates: b.gates,
            lend_inside,
        }
    }
}

/// A pending key as one word: slot `i`'s registers in bits `32i..32i+16`, and bit `32i+16`
/// set when it waits on a multiply; 0 for an empty slot.
pub(crate) fn link_key(pending: &[Slot; 2]) -> u64 {
    pending.iter().enumerate().fold(0, |k, (i, slot)| {
        k | slot.map_or(0, |(m, w)| {
            (u64::from(m) | u64::from(w == Waits::Multiply) << 16) << (32 * i)
        })
    })
}

/// The block left at `ctx.pc`; compiled code may run from there.
pub(crate) const EXIT_CONTINUE: u32 = 0;
/// The block left before the instruction at `ctx.pc`, which the interpreter must execute
/// (it may fault, touch a device or fall outside what compiled code does).
pub(crate) const EXIT_INTERPRET: u32 = 1;

/// What compiled code reads and writes, laid out for it (`repr(C)`, offsets from
/// [`std::mem::offset_of`]). The dispatcher fills it from the core before a block and copies
/// the counters, pending results and PC back after.
#[repr(C)]
#[derive(Debug)]
pub(crate) struct Ctx {
    /// The physical address registers.
    pub ar: *mut u32,
    /// The special registers' words.
    pub sr: *mut u32,
    /// The core, for the helpers.
    pub core: *mut u8,
    /// Host memory of [`crate::bus::Direct`], null when the bus has none.
    pub direct: *mut u8,
    /// Host memory of [`crate::bus::Bus::direct_code`], null when the bus has none.
    pub direct_code: *mut u8,
    /// [`crate::predecode::DecodeCache::code_bits`]: granules holding decoded code.
    pub code_bits: *const u64,
    /// WINDOWBASE × 4.
    pub base: u32,
    /// Physical register count − 1.
    pub amask: u32,
    /// In: the start of the block entered (compiled code's addresses are relative to it);
    /// out: the PC to go on at.
    pub pc: u32,
    /// Padding.
    pub _pad: u32,
    /// Cycles.
    pub cycles: u64,
    /// Instructions.
    pub instructions: u64,
    /// `load-use` stall cycles.
    pub load_use: u64,
    /// `multiply` stall cycles.
    pub multiply: u64,
    /// `taken-branch` stall cycles.
    pub taken_branch: u64,
    /// `divide` stall cycles.
    pub divide: u64,
    /// The cycle at which the run must look (poll or deadline): a block may not reach it.
    pub poll: u64,
    /// Ready cycle of each pending slot.
    pub ready: [u64; 2],
    /// Registers of each pending slot (out).
    pub mask: [u32; 2],
    /// What each pending slot waits on (out): 0 load, 1 multiply.
    pub waits: [u32; 2],
    /// [`crate::bus::FetchView::tags`] (null when the bus shows no I-cache; compiled code
    /// then never reads these three).
    pub itags: *mut u32,
    /// [`crate::bus::FetchView::last_line`].
    pub ilast: *mut u32,
    /// [`crate::bus::FetchView::lookups`].
    pub ilookups: *mut u64,
    /// [`crate::bus::WindowView::windows`] (null when the bus shows no windows; compiled
    /// code then never reads these).
    pub wtable: *const u8,
    /// [`crate::bus::WindowView::hbm`].
    pub hbm: *mut u8,
    /// [`crate::bus::WindowView::hbm_size`].
    pub hbm_size: u64,
    /// [`crate::bus::WindowView::counted`].
    pub wcount: [*mut u64; 2],
    /// The core's `sram` and `hbm` stall counters.
    pub wstall: [*mut u64; 2],
    /// The block table ([`Jit`]'s [`Link`]s, `SLOTS` of them).
    pub links: *const Link,
    /// The core's gate bits that trap now (helpers that move the window change them, and an
    /// ENTRY or RETW compiled in line).
    pub traps: *mut u8,
    /// The core's window limit (`Core::refresh`), which an ENTRY or RETW compiled in line
    /// sets.
    pub window_limit: *mut u8,
    /// The core's WINDOWBASE × 4 as the state keeps it for its register accesses
    /// (`State::base_word`), which an ENTRY or RETW compiled in line sets.
    pub state_base: *mut u32,
    /// The core's lowest SP (`Core::lowest_sp`), which a followed callee's ENTRY lowers.
    pub lowest_sp: *mut u32,
    /// The stack region's lowest address (`Core::stack_region`; 0 when there is none).
    pub stack_lo: u32,
    /// Its top less its lowest address (`u32::MAX` when there is none): a followed callee's
    /// ENTRY that would take the SP out of it is the interpreter's.
    pub stack_span: u32,
    /// [`crate::predecode::DecodeCache::store_ok_bits`]: granules of a memory that counts
    /// touched granules (`Direct::touched`) that compiled code may store into directly.
    pub store_ok: *const u64,
    /// Registers a block leaving for the interpreter stored here rather than into `ar`
    /// (docs/jit.md "Registers"): word `i` is register index `i` of the block's window (the
    /// window `base` selects when it left), for the bits `spilled` sets.
    pub spill: [u32; translate::REGISTERS],
    /// The register indices `spill` holds (0 when none).
    pub spilled: u64,
    /// The answer of the last helper compiled code called through the shim ([`preserving::shim`]).
    pub answer: u64,
}

impl Ctx {
    /// Puts the registers a block left in [`Ctx::spill`] into the register file, in the
    /// window [`Ctx::base`] selects, and empties it. Called by the dispatcher once the block
    /// that stored them has returned.
    pub(crate) fn put_spilled(&mut self, ar: &mut [u32]) {
        let mut bits = std::mem::take(&mut self.spilled);
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let at = (self.base.wrapping_add(i) & self.amask) as usize;
            ar[at] = self.spill[i as usize];
        }
    }
}

/// A compiled block.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    /// The address it is entered at.
    pub start: u32,
    /// Its lowest address.
    pub low: u32,
    /// The end of its last instruction.
    pub end: u32,
    /// The ends of its instructions (where a loop-back could be).
    pub boundaries: Vec<u32>,
    /// The state it was compiled for.
    pub key: Key,
    /// The gate bits of its instructions: entered only when none traps.
    pub gates: u8,
    /// The most cycles one pass through it can take.
    pub bound: u64,
    /// The addresses of the L32R literals compiled into it ([`translate::Spec::literals`]).
    pub literals: Box<[u32]>,
    /// Its code.
    pub entry: Entry,
    /// For a block copied from another core: the code `entry` lies in, held (never read) so
    /// that its mapping lives as long as the block ([`HostCode::shared_entry`]).
    pub _shared: Option<Arc<HostCode>>,
    /// Dropped (its code was overwritten): never entered again.
    pub dead: bool,
}

/// Whether a store to `addr..addr + size` changes what a block whose code lies in
/// `low..end` and that holds the literals at `literals` was compiled from.
fn stored_into(low: u32, end: u32, literals: &[u32], addr: u32, size: u32) -> bool {
    let overlaps = |s: u32, e: u64| {
        let (a, z) = (u64::from(addr), u64::from(addr) + u64::from(size));
        z > u64::from(s) && a < e
    };
    overlaps(low, u64::from(end)) || literals.iter().any(|&l| overlaps(l, u64::from(l) + 4))
}

impl Block {
    /// Whether the block may be entered in this state: not dropped, compiled for the pending
    /// results that can still stall (`pending`) and for LEND = `lend`, and none of its gates
    /// traps with the core's gate bits `traps` (its bound is the caller's to check).
    #[inline]
    pub fn fits(&self, pending: [Slot; 2], lend: u32, traps: u8) -> bool {
        !self.dead && self.key.pending == pending && self.lend_fits(lend) && traps & self.gates == 0
    }

    /// Whether LEND = `lend` is the state the block was compiled for.
    #[inline]
    pub fn lend_fits(&self, lend: u32) -> bool {
        match self.key.lend {
            Some(l) => l == lend,
            None => lend <= self.low || lend > self.end || !self.boundaries.contains(&lend),
        }
    }
}

/// What tier 2 did in a run, for the run report (docs/run-report.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct JitStats {
    /// Blocks compiled.
    pub blocks: u64,
    /// Instructions in them.
    pub instructions: u64,
    /// Bytes of host code made.
    pub code_bytes: u64,
    /// Host time spent compiling, in microseconds (varies run to run; nothing depends on it).
    pub compile_us: u64,
    /// Of the blocks, those compiled ahead on the compiling thread (docs/jit.md "Compiling
    /// ahead"; their compile time is in `compile_us`).
    pub ahead: u64,
    /// Host time the core waited for code compiled ahead, in microseconds (varies).
    pub waited_us: u64,
    /// Times the code cache was emptied at its limit.
    pub flushes: u64,
    /// Blocks dropped because a store changed their code.
    pub invalidated: u64,
    /// Guest instructions that ran in compiled code.
    pub executed: u64,
    /// Of the blocks, those whose host code another core of the cluster had compiled from
    /// the same IR, copied instead of compiled ([`SharedCode`]).
    pub copied: u64,
}

impl JitStats {
    /// The counts since `before`.
    pub fn since(&self, before: &JitStats) -> JitStats {
        JitStats {
            blocks: self.blocks - before.blocks,
            instructions: self.instructions - before.instructions,
            code_bytes: self.code_bytes - before.code_bytes,
            compile_us: self.compile_us - before.compile_us,
            ahead: self.ahead - before.ahead,
            waited_us: self.waited_us - before.waited_us,
            flushes: self.flushes - before.flushes,
            invalidated: self.invalidated - before.invalidated,
            executed: self.executed - before.executed,
            copied: self.copied - before.copied,
        }
    }

    /// Adds `other`'s counts (a cluster's cores together).
    pub fn add(&mut self, other: &JitStats) {
        self.blocks += other.blocks;
        self.instructions += other.instructions;
        self.code_bytes += other.code_bytes;
        self.compile_us += other.compile_us;
        self.ahead += other.ahead;
        self.waited_us += other.waited_us;
        self.flushes += other.flushes;
        self.invalidated += other.invalidated;
        self.executed += other.executed;
        self.copied += other.copied;
    }
}

/// One core's tier 2: its code cache, block table and tier-up counters.
pub struct Jit {
    module: Option<JITModule>,
    /// The module's trampoline into compiled code.
    run: Option<Run>,
    /// Bytes of code the module holds.
    held: u64,
    /// The most bytes it may hold.
    pub limit: u64,
    /// Arrivals at an address after which a block is compiled there ([`TIER_UP`] by default;
    /// tests lower it to compile everything they can).
    pub tier_up: u16,
    /// The count once the core has retired [`LONG_RUN`] instructions: `tier_up` over the
    /// cores sharing code ([`Jit::share`]), `tier_up` for a core alone.
    pub(crate) tier_up_long: u16,
    /// Arrivals after which a block is compiled ahead ([`AHEAD`]; at or above `tier_up`,
    /// never: it is compiled at `tier_up`).
    pub ahead: u16,
    /// Blocks being compiled ahead, by start.
    prepared: HashMap<u32, Prepared>,
    pub(crate) blocks: Vec<Block>,
    /// Direct-mapped: address → a block compiled there, or [`REFUSED`].
    links: Box<[Link]>,
    /// Every version compiled at an address.
    versions: HashMap<u32, Vec<u32>>,
    /// Addresses no block can start at (the first instruction is not compiled).
    refused: HashMap<u32, ()>,
    /// Whether a block at an ENTRY may be compiled entered as a call (`Spec::entered`,
    /// docs/jit.md "Calls"); tests turn it off to compile a leading ENTRY and RETW in line.
    pub(crate) enter_calls: bool,
    /// Addresses whose block another core of the cluster was compiling when this one's
    /// count there ran out ([`NotMade::Busy`]): copied at the first [`COPY_AT`]-th arrival
    /// after it is done.
    awaiting: std::collections::HashSet<u32>,
    /// The addresses of the regions of the blocks in `awaiting`, each with its block's
    /// start: such an address does not get hot here while its block is awaited (the code
    /// the other core compiles runs through it, and no other core compiles a block there).
    awaited_region: HashMap<u32, u32>,
    /// Blocks by the 64-byte granules their code lies in.
    granules: HashMap<u32, Vec<u32>>,
    /// Direct-mapped tier-up counters: (address, count); [`EMPTY_HEAT`] when none.
    heat: Box<[(u32, u16)]>,
    /// Counters.
    pub stats: JitStats,
    /// Calls into compiled code by the dispatcher (blocks entered otherwise were linked to).
    pub(crate) calls: u64,
    next_name: u64,
    /// Cranelift's working memory between compiles.
    work: translate::Workspace,
    /// The host code the cores of the core's cluster share, when it has more than one: its
    /// blocks are then compiled with addresses relative to their start.
    shared: Option<Arc<SharedCode>>,
}

/// Whether an arrival made an address hot ([`Jit::heat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Heat {
    /// Not yet.
    Cold,
    /// Hot enough to compile ahead ([`AHEAD`]).
    Ahead,
    /// Hot enough to run compiled ([`TIER_UP`]).
    Hot,
    /// [`COPY_AT`] arrivals where another core of the cluster compiled a block (or a multiple
    /// of it, where this core found that core compiling it, [`NotMade::Busy`]): copy it if it
    /// is this core's IR too.
    Copy,
}

/// Why [`Jit::compile`] made no block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotMade {
    /// Cranelift refused it, or the translator would not make it: the interpreter keeps the
    /// address.
    Refused,
    /// Another core of the cluster is compiling the same IR ([`Claim::Busy`]): the address
    /// goes on counting, and the code is copied once it is done.
    Busy,
}

/// What a block is, but for its code: made from its [`translate::Spec`] when it is built.
#[derive(Debug)]
struct Plan {
    start: u32,
    low: u32,
    end: u32,
    boundaries: Vec<u32>,
    key: Key,
    gates: u8,
    bound: u64,
    /// The 64-byte granules its instructions and literals are in.
    granules: Vec<u32>,
    /// The addresses of its literals ([`Block::literals`]).
    literals: Box<[u32]>,
    /// Its instructions' addresses, in order.
    addrs: Vec<u32>,
    instructions: u64,
}

impl Plan {
    fn of(spec: &translate::Spec<'_>, bound: u64) -> Plan {
        let (low, end) = spec.range();
        // The granules its instructions are in (a followed callee's code may be far away).
        let mut granules: Vec<u32> = spec
            .ops
            .iter()
            .flat_map(|(pc, op)| {
                let last = pc.wrapping_add(u32::from(op.insn.len) - 1);
                [pc >> GRANULE_SHIFT, last >> GRANULE_SHIFT]
            })
            .chain(spec.literals.iter().map(|&(at, _)| at >> GRANULE_SHIFT))
            .collect();
        granules.sort_unstable();
        granules.dedup();
        Plan {
            start: spec.start,
            low,
            end,
            boundaries: spec
                .ops
                .iter()
                .map(|(pc, op)| pc.wrapping_add(u32::from(op.insn.len)))
                .collect(),
            key: spec.key,
            // A leading ENTRY's block checks the rest's gates itself, in the new window; a
            // followed callee's ENTRY those of the callee's window.
            gates: if spec.lead().is_some() {
                spec.first().gate.bit()
            } else {
                spec.own_gates()
            },
            bound,
            granules,
            literals: spec.literals.iter().map(|&(at, _)| at).collect(),
            addrs: spec.ops.iter().map(|&(pc, _)| pc).collect(),
            instructions: spec.ops.len() as u64,
        }
    }

    /// Whether an instruction of it other than its start is at `pc`: control that gets
    /// there once the block runs goes on in it.
    fn runs_through(&self, pc: u32) -> bool {
        pc != self.start && self.addrs.binary_search(&pc).is_ok()
    }

    /// Whether a store to `addr..addr + size` changes what it is built from ([`stored_into`]).
    fn overlaps(&self, addr: u32, size: u32) -> bool {
        stored_into(self.low, self.end, &self.literals, addr, size)
    }
}

/// A block being compiled ahead: what it is, and where its host code will come (dropped,
/// the compiling thread leaves it if it has not started on it).
#[derive(Debug)]
struct Prepared {
    plan: Plan,
    answer: ahead::Answer,
}

/// Host code compiled by the cores of a cluster, by the IR it was compiled from (docs/jit.md
/// "Code shared by cores"). Each core runs its own copy of a library at its own address, so
/// its blocks take their code addresses from the block's start (translate.rs, `Tr::code`);
/// then a core makes the same IR for the same code as another, and Cranelift the same host
/// code from the same IR, which the core copies instead of compiling. Each core still builds
/// its own IR from its own code and state, so a block is shared only where every fact it was
/// compiled from agrees. A core copies a block another compiled at the same place in its image
/// at its [`COPY_AT`]-th arrival there. Which core compiles and which copies depends on which
/// gets there first: so the report's block and copy counts, and how many instructions run
/// compiled, vary with the thread count; results and counters do not.
#[derive(Debug, Default)]
pub struct SharedCode {
    code: Mutex<SharedMap>,
}

#[derive(Debug, Default)]
struct SharedMap {
    /// Keyed by the IR's exact bytes (some 40 an instruction, up to hundreds of KB a block),
    /// hashed with Fx: std's SipHash took a fifth of a millisecond a lookup on the largest,
    /// about as long as the rest of a copy.
    by_ir: HashMap<Vec<u8>, Shared, rustc_hash::FxBuildHasher>,
    /// The same blocks by their specs' keys ([`share_key`]), which a core writes without
    /// building any IR.
    by_key: HashMap<Vec<u8>, Shared, rustc_hash::FxBuildHasher>,
    bytes: u64,
    /// Where the blocks compiled into the store start, within their core's image
    /// ([`image_offset`]).
    starts: HashSet<u32>,
}

impl SharedMap {
    /// The host code compiled from `ir`, when a core has compiled it; found by `key` too
    /// from then on.
    fn done(&mut self, ir: &[u8], key: Option<Vec<u8>>) -> Option<Arc<HostCode>> {
        let code = match self.by_ir.get(ir) {
            Some(Shared::Done(code)) => code.clone(),
            _ => return None,
        };
        if let Some(key) = key {
            self.bytes += key.len() as u64;
            self.by_key.insert(key, Shared::Done(code.clone()));
        }
        Some(code)
    }
}

/// `pc`'s offset within the 2 MiB of the cluster's image windows it is in
/// (`IMAGE_WINDOW_SIZE`, PLATFORM.md): the same code's on every core.
fn image_offset(pc: u32) -> u32 {
    pc - image_base(pc)
}

/// The first address of the 2 MiB of the cluster's image windows `addr` is in
/// (`IMAGE_WINDOW_SIZE`, PLATFORM.md): each core's copy of a library lies in its own.
pub(crate) fn image_base(addr: u32) -> u32 {
    addr & !(q7_layout::IMAGE_WINDOW_SIZE - 1)
}

/// A block's host code in the store, or the mark of a core compiling it now.
#[derive(Debug, Clone)]
pub(crate) enum Shared {
    Compiling,
    Done(Arc<HostCode>),
}

/// A block's host code and its alignment, position-independent (no relocations).
#[derive(Debug)]
pub(crate) struct HostCode {
    pub bytes: Vec<u8>,
    pub align: u64,
    /// The code, executable, in a mapping of its own that every core copying it runs (made
    /// at the first copy; `None` in it when the mapping could not be made).
    exec: std::sync::OnceLock<Option<memmap2::Mmap>>,
}

impl HostCode {
    /// Host code `bytes`, aligned to `align` bytes.
    pub(crate) fn new(bytes: Vec<u8>, align: u64) -> HostCode {
        HostCode {
            bytes,
            align,
            exec: std::sync::OnceLock::new(),
        }
    }

    /// `compiled`'s host code, when it names no address outside itself (no relocations), so
    /// that it runs wherever it is copied.
    pub(crate) fn of(compiled: &cranelift_codegen::CompiledCode) -> Option<HostCode> {
        compiled.buffer.relocs().is_empty().then(|| {
            HostCode::new(
                compiled.code_buffer().to_vec(),
                u64::from(compiled.buffer.alignment),
            )
        })
    }

    /// The code's entry in the one executable mapping the cores that copy it share (docs/jit.md
    /// "Code shared by cores"), made at the first copy: a page-aligned anonymous mapping
    /// (aligned past `align`), written, then made read-and-execute. A copy thus needs no
    /// definition in the core's module and no `mprotect` of its own (each of which made the
    /// kernel stop the other threads to flush their TLBs). `None` when the mapping cannot be
    /// made (the caller defines the code in its module instead).
    pub(crate) fn shared_entry(&self) -> Option<Entry> {
        self.exec
            .get_or_init(|| {
                let mut map = memmap2::MmapMut::map_anon(self.bytes.len().max(1)).ok()?;
                map[..self.bytes.len()].copy_from_slice(&self.bytes);
                map.make_exec().ok()
            })
            .as_ref()
            .map(|m| m.as_ptr())
    }
}

/// What the store answers a core about to compile a block's IR.
pub(crate) enum Claim<'a> {
    /// Another core compiled it: its host code.
    Copy(Arc<HostCode>),
    /// Another core is compiling it now: this core goes on interpreting and copies the code
    /// at a later arrival (docs/jit.md "Code shared by cores").
    Busy,
    /// Compile it; the claim marks it as being compiled until [`Compiling::done`] or drop.
    Compile(Compiling<'a>),
}

/// A core's claim to compile a block's IR (others interpret on rather than compile it too).
pub(crate) struct Compiling<'a> {
    store: &'a SharedCode,
    ir: Option<Vec<u8>>,
    key: Option<Vec<u8>>,
    start: u32,
}

impl Compiling<'_> {
    /// Keeps `code`, compiled from the IR, for the other cores (and wakes those waiting).
    pub(crate) fn done(mut self, code: HostCode) {
        if let Some(ir) = self.ir.take() {
            let mut map = self.store.lock();
            let code = Arc::new(code);
            map.bytes += code.bytes.len() as u64 + ir.len() as u64;
            if let Some(key) = self.key.take() {
                map.bytes += key.len() as u64;
                map.by_key.insert(key, Shared::Done(code.clone()));
            }
            map.by_ir.insert(ir, Shared::Done(code));
            map.starts.insert(image_offset(self.start));
        }
    }
}

impl Drop for Compiling<'_> {
    /// A claim given up (the code is not shareable, or compiling failed): the IR is free
    /// for the next core to compile.
    fn drop(&mut self) {
        if let Some(ir) = self.ir.take() {
            let mut map = self.store.lock();
            map.by_ir.remove(&ir);
            if let Some(key) = self.key.take() {
                map.by_key.remove(&key);
            }
        }
    }
}

impl SharedCode {
    fn lock(&self) -> std::sync::MutexGuard<'_, SharedMap> {
        self.code.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a block starting at `pc`'s place in its image ([`image_offset`]) was compiled
    /// into the store.
    fn compiled_at(&self, pc: u32) -> bool {
        self.lock().starts.contains(&image_offset(pc))
    }

    /// The host code compiled from `ir`, when another core has compiled it (no waiting for
    /// one compiling it now, no claim to compile it); found by `key` too from then on, when
    /// the spec has one ([`share_key`]).
    pub(crate) fn copy(&self, ir: &[u8], key: Option<Vec<u8>>) -> Option<Arc<HostCode>> {
        self.lock().done(ir, key)
    }

    /// The block whose spec has key `key` ([`share_key`]): its host code when a core compiled
    /// it, [`Shared::Compiling`] while one compiles it.
    pub(crate) fn by_key(&self, key: &[u8]) -> Option<Shared> {
        self.lock().by_key.get(key).cloned()
    }

    /// The host code compiled from IR `ir` (as `translate::fingerprint` writes it) when a
    /// core compiled it; [`Claim::Busy`] while a core compiles it; else a claim to compile
    /// it, for the block starting at `start` whose spec has key `key`, if any (the code is
    /// then found by either). The store is emptied first when it holds
    /// [`DEFAULT_CODE_LIMIT`] bytes (a core's code cache bound).
    pub(crate) fn claim(&self, ir: &[u8], start: u32, key: Option<Vec<u8>>) -> Claim<'_> {
        let mut map = self.lock();
        match map.by_ir.get(ir) {
            Some(Shared::Done(_)) => {
                return Claim::Copy(map.done(ir, key).expect("the code just found"));
            }
            Some(Shared::Compiling) => return Claim::Busy,
            None => {}
        }
        if map.bytes >= DEFAULT_CODE_LIMIT {
            // Claims in flight keep their marks; their code is kept when done.
            map.by_ir.retain(|_, s| matches!(s, Shared::Compiling));
            map.by_key.retain(|_, s| matches!(s, Shared::Compiling));
            map.bytes = 0;
            map.starts.clear();
        }
        map.by_ir.insert(ir.to_vec(), Shared::Compiling);
        if let Some(key) = &key {
            map.by_key.insert(key.clone(), Shared::Compiling);
        }
        Claim::Compile(Compiling {
            store: self,
            ir: Some(ir.to_vec()),
            key,
            start,
        })
    }
}

impl std::fmt::Debug for Jit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jit")
            .field("blocks", &self.blocks.len())
            .field("held", &self.held)
            .field("stats", &self.stats)
            .finish()
    }
}

// SAFETY: the module and the code it made belong to one core; the core is moved between
// threads whole (a cluster runs each core wholly on one thread at a time), never shared, and
// the raw code pointers in `blocks`, `links` and `run` point into memory the module owns or
// into the read-only mapping of a copied block's shared code, which that block holds.
unsafe impl Send for Jit {}

/// Granule of the code map: as the decode cache's.
const GRANULE_SHIFT: u32 = 6;

#[inline(always)]
fn slot_of(pc: u32) -> usize {
    (pc ^ (pc >> 12)) as usize & (SLOTS - 1)
}

impl Default for Jit {
    fn default() -> Self {
        Self::new()
    }
}

impl Jit {
    /// An empty tier 2 with the default code limit.
    pub fn new() -> Jit {
        let tier_up = SCOPED_TIER_UP.with(|s| s.get()).unwrap_or(TIER_UP);
        Jit {
            module: None,
            run: None,
            held: 0,
            limit: DEFAULT_CODE_LIMIT,
            tier_up,
            tier_up_long: tier_up,
            // The oracle tests' low counts compile where they count.
            ahead: SCOPED_TIER_UP.with(|s| s.get()).map_or(AHEAD, |_| u16::MAX),
            prepared: HashMap::new(),
            blocks: Vec::new(),
            links: vec![Link::EMPTY; SLOTS].into_boxed_slice(),
            versions: HashMap::new(),
            refused: HashMap::new(),
            awaiting: std::collections::HashSet::new(),
            awaited_region: HashMap::new(),
            enter_calls: true,
            granules: HashMap::new(),
            heat: vec![EMPTY_HEAT; SLOTS].into_boxed_slice(),
            stats: JitStats::default(),
            calls: 0,
            next_name: 0,
            work: translate::Workspace::default(),
            shared: None,
        }
    }

    /// Shares host code with the other cores of a cluster of `cores` through `shared` (their
    /// blocks' addresses relative to their starts from now on, and its count `tier_up / cores`
    /// after [`LONG_RUN`] instructions), unless it shares already.
    pub(crate) fn share(&mut self, shared: Arc<SharedCode>, cores: usize) {
        // A core sharing already keeps its store (a library kept loaded calls again).
        if self.shared.is_none() {
            self.shared = Some(shared);
            let cores = u16::try_from(cores).unwrap_or(u16::MAX).max(1);
            self.tier_up_long = (self.tier_up / cores).max(1);
        }
    }

    /// Sets the arrivals after which a block is compiled, however long the run.
    pub(crate) fn set_tier_up(&mut self, arrivals: u16) {
        self.tier_up = arrivals.max(1);
        self.tier_up_long = self.tier_up;
    }

    /// Whether blocks take their code addresses from their start ([`SharedCode`]).
    pub(crate) fn relative(&self) -> bool {
        self.shared.is_some()
    }

    /// The block in the table for `pc`, if any.
    #[inline(always)]
    pub(crate) fn lookup(&self, pc: u32) -> Option<u32> {
        let l = &self.links[slot_of(pc)];
        (l.pc == pc).then_some(l.id)
    }

    /// The block table, for compiled code ([`Ctx::links`]).
    pub(crate) fn links(&self) -> *const Link {
        self.links.as_ptr()
    }

    /// The trampoline into compiled code (there is one once a block is compiled).
    pub(crate) fn run(&self) -> Option<Run> {
        self.run
    }

    /// Puts block `id` in `pc`'s slot of the table.
    fn put(&mut self, pc: u32, id: u32) {
        self.links[slot_of(pc)] = Link::of(pc, id, &self.blocks[id as usize]);
    }

    /// Counts one interpreted start of the instruction at `pc`, on a core that has retired
    /// `retired` instructions: whether it is now hot enough to compile from, or to compile
    /// ahead from (at exactly [`Jit::ahead`] arrivals).
    #[inline(always)]
    pub(crate) fn heat(&mut self, pc: u32, retired: u64) -> Heat {
        let tier_up = if retired >= LONG_RUN {
            self.tier_up_long
        } else {
            self.tier_up
        };
        let h = &mut self.heat[slot_of(pc)];
        if h.0 != pc {
            *h = (pc, 0);
        }
        h.1 = h.1.saturating_add(1);
        if h.1 >= tier_up {
            if self.awaited_region.contains_key(&pc) {
                return Heat::Cold;
            }
            Heat::Hot
        } else if h.1 == self.ahead {
            Heat::Ahead
        } else if h.1.is_multiple_of(COPY_AT)
            && (h.1 == COPY_AT || self.awaiting.contains(&pc))
            && self.shared.as_deref().is_some_and(|s| s.compiled_at(pc))
        {
            Heat::Copy
        } else {
            Heat::Cold
        }
    }

    /// Whether control has arrived at `pc` since it was last compiled from, or a block starts
    /// there: the block builder follows a branch into a region only then.
    pub(crate) fn arrived(&self, pc: u32) -> bool {
        let h = self.heat[slot_of(pc)];
        (h.0 == pc && h.1 > 0) || self.lookup(pc).is_some_and(|id| id != REFUSED)
    }

    /// Resets `pc`'s counter (after a compile attempt).
    pub(crate) fn cool(&mut self, pc: u32) {
        self.heat[slot_of(pc)] = (pc, 0);
    }

    /// Whether compiling at `pc` was refused, or every version there is taken.
    pub(crate) fn refuses(&self, pc: u32) -> bool {
        self.refused.contains_key(&pc)
            || self
                .versions
                .get(&pc)
                .is_some_and(|v| v.len() >= MAX_VERSIONS)
    }

    /// Remembers that no block can start at `pc` (in the table too, so that the next look
    /// there costs one comparison).
    pub(crate) fn refuse(&mut self, pc: u32) {
        self.refused.insert(pc, ());
        self.links[slot_of(pc)] = Link {
            pc,
            id: REFUSED,
            ..Link::EMPTY
        };
    }

    /// A version at `pc` whose state `fits`, put in the table.
    pub(crate) fn find_version(&mut self, pc: u32, fits: impl Fn(&Block) -> bool) -> Option<u32> {
        let v = self.versions.get(&pc)?;
        let id = *v
            .iter()
            .find(|&&id| !self.blocks[id as usize].dead && fits(&self.blocks[id as usize]))?;
        self.put(pc, id);
        Some(id)
    }

    /// Forgets every block (the code stays until the cache is emptied): memory changed behind
    /// the core's back.
    pub fn clear(&mut self) {
        for b in &mut self.blocks {
            b.dead = true;
        }
        self.links.fill(Link::EMPTY);
        self.versions.clear();
        self.refused.clear();
        self.awaiting.clear();
        self.awaited_region.clear();
        self.granules.clear();
        self.heat.fill(EMPTY_HEAT);
        self.prepared.clear();
    }

    /// The first address of every 64-byte granule that holds code of a block made since the
    /// last [`Jit::clear`].
    pub(crate) fn granules(&self) -> impl Iterator<Item = u32> + '_ {
        self.granules.keys().map(|g| g << GRANULE_SHIFT)
    }

    /// Drops the blocks whose code overlaps `addr..addr + size`: whether there were any.
    pub(crate) fn invalidate(&mut self, addr: u32, size: u32) -> bool {
        // Blocks being compiled ahead from that code are given up (their answers dropped);
        // they are built again from the new code when it gets hot.
        self.prepared.retain(|_, p| !p.plan.overlaps(addr, size));
        let first = addr >> GRANULE_SHIFT;
        let last = addr.wrapping_add(size.max(1) - 1) >> GRANULE_SHIFT;
        let mut any = false;
        for g in [first, last] {
            let Some(ids) = self.granules.get(&g) else {
                continue;
            };
            for &id in ids.clone().iter() {
                let b = &self.blocks[id as usize];
                if b.dead || !stored_into(b.low, b.end, &b.literals, addr, size) {
                    continue;
                }
                self.kill(id);
                any = true;
            }
        }
        // Refusals and counters near a store into code start over too.
        if any {
            self.refused.retain(|&pc, _| {
                !(pc >> GRANULE_SHIFT >= first.saturating_sub(1) && pc >> GRANULE_SHIFT <= last)
            });
        }
        any
    }

    fn kill(&mut self, id: u32) {
        let b = &mut self.blocks[id as usize];
        b.dead = true;
        let start = b.start;
        self.stats.invalidated += 1;
        let s = slot_of(start);
        if self.links[s].pc == start && self.links[s].id == id {
            self.links[s] = Link::EMPTY;
        }
        if let Some(v) = self.versions.get_mut(&start) {
            v.retain(|&x| x != id);
        }
    }

    /// The module, made with the trampoline into it when there is none yet, after emptying
    /// the code cache when it holds its limit.
    fn module(&mut self) -> Option<&mut JITModule> {
        if self.held >= self.limit {
            self.flush();
        }
        if self.module.is_none() {
            let mut m = new_module()?;
            self.run = Some(translate::compile_run(&mut m)?);
            self.module = Some(m);
        }
        self.module.as_mut()
    }

    fn next_name(&mut self) -> String {
        let name = format!("b{}", self.next_name);
        self.next_name += 1;
        name
    }

    /// Compiles `spec`'s block: the new block's id, or why none was made ([`NotMade`]: refused,
    /// and the interpreter keeps the address; or busy, another core compiling it).
    pub(crate) fn compile(&mut self, spec: &translate::Spec<'_>) -> Result<u32, NotMade> {
        self.compile_or_copy(spec, false)
    }

    /// Copies the block of `spec` from the cluster's store ([`Heat::Copy`]): its id, or `None`
    /// when no other core has compiled the same IR (the address then stays at its count).
    pub(crate) fn copy(&mut self, spec: &translate::Spec<'_>) -> Option<u32> {
        self.compile_or_copy(spec, true).ok()
    }

    /// Awaits the block another core is compiling at `start` ([`NotMade::Busy`]), whose
    /// region holds the instructions at `region`: none of them gets hot here until it is
    /// copied (compiling there would make a block of code the copy runs through, which no
    /// other core needs: on two threads some 20 % of the published GIoU kernel's compile).
    fn awaits(&mut self, start: u32, region: impl Iterator<Item = u32>) {
        self.awaiting.insert(start);
        for pc in region.filter(|&pc| pc != start) {
            self.awaited_region.insert(pc, start);
        }
    }

    /// No longer awaits another core's block at `start`: this core is copying or compiling it.
    fn stop_awaiting(&mut self, start: u32) {
        if self.awaiting.remove(&start) {
            self.awaited_region.retain(|_, s| *s != start);
        }
    }

    /// [`Jit::compile`], or with `copy_only` [`Jit::copy`].
    fn compile_or_copy(
        &mut self,
        spec: &translate::Spec<'_>,
        copy_only: bool,
    ) -> Result<u32, NotMade> {
        // Awaited again below only if another core is still compiling it.
        self.stop_awaiting(spec.start);
        let started = Instant::now();
        let name = self.next_name();
        self.module().ok_or(NotMade::Refused)?;
        let module = self.module.as_mut().ok_or(NotMade::Refused)?;
        let shared = self.shared.as_deref();
        let work = &mut self.work;
        // A panic while translating or compiling (a bug of the translator's or Cranelift's)
        // is caught where the build unwinds (the Python extension, tests): the module and the
        // workspace may be half-way through a change, so the code cache is emptied and the
        // address left to the interpreter (docs/jit.md "Code cache"). The CLI's release
        // build aborts instead.
        let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            translate::compile(module, work, &name, spec, shared, copy_only)
        }));
        let Ok(compiled) = compiled else {
            tracing::warn!(
                start = spec.start,
                "tier 2: compiling a block panicked; its code is left to the interpreter"
            );
            self.work = translate::Workspace::default();
            self.drop_code();
            return Err(NotMade::Refused);
        };
        let translate::Made {
            entry,
            bytes,
            bound,
            shared,
        } = match compiled {
            Ok(made) => made,
            Err(e) => {
                if e == NotMade::Busy {
                    self.awaits(spec.start, spec.ops.iter().map(|&(pc, _)| pc));
                }
                self.stats.compile_us += duration_us(started.elapsed());
                return Err(e);
            }
        };
        self.stats.copied += u64::from(shared.is_some());
        let id = self.install(Plan::of(spec, bound), entry, bytes, shared);
        self.stats.compile_us += duration_us(started.elapsed());
        Ok(id)
    }

    /// Sends `spec`'s block to be translated and compiled ahead (docs/jit.md "Compiling
    /// ahead"), unless one is being compiled there already, the core shares code with a
    /// cluster's other cores (they compile with it, [`SharedCode`]) or there is no compiling
    /// thread: the block is then compiled at [`Jit::tier_up`] as usual.
    pub(crate) fn compile_ahead(&mut self, spec: &translate::Spec<'_>) {
        // Code a block being compiled ahead runs through stops being arrived at once that
        // block is in: it is left to be compiled at `tier_up` if it still gets there.
        if self.shared.is_some()
            || self.prepared.contains_key(&spec.start)
            || self
                .prepared
                .values()
                .any(|p| p.plan.runs_through(spec.start))
        {
            return;
        }
        let Some(answer) = ahead::request(translate::OwnedSpec::of(spec)) else {
            return;
        };
        // Its bound comes with its code.
        let plan = Plan::of(spec, 0);
        self.prepared.insert(spec.start, Prepared { plan, answer });
    }

    /// The block compiled ahead at `pc`, put in now (its host code waited for when the
    /// compiling thread is not done with it): its id; `None` when none was, or its code
    /// could not be made there (the caller compiles it as usual).
    pub(crate) fn take_ahead(&mut self, pc: u32) -> Option<u32> {
        let prepared = self.prepared.remove(&pc)?;
        // Blocks being compiled ahead from code this one runs through are given up.
        self.prepared
            .retain(|_, p| !prepared.plan.runs_through(p.plan.start));
        let started = Instant::now();
        let answer = prepared.answer.wait();
        self.stats.waited_us += duration_us(started.elapsed());
        let (code, us, bound) = answer?;
        let name = self.next_name();
        let entry = translate::define(self.module()?, &name, &code)?;
        let plan = Plan {
            bound,
            ..prepared.plan
        };
        let id = self.install(plan, entry, code.bytes.len() as u64, None);
        self.stats.ahead += 1;
        self.stats.compile_us += us;
        Some(id)
    }

    /// Makes a block of `plan` with code `entry` (`bytes` long) and puts it in the table.
    fn install(
        &mut self,
        plan: Plan,
        entry: Entry,
        bytes: u64,
        shared: Option<Arc<HostCode>>,
    ) -> u32 {
        self.held += bytes;
        perf_map::record(entry, bytes, plan.start);
        let block = Block {
            start: plan.start,
            low: plan.low,
            end: plan.end,
            boundaries: plan.boundaries,
            key: plan.key,
            gates: plan.gates,
            bound: plan.bound,
            literals: plan.literals,
            entry,
            _shared: shared,
            dead: false,
        };
        let id = self.blocks.len() as u32;
        self.blocks.push(block);
        self.versions.entry(plan.start).or_default().push(id);
        for g in plan.granules {
            self.granules.entry(g).or_default().push(id);
        }
        self.put(plan.start, id);
        self.stats.blocks += 1;
        self.stats.instructions += plan.instructions;
        self.stats.code_bytes += bytes;
        id
    }

    /// Empties the code cache at its limit ([`Jit::drop_code`], counted).
    fn flush(&mut self) {
        self.drop_code();
        self.stats.flushes += 1;
    }

    /// Empties the code cache: every block is forgotten and its code freed.
    fn drop_code(&mut self) {
        self.clear();
        self.blocks.clear();
        self.run = None;
        if let Some(m) = self.module.take() {
            // SAFETY: no compiled code runs while the dispatcher compiles (a block is only
            // ever called by the dispatcher, which is here, or tail-called by a block it
            // called), and every pointer into the module's code was in `blocks`, the table
            // (both emptied by `clear` and above) or `run` (dropped above).
            unsafe { m.free_memory() };
        }
        self.held = 0;
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        self.blocks.clear();
        if let Some(m) = self.module.take() {
            // SAFETY: the core that ran this code is being dropped; nothing can call it.
            unsafe { m.free_memory() };
        }
    }
}

fn duration_us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// A module for the host: Cranelift's native target, optimised for speed ([`new_isa`]).
fn new_module() -> Option<JITModule> {
    Some(JITModule::new(JITBuilder::with_isa(
        new_isa()?,
        default_libcall_names(),
    )))
}

/// Cranelift's native target with the settings every block is compiled with (the cores'
/// modules and the compiling thread, [`ahead`], alike).
fn new_isa() -> Option<cranelift_codegen::isa::OwnedTargetIsa> {
    use cranelift_codegen::settings::{self, Configurable};
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").ok()?;
    flags.set("is_pic", "false").ok()?;
    flags.set("use_colocated_libcalls", "false").ok()?;
    // The IR is made by one translator tested against the interpreter; checking it again on
    // every compile would double compile time.
    flags.set("enable_verifier", "false").ok()?;
    // Cranelift's tail calls (blocks linked to blocks, docs/jit.md "Linking") need frame
    // pointers.
    flags.set("preserve_frame_pointers", "true").ok()?;
    cranelift_native::builder()
        .ok()?
        .finish(settings::Flags::new(flags))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::{Claim, Heat, HostCode, Jit, SharedCode, LONG_RUN, TIER_UP};

    /// The arrival at which `pc` first counts as hot on `jit`, whose core has retired
    /// `retired` instructions.
    fn hot_at(jit: &mut Jit, pc: u32, retired: u64) -> u32 {
        (1..=u32::from(u16::MAX))
            .find(|_| jit.heat(pc, retired) == Heat::Hot)
            .unwrap_or(0)
    }

    #[test]
    fn a_core_sharing_code_with_seven_others_counts_an_eighth_of_tier_up_once_its_run_is_long() {
        // docs/jit.md "Code shared by cores": one compile serves the eight cores, so after
        // LONG_RUN retired instructions the count is TIER_UP / 8; before, TIER_UP.
        let mut shared = Jit::new();
        shared.share(std::sync::Arc::default(), 8);
        assert_eq!(hot_at(&mut shared, 0x100, LONG_RUN - 1), 32768);
        assert_eq!(hot_at(&mut shared, 0x200, LONG_RUN), 4096);
        // Arrivals counted before the run got long count towards the lower count.
        for _ in 0..4000 {
            assert_eq!(shared.heat(0x300, LONG_RUN - 1), Heat::Cold);
        }
        assert_eq!(hot_at(&mut shared, 0x300, LONG_RUN), 96);
        // A core alone, and a count a test sets, are the same however long the run.
        let mut alone = Jit::new();
        assert_eq!(hot_at(&mut alone, 0x100, LONG_RUN), u32::from(TIER_UP));
        shared.set_tier_up(16);
        assert_eq!(hot_at(&mut shared, 0x400, LONG_RUN), 16);
    }

    #[test]
    fn an_address_in_the_region_of_an_awaited_block_does_not_get_hot_until_that_block_is_copied() {
        // docs/jit.md "Code shared by cores": a core that found another compiling the block
        // at 0x100 (its region 0x100 to 0x108) compiles no block inside that region meanwhile.
        let mut jit = Jit::new();
        jit.set_tier_up(4);
        jit.awaits(0x100, [0x100, 0x104, 0x108].into_iter());
        let heats = |jit: &mut Jit, pc| (0..4).map(|_| jit.heat(pc, 0)).last();
        assert_eq!(
            heats(&mut jit, 0x104),
            Some(Heat::Cold),
            "inside the awaited region"
        );
        assert_eq!(heats(&mut jit, 0x10c), Some(Heat::Hot), "outside it");
        jit.stop_awaiting(0x100);
        assert_eq!(jit.heat(0x104, 0), Heat::Hot, "its count went on meanwhile");
        assert!(jit.awaited_region.is_empty());
    }

    #[test]
    fn a_core_finding_another_compiling_the_same_ir_interprets_on_and_copies_it_when_done() {
        // docs/jit.md "Code shared by cores": the store answers a second claim on IR being
        // compiled with Busy (the core interprets on, never waits), the code once it is done,
        // and a fresh claim when the first was given up.
        let store = SharedCode::default();
        let ir = b"the same IR".to_vec();
        let Claim::Compile(first) = store.claim(&ir, 0x8400_0100, None) else {
            panic!("the first claim compiles");
        };
        assert!(matches!(store.claim(&ir, 0x8420_0100, None), Claim::Busy));
        assert!(
            !store.compiled_at(0x8420_0100),
            "nothing to copy while it compiles"
        );
        first.done(HostCode::new(vec![0xc3], 16));
        assert!(
            store.compiled_at(0x8420_0100),
            "the same place in another core's image"
        );
        let Claim::Copy(code) = store.claim(&ir, 0x8420_0100, None) else {
            panic!("a claim after the compile copies");
        };
        assert_eq!(code.bytes, [0xc3]);
        // A claim given up leaves the IR free for the next core to compile.
        let other = b"other IR".to_vec();
        drop(store.claim(&other, 0x8400_0200, None));
        assert!(matches!(
            store.claim(&other, 0x8420_0200, None),
            Claim::Compile(_)
        ));
    }
}
