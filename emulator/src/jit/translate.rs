//! Translating a block to Cranelift IR: the instructions' effects, and the interpreter's cycle
//! model — fetch, interlocks, memory latency, issue, taken branches and loop-backs — applied
//! in the same order to the same counters (docs/jit.md "Cycles").

use std::collections::HashSet;
use std::sync::Arc;

use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, Inst, InstBuilder, MemFlagsData as MemFlags, Signature, UserFuncName, Value,
};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module};
use q7_isa::sreg::sr;
use q7_isa::{Family, Opcode};

use super::{
    Claim, Ctx, Entry, HostCode, Key, Link, NotMade, Run, Shared, SharedCode, Slot, Waits,
    EXIT_CONTINUE, EXIT_INTERPRET, SLOTS,
};
use crate::predecode::Op;
use crate::state::ps;
use crate::timing::{Latency, TimingModel};

/// The helpers compiled code calls, as addresses of `extern "C"` functions of the core's bus
/// type (core/tier2.rs).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Helpers {
    /// `(ctx, addr, size) -> value | latency << 32`, bit 63 set: not done.
    pub load: usize,
    /// `(ctx, addr, size, value) -> latency << 32`, bit 63 set: not done; bit 62: code changed.
    pub store: usize,
    /// `(ctx, pc) -> fetch cycles`.
    pub fetch: usize,
    /// `(ctx, pc, s, frame) -> the gate bits that trap now`, a window trap taken
    /// ([`TRAPPED`]) or [`NOT_DONE`]: ENTRY.
    pub entry: usize,
    /// `(ctx, pc) -> the return address`, a window trap taken ([`TRAPPED`]) or [`NOT_DONE`]:
    /// RETW.
    pub retw: usize,
    /// `(ctx, pc, group)`: the window overflow of an instruction naming `group` whose gate
    /// trips after a leading ENTRY, taken ([`TRAPPED`]) or [`NOT_DONE`].
    pub overflow: usize,
    /// `rfw_helper`.
    pub rfw: usize,
    /// `(ctx, frames)`: the window state of a block leaving inside followed calls, the frames
    /// of `frames` ([`Spec::frames`]) made live and the window moved to the deepest.
    pub frames: usize,
}

/// The ways of a set compiled code looks a fetch up in itself ([`Tr::fetch`]); a hit in a
/// later way, and a miss, go to the fetch helper.
const PROBED_WAYS: u32 = 2;

/// Bit of a helper's answer: the access was not done (the interpreter must execute it: a
/// misaligned access, a device, an unmapped address, a refused store).
pub(crate) const NOT_DONE: u64 = 1 << 63;
/// Bit of the store helper's answer: the store changed compiled code (leave the block).
pub(crate) const CODE_CHANGED: u64 = 1 << 62;
/// Bit of a window helper's answer (ENTRY, RETW, the overflow helper): the instruction raised
/// a window trap, taken as the interpreter takes it (docs/jit.md "Window traps"); the answer
/// holds the vector in bits 0..32 and the cycles to charge in bits 32..62.
pub(crate) const TRAPPED: u64 = 1 << 62;

/// What a block is compiled from.
#[derive(Debug)]
pub(crate) struct Spec<'a> {
    /// Its instructions and their addresses, in address order: a region (docs/jit.md
    /// "Tier-up") whose instructions other than the one at `start` are reached by falling
    /// through from the one before or by a jump or branch of the region ([`edge_target`]).
    pub ops: &'a [(u32, Op)],
    /// The address it is entered at, one of `ops`.
    pub start: u32,
    /// By instruction, the frames live while it runs, relative to the block's own (docs/jit.md
    /// "Calls"): bit `k` set when the frame `k` register groups above the block's is one of
    /// the followed calls' (bit 0, the block's own, always); the highest is the instruction's.
    pub frames: &'a [u16],
    /// The windowed calls the block follows into their callees.
    pub calls: &'a [Inline],
    /// When the block starts at an ENTRY entered as a call (docs/jit.md "Calls"): the window
    /// increment PS.CALLINC held when it was compiled. Its whole function runs as a followed
    /// callee of the caller's window, which compiled code never moves, and its RETW returns
    /// to the caller as a jump; a block entered with another PS.CALLINC leaves before the
    /// ENTRY for the interpreter.
    pub entered: Option<u32>,
    /// Register groups (of 4) in the register file.
    pub groups: u32,
    /// Whether the core has the ISL/KSL stack limits.
    pub stack_limit: bool,
    /// The logical address registers' values when it is compiled (before a leading ENTRY):
    /// an access whose base register no instruction of the block writes is compiled for the
    /// memory its address falls in with these ([`Site`]).
    pub values: [u32; 16],
    /// The entry state.
    pub key: Key,
    /// The cycle model.
    pub timing: &'a TimingModel,
    /// Whether instruction fetch is timed (the bus's I-cache), and the line size's log2.
    pub fetch_line: Option<u32>,
    /// The I-cache's layout, when compiled code looks up hits itself (its pointers are taken
    /// from the context at run time, never from here).
    pub icache: Option<crate::bus::FetchView>,
    /// The translate windows' layout, when compiled code loads through them itself (their
    /// pointers are taken from the context at run time).
    pub windows: Option<crate::bus::WindowView>,
    /// Directly reachable memory: first address, length, whether stores may go there.
    pub direct: Option<(u32, u64, bool)>,
    /// Directly reachable memory that may hold code ([`crate::bus::Bus::direct_code`]): first
    /// address, length, whether stores may go there (into granules holding no decoded code).
    pub direct_code: Option<(u32, u64, bool)>,
    /// Whether compiled code stores into [`Spec::direct`]'s memory itself where its granule is
    /// touched and holds no code ([`crate::bus::Direct::touched`]).
    pub guarded_stores: bool,
    /// The most cycles one data access or fetch miss can cost on the bus.
    pub access_cycles: u64,
    /// LITBASE when the block is compiled: its L32Rs load from the addresses it gives, and
    /// leave for the interpreter when it has changed.
    pub litbase: u32,
    /// The helpers.
    pub helpers: Helpers,
    /// Whether code addresses are compiled relative to the start ([`Tr::code`]): so when
    /// the core shares host code with the other cores of its cluster.
    pub relative: bool,
    /// The L32R literals in the translate windows' memory, compiled in as constants
    /// (docs/jit.md "Literals"): by the literal's address, the word it holds when the block
    /// is built. The core marks their 64 bytes as code ([`crate::predecode::DecodeCache::mark_code`])
    /// and a store there drops the block, as a store into its instructions does.
    pub literals: &'a [(u32, u32)],
}

/// A windowed call a block follows into its callee, and back from the callee's RETW
/// (docs/jit.md "Calls").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Inline {
    /// The CALLn or CALLXn.
    pub call: u32,
    /// The callee's ENTRY (for a CALLXn, the address its register must hold, else the block
    /// leaves before the call).
    pub entry: u32,
    /// The instruction after the call, where the callee returns to.
    pub ret: u32,
    /// The window increment: 1, 2 or 3 register groups.
    pub inc: u32,
}

/// The depth of the deepest of `frames` ([`Spec::frames`]), in register groups.
pub(crate) fn depth(frames: u16) -> u32 {
    15 - frames.leading_zeros()
}

/// A [`Spec`] that owns what it holds, for building the block's IR on another thread (docs/jit.md
/// "Compiling ahead"): [`OwnedSpec::spec`] gives back the same spec, so the IR is the one the
/// core would have built.
#[derive(Debug)]
pub(crate) struct OwnedSpec {
    ops: Vec<(u32, Op)>,
    frames: Vec<u16>,
    calls: Vec<Inline>,
    literals: Vec<(u32, u32)>,
    timing: TimingModel,
    /// The spec's other fields, its slices and timing model left empty.
    rest: Spec<'static>,
}

// SAFETY: the only fields that are not plain data are the pointers of the I-cache and
// translate-window views, which `OwnedSpec::of` sets to null: translation reads only the
// views' layout (compiled code takes the pointers from the context at run time), so nothing
// is ever reached through them, from this thread or another.
unsafe impl Send for OwnedSpec {}

/// The empty timing model an [`OwnedSpec`]'s `rest` borrows until [`OwnedSpec::spec`] puts the
/// owned one in.
static NO_TIMING: std::sync::OnceLock<TimingModel> = std::sync::OnceLock::new();

impl OwnedSpec {
    /// A copy of `spec`, its views' pointers null.
    pub(crate) fn of(spec: &Spec<'_>) -> OwnedSpec {
        let icache = spec.icache.map(|v| crate::bus::FetchView {
            tags: std::ptr::null_mut(),
            last_line: std::ptr::null_mut(),
            lookups: std::ptr::null_mut(),
            ..v
        });
        let windows = spec.windows.map(|v| crate::bus::WindowView {
            windows: std::ptr::null(),
            hbm: std::ptr::null_mut(),
            counted: [std::ptr::null_mut(); 2],
            ..v
        });
        OwnedSpec {
            ops: spec.ops.to_vec(),
            frames: spec.frames.to_vec(),
            calls: spec.calls.to_vec(),
            literals: spec.literals.to_vec(),
            timing: spec.timing.clone(),
            rest: Spec {
                ops: &[],
                frames: &[],
                calls: &[],
                literals: &[],
                timing: NO_TIMING.get_or_init(TimingModel::default),
                icache,
                windows,
                ..*spec
            },
        }
    }

    /// The spec it copies.
    pub(crate) fn spec(&self) -> Spec<'_> {
        Spec {
            ops: &self.ops,
            frames: &self.frames,
            calls: &self.calls,
            literals: &self.literals,
            timing: &self.timing,
            ..self.rest
        }
    }
}

/// Register indices of a block: `4 × depth + r` for logical register `r` of an instruction
/// whose window is `depth` groups above the block's own.
pub(crate) const REGISTERS: usize = 64;

impl Spec<'_> {
    /// The block's lowest address and the end of its last instruction.
    pub fn range(&self) -> (u32, u32) {
        let (low, _) = self.ops[0];
        let (pc, op) = self.ops[self.ops.len() - 1];
        (low, pc.wrapping_add(u32::from(op.insn.len)))
    }

    /// The index of the instruction the block is entered at.
    pub fn entry(&self) -> usize {
        self.index(self.start).expect("the block holds its start")
    }

    /// The index of the block's instruction at `pc`.
    pub fn index(&self, pc: u32) -> Option<usize> {
        self.ops.binary_search_by_key(&pc, |&(pc, _)| pc).ok()
    }

    /// The instruction the block is entered at.
    pub fn first(&self) -> &Op {
        &self.ops[self.entry()].1
    }

    /// The index of the block's leading ENTRY: its start, when that is an ENTRY.
    pub fn lead(&self) -> Option<usize> {
        let e = self.entry();
        (self.ops[e].1.insn.opcode == Opcode::Entry && self.entered.is_none()).then_some(e)
    }

    /// The followed call at `pc`.
    pub fn call_at(&self, pc: u32) -> Option<&Inline> {
        self.calls.iter().find(|c| c.call == pc)
    }

    /// The window increment of the followed calls into instruction `i`, when it is their
    /// callee's ENTRY (which runs in the caller's window and moves it), or of the call the
    /// block is entered as ([`Spec::entered`]) at its start.
    pub fn callee_entry(&self, i: usize) -> Option<u32> {
        let pc = self.ops[i].0;
        if pc == self.start && self.entered.is_some() {
            return self.entered;
        }
        self.calls.iter().find(|c| c.entry == pc).map(|c| c.inc)
    }

    /// Whether instruction `i` runs in the frame of the function the block is entered at as
    /// a call ([`Spec::entered`]): its RETW returns out of the block.
    pub fn in_entered(&self, i: usize) -> bool {
        self.entered.is_some() && self.frames[i] == self.frames[self.entry()]
    }

    /// The frames live when control arrives at instruction `i` ([`Spec::frames`]): a callee's
    /// ENTRY is reached in its caller's.
    pub fn arrival(&self, i: usize) -> u16 {
        let f = self.frames[i];
        match self.callee_entry(i) {
            Some(_) => f & !(1 << depth(f)),
            None => f,
        }
    }

    /// The calls a followed callee's RETW, instruction `i`, returns from: those whose callee
    /// runs in its frames, and whose return address its own address's top bits give.
    pub fn returns(&self, i: usize) -> Vec<Inline> {
        let (pc, op) = &self.ops[i];
        let f = self.frames[i];
        if f == 1 || !matches!(op.insn.opcode, Opcode::Retw | Opcode::RetwN) {
            return Vec::new();
        }
        self.calls
            .iter()
            .filter(|c| {
                self.index(c.entry).is_some_and(|e| self.frames[e] == f)
                    && (pc & 0xc000_0000) | (c.ret & 0x3fff_ffff) == c.ret
            })
            .copied()
            .collect()
    }

    /// Where control goes from instruction `i` to a fixed address: its jump's or branch's
    /// target, a followed call's callee, a followed callee's returns.
    pub fn edges(&self, i: usize) -> Vec<u32> {
        let (pc, op) = &self.ops[i];
        let mut to: Vec<u32> = edge_target(op).into_iter().collect();
        to.extend(self.call_at(*pc).map(|c| c.entry));
        to.extend(self.returns(i).iter().map(|c| c.ret));
        to
    }

    /// Whether the edge from instruction `i` to `to` begins a new pass (docs/jit.md "Exact
    /// stops"): one back (to an instruction at or before `i`), and a followed call's or
    /// return's, so that a pass holds one function's code between calls and its bound stays
    /// short.
    pub fn passes_at(&self, i: usize, to: u32) -> bool {
        let (pc, op) = &self.ops[i];
        to <= *pc
            || self.call_at(*pc).is_some_and(|c| c.entry == to)
            || (self.frames[i] != 1 && matches!(op.insn.opcode, Opcode::Retw | Opcode::RetwN))
    }

    /// [`Spec::edges`] of every instruction, worked out once per translation.
    pub fn all_edges(&self) -> Vec<Vec<u32>> {
        (0..self.ops.len()).map(|i| self.edges(i)).collect()
    }

    /// By instruction, whether an edge of the block (`edges`, [`Spec::all_edges`]) goes
    /// there (a *label*: reached other than by falling through from the instruction before).
    pub fn labels(&self, edges: &[Vec<u32>]) -> Vec<bool> {
        let mut to: Vec<u32> = edges.iter().flatten().copied().collect();
        to.sort_unstable();
        self.ops
            .iter()
            .map(|(pc, _)| to.binary_search(pc).is_ok())
            .collect()
    }

    /// The register indices ([`REGISTERS`]) instruction `i` reads and writes, as masks: a
    /// callee's ENTRY reads its caller's `as` and sets its own; a callee's RETW reads a0.
    pub fn regs_of(&self, i: usize) -> (u64, u64) {
        let op = &self.ops[i].1;
        let rot = 4 * depth(self.frames[i]);
        if let Some(inc) = self.callee_entry(i) {
            let s = op.insn.operands[0];
            return (1 << (rot - 4 * inc + s), 1 << (rot + s));
        }
        if self.frames[i] != 1 && matches!(op.insn.opcode, Opcode::Retw | Opcode::RetwN) {
            return (1 << rot, 0);
        }
        let (r, w) = registers(op);
        (u64::from(r) << rot, u64::from(w) << rot)
    }

    /// By register index, the value it holds throughout the block where that is known when
    /// the block is compiled: a register of the block's own window that no instruction
    /// writes, its [`Spec::values`] value (after a leading ENTRY only a1, which the ENTRY sets
    /// from the caller's SP: `entry a1, frame` makes it that less the frame); and a followed
    /// callee's a1, which only its ENTRY sets, from a known SP.
    pub fn known(&self) -> [Option<u32>; REGISTERS] {
        let mut writers = [0u8; REGISTERS];
        for i in 0..self.ops.len() {
            let w = self.regs_of(i).1;
            for (r, n) in writers.iter_mut().enumerate() {
                *n = n.saturating_add((w >> r & 1) as u8);
            }
        }
        let mut known = [None; REGISTERS];
        let first = self.first().insn;
        for r in 0..16 {
            if writers[r] != 0 {
                continue;
            }
            known[r] = if first.opcode == Opcode::Entry && self.entered.is_none() {
                (r == 1 && first.operands[0] == 1)
                    .then(|| self.values[1].wrapping_sub(first.operands[1]))
            } else {
                Some(self.values[r])
            };
        }
        // The callees' SPs, shallowest first: each from its caller's.
        let mut entries: Vec<usize> = (0..self.ops.len())
            .filter(|&i| self.callee_entry(i).is_some())
            .collect();
        entries.sort_by_key(|&i| depth(self.frames[i]));
        for i in entries {
            let o = self.ops[i].1.insn.operands;
            let (from, to) = self.regs_of(i);
            let (from, to) = (from.trailing_zeros() as usize, to.trailing_zeros() as usize);
            if o[0] == 1 && writers[to] == 1 {
                known[to] = known[from].map(|sp| sp.wrapping_sub(o[1]));
            }
        }
        known
    }

    /// The gate bits of the instructions that run in the block's own window (the leading
    /// ENTRY's aside): checked where it is entered, or after its leading ENTRY.
    pub fn own_gates(&self) -> u8 {
        let lead = self.lead();
        (0..self.ops.len())
            .filter(|&i| self.frames[i] == 1 && Some(i) != lead)
            .fold(0, |g, i| g | self.ops[i].1.gate.bit())
    }

    /// The highest register group the instructions running in `frames` name (their window's
    /// instructions are checked for overflow at its ENTRY).
    pub fn groups_named(&self, frames: u16) -> u32 {
        (0..self.ops.len())
            .filter(|&i| self.frames[i] == frames)
            .map(|i| u32::from(self.ops[i].1.gate.group()))
            .max()
            .unwrap_or(0)
    }

    /// What the access of `size` bytes at register index `base` plus `offset` is compiled
    /// for: the memory its address falls in when the base register's value is `known`
    /// ([`Spec::known`]), else [`Site::Any`].
    fn site(&self, known: &[Option<u32>; REGISTERS], base: u32, offset: u32, size: u32) -> Site {
        match known[base as usize] {
            Some(value) => self.class_of(value.wrapping_add(offset), size),
            None => Site::Any,
        }
    }
    /// The word compiled in for the L32R literal at `at` ([`Spec::literals`]), if any.
    pub fn literal(&self, at: u32) -> Option<u32> {
        self.literals.iter().find(|l| l.0 == at).map(|l| l.1)
    }

    /// The memory of the access of `size` bytes at `addr`, as compiled code reaches them.
    fn class_of(&self, addr: u32, size: u32) -> Site {
        let inside = |&(base, len, _): &(u32, u64, bool)| {
            u64::from(addr.wrapping_sub(base)) + u64::from(size) <= len
        };
        if self.direct.as_ref().is_some_and(inside) {
            Site::Direct
        } else if self.direct_code.as_ref().is_some_and(inside) {
            Site::DirectCode
        } else if self.windows.is_some_and(|v| v.covers(addr)) {
            Site::Window
        } else {
            Site::Helper
        }
    }

    /// Whether compiled code loads and stores at `site` itself with no latency, a miss leaving
    /// the block before the instruction ([`Tr::leaves_when_missed`]): an L32R's (its address
    /// is fixed) or a1's access (the stack stays in its memory), `settled`, in a local memory
    /// (a core's DATARAM or the firmware band) that takes the access (a store only where the
    /// memory takes stores). Such an access adds nothing to a pass's cycles.
    fn local(&self, site: Site, settled: bool, store: bool) -> bool {
        let memory = match site {
            Site::Direct => self.direct,
            Site::DirectCode => self.direct_code,
            _ => None,
        };
        settled && memory.is_some_and(|(_, _, stores)| stores || !store)
    }

    /// The site of access instruction `i` (a load or store), whether it is settled and
    /// whether it stores (`known` is [`Spec::known`]).
    fn access(&self, known: &[Option<u32>; REGISTERS], i: usize) -> (Site, bool, bool) {
        let (pc, op) = &self.ops[i];
        let o = op.insn.operands;
        if op.insn.opcode == Opcode::L32r {
            let at = q7_isa::sreg::litbase::literal_address(self.litbase, *pc, o[1]);
            return (self.class_of(at, 4), true, false);
        }
        let base = 4 * depth(self.frames[i]) + o[1];
        match frame_access(op) {
            Some((size, at, store)) => (self.site(known, base, at, size), o[1] == 1, store),
            None => (Site::Any, false, false),
        }
    }

    /// For a load or store, instruction `i`: [`Spec::access`] (for [`super::share_key`], which
    /// writes what the translator decides of the block's memory accesses).
    pub(crate) fn access_of(
        &self,
        known: &[Option<u32>; REGISTERS],
        i: usize,
    ) -> Option<(Site, bool, bool)> {
        is_access(&self.ops[i].1).then(|| self.access(known, i))
    }

    /// The most cycles a pass from the block's entry can take ([`Spec::passes`]): its bound.
    pub fn bound(&self) -> u64 {
        let known = self.known();
        let edges = self.all_edges();
        let labels = self.labels(&edges);
        self.passes(&known, &edges, &labels)[self.entry()]
    }

    /// By instruction, the most cycles a pass from there can take: every instruction's
    /// fetch miss, memory latency, issue and (where it can transfer control or loop back)
    /// taken branch at their largest, and the interlocks, along the costliest path on to the
    /// next edge that begins a pass ([`Spec::passes_at`]). A pass is the code between two
    /// looks at the poll cycle (the entry's, and each such edge's), so its instructions are in
    /// address order and it runs each at most once. An interlock waits for one pending result
    /// and no longer than its latency, after which the result is ready for every later reader:
    /// so the interlocks of a pass take at most the latency of each load or multiply on its
    /// path and of the two results that may be pending where it begins (docs/jit.md "Exact
    /// stops"). (`known`, `edges` and `labels` are [`Spec::known`], [`Spec::all_edges`] and
    /// [`Spec::labels`]; the block's bound is the entry's.)
    pub fn passes(
        &self,
        known: &[Option<u32>; REGISTERS],
        edges: &[Vec<u32>],
        labels: &[bool],
    ) -> Vec<u64> {
        let t = self.timing;
        let mem = self.access_cycles;
        let n = self.ops.len();
        let mut cost = vec![0u64; n];
        let mut line = None;
        for (i, (pc, op)) in self.ops.iter().enumerate() {
            let c = &mut cost[i];
            if let Some(shift) = self.fetch_line {
                // A label fetches again (it may be reached from another line).
                if line != Some(pc >> shift) || labels[i] {
                    *c += mem;
                    line = Some(pc >> shift);
                }
            }
            // A result is ready its class's delay after the next instruction could start; the
            // divider blocks for its latency.
            *c += u64::from(t.result_delay(op.insn.opcode.latency()));
            if op.insn.opcode.latency() == Latency::Divide {
                *c += u64::from(t.divide_block());
            }
            if is_access(op) {
                let (site, settled, store) = self.access(known, i);
                if !self.local(site, settled, store) {
                    *c += mem;
                }
            }
            if matches!(op.insn.opcode, Opcode::Rfwo | Opcode::Rfwu) {
                *c += u64::from(t.exception_return);
            }
            *c += u64::from(t.issue);
            let next = pc.wrapping_add(u32::from(op.insn.len));
            if op.insn.opcode.family() == Family::Branch
                || ends_block(op)
                || self.key.lend == Some(next)
            {
                *c += u64::from(t.taken_branch.max(t.loop_back));
            }
        }
        // The costliest path on from each instruction within its pass, last first.
        let mut on = vec![0u64; n];
        for i in (0..n).rev() {
            let mut most = on.get(i + 1).copied().unwrap_or(0);
            for &to in &edges[i] {
                match self.index(to) {
                    Some(j) if j > i && !self.passes_at(i, to) => most = most.max(on[j]),
                    _ => {}
                }
            }
            on[i] = cost[i] + most;
        }
        // The results pending where a pass begins (two slots at most).
        let pending = u64::from(t.load_use.max(t.mul_use).max(t.mul_high_use));
        for bound in &mut on {
            *bound += 2 * pending;
        }
        on
    }
}

