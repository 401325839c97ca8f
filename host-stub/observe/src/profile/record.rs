//! Recording one core's profile while it runs: every cycle the core counts goes to the
//! instruction address and the call path it was spent in (docs/profiling.md "Attribution").
//!
//! The core's counters ([`Stats`]: cycles, instructions, exceptions and each stall category of
//! the run report) come with every `After` and `Exception` event. What they grew by since the
//! previous such event belongs to the instruction the event names: for `After`, the one that
//! completed (its fetch stall, its issue cycle and its own stalls); for `Exception`, the one
//! that raised (EPC1, or DEPC for a double exception: what it charged before raising plus the
//! exception's entry). What the core counts after its last event (a semihosting exit) goes to
//! the last instruction charged, when the call ends. So the costs of a call add up to exactly
//! what the core counted during it.
//!
//! The call path is a shadow stack: a completed CALLn/CALLXn opens a frame for its target, a
//! completed RET/RETW closes the innermost one (RETW completes only after its window
//! underflow is handled, so handler code counts inside the frame that returns). Paths are the
//! nodes of a call tree, so that a cost is kept per (node, address) and never per instruction
//! executed: the recording's size is bounded by the code, not by the run's length.
//!
//! The runtime's phases (setup, marshal, compute, return, cleanup: PLATFORM.md "Annotation
//! port") are followed from the stores that commit PHASE_BEGIN and PHASE_END: what the counters
//! grew by from one such store to the next belongs to the phase that was open, so the phases
//! add up to the call too. A phase is not a frame: it opens and closes inside the runtime's
//! functions.

use rustc_hash::FxHashMap as HashMap;

use q7_emulator::platform::map::{reg::trace, MMIO};
use q7_emulator::platform::trace_port::{code, PHASES};
use q7_emulator::predecode::{Frame, Op};
use q7_emulator::state::CoreState;
use q7_emulator::timing::{Stalls, Stats};
use q7_emulator::trace::{Access, Event};
use q7_emulator::vector::Vector;
use q7_isa::sreg::sr;
use q7_isa::{Insn, Opcode};

/// The core address of TRACE_ARG0, where the phase of a PHASE_BEGIN is written.
const TRACE_ARG0: u32 = MMIO.0 + trace::BLOCK.at(&trace::ARGS[0], 0);
/// The core address of TRACE_EVENT, whose store commits an event.
const TRACE_EVENT: u32 = MMIO.0 + trace::BLOCK.at(&trace::EVENT, 0);

/// Phases counted: index 0 is outside any phase, then each code of [`PHASES`].
pub const PHASE_SLOTS: usize = PHASES.len() + 1;

/// The instruction of a site first charged by an exception (its instruction raised, so no
/// `After` named it): length 0 until the instruction completes there.
pub const RAISED: Insn = Insn {
    opcode: Opcode::Nop,
    len: 0,
    operands: [0; q7_isa::MAX_OPERANDS],
};

/// The deepest call path kept: calls deeper than this count in the frame at this depth
/// (a runaway recursion cannot grow the tree without bound).
pub const MAX_DEPTH: usize = 1024;

/// What one instruction address in one call path cost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cost {
    /// Cycles, instructions, exceptions and the stall categories of the run report.
    pub stats: Stats,
    /// Data accesses made.
    pub accesses: u64,
}

impl Cost {
    /// Adds `other`.
    pub fn add(&mut self, other: &Cost) {
        self.stats.add(&other.stats);
        self.accesses += other.accesses;
    }

    /// The issue cycles: those of no stall category.
    pub fn issue(&self) -> u64 {
        self.stats.cycles - self.stats.stalls.total()
    }
}

/// A node of the call tree: one path of calls from where the core started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The node of the caller (the root is its own parent).
    pub parent: u32,
    /// The address called (the root: where the core started).
    pub entry: u32,
    /// Times the call was made.
    pub calls: u64,
    /// The child called last: (its entry and call address as a key, its node), tried before
    /// the lookup.
    last_child: (u64, u32),
    /// The address of the call instruction that made it (the root: 0).
    pub call_pc: u32,
}

/// The cost of one instruction address in one call path.
#[derive(Debug, Clone)]
pub struct Site {
    /// The call-tree node.
    pub node: u32,
    /// The instruction's address.
    pub pc: u32,
    /// The instruction, as decoded there.
    pub insn: Insn,
    /// What it cost.
    pub cost: Cost,
}

