//! The core's side of tier 2 (docs/jit.md): entering compiled blocks from the run loop, the
//! blocks' guards, compiling hot code, and the helpers compiled code calls for memory and the
//! I-cache. Only plain runs (no enabled tracer) use it; the interpreter stays the reference.

use super::{Core, Pending, StallKind};
use crate::bus::Bus;
use crate::bus::DataLatency;
use crate::jit::translate::{self, depth, Helpers, Inline, Spec, CODE_CHANGED, NOT_DONE, TRAPPED};
use crate::jit::{Ctx, Key, Waits, EXIT_INTERPRET, MAX_BLOCK, MAX_FOLLOWED};
use crate::predecode::DecodedOps;
use q7_isa::sreg::{ps, sr};
use q7_isa::Opcode;

/// What the run loop does next after asking tier 2.
pub(super) enum Tier2 {
    /// A block ran: go on at this PC; `true` when the interpreter must execute the
    /// instruction there first.
    Ran(u32, bool),
    /// No block ran: interpret the instruction at the PC.
    Interpret,
    /// A block fits here but could reach the next look, which only looks at the stop request
    /// (the stack unwatched, the deadline later): look now, then run it (docs/jit.md "Exact
    /// stops").
    LookNow,
}

/// A region's walk ([`Core::walk`]): its instructions in address order with the frames each
/// runs in, the calls it follows, the LEND it is compiled for, and whether its size bound
/// cut it short.
struct Walk {
    list: Vec<(u32, crate::predecode::Op, u16)>,
    calls: Vec<Inline>,
    lend_at: Option<u32>,
    cut: bool,
}

impl Walk {
    /// Whether every windowed call and return of the region stays in it: each call is
    /// followed, and no zero-overhead loop (whose loop-back a callee leaves for the
    /// interpreter) is begun. A block entered as a call ([`Spec::entered`]) is compiled so
    /// only then: leaving it inside the function costs a helper that makes its frame live.
    fn follows_every_call(&self) -> bool {
        self.list.iter().all(|&(at, op, _)| {
            let call = translate::call_increment(op.insn.opcode).is_some();
            !begins_loop(op.insn.opcode) && (!call || self.calls.iter().any(|c| c.call == at))
        })
    }
}

impl<B: Bus> Core<B> {
    /// Whether tier 2 is on for this core (docs/jit.md "Switch").
    pub fn jit_enabled(&self) -> bool {
        self.jit.is_some()
    }

    /// Turns tier 2 on (with an empty code cache) or off.
    pub fn set_jit(&mut self, on: bool) {
        match (on, self.jit.is_some()) {
            (true, false) => self.jit = Some(Box::default()),
            (false, true) => self.jit = None,
            _ => {}
        }
    }

    /// Shares compiled host code with the other cores of a cluster of `cores` through
    /// `shared`, when tier 2 is on, and counts arrivals against them all once the run is long
    /// ([`crate::jit::LONG_RUN`]; docs/jit.md "Code shared by cores").
    pub fn share_jit_code(
        &mut self,
        shared: &std::sync::Arc<crate::jit::SharedCode>,
        cores: usize,
    ) {
        if let Some(j) = &mut self.jit {
            j.share(shared.clone(), cores);
        }
    }

    /// What tier 2 did on this core so far (zeros when it is off).
    pub fn jit_stats(&self) -> crate::jit::JitStats {
        self.jit.as_ref().map(|j| j.stats).unwrap_or_default()
    }

    /// Sets the arrivals at an address after which a block is compiled there (at least 1;
    /// [`crate::jit::TIER_UP`] by default): tests compile early to test compiled code more.
    pub fn set_jit_tier_up(&mut self, arrivals: u16) {
        if let Some(j) = &mut self.jit {
            j.set_tier_up(arrivals);
        }
    }

    /// Whether a block at an ENTRY may be compiled entered as a call (docs/jit.md "Calls"; on
    /// by default): tests turn it off to compile a leading ENTRY and RETW in line.
    #[cfg(test)]
    pub(crate) fn set_jit_enter_calls(&mut self, on: bool) {
        if let Some(j) = &mut self.jit {
            j.enter_calls = on;
        }
    }

    /// Sets the arrivals after which a block is compiled ahead (docs/jit.md "Compiling ahead";
    /// [`crate::jit::AHEAD`] by default, never under [`crate::jit::with_tier_up`]): tests
    /// compile ahead at low counts this way.
    pub fn set_jit_ahead(&mut self, arrivals: u16) {
        if let Some(j) = &mut self.jit {
            j.ahead = arrivals.max(1);
        }
    }

    /// Sets the most bytes of compiled code the core keeps before emptying its code cache.
    pub fn set_jit_code_limit(&mut self, bytes: u64) {
        if let Some(j) = &mut self.jit {
            j.limit = bytes;
        }
    }

    /// The entry state now, as blocks are keyed: pending results that can still stall, and LEND.
    #[inline(always)]
    fn pending_key(&self) -> [crate::jit::Slot; 2] {
        let slot = |p: &Pending| {
            let waits = match p.kind {
                StallKind::Load => Waits::Load,
                StallKind::Multiply => Waits::Multiply,
            };
            live_slot(p.mask, p.ready, self.stats.cycles, waits)
        };
        [slot(&self.pending[0]), slot(&self.pending[1])]
    }

    /// Tier 2's turn at `pc`: runs a block that fits the state now, compiling one when the
    /// address is hot; `poll` is the cycle the run looks at next.
    #[inline(never)]
    pub(super) fn tier2(&mut self, ops: &mut DecodedOps, pc: u32, poll: u64) -> Tier2 {
        let Some(jit) = self.jit.as_deref_mut() else {
            return Tier2::Interpret;
        };
        let id = match jit.lookup(pc) {
            Some(crate::jit::REFUSED) => return Tier2::Interpret,
            Some(id) => id,
            None => return self.heated(ops, pc, poll),
        };
        self.enter_block(ops, id, pc, poll)
    }

    /// One more arrival at `pc`, where no block fits: a block compiled when that makes `pc`
    /// hot, and run; built and sent to be compiled ahead when it makes it hot enough for that
    /// (docs/jit.md "Compiling ahead").
    fn heated(&mut self, ops: &mut DecodedOps, pc: u32, poll: u64) -> Tier2 {
        let retired = self.stats.instructions;
        let Some(jit) = self.jit.as_deref_mut() else {
            return Tier2::Interpret;
        };
        match jit.heat(pc, retired) {
            crate::jit::Heat::Cold => Tier2::Interpret,
            crate::jit::Heat::Ahead => {
                if !jit.refuses(pc) {
                    self.with_region(ops, pc, |jit, spec| jit.compile_ahead(spec));
                }
                Tier2::Interpret
            }
            crate::jit::Heat::Hot => self.tier_up(ops, pc, poll),
            crate::jit::Heat::Copy => self.copy_early(ops, pc, poll),
        }
    }

    /// Copies the block another core of the cluster compiled at `pc`'s place in its image,
    /// when this core's IR for it is the same, and runs it; else goes on interpreting, the
    /// address still counting to its compile (docs/jit.md "Code shared by cores").
    #[cold]
    #[inline(never)]
    fn copy_early(&mut self, ops: &mut DecodedOps, pc: u32, poll: u64) -> Tier2 {
        if self.jit.as_deref().is_some_and(|j| j.refuses(pc)) {
            return Tier2::Interpret;
        }
        match self.with_region(ops, pc, |jit, spec| jit.copy(spec)) {
            Some(Some(id)) => self.enter_block(ops, id, pc, poll),
            _ => Tier2::Interpret,
        }
    }

    /// Runs block `id` (in the table at `pc`) when its guards pass; else another version or a
    /// new one.
    fn enter_block(&mut self, ops: &mut DecodedOps, id: u32, pc: u32, poll: u64) -> Tier2 {
        let key = self.pending_key();
        let lend = self.state.lend();
        let traps = self.traps;
        let cycles = self.stats.cycles;
        let Some(jit) = self.jit.as_deref_mut() else {
            return Tier2::Interpret;
        };
        let fits = |b: &crate::jit::Block| b.fits(key, lend, traps);
        let b = &jit.blocks[id as usize];
        let id = if fits(b) {
            id
        } else {
            match jit.find_version(pc, fits) {
                Some(id) => id,
                None => return self.heated(ops, pc, poll),
            }
        };
        let b = &jit.blocks[id as usize];
        let reach = cycles.saturating_add(b.bound);
        if reach >= poll {
            // The block could reach the next look. A look that can only see the stop request
            // is made now, when the block fits before the one after it; else the interpreter
            // goes there exactly.
            let next = self.deadline.min(cycles.saturating_add(self.poll_period()));
            if poll < self.deadline && self.stack_region.is_none() && reach < next {
                return Tier2::LookNow;
            }
            return Tier2::Interpret;
        }
        let entry = b.entry;
        let run = jit.run().expect("a block was compiled");
        let links = jit.links();
        self.call_block(run, entry, links, pc, poll)
    }

    /// Compiles a block at `pc` for the state now (or puts in the one compiled ahead there),
    /// and runs it.
    #[cold]
    #[inline(never)]
    fn tier_up(&mut self, ops: &mut DecodedOps, pc: u32, poll: u64) -> Tier2 {
        let jit = self.jit.as_deref_mut().expect("tier 2 is on");
        jit.cool(pc);
        if jit.refuses(pc) {
            return Tier2::Interpret;
        }
        if let Some(id) = jit.take_ahead(pc) {
            return self.enter_block(ops, id, pc, poll);
        }
        let compiled = self.with_region(ops, pc, |jit, spec| jit.compile(spec));
        match compiled {
            Some(Ok(id)) => self.enter_block(ops, id, pc, poll),
            // Another core is compiling the same block: interpret on, its counter restarted,
            // and copy the code at a later arrival (docs/jit.md "Code shared by cores").
            Some(Err(crate::jit::NotMade::Busy)) => Tier2::Interpret,
            _ => {
                self.jit.as_deref_mut().expect("tier 2 is on").refuse(pc);
                Tier2::Interpret
            }
        }
    }