/// Whether compiled code executes `op` (everything else ends a block before it).
pub(crate) fn supported(op: &Op) -> bool {
    use Opcode::*;
    if op.bad.is_some() {
        return false;
    }
    match op.insn.opcode {
        Add | AddN | Addx2 | Addx4 | Addx8 | Sub | Subx2 | Subx4 | Subx8 | And | Or | Xor | Neg
        | Abs | Addi | Addmi | AddiN | Movi | MoviN | MovN | Moveqz | Movnez | Movltz | Movgez
        | Salt | Saltu | Const16 | Nop | NopN | Extui | Slli | Srli | Srai | Sll | Srl | Sra
        | Src | Ssr | Ssl | Ssa8l | Ssa8b | Ssai | Mul16u | Mul16s | Mull | Muluh | Mulsh | Nsa
        | Nsau | Min | Max | Minu | Maxu | Sext | Clamps => true,
        // A divide by zero leaves before the divide, for the interpreter to raise.
        Quos | Quou | Rems | Remu => true,
        L8ui | L16ui | L16si | L32i | L32iN | L32ai | L32e | L32r | S8i | S16i | S32i | S32iN
        | S32ri | S32nb | S32e | Memw | Extw | Isync | Rsync | Esync | Dsync => true,
        Beq | Bne | Blt | Bge | Bltu | Bgeu | Bany | Bnone | Ball | Bnall | Bbc | Bbs | Bbci
        | Bbsi | Beqi | Bnei | Blti | Bgei | Bltui | Bgeui | Beqz | BeqzN | Bnez | BnezN | Bltz
        | Bgez | Bf | Bt | J | Jx | Call0 | Callx0 | Ret | RetN => true,
        // Windowed calls and returns end a block; ENTRY only starts one (the block builder
        // stops before any other).
        Call4 | Call8 | Call12 | Callx4 | Callx8 | Callx12 | Retw | RetwN | Entry => true,
        // The window handlers' returns (privileged: the block's gates keep them to ring 0).
        Rfwo | Rfwu => true,
        // (A loop whose body is empty loops back at its own end: the block builder leaves
        // it to the interpreter.)
        Loop | Loopnez | Loopgtz => true,
        _ => false,
    }
}

/// Whether `op` is a load or store (barriers are in the memory family but access nothing).
fn is_access(op: &Op) -> bool {
    use Opcode::*;
    matches!(
        op.insn.opcode,
        L8ui | L16ui
            | L16si
            | L32i
            | L32iN
            | L32ai
            | L32e
            | L32r
            | S8i
            | S16i
            | S32i
            | S32iN
            | S32ri
            | S32nb
            | S32e
    )
}

/// The fixed target of a branch or jump `op`, if it has one.
pub(crate) fn target(op: &Op) -> Option<u32> {
    use Opcode::*;
    let o = op.insn.operands;
    match op.insn.opcode {
        J | Call0 | Call4 | Call8 | Call12 => Some(o[0]),
        Beqz | BeqzN | Bnez | BnezN | Bltz | Bgez | Bf | Bt => Some(o[1]),
        opcode
            if opcode.family() == Family::Branch
                && !matches!(opcode, Jx | Callx0 | Ret | RetN | Loop | Loopnez | Loopgtz) =>
        {
            Some(o[2])
        }
        _ => None,
    }
}

/// The fixed target of a jump or conditional branch `op` (not a call): where the block
/// builder follows control within a region, and where compiled code goes on inside the block
/// when the target is one of its instructions.
pub(crate) fn edge_target(op: &Op) -> Option<u32> {
    use Opcode::*;
    match op.insn.opcode {
        Call0 | Call4 | Call8 | Call12 => None,
        _ => target(op),
    }
}

/// The window increment of a windowed call (CALL4/8/12, CALLX4/8/12), in register groups.
pub(crate) fn call_increment(opcode: Opcode) -> Option<u32> {
    use Opcode::*;
    match opcode {
        Call4 | Callx4 => Some(1),
        Call8 | Callx8 => Some(2),
        Call12 | Callx12 => Some(3),
        _ => None,
    }
}

/// Whether `op` ends a block (control goes elsewhere unconditionally, or LEND changes).
pub(crate) fn ends_block(op: &Op) -> bool {
    use Opcode::*;
    matches!(
        op.insn.opcode,
        J | Jx
            | Call0
            | Callx0
            | Ret
            | RetN
            | Loop
            | Loopnez
            | Loopgtz
            | Call4
            | Call8
            | Call12
            | Callx4
            | Callx8
            | Callx12
            | Retw
            | RetwN
            | Rfwo
            | Rfwu
    )
}

/// Cranelift's working memory, kept from one compile to the next (allocated once per core).
#[derive(Default)]
pub(crate) struct Workspace {
    ctx: Option<Context>,
    fctx: FunctionBuilderContext,
    /// The last IR's [`fingerprint`], its buffer kept from block to block: some hundred KB
    /// that each copy otherwise took fresh from the system (and gave back).
    ir: Vec<u8>,
}

/// Builds `spec`'s IR for `isa` (a core's module's, or the compiling thread's with the same
/// settings: the same IR) into `work`'s function (named as function 0 until [`compile`]
/// names it): the block's bound (the most cycles its first pass can take, [`Spec::passes`]);
/// `None` when a branch of it goes nowhere ([`branches_land`]).
pub(crate) fn build(
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    work: &mut Workspace,
    spec: &Spec<'_>,
) -> Option<u64> {
    let frontend = isa.frontend_config();
    let ptr = frontend.pointer_type();
    let call_conv = isa.default_call_conv();
    let ctx = work.ctx.get_or_insert_with(Context::new);
    ctx.clear();
    ctx.func.signature = block_signature(ptr);
    ctx.func.name = UserFuncName::user(0, 0);
    let b = FunctionBuilder::new(&mut ctx.func, &mut work.fctx);
    let mut t = Tr::new(b, ptr, call_conv, spec);
    let bound = t.passes[spec.entry()];
    t.body();
    t.emit_exits();
    t.sink_leaving();
    let mut b = t.b;
    b.seal_all_blocks();
    b.finalize(frontend);
    drop_unused_loads(&mut ctx.func);
    let whole = branches_land(&ctx.func);
    debug_assert!(
        whole,
        "a branch of the IR at {:#x} goes to a block not placed",
        spec.start
    );
    // Helpers are called through a shim that keeps no vector register (jit/preserving.rs).
    debug_assert!(
        ctx.func.dfg.values().all(|v| {
            let ty = ctx.func.dfg.value_type(v);
            !ty.is_float() && !ty.is_vector()
        }),
        "the IR at {:#x} holds a floating-point or vector value",
        spec.start
    );
    whole.then_some(bound)
}

/// Removes the loads whose value nothing uses (a counter or register loaded at a block's
/// entry for paths that never read it): every load the translator makes cannot trap, but
/// Cranelift emits a load whether or not its value is used. Uses are counted once, by value
/// number; a load dropped releases its address, whose load may then go too.
fn drop_unused_loads(func: &mut cranelift_codegen::ir::Function) {
    use cranelift_codegen::entity::EntityRef;
    use cranelift_codegen::ir::{InstructionData, ValueDef};
    let dfg = &func.dfg;
    let mut uses = vec![0u32; dfg.num_values()];
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            for v in dfg.inst_values(inst) {
                uses[dfg.resolve_aliases(v).index()] += 1;
            }
        }
    }
    // A load that traps never goes; nor does one whose result is used.
    let droppable = |inst: Inst| match dfg.insts[inst] {
        InstructionData::Load { flags, .. } => dfg.mem_flags[flags].notrap(),
        _ => false,
    };
    let mut dead: Vec<Inst> = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if droppable(inst) && uses[dfg.first_result(inst).index()] == 0 {
                dead.push(inst);
            }
        }
    }
    let mut gone = Vec::new();
    while let Some(inst) = dead.pop() {
        gone.push(inst);
        for v in dfg.inst_values(inst) {
            let v = dfg.resolve_aliases(v);
            uses[v.index()] -= 1;
            if uses[v.index()] == 0 {
                if let ValueDef::Result(def, 0) = dfg.value_def(v) {
                    if droppable(def) && func.layout.inst_block(def).is_some() {
                        dead.push(def);
                    }
                }
            }
        }
    }
    for inst in gone {
        func.layout.remove_inst(inst);
    }
}

/// Whether every branch of `func` goes to a block placed in its layout, with code: the
/// translator places every label it jumps to, and Cranelift (its verifier off) would abort
/// the process on one it did not. A block whose IR fails this is not compiled.
fn branches_land(func: &cranelift_codegen::ir::Function) -> bool {
    let dfg = &func.dfg;
    func.layout.blocks().all(|block| {
        func.layout.block_insts(block).all(|inst| {
            dfg.insts[inst]
                .branch_destination(&dfg.jump_tables, &dfg.exception_tables)
                .iter()
                .all(|d| {
                    let to = d.block(&dfg.value_lists);
                    func.layout.is_block_inserted(to) && func.layout.first_inst(to).is_some()
                })
        })
    })
}

impl Workspace {
    /// The context holding the IR [`build`] last built.
    pub(crate) fn context(&mut self) -> Option<&mut Context> {
        self.ctx.as_mut()
    }
}

/// The bound and exact fingerprint ([`fingerprint`]) of the IR `spec` builds, for tests.
#[cfg(test)]
pub(crate) fn ir_of(spec: &Spec<'_>) -> Option<(u64, Vec<u8>)> {
    let isa = super::new_isa()?;
    let mut work = Workspace::default();
    let bound = build(&*isa, &mut work, spec)?;
    Some((bound, fingerprint_of(&mut work.context()?.func)))
}

/// `func`'s fingerprint ([`fingerprint`]) in a buffer of its own, for tests.
#[cfg(test)]
fn fingerprint_of(func: &mut cranelift_codegen::ir::Function) -> Vec<u8> {
    let mut ir = Vec::new();
    fingerprint(func, &mut ir);
    ir
}

/// Compiles `spec` into `module` as function `name` in `work` ([`Made`]), or copies the host
/// code another core compiled from the same spec's key or the same IR from `shared`, which
/// then gets the host code compiled here; [`NotMade::Busy`] when another core is compiling
/// it. With `copy_only`, only a copy: [`NotMade::Refused`] when `shared` holds no such code.
pub(crate) fn compile(
    module: &mut JITModule,
    work: &mut Workspace,
    name: &str,
    spec: &Spec<'_>,
    shared: Option<&SharedCode>,
    copy_only: bool,
) -> Result<Made, NotMade> {
    #[cfg(test)]
    if PANIC_IN_COMPILE.with(|p| p.replace(false)) {
        panic!("a panic a test put into the next compile on this thread");
    }
    let refused = NotMade::Refused;
    // A block another core compiled from an equal key is copied without building its IR;
    // one another core is compiling now is left to it.
    let key = shared.and_then(|_| super::share_key::of(spec));
    if let (Some(share), Some(key)) = (shared, key.as_deref()) {
        match share.by_key(key) {
            Some(Shared::Done(code)) => {
                #[cfg(debug_assertions)]
                check_key_copy(module, work, spec, share, &code);
                return copied(module, name, code, spec.bound());
            }
            Some(Shared::Compiling) if copy_only => return Err(refused),
            Some(Shared::Compiling) => return Err(NotMade::Busy),
            None => {}
        }
    }
    let bound = build(module.isa(), work, spec).ok_or(refused)?;
    if copy_only {
        fingerprint(&mut work.ctx.as_mut().ok_or(refused)?.func, &mut work.ir);
        let code = shared.and_then(|s| s.copy(&work.ir, key)).ok_or(refused)?;
        return copied(module, name, code, bound);
    }
    let ptr = module.target_config().pointer_type();
    let id = module
        .declare_function(name, Linkage::Local, &block_signature(ptr))
        .map_err(|_| refused)?;
    let ctx = work.ctx.as_mut().ok_or(refused)?;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let claim = shared.map(|share| {
        fingerprint(&mut ctx.func, &mut work.ir);
        share.claim(&work.ir, spec.start, key)
    });
    let claim = match claim {
        Some(Claim::Copy(code)) => return copied(module, name, code, bound),
        Some(Claim::Busy) => return Err(NotMade::Busy),
        Some(Claim::Compile(c)) => Some(c),
        None => None,
    };
    module.define_function(id, ctx).map_err(|_| refused)?;
    let compiled = ctx.compiled_code().ok_or(refused)?;
    let bytes = compiled.code_info().total_size;
    // Host code that names no address outside itself (no relocations) fits any core; a
    // claim dropped otherwise lets the next core compile its own.
    if let (Some(c), Some(code)) = (claim, HostCode::of(compiled)) {
        c.done(code);
    }
    module.finalize_definitions().map_err(|_| refused)?;
    Ok(Made {
        entry: module.get_finalized_function(id),
        bytes: u64::from(bytes),
        bound,
        shared: None,
    })
}

/// A block [`compile`] made.
pub(crate) struct Made {
    /// Its code.
    pub entry: Entry,
    /// Bytes of host code.
    pub bytes: u64,
    /// The most cycles a pass from its entry can take ([`Spec::bound`]).
    pub bound: u64,
    /// For a copy of another core's block: that code, which the block holds.
    pub shared: Option<Arc<HostCode>>,
}

/// A block copied from another core's `code` ([`compile`]'s answer): its entry in the
/// mapping the copying cores share ([`HostCode::shared_entry`]), else, where that mapping
/// cannot be made, in `module` as function `name`.
fn copied(
    module: &mut JITModule,
    name: &str,
    code: Arc<HostCode>,
    bound: u64,
) -> Result<Made, NotMade> {
    let entry = match code.shared_entry() {
        Some(entry) => entry,
        None => define(module, name, &code).ok_or(NotMade::Refused)?,
    };
    Ok(Made {
        entry,
        bytes: code.bytes.len() as u64,
        bound,
        shared: Some(code),
    })
}

/// With debug assertions, a copy found by its key ([`super::share_key`]) builds the IR
/// anyway and asserts that the store holds that IR's code: equal keys must make equal IR.
#[cfg(debug_assertions)]
fn check_key_copy(
    module: &JITModule,
    work: &mut Workspace,
    spec: &Spec<'_>,
    share: &SharedCode,
    code: &Arc<HostCode>,
) {
    let bound = build(module.isa(), work, spec);
    assert_eq!(
        bound,
        Some(spec.bound()),
        "the bound of the block at {:#x}",
        spec.start
    );
    let func = &mut work.ctx.as_mut().expect("the IR just built").func;
    fingerprint(func, &mut work.ir);
    let by_ir = share.copy(&work.ir, None);
    assert!(
        by_ir.is_some_and(|c| Arc::ptr_eq(&c, code)),
        "the block at {:#x} found by its key is not the one its IR makes",
        spec.start
    );
}

#[cfg(test)]
thread_local! {
    /// Set by a test: the next [`compile`] on this thread panics, as a translator or
    /// Cranelift bug would.
    pub(crate) static PANIC_IN_COMPILE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Puts host code compiled elsewhere (by another core, or ahead: it has no relocations) into
/// `module` as function `name`: its entry.
pub(crate) fn define(module: &mut JITModule, name: &str, code: &HostCode) -> Option<Entry> {
    let ptr = module.target_config().pointer_type();
    let id = module
        .declare_function(name, Linkage::Local, &block_signature(ptr))
        .ok()?;
    module
        .define_function_bytes(id, code.align, &code.bytes, &[])
        .ok()?;
    module.finalize_definitions().ok()?;
    Some(module.get_finalized_function(id))
}

/// The IR of `func` written out exactly, but for the function's name (which differs from
/// core to core): every block in layout order with its coldness and parameters, every
/// instruction with its data (`InstructionData::hash` writes the opcode, immediates, flags and
/// every argument, value lists included), its values and results with their types, the
/// signatures it calls through and every other table its instructions name entries of by
/// index (the memory flags of its loads and stores among them). Aliases are resolved first.
/// Two functions with the same fingerprint are the same IR, which Cranelift compiles to the
/// same host code; the display text said the same at four times the cost of compiling a block.
/// Written into `out`, emptied first.
fn fingerprint(func: &mut cranelift_codegen::ir::Function, out: &mut Vec<u8>) {
    use std::hash::{Hash, Hasher};
    /// A `Hasher` that keeps every byte written to it.
    struct Record<'a>(&'a mut Vec<u8>);
    impl Hasher for Record<'_> {
        fn write(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
        fn finish(&self) -> u64 {
            0
        }
    }
    func.dfg.resolve_all_aliases();
    out.clear();
    // Some 40 bytes an instruction: room for a region's IR without growing.
    out.reserve(1 << 17);
    let mut r = Record(out);
    format!("{}", func.signature).hash(&mut r);
    let dfg = &func.dfg;
    for sig in dfg.signatures.values() {
        format!("{sig}").hash(&mut r);
    }
    // Loads and stores name their flags by index into this table.
    dfg.mem_flags.hash(&mut r);
    dfg.signatures.len().hash(&mut r);
    // The other tables instructions name entries of by index (the translator makes none of
    // them now), whole.
    (
        &dfg.ext_funcs,
        &dfg.constants,
        &dfg.immediates,
        &dfg.jump_tables,
        &func.sized_stack_slots,
        &func.dynamic_stack_slots,
        &func.global_values,
    )
        .hash(&mut r);
    for block in func.layout.blocks() {
        (block, func.layout.is_cold(block)).hash(&mut r);
        let params = dfg.block_params(block);
        params.len().hash(&mut r);
        for &v in params {
            (v, dfg.value_type(v)).hash(&mut r);
        }
        for inst in func.layout.block_insts(block) {
            (inst, dfg.inst_values(inst).count()).hash(&mut r);
            for v in dfg.inst_values(inst) {
                v.hash(&mut r);
            }
            dfg.insts[inst].hash(&mut r, &dfg.value_lists);
            let results = dfg.inst_results(inst);
            results.len().hash(&mut r);
            for &v in results {
                (v, dfg.value_type(v)).hash(&mut r);
            }
        }
        u32::MAX.hash(&mut r);
    }
}

/// A block's signature: the context in, the exit kind out, in Cranelift's `tail` calling
/// convention (a block may leave by tail-calling the next, docs/jit.md "Linking").
fn block_signature(ptr: types::Type) -> Signature {
    let mut sig = Signature::new(cranelift_codegen::isa::CallConv::Tail);
    sig.params.push(AbiParam::new(ptr));
    sig.returns.push(AbiParam::new(types::I32));
    sig
}

/// Compiles into `module` a function `name` on the host's calling convention taking `params`
/// and returning `ret`, whose entry block `body` fills (given the builder and the parameters)
/// and ends: its finalized code.
pub(crate) fn compile_host_function(
    module: &mut JITModule,
    name: &str,
    params: &[types::Type],
    ret: types::Type,
    body: impl FnOnce(&mut FunctionBuilder, &[Value]),
) -> Option<*const u8> {
    let mut sig = Signature::new(module.isa().default_call_conv());
    sig.params.extend(params.iter().map(|&p| AbiParam::new(p)));
    sig.returns.push(AbiParam::new(ret));
    let id = module.declare_function(name, Linkage::Local, &sig).ok()?;
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let args = b.block_params(entry).to_vec();
        body(&mut b, &args);
        b.seal_all_blocks();
        b.finalize(module.target_config());
    }
    module.define_function(id, &mut ctx).ok()?;
    module.finalize_definitions().ok()?;
    Some(module.get_finalized_function(id))
}

/// Compiles the module's trampoline into compiled code: `(ctx, block) -> exit kind` on the
/// host's calling convention, calling `block` (a [`block_signature`] function) with `ctx`.
pub(crate) fn compile_run(module: &mut JITModule) -> Option<Run> {
    let ptr = module.target_config().pointer_type();
    let code = compile_host_function(module, "run", &[ptr, ptr], types::I32, |b, args| {
        let callee = b.import_signature(block_signature(ptr));
        let call = b.ins().call_indirect(callee, args[1], &[args[0]]);
        let exit = b.inst_results(call)[0];
        b.ins().return_(&[exit]);
    })?;
    // SAFETY: `code` is the finalized function just defined with the signature above (the
    // host's default calling convention: two pointers in, one i32 out), which is `Run`'s.
    Some(unsafe { std::mem::transmute::<*const u8, Run>(code) })
}