/// What every charge of a site touches, in one cache line: the prediction of the site after
/// it and the counts that move with every instruction. Its stall categories, which move only
/// on a stall, are kept apart.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
struct Hot {
    /// The two sites that followed it last, newest first (a prediction that spares the hash
    /// lookup in straight-line code, loops and both ways of a branch).
    next: [(u64, u32); 2],
    cycles: u64,
    instructions: u64,
    exceptions: u64,
    accesses: u64,
}

/// One core's recording, kept across the calls it runs.
#[derive(Debug, Clone, Default)]
pub struct CoreRecord {
    /// The call tree; node 0 is the root.
    pub nodes: Vec<Node>,
    /// By (node, address): its index in `sites`.
    index: HashMap<u64, u32>,
    /// By (parent, entry): the child node.
    children: HashMap<(u32, u64), u32>,
    /// Per site (each (node, address) that ran): its charged counts, its stall categories, and
    /// its node, address and instruction.
    hot: Vec<Hot>,
    stalls: Vec<Stalls>,
    info: Vec<(u32, u32, Insn)>,
    /// The calls profiled.
    pub calls: u64,
    /// Calls made deeper than [`MAX_DEPTH`], counted in the frame at that depth.
    pub too_deep: u64,
    /// By phase code (0: outside any phase), what the calls cost in it.
    pub phases: [Cost; PHASE_SLOTS],
}

/// The key of (node, address).
#[inline(always)]
fn key(node: u32, pc: u32) -> u64 {
    (u64::from(node) << 32) | u64::from(pc)
}

impl CoreRecord {
    /// The root node for a call starting at `pc` (one root per recording: a later call that
    /// starts elsewhere keeps the first root's entry).
    fn root(&mut self, pc: u32) -> u32 {
        if self.nodes.is_empty() {
            self.nodes.push(Node {
                parent: 0,
                entry: pc,
                calls: 0,
                last_child: (u64::MAX, 0),
                call_pc: 0,
            });
        }
        self.nodes[0].calls += 1;
        0
    }

    /// The child of `parent` for a call of `entry` by the instruction at `call_pc`, made now
    /// (calls of one function from two places of the caller are two nodes, so that a line's
    /// calls can be told apart).
    fn child(&mut self, parent: u32, entry: u32, call_pc: u32) -> u32 {
        let call = key(entry, call_pc);
        let (last, node) = self.nodes[parent as usize].last_child;
        if last == call {
            self.nodes[node as usize].calls += 1;
            return node;
        }
        let next = self.nodes.len() as u32;
        let node = *self.children.entry((parent, call)).or_insert(next);
        if node == next {
            self.nodes.push(Node {
                parent,
                entry,
                calls: 0,
                last_child: (u64::MAX, 0),
                call_pc,
            });
        }
        self.nodes[parent as usize].last_child = (call, node);
        self.nodes[node as usize].calls += 1;
        node
    }

    /// Every site with what it cost.
    pub fn sites(&self) -> Vec<Site> {
        self.hot
            .iter()
            .zip(&self.stalls)
            .zip(&self.info)
            .map(|((h, stalls), &(node, pc, insn))| Site {
                node,
                pc,
                insn,
                cost: Cost {
                    stats: Stats {
                        instructions: h.instructions,
                        cycles: h.cycles,
                        stalls: stalls.clone(),
                        exceptions: h.exceptions,
                    },
                    accesses: h.accesses,
                },
            })
            .collect()
    }

    /// The site of (node, pc), made when new with the instruction `insn`; `after` is the site
    /// charged before it, whose prediction is tried first and then updated.
    #[inline(always)]
    fn site(&mut self, node: u32, pc: u32, insn: &Insn, after: Option<u32>) -> u32 {
        let k = key(node, pc);
        if let Some(prev) = after {
            let [first, second] = self.hot[prev as usize].next;
            if first.0 == k {
                return first.1;
            }
            if second.0 == k {
                self.hot[prev as usize].next = [second, first];
                return second.1;
            }
        }
        self.lookup(k, node, pc, insn, after)
    }

