//! Running a core under a debugger (`q7emu … --gdb PORT`, docs/gdb.md): breakpoints,
//! watchpoints, single steps and a stop hook, one instruction at a time through
//! [`Core::step`] with a tracer of its own. Nothing here is on the path of a plain run: the
//! run loop of [`Core::run`] is unchanged, and only a debugged core is stepped this way.
//!
//! Breakpoints are kept here, not written into memory: a core stops *before* executing the
//! instruction at a breakpoint address, whatever kind of breakpoint GDB asked for (software
//! `Z0` or hardware `Z1`). Watchpoints look at the data accesses the core records for an
//! enabled tracer ([`Access`]) and stop the core *after* the instruction that made the access,
//! as GDB expects. A [`StopHook`] sees every event a plain run's tracer sees but `Before` —
//! each completed instruction with its accesses and the core's counters, each exception
//! delivered — whatever stops the core, and may stop the core with a reason of its own (a
//! checker's finding), which then wins over a watchpoint the same instruction trips. So the
//! observers a hook feeds (checked mode, the cycle profile) see a debugged core as a plain
//! run's tracer sees it, and stepping adds no cycle: a debugged core counts what it counts in
//! a plain run.

use std::collections::BTreeSet;

use crate::bus::{Bus, BusFault, FlatMemory};
use crate::core::Core;
use crate::fault::Stop;
use crate::platform::PlatformBus;
use crate::trace::{Access, Event, Tracer};

/// Which accesses a watchpoint stops at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WatchKind {
    /// Stores (GDB `Z2`).
    Write,
    /// Loads (GDB `Z3`).
    Read,
    /// Loads and stores (GDB `Z4`).
    Access,
}

impl WatchKind {
    /// Whether an access that is a store (`write`) or a load trips this kind.
    pub fn trips(self, write: bool) -> bool {
        match self {
            WatchKind::Write => write,
            WatchKind::Read => !write,
            WatchKind::Access => true,
        }
    }
}

/// A watched data range: `len` bytes at `addr`, in the core's own address space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watchpoint {
    /// First byte.
    pub addr: u32,
    /// Bytes (at least 1).
    pub len: u32,
    /// Which accesses stop.
    pub kind: WatchKind,
}

impl Watchpoint {
    /// Whether `a` touches the watched bytes with an access of the watched kind.
    pub fn hit_by(&self, a: &Access) -> bool {
        let (lo, hi) = (
            u64::from(self.addr),
            u64::from(self.addr) + u64::from(self.len.max(1)),
        );
        let (alo, ahi) = (u64::from(a.addr), u64::from(a.addr) + u64::from(a.size));
        self.kind.trips(a.write) && alo < hi && lo < ahi
    }
}

/// The breakpoints and watchpoints of a debug session (shared by all its cores: GDB sets
/// them for every thread).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Points {
    /// Instruction addresses a core stops before executing.
    pub breakpoints: BTreeSet<u32>,
    /// Watched data ranges.
    pub watchpoints: Vec<Watchpoint>,
}

impl Points {
    /// The first watchpoint `a` trips, if any.
    pub fn watch_hit(&self, a: &Access) -> Option<Watchpoint> {
        self.watchpoints.iter().copied().find(|w| w.hit_by(a))
    }
}

/// A stop asked for by a [`StopHook`]: why, in its own words, and the signal a debugger shows
/// for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookStop {
    /// What the hook found, for the user (e.g. a checker's finding).
    pub reason: String,
    /// The POSIX signal number a debugger reports it as (e.g. 11, SIGSEGV, for an
    /// out-of-bounds access).
    pub signal: u8,
}

/// Sees every instruction a debugged core completes and every exception it takes, as a
/// plain run's tracer does, and may stop the core after one: the seam for the observers of a
/// debugged run — a checker that lands the user in the debugger at its first finding, the
/// cycle profile's recorder.
pub trait StopHook {
    /// `core` (its PRID) produced `event`: an instruction completed ([`Event::After`], with its
    /// accesses and the core's counters) or an exception was delivered ([`Event::Exception`]);
    /// never [`Event::Before`]. `Some` stops the core there (after the instruction; after
    /// the delivery, at the vector).
    fn event(&mut self, core: u32, event: Event<'_>) -> Option<HookStop>;

    /// Whether the hook looks at the events at all: a core the debugger lets go (a detach)
    /// runs on through it ([`run_to_end`]) when it does, and in the plain run loop when not.
    fn watches(&self) -> bool {
        true
    }
}

/// The hook that never stops anything.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoHook;

impl StopHook for NoHook {
    fn event(&mut self, _: u32, _: Event<'_>) -> Option<HookStop> {
        None
    }