/// Offsets into [`Ctx`].
mod off {
    use super::{Ctx, Link};
    use std::mem::offset_of;
    pub const AR: i32 = offset_of!(Ctx, ar) as i32;
    pub const SR: i32 = offset_of!(Ctx, sr) as i32;
    pub const DIRECT: i32 = offset_of!(Ctx, direct) as i32;
    pub const DIRECT_CODE: i32 = offset_of!(Ctx, direct_code) as i32;
    pub const CODE_BITS: i32 = offset_of!(Ctx, code_bits) as i32;
    pub const BASE: i32 = offset_of!(Ctx, base) as i32;
    pub const AMASK: i32 = offset_of!(Ctx, amask) as i32;
    pub const PC: i32 = offset_of!(Ctx, pc) as i32;
    pub const CYCLES: i32 = offset_of!(Ctx, cycles) as i32;
    pub const INSTRUCTIONS: i32 = offset_of!(Ctx, instructions) as i32;
    pub const LOAD_USE: i32 = offset_of!(Ctx, load_use) as i32;
    pub const MULTIPLY: i32 = offset_of!(Ctx, multiply) as i32;
    pub const TAKEN: i32 = offset_of!(Ctx, taken_branch) as i32;
    pub const DIVIDE: i32 = offset_of!(Ctx, divide) as i32;
    pub const POLL: i32 = offset_of!(Ctx, poll) as i32;
    pub const READY: i32 = offset_of!(Ctx, ready) as i32;
    pub const MASK: i32 = offset_of!(Ctx, mask) as i32;
    pub const WAITS: i32 = offset_of!(Ctx, waits) as i32;
    pub const ITAGS: i32 = offset_of!(Ctx, itags) as i32;
    pub const ILAST: i32 = offset_of!(Ctx, ilast) as i32;
    pub const ILOOKUPS: i32 = offset_of!(Ctx, ilookups) as i32;
    pub const WTABLE: i32 = offset_of!(Ctx, wtable) as i32;
    pub const HBM: i32 = offset_of!(Ctx, hbm) as i32;
    pub const HBM_SIZE: i32 = offset_of!(Ctx, hbm_size) as i32;
    pub const WCOUNT: i32 = offset_of!(Ctx, wcount) as i32;
    pub const WSTALL: i32 = offset_of!(Ctx, wstall) as i32;
    pub const LINKS: i32 = offset_of!(Ctx, links) as i32;
    pub const TRAPS: i32 = offset_of!(Ctx, traps) as i32;
    pub const WINDOW_LIMIT: i32 = offset_of!(Ctx, window_limit) as i32;
    pub const STATE_BASE: i32 = offset_of!(Ctx, state_base) as i32;
    pub const LOWEST_SP: i32 = offset_of!(Ctx, lowest_sp) as i32;
    pub const STACK_LO: i32 = offset_of!(Ctx, stack_lo) as i32;
    pub const STACK_SPAN: i32 = offset_of!(Ctx, stack_span) as i32;
    pub const STORE_OK: i32 = offset_of!(Ctx, store_ok) as i32;
    pub const SPILL: i32 = offset_of!(Ctx, spill) as i32;
    pub const SPILLED: i32 = offset_of!(Ctx, spilled) as i32;
    pub const ANSWER: i32 = offset_of!(Ctx, answer) as i32;
    pub const LINK_SIZE: i64 = std::mem::size_of::<Link>() as i64;
    pub const LINK_PC: i32 = offset_of!(Link, pc) as i32;
    pub const LINK_LEND_LO: i32 = offset_of!(Link, lend_lo) as i32;
    pub const LINK_LEND_SPAN: i32 = offset_of!(Link, lend_span) as i32;
    pub const LINK_KEY: i32 = offset_of!(Link, key) as i32;
    pub const LINK_BOUND: i32 = offset_of!(Link, bound) as i32;
    pub const LINK_ENTRY: i32 = offset_of!(Link, entry) as i32;
    pub const LINK_GATES: i32 = offset_of!(Link, gates) as i32;
    pub const LINK_LEND_INSIDE: i32 = offset_of!(Link, lend_inside) as i32;
}

/// The translator's state: the builder, the variables that hold guest state in host
/// registers, and the pending results as known at this point of the block.
struct Tr<'a, 's> {
    b: FunctionBuilder<'a>,
    spec: &'s Spec<'s>,
    ptr: types::Type,
    call_conv: cranelift_codegen::isa::CallConv,
    ctx: Value,
    /// Register index ([`REGISTERS`]) → its variable, for the registers the block names.
    regs: [Option<Variable>; REGISTERS],
    /// By register index, the value loaded into it at the start ([`Tr::load_registers`]).
    loaded: [Option<Value>; REGISTERS],
    /// Register indices the block writes (stored back at every exit).
    written: u64,
    /// The frames live here ([`Spec::frames`]): the window of the instruction translated.
    frames: u16,
    cycles: Variable,
    /// Since the block was entered: the instructions it retired (bits 0..32) and the
    /// taken-branch stall cycles (bits 32..64), one addition for both at each run of
    /// instructions and one host register for both through loops (fib(32) 7 % faster). Neither
    /// half overflows: a pass begins only when it ends before the next look, at most
    /// `POLL_CYCLES_UNWATCHED` cycles on ("Exact stops"), and every instruction takes a cycle
    /// at least (`Timing::issue` ≥ 1). The exits add both to the context's counts.
    counts: Variable,
    load_use: Variable,
    multiply: Variable,
    divide: Variable,
    ready: [Variable; 2],
    /// The pending results' registers and kinds here, and where their ready cycles are.
    pending: [Slot; 2],
    /// What the translator knows of the cycle count here (docs/jit.md "Cycles").
    at: Timing,
    /// The counters some instruction of the block adds to (the exits store only these).
    touched: Vec<Variable>,
    /// By counter, the last constant added to it while nothing has read it since (its
    /// `iconst` and value), in the Cranelift block it was added in ([`Tr::add_imm`]).
    unread: Vec<(Variable, Inst, u64)>,
    /// By instruction index, the labels ([`Spec::is_label`]) and the start (unless it is a
    /// leading ENTRY): their Cranelift blocks and the pending results they are
    /// compiled for (`None` until the first jump there fixes them).
    labels: Vec<Option<Label>>,
    /// Index of the instruction being translated.
    index: usize,
    /// [`Spec::passes`], worked out once: every edge that begins a pass checks its own.
    passes: Vec<u64>,
    /// [`Spec::all_edges`], worked out once.
    edges: Vec<Vec<u32>>,
    /// [`Spec::known`], worked out once.
    known: [Option<u32>; REGISTERS],
    /// Set by a store whose helper reported changed code: leave after the instruction.
    code_changed: Option<Value>,
    /// Whether the block's registers are loaded (not yet before a leading ENTRY).
    regs_loaded: bool,
    /// The register indices the block names.
    used: u64,
    /// The shared exits made so far, by the state they store and the exit kind.
    exits: Vec<(ExitKey, cranelift_codegen::ir::Block)>,
    /// After a leading ENTRY: its helper's gate bits that trap now, of the groups the block's
    /// own instructions name ([`Tr::gate_check`]).
    entry_trips: Option<Value>,
    /// The gate bits checked against `entry_trips` on the way to the instruction translated
    /// (since the last label).
    gates_checked: u8,
    /// The labels a jump back reaches: the heads of the block's loops ([`Tr::sink_leaving`]).
    loop_heads: Vec<cranelift_codegen::ir::Block>,
    /// The stack frame's accesses checked once at the block's start ([`Frame`]).
    frame: Option<Frame>,
    /// Where the bus shows its I-cache: the line of the last fetch (its `last_line`, loaded
    /// where the block starts and set by each fetch the block makes), so a fetch at a label
    /// compares with it in a host register rather than loading it again ([`Tr::fetch`]).
    last_line: Option<Variable>,
    /// The helpers' signatures imported so far, by their parameters after the context: one
    /// each, where every call imported its own (some seventy in a large block, each written
    /// out again by [`fingerprint`]).
    signatures: Vec<(Vec<types::Type>, cranelift_codegen::ir::SigRef)>,
    /// The helper shim's signature ([`super::preserving::signature`]), once imported.
    preserving: Option<cranelift_codegen::ir::SigRef>,
}

/// The block's accesses at a1 plus an offset (its stack frame's, a1 holding its value
/// throughout the block) that fall in one local memory when the block is compiled: checked
/// once, as the block starts, to be in that memory, aligned and, for the stores, clear of
/// decoded code; each is then one host load or store (docs/jit.md "Memory").
struct Frame {
    /// The memory: [`Site::Direct`] or [`Site::DirectCode`].
    class: Site,
    /// The end of the highest access (offsets are unsigned).
    end: u32,
    /// The same for the stores checked for code, when there are any.
    stores: Option<(u32, u32)>,
    /// The checked instructions' addresses.
    pcs: Vec<u32>,
    /// Whether one of them accesses more than a byte (a1 must then be word-aligned).
    wide: bool,
    /// The host address a1 points at, once checked.
    host: Option<Value>,
}

/// The most 64-byte granules of a frame's stores checked for code at a block's start; a
/// wider span's stores check their own.
const FRAME_STORE_GRANULES: u32 = 8;

/// Where the groups of a window lie in the register file ([`Tr::group_at`]), worked out as
/// they are first named.
struct Groups {
    /// WINDOWBASE × 4, the register file's mask and the register file ([`Tr::window`]).
    window: (Value, Value, Value),
    /// The host address of the window's first register.
    first: Option<Value>,
    /// The first register index the window wraps round at, and `first` less the file's size.
    wrap: Option<(Value, Value)>,
    /// By group, the address its registers are at offsets `4 × r` from.
    at: [Option<Value>; REGISTERS / 4],
}

impl Groups {
    fn new(window: (Value, Value, Value)) -> Groups {
        Groups {
            window,
            first: None,
            wrap: None,
            at: [None; REGISTERS / 4],
        }
    }
}

/// The access size and offset of a load or store at a register plus an unsigned offset (the
/// accesses a frame check may cover).
fn frame_access(op: &Op) -> Option<(u32, u32, bool)> {
    use Opcode::*;
    let o = op.insn.operands;
    let (size, store) = match op.insn.opcode {
        L8ui => (1, false),
        L16ui | L16si => (2, false),
        L32i | L32iN | L32ai => (4, false),
        S8i => (1, true),
        S16i => (2, true),
        S32i | S32iN | S32ri | S32nb => (4, true),
        _ => return None,
    };
    // The encodings' offsets are unsigned and scaled: aligned for their size.
    (o[2] < 1024 && o[2].is_multiple_of(size)).then_some((size, o[2], store))
}

/// What a shared exit is made for: whether the registers are loaded, the pending results'
/// registers and kinds, the exit kind it returns and the frames live there.
type ExitKey = (bool, [Slot; 2], u32, u16);

/// The memory a load or store site reaches in compiled code itself (docs/jit.md "Memory");
/// every other access there calls the memory helper, which does any access exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Site {
    /// Its address is not known when the block is compiled: each memory compiled code
    /// reaches is tried in turn.
    Any,
    /// [`Spec::direct`].
    Direct,
    /// [`Spec::direct_code`].
    DirectCode,
    /// A translate window ([`Spec::windows`]).
    Window,
    /// Anything else: the helper only.
    Helper,
}

impl Site {
    fn tries(self, class: Site) -> bool {
        self == Site::Any || self == class
    }
}

/// Whether the direct memory `(base, len, _)` spans the whole 32-bit address space (the
/// bare-metal bus's): an access there needs no bounds check.
fn spans_space((base, len, _): (u32, u64, bool)) -> bool {
    base == 0 && len >= 1 << 32
}

/// An instruction of the block that control reaches other than by falling through.
#[derive(Debug, Clone, Copy)]
struct Label {
    block: cranelift_codegen::ir::Block,
    /// The pending results as the code there is compiled for: each arrival must hold these
    /// (or nothing that can still stall where one is compiled pending).
    pending: Option<[Slot; 2]>,
}

/// Where a pending result's ready cycle is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ready {
    /// In its variable.
    Var,
    /// A fixed number of cycles after a known cycle count (the value).
    At(Value, i64),
}

/// The cycle model as far as it is fixed at translation: the pending results' ready cycles and
/// the cycle count, each as an offset from a cycle count known in a value (an *epoch*), so that
/// the interlock and the loop-back's check are decided here whenever only fixed amounts were
/// added in between; and, past a variable amount, a bound on each slot's lead, which decides
/// them whenever the result is ready however large that amount was.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Timing {
    ready: [Ready; 2],
    /// The cycle count as (epoch, offset), while only fixed amounts were added since the
    /// epoch; `None` once a variable amount (a memory latency, a fetch) was.
    now: Option<(Value, i64)>,
    /// An upper bound on each slot's ready cycle minus the cycle count: exact when the slot's
    /// result was scheduled, then lowered by every fixed amount added and kept through a
    /// variable one (cycles only grow, so the lead can only be smaller than the bound).
    bound: [Option<i64>; 2],
}

impl Timing {
    const UNKNOWN: Timing = Timing {
        ready: [Ready::Var; 2],
        now: None,
        bound: [None; 2],
    };

    /// Slot `i`'s ready cycle minus the cycle count, when both are known from the same epoch.
    fn lead(&self, i: usize) -> Option<i64> {
        match (self.ready[i], self.now) {
            (Ready::At(e, at), Some((n, since))) if e == n => Some(at - since),
            _ => None,
        }
    }

    /// Whether slot `i`'s result is known here to be ready (it can stall nothing).
    fn ready_here(&self, i: usize) -> bool {
        self.lead(i).or(self.bound[i]).is_some_and(|l| l <= 0)
    }

    /// Forgets what is known of slot `i` (its result is gone or its ready cycle is in its
    /// variable only).
    fn forget(&mut self, i: usize) {
        self.ready[i] = Ready::Var;
        self.bound[i] = None;
    }
}

fn flags() -> MemFlags {
    MemFlags::trusted()
}

/// The flags of a context field that stays the same while a block runs (the memories' and
/// counters' pointers, the poll cycle; never the window base, which helpers move): no store
/// changes it, so Cranelift may use one load for the later ones it dominates. Not movable: hoisted
/// out of loops and across helper calls, such loads held host registers the loops needed and
/// were spilled (fib(32) on dc233c, whose window handlers call helpers, ran 8 % slower).
fn fixed() -> MemFlags {
    MemFlags::trusted().with_readonly()
}