    /// [`CoreRecord::site`] past its prediction: the hash lookup, the site made when new.
    #[inline(never)]
    fn lookup(&mut self, k: u64, node: u32, pc: u32, insn: &Insn, after: Option<u32>) -> u32 {
        let next = self.hot.len() as u32;
        let slot = *self.index.entry(k).or_insert(next);
        if slot != next && self.info[slot as usize].2.len == 0 {
            // Made by an instruction that raised; now it completes, it is known.
            self.info[slot as usize].2 = *insn;
        }
        if slot == next {
            self.hot.push(Hot {
                next: [(u64::MAX, 0); 2],
                cycles: 0,
                instructions: 0,
                exceptions: 0,
                accesses: 0,
            });
            self.stalls.push(Stalls::default());
            self.info.push((node, pc, *insn));
        }
        if let Some(prev) = after {
            let n = &mut self.hot[prev as usize].next;
            *n = [(k, slot), n[0]];
        }
        slot
    }
}

/// Recording one call of one core: made with the core's counters as the call starts.
#[derive(Debug)]
pub struct CoreProfile {
    record: CoreRecord,
    /// The counters as the last event left them.
    last: Stats,
    /// Cycles one instruction or exception entry issues in (the core's timing model).
    issue: u64,
    /// The instruction charged last, and its site.
    pc: u32,
    site: Option<u32>,
    /// The current call path: its nodes, innermost last (never empty); `node` is the last.
    stack: Vec<u32>,
    node: u32,
    /// The phase open (its code; 0 none), the counters when it opened, and the last value
    /// written to TRACE_ARG0.
    phase: u32,
    phase_start: Stats,
    arg0: u32,
}

impl CoreProfile {
    /// Starts recording a call into `record` of a core whose counters are `stats`, whose PC
    /// is `pc` and whose instructions issue in `issue` cycles each.
    pub fn new(mut record: CoreRecord, stats: &Stats, pc: u32, issue: u32) -> CoreProfile {
        record.calls += 1;
        let root = record.root(pc);
        CoreProfile {
            record,
            last: stats.clone(),
            issue: u64::from(issue),
            pc,
            site: None,
            stack: vec![root],
            node: root,
            phase: 0,
            phase_start: stats.clone(),
            arg0: 0,
        }
    }

    /// Records the core's event `e`: a completed instruction ([`CoreProfile::after`]) or an
    /// exception's delivery ([`CoreProfile::exception`]); `Before` events carry nothing it needs.
    #[inline(always)]
    pub fn event(&mut self, e: Event<'_>) {
        match e {
            Event::After {
                pc,
                next,
                insn,
                stats,
                accesses,
                ..
            } => self.after(pc, next, insn, stats, accesses),
            Event::Exception {
                vector,
                pc,
                state,
                stats,
                ..
            } => self.exception(vector, pc, state, stats),
            Event::Before { .. } => {}
        }
    }

    /// The instruction at `pc` completed with the core's counters at `stats`, making the data
    /// accesses `accesses` and continuing at `next`.
    #[inline(always)]
    pub fn after(&mut self, pc: u32, next: u32, op: &Op, stats: &Stats, accesses: &[Access]) {
        self.charge_completed(pc, &op.insn, stats, accesses.len() as u64);
        if !accesses.is_empty() {
            self.phases(accesses, stats);
        }
        match op.frame {
            Frame::Call => self.call(next, pc),
            Frame::Return if self.stack.len() > 1 => {
                self.stack.pop();
                self.node = *self.stack.last().expect("the path is never empty");
            }
            _ => {}
        }
    }

    /// Follows the phase stores among `accesses`, made by an instruction that left the
    /// counters at `stats` (its own cycles count in the phase it closes).
    #[inline]
    fn phases(&mut self, accesses: &[Access], stats: &Stats) {
        for a in accesses.iter().filter(|a| a.write) {
            if a.addr == TRACE_ARG0 {
                self.arg0 = a.value;
            } else if a.addr == TRACE_EVENT {
                let open = match a.value {
                    code::PHASE_BEGIN => self.arg0,
                    code::PHASE_END => 0,
                    _ => continue,
                };
                self.close_phase(stats);
                // A phase code the table does not know counts outside any phase.
                self.phase = if (open as usize) < PHASE_SLOTS {
                    open
                } else {
                    0
                };
            }
        }
    }

    /// Adds what the counters grew by since the open phase opened to it.
    fn close_phase(&mut self, stats: &Stats) {
        let cost = &mut self.record.phases[self.phase as usize];
        cost.stats.add(&stats.since(&self.phase_start));
        self.phase_start.clone_from(stats);
    }