    fn watches(&self) -> bool {
        false
    }
}

/// Why [`run`] returned.
#[derive(Debug, Clone, PartialEq)]
pub enum Halt {
    /// The core is at a breakpoint, before the instruction there.
    Breakpoint {
        /// The address.
        pc: u32,
    },
    /// An instruction tripped a watchpoint; the core is after it.
    Watchpoint {
        /// The watchpoint tripped.
        watch: Watchpoint,
        /// The access that tripped it.
        access: Access,
    },
    /// The hook stopped the core after an instruction.
    Hook(HookStop),
    /// The instructions asked for ran without anything to stop for.
    Ran,
    /// The core stopped for good: it exited or faulted (or ran out of its cycle budget).
    Stopped(Stop),
}

/// The tracer a debugged core runs with: watchpoints and the hook.
struct DebugTracer<'a> {
    prid: u32,
    points: &'a Points,
    hook: &'a mut dyn StopHook,
    halt: Option<Halt>,
}

impl Tracer for DebugTracer<'_> {
    const ENABLED: bool = true;
    const BEFORE: bool = false;

    /// The hook sees every event, whatever stops the core; its stop wins over a watchpoint,
    /// and the first stop of a step over a later one.
    fn event(&mut self, e: Event<'_>) {
        if matches!(e, Event::Before { .. }) {
            return;
        }
        let hooked = self.hook.event(self.prid, e).map(Halt::Hook);
        let watched = || match e {
            Event::After { accesses, .. } => accesses.iter().find_map(|a| {
                let watch = self.points.watch_hit(a)?;
                Some(Halt::Watchpoint { watch, access: *a })
            }),
            _ => None,
        };
        if self.halt.is_none() {
            self.halt = hooked.or_else(watched);
        }
    }
}

/// How far [`run`] may take a core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most instructions (or exception deliveries) to execute now.
    pub steps: u64,
    /// The cycle count at which the core stops with a budget-exhausted report.
    pub deadline: u64,
    /// The budget that deadline stands for (said in that report).
    pub budget: u64,
    /// Execute the first instruction even if a breakpoint is set at it (resuming from that
    /// breakpoint).
    pub past_breakpoint: bool,
}

/// Runs `core` for at most `limits.steps` instructions, stopping before a breakpoint, after
/// an instruction that trips a watchpoint or that `hook` stops at, or when the core exits or
/// faults. Every [`Core::poll_period`] cycles (and at the start) it takes the look a plain run takes
/// ([`Core::look`]: cycle deadline, stop request, stack region).
pub fn run<B: Bus>(
    core: &mut Core<B>,
    points: &Points,
    hook: &mut dyn StopHook,
    limits: Limits,
) -> Halt {
    let prid = core.state.sr(q7_isa::sreg::sr::PRID);
    let mut tracer = DebugTracer {
        prid,
        points,
        hook,
        halt: None,
    };
    let mut next_look = core.stats.cycles;
    for i in 0..limits.steps {
        if core.stats.cycles >= next_look {
            if let Some(stop) = core.look(limits.deadline, limits.budget) {
                return Halt::Stopped(stop);
            }
            next_look = limits
                .deadline
                .min(core.stats.cycles.saturating_add(core.poll_period()));
        }
        if (i > 0 || !limits.past_breakpoint) && points.breakpoints.contains(&core.state.pc) {
            return Halt::Breakpoint { pc: core.state.pc };
        }
        if let Some(stop) = core.step(&mut tracer) {
            return Halt::Stopped(stop);
        }
        if let Some(halt) = tracer.halt.take() {
            return halt;
        }
    }
    Halt::Ran
}

/// Runs `core` to its end — its exit or fault, or `deadline`, the cycle count at which its
/// `budget` is spent — with `hook` seeing every event and no stop of the hook's taken: a core
/// the debugger let go, whose observers still see it to its end.
pub fn run_to_end<B: Bus>(
    core: &mut Core<B>,
    hook: &mut dyn StopHook,
    deadline: u64,
    budget: u64,
) -> Stop {
    let limits = Limits {
        steps: u64::MAX,
        deadline,
        budget,
        past_breakpoint: true,
    };
    loop {
        if let Halt::Stopped(stop) = run(core, &Points::default(), hook, limits) {
            return stop;
        }
    }
}