impl<'a, 's> Tr<'a, 's> {
    fn new(
        mut b: FunctionBuilder<'a>,
        ptr: types::Type,
        call_conv: cranelift_codegen::isa::CallConv,
        spec: &'s Spec<'s>,
    ) -> Self {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let ctx = b.block_params(entry)[0];
        let i64t = types::I64;
        let v = |b: &mut FunctionBuilder<'a>, off: i32| {
            let var = b.declare_var(i64t);
            let x = b.ins().load(i64t, flags(), ctx, off);
            b.def_var(var, x);
            var
        };
        let cycles = v(&mut b, off::CYCLES);
        // The instructions retired and the taken-branch cycles since the block was entered,
        // in one host register (`Tr::counts`).
        let counts = b.declare_var(i64t);
        let zero = b.ins().iconst(i64t, 0);
        b.def_var(counts, zero);
        let load_use = v(&mut b, off::LOAD_USE);
        let multiply = v(&mut b, off::MULTIPLY);
        let divide = v(&mut b, off::DIVIDE);
        let ready = [v(&mut b, off::READY), v(&mut b, off::READY + 8)];
        let last_line = spec.icache.map(|_| {
            let var = b.declare_var(types::I32);
            let at = b.ins().load(ptr, fixed(), ctx, off::ILAST);
            let line = b.ins().load(types::I32, flags(), at, 0);
            b.def_var(var, line);
            var
        });
        // The registers the block names: loaded once, stored back at every exit.
        let mut used = 0u64;
        let mut written = 0u64;
        for i in 0..spec.ops.len() {
            let (u, w) = spec.regs_of(i);
            used |= u | w;
            written |= w;
        }
        let known = spec.known();
        let edges = spec.all_edges();
        let is_label = spec.labels(&edges);
        let passes = spec.passes(&known, &edges, &is_label);
        // The start is entered with the key's pending results; a label with those of the
        // first jump there.
        let mut labels: Vec<Option<Label>> = is_label
            .into_iter()
            .map(|label| {
                label.then(|| Label {
                    block: b.create_block(),
                    pending: None,
                })
            })
            .collect();
        labels[spec.entry()] = spec.lead().is_none().then(|| Label {
            block: b.create_block(),
            pending: Some(spec.key.pending),
        });
        Tr {
            b,
            spec,
            ptr,
            call_conv,
            ctx,
            written,
            cycles,
            counts,
            load_use,
            multiply,
            divide,
            ready,
            pending: spec.key.pending,
            at: Timing::UNKNOWN,
            touched: Vec::new(),
            unread: Vec::new(),
            labels,
            index: 0,
            passes,
            edges,
            known,
            code_changed: None,
            regs_loaded: false,
            used,
            frames: 1,
            regs: [None; REGISTERS],
            loaded: [None; REGISTERS],
            exits: Vec::new(),
            loop_heads: Vec::new(),
            entry_trips: None,
            gates_checked: 0,
            frame: None,
            last_line,
            signatures: Vec::new(),
            preserving: None,
        }
    }

    /// The block's frame accesses ([`Frame`]): those at a1 (which holds its value throughout
    /// the block) that fall, with a1's value when the block is compiled, in the local memory
    /// most of them do.
    fn plan_frame(&mut self) {
        if self.known[1].is_none() {
            return;
        }
        let lead = self.spec.lead();
        let sites: Vec<(u32, u32, u32, bool, Site)> = (0..self.spec.ops.len())
            .filter(|&i| Some(i) != lead && self.spec.frames[i] == 1)
            .map(|i| self.spec.ops[i])
            .filter(|(_, op)| op.insn.operands[1] == 1)
            .filter_map(|(pc, op)| {
                let (size, at, store) = frame_access(&op)?;
                Some((
                    pc,
                    size,
                    at,
                    store,
                    self.spec.site(&self.known, 1, at, size),
                ))
            })
            .collect();
        let count = |c: Site| sites.iter().filter(|x| x.4 == c).count();
        let class = if count(Site::Direct) >= count(Site::DirectCode) {
            Site::Direct
        } else {
            Site::DirectCode
        };
        let region = match class {
            Site::Direct => self.spec.direct,
            _ => self.spec.direct_code,
        };
        let Some((_, _, writable)) = region else {
            return;
        };
        let mut frame = Frame {
            class,
            end: 0,
            stores: None,
            pcs: Vec::new(),
            wide: false,
            host: None,
        };
        let stores = sites.iter().filter(|x| x.3 && x.4 == class);
        let (lo, hi) = stores.fold((u32::MAX, 0), |(lo, hi), x| {
            (lo.min(x.2), hi.max(x.2 + x.1))
        });
        // Stores into memory that may hold code: their granules are checked at the start,
        // when they are few.
        let check_stores = writable
            && (class == Site::Direct
                || (hi > lo && (hi - lo).div_ceil(64) < FRAME_STORE_GRANULES));
        for &(pc, size, at, store, c) in &sites {
            if c != class || (store && !check_stores) {
                continue;
            }
            frame.end = frame.end.max(at + size);
            frame.wide |= size > 1;
            frame.pcs.push(pc);
        }
        if frame.pcs.is_empty() || u64::from(frame.end) > region.map_or(0, |r| r.1) {
            return;
        }
        if class == Site::DirectCode && check_stores && hi > lo {
            frame.stores = Some((lo, hi));
        }
        self.frame = Some(frame);
    }

    /// The frame check ([`Frame`]), where the block's registers have just been loaded: when
    /// a1's frame is not all in its memory, aligned and (for the stores) clear of decoded
    /// code, the block leaves for the interpreter before the instruction at `pc`, the first
    /// after the loads.
    fn check_frame(&mut self, pc: u32) {
        let Some(frame) = self.frame.as_ref() else {
            return;
        };
        let (class, hi, stores, wide) = (frame.class, frame.end, frame.stores, frame.wide);
        let (region, at) = match class {
            Site::Direct => (self.spec.direct, off::DIRECT),
            _ => (self.spec.direct_code, off::DIRECT_CODE),
        };
        let (base, len, _) = region.expect("a frame's memory");
        let sp = self.a(1);
        let d = self.b.ins().iadd_imm_s(sp, -i64::from(base as i32));
        let d64 = self.b.ins().uextend(types::I64, d);
        let mut ok = None;
        if !spans_space((base, len, false)) {
            let within = self.b.ins().icmp_imm_s(
                IntCC::UnsignedLessThanOrEqual,
                d64,
                len as i64 - i64::from(hi),
            );
            ok = Some(within);
        }
        if wide {
            let aligned = self.aligned(sp, 4);
            ok = self.both(ok, aligned);
        }
        if let Some((slo, shi)) = stores {
            // Each granule from the lowest store's to the highest's, one word of the bitmap
            // each (the first and last granule's addresses and every 64 bytes between).
            let mut at = slo;
            let mut any = None;
            loop {
                let a = self.b.ins().iadd_imm_s(sp, i64::from(at));
                let w = self.code_bits_at(a);
                any = Some(match any {
                    Some(x) => self.b.ins().bor(x, w),
                    None => w,
                });
                if at + 64 >= shi {
                    if at != shi - 1 {
                        at = shi - 1;
                        continue;
                    }
                    break;
                }
                at += 64;
            }
            let any = any.expect("a granule");
            let code = self.b.ins().band_imm_u(any, 1);
            let clear = self.b.ins().icmp_imm_u(IntCC::Equal, code, 0);
            ok = self.both(ok, Some(clear));
        }
        if let Some(ok) = ok {
            let bad = self.b.ins().icmp_imm_u(IntCC::Equal, ok, 0);
            let here = self.code(pc);
            self.exit_if(bad, here, EXIT_INTERPRET);
        }
        let mem = self.ctx_load(self.ptr, at);
        let host = self.b.ins().iadd(mem, d64);
        if let Some(f) = self.frame.as_mut() {
            f.host = Some(host);
        }
    }

    /// The decode cache's bitmap word of the 64-byte granule of `addr`
    /// (`DecodeCache::code_bits`), shifted so that bit 0 is that granule's: set when it holds
    /// decoded code.
    fn code_bits_at(&mut self, addr: Value) -> Value {
        self.granule_bits(addr, 6, off::CODE_BITS)
    }

    /// The word of the bitmap at `map` in the context (a bit per granule of 2^`shift` bytes)
    /// that holds the bit of `addr`'s granule, shifted so that bit 0 is that bit.
    fn granule_bits(&mut self, addr: Value, shift: u32, map: i32) -> Value {
        let g = self.b.ins().ushr_imm_u(addr, i64::from(shift));
        let word = self.b.ins().ushr_imm_u(g, 6);
        let word = self.b.ins().uextend(types::I64, word);
        let word = self.b.ins().ishl_imm_u(word, 3);
        let bits = self.ctx_load(self.ptr, map);
        let at = self.b.ins().iadd(bits, word);
        let bits = self.b.ins().load(types::I64, flags(), at, 0);
        let bit = self.b.ins().band_imm_u(g, 63);
        let bit = self.b.ins().uextend(types::I64, bit);
        self.b.ins().ushr(bits, bit)
    }

    /// The host address of the checked frame access at `pc`, a1 plus `offset`, if it is one.
    fn frame_host(&mut self, pc: u32, offset: u32) -> Option<Value> {
        let f = self.frame.as_ref()?;
        let host = f.host?;
        f.pcs
            .contains(&pc)
            .then(|| self.b.ins().iadd_imm_s(host, i64::from(offset)))
    }

    /// The context's window base, physical-register mask and register file, loaded where used:
    /// loaded again at each use (not [`fixed`]), as kept from the block's entry to its exits
    /// they would hold host registers through every loop.
    fn window(&mut self) -> (Value, Value, Value) {
        let ctx = self.ctx;
        let base = self.b.ins().load(types::I32, flags(), ctx, off::BASE);
        let amask = self.b.ins().load(types::I32, flags(), ctx, off::AMASK);
        let ar = self.b.ins().load(self.ptr, flags(), ctx, off::AR);
        (base, amask, ar)
    }

    /// The host address of logical register `r`'s physical register in `window` (loaded by
    /// [`Tr::window`]: the one the context's WINDOWBASE selects).
    fn reg_address(&mut self, (base, amask, ar): (Value, Value, Value), r: u32) -> Value {
        let i = self.b.ins().iadd_imm_s(base, i64::from(r));
        let i = self.b.ins().band(i, amask);
        let i = self.b.ins().uextend(self.ptr, i);
        let i = self.b.ins().ishl_imm_u(i, 2);
        self.b.ins().iadd(ar, i)
    }

    /// Loads the registers the block names, in the window WINDOWBASE selects now, each group
    /// of four at fixed offsets from where the group lies ([`Tr::group_at`]).
    fn load_registers(&mut self) {
        let names: Vec<u32> = (0..REGISTERS as u32)
            .filter(|r| self.used >> r & 1 != 0)
            .collect();
        if names.is_empty() {
            self.regs_loaded = true;
            return;
        }
        let mut groups = Groups::new(self.window());
        for &r in &names {
            let at = self.group_at(&mut groups, r);
            let v = self.b.ins().load(types::I32, flags(), at, 4 * r as i32);
            let var = self.b.declare_var(types::I32);
            self.b.def_var(var, v);
            self.regs[r as usize] = Some(var);
            self.loaded[r as usize] = Some(v);
        }
        self.regs_loaded = true;
    }

    /// The address register index `r` is at an offset of `4 × r` from: the window's first
    /// register, or for a group the window wraps round to the start of the register file,
    /// that less the file's size (a block's registers lie within the file's size of its window,
    /// as a followed call's window and the three groups above it must fit in the file: they
    /// wrap once at most). Worked out once for each group of four (the window and the file are
    /// whole groups): a compare and a select, where masking each register's index took five
    /// instructions and a path of its own (docs/jit.md "Registers").
    fn group_at(&mut self, groups: &mut Groups, r: u32) -> Value {
        let g = (r / 4) as usize;
        if let Some(at) = groups.at[g] {
            return at;
        }
        let (base, amask, ar) = groups.window;
        let first = match groups.first {
            Some(f) => f,
            None => {
                let f = self.b.ins().uextend(self.ptr, base);
                let f = self.b.ins().ishl_imm_u(f, 2);
                let f = self.b.ins().iadd(ar, f);
                groups.first = Some(f);
                f
            }
        };
        // Group 0 never wraps (the window starts inside the file).
        let at = if g == 0 {
            first
        } else {
            let (split, wrapped) = match groups.wrap {
                Some(w) => w,
                None => {
                    // Indices from `split` on lie at the start of the file.
                    let size = self.b.ins().iadd_imm_s(amask, 1);
                    let split = self.b.ins().isub(size, base);
                    let size = self.b.ins().uextend(self.ptr, size);
                    let size = self.b.ins().ishl_imm_u(size, 2);
                    let wrapped = self.b.ins().isub(first, size);
                    groups.wrap = Some((split, wrapped));
                    (split, wrapped)
                }
            };
            let wraps = self.b.ins().icmp_imm_u(
                IntCC::UnsignedLessThanOrEqual,
                split,
                i64::from(4 * g as u32),
            );
            self.b.ins().select(wraps, wrapped, first)
        };
        groups.at[g] = Some(at);
        at
    }

    /// Stores the registers the block writes back into the core (WINDOWBASE has not moved
    /// since they were loaded).
    fn store_registers(&mut self) {
        self.write_back(false);
    }

    /// The registers the block writes back into the core: into the register file, or, with
    /// `spill` (an exit to the interpreter outside followed calls), each into its word of the
    /// context's spill area and their set into `spilled`, which the dispatcher puts into the
    /// register file once the block has returned ([`super::Ctx::put_spilled`]; docs/jit.md
    /// "Registers").
    fn write_back(&mut self, spill: bool) {
        if !self.regs_loaded || self.written == 0 {
            return;
        }
        let mut stores = Vec::new();
        for r in 0..REGISTERS as u32 {
            if self.written >> r & 1 != 0 {
                let v = self
                    .b
                    .use_var(self.regs[r as usize].expect("written register"));
                // Still the value loaded (no way here writes it): the core's already.
                if Some(v) != self.loaded[r as usize] {
                    stores.push((r, v));
                }
            }
        }
        if stores.is_empty() {
            return;
        }
        if spill {
            self.spill(&stores);
            return;
        }
        // The window once for all of them (the stores cannot move it).
        let mut groups = Groups::new(self.window());
        for &(r, v) in &stores {
            let at = self.group_at(&mut groups, r);
            self.b.ins().store(flags(), v, at, 4 * r as i32);
        }
    }

    /// Stores `stores` (register index, value) each into its word of the context's spill
    /// area, and their set into `spilled`.
    fn spill(&mut self, stores: &[(u32, Value)]) {
        let ctx = self.ctx;
        let mut spilled = 0u64;
        for &(r, v) in stores {
            self.b
                .ins()
                .store(flags(), v, ctx, off::SPILL + 4 * r as i32);
            spilled |= 1 << r;
        }
        let bits = self.b.ins().iconst(types::I64, spilled as i64);
        self.b.ins().store(flags(), bits, ctx, off::SPILLED);
    }

    /// The pointer or word at `at` in the context, one that stays the same while the block
    /// runs ([`fixed`]): Cranelift may load it once for several uses.
    fn ctx_load(&mut self, ty: types::Type, at: i32) -> Value {
        self.b.ins().load(ty, fixed(), self.ctx, at)
    }

    // ------------------------------------------------------------------------- plumbing

    /// The register index of logical register 0 in the window of the instruction translated.
    fn rot(&self) -> u32 {
        4 * depth(self.frames)
    }

    /// Logical register `r` of the window of the instruction translated.
    fn a(&mut self, r: u32) -> Value {
        self.a_at(self.rot() + r)
    }

    fn set(&mut self, r: u32, v: Value) {
        self.set_at(self.rot() + r, v);
    }

    /// Register index `i` ([`REGISTERS`]).
    fn a_at(&mut self, i: u32) -> Value {
        let var = self.regs[i as usize].expect("register named by the block");
        self.b.use_var(var)
    }

    fn set_at(&mut self, i: u32, v: Value) {
        let var = self.regs[i as usize].expect("register named by the block");
        self.b.def_var(var, v);
    }

    /// Code address `pc`; for code shared by cores ([`Spec::relative`]) as the start's address
    /// plus its distance from it. The start's is the context's PC, which is the block's start
    /// whenever a block is entered (`Core::call_block`, and exits store the PC before
    /// linking), so compiled code names no address of the copy of the code it was compiled
    /// from, and the cores of a cluster, each running its own copy of a library, make the
    /// same IR for the same code (docs/jit.md "Code shared by cores"). Not used after an exit
    /// stores the PC.
    fn code(&mut self, pc: u32) -> Value {
        if !self.spec.relative {
            return self.imm(pc);
        }
        let start = self.ctx_load(types::I32, off::PC);
        let d = pc.wrapping_sub(self.spec.start) as i32;
        if d == 0 {
            return start;
        }
        self.b.ins().iadd_imm_s(start, i64::from(d))
    }

    /// The return address a windowed call by `inc` groups leaves for `ret` (its increment
    /// in the top two bits).
    fn return_address(&mut self, inc: u32, ret: u32) -> Value {
        let r = self.code(ret);
        let r = self.b.ins().band_imm_u(r, 0x3fff_ffff);
        self.b.ins().bor_imm_u(r, i64::from(inc << 30))
    }

    fn imm(&mut self, v: u32) -> Value {
        self.b.ins().iconst(types::I32, i64::from(v))
    }

    /// Adds `v` to counter `var`; for the cycle count, `v` is never negative.
    fn add_to(&mut self, var: Variable, v: Value) {
        if var == self.cycles {
            for i in 0..2 {
                if let Some(l) = self.at.lead(i) {
                    self.at.bound[i] = Some(l);
                }
            }
            self.at.now = None;
        }
        self.touch(var);
        let x = self.counter(var);
        let y = self.b.ins().iadd(x, v);
        self.b.def_var(var, y);
    }

    /// Counter `var`'s value here, for a use (so a later constant added is added anew).
    fn counter(&mut self, var: Variable) -> Value {
        self.unread.retain(|&(v, ..)| v != var);
        self.b.use_var(var)
    }

    fn add_imm(&mut self, var: Variable, v: u64) {
        if var == self.cycles {
            if let Some((_, since)) = &mut self.at.now {
                *since += v as i64;
            }
            for b in self.at.bound.iter_mut().flatten() {
                *b -= v as i64;
            }
        }
        if v == 0 {
            return;
        }
        self.touch(var);
        // A run of instructions adds one constant, not one each: while nothing has read the
        // counter since the last constant added to it in this Cranelift block, that constant
        // grows (less IR to compile; Cranelift would fold the additions itself, at a cost).
        let here = self.b.current_block();
        let layout = &self.b.func.layout;
        let last = self
            .unread
            .iter_mut()
            .find(|(v, k, _)| *v == var && layout.inst_block(*k) == here);
        if let Some((_, k, sum)) = last {
            *sum = sum.wrapping_add(v);
            let (k, sum) = (*k, *sum);
            self.b.func.replace(k).iconst(types::I64, sum as i64);
            return;
        }
        let x = self.counter(var);
        let k = self.b.ins().iconst(types::I64, v as i64);
        let y = self.b.ins().iadd(x, k);
        self.b.def_var(var, y);
        let k = self.b.func.dfg.value_def(k).unwrap_inst();
        self.unread.push((var, k, v));
    }

    /// Notes that the block adds to counter `var`.
    fn touch(&mut self, var: Variable) {
        if !self.touched.contains(&var) {
            self.touched.push(var);
        }
    }

    fn load_sr(&mut self, n: u8) -> Value {
        let sr = self.ctx_load(self.ptr, off::SR);
        self.b.ins().load(types::I32, flags(), sr, i32::from(n) * 4)
    }

    fn store_sr(&mut self, n: u8, v: Value) {
        let sr = self.ctx_load(self.ptr, off::SR);
        self.b.ins().store(flags(), v, sr, i32::from(n) * 4);
    }

    /// Leaves the block here, `pc` to go on at: jumps to the block's shared exit for the state
    /// here (whether the registers are loaded, the pending results' registers and kinds), which
    /// puts the guest state back into the context ([`Tr::emit_exits`]).
    fn exit(&mut self, pc: Value, code: u32) {
        for i in 0..2 {
            if self.pending[i].is_some() {
                self.ready_to_var(i);
            }
        }
        let key = (self.regs_loaded, self.pending, code, self.frames);
        let out = match self.exits.iter().find(|(k, _)| *k == key) {
            Some(&(_, out)) => out,
            None => {
                let out = self.b.create_block();
                self.b.append_block_param(out, types::I32);
                self.exits.push((key, out));
                out
            }
        };
        self.b.ins().jump(out, &[pc.into()]);
    }

    /// The shared exits: each stores the registers the block writes, makes the frames of the
    /// followed calls it leaves inside live (docs/jit.md "Calls"), and stores the counters,
    /// the pending results and the PC (its parameter) into the context; then one that leaves for
    /// the PC goes on to the block there when that one fits ([`Tr::link`]), and any other
    /// returns its exit kind. Emitted after the body, once every jump to them is made.
    fn emit_exits(&mut self) {
        // Every jump inside the block is made: sealed, a register no way to an exit writes
        // reads there as the value loaded (`store_registers` leaves it).
        self.b.seal_all_blocks();
        let exits = std::mem::take(&mut self.exits);
        for ((loaded, pending, code, frames), out) in exits {
            self.b.switch_to_block(out);
            self.regs_loaded = loaded;
            self.pending = pending;
            let pc = self.b.block_params(out)[0];
            let ctx = self.ctx;
            // The PC first: a store, after which Cranelift cannot stand the entry's loads of
            // the window in for `store_registers`' (which would keep them in host registers
            // through every loop of the block).
            self.b.ins().store(flags(), pc, ctx, off::PC);
            self.write_back(code == EXIT_INTERPRET && frames == 1);
            if frames != 1 {
                // Inside followed calls: their frames made live and the window moved to the
                // deepest, as the interpreter's ENTRYs would have left them.
                let f = self.b.ins().iconst(types::I32, i64::from(frames));
                self.call(self.spec.helpers.frames, &[f], &[types::I32]);
            }
            if self.touched.contains(&self.counts) {
                let packed = self.counter(self.counts);
                let insns = self.b.ins().band_imm_u(packed, 0xffff_ffff);
                let taken = self.b.ins().ushr_imm_u(packed, 32);
                for (v, o) in [(insns, off::INSTRUCTIONS), (taken, off::TAKEN)] {
                    let total = self.b.ins().load(types::I64, flags(), ctx, o);
                    let total = self.b.ins().iadd(total, v);
                    self.b.ins().store(flags(), total, ctx, o);
                }
            }
            for (var, o) in [
                (self.cycles, off::CYCLES),
                (self.load_use, off::LOAD_USE),
                (self.multiply, off::MULTIPLY),
                (self.divide, off::DIVIDE),
            ] {
                // A counter no instruction adds to is the context's already (and its load at
                // the start is dropped as unused).
                if self.touched.contains(&var) {
                    let v = self.counter(var);
                    self.b.ins().store(flags(), v, ctx, o);
                }
            }
            for (i, slot) in self.pending.iter().enumerate() {
                // A slot empty here and where the block was entered needs no store: the
                // context's is empty too, or holds a result that was ready before the block
                // began (the entry key has the slots that can still stall), which the
                // dispatcher and the link check read as empty as well.
                if slot.is_none() && self.spec.key.pending[i].is_none() {
                    continue;
                }
                // A slot's ready cycle means nothing without its registers.
                let (mask, waits) = match slot {
                    Some((m, w)) => {
                        let r = self.b.use_var(self.ready[i]);
                        self.b
                            .ins()
                            .store(flags(), r, ctx, off::READY + 8 * i as i32);
                        (u32::from(*m), u32::from(*w == Waits::Multiply))
                    }
                    None => (0, 0),
                };
                let m = self.b.ins().iconst(types::I32, i64::from(mask));
                let w = self.b.ins().iconst(types::I32, i64::from(waits));
                self.b
                    .ins()
                    .store(flags(), m, ctx, off::MASK + 4 * i as i32);
                self.b
                    .ins()
                    .store(flags(), w, ctx, off::WAITS + 4 * i as i32);
            }
            if code == EXIT_CONTINUE {
                self.link(pc);
            }
            let code = self.b.ins().iconst(types::I32, i64::from(code));
            self.b.ins().return_(&[code]);
        }
    }

    /// Marks cold the code from which no loop of the block can be reached — the ways out, and
    /// what runs once after the last loop — so that Cranelift lays it out after the rest and
    /// each loop runs as one straight line with a single jump back (with the way out first,
    /// a loop took three jumps a pass). The entry stays first; a block without loops is laid
    /// out as written.
    fn sink_leaving(&mut self) {
        if self.loop_heads.is_empty() {
            return;
        }
        let func = &*self.b.func;
        let cfg = ControlFlowGraph::with_function(func);
        let mut reaches: HashSet<_> = self.loop_heads.iter().copied().collect();
        let mut work = self.loop_heads.clone();
        while let Some(block) = work.pop() {
            for pred in cfg.pred_iter(block) {
                if reaches.insert(pred.block) {
                    work.push(pred.block);
                }
            }
        }
        let entry = func.layout.entry_block();
        let leaving: Vec<_> = func
            .layout
            .blocks()
            .filter(|b| !reaches.contains(b) && Some(*b) != entry)
            .collect();
        for block in leaving {
            self.b.set_cold_block(block);
        }
    }

    /// At an exit for `pc` whose state is in the context: tail-calls the block in `pc`'s slot
    /// of the table when it fits the state as the dispatcher's check asks — its pending key
    /// equals the results here that can still stall, LEND fits it, none of its gates traps,
    /// and its bound ends before the next look (docs/jit.md "Linking"). Else falls on (to
    /// return to the dispatcher, which checks exactly).
    fn link(&mut self, pc: Value) {
        let ptr = self.ptr;
        let links = self.ctx_load(ptr, off::LINKS);
        let high = self.b.ins().ushr_imm_u(pc, 12);
        let slot = self.b.ins().bxor(pc, high);
        let slot = self.b.ins().band_imm_u(slot, (SLOTS - 1) as i64);
        let slot = self.b.ins().uextend(ptr, slot);
        let at = self.b.ins().imul_imm_u(slot, off::LINK_SIZE);
        let link = self.b.ins().iadd(links, at);
        let tag = self.b.ins().load(types::I32, flags(), link, off::LINK_PC);
        let hit = self.b.ins().icmp(IntCC::Equal, tag, pc);
        let check = self.b.create_block();
        let miss = self.b.create_block();
        self.b.ins().brif(hit, check, &[], miss, &[]);
        self.b.switch_to_block(check);
        // The pending key here: each slot's registers while its result can still stall.
        let now = self.counter(self.cycles);
        let mut live = self.b.ins().iconst(types::I64, 0);
        for i in 0..2 {
            if let Some(p) = self.pending[i] {
                let mut one = [None, None];
                one[i] = Some(p);
                let word = self
                    .b
                    .ins()
                    .iconst(types::I64, super::link_key(&one) as i64);
                let zero = self.b.ins().iconst(types::I64, 0);
                let ready = self.b.use_var(self.ready[i]);
                let stalls = self.b.ins().icmp(IntCC::UnsignedGreaterThan, ready, now);
                let part = self.b.ins().select(stalls, word, zero);
                live = self.b.ins().bor(live, part);
            }
        }
        let key = self.b.ins().load(types::I64, flags(), link, off::LINK_KEY);
        let mut ok = self.b.ins().icmp(IntCC::Equal, key, live);
        let lend = self.load_sr(sr::LEND);
        let lo = self
            .b
            .ins()
            .load(types::I32, flags(), link, off::LINK_LEND_LO);
        let span = self
            .b
            .ins()
            .load(types::I32, flags(), link, off::LINK_LEND_SPAN);
        let d = self.b.ins().isub(lend, lo);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, d, span);
        let want = self
            .b
            .ins()
            .load(types::I8, flags(), link, off::LINK_LEND_INSIDE);
        let fits = self.b.ins().icmp(IntCC::Equal, inside, want);
        ok = self.b.ins().band(ok, fits);
        let traps = self.ctx_load(ptr, off::TRAPS);
        let traps = self.b.ins().load(types::I8, flags(), traps, 0);
        let gates = self.b.ins().load(types::I8, flags(), link, off::LINK_GATES);
        let trips = self.b.ins().band(traps, gates);
        let clear = self.b.ins().icmp_imm_u(IntCC::Equal, trips, 0);
        ok = self.b.ins().band(ok, clear);
        let bound = self
            .b
            .ins()
            .load(types::I64, flags(), link, off::LINK_BOUND);
        let reach = self.b.ins().iadd(now, bound);
        let poll = self.ctx_load(types::I64, off::POLL);
        let before = self.b.ins().icmp(IntCC::UnsignedLessThan, reach, poll);
        ok = self.b.ins().band(ok, before);
        let go = self.b.create_block();
        self.b.ins().brif(ok, go, &[], miss, &[]);
        self.b.switch_to_block(go);
        let entry = self.b.ins().load(ptr, flags(), link, off::LINK_ENTRY);
        let sig = self.b.import_signature(block_signature(ptr));
        self.b.ins().return_call_indirect(sig, entry, &[self.ctx]);
        self.b.switch_to_block(miss);
    }

    /// Leaves the block when `cond` holds (a cold side exit), else goes on.
    fn exit_if(&mut self, cond: Value, pc: Value, code: u32) {
        let out = self.b.create_block();
        let on = self.b.create_block();
        self.b.set_cold_block(out);
        self.b.ins().brif(cond, out, &[], on, &[]);
        self.b.switch_to_block(out);
        self.exit(pc, code);
        self.b.switch_to_block(on);
    }

    /// The fetch of a new line at `pc`: where the bus shows its I-cache, a hit in the line the
    /// last fetch was in or in any way of its set is looked up here (as
    /// [`crate::bus::FetchView`] says: a hit in a later way moves it to the front); a miss,
    /// and every fetch on a bus that shows no I-cache, goes to the fetch helper, whose cycles
    /// are charged. Where the translator knows the last line fetched is another
    /// (`other_last`: straight code crossing into a new line), it is not compared; else it
    /// is compared with the block's [`Tr::last_line`], in a host register.
    fn fetch(&mut self, pc: u32, other_last: bool) {
        let Some(view) = self.spec.icache else {
            self.fetch_helper(pc);
            return;
        };
        if pc.wrapping_sub(view.timed.0) >= view.timed.1 {
            return;
        }
        let line = pc >> view.line_shift;
        if line == u32::MAX || view.ways == 0 {
            // The mark of an empty way: never a hit found here.
            self.fetch_helper(pc);
            if let Some(last) = self.last_line {
                let ilast = self.ctx_load(self.ptr, off::ILAST);
                let line = self.b.ins().load(types::I32, flags(), ilast, 0);
                self.b.def_var(last, line);
            }
            return;
        }
        let set = line % view.sets.max(1);
        let done = self.b.create_block();
        let slow = self.b.create_block();
        let probe = self.b.create_block();
        let ctx = self.ctx;
        let ilast = self.b.ins().load(self.ptr, fixed(), ctx, off::ILAST);
        let here = self.code(pc);
        let l = self.b.ins().ushr_imm_u(here, i64::from(view.line_shift));
        let last = self.last_line.expect("a bus that shows its I-cache");
        let was = (!other_last).then(|| self.b.use_var(last));
        // Every way on to `done` leaves `l` the last line (the helper's fetch sets it too).
        self.b.def_var(last, l);
        match was {
            Some(was) => {
                let same = self.b.ins().icmp(IntCC::Equal, was, l);
                self.b.ins().brif(same, done, &[], probe, &[]);
            }
            None => {
                self.b.ins().jump(probe, &[]);
            }
        }
        self.b.switch_to_block(probe);
        let tags = self.b.ins().load(self.ptr, fixed(), ctx, off::ITAGS);
        let first = i64::from(set) * i64::from(view.ways) * 4;
        let Ok(first) = i32::try_from(first) else {
            self.b.ins().jump(slow, &[]);
            self.fetch_slow(slow, done, pc);
            return;
        };
        // The set's tags, most recently used first. A hit in the first way, or in the second
        // (which swaps the two, as the helper's rotation does), is looked up here; a later way
        // is the helper's, as is a miss.
        let counted = self.b.create_block();
        let probed = view.ways.min(PROBED_WAYS);
        let mut seen: Vec<Value> = Vec::new();
        for way in 0..probed {
            let tag = self
                .b
                .ins()
                .load(types::I32, flags(), tags, first + 4 * way as i32);
            let hit = self.b.create_block();
            let next = if way + 1 == probed {
                slow
            } else {
                self.b.create_block()
            };
            let is = self.b.ins().icmp(IntCC::Equal, tag, l);
            self.b.ins().brif(is, hit, &[], next, &[]);
            self.b.switch_to_block(hit);
            for (w, &t) in seen.iter().enumerate() {
                self.b
                    .ins()
                    .store(flags(), t, tags, first + 4 * (w as i32 + 1));
            }
            if way > 0 {
                self.b.ins().store(flags(), l, tags, first);
            }
            self.b.ins().jump(counted, &[]);
            seen.push(tag);
            if next != slow {
                self.b.switch_to_block(next);
            }
        }
        self.b.switch_to_block(counted);
        self.b.ins().store(flags(), l, ilast, 0);
        self.bump_at(ctx, off::ILOOKUPS, None);
        self.b.ins().jump(done, &[]);
        self.fetch_slow(slow, done, pc);
    }

    /// Whether a fetch at `pc` is timed by the I-cache the bus shows.
    fn timed(&self, pc: u32) -> bool {
        self.spec
            .icache
            .is_some_and(|v| pc.wrapping_sub(v.timed.0) < v.timed.1)
    }

    /// The fetch helper's call in `slow` (a miss, cold), going on to `done`, switched to.
    fn fetch_slow(
        &mut self,
        slow: cranelift_codegen::ir::Block,
        done: cranelift_codegen::ir::Block,
        pc: u32,
    ) {
        self.b.set_cold_block(slow);
        self.b.switch_to_block(slow);
        self.fetch_helper(pc);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// The fetch helper's answer for `pc`, charged to the cycles.
    fn fetch_helper(&mut self, pc: u32) {
        let p = self.code(pc);
        let c = self.call(self.spec.helpers.fetch, &[p], &[types::I32]);
        self.add_to(self.cycles, c);
    }

    /// Calls helper `addr` with `args` (the context first; each an `I32`, as `params` says):
    /// its u64 answer. Through [`super::preserving::shim`] where the host has it, which keeps
    /// every register (docs/jit.md "Registers"), else directly.
    fn call(&mut self, addr: usize, args: &[Value], params: &[types::Type]) -> Value {
        match super::preserving::shim() {
            Some(shim) => self.call_preserving(shim, addr, args, params),
            None => self.call_direct(addr, args, params),
        }
    }

    /// [`Tr::call`] through `shim`, declared to Cranelift as clobbering no register: the
    /// context, the helper's arguments padded to three, the helper's address; the answer
    /// loaded from the context.
    fn call_preserving(
        &mut self,
        shim: usize,
        addr: usize,
        args: &[Value],
        params: &[types::Type],
    ) -> Value {
        debug_assert!(
            args.len() <= super::preserving::ARGS && params.iter().all(|&p| p == types::I32),
            "the shim passes at most three 32-bit words"
        );
        let sig = match self.preserving {
            Some(sig) => sig,
            None => {
                let sig = self
                    .b
                    .import_signature(super::preserving::signature(self.ptr));
                self.preserving = Some(sig);
                sig
            }
        };
        let ctx = self.ctx;
        let mut all = vec![ctx];
        all.extend_from_slice(args);
        while all.len() <= super::preserving::ARGS {
            all.push(self.imm(0));
        }
        all.push(self.b.ins().iconst(self.ptr, addr as i64));
        let shim = self.b.ins().iconst(self.ptr, shim as i64);
        self.b.ins().call_indirect(sig, shim, &all);
        self.b.ins().load(types::I64, flags(), ctx, off::ANSWER)
    }

    /// [`Tr::call`] on the host's C convention.
    fn call_direct(&mut self, addr: usize, args: &[Value], params: &[types::Type]) -> Value {
        let known = self.signatures.iter().find(|(p, _)| p == params);
        let sig = match known {
            Some(&(_, sig)) => sig,
            None => {
                let mut sig = Signature::new(self.call_conv);
                sig.params.push(AbiParam::new(self.ptr));
                for &p in params {
                    sig.params.push(AbiParam::new(p));
                }
                sig.returns.push(AbiParam::new(types::I64));
                let sig = self.b.import_signature(sig);
                self.signatures.push((params.to_vec(), sig));
                sig
            }
        };
        let f = self.b.ins().iconst(self.ptr, addr as i64);
        let mut all = vec![self.ctx];
        all.extend_from_slice(args);
        let call = self.b.ins().call_indirect(sig, f, &all);
        self.b.inst_results(call)[0]
    }

    // -------------------------------------------------------------------------- pipeline

    /// The interlock: waits for the pending results `mask` names, as the interpreter does
    /// (slot order, the longest wait wins, its kind is charged).
    fn interlock(&mut self, mask: u16) {
        let waiting: Vec<usize> = (0..2)
            .filter(|&i| self.pending[i].is_some_and(|(m, _)| m & mask != 0))
            .collect();
        // Nothing to wait for (no code) unless a pending slot holds a register it reads.
        if waiting.is_empty() {
            return;
        }
        // Decided here when every ready cycle is known against the cycle count (a result known
        // to be ready waits for nothing).
        let leads: Option<Vec<i64>> = waiting
            .iter()
            .map(|&i| {
                self.at
                    .lead(i)
                    .or_else(|| self.at.ready_here(i).then_some(0))
            })
            .collect();
        if let Some(leads) = leads {
            let (mut stall, mut kind) = (0i64, Waits::Load);
            for (&i, &lead) in waiting.iter().zip(&leads) {
                if lead > stall {
                    stall = lead;
                    kind = self.pending[i].expect("waiting slot").1;
                }
            }
            let counter = match kind {
                Waits::Load => self.load_use,
                Waits::Multiply => self.multiply,
            };
            self.add_imm(self.cycles, stall as u64);
            self.add_imm(counter, stall as u64);
            self.prune();
            return;
        }
        let now = self.counter(self.cycles);
        let zero = self.b.ins().iconst(types::I64, 0);
        let mut stall = zero;
        // 1 when the winning slot waits on a multiply.
        let mut mul = self.b.ins().iconst(types::I64, 0);
        let mut kinds = Vec::new();
        for &i in &waiting {
            let (_, w) = self.pending[i].expect("waiting slot");
            kinds.push(w);
            let ready = self.ready_value(i);
            let reach = self.b.ins().iadd(now, stall);
            let later = self.b.ins().icmp(IntCC::UnsignedGreaterThan, ready, reach);
            let wait = self.b.ins().isub(ready, now);
            stall = self.b.ins().select(later, wait, stall);
            let k = self
                .b
                .ins()
                .iconst(types::I64, i64::from(w == Waits::Multiply));
            mul = self.b.ins().select(later, k, mul);
        }
        self.add_to(self.cycles, stall);
        if kinds.iter().all(|&k| k == Waits::Load) {
            self.add_to(self.load_use, stall);
        } else if kinds.iter().all(|&k| k == Waits::Multiply) {
            self.add_to(self.multiply, stall);
        } else {
            let z = self.b.ins().iconst(types::I64, 0);
            let to_mul = self.b.ins().select(mul, stall, z);
            let to_load = self.b.ins().select(mul, z, stall);
            self.add_to(self.multiply, to_mul);
            self.add_to(self.load_use, to_load);
        }
    }

    /// Forgets the pending results known here to be ready (they can no longer stall, so the
    /// interpreter's interlock would charge nothing for them either).
    fn prune(&mut self) {
        for i in 0..2 {
            if self.at.ready_here(i) {
                self.pending[i] = None;
                self.at.forget(i);
            }
        }
    }

    /// Slot `i`'s ready cycle as a value.
    fn ready_value(&mut self, i: usize) -> Value {
        match self.at.ready[i] {
            Ready::Var => self.b.use_var(self.ready[i]),
            Ready::At(e, at) => self.b.ins().iadd_imm_s(e, at),
        }
    }

    /// Defines slot `i`'s variable as its ready cycle here, without forgetting the translator's
    /// knowledge of it (for an exit or a loop-back, which read the variable).
    fn ready_to_var(&mut self, i: usize) {
        if let Ready::At(..) = self.at.ready[i] {
            let v = self.ready_value(i);
            self.b.def_var(self.ready[i], v);
        }
    }

    /// A result of an instruction of `opcode` in logical register `r`, usable only after its
    /// class's delay (the interpreter's `late_result`).
    fn late_result(&mut self, opcode: Opcode, r: u32) {
        let class = opcode.latency();
        let waits = match class {
            Latency::Load => Waits::Load,
            Latency::Multiply | Latency::MultiplyHigh => Waits::Multiply,
            Latency::Single | Latency::Divide => return,
        };
        let extra = self.spec.timing.result_delay(class);
        if extra == 0 {
            return;
        }
        let (epoch, since) = match self.at.now {
            Some(now) => now,
            None => {
                let now = (self.counter(self.cycles), 0);
                self.at.now = Some(now);
                now
            }
        };
        if self.pending[0].is_some() && self.at.ready[0] == Ready::Var {
            let r0 = self.b.use_var(self.ready[0]);
            self.b.def_var(self.ready[1], r0);
        }
        let lead = i64::from(self.spec.timing.issue) + i64::from(extra);
        self.at.ready[1] = self.at.ready[0];
        self.at.bound[1] = self.at.bound[0];
        self.at.ready[0] = Ready::At(epoch, since + lead);
        self.at.bound[0] = Some(lead);
        self.pending[1] = self.pending[0];
        self.pending[0] = Some((1 << r, waits));
    }

    /// Charges the cycles a helper returned in bits 32..62 of `answer` (a memory latency, or an
    /// exception return's beyond its taken jump).
    fn charge_latency(&mut self, answer: Value) {
        let lat = self.b.ins().ushr_imm_u(answer, 32);
        let lat = self.b.ins().band_imm_u(lat, (1 << 30) - 1);
        self.add_to(self.cycles, lat);
    }

    /// Whether `addr` is aligned for `size` (`None`: every address is). Each fast path
    /// requires it; the helpers refuse a misaligned access, so the block leaves before the
    /// instruction and the interpreter raises the exception.
    fn aligned(&mut self, addr: Value, size: u32) -> Option<Value> {
        (size > 1).then(|| {
            let low = self.b.ins().band_imm_u(addr, i64::from(size - 1));
            self.b.ins().icmp_imm_u(IntCC::Equal, low, 0)
        })
    }

    /// Both conditions, where there are any.
    fn both(&mut self, a: Option<Value>, b: Option<Value>) -> Option<Value> {
        match (a, b) {
            (Some(a), Some(b)) => Some(self.b.ins().band(a, b)),
            (a, None) => a,
            (None, b) => b,
        }
    }

    /// The host address of `addr` in directly reachable memory, and whether it is there.
    fn direct_addr(&mut self, addr: Value, size: u32) -> Option<(Value, Option<Value>)> {
        let region = self.spec.direct?;
        Some(self.region_addr(region, off::DIRECT, addr, size))
    }

    /// The host address of `addr` in the direct memory `(base, len, _)` whose host pointer is
    /// at `at` in the context, and whether it is there and aligned (`None`: it spans the
    /// address space and the access is a byte).
    fn region_addr(
        &mut self,
        region: (u32, u64, bool),
        at: i32,
        addr: Value,
        size: u32,
    ) -> (Value, Option<Value>) {
        let (base, len, _) = region;
        let off = self.b.ins().iadd_imm_s(addr, -i64::from(base as i32));
        let off64 = self.b.ins().uextend(types::I64, off);
        let direct = self.ctx_load(self.ptr, at);
        let host = self.b.ins().iadd(direct, off64);
        let aligned = self.aligned(addr, size);
        if spans_space(region) {
            return (host, aligned);
        }
        let within = self.b.ins().icmp_imm_s(
            IntCC::UnsignedLessThanOrEqual,
            off64,
            len as i64 - i64::from(size),
        );
        (host, self.both(Some(within), aligned))
    }

    /// Branches to a new fast block, switched to, when `addr` is in the memory of
    /// [`Spec::direct_code`] (and, for a store, its granule holds no decoded code), its host
    /// address returned; else to `slow`. `None` (having jumped to `slow`) when there is no
    /// such memory.
    fn enter_direct_code(
        &mut self,
        addr: Value,
        size: u32,
        store: bool,
        slow: cranelift_codegen::ir::Block,
    ) -> Option<Value> {
        let Some(region) = self.spec.direct_code.filter(|r| !store || r.2) else {
            self.b.ins().jump(slow, &[]);
            return None;
        };
        let (host, within) = self.region_addr(region, off::DIRECT_CODE, addr, size);
        if store {
            self.require_no_code(addr, within, slow);
            return Some(host);
        }
        self.enter_direct(Some((host, within)), slow)
    }

    /// Goes on, in a new block switched to, when `within` holds (`None`: always) and the 64
    /// bytes of a store at `addr` hold no decoded code (natural alignment keeps the store in
    /// them); else to `slow`.
    fn require_no_code(
        &mut self,
        addr: Value,
        within: Option<Value>,
        slow: cranelift_codegen::ir::Block,
    ) {
        let check = self.b.create_block();
        match within {
            Some(w) => self.b.ins().brif(w, check, &[], slow, &[]),
            None => self.b.ins().jump(check, &[]),
        };
        self.b.switch_to_block(check);
        let bits = self.code_bits_at(addr);
        let code = self.b.ins().band_imm_u(bits, 1);
        let on = self.b.create_block();
        self.b.ins().brif(code, slow, &[], on, &[]);
        self.b.switch_to_block(on);
    }

    /// Branches to a new fast block, switched to, when a store at `addr` may go into
    /// [`Spec::direct`]'s memory directly ([`Spec::guarded_stores`]): it is aligned, in the
    /// memory, and in 64 bytes a store through the helper has marked (touched, no decoded
    /// code: `DecodeCache::store_ok_bits`); its host address returned. Else to `slow`.
    fn enter_guarded(
        &mut self,
        addr: Value,
        size: u32,
        slow: cranelift_codegen::ir::Block,
    ) -> Option<Value> {
        let (host, within) = self.direct_addr(addr, size)?;
        let check = self.b.create_block();
        match within {
            Some(w) => self.b.ins().brif(w, check, &[], slow, &[]),
            None => self.b.ins().jump(check, &[]),
        };
        self.b.switch_to_block(check);
        // One bit says both: the granule is touched and its 64 bytes hold no decoded code.
        let bits = self.granule_bits(addr, 6, off::STORE_OK);
        let set = self.b.ins().band_imm_u(bits, 1);
        let fast = self.b.create_block();
        self.b.ins().brif(set, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        Some(host)
    }

    /// Branches to a new fast block, switched to and its host address returned, when `direct`
    /// (from [`Tr::direct_addr`]) reaches the access, else to `slow`; `None` (having jumped
    /// to `slow`) when nothing is directly reachable.
    fn enter_direct(
        &mut self,
        direct: Option<(Value, Option<Value>)>,
        slow: cranelift_codegen::ir::Block,
    ) -> Option<Value> {
        let Some((host, within)) = direct else {
            self.b.ins().jump(slow, &[]);
            return None;
        };
        let fast = self.b.create_block();
        match within {
            Some(w) => self.b.ins().brif(w, fast, &[], slow, &[]),
            None => self.b.ins().jump(fast, &[]),
        };
        self.b.switch_to_block(fast);
        Some(host)
    }

    /// Calls memory helper `addr` with `args` (all i32) for the instruction at `pc`: leaves
    /// before it when the helper did not do the access, else charges the latency it returned;
    /// the helper's answer.
    fn memory_helper(&mut self, addr: usize, args: &[Value], pc: u32) -> Value {
        let answer = self.call(addr, args, &vec![types::I32; args.len()]);
        let not_done = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, answer, 0);
        let here = self.code(pc);
        self.exit_if(not_done, here, EXIT_INTERPRET);
        self.charge_latency(answer);
        answer
    }

    /// At the end of the paths of a settled access site compiled for one local memory
    /// ([`Site::Direct`] or [`Site::DirectCode`]): the access missed it (a misaligned address,
    /// a store into code), which the block leaves for, before the instruction, for the
    /// interpreter to do, rather than calling the helper (a call at every stack access cost
    /// compile time and host registers). Whether it did.
    fn leaves_when_missed(&mut self, site: Site, pc: u32) -> bool {
        if !matches!(site, Site::Direct | Site::DirectCode) {
            return false;
        }
        let here = self.b.current_block().expect("a path to end");
        self.b.set_cold_block(here);
        let pc = self.code(pc);
        self.exit(pc, EXIT_INTERPRET);
        true
    }

    /// A load of `size` bytes at `addr` by the instruction at `pc`, compiled for `site`: the
    /// zero-extended value. `settled`: the address is in the same memory every time the site
    /// runs (an L32R's fixed address; the stack pointer a1's, the stack staying in its
    /// memory), so a miss of the site's memory leaves the block ([`Tr::leaves_when_missed`]).
    /// `literal`: the address `addr` always holds, an L32R's ([`Tr::window_load`]).
    fn load(
        &mut self,
        addr: Value,
        size: u32,
        pc: u32,
        site: Site,
        settled: bool,
        literal: Option<u32>,
    ) -> Value {
        let out = self.b.create_block();
        self.b.append_block_param(out, types::I32);
        if site.tries(Site::Direct) {
            let direct = self.direct_addr(addr, size);
            let slow = self.b.create_block();
            if let Some(host) = self.enter_direct(direct, slow) {
                let v = self.host_load(host, size);
                self.b.ins().jump(out, &[v.into()]);
            }
            self.b.switch_to_block(slow);
            if self.spec.direct.is_some_and(spans_space) {
                // Every address is directly reachable: only a misaligned load comes here, and
                // the helper would refuse it. Leaving at once keeps a call (and the registers
                // it clobbers) out of the block's loops.
                self.b.set_cold_block(slow);
                let here = self.code(pc);
                self.exit(here, EXIT_INTERPRET);
                self.b.switch_to_block(out);
                return self.b.block_params(out)[0];
            }
        }
        if site.tries(Site::DirectCode) {
            let slow = self.b.create_block();
            if let Some(host) = self.enter_direct_code(addr, size, false, slow) {
                let v = self.host_load(host, size);
                self.b.ins().jump(out, &[v.into()]);
            }
            self.b.switch_to_block(slow);
        }
        if site.tries(Site::Window) {
            let helper = self.b.create_block();
            self.window_load(addr, size, literal, out, helper);
            self.b.switch_to_block(helper);
        }
        if self.spec.local(site, settled, false) && self.leaves_when_missed(site, pc) {
            self.b.switch_to_block(out);
            return self.b.block_params(out)[0];
        }
        let sz = self.imm(size);
        let answer = self.memory_helper(self.spec.helpers.load, &[addr, sz], pc);
        let v = self.b.ins().ireduce(types::I32, answer);
        self.b.ins().jump(out, &[v.into()]);
        self.b.switch_to_block(out);
        self.b.block_params(out)[0]
    }

    /// A load through a translate window, done here as [`crate::bus::WindowView`] says: the
    /// value to `out`; anything the view leaves to the bus to `helper`. At an address fixed
    /// when compiled (`literal`, an L32R's: a block compiled relative to its start runs only
    /// there), the latency class is known then, and its counters are found without computing
    /// it; a class of no latency adds nothing to the stall counter or the cycles.
    fn window_load(
        &mut self,
        addr: Value,
        size: u32,
        literal: Option<u32>,
        out: cranelift_codegen::ir::Block,
        helper: cranelift_codegen::ir::Block,
    ) {
        let Some(view) = self.spec.windows else {
            self.b.ins().jump(helper, &[]);
            return;
        };
        // Computed without branching (a window number past the last is read as the last's, a
        // host offset past HBM as 0), then one branch to the helper for anything not done here.
        let ctx = self.ctx;
        let off = self
            .b
            .ins()
            .iadd_imm_s(addr, -i64::from(view.xlate.0 as i32));
        let inside = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, off, i64::from(view.xlate.1));
        let off64 = self.b.ins().uextend(types::I64, off);
        let w = self.b.ins().ushr_imm_u(off64, i64::from(view.shift));
        let last = self.b.ins().iconst(
            types::I64,
            i64::from((view.xlate.1 >> view.shift).max(1) - 1),
        );
        let w = self.b.ins().umin(w, last);
        let at = self.b.ins().imul_imm_u(w, i64::from(view.stride));
        let table = self.b.ins().load(self.ptr, fixed(), ctx, off::WTABLE);
        let slot = self.b.ins().iadd(table, at);
        let enabled = self
            .b
            .ins()
            .uload8(types::I32, flags(), slot, view.enabled_at as i32);
        let enabled = self.b.ins().icmp_imm_u(IntCC::NotEqual, enabled, 0);
        let base = self
            .b
            .ins()
            .load(types::I64, flags(), slot, view.base_at as i32);
        let within = self.b.ins().band_imm_u(off64, (1i64 << view.shift) - 1);
        let h = self.b.ins().iadd(base, within);
        let end = self.b.ins().iadd_imm_s(h, i64::from(size));
        let hbm_size = self.b.ins().load(types::I64, fixed(), ctx, off::HBM_SIZE);
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, end, hbm_size);
        let ok = self.b.ins().band(inside, enabled);
        let ok = self.b.ins().band(ok, fits);
        let aligned = self.aligned(addr, size);
        let ok = self.both(Some(ok), aligned).expect("a condition");
        let go = self.b.create_block();
        self.b.ins().brif(ok, go, &[], helper, &[]);
        self.b.switch_to_block(go);
        let hbm = self.b.ins().load(self.ptr, fixed(), ctx, off::HBM);
        let host = self.b.ins().iadd(hbm, h);
        let v = self.host_load(host, size);
        // Class 0 (SRAM) below `pinned`, 1 (HBM) from there: its counter, latency and stall
        // category. At an address fixed when compiled (an L32R's literal) its class is known
        // then ([`Tr::count_fixed_window_access`]).
        match literal {
            Some(at) => self.count_fixed_window_access(view, at),
            None => {
                let [l0, l1] = view.latency.map(i64::from);
                let class = self.b.ins().icmp_imm_u(
                    IntCC::UnsignedGreaterThanOrEqual,
                    off,
                    i64::from(view.pinned),
                );
                let class = self.b.ins().uextend(self.ptr, class);
                let eight = self.b.ins().ishl_imm_u(class, 3);
                let slots = self.b.ins().iadd(ctx, eight);
                self.bump_at(slots, off::WCOUNT, None);
                if l0 != 0 || l1 != 0 {
                    let l0 = self.b.ins().iconst(types::I64, l0);
                    let l1 = self.b.ins().iconst(types::I64, l1);
                    let lat = self.b.ins().select(class, l1, l0);
                    self.bump_at(slots, off::WSTALL, Some(lat));
                    self.add_to(self.cycles, lat);
                }
            }
        }
        self.b.ins().jump(out, &[v.into()]);
    }

    /// The counters of a load through a translate window at `at`, an address fixed when the
    /// block is compiled: its class (SRAM below `pinned`, HBM from there) is known then, and
    /// a class of no latency adds nothing to the stall counter or the cycles.
    fn count_fixed_window_access(&mut self, view: crate::bus::WindowView, at: u32) {
        let hbm = at.wrapping_sub(view.xlate.0) >= view.pinned;
        let eight = 8 * i32::from(hbm);
        let ctx = self.ctx;
        self.bump_at(ctx, off::WCOUNT + eight, None);
        let lat = view.latency[usize::from(hbm)];
        if lat != 0 {
            let lat = self.b.ins().iconst(types::I64, i64::from(lat));
            self.bump_at(ctx, off::WSTALL + eight, Some(lat));
            self.add_to(self.cycles, lat);
        }
    }

    /// An L32R's literal at `at` in a translate window, compiled in as `value`, the word it
    /// held when the block was built (docs/jit.md "Literals"): counted as the load through the
    /// window is. Where the cores of a cluster share code, a value in the block's own image
    /// (the 2 MiB the start is in: an address of the core's copy of the library) is made
    /// from the start as code addresses are ([`Tr::code`]), so each core's copy makes the
    /// same IR.
    fn literal(&mut self, at: u32, value: u32) -> Value {
        let view = self.spec.windows.expect("a literal in a translate window");
        self.count_fixed_window_access(view, at);
        if self.spec.relative && super::image_base(value) == super::image_base(self.spec.start) {
            self.code(value)
        } else {
            self.imm(value)
        }
    }

    /// The `size` bytes at host address `host`, zero-extended (in bounds: checked before).
    fn host_load(&mut self, host: Value, size: u32) -> Value {
        let f = MemFlags::new().with_notrap();
        match size {
            1 => self.b.ins().uload8(types::I32, f, host, 0),
            2 => self.b.ins().uload16(types::I32, f, host, 0),
            _ => self.b.ins().load(types::I32, f, host, 0),
        }
    }

    /// Adds `by` (1 when `None`) to the u64 that the pointer at `at` from `base` points to.
    fn bump_at(&mut self, base: Value, at: i32, by: Option<Value>) {
        // The counter's pointer is a context field ([`fixed`]).
        let p = self.b.ins().load(self.ptr, fixed(), base, at);
        let x = self.b.ins().load(types::I64, flags(), p, 0);
        let x = match by {
            Some(n) => self.b.ins().iadd(x, n),
            None => self.b.ins().iadd_imm_s(x, 1),
        };
        self.b.ins().store(flags(), x, p, 0);
    }

    /// Stores the low `size` bytes of `v` at host address `host` (in bounds: checked before),
    /// then on to `out` with no code changed.
    fn host_store(&mut self, host: Value, size: u32, v: Value, out: cranelift_codegen::ir::Block) {
        self.host_write(host, size, v);
        let no = self.b.ins().iconst(types::I8, 0);
        self.b.ins().jump(out, &[no.into()]);
    }

    /// Stores the low `size` bytes of `v` at host address `host` (in bounds: checked before).
    fn host_write(&mut self, host: Value, size: u32, v: Value) {
        let f = MemFlags::new().with_notrap();
        match size {
            1 => self.b.ins().istore8(f, v, host, 0),
            2 => self.b.ins().istore16(f, v, host, 0),
            _ => self.b.ins().store(f, v, host, 0),
        };
    }

    /// A store of the low `size` bytes of `v` at `addr` by the instruction at `pc`, compiled
    /// for `site` (`settled` as for [`Tr::load`]).
    fn store(&mut self, addr: Value, size: u32, v: Value, pc: u32, site: Site, settled: bool) {
        let out = self.b.create_block();
        self.b.append_block_param(out, types::I8);
        if site.tries(Site::Direct) {
            let slow = self.b.create_block();
            let direct = self
                .spec
                .direct
                .filter(|d| d.2)
                .and_then(|_| self.direct_addr(addr, size));
            if let Some(host) = self.enter_direct(direct, slow) {
                self.host_store(host, size, v, out);
            }
            self.b.switch_to_block(slow);
            if self.spec.guarded_stores {
                let slow = self.b.create_block();
                if let Some(host) = self.enter_guarded(addr, size, slow) {
                    self.host_store(host, size, v, out);
                }
                self.b.switch_to_block(slow);
            }
        }
        if site.tries(Site::DirectCode) {
            let slow = self.b.create_block();
            if let Some(host) = self.enter_direct_code(addr, size, true, slow) {
                self.host_store(host, size, v, out);
            }
            self.b.switch_to_block(slow);
        }
        if self.spec.local(site, settled, true) && self.leaves_when_missed(site, pc) {
            self.b.switch_to_block(out);
            self.code_changed = Some(self.b.block_params(out)[0]);
            return;
        }
        let sz = self.imm(size);
        let answer = self.memory_helper(self.spec.helpers.store, &[addr, sz, v], pc);
        let changed = self.b.ins().band_imm_u(answer, CODE_CHANGED as i64);
        let changed = self.b.ins().icmp_imm_s(IntCC::NotEqual, changed, 0);
        self.b.ins().jump(out, &[changed.into()]);
        self.b.switch_to_block(out);
        self.code_changed = Some(self.b.block_params(out)[0]);
    }

    // ----------------------------------------------------------------------- the block

    fn body(&mut self) {
        let ops = self.spec.ops;
        let mut prev_line = None;
        self.plan_frame();
        let lead = self.spec.lead();
        // After a leading ENTRY: where control goes on, with the state it has there, into the
        // instruction after it (instructions of followed callees may come before).
        let mut after_lead = None;
        if let Some(e) = lead {
            self.leading_entry(e, &mut prev_line);
            let (pc, op) = ops[e];
            let next = pc.wrapping_add(u32::from(op.insn.len));
            if ops.get(e + 1).is_some_and(|&(p, _)| p == next) && self.spec.frames[e + 1] == 1 {
                let on = self.b.create_block();
                self.b.ins().jump(on, &[]);
                after_lead = Some((on, self.pending, self.at, prev_line));
            } else {
                let n = self.code(next);
                self.exit(n, EXIT_CONTINUE);
            }
        } else {
            self.load_registers();
            self.check_frame(self.spec.start);
            let start = self.labels[self.spec.entry()].expect("the start's label");
            self.b.ins().jump(start.block, &[]);
        }
        // Whether control falls through into the instruction from the one before.
        let mut live = false;
        for (i, &(pc, op)) in ops.iter().enumerate() {
            if Some(i) == lead {
                live = false;
                continue;
            }
            if lead.is_some_and(|e| i == e + 1) {
                if let Some((on, pending, at, line)) = after_lead.take() {
                    self.b.switch_to_block(on);
                    (self.pending, self.at, prev_line) = (pending, at, line);
                    self.frames = 1;
                    self.regs_loaded = true;
                    self.gates_checked = 0;
                    live = true;
                }
            }
            let was_live = live;
            if self.labels[i].is_some() {
                if live {
                    self.join(i);
                }
                // (After the join: control falling in may have fixed the label's pending
                // results, when no jump there had; its code is then compiled for them.)
                let label = self.labels[i].expect("a label");
                self.index = i;
                let pending = match label.pending {
                    Some(p) => p,
                    // Reached only by jumps back from later instructions (or not at all):
                    // compiled for nothing that can stall.
                    None if self.reached_from_later(i) => {
                        let none = [None, None];
                        self.labels[i] = Some(Label {
                            pending: Some(none),
                            ..label
                        });
                        none
                    }
                    None => {
                        live = false;
                        continue;
                    }
                };
                self.b.switch_to_block(label.block);
                self.pending = pending;
                self.at = Timing::UNKNOWN;
                self.regs_loaded = true;
                self.frames = self.spec.arrival(i);
                self.gates_checked = 0;
                prev_line = self.line_at_label(i, was_live);
            } else if !live {
                continue;
            }
            self.index = i;
            let next = pc.wrapping_add(u32::from(op.insn.len));
            if (self.frames != 1 || self.spec.callee_entry(i).is_some())
                && self.spec.key.lend == Some(next)
            {
                // A zero-overhead loop-back inside a followed callee: the interpreter's.
                let here = self.code(pc);
                self.exit(here, EXIT_INTERPRET);
                live = false;
                continue;
            }
            self.gate_check(pc, &op);
            if let Some(shift) = self.spec.fetch_line {
                if prev_line != Some(pc >> shift) {
                    // The last line fetched is known here when it is another (`prev_line`)
                    // timed throughout (an untimed fetch leaves the last line as it was).
                    let other = prev_line.is_some_and(|p| {
                        let first = p << shift;
                        self.timed(first) && self.timed(first | ((1 << shift) - 1))
                    });
                    self.fetch(pc, other);
                }
                prev_line = Some(pc >> shift);
            }
            if op.src_mask != 0 {
                self.interlock(op.src_mask);
            }
            self.code_changed = None;
            live = false;
            let flow = self.insn(pc, &op, next);
            // Whether the next instruction of the block is the one after this, in this window
            // (a callee's ENTRY is entered only from its calls).
            let falls_in = ops.get(i + 1).is_some_and(|&(p, _)| p == next)
                && self.spec.arrival(i + 1) == self.frames
                && self.spec.callee_entry(i + 1).is_none()
                && lead != Some(i + 1);
            match flow {
                Flow::Next => {
                    self.complete(next);
                    live = self.fall_through(falls_in, next);
                }
                Flow::Gone => {}
                Flow::Cond(cond, target) => {
                    let taken = self.b.create_block();
                    let on = self.b.create_block();
                    self.b.ins().brif(cond, taken, &[], on, &[]);
                    self.b.switch_to_block(taken);
                    // Taken: a separate copy of the pending state carries on there.
                    let saved = (self.pending, self.at);
                    self.complete_taken();
                    self.go_to(target);
                    (self.pending, self.at) = saved;
                    self.b.switch_to_block(on);
                    self.complete(next);
                    live = self.fall_through(falls_in, next);
                }
                Flow::To(target) => {
                    self.complete_taken();
                    self.go_to(target);
                }
                Flow::Dynamic(target) => {
                    self.complete_taken();
                    self.exit(target, EXIT_CONTINUE);
                }
                Flow::Skip(cond, target) => {
                    // LOOP*: LEND changed, so the block ends either way.
                    let taken = self.b.create_block();
                    let on = self.b.create_block();
                    self.b.ins().brif(cond, taken, &[], on, &[]);
                    self.b.switch_to_block(taken);
                    self.complete_taken();
                    let t = self.code(target);
                    self.exit(t, EXIT_CONTINUE);
                    self.b.switch_to_block(on);
                    self.add_imm(self.cycles, u64::from(self.spec.timing.issue));
                    self.add_imm(self.counts, 1);
                    let n = self.code(next);
                    self.exit(n, EXIT_CONTINUE);
                }
            }
        }
    }

    /// The I-cache line known to be the last fetched when control reaches label `i` (not the
    /// start, which is entered from outside): its own, when every way in is from an
    /// instruction of that line (the one before it, when control falls in, `falls_in`, and
    /// every jump or branch of the block there), as the last fetch was then that
    /// instruction's line and nothing between fetches. Else `None` (the label fetches).
    fn line_at_label(&self, i: usize, falls_in: bool) -> Option<u32> {
        let shift = self.spec.fetch_line?;
        let (pc, _) = self.spec.ops[i];
        if pc == self.spec.start {
            return None;
        }
        let line = pc >> shift;
        let before = i
            .checked_sub(1)
            .map(|j| self.spec.ops[j].0 >> shift == line);
        if falls_in && before != Some(true) {
            return None;
        }
        (0..self.spec.ops.len())
            .filter(|&j| self.edges[j].contains(&pc))
            .all(|j| self.spec.ops[j].0 >> shift == line)
            .then_some(line)
    }

    /// After an instruction that went on to `next`: whether control falls into the block's
    /// next instruction (`falls_in`: it is at `next`); else the block leaves for `next`.
    fn fall_through(&mut self, falls_in: bool, next: u32) -> bool {
        if !falls_in {
            let n = self.code(next);
            self.exit(n, EXIT_CONTINUE);
        }
        falls_in
    }

    /// Whether an instruction at or after index `i` jumps or branches to instruction `i`.
    fn reached_from_later(&self, i: usize) -> bool {
        let pc = self.spec.ops[i].0;
        (i..self.spec.ops.len()).any(|j| self.edges[j].contains(&pc))
    }

    /// The block's leading ENTRY, in line when it raises nothing ([`Tr::entry_in_line`]), else
    /// by its helper (which takes a window overflow; the interpreter executes an ENTRY that
    /// would raise anything else); then the registers of the new window,
    /// and the gates of the rest of the block, which the rotation may have changed.
    fn leading_entry(&mut self, e: usize, prev_line: &mut Option<u32>) {
        let (pc, op) = self.spec.ops[e];
        if let Some(shift) = self.spec.fetch_line {
            self.fetch(pc, false);
            *prev_line = Some(pc >> shift);
        }
        if op.src_mask != 0 {
            self.interlock(op.src_mask);
        }
        let here = self.code(pc);
        let (s, frame) = (op.insn.operands[0], op.insn.operands[1]);
        // The gate bits that trap after the ENTRY: worked out in line when the ENTRY raises
        // nothing, else by the helper.
        let done = self.b.create_block();
        self.b.append_block_param(done, types::I32);
        let slow = self.b.create_block();
        self.b.set_cold_block(slow);
        if s <= 3 && self.spec.groups >= 4 {
            let traps = self.entry_in_line(s, frame, slow);
            self.b.ins().jump(done, &[traps.into()]);
        } else {
            self.b.ins().jump(slow, &[]);
        }
        self.b.switch_to_block(slow);
        let sv = self.imm(s);
        let fv = self.imm(frame);
        let answer = self.call(
            self.spec.helpers.entry,
            &[here, sv, fv],
            &[types::I32, types::I32, types::I32],
        );
        let not_done = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, answer, 0);
        self.exit_if(not_done, here, EXIT_INTERPRET);
        self.trap_if(answer);
        let traps = self.b.ins().ireduce(types::I32, answer);
        self.b.ins().jump(done, &[traps.into()]);
        self.b.switch_to_block(done);
        let answer = self.b.block_params(done)[0];
        // ENTRY's refresh forgot the pending results.
        self.pending = [None, None];
        let next = pc.wrapping_add(u32::from(op.insn.len));
        self.add_imm(self.cycles, u64::from(self.spec.timing.issue));
        self.add_imm(self.counts, 1);
        self.load_registers();
        if self.spec.key.lend == Some(next) {
            // A loop ending at the ENTRY: the interpreter's to take.
            let n = self.code(next);
            self.exit(n, EXIT_INTERPRET);
            let dead = self.b.create_block();
            self.b.switch_to_block(dead);
            return;
        }
        // The groups the block's instructions name that would overflow now: each instruction
        // naming one leaves before it ([`Tr::gate_check`]), for the interpreter's exception
        // there; code before it runs compiled.
        let gates = self.spec.own_gates();
        if gates != 0 {
            self.entry_trips = Some(self.b.ins().band_imm_u(answer, i64::from(gates)));
        }
        self.check_frame(next);
    }

    /// A leading ENTRY (`entry a<s>, frame`, s ≤ 3) in compiled code when the interpreter's
    /// would raise nothing: window checks on (PS.WOE set, PS.EXCM clear), no live frame among
    /// the PS.CALLINC groups above WINDOWBASE, and for a1 the new SP not below KSL (where the
    /// core has it) and inside the stack region (conservatively: an SP that stays outside it
    /// is the helper's too). Then the lowest SP, the new frame's SP, WINDOWBASE moved up by
    /// CALLINC with its WINDOWSTART bit set, and the gates and window limit as `Core::refresh`
    /// works them out; the gate bits. Anything else goes to `slow` first, nothing changed.
    fn entry_in_line(&mut self, s: u32, frame: u32, slow: cranelift_codegen::ir::Block) -> Value {
        let psv = self.load_sr(sr::PS);
        let ws = self.load_sr(sr::WINDOWSTART);
        let wb = self.load_sr(sr::WINDOWBASE);
        let woe = self.b.ins().band_imm_u(psv, i64::from(ps::WOE | ps::EXCM));
        let mut bad = self
            .b
            .ins()
            .icmp_imm_u(IntCC::NotEqual, woe, i64::from(ps::WOE));
        let callinc = self.b.ins().ushr_imm_u(psv, i64::from(ps::CALLINC_SHIFT));
        let callinc = self.b.ins().band_imm_u(callinc, 3);
        // From the group above WINDOWBASE up.
        let twice = self.ws_twice(ws);
        let next = self.b.ins().iadd_imm_s(wb, 1);
        let above = self.b.ins().ushr(twice, next);
        let one = self.imm(1);
        let need = self.b.ins().ishl(one, callinc);
        let need = self.b.ins().iadd_imm_s(need, -1);
        let live = self.b.ins().band(above, need);
        let over = self.b.ins().icmp_imm_u(IntCC::NotEqual, live, 0);
        bad = self.b.ins().bor(bad, over);
        let window = self.window();
        let at = self.reg_address(window, s);
        let caller_s = self.b.ins().load(types::I32, flags(), at, 0);
        let sp = self.b.ins().iadd_imm_s(caller_s, -i64::from(frame as i32));
        if s == 1 {
            let outside = self.sp_refused(sp);
            bad = self.b.ins().bor(bad, outside);
        }
        let fast = self.b.create_block();
        self.b.ins().brif(bad, slow, &[], fast, &[]);
        self.b.switch_to_block(fast);
        if s == 1 {
            let at = self.ctx_load(self.ptr, off::LOWEST_SP);
            let lowest = self.b.ins().load(types::I32, flags(), at, 0);
            let lowest = self.b.ins().umin(lowest, sp);
            self.b.ins().store(flags(), lowest, at, 0);
        }
        // a(4 × CALLINC + s) of the window now: the new window's a<s>.
        let (base, amask, ar) = self.window();
        let up = self.b.ins().ishl_imm_u(callinc, 2);
        let new_base = self.b.ins().iadd(base, up);
        let at = self.reg_address((new_base, amask, ar), s);
        self.b.ins().store(flags(), sp, at, 0);
        let wb = self.b.ins().iadd(wb, callinc);
        let wb = self.set_windowbase(wb);
        let bit = self.b.ins().ishl(one, wb);
        let ws = self.b.ins().bor(ws, bit);
        self.store_sr(sr::WINDOWSTART, ws);
        self.refresh_in_line(ws, wb, psv)
    }

    /// Whether an ENTRY's new SP `sp` is one compiled code leaves to the interpreter or the
    /// helper: below KSL (where the core has the stack limit) or outside the stack region.
    fn sp_refused(&mut self, sp: Value) -> Value {
        let lo = self.ctx_load(types::I32, off::STACK_LO);
        let span = self.ctx_load(types::I32, off::STACK_SPAN);
        let into = self.b.ins().isub(sp, lo);
        let mut out = self.b.ins().icmp(IntCC::UnsignedGreaterThan, into, span);
        if self.spec.stack_limit {
            let ksl = self.load_sr(sr::KSL);
            let limit = self.b.ins().band_imm_u(ksl, i64::from(!0xfu32));
            let below = self.b.ins().icmp(IntCC::UnsignedLessThan, sp, limit);
            out = self.b.ins().bor(out, below);
        }
        out
    }

    /// Before instruction `op` at `pc` of the block's own window, after a leading ENTRY: leaves
    /// for the interpreter when a group it names would overflow (its gate bit among the
    /// ENTRY's trips), as the interpreter raises the overflow at the first instruction naming
    /// one; checked once for each gate bit on the way from the last label.
    fn gate_check(&mut self, pc: u32, op: &Op) {
        let Some(trips) = self.entry_trips else {
            return;
        };
        let need = op.gate.bit() & !self.gates_checked;
        if self.frames != 1 || need == 0 {
            return;
        }
        self.gates_checked |= need;
        let trip = self.b.ins().band_imm_u(trips, i64::from(need));
        let out = self.b.create_block();
        let on = self.b.create_block();
        self.b.set_cold_block(out);
        self.b.ins().brif(trip, out, &[], on, &[]);
        self.b.switch_to_block(out);
        let saved = (self.pending, self.at, self.regs_loaded);
        // The overflow, taken by the helper where the interpreter would take it.
        self.store_registers();
        self.regs_loaded = false;
        let here = self.code(pc);
        let group = self.imm(u32::from(op.gate.group()));
        let answer = self.call(
            self.spec.helpers.overflow,
            &[here, group],
            &[types::I32, types::I32],
        );
        let not_done = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, answer, 0);
        self.exit_if(not_done, here, EXIT_INTERPRET);
        self.take_trap(answer);
        (self.pending, self.at, self.regs_loaded) = saved;
        self.b.switch_to_block(on);
    }

    /// After a window helper that took a trap ([`TRAPPED`] in `answer`): the entry's cycles
    /// charged, the pending results forgotten (the trap's refresh did), and the block leaves
    /// for the vector. The instruction that raised it does not count.
    fn take_trap(&mut self, answer: Value) {
        self.charge_latency(answer);
        self.pending = [None, None];
        let vector = self.b.ins().ireduce(types::I32, answer);
        self.exit(vector, EXIT_CONTINUE);
    }

    /// When `answer`, a window helper's, says it took a trap ([`TRAPPED`]): [`Tr::take_trap`],
    /// in a cold path; else goes on.
    fn trap_if(&mut self, answer: Value) {
        let bit = self.b.ins().band_imm_u(answer, TRAPPED as i64);
        let out = self.b.create_block();
        let on = self.b.create_block();
        self.b.set_cold_block(out);
        self.b.ins().brif(bit, out, &[], on, &[]);
        self.b.switch_to_block(out);
        let saved = (self.pending, self.at);
        self.take_trap(answer);
        (self.pending, self.at) = saved;
        self.b.switch_to_block(on);
    }

    /// A return that moves the window (RETW, RFWO, RFWU) by helper `addr` called with `arg`:
    /// the block's registers go back into the core first; when the helper did not do it, the
    /// block leaves before the instruction at `pc` for the interpreter. The helper's answer
    /// (the return address in its low 32 bits).
    fn window_return(&mut self, addr: usize, arg: Value, pc: u32) -> Value {
        self.store_registers();
        self.regs_loaded = false;
        let answer = self.call(addr, &[arg], &[types::I32]);
        let not_done = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, answer, 0);
        let here = self.code(pc);
        self.exit_if(not_done, here, EXIT_INTERPRET);
        // The window's refresh forgot the pending results.
        self.pending = [None, None];
        answer
    }

    /// RETW at `here` with `a0`, the block's registers already back in the core, in compiled
    /// code when the interpreter's would return without an exception: window checks on
    /// (PS.WOE set, PS.EXCM clear), a0's increment n not 0, and the first live frame below
    /// WINDOWBASE n groups down. Then WINDOWSTART loses WINDOWBASE's bit, WINDOWBASE goes
    /// back n groups and the window limit and gate bits are worked out as `Core::refresh`
    /// does; the return address. Anything else goes to `slow` first, nothing changed.
    fn retw_in_line(
        &mut self,
        a0: Value,
        here: Value,
        slow: cranelift_codegen::ir::Block,
    ) -> Value {
        let groups = self.spec.groups;
        let psv = self.load_sr(sr::PS);
        let ws = self.load_sr(sr::WINDOWSTART);
        let wb = self.load_sr(sr::WINDOWBASE);
        let woe = self.b.ins().band_imm_u(psv, i64::from(ps::WOE | ps::EXCM));
        let on = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, woe, i64::from(ps::WOE));
        let n = self.b.ins().ushr_imm_u(a0, 30);
        // Bits 2, 1, 0 of `below` are the groups 1, 2 and 3 below WINDOWBASE; the first live
        // one must be n down (none of n = 0 is).
        let twice = self.ws_twice(ws);
        let from = self.b.ins().iadd_imm_s(wb, i64::from(groups) - 3);
        let below = self.b.ins().ushr(twice, from);
        let below = self.b.ins().band_imm_u(below, 7);
        let three = self.imm(3);
        let down = self.b.ins().isub(three, n);
        let first = self.b.ins().ushr(below, down);
        let live = self.b.ins().icmp_imm_u(IntCC::Equal, first, 1);
        let nonzero = self.b.ins().icmp_imm_u(IntCC::NotEqual, n, 0);
        let ok = self.b.ins().band(on, live);
        let ok = self.b.ins().band(ok, nonzero);
        let fast = self.b.create_block();
        self.b.ins().brif(ok, fast, &[], slow, &[]);
        self.b.switch_to_block(fast);
        let ret = self.return_target(here, a0);
        let one = self.imm(1);
        let bit = self.b.ins().ishl(one, wb);
        let ws = self.b.ins().band_not(ws, bit);
        self.store_sr(sr::WINDOWSTART, ws);
        let wb = self.b.ins().isub(wb, n);
        let wb = self.set_windowbase(wb);
        self.refresh_in_line(ws, wb, psv);
        ret
    }

    /// WINDOWSTART `ws`'s groups twice over (bit `groups + g` is group g's bit again), so that
    /// the groups from any WINDOWBASE round the register file are one shift away.
    fn ws_twice(&mut self, ws: Value) -> Value {
        let groups = self.spec.groups;
        let live = self.b.ins().band_imm_u(ws, (1i64 << groups) - 1);
        let twice = self.b.ins().ishl_imm_u(live, i64::from(groups));
        self.b.ins().bor(live, twice)
    }

    /// WINDOWBASE set to `wb` modulo the group count, as `State::set_windowbase` does, with
    /// the window base the context and the state keep (WINDOWBASE × 4); the value set.
    fn set_windowbase(&mut self, wb: Value) -> Value {
        let wb = self.b.ins().band_imm_u(wb, i64::from(self.spec.groups - 1));
        self.store_sr(sr::WINDOWBASE, wb);
        let base = self.b.ins().ishl_imm_u(wb, 2);
        let ctx = self.ctx;
        self.b.ins().store(flags(), base, ctx, off::BASE);
        let state_base = self.ctx_load(self.ptr, off::STATE_BASE);
        self.b.ins().store(flags(), base, state_base, 0);
        wb
    }

    /// `Core::refresh` after a window move compiled in line (window checks on: PS.WOE set,
    /// PS.EXCM clear), from the new WINDOWSTART `ws`, WINDOWBASE `wb` and PS `psv`: the free
    /// groups above the window before the next live frame (at most 3) as the window limit,
    /// and the gates beyond them and, outside ring 0, every privileged one, both stored into
    /// the core; the gate bits.
    fn refresh_in_line(&mut self, ws: Value, wb: Value, psv: Value) -> Value {
        let three = self.imm(3);
        let twice = self.ws_twice(ws);
        let next = self.b.ins().iadd_imm_s(wb, 1);
        let above = self.b.ins().ushr(twice, next);
        let above = self.b.ins().band_imm_u(above, 7);
        let free = self.b.ins().ctz(above);
        let limit = self.b.ins().umin(free, three);
        let shift = self.b.ins().iadd_imm_s(limit, 1);
        let f = self.imm(0xf);
        let beyond = self.b.ins().ishl(f, shift);
        let beyond = self.b.ins().band_imm_u(beyond, 0xf);
        let ring = self.b.ins().band_imm_u(psv, i64::from(ps::RING));
        let user = self.b.ins().icmp_imm_u(IntCC::NotEqual, ring, 0);
        let all = self.imm(0xf0);
        let gated = self.b.ins().ishl_imm_u(beyond, 4);
        let privileged = self.b.ins().select(user, all, gated);
        let traps = self.b.ins().bor(beyond, privileged);
        let traps8 = self.b.ins().ireduce(types::I8, traps);
        let at = self.ctx_load(self.ptr, off::TRAPS);
        self.b.ins().store(flags(), traps8, at, 0);
        let limit8 = self.b.ins().ireduce(types::I8, limit);
        let at = self.ctx_load(self.ptr, off::WINDOW_LIMIT);
        self.b.ins().store(flags(), limit8, at, 0);
        traps
    }

    /// A followed callee's ENTRY at `pc` (`entry as, frame`; the call moves the window by
    /// `inc` groups), reached in its caller's window (docs/jit.md "Calls"). The checks the
    /// interpreter's ENTRY makes, and the overflow check of the groups the callee's
    /// instructions name, on the window state as it stands (the block's followed calls never
    /// move the core's): window checks on, the groups from the caller's next to the highest
    /// the callee names free, the frame a RETW to the block's own window returns to live, and
    /// the new SP within the stack limit and region. When one fails the block leaves before
    /// the ENTRY, for the interpreter to execute it exactly. Then the callee's SP, the lowest
    /// SP, and the callee's window for the instructions after.
    fn enter_callee(&mut self, pc: u32, op: &Op, inc: u32) {
        let o = op.insn.operands;
        let (s, frame) = (o[0], o[1]);
        let d = depth(self.frames);
        let callee = self.spec.frames[self.index];
        let psv = self.load_sr(sr::PS);
        let woe = self.b.ins().band_imm_u(psv, i64::from(ps::WOE | ps::EXCM));
        let mut bad = self
            .b
            .ins()
            .icmp_imm_u(IntCC::NotEqual, woe, i64::from(ps::WOE));
        // WINDOWSTART from the block's window up (its groups twice over, shifted down by
        // WINDOWBASE): bit k is the frame k groups above the block's.
        let ws = self.load_sr(sr::WINDOWSTART);
        let twice = self.b.ins().ishl_imm_u(ws, i64::from(self.spec.groups));
        let twice = self.b.ins().bor(ws, twice);
        let base = self.b.ins().load(types::I32, flags(), self.ctx, off::BASE);
        let wb = self.b.ins().ushr_imm_u(base, 2);
        let rel = self.b.ins().ushr(twice, wb);
        let free = inc + self.spec.groups_named(callee);
        let own = u32::from(d == 0);
        let mask = ((1u32 << free) - 1) << (d + 1) | own;
        let m = self.b.ins().band_imm_u(rel, i64::from(mask));
        let taken = self.b.ins().icmp_imm_u(IntCC::NotEqual, m, i64::from(own));
        bad = self.b.ins().bor(bad, taken);
        if self.spec.entered.is_some() && pc == self.spec.start {
            // Entered as a call: the window increment the block was compiled for.
            let callinc = self.b.ins().band_imm_u(psv, i64::from(ps::CALLINC));
            let other = self.b.ins().icmp_imm_u(
                IntCC::NotEqual,
                callinc,
                i64::from(inc << ps::CALLINC_SHIFT),
            );
            bad = self.b.ins().bor(bad, other);
        }
        let caller_s = self.a(s);
        let sp = self.b.ins().iadd_imm_s(caller_s, -i64::from(frame as i32));
        if s == 1 {
            let outside = self.sp_refused(sp);
            bad = self.b.ins().bor(bad, outside);
        }
        let here = self.code(pc);
        self.exit_if(bad, here, EXIT_INTERPRET);
        if s == 1 {
            let at = self.ctx_load(self.ptr, off::LOWEST_SP);
            let lowest = self.b.ins().load(types::I32, flags(), at, 0);
            let lowest = self.b.ins().umin(lowest, sp);
            self.b.ins().store(flags(), lowest, at, 0);
        }
        self.frames = callee;
        self.set(s, sp);
        // The interpreter's ENTRY forgets the pending results (they name the old window).
        self.pending = [None, None];
    }

    /// A followed callee's RETW at `pc`: back into the block's code after the call it returns
    /// from when a0 holds that call's return value (window increment and address), in the
    /// caller's window; for any other a0 the block leaves before the RETW for the interpreter.
    fn return_from_callee(&mut self, pc: u32) {
        let a0 = self.a(0);
        let caller = self.frames & !(1 << depth(self.frames));
        if let Some(inc) = self
            .spec
            .entered
            .filter(|_| self.spec.in_entered(self.index))
        {
            // The function the block was entered at returns to its caller, outside the
            // block, when a0's increment is the call's: a jump there in the caller's window,
            // which compiled code never moved.
            let n = self.b.ins().ushr_imm_u(a0, 30);
            let hit = self.b.ins().icmp_imm_u(IntCC::Equal, n, i64::from(inc));
            self.return_if(hit, caller, |t| {
                let here = t.code(pc);
                let ret = t.return_target(here, a0);
                t.exit(ret, EXIT_CONTINUE);
            });
        }
        for c in self.spec.returns(self.index) {
            let value = self.return_address(c.inc, c.ret);
            let hit = self.b.ins().icmp(IntCC::Equal, a0, value);
            self.return_if(hit, caller, |t| t.go_to(c.ret));
        }
        let here = self.code(pc);
        self.exit(here, EXIT_INTERPRET);
    }

    /// When `hit` holds, a followed callee's RETW completes into the `caller`'s frames and
    /// `go` takes control on from there (the interpreter's RETW forgets the pending results:
    /// they name the old window); else goes on.
    fn return_if(&mut self, hit: Value, caller: u16, go: impl FnOnce(&mut Self)) {
        let back = self.b.create_block();
        let on = self.b.create_block();
        self.b.ins().brif(hit, back, &[], on, &[]);
        self.b.switch_to_block(back);
        let saved = (self.pending, self.at, self.frames);
        self.pending = [None, None];
        self.frames = caller;
        self.complete_taken();
        go(self);
        (self.pending, self.at, self.frames) = saved;
        self.b.switch_to_block(on);
    }

    /// The address a RETW at `here` returns to with `a0`: its low 30 bits, and `here`'s top
    /// two.
    fn return_target(&mut self, here: Value, a0: Value) -> Value {
        let high = self.b.ins().band_imm_u(here, 0xc000_0000u32 as i64);
        let low = self.b.ins().band_imm_u(a0, 0x3fff_ffff);
        self.b.ins().bor(high, low)
    }

    /// A taken transfer's completion: issue and taken-branch cycles, one instruction.
    fn complete_taken(&mut self) {
        let t = &self.spec.timing;
        let (issue, tb) = (u64::from(t.issue), u64::from(t.taken_branch));
        self.add_imm(self.cycles, issue + tb);
        self.add_imm(self.counts, tb << 32);
        self.add_imm(self.counts, 1);
    }

    /// A fall-through completion at `next`: the issue cycle, one instruction, and the
    /// zero-overhead loop-back when `next` is the LEND the block was compiled for.
    fn complete(&mut self, next: u32) {
        self.add_imm(self.cycles, u64::from(self.spec.timing.issue));
        self.add_imm(self.counts, 1);
        // After a store into code the rest of the block may be stale: leave once the
        // instruction is complete (its loop-back decided).
        let changed = self.code_changed.take();
        if self.spec.key.lend != Some(next) {
            if let Some(c) = changed {
                let n = self.code(next);
                self.exit_if(c, n, EXIT_CONTINUE);
            }
        } else {
            // LCOUNT ≠ 0 and PS.EXCM clear: count down and go to LBEG.
            let lcount = self.load_sr(sr::LCOUNT);
            let psv = self.load_sr(sr::PS);
            let excm = self.b.ins().band_imm_u(psv, i64::from(ps::EXCM));
            let zero = self.imm(0);
            let counting = self.b.ins().icmp(IntCC::NotEqual, lcount, zero);
            let user = self.b.ins().icmp(IntCC::Equal, excm, zero);
            let back = self.b.ins().band(counting, user);
            let go = self.b.create_block();
            let on = self.b.create_block();
            self.b.ins().brif(back, go, &[], on, &[]);
            self.b.switch_to_block(go);
            let l = self.b.ins().iadd_imm_s(lcount, -1);
            self.store_sr(sr::LCOUNT, l);
            let lb = u64::from(self.spec.timing.loop_back);
            self.add_imm(self.cycles, lb);
            self.add_imm(self.counts, lb << 32);
            let lbeg = self.load_sr(sr::LBEG);
            if let Some(c) = changed {
                self.exit_if(c, lbeg, EXIT_CONTINUE);
            }
            let start = self.code(self.spec.start);
            let home = self.b.ins().icmp(IntCC::Equal, lbeg, start);
            let saved = (self.pending, self.at);
            self.exit_if_not(home, lbeg);
            self.back_edge();
            (self.pending, self.at) = saved;
            self.b.switch_to_block(on);
            if let Some(c) = changed {
                let n = self.code(next);
                self.exit_if(c, n, EXIT_CONTINUE);
            }
        }
    }

    /// Leaves for `pc` unless `cond` holds.
    fn exit_if_not(&mut self, cond: Value, pc: Value) {
        let out = self.b.create_block();
        let on = self.b.create_block();
        self.b.set_cold_block(out);
        self.b.ins().brif(cond, on, &[], out, &[]);
        self.b.switch_to_block(out);
        self.exit(pc, EXIT_CONTINUE);
        self.b.switch_to_block(on);
    }

    /// Control to the fixed address `target`: on inside the block when it is the start or a
    /// label ([`Tr::join`]), else out.
    fn go_to(&mut self, target: u32) {
        let from = self.spec.ops[self.index].0;
        let at = self
            .spec
            .index(target)
            .filter(|&j| self.labels[j].is_some())
            // Code of this window; a callee's ENTRY only from its calls.
            .filter(|&j| self.spec.arrival(j) == self.frames)
            .filter(|&j| {
                self.spec.callee_entry(j).is_none()
                    || self.spec.call_at(from).is_some_and(|c| c.entry == target)
            });
        match at {
            Some(j) => self.join(j),
            None => {
                let t = self.code(target);
                self.exit(t, EXIT_CONTINUE);
            }
        }
    }

    /// Back to the block's start (a zero-overhead loop-back to it); out when the start is a
    /// leading ENTRY.
    fn back_edge(&mut self) {
        let e = self.spec.entry();
        if self.labels[e].is_some() {
            self.join(e);
        } else {
            let s = self.code(self.spec.start);
            self.exit(s, EXIT_CONTINUE);
        }
    }

    /// On to label `j` (or the start) inside the block, when the pending state here
    /// fits the one the code there is compiled for: the first jump to a label fixes that
    /// state; a later one must hold the same results (a slot compiled empty must hold nothing
    /// that can still stall; one compiled pending may hold nothing that can stall, and is
    /// entered as ready). A jump back (to an instruction at or before this one) starts a new
    /// pass, so it goes on only when one more pass cannot reach the next look. Otherwise the
    /// block leaves for the label's address.
    fn join(&mut self, j: usize) {
        let label = self.labels[j].expect("a label");
        let target = self.spec.ops[j].0;
        let back = j <= self.index;
        let s = self.code(target);
        self.prune();
        debug_assert!(self.regs_loaded, "jumps inside a block keep its registers");
        let key = match label.pending {
            Some(k) => k,
            // Back to code not compiled (a call's target no jump reaches): out.
            None if back => {
                self.exit(s, EXIT_CONTINUE);
                return;
            }
            None => {
                self.labels[j] = Some(Label {
                    pending: Some(self.pending),
                    ..label
                });
                self.pending
            }
        };
        let mut ok = None;
        // Slots compiled as pending that hold nothing that can stall here: entered as ready.
        let mut past = [false; 2];
        for (i, slot) in key.iter().enumerate() {
            match (*slot, self.pending[i]) {
                (None, None) => {}
                (Some(k), Some(p)) if k == p => {}
                (Some(_), None) => past[i] = true,
                (None, Some(_)) if self.at.lead(i).is_none() => {
                    // Droppable only when it can no longer stall.
                    let now = self.counter(self.cycles);
                    let r = self.ready_value(i);
                    let past = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, r, now);
                    ok = Some(match ok {
                        None => past,
                        Some(o) => self.b.ins().band(o, past),
                    });
                }
                _ => {
                    self.exit(s, EXIT_CONTINUE);
                    return;
                }
            }
        }
        if back || self.spec.passes_at(self.index, target) {
            let now = self.counter(self.cycles);
            let reach = self.b.ins().iadd_imm_s(now, self.passes[j] as i64);
            let poll = self.ctx_load(types::I64, off::POLL);
            let fits = self.b.ins().icmp(IntCC::UnsignedLessThan, reach, poll);
            ok = Some(match ok {
                None => fits,
                Some(o) => self.b.ins().band(o, fits),
            });
        }
        if let Some(ok) = ok {
            self.exit_if_not(ok, s);
        }
        if back && !self.loop_heads.contains(&label.block) {
            self.loop_heads.push(label.block);
        }
        // The label reads the ready cycles of the slots it was compiled with from their
        // variables.
        for (i, slot) in key.iter().enumerate() {
            if past[i] {
                let zero = self.b.ins().iconst(types::I64, 0);
                self.b.def_var(self.ready[i], zero);
            } else if slot.is_some() {
                self.ready_to_var(i);
            }
        }
        self.b.ins().jump(label.block, &[]);
    }

    /// The instruction's effect; how control goes on.
    fn insn(&mut self, pc: u32, op: &Op, next: u32) -> Flow {
        let o = op.insn.operands;
        let opcode = op.insn.opcode;
        use Opcode::*;
        macro_rules! bin {
            ($f:ident) => {{
                let (x, y) = (self.a(o[1]), self.a(o[2]));
                let v = self.b.ins().$f(x, y);
                self.set(o[0], v);
            }};
        }
        macro_rules! scaled {
            ($sh:expr, $f:ident) => {{
                let (x, y) = (self.a(o[1]), self.a(o[2]));
                let x = self.b.ins().ishl_imm_u(x, $sh);
                let v = self.b.ins().$f(x, y);
                self.set(o[0], v);
            }};
        }
        macro_rules! cmov {
            ($cc:expr) => {{
                let (x, c, old) = (self.a(o[1]), self.a(o[2]), self.a(o[0]));
                let t = self.b.ins().icmp_imm_s($cc, c, 0);
                let v = self.b.ins().select(t, x, old);
                self.set(o[0], v);
            }};
        }
        match opcode {
            Add | AddN => bin!(iadd),
            Addx2 => scaled!(1, iadd),
            Addx4 => scaled!(2, iadd),
            Addx8 => scaled!(3, iadd),
            Sub => bin!(isub),
            Subx2 => scaled!(1, isub),
            Subx4 => scaled!(2, isub),
            Subx8 => scaled!(3, isub),
            And => bin!(band),
            Or => bin!(bor),
            Xor => bin!(bxor),
            Min => bin!(smin),
            Max => bin!(smax),
            Minu => bin!(umin),
            Maxu => bin!(umax),
            Neg => {
                let x = self.a(o[1]);
                let v = self.b.ins().ineg(x);
                self.set(o[0], v);
            }
            Abs => {
                let x = self.a(o[1]);
                let v = self.b.ins().iabs(x);
                self.set(o[0], v);
            }
            Addi | Addmi | AddiN => {
                let x = self.a(o[1]);
                let v = self.b.ins().iadd_imm_s(x, i64::from(o[2] as i32));
                self.set(o[0], v);
            }
            Movi | MoviN => {
                let v = self.imm(o[1]);
                self.set(o[0], v);
            }
            MovN => {
                let x = self.a(o[1]);
                self.set(o[0], x);
            }
            Moveqz => cmov!(IntCC::Equal),
            Movnez => cmov!(IntCC::NotEqual),
            Movltz => cmov!(IntCC::SignedLessThan),
            Movgez => cmov!(IntCC::SignedGreaterThanOrEqual),
            Salt | Saltu => {
                let (x, y) = (self.a(o[1]), self.a(o[2]));
                let cc = if opcode == Salt {
                    IntCC::SignedLessThan
                } else {
                    IntCC::UnsignedLessThan
                };
                let c = self.b.ins().icmp(cc, x, y);
                let v = self.b.ins().uextend(types::I32, c);
                self.set(o[0], v);
            }
            Const16 => {
                let x = self.a(o[0]);
                let x = self.b.ins().ishl_imm_u(x, 16);
                let v = self.b.ins().bor_imm_u(x, i64::from(o[1]));
                self.set(o[0], v);
            }
            Nop | NopN | Memw | Extw | Isync | Rsync | Esync | Dsync => {}
            Extui => {
                let x = self.a(o[1]);
                let x = self.b.ins().ushr_imm_u(x, i64::from(o[2]));
                let mask = if o[3] >= 32 {
                    u32::MAX
                } else {
                    (1u32 << o[3]) - 1
                };
                let v = self.b.ins().band_imm_u(x, i64::from(mask));
                self.set(o[0], v);
            }
            Slli => {
                let x = self.a(o[1]);
                let v = self.b.ins().ishl_imm_u(x, i64::from(o[2] & 31));
                self.set(o[0], v);
            }
            Srli => {
                let x = self.a(o[1]);
                let v = self.b.ins().ushr_imm_u(x, i64::from(o[2]));
                self.set(o[0], v);
            }
            Srai => {
                let x = self.a(o[1]);
                let v = self.b.ins().sshr_imm_u(x, i64::from(o[2]));
                self.set(o[0], v);
            }
            Sll | Srl | Sra => {
                let x = self.a(o[1]);
                let sar = self.load_sr(sr::SAR);
                let sar = self.b.ins().uextend(types::I64, sar);
                let v = match opcode {
                    Sll => {
                        let thirty_two = self.b.ins().iconst(types::I64, 32);
                        let sa = self.b.ins().isub(thirty_two, sar);
                        let sa = self.b.ins().band_imm_u(sa, 0x3f);
                        let x = self.b.ins().uextend(types::I64, x);
                        self.b.ins().ishl(x, sa)
                    }
                    Srl => {
                        let x = self.b.ins().uextend(types::I64, x);
                        self.b.ins().ushr(x, sar)
                    }
                    _ => {
                        let x = self.b.ins().sextend(types::I64, x);
                        self.b.ins().sshr(x, sar)
                    }
                };
                let v = self.b.ins().ireduce(types::I32, v);
                self.set(o[0], v);
            }
            Src => {
                let (x, y) = (self.a(o[1]), self.a(o[2]));
                let sar = self.load_sr(sr::SAR);
                let sar = self.b.ins().uextend(types::I64, sar);
                let hi = self.b.ins().uextend(types::I64, x);
                let hi = self.b.ins().ishl_imm_u(hi, 32);
                let lo = self.b.ins().uextend(types::I64, y);
                let v = self.b.ins().bor(hi, lo);
                let v = self.b.ins().ushr(v, sar);
                let v = self.b.ins().ireduce(types::I32, v);
                self.set(o[0], v);
            }
            Ssr | Ssl | Ssa8l | Ssa8b => {
                let x = self.a(o[0]);
                let v = match opcode {
                    Ssr => self.b.ins().band_imm_u(x, 31),
                    Ssl => {
                        let m = self.b.ins().band_imm_u(x, 31);
                        let k = self.imm(32);
                        self.b.ins().isub(k, m)
                    }
                    Ssa8l => {
                        let m = self.b.ins().band_imm_u(x, 3);
                        self.b.ins().ishl_imm_u(m, 3)
                    }
                    _ => {
                        let m = self.b.ins().band_imm_u(x, 3);
                        let m = self.b.ins().ishl_imm_u(m, 3);
                        let k = self.imm(32);
                        self.b.ins().isub(k, m)
                    }
                };
                self.store_sr(sr::SAR, v);
            }
            Ssai => {
                let v = self.imm(o[0]);
                self.store_sr(sr::SAR, v);
            }
            Mul16u | Mul16s | Mull | Muluh | Mulsh => {
                let (x, y) = (self.a(o[1]), self.a(o[2]));
                let v = match opcode {
                    Mul16u => {
                        let x = self.b.ins().band_imm_u(x, 0xffff);
                        let y = self.b.ins().band_imm_u(y, 0xffff);
                        self.b.ins().imul(x, y)
                    }
                    Mul16s => {
                        let x = self.b.ins().ireduce(types::I16, x);
                        let x = self.b.ins().sextend(types::I32, x);
                        let y = self.b.ins().ireduce(types::I16, y);
                        let y = self.b.ins().sextend(types::I32, y);
                        self.b.ins().imul(x, y)
                    }
                    Mull => self.b.ins().imul(x, y),
                    Muluh => self.b.ins().umulhi(x, y),
                    _ => self.b.ins().smulhi(x, y),
                };
                self.set(o[0], v);
                self.late_result(opcode, o[0]);
            }
            Quos | Quou | Rems | Remu => {
                // The interpreter's `divide`: by zero it raises, so the block leaves before
                // the instruction; the divider blocks the pipeline for its latency.
                let (x, y) = (self.a(o[1]), self.a(o[2]));
                let by_zero = self.b.ins().icmp_imm_u(IntCC::Equal, y, 0);
                let here = self.code(pc);
                self.exit_if(by_zero, here, EXIT_INTERPRET);
                let v = match opcode {
                    Quou => self.b.ins().udiv(x, y),
                    Remu => self.b.ins().urem(x, y),
                    _ => {
                        // i32::MIN / -1 wraps (the host's divide would trap): -x, remainder 0.
                        let minus_one = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
                        let one = self.imm(1);
                        let safe = self.b.ins().select(minus_one, one, y);
                        if opcode == Quos {
                            let q = self.b.ins().sdiv(x, safe);
                            let neg = self.b.ins().ineg(x);
                            self.b.ins().select(minus_one, neg, q)
                        } else {
                            let r = self.b.ins().srem(x, safe);
                            let zero = self.imm(0);
                            self.b.ins().select(minus_one, zero, r)
                        }
                    }
                };
                self.set(o[0], v);
                let extra = u64::from(self.spec.timing.divide_block());
                self.add_imm(self.cycles, extra);
                self.add_imm(self.divide, extra);
            }
            Nsa => {
                let x = self.a(o[1]);
                let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
                let inv = self.b.ins().bnot(x);
                let y = self.b.ins().select(neg, inv, x);
                let n = self.b.ins().clz(y);
                let v = self.b.ins().iadd_imm_s(n, -1);
                self.set(o[0], v);
            }
            Nsau => {
                let x = self.a(o[1]);
                let v = self.b.ins().clz(x);
                self.set(o[0], v);
            }
            Sext => {
                let sh = i64::from(31 - o[2]);
                let x = self.a(o[1]);
                let x = self.b.ins().ishl_imm_u(x, sh);
                let v = self.b.ins().sshr_imm_u(x, sh);
                self.set(o[0], v);
            }
            Clamps => {
                let x = self.a(o[1]);
                let hi = (1i32 << o[2]) - 1;
                let lo = -(1i32 << o[2]);
                let hi = self.b.ins().iconst(types::I32, i64::from(hi as u32));
                let lo = self.b.ins().iconst(types::I32, i64::from(lo as u32));
                let v = self.b.ins().smin(x, hi);
                let v = self.b.ins().smax(v, lo);
                self.set(o[0], v);
            }

            L8ui | L16ui | L16si | L32i | L32iN | L32ai | L32e => {
                let size = match opcode {
                    L8ui => 1,
                    L16ui | L16si => 2,
                    _ => 4,
                };
                let x = self.a(o[1]);
                let addr = self.b.ins().iadd_imm_s(x, i64::from(o[2] as i32));
                let site = self.spec.site(&self.known, self.rot() + o[1], o[2], size);
                let mut v = match self.frame_host(pc, o[2]) {
                    Some(host) => self.host_load(host, size),
                    None => self.load(addr, size, pc, site, o[1] == 1, None),
                };
                if opcode == L16si {
                    let h = self.b.ins().ireduce(types::I16, v);
                    v = self.b.ins().sextend(types::I32, h);
                }
                self.set(o[0], v);
                self.late_result(opcode, o[0]);
            }
            L32r => {
                // The literal's address as LITBASE was when compiled (a fixed address, so the
                // memory's checks fold away); another LITBASE is the interpreter's.
                let litbase = self.load_sr(sr::LITBASE);
                let moved =
                    self.b
                        .ins()
                        .icmp_imm_u(IntCC::NotEqual, litbase, i64::from(self.spec.litbase));
                let here = self.code(pc);
                self.exit_if(moved, here, EXIT_INTERPRET);
                let at = q7_isa::sreg::litbase::literal_address(self.spec.litbase, pc, o[1]);
                let site = self.spec.class_of(at, 4);
                let v = match self.spec.literal(at).filter(|_| site == Site::Window) {
                    Some(value) => self.literal(at, value),
                    None => {
                        let addr = self.code(at);
                        self.load(addr, 4, pc, site, true, Some(at))
                    }
                };
                self.set(o[0], v);
                self.late_result(opcode, o[0]);
            }
            S8i | S16i | S32i | S32iN | S32ri | S32nb | S32e => {
                let size = match opcode {
                    S8i => 1,
                    S16i => 2,
                    _ => 4,
                };
                let x = self.a(o[1]);
                let addr = self.b.ins().iadd_imm_s(x, i64::from(o[2] as i32));
                let v = self.a(o[0]);
                let site = self.spec.site(&self.known, self.rot() + o[1], o[2], size);
                match self.frame_host(pc, o[2]) {
                    Some(host) => self.host_write(host, size, v),
                    None => self.store(addr, size, v, pc, site, o[1] == 1),
                }
            }

            Beq | Bne | Blt | Bge | Bltu | Bgeu | Bany | Bnone | Ball | Bnall | Bbc | Bbs => {
                let (x, y) = (self.a(o[0]), self.a(o[1]));
                let c = match opcode {
                    Beq => self.b.ins().icmp(IntCC::Equal, x, y),
                    Bne => self.b.ins().icmp(IntCC::NotEqual, x, y),
                    Blt => self.b.ins().icmp(IntCC::SignedLessThan, x, y),
                    Bge => self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, x, y),
                    Bltu => self.b.ins().icmp(IntCC::UnsignedLessThan, x, y),
                    Bgeu => self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, x, y),
                    Bany | Bnone => {
                        let m = self.b.ins().band(x, y);
                        let cc = if opcode == Bany {
                            IntCC::NotEqual
                        } else {
                            IntCC::Equal
                        };
                        self.b.ins().icmp_imm_s(cc, m, 0)
                    }
                    Ball | Bnall => {
                        let nx = self.b.ins().bnot(x);
                        let m = self.b.ins().band(nx, y);
                        let cc = if opcode == Ball {
                            IntCC::Equal
                        } else {
                            IntCC::NotEqual
                        };
                        self.b.ins().icmp_imm_s(cc, m, 0)
                    }
                    _ => {
                        let sh = self.b.ins().band_imm_u(y, 31);
                        let bit = self.b.ins().ushr(x, sh);
                        let bit = self.b.ins().band_imm_u(bit, 1);
                        let cc = if opcode == Bbs {
                            IntCC::NotEqual
                        } else {
                            IntCC::Equal
                        };
                        self.b.ins().icmp_imm_s(cc, bit, 0)
                    }
                };
                return Flow::Cond(c, o[2]);
            }
            Bbci | Bbsi => {
                let x = self.a(o[0]);
                let bit = self.b.ins().ushr_imm_u(x, i64::from(o[1]));
                let bit = self.b.ins().band_imm_u(bit, 1);
                let cc = if opcode == Bbsi {
                    IntCC::NotEqual
                } else {
                    IntCC::Equal
                };
                let c = self.b.ins().icmp_imm_s(cc, bit, 0);
                return Flow::Cond(c, o[2]);
            }
            Beqi | Bnei | Blti | Bgei | Bltui | Bgeui => {
                let x = self.a(o[0]);
                let cc = match opcode {
                    Beqi => IntCC::Equal,
                    Bnei => IntCC::NotEqual,
                    Blti => IntCC::SignedLessThan,
                    Bgei => IntCC::SignedGreaterThanOrEqual,
                    Bltui => IntCC::UnsignedLessThan,
                    _ => IntCC::UnsignedGreaterThanOrEqual,
                };
                let c = self.b.ins().icmp_imm_s(cc, x, i64::from(o[1] as i32));
                return Flow::Cond(c, o[2]);
            }
            Beqz | BeqzN | Bnez | BnezN | Bltz | Bgez => {
                let x = self.a(o[0]);
                let cc = match opcode {
                    Beqz | BeqzN => IntCC::Equal,
                    Bnez | BnezN => IntCC::NotEqual,
                    Bltz => IntCC::SignedLessThan,
                    _ => IntCC::SignedGreaterThanOrEqual,
                };
                let c = self.b.ins().icmp_imm_s(cc, x, 0);
                return Flow::Cond(c, o[1]);
            }
            Bf | Bt => {
                let br = self.load_sr(sr::BR);
                let bit = self.b.ins().ushr_imm_u(br, i64::from(o[0]));
                let bit = self.b.ins().band_imm_u(bit, 1);
                let cc = if opcode == Bt {
                    IntCC::NotEqual
                } else {
                    IntCC::Equal
                };
                let c = self.b.ins().icmp_imm_s(cc, bit, 0);
                return Flow::Cond(c, o[1]);
            }
            J => return Flow::To(o[0]),
            Jx => return Flow::Dynamic(self.a(o[0])),
            Call0 => {
                let n = self.code(next);
                self.set(0, n);
                return Flow::To(o[0]);
            }
            Callx0 => {
                let t = self.a(o[0]);
                let n = self.code(next);
                self.set(0, n);
                return Flow::Dynamic(t);
            }
            Ret | RetN => return Flow::Dynamic(self.a(0)),
            Call4 | Call8 | Call12 | Callx4 | Callx8 | Callx12 => {
                let n = call_increment(opcode).expect("a windowed call");
                let t = matches!(opcode, Callx4 | Callx8 | Callx12).then(|| self.a(o[0]));
                let follow = self.spec.call_at(pc).copied();
                if let (Some(c), Some(t)) = (follow, t) {
                    // The callee followed is the one the register held when the block was
                    // compiled: for another, the interpreter's call.
                    let entry = self.code(c.entry);
                    let other = self.b.ins().icmp(IntCC::NotEqual, t, entry);
                    let here = self.code(pc);
                    self.exit_if(other, here, EXIT_INTERPRET);
                }
                let psv = self.load_sr(sr::PS);
                let psv = self.b.ins().band_imm_u(psv, i64::from(!ps::CALLINC));
                let psv = self
                    .b
                    .ins()
                    .bor_imm_u(psv, i64::from(n << ps::CALLINC_SHIFT));
                self.store_sr(sr::PS, psv);
                let ret = self.return_address(n, next);
                self.set(n * 4, ret);
                return match (follow, t) {
                    (Some(c), _) => Flow::To(c.entry),
                    (None, Some(t)) => Flow::Dynamic(t),
                    (None, None) => Flow::To(o[0]),
                };
            }
            Rfwo | Rfwu => {
                // Moves the window back and clears PS.EXCM; raises nothing.
                let overflow = self.imm(u32::from(opcode == Rfwo));
                let answer = self.window_return(self.spec.helpers.rfw, overflow, pc);
                self.charge_latency(answer);
                return Flow::Dynamic(self.b.ins().ireduce(types::I32, answer));
            }
            Retw | RetwN if self.frames != 1 => {
                self.return_from_callee(pc);
                return Flow::Gone;
            }
            Entry => {
                let inc = self
                    .spec
                    .callee_entry(self.index)
                    .expect("a followed callee's ENTRY");
                self.enter_callee(pc, op, inc);
            }
            Retw | RetwN => {
                // Reads a0 and rotates the window back: in line when it returns to a live
                // frame as the interpreter's would, else by the helper.
                let here = self.code(pc);
                self.store_registers();
                self.regs_loaded = false;
                let slow = self.b.create_block();
                let done = self.b.create_block();
                self.b.append_block_param(done, types::I32);
                self.b.set_cold_block(slow);
                if self.spec.groups >= 4 {
                    // a0 as the core holds it now (the block need not name it).
                    let window = self.window();
                    let at = self.reg_address(window, 0);
                    let a0 = self.b.ins().load(types::I32, flags(), at, 0);
                    let ret = self.retw_in_line(a0, here, slow);
                    self.b.ins().jump(done, &[ret.into()]);
                } else {
                    self.b.ins().jump(slow, &[]);
                }
                self.b.switch_to_block(slow);
                let answer = self.window_return(self.spec.helpers.retw, here, pc);
                self.trap_if(answer);
                let ret = self.b.ins().ireduce(types::I32, answer);
                self.b.ins().jump(done, &[ret.into()]);
                self.b.switch_to_block(done);
                self.pending = [None, None];
                return Flow::Dynamic(self.b.block_params(done)[0]);
            }
            Loop | Loopnez | Loopgtz => {
                let count = self.a(o[0]);
                let c1 = self.b.ins().iadd_imm_s(count, -1);
                self.store_sr(sr::LCOUNT, c1);
                let n = self.code(next);
                self.store_sr(sr::LBEG, n);
                let e = self.code(o[1]);
                self.store_sr(sr::LEND, e);
                let skip = match opcode {
                    Loopnez => self.b.ins().icmp_imm_s(IntCC::Equal, count, 0),
                    Loopgtz => self
                        .b
                        .ins()
                        .icmp_imm_s(IntCC::SignedLessThanOrEqual, count, 0),
                    _ => self.b.ins().iconst(types::I8, 0),
                };
                return Flow::Skip(skip, o[1]);
            }
            _ => unreachable!("{} is not compiled", opcode.mnemonic()),
        }
        Flow::Next
    }
}