    /// An exception was delivered through `vector` with the core's counters at `stats`; `pc`
    /// is EPC1 and `state` the core's after delivery. What was charged since the last
    /// instruction completed belongs to the instruction that raised it: EPC1's, or DEPC's for
    /// a double exception (EPC1 then keeps the first exception's address).
    #[inline(always)]
    pub fn exception(&mut self, vector: Vector, pc: u32, state: &CoreState, stats: &Stats) {
        let raised = match vector {
            Vector::Double => state.sr(sr::DEPC),
            _ => pc,
        };
        self.charge(raised, &RAISED, stats, 0);
    }

    /// Opens the frame of a completed call of `target`. Past [`MAX_DEPTH`] the frame is the
    /// caller's again, so that its return still closes one frame.
    fn call(&mut self, target: u32, call_pc: u32) {
        let node = self.node;
        let frame = if self.stack.len() >= MAX_DEPTH {
            self.record.too_deep += 1;
            node
        } else {
            self.record.child(node, target, call_pc)
        };
        self.stack.push(frame);
        self.node = frame;
    }

    /// Charges what the counters grew by to the instruction at `pc` in the current path.
    ///
    /// Cycles grow by the issue cycle of each instruction and exception entry, or by a stall
    /// (docs/run-report.md), and no count shrinks: when the cycles grew by exactly the issue
    /// cycles of what completed, no stall category moved, and only those three counts are
    /// carried over (the common case, kept to a few scalar operations); otherwise every
    /// category is.
    #[inline(always)]
    fn charge(&mut self, pc: u32, insn: &Insn, stats: &Stats, accesses: u64) {
        let node = self.node;
        let site = self.record.site(node, pc, insn, self.site);
        let hot = &mut self.record.hot[site as usize];
        let cycles = stats.cycles - self.last.cycles;
        let instructions = stats.instructions - self.last.instructions;
        let exceptions = stats.exceptions - self.last.exceptions;
        hot.cycles += cycles;
        hot.instructions += instructions;
        hot.exceptions += exceptions;
        hot.accesses += accesses;
        self.last.cycles = stats.cycles;
        self.last.instructions = stats.instructions;
        self.last.exceptions = stats.exceptions;
        if cycles != self.issue * (instructions + exceptions) {
            // Every category is looked at: the semihosting exit counts an instruction but no
            // cycle, so the cycles need not exceed the issue cycles here.
            self.record.stalls[site as usize].take_growth(
                &stats.stalls,
                &mut self.last.stalls,
                u64::MAX,
            );
        }
        self.site = Some(site);
        self.pc = pc;
    }

    /// [`CoreProfile::charge`] for an `After` event, which follows exactly one instruction
    /// since the previous event and no exception (an exception's delivery is an event of its
    /// own, docs/profiling.md "Attribution"): the instruction and exception counts need no
    /// difference taken, and the instruction stalled when its cycles are not the issue cycle.
    #[inline(always)]
    fn charge_completed(&mut self, pc: u32, insn: &Insn, stats: &Stats, accesses: u64) {
        debug_assert_eq!(stats.instructions, self.last.instructions + 1);
        debug_assert_eq!(stats.exceptions, self.last.exceptions);
        let site = self.record.site(self.node, pc, insn, self.site);
        let hot = &mut self.record.hot[site as usize];
        let cycles = stats.cycles - self.last.cycles;
        hot.cycles += cycles;
        hot.instructions += 1;
        hot.accesses += accesses;
        self.last.cycles = stats.cycles;
        self.last.instructions += 1;
        if cycles != self.issue {
            // Cycles beyond the issue cycle are stall cycles (docs/run-report.md).
            let stalled = cycles.wrapping_sub(self.issue);
            self.record.stalls[site as usize].take_growth(
                &stats.stalls,
                &mut self.last.stalls,
                stalled,
            );
        }
        self.site = Some(site);
        self.pc = pc;
    }

    /// Ends the call with the core's counters at `stats`: what they grew by after the last
    /// event goes to the last instruction. The recording, for the core's next call.
    pub fn finish(mut self, stats: &Stats) -> CoreRecord {
        if *stats != self.last {
            self.charge(self.pc, &RAISED, stats, 0);
        }
        self.close_phase(stats);
        self.record
    }
}