    /// The region at `pc` (docs/jit.md "Tier-up") for the state now, given to `f` with the
    /// core's tier 2 as the block to compile; `None` when it is too short to compile.
    fn with_region<R>(
        &mut self,
        ops: &mut DecodedOps,
        pc: u32,
        f: impl FnOnce(&mut crate::jit::Jit, &Spec<'_>) -> R,
    ) -> Option<R> {
        // The region (docs/jit.md "Tier-up"): from `pc`, the instructions control reaches by
        // falling through, by jumps and by branches whose target the interpreter has arrived
        // at, up to MAX_BLOCK, the fall-through first; none before a leading ENTRY. Code
        // another block starts at is compiled into this one again: running on through it
        // costs less than leaving for that block. Windowed calls to a hot ENTRY are followed
        // into the callee, up to MAX_FOLLOWED instructions of callees (docs/jit.md "Calls").
        // A block at an ENTRY a call reached is walked as entered as that call first, its
        // whole function in the frame above the caller's, and compiled so when the walk holds
        // the function whole with every call it makes (`Walk::follows_every_call`).
        let entered = self.entered_as_call(ops, pc);
        let walk = entered
            .map(|inc| self.walk(ops, pc, Some(inc)))
            .filter(|w| !w.cut && w.follows_every_call());
        let (entered, walk) = match walk {
            Some(w) => (entered, w),
            None => (None, self.walk(ops, pc, None)),
        };
        let Walk {
            list,
            calls,
            lend_at,
            ..
        } = walk;
        let frames: Vec<u16> = list.iter().map(|x| x.2).collect();
        let list: Vec<(u32, crate::predecode::Op)> = list.iter().map(|x| (x.0, x.1)).collect();
        let loops = list.iter().any(|(_, op)| translate::target(op) == Some(pc))
            || (lend_at.is_some() && self.state.lbeg() == pc);
        // A lone RETW is compiled: a window handler's return (RFWU) re-executes one, and
        // linked there it returns to the caller's block in compiled code.
        let returns = matches!(
            &list[..],
            [(_, op)] if matches!(op.insn.opcode, Opcode::Retw | Opcode::RetwN)
        );
        if list.is_empty() || (list.len() < crate::jit::MIN_BLOCK && !loops && !returns) {
            return None;
        }
        let fetch_line = B::FETCH_TIMING.then(|| self.timing.icache_line.max(1).trailing_zeros());
        let offered = self.bus.direct();
        let direct = offered.map(|d| (d.base, d.len, d.stores));
        let guarded_stores = offered.is_some_and(|d| !d.touched.is_null());
        let direct_code = self.bus.direct_code().map(|d| (d.base, d.len, d.stores));
        let icache = if B::FETCH_TIMING {
            self.bus.fetch_view()
        } else {
            None
        };
        let windows = self.bus.window_view();
        let relative = self.jit.as_deref().is_some_and(|j| j.relative());
        let litbase = self.state.sr(q7_isa::sreg::sr::LITBASE);
        let literals = self.literals(&list, litbase, windows);
        let spec = Spec {
            icache,
            windows,
            ops: &list,
            start: pc,
            frames: &frames,
            calls: &calls,
            entered,
            groups: self.state.groups(),
            stack_limit: self.config.has(q7_isa::Options::STACK_LIMIT),
            values: std::array::from_fn(|r| self.state.a(r as u32)),
            key: Key {
                pending: self.pending_key(),
                lend: lend_at,
            },
            timing: &self.timing,
            fetch_line,
            direct,
            guarded_stores,
            direct_code,
            access_cycles: u64::from(self.bus.most_access_cycles()),
            litbase,
            helpers: Helpers {
                load: load_helper::<B> as *const () as usize,
                store: store_helper::<B> as *const () as usize,
                fetch: fetch_helper::<B> as *const () as usize,
                entry: entry_helper::<B> as *const () as usize,
                retw: retw_helper::<B> as *const () as usize,
                overflow: overflow_helper::<B> as *const () as usize,
                rfw: rfw_helper::<B> as *const () as usize,
                frames: frames_helper::<B> as *const () as usize,
            },
            relative,
            literals: &literals,
        };
        let jit = self.jit.as_deref_mut().expect("tier 2 is on");
        Some(f(jit, &spec))
    }

    /// The window increment a block starting at `pc` is entered with as a call, when it
    /// can be compiled that way (docs/jit.md "Calls"): `pc` holds an ENTRY that takes its SP
    /// from a0..a3, PS.CALLINC is 1 to 3, the window and the three groups above it fit in the
    /// register file, and the function's code, with the callees it calls, fits in
    /// `MAX_BLOCK + MAX_FOLLOWED` instructions.
    fn entered_as_call(&mut self, ops: &mut DecodedOps, pc: u32) -> Option<u32> {
        if !self.jit.as_deref().is_some_and(|j| j.enter_calls) {
            return None;
        }
        let slot = self.decoded(ops, pc);
        let op = ops.get(slot);
        if op.insn.opcode != Opcode::Entry || op.insn.operands[0] > 3 || op.bad.is_some() {
            return None;
        }
        let inc = self.state.sr(sr::PS) >> ps::CALLINC_SHIFT & 3;
        if inc == 0 || inc + 4 > self.state.groups() {
            return None;
        }
        self.callee_size(ops, pc, MAX_BLOCK + MAX_FOLLOWED, &mut Vec::new())?;
        Some(inc)
    }

    /// The region's walk from `pc` (docs/jit.md "Tier-up"), entered as a call with window
    /// increment `entered` ([`Core::entered_as_call`]) or not.
    fn walk(&mut self, ops: &mut DecodedOps, pc: u32, entered: Option<u32>) -> Walk {
        let mut list: Vec<(u32, crate::predecode::Op, u16)> = Vec::new();
        let mut calls: Vec<Inline> = Vec::new();
        let lend = self.state.lend();
        let mut lend_at = None;
        let litbase = self.state.sr(sr::LITBASE);
        // Work: an address, the frames it runs in, its function's first address, and the
        // values the walk predicts registers hold there (a CALLX's callee, `predict`): at the
        // start the core's own, unless the start is an ENTRY (which moves the window).
        let start = self.decoded(ops, pc);
        let seed = if ops.get(start).insn.opcode == Opcode::Entry {
            [None; 16]
        } else {
            std::array::from_fn(|r| Some(self.state.a(r as u32)))
        };
        // Entered as a call: the function runs in the frame `inc` groups up.
        let first = entered.map_or(1u16, |inc| 1 | 1 << inc);
        let most = if entered.is_some() {
            MAX_BLOCK + MAX_FOLLOWED
        } else {
            MAX_FOLLOWED
        };
        let mut cut = false;
        let mut work = vec![(pc, first, pc, seed)];
        // Whether the start is an ENTRY (nothing before it joins the region).
        let mut after_entry = false;
        let mut followed = 0;
        // Instructions of the callees followed so far, as their own walks count them: a call
        // is followed only when all of its callee's code fits (leaving a callee midway costs
        // more than the call).
        let mut reserved = 0;
        let mut counted = Vec::new();
        while let Some((at, frames, home, mut predicted)) = work.pop() {
            let own = frames == 1;
            if (own && list.len() - followed >= MAX_BLOCK) || (!own && followed >= most) {
                cut = true;
                continue;
            }
            if (own && at < pc && after_entry) || list.iter().any(|&(a, _, _)| a == at) {
                continue;
            }
            let slot = self.decoded(ops, at);
            let op = *ops.get(slot);
            let opcode = op.insn.opcode;
            if !region_takes(&op, own, at == pc || (!own && at == home)) {
                continue;
            }
            let next = at.wrapping_add(u32::from(op.insn.len));
            let is_loop = begins_loop(opcode);
            if is_loop && op.insn.operands[1] == next {
                continue;
            }
            list.push((at, op, frames));
            followed += usize::from(!own);
            after_entry |= at == pc && opcode == Opcode::Entry;
            if next == lend && !is_loop {
                lend_at = Some(lend);
            }
            let jit = self.jit.as_deref().expect("tier 2 is on");
            if let Some(t) = translate::edge_target(&op) {
                // A branch's target once it has been taken; a jump's when it goes back into the
                // region (to a loop's head), or when the instruction there ends a block (a
                // shared epilogue's RETW: alone it would be too short a block, and interpreted).
                // Another jump forward is not followed: the code there is in the region when
                // another path falls into it (the end of an `if`'s `else`), and otherwise
                // other paths reach it too and it stays their block.
                let follow = if opcode == Opcode::J {
                    // (Every jump in a followed callee: leaving there costs more.)
                    !own || (home..=at).contains(&t) || self.ends_block_at(ops, t)
                } else {
                    jit.arrived(t)
                };
                if follow {
                    work.push((t, frames, home, predicted));
                }
            }
            if let Some((t, inc)) = windowed_call(&op, &predicted) {
                let known = calls.iter().any(|c| c.entry == t);
                let size = if known || counted.contains(&at) {
                    Some(0)
                } else {
                    self.callee_size(ops, t, most - reserved, &mut counted)
                };
                let callee =
                    size.and_then(|_| self.callee_frames(ops, t, frames, inc, &list, &calls));
                if let Some(callee) = callee {
                    reserved += size.unwrap_or(0);
                    calls.push(Inline {
                        call: at,
                        entry: t,
                        ret: next,
                        inc,
                    });
                    // The callee leaves the caller's registers below its window as they were.
                    let kept =
                        std::array::from_fn(|r| predicted[r].filter(|_| r < 4 * inc as usize));
                    work.push((next, frames, home, kept));
                    if !known {
                        work.push((t, callee, t, [None; 16]));
                    }
                }
            }
            predicted = self.predict(&op, at, litbase, predicted);
            if !translate::ends_block(&op) && next > at {
                work.push((next, frames, home, predicted));
            }
        }
        list.sort_unstable_by_key(|&(at, _, _)| at);
        // A call is followed only when its callee's ENTRY is in the region in its frames.
        calls.retain(|c| {
            let caller = list.iter().find(|x| x.0 == c.call).map(|x| x.2);
            let callee = list.iter().find(|x| x.0 == c.entry).map(|x| x.2);
            matches!((caller, callee), (Some(f), Some(g)) if g == f | 1 << (depth(f) + c.inc))
        });
        Walk {
            list,
            calls,
            lend_at,
            cut,
        }
    }

    /// The literals of the L32Rs of `list` that lie in the translate windows' memory
    /// (`windows`), with LITBASE `litbase`, and the words they hold now, by address: compiled
    /// in as constants ([`Spec::literals`]), so from now on their 64 bytes count as code, and a
    /// store there (which reaches the windows' memory only through the bus or the store
    /// helper, each of which tells the decode cache) drops the blocks that hold them.
    fn literals(
        &mut self,
        list: &[(u32, crate::predecode::Op)],
        litbase: u32,
        windows: Option<crate::bus::WindowView>,
    ) -> Vec<(u32, u32)> {
        let Some(view) = windows else {
            return Vec::new();
        };
        let mut literals: Vec<(u32, u32)> = list
            .iter()
            .filter(|(_, op)| op.insn.opcode == Opcode::L32r)
            .map(|&(at, op)| {
                q7_isa::sreg::litbase::literal_address(litbase, at, op.insn.operands[1])
            })
            .filter(|&a| view.covers(a))
            .filter_map(|a| Some((a, self.bus.peek(a)?)))
            .collect();
        literals.sort_unstable();
        literals.dedup();
        for &(at, _) in &literals {
            self.cache.mark_code(at);
        }
        literals
    }

    /// The frames a windowed call from code running in `frames` to `target`, moving the
    /// window by `inc` groups, runs its callee in, when the region may follow it (docs/jit.md
    /// "Calls"): the callee's ENTRY has been arrived at, names a register up to a3 as its
    /// SP's source, is not yet in the region (`list`) other than as the callee of calls
    /// (`calls`) from the same frames, and its window and the three groups above it fit in
    /// the register file.
    fn callee_frames(
        &mut self,
        ops: &mut DecodedOps,
        target: u32,
        frames: u16,
        inc: u32,
        list: &[(u32, crate::predecode::Op, u16)],
        calls: &[Inline],
    ) -> Option<u16> {
        let d = depth(frames) + inc;
        if d + 4 > self.state.groups() || d > 15 {
            return None;
        }
        let callee = frames | 1 << d;
        let jit = self.jit.as_deref()?;
        if !jit.arrived(target) {
            return None;
        }
        let slot = self.decoded(ops, target);
        let op = ops.get(slot);
        if op.insn.opcode != Opcode::Entry || op.insn.operands[0] > 3 || op.bad.is_some() {
            return None;
        }
        let same = |c: &Inline| c.inc == inc && list.iter().any(|x| x.0 == c.call && x.2 == frames);
        let followed = calls
            .iter()
            .filter(|c| c.entry == target)
            .collect::<Vec<_>>();
        if followed.is_empty() {
            list.iter().all(|x| x.0 != target).then_some(callee)
        } else {
            followed.iter().all(|c| same(c)).then_some(callee)
        }
    }

    /// The instructions of the callee at `entry` a region would hold, with those of the
    /// callees it calls in turn, found as the region's walk finds a followed callee's, when
    /// they are at most `most`; the calls whose callees are counted go into `counted`.
    fn callee_size(
        &mut self,
        ops: &mut DecodedOps,
        entry: u32,
        most: usize,
        counted: &mut Vec<u32>,
    ) -> Option<usize> {
        let litbase = self.state.sr(sr::LITBASE);
        let mut seen: Vec<u32> = Vec::new();
        let mut total = 0;
        let mut work = vec![(entry, [None::<u32>; 16])];
        while let Some((at, mut predicted)) = work.pop() {
            if seen.contains(&at) {
                continue;
            }
            let slot = self.decoded(ops, at);
            let op = *ops.get(slot);
            let opcode = op.insn.opcode;
            if !region_takes(&op, false, at == entry) {
                continue;
            }
            if total == most {
                return None;
            }
            seen.push(at);
            total += 1;
            let next = at.wrapping_add(u32::from(op.insn.len));
            let jit = self.jit.as_deref()?;
            if let Some(t) = translate::edge_target(&op) {
                if opcode == Opcode::J || jit.arrived(t) {
                    work.push((t, predicted));
                }
            }
            let call = windowed_call(&op, &predicted).map(|(t, _)| t);
            if let Some(t) = call {
                if jit.arrived(t) && counted.len() < 16 {
                    counted.push(at);
                    total += self.callee_size(ops, t, most - total, counted)?;
                }
            }
            predicted = self.predict(&op, at, litbase, predicted);
            // (After a call, where a followed callee returns to.)
            if (call.is_some() || !translate::ends_block(&op)) && next > at {
                work.push((next, predicted));
            }
        }
        Some(total)
    }

    /// The values the region's walk predicts registers hold after `op` at `pc`, from those
    /// it predicted before (`values`): an L32R's literal (read as it is now, `litbase`
    /// giving its address), the word an L32I loads from a predicted address (read as memory
    /// holds it now: a callee's address the code keeps in its stack frame), a moved register's
    /// or a predicted one plus an immediate; no value for a register `op` writes otherwise.
    /// A prediction only chooses the callee a CALLX is followed into: compiled code compares
    /// the register with it and leaves for the interpreter when they differ (docs/jit.md
    /// "Calls").
    fn predict(
        &self,
        op: &crate::predecode::Op,
        pc: u32,
        litbase: u32,
        mut values: [Option<u32>; 16],
    ) -> [Option<u32>; 16] {
        let o = op.insn.operands;
        let value = match op.insn.opcode {
            Opcode::L32r => self
                .bus
                .peek(q7_isa::sreg::litbase::literal_address(litbase, pc, o[1])),
            Opcode::L32i | Opcode::L32iN => values[o[1] as usize]
                .map(|base| base.wrapping_add(o[2]))
                .filter(|a| a % 4 == 0)
                .and_then(|a| self.bus.peek(a)),
            Opcode::MovN => values[o[1] as usize],
            Opcode::Or if o[1] == o[2] => values[o[1] as usize],
            Opcode::Addi | Opcode::AddiN | Opcode::Addmi => {
                values[o[1] as usize].map(|v| v.wrapping_add(o[2]))
            }
            _ => None,
        };
        let written = translate::registers(op).1;
        for (r, v) in values.iter_mut().enumerate() {
            if written >> r & 1 != 0 {
                *v = None;
            }
        }
        if let Some(v) = value {
            values[o[0] as usize] = Some(v);
        }
        values
    }

    /// Whether the instruction at `pc` ends a block (`translate::ends_block`) and can be
    /// compiled.
    fn ends_block_at(&mut self, ops: &mut DecodedOps, pc: u32) -> bool {
        let slot = self.decoded(ops, pc);
        let op = ops.get(slot);
        translate::ends_block(op)
            && translate::supported(op)
            && op.insn.opcode != q7_isa::Opcode::Entry
    }

    /// Calls compiled code at `entry`, the block at `pc`, through `run` with the core's state
    /// (and the block table, `links`), and takes its results back.
    fn call_block(
        &mut self,
        run: crate::jit::Run,
        entry: crate::jit::Entry,
        links: *const crate::jit::Link,
        pc: u32,
        poll: u64,
    ) -> Tier2 {
        let direct = self.bus.direct().map_or(std::ptr::null_mut(), |d| d.ptr);
        let direct_code = self
            .bus
            .direct_code()
            .map_or(std::ptr::null_mut(), |d| d.ptr);
        let (itags, ilast, ilookups) = match self.bus.fetch_view() {
            Some(v) => (v.tags, v.last_line, v.lookups),
            None => (
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            ),
        };
        let (wtable, hbm, hbm_size, wcount) = match self.bus.window_view() {
            Some(v) => (v.windows, v.hbm, v.hbm_size, v.counted),
            None => (
                std::ptr::null(),
                std::ptr::null_mut(),
                0,
                [std::ptr::null_mut(); 2],
            ),
        };
        let wstall: [*mut u64; 2] = [&mut self.stats.stalls.sram, &mut self.stats.stalls.hbm];
        let traps: *mut u8 = &mut self.traps;
        let window_limit: *mut u8 = &mut self.window_limit;
        let state_base = self.state.base_word();
        let core: *mut Self = self;
        let mut ctx = Ctx {
            ar: self.state.ar.as_mut_ptr(),
            sr: self.state.sr_words(),
            core: core.cast(),
            direct,
            direct_code,
            code_bits: self.cache.code_bits(),
            base: self.state.phys(0) as u32,
            amask: (self.state.num_aregs - 1) & 63,
            // The block's start: compiled code takes its addresses from it (translate.rs,
            // `Tr::code`).
            pc,
            _pad: 0,
            cycles: self.stats.cycles,
            instructions: self.stats.instructions,
            load_use: self.stats.stalls.load_use,
            multiply: self.stats.stalls.multiply,
            taken_branch: self.stats.stalls.taken_branch,
            divide: self.stats.stalls.divide,
            poll,
            ready: [self.pending[0].ready, self.pending[1].ready],
            mask: [0; 2],
            waits: [0; 2],
            itags,
            ilast,
            ilookups,
            wtable,
            hbm,
            hbm_size,
            wcount,
            wstall,
            links,
            traps,
            window_limit,
            state_base,
            lowest_sp: &mut self.lowest_sp,
            stack_lo: self.stack_region.map_or(0, |r| r.bottom),
            stack_span: self
                .stack_region
                .map_or(u32::MAX, |r| r.top.wrapping_sub(r.bottom)),
            store_ok: self.cache.store_ok_bits(),
            spill: [0; crate::jit::translate::REGISTERS],
            spilled: 0,
            answer: 0,
        };
        let mut entry = entry;
        let exit = loop {
            // SAFETY: `run` is the trampoline of the module that holds `entry`, a block
            // compiled for this core's bus type by `translate::compile` with the block
            // signature `run` calls (the first, or one `chained` found in this core's table);
            // the module lives as long as the table's entries (nothing compiles or flushes
            // while blocks run). A block reads and writes only what `ctx` points at: the
            // core's registers (`ar`, 64 words; `sr`, 256 words), the bus's direct memories
            // (`Bus::direct`, `Bus::direct_code`) within the bounds it was compiled with, the
            // decode cache's code and store-ok bitmaps (reads of the word of an address's
            // granule, within their 2^20 words, which stay put while the cache lives), the
            // I-cache's tags (reads within the layout it was compiled with), last line and lookup
            // count (`Bus::fetch_view`,
            // whose pointers live as long as the bus, which is not moved while the core runs),
            // the translate windows' registers, access counters and HBM within the bounds the
            // view gives (`Bus::window_view`, as long-lived; HBM is read with aligned plain
            // loads, atomic on the host as the other cores' atomic accesses are), the core's
            // SRAM and HBM stall counters, the block table (`links`, reads within its
            // `SLOTS` entries), the core's gate bits and window limit and the state's window
            // base (`traps`, `window_limit`, `state_base`: read, and written by an ENTRY or
            // RETW compiled in line), the core's lowest SP (`lowest_sp`, read and written),
            // and `ctx` itself; it calls only the helpers below, passing `ctx` on, and
            // tail-calls only blocks the table holds.
            // Nothing else touches the core while it runs (this thread owns it).
            let exit = unsafe { run(&mut ctx, entry) };
            if let Some(j) = &mut self.jit {
                j.calls += 1;
            }
            if exit == EXIT_INTERPRET {
                break exit;
            }
            // On to the block at the PC the last one left for, without going back through the
            // run loop, when it fits the state now (as `enter_block` asks) and ends before the
            // next look.
            match self.chained(&ctx, poll) {
                Some(next) => entry = next,
                None => break exit,
            }
        };
        ctx.put_spilled(&mut self.state.ar);
        if let Some(j) = &mut self.jit {
            j.stats.executed += ctx.instructions - self.stats.instructions;
        }
        self.stats.cycles = ctx.cycles;
        self.stats.instructions = ctx.instructions;
        self.stats.stalls.load_use = ctx.load_use;
        self.stats.stalls.multiply = ctx.multiply;
        self.stats.stalls.taken_branch = ctx.taken_branch;
        self.stats.stalls.divide = ctx.divide;
        let mut until = 0;
        for i in 0..2 {
            self.pending[i] = if ctx.mask[i] == 0 {
                Pending::NONE
            } else {
                until = until.max(ctx.ready[i]);
                Pending {
                    mask: ctx.mask[i] as u16,
                    ready: ctx.ready[i],
                    kind: if ctx.waits[i] == 0 {
                        StallKind::Load
                    } else {
                        StallKind::Multiply
                    },
                }
            };
        }
        self.pending_until = until;
        self.state.pc = ctx.pc;
        Tier2::Ran(ctx.pc, exit == EXIT_INTERPRET)
    }
}

impl<B: Bus> Core<B> {
    /// The block to run next at `ctx.pc` after one left there, straight from the context's
    /// state: one in the table whose key, LEND and gates fit, and whose bound ends before
    /// `poll`. `None` sends the PC back to the run loop (which counts arrivals and compiles).
    #[inline]
    fn chained(&self, ctx: &Ctx, poll: u64) -> Option<crate::jit::Entry> {
        let jit = self.jit.as_deref()?;
        let id = jit.lookup(ctx.pc)?;
        if id == crate::jit::REFUSED {
            return None;
        }
        let b = &jit.blocks[id as usize];
        let slot = |i: usize| {
            let waits = if ctx.waits[i] == 0 {
                Waits::Load
            } else {
                Waits::Multiply
            };
            live_slot(ctx.mask[i] as u16, ctx.ready[i], ctx.cycles, waits)
        };
        let fits = b.fits([slot(0), slot(1)], self.state.lend(), self.traps)
            && ctx.cycles.saturating_add(b.bound) < poll;
        fits.then_some(b.entry)
    }
}

/// Whether a region may hold `op` (docs/jit.md "Tier-up", "Calls"): an instruction compiled
/// code executes; an ENTRY only where it starts the block or a followed callee (`entry`, it
/// moves the window); in a followed callee's code (not `own`), nothing privileged and no
/// RFWO or RFWU.
fn region_takes(op: &crate::predecode::Op, own: bool, entry: bool) -> bool {
    let opcode = op.insn.opcode;
    translate::supported(op)
        && (opcode != Opcode::Entry || entry)
        && (own || (op.gate.index() < 4 && !matches!(opcode, Opcode::Rfwo | Opcode::Rfwu)))
}

/// The callee and window increment of a windowed call `op` when its target is known or
/// predicted: a CALLn's, or a CALLXn's whose register's value the region's walk predicts
/// (`predicted`, [`Core::predict`]).
fn windowed_call(op: &crate::predecode::Op, predicted: &[Option<u32>; 16]) -> Option<(u32, u32)> {
    let inc = translate::call_increment(op.insn.opcode)?;
    let o = op.insn.operands;
    let target = match op.insn.opcode {
        Opcode::Call4 | Opcode::Call8 | Opcode::Call12 => Some(o[0]),
        _ => predicted[o[0] as usize],
    };
    target.map(|t| (t, inc))
}

/// Whether `opcode` begins a zero-overhead loop (LOOP, LOOPNEZ, LOOPGTZ).
fn begins_loop(opcode: Opcode) -> bool {
    matches!(opcode, Opcode::Loop | Opcode::Loopnez | Opcode::Loopgtz)
}

/// A pending result as blocks are keyed on it: its registers and kind while it can still
/// stall (ready after `now`), else nothing.
#[inline(always)]
fn live_slot(mask: u16, ready: u64, now: u64, waits: Waits) -> crate::jit::Slot {
    (mask != 0 && ready > now).then_some((mask, waits))
}

/// The core behind a context.
///
/// # Safety
/// `ctx` is the context `call_block` made for a `Core<B>` and passed to compiled code, which
/// passes it on unchanged; the core is not otherwise borrowed while the block runs.
unsafe fn core_of<'a, B: Bus>(ctx: *mut Ctx) -> &'a mut Core<B> {
    // SAFETY: per the function's contract, `core` points at a live `Core<B>` that nothing
    // else borrows for the duration of the helper call.
    unsafe { &mut *(*ctx).core.cast::<Core<B>>() }
}

/// Charges a data access's memory latency to its stall category; the cycles.
fn latency<B: Bus>(core: &mut Core<B>, addr: u32) -> u64 {
    match core.bus.data_latency(addr) {
        DataLatency::Free => 0,
        DataLatency::Sram(l) => {
            core.stats.stalls.sram += u64::from(l);
            u64::from(l)
        }
        DataLatency::Hbm(l) => {
            core.stats.stalls.hbm += u64::from(l);
            u64::from(l)
        }
    }
}

/// Compiled code's load of a memory it cannot reach directly: the value and the latency, or
/// [`NOT_DONE`] with nothing changed (a misaligned address among them: the interpreter
/// raises its exception).
extern "C" fn load_helper<B: Bus>(ctx: *mut Ctx, addr: u32, size: u32) -> u64 {
    if addr & (size - 1) != 0 {
        return NOT_DONE;
    }
    // SAFETY: called only by compiled code with the context it was given (`core_of`).
    let core = unsafe { core_of::<B>(ctx) };
    match core.bus.plain_load(addr, size) {
        Some(v) => u64::from(v) | latency(core, addr) << 32,
        None => NOT_DONE,
    }
}

/// Compiled code's store to memory it cannot reach directly: the latency in bits 32..62 (as
/// the load helper's), with [`CODE_CHANGED`] when it overwrote decoded or compiled code; or
/// [`NOT_DONE`] with nothing changed (a misaligned address among them).
extern "C" fn store_helper<B: Bus>(ctx: *mut Ctx, addr: u32, size: u32, value: u32) -> u64 {
    if addr & (size - 1) != 0 {
        return NOT_DONE;
    }
    // SAFETY: called only by compiled code with the context it was given (`core_of`).
    let core = unsafe { core_of::<B>(ctx) };
    if !core.bus.plain_store(addr, size, value) {
        return NOT_DONE;
    }
    let mut answer = latency(core, addr) << 32;
    if core.bus.may_hold_code(addr) && core.code_stored(addr, size) {
        answer |= CODE_CHANGED;
    } else if core
        .bus
        .direct()
        .is_some_and(|d| !d.touched.is_null() && u64::from(addr.wrapping_sub(d.base)) < d.len)
    {
        // The store touched its granule of a memory that counts them: compiled code may
        // store into its 64 bytes itself from now on, unless they hold code.
        core.cache.mark_store_ok(addr);
    }
    answer
}

/// Compiled code's leading ENTRY at `pc` (`entry a<s>, frame`): the gate bits that trap in
/// the new window; or a window overflow it raises, taken ([`trapped`]); or [`NOT_DONE`] when
/// it would raise anything else (nothing changed that the interpreter's ENTRY would not
/// change the same way again).
extern "C" fn entry_helper<B: Bus>(ctx: *mut Ctx, pc: u32, s: u32, frame: u32) -> u64 {
    // SAFETY: called only by compiled code with the context it was given (`core_of`).
    let core = unsafe { core_of::<B>(ctx) };
    core.state.pc = pc;
    let answer = match core.entry(s, frame) {
        Ok(()) => u64::from(core.traps),
        Err(e) => trapped(core, pc, &e),
    };
    // SAFETY: `ctx` is the live context of the calling block (`core_of`); the core borrow
    // above does not cover it.
    unsafe { (*ctx).base = core.state.phys(0) as u32 };
    answer
}

/// Compiled code's RETW at `pc` (the block's registers already back in the core): the return
/// address, the window moved back; or a window underflow it raises, taken ([`trapped`]); or
/// [`NOT_DONE`] when it would raise anything else.
extern "C" fn retw_helper<B: Bus>(ctx: *mut Ctx, pc: u32) -> u64 {
    // SAFETY: called only by compiled code with the context it was given (`core_of`).
    let core = unsafe { core_of::<B>(ctx) };
    core.state.pc = pc;
    let answer = match core.retw() {
        Ok(ret) => u64::from(ret),
        Err(e) => trapped(core, pc, &e),
    };
    // SAFETY: as in `entry_helper`.
    unsafe { (*ctx).base = core.state.phys(0) as u32 };
    answer
}

/// Compiled code's instruction at `pc` naming register group `group`, which trips its gate
/// after a leading ENTRY (the block's registers already back in the core): the window
/// overflow the interpreter's gate raises there, taken ([`trapped`]); or [`NOT_DONE`] when it
/// would not be taken (the privilege exception, a core that stops).
extern "C" fn overflow_helper<B: Bus>(ctx: *mut Ctx, pc: u32, group: u32) -> u64 {
    // SAFETY: called only by compiled code with the context it was given (`core_of`).
    let core = unsafe { core_of::<B>(ctx) };
    if group <= u32::from(core.window_limit) {
        return NOT_DONE;
    }
    let e = super::exception::Exc::overflow(u32::from(core.window_limit) + 1);
    let answer = trapped(core, pc, &e);
    // SAFETY: as in `entry_helper`.
    unsafe { (*ctx).base = core.state.phys(0) as u32 };
    answer
}

/// A helper's answer for exception `e` raised by the instruction at `pc`: a window trap
/// taken (`Core::window_trap_compiled`) as [`TRAPPED`] with the vector and, in bits 32..62,
/// the cycles to charge; anything else [`NOT_DONE`], nothing changed.
fn trapped<B: Bus>(core: &mut Core<B>, pc: u32, e: &super::exception::Exc) -> u64 {
    match core.window_trap_compiled(pc, e) {
        Some((vector, cycles)) => TRAPPED | cycles << 32 | u64::from(vector),
        None => NOT_DONE,
    }
}

/// Compiled code's RFWO (`overflow` 1) or RFWU (the block's registers already back in the
/// core): the return address (EPC1), the window moved back, with the exception-return cycles
/// beyond a taken jump's in bits 32..62 (charged to the `exception` stalls here, as the
/// interpreter does). It raises nothing.
extern "C" fn rfw_helper<B: Bus>(ctx: *mut Ctx, overflow: u32) -> u64 {
    // SAFETY: called only by compiled code with the context it was given (`core_of`).
    let core = unsafe { core_of::<B>(ctx) };
    let ret = core.return_from_window(overflow != 0);
    // SAFETY: as in `entry_helper`.
    unsafe { (*ctx).base = core.state.phys(0) as u32 };
    u64::from(ret) | u64::from(core.exception_return_cost()) << 32
}

/// Compiled code's exit inside followed calls (docs/jit.md "Calls"; the block's registers
/// already back in the core): the frames of `frames` above the window made live in
/// WINDOWSTART and the window moved to the deepest, as the interpreter's ENTRYs would have
/// left them; the gate bits and the context's window base follow.
extern "C" fn frames_helper<B: Bus>(ctx: *mut Ctx, frames: u32) -> u64 {
    // SAFETY: called only by compiled code with the context it was given (`core_of`).
    let core = unsafe { core_of::<B>(ctx) };
    let wb = core.state.windowbase();
    let groups = core.state.groups();
    let mut ws = core.state.sr(sr::WINDOWSTART);
    for k in 1..16 {
        if frames >> k & 1 != 0 {
            ws |= 1 << (wb.wrapping_add(k) & (groups - 1));
        }
    }
    core.state.set_sr(sr::WINDOWSTART, ws);
    core.rotate(depth(frames as u16) as i32);
    core.refresh();
    // SAFETY: as in `entry_helper`.
    unsafe { (*ctx).base = core.state.phys(0) as u32 };
    0
}

/// Compiled code's instruction fetch at `pc` (a new line): the fetch cycles, charged.
extern "C" fn fetch_helper<B: Bus>(ctx: *mut Ctx, pc: u32) -> u64 {
    // SAFETY: called only by compiled code with the context it was given (`core_of`).
    let core = unsafe { core_of::<B>(ctx) };
    let c = core.bus.fetch_cycles(pc);
    core.stats.stalls.fetch += u64::from(c);
    u64::from(c)
}

impl<B: Bus> Core<B> {
    /// A store into `addr..addr + size` of memory that may hold code: decoded instructions and
    /// compiled blocks there forgotten. Whether compiled code was.
    #[inline]
    pub(super) fn code_stored(&mut self, addr: u32, size: u32) -> bool {
        if !self.cache.store(addr, size) {
            return false;
        }
        match &mut self.jit {
            Some(j) => j.invalidate(addr, size),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{core_exiting, CODE};
    use crate::fault::Stop;
    use crate::trace::NoTrace;
    use q7_isa::Opcode::*;
    use q7_isa::{Opcode, DC233C};

    /// Runs `code` (then exit with a3) with tier 2 on and off: both stops, states and counters
    /// must be the same; tier 2's counters.
    fn both_tiers(code: &[(Opcode, Vec<u32>)]) -> (Stop, u32, crate::jit::JitStats) {
        let run = |jit: bool| {
            let mut core = core_exiting(&DC233C, code, 3);
            core.set_jit(jit);
            core.set_jit_tier_up(16);
            let stop = core.run(10_000_000, &mut NoTrace);
            let memory = core.bus.read(0x700, 16);
            (
                stop,
                core.stats.clone(),
                core.state.ar,
                memory,
                core.jit_stats(),
            )
        };
        let (stop, stats, ar, memory, jit) = run(true);
        let (stop1, stats1, ar1, memory1, _) = run(false);
        assert_eq!(
            (&stop, &stats, ar, &memory),
            (&stop1, &stats1, ar1, &memory1)
        );
        (stop, ar[3], jit)
    }

    /// Runs `code` (then exit with a3) over memory holding `words` (address, value), with
    /// tier 2 on (compiling from the `tier_up`th arrival) and off: the stops and counters must
    /// be the same; the tier-2 core.
    fn alike_in_both_tiers(
        code: &[(Opcode, Vec<u32>)],
        words: &[(u32, u32)],
        tier_up: u16,
    ) -> crate::core::Core<super::super::testing::TestBus> {
        let run = |jit: bool| {
            let mut core = core_exiting(&DC233C, code, 3);
            for &(addr, v) in words {
                core.bus.write(addr, &v.to_le_bytes());
            }
            core.set_jit(jit);
            core.set_jit_tier_up(tier_up);
            let stop = core.run(10_000_000, &mut NoTrace);
            (stop, core)
        };
        let (stop, core) = run(true);
        let (stop1, interpreted) = run(false);
        assert_eq!((&stop, &core.stats), (&stop1, &interpreted.stats));
        core
    }

    /// Runs `code` (then exit with a3) on a bus offering its RAM as memory that may hold code
    /// (`Bus::direct_code`, as the firmware band is), with tier 2 on (tier-up after 16
    /// arrivals) and off: the stops, counters, registers and the memory at 0x700 must be the
    /// same; the tier-2 stop and JIT counters.
    fn alike_over_code_memory(code: &[(Opcode, Vec<u32>)]) -> (Stop, crate::jit::JitStats) {
        alike_over_code_memory_within(code, 10_000_000)
    }

    /// [`alike_over_code_memory`] with a cycle budget.
    fn alike_over_code_memory_within(
        code: &[(Opcode, Vec<u32>)],
        budget: u64,
    ) -> (Stop, crate::jit::JitStats) {
        let run = |jit: bool| {
            let mut core = core_exiting(&DC233C, code, 3);
            core.bus.offer_direct_code();
            core.set_jit(jit);
            core.set_jit_tier_up(16);
            let stop = core.run(budget, &mut NoTrace);
            let seen = (core.stats.clone(), core.state.ar, core.bus.read(0x700, 16));
            (stop, seen, core.jit_stats())
        };
        let (stop, seen, jit) = run(true);
        let (stop1, seen1, _) = run(false);
        assert_eq!((&stop, &seen), (&stop1, &seen1), "budget {budget}");
        (stop, jit)
    }

    /// A loop over a stack frame (a1 plus offsets, a1 set before it) of 40 rounds that
    /// sums the word at a1 into a3; when a2 reaches 3 it leaves for `fix` (code the block
    /// never saw), which may move a1, and comes back.
    fn frame_loop(fix: &[(Opcode, Vec<u32>)]) -> Vec<(Opcode, Vec<u32>)> {
        let body = CODE + 9;
        let fix_at = CODE + 27;
        let end = fix_at + 3 * fix.len() as u32 + 3;
        let mut code = vec![
            (Movi, vec![2, 40]),
            (Movi, vec![1, 0x700]),
            (Movi, vec![3, 0]),
            (L32i, vec![4, 1, 0]),
            (Add, vec![3, 3, 4]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Beqi, vec![2, 3, fix_at]),
            (Bnez, vec![2, body]),
            (J, vec![end]),
        ];
        code.extend(fix.iter().cloned());
        code.push((J, vec![body]));
        code
    }

    #[test]
    fn a_stack_frame_checked_once_runs_its_accesses_compiled() {
        // docs/jit.md "Memory": a1's accesses, checked as the block starts, run compiled.
        let (stop, jit) = alike_over_code_memory(&frame_loop(&[(Nop, vec![])]));
        assert!(matches!(stop, Stop::Exited(_)), "{stop:?}");
        assert!(jit.executed > 100, "the loop ran compiled: {jit:?}");
    }

    #[test]
    fn a_budget_ending_in_a_block_of_stack_accesses_stops_where_the_interpreter_does() {
        // docs/jit.md "Exact stops": a settled access in a local memory adds nothing to a
        // pass's bound (it costs no cycles, and a miss leaves the block), so blocks of them
        // run closer to the look; every budget still stops at the interpreter's cycle and PC
        // (and the report shows the same instruction there).
        let code = frame_loop(&[(Nop, vec![])]);
        let mut compiled = 0;
        for budget in 100..320 {
            let (stop, jit) = alike_over_code_memory_within(&code, budget);
            assert!(matches!(stop, Stop::Fault(_)), "budget {budget}: {stop:?}");
            compiled += jit.executed;
        }
        assert!(compiled > 0, "some budgets ran compiled");
    }

    #[test]
    fn a_misaligned_stack_frame_leaves_the_block_for_the_interpreters_exception() {
        // a1 moves to 0x702 out of the block: its L32I at a1 is misaligned, which the frame
        // check (not each access) finds; the interpreter raises the exception at the load.
        let (stop, _) = alike_over_code_memory(&frame_loop(&[(Addi, vec![1, 1, 2])]));
        let Stop::Fault(r) = stop else {
            panic!("expected the misaligned load to fault, got {stop:?}");
        };
        assert_eq!(r.pc, CODE + 9, "{r}");
    }

    #[test]
    fn a_stack_frame_outside_memory_leaves_the_block_for_the_interpreters_fault() {
        // a1 moves to 0x100000, past the 1 MiB of RAM: the frame check finds it outside the
        // memory compiled code reaches, and the interpreter faults at the load.
        let fix = [(Movi, vec![5, 0x100]), (Slli, vec![1, 5, 12])];
        let (stop, _) = alike_over_code_memory(&frame_loop(&fix));
        let Stop::Fault(r) = stop else {
            panic!("expected the load past memory to fault, got {stop:?}");
        };
        assert_eq!(r.pc, CODE + 9, "{r}");
    }

    #[test]
    fn a_stack_frame_store_into_code_is_the_interpreters() {
        // a1 points at the code: in the round where a2 = 16 an S8I at a1 rewrites the loop's
        // ADDI's immediate to 2. The frame's granules hold code, so the frame check leaves
        // every round to the interpreter, whose store forgets the old ADDI.
        let body = CODE + 15;
        let code = [
            (Movi, vec![2, 40]),
            (Movi, vec![3, 0]),
            (Movi, vec![8, 2]),
            (Movi, vec![1, CODE >> 2]),
            (Slli, vec![1, 1, 2]),
            (Addi, vec![3, 3, 1]),
            (Bnei, vec![2, 16, body + 9]),
            (S8i, vec![8, 1, body - CODE + 2]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, body]),
        ];
        let (_, jit) = alike_over_code_memory(&code);
        // Rounds a2 = 40..=16 add 1 (the store comes after the ADDI), a2 = 15..=1 add 2:
        // checked by the comparison with the interpreter.
        assert_eq!(jit.executed, 0, "no round ran compiled: {jit:?}");
    }

    #[test]
    fn a_window_that_wraps_round_the_register_file_runs_compiled_with_its_registers() {
        // A loop naming a2..a11 with WINDOWBASE in the first, the last but one and the last
        // group: in the last two its registers wrap round the physical file, which compiled
        // code loads through the register mask (docs/jit.md "Registers"); every physical
        // register and counter is the interpreter's.
        let body = CODE + 9;
        let code = [
            (Movi, vec![2, 100]),
            (Movi, vec![3, 0]),
            (Movi, vec![11, 7]),
            (Addi, vec![3, 3, 3]),
            (Add, vec![10, 3, 11]),
            (Addi, vec![11, 11, 1]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, body]),
        ];
        let groups = DC233C.num_aregs / 4;
        for wb in [0, groups - 2, groups - 1] {
            let run = |jit: bool| {
                let mut core = core_exiting(&DC233C, &code, 3);
                core.state.set_windowbase(wb);
                core.state.set_sr(q7_isa::sreg::sr::WINDOWSTART, 1 << wb);
                core.refresh();
                core.set_jit(jit);
                core.set_jit_tier_up(16);
                let stop = core.run(10_000_000, &mut NoTrace);
                (stop, core.stats.clone(), core.state.ar, core.jit_stats())
            };
            let (stop, stats, ar, jit) = run(true);
            let (stop1, stats1, ar1, _) = run(false);
            assert_eq!(
                (&stop, &stats, ar),
                (&stop1, &stats1, ar1),
                "WINDOWBASE {wb}"
            );
            assert!(matches!(stop, Stop::Exited(_)), "{stop:?}");
            assert!(jit.executed > 300, "WINDOWBASE {wb}: {jit:?}");
            assert_eq!(
                ar[(wb as usize * 4 + 10) % DC233C.num_aregs as usize],
                300 + 7 + 99
            );
        }
    }