/// How control leaves an instruction.
enum Flow {
    /// On to the next.
    Next,
    /// To the fixed target when the condition holds, else on.
    Cond(Value, u32),
    /// To the fixed target.
    To(u32),
    /// To a computed target.
    Dynamic(Value),
    /// LOOP*: to the fixed target (past the loop) when the condition holds, else on; either
    /// way the block ends (LEND changed).
    Skip(Value, u32),
    /// Control has gone on (inside the block or out) and cycles are charged: a followed
    /// callee's RETW.
    Gone,
}

/// The logical registers `op` reads and writes, as masks.
pub(crate) fn registers(op: &Op) -> (u16, u16) {
    use Opcode::*;
    let o = op.insn.operands;
    let reads = op.src_mask;
    let writes: u16 = match op.insn.opcode {
        // Stores, branches, SAR setters, barriers and LOOP write no AR.
        S8i | S16i | S32i | S32iN | S32ri | S32nb | S32e | Ssr | Ssl | Ssa8l | Ssa8b | Ssai
        | Nop | NopN | Memw | Extw | Isync | Rsync | Esync | Dsync | J | Jx | Ret | RetN | Loop
        | Loopnez | Loopgtz => 0,
        Call0 | Callx0 => 1,
        Call4 | Callx4 => 1 << 4,
        Call8 | Callx8 => 1 << 8,
        Call12 | Callx12 => 1 << 12,
        // ENTRY, RETW, RFWO and RFWU are the helpers' (their registers are the core's then).
        Entry | Retw | RetwN | Rfwo | Rfwu => 0,
        op if op.family() == Family::Branch => 0,
        _ => 1 << o[0],
    };
    // Conditional moves and CONST16 read their destination too.
    let reads = match op.insn.opcode {
        Moveqz | Movnez | Movltz | Movgez | Const16 => reads | 1 << o[0],
        Ret | RetN => reads | 1,
        Entry | Retw | RetwN | Rfwo | Rfwu => 0,
        _ => reads,
    };
    (reads, writes)
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::{types, Function, InstBuilder, MemFlagsData as MemFlags, Value};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
    use cranelift_module::Module;

    /// A finished block function named `name`: `body` fills its entry block, given the
    /// builder and the context parameter, and ends it.
    fn block_fn(name: u32, body: impl FnOnce(&mut FunctionBuilder, Value)) -> Function {
        let mut func = Function::with_name_signature(
            cranelift_codegen::ir::UserFuncName::user(0, name),
            super::block_signature(types::I64),
        );
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let ctx = b.block_params(entry)[0];
        body(&mut b, ctx);
        b.seal_all_blocks();
        let module = crate::jit::new_module().expect("a JIT module");
        b.finalize(module.target_config());
        func
    }

    /// A function storing `k` at offset `at` of its parameter, named `name`.
    fn store_of(name: u32, k: i64, at: i32, cold_exit: bool) -> Function {
        block_fn(name, |b, ctx| {
            let out = b.create_block();
            let v = b.ins().iconst(types::I32, k);
            b.ins().store(MemFlags::trusted(), v, ctx, at);
            b.ins().jump(out, &[]);
            if cold_exit {
                b.set_cold_block(out);
            }
            b.switch_to_block(out);
            let code = b.ins().iconst(types::I32, 0);
            b.ins().return_(&[code]);
        })
    }

    /// docs/jit.md "Code shared by cores": the same IR under another name is shared; an
    /// immediate, an offset or a block's coldness (which moves code) makes other IR.
    #[test]
    fn a_fingerprint_is_the_ir_but_its_name() {
        let f = |name, k, at, cold| super::fingerprint_of(&mut store_of(name, k, at, cold));
        assert_eq!(f(1, 7, 8, false), f(2, 7, 8, false));
        // A buffer kept from another block's IR is emptied first.
        let mut kept = f(1, 6, 12, true);
        super::fingerprint(&mut store_of(1, 7, 8, false), &mut kept);
        assert_eq!(kept, f(1, 7, 8, false));
        assert_ne!(f(1, 7, 8, false), f(1, 6, 8, false));
        assert_ne!(f(1, 7, 8, false), f(1, 7, 12, false));
        assert_ne!(f(1, 7, 8, false), f(1, 7, 8, true));
    }

    /// The opcodes of `func`'s instructions in layout order.
    fn opcodes(func: &Function) -> Vec<String> {
        let layout = &func.layout;
        layout
            .blocks()
            .flat_map(|b| layout.block_insts(b))
            .map(|i| func.dfg.insts[i].opcode().to_string())
            .collect()
    }

    /// A load nobody uses goes, and with it the load of its address that only it used; a
    /// load whose value is stored, one whose address another live load shares, and a load
    /// that may trap stay.
    #[test]
    fn unused_loads_go_and_release_the_loads_of_their_addresses() {
        let mut func = block_fn(0, |b, ctx| {
            let f = MemFlags::trusted();
            // Dropped: a chain of two loads whose end nobody uses.
            let p = b.ins().load(types::I64, f, ctx, 8);
            let _unused = b.ins().load(types::I32, f, p, 0);
            // Kept: a pointer two loads share, one of them used; a load that may trap.
            let q = b.ins().load(types::I64, f, ctx, 16);
            let _also_unused = b.ins().load(types::I32, f, q, 4);
            let used = b.ins().load(types::I32, f, q, 0);
            b.ins().store(f, used, ctx, 24);
            let _may_trap = b.ins().load(types::I32, MemFlags::new(), ctx, 32);
            let code = b.ins().iconst(types::I32, 0);
            b.ins().return_(&[code]);
        });
        assert_eq!(
            opcodes(&func),
            ["load", "load", "load", "load", "load", "store", "load", "iconst", "return"]
        );
        super::drop_unused_loads(&mut func);
        assert_eq!(
            opcodes(&func),
            ["load", "load", "store", "load", "iconst", "return"]
        );
    }

    /// Two functions alike but for the flags of their one load (readonly or not): the
    /// load names its flags by index into the function's table, the same index in both, so
    /// only the table tells them apart.
    #[test]
    fn a_fingerprint_tells_memory_flags_apart() {
        let with = |flags: MemFlags| {
            let mut func = block_fn(0, |b, ctx| {
                let v = b.ins().load(types::I32, flags, ctx, 8);
                b.ins().return_(&[v]);
            });
            super::fingerprint_of(&mut func)
        };
        let plain = MemFlags::trusted();
        assert_eq!(with(plain), with(plain));
        assert_ne!(with(plain), with(plain.with_readonly()));
    }

    /// A branch to a block that was never placed (Cranelift, its verifier off, aborts on it)
    /// makes the IR one not to compile.
    #[test]
    fn ir_branching_to_a_block_never_placed_is_not_compiled() {
        let mut func = store_of(1, 7, 8, false);
        assert!(super::branches_land(&func));
        let entry = func.layout.entry_block().expect("an entry");
        let jump = func.layout.last_inst(entry).expect("its jump");
        let nowhere = func.dfg.make_block();
        func.layout.remove_inst(jump);
        use cranelift_codegen::cursor::{Cursor, FuncCursor};
        FuncCursor::new(&mut func)
            .at_bottom(entry)
            .ins()
            .jump(nowhere, &[]);
        assert!(!super::branches_land(&func));
    }
}