/// Memory as a debugger reads and writes it: through the core's own address map, without
/// device side effects or cycles. An address the map does not hold is an error.
pub trait DebugMemory {
    /// Fills `buf` from `addr` on.
    fn debug_read(&self, addr: u32, buf: &mut [u8]) -> Result<(), BusFault>;
    /// Writes `data` at `addr` on.
    fn debug_write(&mut self, addr: u32, data: &[u8]) -> Result<(), BusFault>;
}

impl DebugMemory for FlatMemory {
    fn debug_read(&self, addr: u32, buf: &mut [u8]) -> Result<(), BusFault> {
        buf.copy_from_slice(self.read_bytes(addr, buf.len())?);
        Ok(())
    }
    fn debug_write(&mut self, addr: u32, data: &[u8]) -> Result<(), BusFault> {
        self.write_bytes(addr, data)
    }
}

impl DebugMemory for PlatformBus {
    fn debug_read(&self, addr: u32, buf: &mut [u8]) -> Result<(), BusFault> {
        buf.copy_from_slice(&self.read_bytes(addr, buf.len())?);
        Ok(())
    }
    fn debug_write(&mut self, addr: u32, data: &[u8]) -> Result<(), BusFault> {
        // All or nothing: check every byte is mapped before writing any.
        self.read_bytes(addr, data.len())?;
        self.write_bytes(addr, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testing::{core_exiting, CODE};
    use q7_isa::Opcode;

    #[test]
    fn a_core_stops_before_a_breakpoint_and_resumes_past_it() {
        let code = [
            (Opcode::Movi, vec![2, 5]),
            (Opcode::Movi, vec![3, 7]),
            (Opcode::Add, vec![3, 3, 2]),
        ];
        let mut core = core_exiting(&q7_isa::DC233C, &code, 3);
        let mut points = Points::default();
        points.breakpoints.insert(CODE + 3);
        let limits = Limits {
            steps: 1000,
            deadline: 100_000,
            budget: 100_000,
            past_breakpoint: false,
        };
        assert_eq!(
            run(&mut core, &points, &mut NoHook, limits),
            Halt::Breakpoint { pc: CODE + 3 }
        );
        assert_eq!(core.stats.instructions, 1, "only the first MOVI ran");
        let again = Limits {
            past_breakpoint: true,
            ..limits
        };
        assert_eq!(
            run(&mut core, &points, &mut NoHook, again),
            Halt::Stopped(Stop::Exited(12))
        );
    }

    #[test]
    fn a_store_to_a_watched_byte_stops_after_the_store_and_a_load_does_not() {
        // movi a4, 0x200; movi a5, 9; s32i a5, a4, 0; l32i a6, a4, 0; exit with a6
        let code = [
            (Opcode::Movi, vec![4, 0x200]),
            (Opcode::Movi, vec![5, 9]),
            (Opcode::S32i, vec![5, 4, 0]),
            (Opcode::L32i, vec![6, 4, 0]),
        ];
        let mut core = core_exiting(&q7_isa::DC233C, &code, 6);
        let points = Points {
            breakpoints: BTreeSet::new(),
            watchpoints: vec![Watchpoint {
                addr: 0x203,
                len: 1,
                kind: WatchKind::Write,
            }],
        };
        let limits = Limits {
            steps: 1000,
            deadline: 100_000,
            budget: 100_000,
            past_breakpoint: false,
        };
        let halt = run(&mut core, &points, &mut NoHook, limits);
        assert_eq!(
            halt,
            Halt::Watchpoint {
                watch: points.watchpoints[0],
                access: Access {
                    addr: 0x200,
                    size: 4,
                    value: 9,
                    write: true,
                    hbm: None
                }
            }
        );
        assert_eq!(core.stats.instructions, 3);
        assert_eq!(
            run(&mut core, &points, &mut NoHook, limits),
            Halt::Stopped(Stop::Exited(9)),
            "the load of the watched word does not trip a write watchpoint"
        );
    }

    /// What a tracer or a hook saw of each event: its kind, PC and the core's counters.
    fn seen(e: &Event<'_>) -> Option<(bool, u32, crate::timing::Stats)> {
        match *e {
            Event::After { pc, stats, .. } => Some((true, pc, stats.clone())),
            Event::Exception { pc, stats, .. } => Some((false, pc, stats.clone())),
            Event::Before { .. } => None,
        }
    }

    #[derive(Default)]
    struct Seen(Vec<(bool, u32, crate::timing::Stats)>);

    impl Tracer for Seen {
        const ENABLED: bool = true;
        fn event(&mut self, e: Event<'_>) {
            self.0.extend(seen(&e));
        }
    }

    impl StopHook for Seen {
        fn event(&mut self, _: u32, e: Event<'_>) -> Option<HookStop> {
            self.0.extend(seen(&e));
            None
        }
    }

    /// A hook sees what a plain run's tracer sees, with the same counters, however often the
    /// core stops at breakpoints, watchpoints and single steps — the instruction that trips a
    /// watchpoint included — and the core counts what it counts in a plain run.
    #[test]
    fn a_hook_sees_every_event_of_a_plain_run_whatever_stops_the_core() {
        // movi a4, 0x200; movi a5, 9; s32i a5, a4, 0; l32i a6, a4, 0; add a6, a6, a5 (a
        // load-use stall); exit with a6
        let code = [
            (Opcode::Movi, vec![4, 0x200]),
            (Opcode::Movi, vec![5, 9]),
            (Opcode::S32i, vec![5, 4, 0]),
            (Opcode::L32i, vec![6, 4, 0]),
            (Opcode::Add, vec![6, 6, 5]),
        ];
        let mut plain = core_exiting(&q7_isa::DC233C, &code, 6);
        let mut tracer = Seen::default();
        assert_eq!(plain.run(100_000, &mut tracer), Stop::Exited(18));
        assert!(
            plain.stats.stalls.total() > 0,
            "a stall to attribute: {:?}",
            plain.stats
        );

        let mut core = core_exiting(&q7_isa::DC233C, &code, 6);
        let mut points = Points::default();
        points.breakpoints.insert(CODE + 3);
        points.watchpoints.push(Watchpoint {
            addr: 0x200,
            len: 4,
            kind: WatchKind::Write,
        });
        let mut hook = Seen::default();
        let limits = |steps, past_breakpoint| Limits {
            steps,
            deadline: 100_000,
            budget: 100_000,
            past_breakpoint,
        };
        assert_eq!(
            run(&mut core, &points, &mut hook, limits(1000, false)),
            Halt::Breakpoint { pc: CODE + 3 }
        );
        assert_eq!(
            run(&mut core, &points, &mut hook, limits(1, true)),
            Halt::Ran,
            "a single step"
        );
        assert!(matches!(
            run(&mut core, &points, &mut hook, limits(1000, false)),
            Halt::Watchpoint { .. }
        ));
        assert_eq!(
            run_to_end(&mut core, &mut hook, 100_000, 100_000),
            Stop::Exited(18)
        );
        assert_eq!(hook.0, tracer.0, "the hook saw what the plain tracer saw");
        assert_eq!(core.stats, plain.stats, "the plain run's counters");
    }

    #[test]
    fn a_hook_stops_the_core_with_its_own_reason() {
        struct AtSecond(u32);
        impl StopHook for AtSecond {
            fn event(&mut self, _: u32, e: Event<'_>) -> Option<HookStop> {
                let Event::After { pc, .. } = e else {
                    return None;
                };
                self.0 += 1;
                (self.0 == 2).then(|| HookStop {
                    reason: format!("second instruction at {pc:#x}"),
                    signal: 11,
                })
            }
        }
        let code = [(Opcode::Movi, vec![2, 5]), (Opcode::Movi, vec![3, 7])];
        let mut core = core_exiting(&q7_isa::DC233C, &code, 3);
        let limits = Limits {
            steps: 1000,
            deadline: 100_000,
            budget: 100_000,
            past_breakpoint: false,
        };
        let halt = run(&mut core, &Points::default(), &mut AtSecond(0), limits);
        assert_eq!(
            halt,
            Halt::Hook(HookStop {
                reason: format!("second instruction at {:#x}", CODE + 3),
                signal: 11
            })
        );
    }
}