    /// 100 rounds of: a multiply and a load each used at once (a multiply and a load-use
    /// stall), a store and a taken back-edge.
    fn hot_loop() -> Vec<(Opcode, Vec<u32>)> {
        let body = CODE + 9;
        vec![
            (Movi, vec![2, 100]),
            (Movi, vec![3, 0]),
            (Movi, vec![6, 0x700]),
            (Addi, vec![3, 3, 3]),
            (Mull, vec![4, 3, 3]),
            (Add, vec![5, 4, 3]),
            (S32i, vec![5, 6, 0]),
            (L32i, vec![7, 6, 0]),
            (Add, vec![3, 3, 7]),
            (Extui, vec![3, 3, 0, 16]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, body]),
        ]
    }

    #[test]
    fn a_hot_loop_runs_compiled_with_the_interpreters_results_and_counters() {
        let (stop, a3, jit) = both_tiers(&hot_loop());
        assert!(matches!(stop, Stop::Exited(_)));
        assert_ne!(a3, 0);
        assert_eq!(jit.blocks, 1, "the loop body, compiled once");
    }

    /// 100 rounds (a2 = 100 down to 1) adding to a3 the unsigned and signed quotients and
    /// remainders of 1000 and -999 by a2 and of i32::MIN by -1; each round then divides a3 by
    /// a2 - 1, which is zero in the last.
    fn divide_loop() -> Vec<(Opcode, Vec<u32>)> {
        let body = CODE + 21;
        let mut code = vec![
            (Movi, vec![2, 100]),
            (Movi, vec![3, 0]),
            (Movi, vec![8, 1]),
            (Slli, vec![8, 8, 31]),
            (Movi, vec![9, (-1i32) as u32]),
            (Movi, vec![10, 1000]),
            (Movi, vec![11, (-999i32) as u32]),
            (Addi, vec![13, 2, (-1i32) as u32]),
        ];
        for (opcode, x, y) in [
            (Quou, 10, 2),
            (Remu, 10, 2),
            (Quos, 11, 2),
            (Rems, 11, 2),
            (Quos, 8, 9),
            (Rems, 8, 9),
        ] {
            code.extend([(opcode, vec![4, x, y]), (Add, vec![3, 3, 4])]);
        }
        code.extend([
            (Quou, vec![12, 3, 13]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, body]),
        ]);
        code
    }

    #[test]
    fn divides_run_compiled_with_the_interpreters_results_stalls_and_divide_by_zero() {
        // docs/jit.md "Tier-up": QUOS, QUOU, REMS and REMU run in compiled code (i32::MIN / -1
        // wraps as the interpreter's does), each blocking for `divide` - `issue` cycles
        // (31 by default) counted as `divide` stalls; by zero the block leaves before the
        // divide and the interpreter raises IntegerDivideByZero there.
        let code = divide_loop();
        let (stop, a3, jit) = both_tiers(&code);
        let Stop::Fault(r) = &stop else {
            panic!("expected the divide by zero to fault, got {stop:?}");
        };
        assert_eq!(r.pc, CODE + 21 + 13 * 3, "{r}");
        assert_eq!(r.disassembly, "quou\ta12, a3, a13");
        let expected = (1..=100u32).rev().fold(0u32, |s, d| {
            let n = -999i32;
            s.wrapping_add(1000 / d)
                .wrapping_add(1000 % d)
                .wrapping_add((n / d as i32) as u32)
                .wrapping_add((n % d as i32) as u32)
                .wrapping_add(i32::MIN as u32)
        });
        assert_eq!(a3, expected);
        assert!(jit.executed > 80 * 16, "the rounds ran compiled: {jit:?}");
        let mut core = core_exiting(&DC233C, &code, 3);
        core.set_jit(true);
        core.set_jit_tier_up(16);
        core.run(10_000_000, &mut NoTrace);
        assert_eq!(core.stats.stalls.divide, (99 * 7 + 6) * 31);
        // A budget ending anywhere in a round stops where the interpreter does (the pass bound
        // counts the divides' blocking, "Exact stops").
        for budget in (6_000..6_500).step_by(7) {
            alike_over_code_memory_within(&code, budget);
        }
    }

    #[test]
    fn a_loop_with_an_if_else_runs_as_one_region_with_the_interpreters_results() {
        // 100 rounds of: odd a2 adds 1 to a4 and jumps over the even arm, even a2 adds 2 to
        // a3 (docs/jit.md "Tier-up": the branch's target, once arrived at, and the jump's are
        // labels of the loop's block, so no round leaves it).
        let body = CODE + 9;
        let even = body + 9;
        let join = even + 3;
        let code = [
            (Movi, vec![2, 100]),
            (Movi, vec![3, 0]),
            (Movi, vec![4, 0]),
            (Bbci, vec![2, 0, even]),
            (Addi, vec![4, 4, 1]),
            (J, vec![join]),
            (Addi, vec![3, 3, 2]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, body]),
        ];
        let (stop, a3, jit) = both_tiers(&code);
        assert!(matches!(stop, Stop::Exited(_)));
        assert_eq!(a3, 2 * 50, "the even rounds");
        assert_eq!(
            jit.blocks, 1,
            "the loop with both arms, compiled once: {jit:?}"
        );
        // The loop's 6 and, by falling through, the exit's OR and MOVI (up to its SIMCALL).
        assert_eq!(jit.instructions, 6 + 2, "{jit:?}");
    }

    #[test]
    fn blocks_link_to_each_other_in_compiled_code_with_the_interpreters_counters() {
        // 400 rounds of a loop longer than a block (MAX_BLOCK): 62 ADDIs and a load fill the
        // first block, which leaves with the load's result pending (ready a cycle later) for
        // the next, which uses it at once: that block is compiled for the pending load, and a
        // load-use stall is charged on every round. The blocks leave for each other; linked
        // (docs/jit.md "Linking"), they are entered from the dispatcher while the later ones
        // are not yet compiled and near each look at the poll cycle (106 times), where
        // without links it is 385 times; a link that ignored the pending key would lose the
        // stalls.
        let head = CODE + 9;
        let mut code = vec![
            (Movi, vec![2, 400]),
            (Movi, vec![3, 0]),
            (Movi, vec![6, 0x700]),
        ];
        code.extend((0..crate::jit::MAX_BLOCK - 2).map(|_| (Addi, vec![8, 8, 1])));
        code.extend([
            (L32i, vec![7, 6, 0]),
            (Add, vec![3, 3, 7]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, head]),
        ]);
        let core = alike_in_both_tiers(&code, &[(0x700, 5)], 16);
        assert_eq!(core.state.a(3), 400 * 5);
        assert_eq!(
            core.stats.stalls.load_use, 400,
            "one load-use stall a round"
        );
        let jit = core.jit.as_deref().expect("tier 2 on");
        assert!(jit.stats.blocks >= 2, "{:?}", jit.stats);
        assert!(
            jit.calls < 200,
            "{} calls from the dispatcher for some 800 transitions",
            jit.calls
        );
    }

    #[test]
    fn an_l32r_compiled_for_one_litbase_leaves_when_litbase_changes() {
        // 40 rounds adding the literal L32R loads; after 24 a WSR sets LITBASE (0x9001), which
        // moves the literal from 0x0ff0 (3) to 0x8fe0 (7), and a jump goes back into the loop's
        // block, compiled for the old address (docs/jit.md "Memory").
        let lp = CODE + 15;
        let skip = CODE + 33;
        let code = [
            (Movi, vec![2, 40]),
            (Movi, vec![3, 0]),
            (Movi, vec![9, 0x240]),
            (Slli, vec![9, 9, 6]),
            (Addi, vec![9, 9, 1]),
            (L32r, vec![4, 0x0ff0]),
            (Add, vec![3, 3, 4]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnei, vec![2, 16, skip]),
            (Wsr, vec![9, u32::from(q7_isa::sreg::sr::LITBASE)]),
            (J, vec![skip]),
            (Bnez, vec![2, lp]),
        ];
        let core = alike_in_both_tiers(&code, &[(0x0ff0, 3), (0x8fe0, 7)], 4);
        assert_eq!(core.state.a(3), 24 * 3 + 16 * 7);
        assert!(core.jit_stats().blocks >= 1, "{:?}", core.jit_stats());
    }

    /// The row of special register `number` in the table RSR's and WSR's operand names.
    fn special_row(number: u8) -> u32 {
        let mut rows = q7_isa::sreg::SPECIAL_REGISTERS.iter();
        rows.position(|r| r.number == number)
            .expect("a special register") as u32
    }

    /// What a windowed run shows: the stop, the counters, the registers and the window state
    /// (WINDOWBASE, WINDOWSTART, the gate bits, the window limit, the lowest SP).
    type Windowed = (
        Stop,
        crate::timing::Stats,
        [u32; 64],
        (u32, u32, u8, u8, u32),
    );

    /// Runs `code` called (`Core::prepare_call` at CODE with SP 0x8000) on `config`, set up by
    /// `setup`, within `budget` cycles, with tier 2 on (compiling from the second arrival)
    /// and off: what both show must be the same; tier 2's run and JIT counters.
    fn calls_alike(
        config: &'static q7_isa::CoreConfig,
        code: &[(Opcode, Vec<u32>)],
        setup: impl Fn(&mut crate::core::Core<super::super::testing::TestBus>),
        budget: u64,
    ) -> (Windowed, crate::jit::JitStats) {
        let run = |jit: bool| {
            let mut core = core_exiting(config, code, 3);
            core.prepare_call(CODE, 0x8000, &[]);
            setup(&mut core);
            core.refresh();
            core.set_jit(jit);
            core.set_jit_tier_up(2);
            let stop = core.run(budget, &mut NoTrace);
            let window = (
                core.state.windowbase(),
                core.state.windowstart(),
                core.traps,
                core.window_limit,
                core.lowest_sp,
            );
            let seen = (stop, core.stats.clone(), core.state.ar, window);
            (seen, core.jit_stats())
        };
        let (seen, jit) = run(true);
        let (seen1, _) = run(false);
        assert_eq!(seen, seen1, "budget {budget}");
        (seen, jit)
    }

    /// The start of the tests calling `f` through CALLX8 from a register no L32R loaded (so
    /// it is not followed): a loop of rounds from CODE + 6, a2 counting down from 40, that
    /// passes a2 in a10, adds f's result to a3 and, after the call of round 8, makes the
    /// frame three groups up live (WINDOWSTART 0b1001); the caller's code goes on at
    /// CODE + 30.
    fn callx8_rounds(f: u32) -> Vec<(Opcode, Vec<u32>)> {
        let mut code = callx8_round(f);
        code.extend([
            (Bnei, vec![2, 8, CODE + 30]),
            (Movi, vec![9, 1 | 1 << 3]),
            (Wsr, vec![9, special_row(q7_isa::sreg::sr::WINDOWSTART)]),
        ]);
        code
    }

    /// The head of the rounds calling `f` through CALLX8 from a register no L32R loaded: a2
    /// set to 40, a jump to the round at CODE + 6, which passes a2 in a10, calls `f` and adds
    /// its result to a3 (CODE + 21 on).
    fn callx8_round(f: u32) -> Vec<(Opcode, Vec<u32>)> {
        vec![
            (Movi, vec![2, 40]),
            (J, vec![CODE + 6]),
            (Or, vec![10, 2, 2]),
            (Movi, vec![8, f >> 2]),
            (Slli, vec![8, 8, 2]),
            (Callx8, vec![8]),
            (Add, vec![3, 3, 10]),
        ]
    }

    /// The end of those rounds (a2 down by one, back to CODE + 6 while not zero, then past f)
    /// and `f` at its 4-byte aligned address after them: `entry a1, 32`, a2 + 1, RETW.
    fn rounds_end_and_f(f: u32) -> Vec<(Opcode, Vec<u32>)> {
        vec![
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, CODE + 6]),
            (J, vec![f + 9]),
            (Movi, vec![8, 0]),
            (Entry, vec![1, 32]),
            (Addi, vec![2, 2, 1]),
            (Retw, vec![]),
        ]
    }

    /// A loop of 40 rounds that calls `f` with CALL8 (its argument a10, the round's count,
    /// its result back in a10) and sums the results into a3, entered by a jump (so that the
    /// loop's head gets hot before `f` does); `pre` runs before each call, `post` after the
    /// sum; `f` (4-byte aligned after the loop) is `body` between `entry a1, 32` and RETW.
    fn calling_loop(
        pre: &[(Opcode, Vec<u32>)],
        post: &[(Opcode, Vec<u32>)],
        body: &[(Opcode, Vec<u32>)],
    ) -> Vec<(Opcode, Vec<u32>)> {
        let head = CODE + 6;
        let pad = 3 * (pre.len() + post.len()) as u32;
        // f 4-byte aligned (as CALL8's target is), after padding of 2- and 3-byte NOPs.
        let mut f = (CODE + 24 + pad + 3) & !3;
        if f - (CODE + 24 + pad) == 1 {
            f += 4;
        }
        let mut code = vec![(Movi, vec![2, 40]), (J, vec![head])];
        code.extend(pre.iter().cloned());
        code.extend([
            (Or, vec![10, 2, 2]),
            (Call8, vec![f]),
            (Add, vec![3, 3, 10]),
        ]);
        code.extend(post.iter().cloned());
        code.extend([(Addi, vec![2, 2, (-1i32) as u32]), (Bnez, vec![2, head])]);
        let end = f + 3 * (body.len() as u32 + 2);
        code.push((J, vec![end]));
        let mut gap = f - (CODE + 24 + pad);
        while gap > 0 {
            let (nop, size) = if gap % 2 == 1 { (Movi, 3) } else { (NopN, 2) };
            code.push((nop, if size == 3 { vec![8, 0] } else { vec![] }));
            gap -= size;
        }
        code.push((Entry, vec![1, 32]));
        code.extend(body.iter().cloned());
        code.push((Retw, vec![]));
        code
    }

    #[test]
    fn an_entry_led_block_leaves_at_the_first_instruction_naming_an_overflowing_group_on_each_path()
    {
        // f is called through CALLX8 from a register no L32R loaded, so it is not followed: it
        // is a block of its own from its ENTRY. After the call of round 8 a WSR makes the
        // frame three groups up live, so in round 7 f's a4..a7 are that frame's. Round 7
        // takes f's BEQI past the ADDI naming a4 to L, whose ADDI names a5: the interpreter
        // raises the overflow at L. The block checks each group on each path from a label
        // (docs/jit.md "Tier-up"), so it leaves before L too, and the run faults at the same
        // instruction and cycle; the rounds before ran compiled up to their RETW.
        let f = CODE + 44;
        let l = f + 9;
        let mut code = callx8_rounds(f);
        code.extend([
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, CODE + 6]),
            (J, vec![f + 18]),
            (Movi, vec![8, 0]),
            (NopN, vec![]),
        ]);
        code.extend([
            (Entry, vec![1, 32]),
            (Beqi, vec![2, 7, l]),
            (Addi, vec![4, 2, 1]),
            (Addi, vec![5, 4, 2]),
            (Or, vec![2, 5, 5]),
            (Retw, vec![]),
        ]);
        // Entered as a call (docs/jit.md "Calls") or with the ENTRY and RETW in line.
        for enter in [false, true] {
            let ((stop, ..), jit) =
                calls_alike(&DC233C, &code, |c| c.set_jit_enter_calls(enter), 1 << 20);
            assert!(
                matches!(&stop, Stop::Fault(r) if r.pc == l && r.windowbase == 2),
                "an overflow at L's ADDI (its vector holds no handler): {stop:?}"
            );
            assert!(jit.executed > 30 * 5, "rounds before ran compiled: {jit:?}");
        }
    }

    #[test]
    fn a_retw_compiled_in_line_leaves_the_gates_the_interpreters_refresh_does() {
        // f is called through CALLX8 (not followed), so its RETW is compiled in line (docs/jit.md
        // "Window traps"). After the call of round 8 a WSR makes the frame three groups up
        // live. In round 7 f runs two groups up and returns: the window limit is then 2, so
        // the interpreter raises the overflow at the caller's ADDI naming a12. The RETW's gate
        // bits keep the return site's block (which names a12) from being entered, so the
        // interpreter reaches that ADDI too and the run faults at the same instruction, cycle
        // and window; a RETW that left the gates open would run it compiled.
        let f = CODE + 48;
        let mut code = callx8_rounds(f);
        code.extend([(Bnei, vec![2, 7, CODE + 36]), (Addi, vec![12, 2, 0])]);
        code.extend(rounds_end_and_f(f));
        // Entered as a call (docs/jit.md "Calls") or with the ENTRY and RETW in line.
        for enter in [false, true] {
            let ((stop, ..), jit) =
                calls_alike(&DC233C, &code, |c| c.set_jit_enter_calls(enter), 1 << 20);
            assert!(
                matches!(&stop, Stop::Fault(r) if r.pc == CODE + 33 && r.windowbase == 0
                    && r.windowstart == 1 | 1 << 3),
                "an overflow at the caller's ADDI naming a12 (no handler): {stop:?}"
            );
            assert!(
                jit.executed > 30 * 10,
                "rounds before ran compiled: {jit:?}"
            );
        }
    }

    #[test]
    fn an_entry_compiled_in_line_raises_the_overflow_of_a_live_frame_within_callinc_groups() {
        // f is reached by JX with PS.CALLINC set to 2 by a WSR and its return address built
        // in a8, as a CALL8 would leave them: so the caller names no register of group 2 after
        // making it live (a CALL8 would, and its own gate would raise the overflow first).
        // Round 7 makes the frame two groups up live (WINDOWSTART 0b101) just before the
        // jump: f's ENTRY, compiled in line since round 2 (docs/jit.md "Window traps"), must
        // find it and leave for the interpreter, which raises the overflow at the ENTRY.
        let (f, ret) = (CODE + 0x44, CODE + 0x38);
        let ps = special_row(q7_isa::sreg::sr::PS);
        let mut code = vec![
            (Movi, vec![2, 40]),
            (J, vec![CODE + 6]),
            (Movi, vec![5, f >> 2]),
            (Slli, vec![5, 5, 2]),
            (Movi, vec![8, ret >> 2]),
            (Slli, vec![8, 8, 2]),
            (Movi, vec![9, 2]),
            (Slli, vec![9, 9, 30]),
            (Or, vec![8, 8, 9]),
            (Rsr, vec![9, ps]),
            (Movi, vec![11, 2]),
            (Slli, vec![11, 11, 16]),
            (Or, vec![9, 9, 11]),
            (Wsr, vec![9, ps]),
            (Bnei, vec![2, 7, CODE + 0x33]),
            (Movi, vec![3, 1 | 1 << 2]),
            (Wsr, vec![3, special_row(q7_isa::sreg::sr::WINDOWSTART)]),
            (Jx, vec![5]),
            (NopN, vec![]),
        ];
        code.extend(rounds_end_and_f(f));
        // Entered as a call (docs/jit.md "Calls") or with the ENTRY and RETW in line.
        for enter in [false, true] {
            let ((stop, ..), jit) =
                calls_alike(&DC233C, &code, |c| c.set_jit_enter_calls(enter), 1 << 20);
            assert!(
                matches!(&stop, Stop::Fault(r) if r.pc == f && r.windowbase == 0
                    && r.windowstart == 1 | 1 << 2),
                "an overflow at f's ENTRY (no handler): {stop:?}"
            );
            assert!(jit.executed > 30 * 3, "rounds before ran compiled: {jit:?}");
        }
    }

    /// Writes window handlers at their vectors (VECBASE 0) as the bare-metal runtime's are
    /// written (examples/bare-metal/rt/vectors.S): an overflow spills the frame's a0..a3 below
    /// the SP of the frame above it and the rest of a 8- or 12-register frame below its
    /// caller's SP, then RFWO; an underflow loads them back, then RFWU.
    fn install_window_handlers(core: &mut crate::core::Core<super::super::testing::TestBus>) {
        let mut write = |addr: u32, code: &[(Opcode, Vec<u32>)]| {
            let mut pc = addr;
            for (opcode, operands) in code {
                let bytes = opcode
                    .encode(operands, pc)
                    .expect("a valid handler instruction");
                core.bus.write(pc, bytes.as_bytes());
                pc += bytes.as_bytes().len() as u32;
            }
        };
        let off = |k: i32| k as u32;
        for (vector, n) in [(0x00, 4u32), (0x80, 8), (0x100, 12)] {
            let above = n + 1;
            let rest = |r: u32| off(4 * (r as i32 - 4) - 4 * (n as i32 - 4) - 16);
            let mut spill = vec![(S32e, vec![0, above, off(-16)])];
            let mut fill = vec![
                (L32e, vec![0, above, off(-16)]),
                (L32e, vec![1, above, off(-12)]),
                (L32e, vec![2, above, off(-8)]),
            ];
            if n > 4 {
                spill.push((L32e, vec![0, 1, off(-12)]));
                fill.push((L32e, vec![n - 1, 1, off(-12)]));
            }
            spill.extend([
                (S32e, vec![1, above, off(-12)]),
                (S32e, vec![2, above, off(-8)]),
                (S32e, vec![3, above, off(-4)]),
            ]);
            fill.push((L32e, vec![3, above, off(-4)]));
            for r in 4..n {
                spill.push((S32e, vec![r, 0, rest(r)]));
                fill.push((L32e, vec![r, n - 1, rest(r)]));
            }
            spill.push((Rfwo, vec![]));
            fill.push((Rfwu, vec![]));
            write(vector, &spill);
            write(vector + 0x40, &fill);
        }
        core.handler_code = std::iter::once(0..0x180).collect();
    }

    #[test]
    fn window_traps_raised_in_compiled_code_are_taken_there_as_the_interpreter_takes_them() {
        // fib(14) by recursion through CALL8: the register file holds four frames, so calls
        // overflow (at the ENTRY, or at the first instruction naming a4) and returns underflow.
        // Compiled code takes these traps itself and goes on to the handler's block (docs/jit.md
        // "Window traps"): the same results, counters and stops as the interpreter's, under
        // budgets that end anywhere, and nothing interpreted after the blocks are hot.
        let fib = CODE + 12;
        let ret = fib + 27;
        let code = vec![
            (Movi, vec![10, 14]),
            (Call8, vec![fib]),
            (Or, vec![3, 10, 10]),
            (J, vec![ret + 3]),
            (Entry, vec![1, 32]),
            (Movi, vec![4, 1]),
            (Bgeu, vec![4, 2, ret]),
            (Addi, vec![10, 2, (-1i32) as u32]),
            (Call8, vec![fib]),
            (Or, vec![5, 10, 10]),
            (Addi, vec![10, 2, (-2i32) as u32]),
            (Call8, vec![fib]),
            (Add, vec![2, 5, 10]),
            (Retw, vec![]),
        ];
        // The first frame's caller's SP, read when that frame spills its a4..a7.
        let setup = |core: &mut crate::core::Core<super::super::testing::TestBus>| {
            install_window_handlers(core);
            core.bus.write(0x8000 - 12, &0x9000u32.to_le_bytes());
        };
        let ((stop, stats, ar, _), _) = calls_alike(&DC233C, &code, setup, 1 << 24);
        assert!(matches!(stop, Stop::Exited(_)), "{stop:?}");
        assert_eq!(ar[3], 377, "fib(14)");
        assert!(stats.exceptions > 400, "traps taken: {}", stats.exceptions);
        // The run again, to see how often compiled code was entered from the interpreter's
        // loop: a trap left to the interpreter costs two entries (the handler's block, and
        // the code it returns to), one taken in compiled code none (it links on).
        let mut core = core_exiting(&DC233C, &code, 3);
        core.prepare_call(CODE, 0x8000, &[]);
        setup(&mut core);
        core.refresh();
        core.set_jit(true);
        core.set_jit_tier_up(2);
        core.run(1 << 24, &mut NoTrace);
        let entered = core.jit.as_ref().expect("tier 2 is on").calls;
        assert!(
            entered < 40,
            "compiled code entered {entered} times for {} traps",
            stats.exceptions
        );
        for budget in (1000..20_000).step_by(997) {
            calls_alike(&DC233C, &code, setup, budget);
        }
    }

    #[test]
    fn a_pass_bound_charges_each_interlock_once_and_taken_branches_only_where_control_can_go() {
        // The LCG loop of tests/programs/bench/lcg.c: MULL, MEMW, a volatile load from the
        // stack, ADDI, ADD and BLTU back; a pass takes 8 cycles on dc233c. With the stack
        // watched the run looks every POLL_CYCLES (4096) cycles, and a pass is compiled code's
        // only when its bound ends before the look: near each look the interpreter runs the
        // passes of one bound's worth of cycles, and then up to the next loop-back. The bound
        // (docs/jit.md "Exact stops") charges the loop's one taken branch (2), its multiply's
        // and load's latencies once (1 each), the two results that may be pending at the
        // start (2 each) and one issue cycle each (the loop's 6 and the way out's 2): 17
        // cycles, about two passes. (Charging every instruction a taken branch and the largest
        // interlock made it 36 cycles, four and a half passes.)
        let head = CODE + 21;
        let code = vec![
            (Movi, vec![1, 0x700]),
            (Movi, vec![9, 0x100]),
            (Slli, vec![9, 9, 8]),
            (S32i, vec![9, 1, 0]),
            (Movi, vec![11, 77]),
            (Movi, vec![10, 5]),
            (Movi, vec![8, 0]),
            (Mull, vec![2, 2, 11]),
            (Memw, vec![]),
            (L32i, vec![9, 1, 0]),
            (Addi, vec![8, 8, 1]),
            (Add, vec![2, 2, 10]),
            (Bltu, vec![8, 9, head]),
            (Or, vec![3, 2, 2]),
        ];
        let run = |jit: bool| {
            let mut core = core_exiting(&DC233C, &code, 3);
            core.stack_region = Some(crate::core::StackRegion {
                bottom: 0x400,
                top: 0x800,
            });
            core.set_jit(jit);
            core.set_jit_tier_up(16);
            let stop = core.run(10_000_000, &mut NoTrace);
            (stop, core.stats.clone(), core.jit_stats().executed)
        };
        let (stop, stats, executed) = run(true);
        let (stop1, stats1, _) = run(false);
        assert_eq!((&stop, &stats), (&stop1, &stats1));
        let looks = stats.cycles / crate::stop_request::POLL_CYCLES;
        let per_look = (stats.instructions - executed) as f64 / looks as f64;
        assert!(
            per_look < 4.0 * 6.0,
            "{per_look:.1} instructions interpreted per look ({looks} looks)"
        );
    }

    #[test]
    fn an_unwatched_run_looks_early_rather_than_interpreting_up_to_its_looks() {
        // 2000 rounds of 50 ADDs and a taken branch back, some 108,000 cycles: a look at the
        // stop request passes (every 65,536 cycles, the stack unwatched). Before it the block
        // would run past it; the look is made early instead (docs/jit.md "Exact
        // stops"), so nothing but the rounds before tier-up, the setup and the SIMCALL is
        // interpreted, and the budget still stops the run at the cycle the interpreter does.
        let body = CODE + 3;
        let mut code = vec![(Movi, vec![2, 2000])];
        code.extend((0..50).map(|_| (Add, vec![3, 3, 2])));
        code.extend([(Addi, vec![2, 2, (-1i32) as u32]), (Bnez, vec![2, body])]);
        let run = |jit: bool, budget: u64| {
            let mut core = core_exiting(&DC233C, &code, 3);
            core.set_jit(jit);
            core.set_jit_tier_up(16);
            let stop = core.run(budget, &mut NoTrace);
            (stop, core.stats.clone(), core.state.ar, core.jit_stats())
        };
        let (stop, stats, ar, jit) = run(true, 10_000_000);
        let (stop1, stats1, ar1, _) = run(false, 10_000_000);
        assert_eq!((&stop, &stats, ar), (&stop1, &stats1, ar1));
        assert!(matches!(stop, Stop::Exited(_)), "{stop:?}");
        assert!(stats.cycles > 65_536, "{stats:?}");
        assert_eq!(stats.instructions - jit.executed, 1 + 16 * 52 + 1);
        for budget in [65_536, 65_600, 100_003] {
            let (stop, stats, ar, _) = run(true, budget);
            let (stop1, stats1, ar1, _) = run(false, budget);
            assert_eq!((stop, stats, ar), (stop1, stats1, ar1), "budget {budget}");
        }
    }

    #[test]
    fn a_windowed_call_is_followed_into_its_callee_and_back_inside_one_block() {
        // f adds 5 to its argument. The loop's block follows the CALL8 into f and f's RETW
        // back (docs/jit.md "Calls"): one block, run from the second round on, in which every
        // later round's 8 instructions (f's 3 among them) run compiled.
        let code = calling_loop(&[], &[], &[(Addi, vec![2, 2, 5])]);
        for config in [&DC233C, &q7_isa::NCORE2GP] {
            let ((stop, stats, ar, window), jit) = calls_alike(config, &code, |_| {}, 1 << 20);
            assert!(matches!(stop, Stop::Exited(_)), "{stop:?}");
            assert_eq!(ar[3], (1..=40).map(|n| n + 5).sum::<u32>());
            assert_eq!(
                window,
                (0, 1, 0, 3, 0x8000 - 32),
                "the window as the call found it"
            );
            assert_eq!(jit.blocks, 1, "{jit:?}");
            assert_eq!(jit.executed, 39 * 8 + 1, "rounds 2 to 40 and the last jump");
            assert_eq!(stats.instructions, 2 + 40 * 8 + 1 + 3);
        }
    }

    #[test]
    fn a_recursive_callee_branching_into_the_blocks_own_code_leaves_there() {
        // f(n) loops n, n - 2, ... calling f(n - 1) while n >= 2, and returns n & 1. The block
        // at the return address of f's call follows that call into f itself (f is 7
        // instructions, so its recursive walk fits MAX_FOLLOWED): f's BLTUI, in the callee's
        // frame, targets `out`, the block's own RETW, into which its own code otherwise only
        // falls. A label is code of its own window, so the BLTUI leaves, and `out` is compiled
        // for what the fall-through brings. That label's code was once never placed (its
        // results were fixed by the fall-through's own jump there), and Cranelift aborted
        // the process on the jump into it.
        let head = CODE + 6;
        let f = CODE + 24;
        let (lp, out) = (f + 6, f + 18);
        let code = [
            (Movi, vec![2, 40]),
            (Movi, vec![3, 0]),
            (Movi, vec![10, 5]),
            (Call8, vec![f]),
            (Add, vec![3, 3, 10]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, head]),
            (J, vec![out + 3]),
            (Entry, vec![1, 32]),
            (Bltui, vec![2, 2, out]),
            (Addi, vec![10, 2, (-1i32) as u32]),
            (Call8, vec![f]),
            (Addi, vec![2, 2, (-2i32) as u32]),
            (Bgeui, vec![2, 2, lp]),
            (Retw, vec![]),
        ];
        // (ncore2gp: 64 registers, so the six frames fit without a window overflow.) Which
        // block gets hot first, and so which regions are built, depends on the count.
        let run = |tier_up: Option<u16>| {
            let mut core = core_exiting(&q7_isa::NCORE2GP, &code, 3);
            core.prepare_call(CODE, 0x8000, &[]);
            core.refresh();
            core.set_jit(tier_up.is_some());
            core.set_jit_tier_up(tier_up.unwrap_or(1));
            let stop = core.run(1 << 20, &mut NoTrace);
            ((stop, core.stats.clone(), core.state.ar), core.jit_stats())
        };
        let (interpreted, _) = run(None);
        assert!(
            matches!(interpreted.0, Stop::Exited(_)),
            "{:?}",
            interpreted.0
        );
        assert_eq!(interpreted.2[3], 40, "f(5) = 1, 40 times");
        for tier_up in [2, 3, 4, 6, 8, 12, 16, 24, 32] {
            let (compiled, jit) = run(Some(tier_up));
            assert_eq!(compiled, interpreted, "tier-up at {tier_up}");
            assert!(jit.executed > 0, "{jit:?}");
        }
    }

    #[test]
    fn a_callee_naming_a_live_frames_registers_leaves_before_its_entry_for_the_interpreters_overflow(
    ) {
        // After the call of round 33 (a2 = 8, the loop's block compiled by then) a WSR makes
        // the frame three groups up live. In round 34 f's ENTRY moves the window two groups,
        // so f's registers a4..a7 are that frame's, and the interpreter raises the window
        // overflow at f's first instruction naming them (after an ENTRY that raises nothing).
        // The followed ENTRY checks the groups f names with the call's, so the block leaves
        // before it and the interpreter raises the overflow at the same instruction and cycle.
        let skip = CODE + 6 + 9 + 9;
        let live = [
            (Bnei, vec![2, 8, skip]),
            (Movi, vec![9, 1 | 1 << 3]),
            (Wsr, vec![9, special_row(q7_isa::sreg::sr::WINDOWSTART)]),
        ];
        let code = calling_loop(&[], &live, &[(Addi, vec![4, 2, 5]), (Or, vec![2, 4, 4])]);
        let ((stop, stats, ..), jit) = calls_alike(&DC233C, &code, |_| {}, 1 << 20);
        assert!(
            matches!(&stop, Stop::Fault(r) if r.pc == ((CODE + 24 + 9 + 3) & !3) + 3
                && r.windowbase == 2 && r.windowstart == 1 | 1 << 2 | 1 << 3),
            "an overflow at f's ADDI (its vector holds no handler): {stop:?}"
        );
        assert!(jit.executed > 8 * 10, "rounds before ran compiled: {jit:?}");
        assert!(stats.instructions < 2 + 34 * 11, "{stats:?}");
    }

    /// A loop of 40 rounds calling `f` (at CODE + 36) through CALLX8 from a register no L32R
    /// loaded, so that the loop's block does not follow it and `f`'s block starts at its
    /// ENTRY: a2 counts down from 40 and is passed in a10, f's result is summed into a3;
    /// `f` is `entry a1, 32`, `body` (of 3-byte instructions), RETW, and the run ends after it.
    fn callx8_loop(body: &[(Opcode, Vec<u32>)]) -> (Vec<(Opcode, Vec<u32>)>, u32) {
        let f = CODE + 36;
        // (Every instruction of `body` is 3 bytes long.)
        let end = f + 6 + 3 * body.len() as u32;
        let mut code = callx8_round(f);
        code.extend([
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, CODE + 6]),
            (J, vec![end]),
            (Movi, vec![8, 0]),
            (Movi, vec![8, 0]),
            (Entry, vec![1, 32]),
        ]);
        code.extend(body.iter().cloned());
        code.push((Retw, vec![]));
        (code, f)
    }

    #[test]
    fn a_function_entered_as_a_call_runs_in_its_callers_window_and_returns_as_a_jump() {
        // docs/jit.md "Calls": f's block starts at its ENTRY, reached by CALLX8 (PS.CALLINC
        // 2), and f calls nothing: it is compiled entered as a call, its code in the frame
        // two groups up, so neither its ENTRY nor its RETW moves the window, and the RETW
        // returns to the caller as a jump. Results, counters, window and stops under budgets
        // ending anywhere are the interpreter's.
        let (code, f) = callx8_loop(&[(Addi, vec![2, 2, 1])]);
        for config in [&DC233C, &q7_isa::NCORE2GP] {
            let ((stop, stats, ar, window), jit) = calls_alike(config, &code, |_| {}, 1 << 20);
            assert!(matches!(stop, Stop::Exited(_)), "{stop:?}");
            assert_eq!(ar[3], (1..=40).map(|n| n + 1).sum::<u32>());
            assert_eq!(window.0, 0, "the window as the calls found it");
            assert!(jit.executed > 38 * 3, "f ran compiled: {jit:?}");
            assert_eq!(stats.instructions, 2 + 40 * 10 + 1 + 3);
            for budget in (60..900).step_by(7) {
                calls_alike(config, &code, |_| {}, budget);
            }
        }
        // The region at f, as the state after the run (PS.CALLINC 2) builds it.
        let region = |callinc: u32, enter: bool| {
            let mut core = core_exiting(&DC233C, &code, 3);
            core.prepare_call(CODE, 0x8000, &[]);
            core.refresh();
            core.set_jit(true);
            core.set_jit_tier_up(u16::MAX);
            core.set_jit_enter_calls(enter);
            core.run(1 << 20, &mut NoTrace);
            use q7_isa::sreg::{ps, sr};
            let ps = core.state.sr(sr::PS) & !ps::CALLINC | callinc << ps::CALLINC_SHIFT;
            core.state.set_sr(sr::PS, ps);
            let mut ops = core.take_ops();
            core.with_region(&mut ops, f, |_, spec| spec.entered)
                .expect("f is a region")
        };
        assert_eq!(region(2, true), Some(2));
        assert_eq!(
            region(1, true),
            Some(1),
            "compiled for the increment it is entered with"
        );
        assert_eq!(
            region(0, true),
            None,
            "no call's increment: ENTRY's own, in line"
        );
        assert_eq!(region(2, false), None);
    }

    #[test]
    fn a_function_entered_as_a_call_leaves_before_its_entry_for_another_increment() {
        // Round 7 calls f through CALLX4 (PS.CALLINC 1), the others through CALLX8: f's block,
        // compiled entered with increment 2, leaves before the ENTRY in round 7 and the
        // interpreter rotates the window by one group there.
        let f = CODE + 48;
        let mut code = vec![
            (Movi, vec![2, 40]),
            (J, vec![CODE + 6]),
            (Or, vec![10, 2, 2]),
            (Movi, vec![8, f >> 2]),
            (Slli, vec![8, 8, 2]),
            (Beqi, vec![2, 7, CODE + 33]),
            (Callx8, vec![8]),
            (Add, vec![3, 3, 10]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, CODE + 6]),
            (J, vec![f + 9]),
            (Or, vec![6, 2, 2]),
            (Callx4, vec![8]),
            (Add, vec![3, 3, 6]),
            (J, vec![CODE + 24]),
            (Movi, vec![8, 0]),
        ];
        code.extend([(Entry, vec![1, 32]), (Addi, vec![2, 2, 1]), (Retw, vec![])]);
        // (dc233c: ncore2gp has no CALLX4.)
        let ((stop, _, ar, _), jit) = calls_alike(&DC233C, &code, |_| {}, 1 << 20);
        assert!(matches!(stop, Stop::Exited(_)), "{stop:?}");
        assert_eq!(ar[3], (1..=40).map(|n| n + 1).sum::<u32>());
        assert!(jit.executed > 30 * 3, "{jit:?}");
    }

    #[test]
    fn a_function_entered_as_a_call_leaves_its_frame_live_where_it_faults_or_returns_elsewhere() {
        // In round 7 f loads a word from an odd address (an alignment fault, no handler), and
        // in round 10 it returns with a0 naming increment 1 (the interpreter's RETW finds no
        // live frame one group down: an underflow, no handler). Compiled code leaves inside
        // the function for both, its frame made live and the window moved as the ENTRY would
        // have, and the interpreter stops at the same instruction, cycle and window.
        let (code, f) = callx8_loop(&[
            (Bnei, vec![2, 7, CODE + 36 + 12]),
            (Addi, vec![5, 1, 1]),
            (L32i, vec![4, 5, 0]),
            (Addi, vec![2, 2, 1]),
        ]);
        let ((stop, ..), jit) = calls_alike(&DC233C, &code, |_| {}, 1 << 20);
        assert!(
            matches!(&stop, Stop::Fault(r) if r.pc == f + 9 && r.windowbase == 2),
            "the alignment fault in f's frame: {stop:?}"
        );
        assert!(jit.executed > 30 * 4, "{jit:?}");
        let (code, f) = callx8_loop(&[
            (Bnei, vec![2, 10, CODE + 36 + 21]),
            (Slli, vec![0, 0, 2]),
            (Srli, vec![0, 0, 2]),
            (Movi, vec![9, 1]),
            (Slli, vec![9, 9, 30]),
            (Or, vec![0, 0, 9]),
            (Addi, vec![2, 2, 1]),
        ]);
        let ((stop, ..), jit) = calls_alike(&DC233C, &code, |_| {}, 1 << 20);
        let retw = f + 3 + 3 * 7;
        assert!(
            matches!(&stop, Stop::Fault(r) if r.pc == retw && r.windowbase == 2),
            "the underflow at f's RETW: {stop:?}"
        );
        assert!(jit.executed > 30 * 4, "{jit:?}");
    }

    #[test]
    fn a_callee_that_changes_its_return_address_returns_where_the_interpreter_does() {
        // In round 7 f adds 3 to a0, so its RETW returns past the caller's ADD: the followed
        // RETW goes back into the block only for the call's own return value, and leaves for
        // the interpreter otherwise.
        let code = calling_loop(
            &[],
            &[],
            &[
                (Bnei, vec![2, 7, CODE + 24 + 9]),
                (Addi, vec![0, 0, 3]),
                (Addi, vec![2, 2, 5]),
            ],
        );
        let ((stop, _, ar, _), jit) = calls_alike(&DC233C, &code, |_| {}, 1 << 20);
        assert!(matches!(stop, Stop::Exited(_)), "{stop:?}");
        assert_eq!(ar[3], (1..=40).map(|n| n + 5).sum::<u32>() - (7 + 5));
        assert_eq!(jit.blocks, 1, "{jit:?}");
    }

    #[test]
    fn a_followed_entry_below_the_stack_limit_faults_where_the_interpreters_does() {
        // Each round lowers the caller's SP by 16; KSL lies where the 21st call's ENTRY puts
        // f's SP below it. The followed ENTRY checks the new SP against KSL, so the block
        // leaves before that ENTRY and the interpreter reports the stack-limit fault at the
        // same instruction and cycle (the lowest SP and every counter the same too).
        let code = calling_loop(
            &[(Addi, vec![1, 1, (-16i32) as u32])],
            &[],
            &[(Addi, vec![2, 2, 5])],
        );
        let limit = |c: &mut crate::core::Core<super::super::testing::TestBus>| {
            c.state
                .set_sr(q7_isa::sreg::sr::KSL, 0x8000 - 21 * 16 - 32 + 16);
        };
        let ((stop, stats, _, window), jit) = calls_alike(&q7_isa::NCORE2GP, &code, limit, 1 << 20);
        assert!(
            matches!(&stop, Stop::Fault(r) if format!("{r:?}").contains("StackLimit")),
            "{stop:?}"
        );
        assert_eq!(
            window.4,
            0x8000 - 20 * 16 - 32,
            "the 20th call's SP, the lowest"
        );
        assert!(
            jit.executed > 15 * 10,
            "the rounds before ran compiled: {jit:?}"
        );
        assert!(stats.instructions < 2 + 21 * 10 + 2, "{stats:?}");
    }

    /// A loop of 40 rounds calling through a5, which `load` sets before each CALLX8: f (its
    /// argument plus 5) until round 33 (a2 = 8), after whose call `store` puts g's address
    /// (a6) where `load` reads; g (its argument doubled) after. Runs it with tier 2 on and
    /// off, with `setup` (which puts f's address there), and checks the sum of the results.
    fn callx_f_then_g(
        load: (Opcode, Vec<u32>),
        store: (Opcode, Vec<u32>),
        setup: impl Fn(&mut crate::core::Core<super::super::testing::TestBus>, u32),
    ) -> crate::jit::JitStats {
        let (head, f, g) = (CODE + 6, CODE + 36, CODE + 48);
        let code = [
            (Movi, vec![2, 40]),
            (J, vec![head]),
            load,
            (Or, vec![10, 2, 2]),
            (Callx8, vec![5]),
            (Add, vec![3, 3, 10]),
            (Bnei, vec![2, 8, CODE + 24]),
            store,
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, head]),
            (J, vec![g + 9]),
            (Movi, vec![8, 0]),
            (Entry, vec![1, 32]),
            (Addi, vec![2, 2, 5]),
            (Retw, vec![]),
            (Movi, vec![8, 0]),
            (Entry, vec![1, 32]),
            (Add, vec![2, 2, 2]),
            (Retw, vec![]),
        ];
        let setup = |c: &mut crate::core::Core<super::super::testing::TestBus>| {
            c.state.set_a(6, g);
            setup(c, f);
        };
        let ((stop, _, ar, _), jit) = calls_alike(&DC233C, &code, setup, 1 << 20);
        assert!(matches!(stop, Stop::Exited(_)), "{stop:?}");
        let sum = (8..=40).map(|n| n + 5).sum::<u32>() + (1..=7).map(|n| 2 * n).sum::<u32>();
        assert_eq!(ar[3], sum);
        assert!(jit.executed > 30 * 9, "{jit:?}");
        jit
    }

    #[test]
    fn a_callx_to_another_callee_than_the_one_followed_is_the_interpreters() {
        // The loop calls through a5, which an L32R loads from the literal at 0x0ff0, where g's
        // address is stored from round 33. The CALLX8 is followed into f, the callee the
        // literal named when the block was compiled, only while a5 holds f; for g the block
        // leaves before the call for the interpreter.
        callx_f_then_g((L32r, vec![5, 0x0ff0]), (S32i, vec![6, 7, 0]), |c, f| {
            c.bus.write(0x0ff0, &f.to_le_bytes());
            c.state.set_a(7, 0x0ff0);
        });
    }

    #[test]
    fn a_callx_through_a_callee_address_kept_in_the_stack_frame_is_followed_while_it_holds() {
        // As above, but a5 is loaded from the caller's stack frame (a1 + 8), where the code
        // keeps the callee's address (as compilers keep a hoisted L32R's): the region's walk
        // predicts the word memory holds there when it is built, f, so the CALLX8 is
        // followed into f and the whole loop is one block; from round 33 the frame holds g,
        // and the block leaves before the call for the interpreter's.
        let jit = callx_f_then_g((L32i, vec![5, 1, 8]), (S32i, vec![6, 1, 8]), |c, f| {
            let slot = c.state.a(1) + 8;
            c.bus.write(slot, &f.to_le_bytes());
        });
        // The loop with f in it, and from round 33 the block at the return address, which the
        // interpreter's call of g arrives at.
        assert_eq!((jit.blocks, jit.instructions), (2, 24), "{jit:?}");
    }

    #[test]
    fn windowed_calls_in_compiled_code_leave_the_window_state_the_interpreter_leaves() {
        // 50 CALL8s, each with the SP 16 bytes lower, of a function whose ENTRY allocates a frame
        // inside the watched stack region (and above KSL, where the core has it) and whose RETW
        // returns, with a live frame 4 groups up (so that inside the function one group is
        // free); the last call exits from inside the function. Compiled (the call followed
        // into the function and back, docs/jit.md "Calls"; the exit leaves the block inside
        // it): at the exit, and at budgets that stop the run anywhere in later rounds,
        // WINDOWBASE, WINDOWSTART, the gate bits, the window limit, the lowest SP, the
        // registers and every counter are the interpreter's.
        let f = CODE + 24;
        let ret = f + 18;
        let end = f + 21;
        let code = [
            (Movi, vec![8, 0]),
            (Movi, vec![8, 0]),
            (Movi, vec![2, 50]),
            (Or, vec![10, 2, 2]),
            (Addi, vec![1, 1, (-16i32) as u32]),
            (Call8, vec![f]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (J, vec![CODE + 9]),
            // f: 4-byte aligned, as CALL8's target is.
            (Entry, vec![1, 32]),
            (S32i, vec![2, 1, 0]),
            (L32i, vec![3, 1, 0]),
            (Add, vec![4, 3, 3]),
            (Bnei, vec![2, 1, ret]),
            (J, vec![end]),
            (Retw, vec![]),
        ];
        let setup = |core: &mut crate::core::Core<super::super::testing::TestBus>| {
            core.state.set_sr(q7_isa::sreg::sr::WINDOWSTART, 1 | 1 << 4);
            core.stack_region = Some(crate::core::StackRegion {
                bottom: 0x7000,
                top: 0x8000,
            });
            core.state.set_sr(q7_isa::sreg::sr::KSL, 0x7800);
        };
        for config in [&DC233C, &q7_isa::NCORE2GP] {
            let ((stop, _, _, window), jit) = calls_alike(config, &code, setup, 10_000_000);
            assert!(matches!(stop, Stop::Exited(_)), "{stop:?}");
            assert_eq!(
                window,
                (2, 1 | 1 << 2 | 1 << 4, 0xcc, 1, 0x8000 - 50 * 16 - 32),
                "inside the last call: one free group, the deepest frame"
            );
            assert!(jit.executed > 50 * 8, "{jit:?}");
            for budget in 500..540 {
                calls_alike(config, &code, setup, budget);
            }
        }
    }

    /// The start of a loop of 40 rounds (a2 counting down) whose first instruction, at
    /// `CODE + 18`, is `addi a3, a3, 1`, with a8 = 2 and a9 the address of that ADDI's
    /// immediate (its byte 2): a store of a8 there makes it add 2.
    fn rewritten_loop() -> Vec<(Opcode, Vec<u32>)> {
        vec![
            (Movi, vec![2, 40]),
            (Movi, vec![3, 0]),
            (Movi, vec![8, 2]),
            (Movi, vec![9, CODE >> 2]),
            (Slli, vec![9, 9, 2]),
            (Addi, vec![9, 9, 18 + 2]),
            (Addi, vec![3, 3, 1]),
        ]
    }

    #[test]
    fn a_store_into_a_compiled_loop_drops_it_and_the_changed_code_runs() {
        // 40 rounds of `addi a3, a3, 1`; in the round where a2 = 16 an S8I rewrites the
        // immediate to 2 (byte 2 of the ADDI), after the block holding it was compiled.
        let body = CODE + 18;
        let mut code = rewritten_loop();
        code.extend([
            (Addi, vec![4, 4, 1]),
            (Addi, vec![5, 5, 1]),
            (Addi, vec![6, 6, 1]),
            (Addi, vec![7, 7, 1]),
            (Addi, vec![10, 10, 1]),
            (Addi, vec![11, 11, 1]),
            (Bnei, vec![2, 16, body + 27]),
            (S8i, vec![8, 9, 0]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, body]),
        ]);
        let (_, a3, jit) = both_tiers(&code);
        // Rounds a2 = 40..=16 add 1 (the store comes after the ADDI), a2 = 15..=1 add 2.
        assert_eq!(a3, 25 + 2 * 15);
        assert!(jit.invalidated >= 1, "{jit:?}");
    }

    /// Runs `code` (then exit with a3) interpreted, with tier 2 compiling at the 16th arrival,
    /// and the same compiling ahead from the 4th (docs/jit.md "Compiling ahead"): the stops,
    /// counters, registers and the memory at 0x700 must be the same in all three; a3 and
    /// tier 2's counters without and with compiling ahead.
    fn ahead_alike(
        code: &[(Opcode, Vec<u32>)],
    ) -> (u32, crate::jit::JitStats, crate::jit::JitStats) {
        let run = |jit: bool, ahead: u16| {
            let mut core = core_exiting(&DC233C, code, 3);
            core.set_jit(jit);
            core.set_jit_tier_up(16);
            core.set_jit_ahead(ahead);
            let stop = core.run(10_000_000, &mut NoTrace);
            let seen = (
                stop,
                core.stats.clone(),
                core.state.ar,
                core.bus.read(0x700, 16),
            );
            (seen, core.jit_stats())
        };
        let (interpreted, _) = run(false, u16::MAX);
        let (at_tier_up, sync) = run(true, u16::MAX);
        let (ahead, early) = run(true, 4);
        assert_eq!(at_tier_up, interpreted);
        assert_eq!(ahead, interpreted);
        (ahead.2[3], sync, early)
    }

    #[test]
    fn a_block_compiled_ahead_is_first_entered_at_the_tier_up_count_as_one_compiled_there() {
        // The hot loop (100 rounds): its block is built at the 4th arrival, compiled on the
        // compiling thread, put in at the 16th.
        let (_, sync, early) = ahead_alike(&hot_loop());
        assert_eq!((sync.blocks, sync.ahead), (1, 0));
        assert_eq!((early.blocks, early.ahead), (1, 1), "{early:?}");
        // Entered at the same arrival: the same instructions ran compiled.
        assert_eq!(early.executed, sync.executed);
        assert_eq!(early.code_bytes, sync.code_bytes);
    }

    #[test]
    fn a_panic_while_compiling_leaves_the_code_to_the_interpreter() {
        // docs/jit.md "Code cache": a translator or Cranelift bug panicking while the hot
        // loop's block is compiled (at its 16th arrival) is caught where the build unwinds;
        // the code cache is emptied and the interpreter runs the loop, with its results.
        let run = |jit: bool| {
            let mut core = core_exiting(&DC233C, &hot_loop(), 3);
            core.set_jit(jit);
            core.set_jit_tier_up(16);
            crate::jit::translate::PANIC_IN_COMPILE.with(|p| p.set(jit));
            let stop = core.run(10_000_000, &mut NoTrace);
            let seen = (stop, core.stats.clone(), core.state.ar);
            (seen, core.jit_stats())
        };
        let (interpreted, _) = run(false);
        let (caught, jit) = run(true);
        assert_eq!(caught, interpreted);
        assert_eq!(
            (jit.blocks, jit.executed, jit.flushes),
            (0, 0, 0),
            "{jit:?}"
        );
        assert!(!crate::jit::translate::PANIC_IN_COMPILE.with(|p| p.get()));
    }

    #[test]
    fn the_compiling_thread_builds_from_its_copy_of_a_block_the_ir_the_core_builds() {
        // docs/jit.md "Compiling ahead": the thread translates a copy of the core's block
        // (`OwnedSpec`); the IR and bound must be the core's, or code compiled ahead would
        // differ from code compiled at the tier-up count. The loop of `hot_loop` with its
        // branch back arrived at, as a run makes it.
        let mut core = core_exiting(&DC233C, &hot_loop(), 3);
        core.set_jit(true);
        core.set_jit_tier_up(u16::MAX);
        core.run(200, &mut NoTrace);
        let mut ops = core.take_ops();
        let irs = core.with_region(&mut ops, CODE + 9, |_, spec| {
            let copy = crate::jit::translate::OwnedSpec::of(spec);
            (
                crate::jit::translate::ir_of(spec),
                crate::jit::translate::ir_of(&copy.spec()),
            )
        });
        let (core_ir, thread_ir) = irs.expect("the loop is a region");
        let (bound, ir) = core_ir.expect("the core builds it");
        assert_eq!(thread_ir, Some((bound, ir)));
    }

    #[test]
    fn a_store_into_code_being_compiled_ahead_gives_it_up_and_the_changed_code_runs() {
        // 40 rounds of `addi a3, a3, 1` and an S8I of 2 whose address a MOVEQZ makes the
        // ADDI's immediate (byte 2) in the round where a2 = 32, and 0x700 in the others: no
        // taken branch but the loop's own, so the loop's start is the one address counted.
        // The store comes after the block was built ahead (4th arrival) and before it is put
        // in (16th): it must be built again from the changed code.
        let body = CODE + 18;
        let mut code = rewritten_loop();
        code.extend([
            (Addi, vec![10, 2, (-32i32) as u32]),
            (Movi, vec![11, 0x700]),
            (Moveqz, vec![11, 9, 10]),
            (S8i, vec![8, 11, 0]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, body]),
        ]);
        let (a3, sync, early) = ahead_alike(&code);
        // Rounds a2 = 40..=32 add 1 (the store comes after the ADDI), a2 = 31..=1 add 2.
        assert_eq!(a3, 9 + 2 * 31);
        assert_eq!((early.blocks, early.ahead), (1, 0), "{early:?}");
        assert_eq!(early.executed, sync.executed);
    }

    #[test]
    fn a_misaligned_load_in_a_compiled_loop_faults_where_the_interpreter_does() {
        // The loop's load walks a4 up from 0x700 by 4 a round until a2 reaches 3, then by 1:
        // the next round's load, in code compiled long before, is misaligned.
        let body = CODE + 9;
        let code = [
            (Movi, vec![2, 40]),
            (Movi, vec![4, 0x700]),
            (Movi, vec![5, 4]),
            (L32i, vec![7, 4, 0]),
            (Add, vec![4, 4, 5]),
            (Movi, vec![6, 1]),
            (Bnei, vec![2, 3, body + 14]),
            (MovN, vec![5, 6]),
            (Addi, vec![2, 2, (-1i32) as u32]),
            (Bnez, vec![2, body]),
        ];
        let (stop, _, jit) = both_tiers(&code);
        let Stop::Fault(r) = stop else {
            panic!("expected the misaligned load to fault");
        };
        assert_eq!(r.pc, body, "{r}");
        assert!(jit.blocks >= 1);
    }
}
