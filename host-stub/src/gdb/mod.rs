//! `--gdb PORT`: a GDB remote server for the cores of a run (docs/gdb.md).
//!
//! The `gdbstub` crate speaks the protocol (packets, acks, `vCont`, the stop replies); this
//! module supplies the target: the cores of one dispatch (`q7emu run`: 8 or 1) or the single
//! core of `q7emu run-elf`, one GDB thread each (thread id = PRID + 1), in all-stop mode —
//! when one core stops every core stops. Cores run in turn, [`QUANTUM`] instructions at a
//! time in PRID order, stepped through [`q7_emulator::debug::run`] (breakpoints, watchpoints,
//! the [`StopHook`]); since cores do not communicate within a dispatch (ARCHITECTURE.md
//! "Threads and determinism") this changes nothing any core computes. Memory goes through the
//! address map of the thread GDB selected ([`DebugMemory`]); an unmapped address is an error
//! reply. The register layout is [`arch`].

pub mod arch;

use std::net::{TcpListener, TcpStream};

use gdbstub::common::{Signal, Tid};
use gdbstub::conn::ConnectionExt;
use gdbstub::stub::{run_blocking, DisconnectReason, GdbStub, MultiThreadStopReason};
use gdbstub::target::ext::base::multithread::{
    MultiThreadBase, MultiThreadResume, MultiThreadResumeOps, MultiThreadSchedulerLocking,
    MultiThreadSchedulerLockingOps, MultiThreadSingleStep, MultiThreadSingleStepOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, HwBreakpoint, HwBreakpointOps, HwWatchpoint, HwWatchpointOps,
    SwBreakpoint, SwBreakpointOps, WatchKind,
};
use gdbstub::target::ext::monitor_cmd::{outputln, ConsoleOutput, MonitorCmd, MonitorCmdOps};
use gdbstub::target::ext::thread_extra_info::{ThreadExtraInfo, ThreadExtraInfoOps};
use gdbstub::target::{Target, TargetError, TargetResult};
use q7_emulator::debug::{self, DebugMemory, Halt, Limits, Points, StopHook, Watchpoint};
use q7_emulator::{Bus, Core, ExcCause, FaultKind, NoTrace, Stop};

use self::arch::{Xtensa, XtensaRegs};

/// Instructions a core runs before the next core's turn (and between looks at the
/// connection for GDB's Ctrl-C).
pub const QUANTUM: u64 = 4096;

/// The server could not be set up or the session failed.
#[derive(Debug, thiserror::Error)]
pub enum GdbError {
    /// The port could not be bound.
    #[error("--gdb: cannot listen on 127.0.0.1:{port}: {source}")]
    Listen {
        /// The port asked for.
        port: u16,
        /// Why.
        source: std::io::Error,
    },
    /// No debugger connected.
    #[error("--gdb: waiting for a debugger on {addr}: {source}")]
    Accept {
        /// The address listened on.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// Ctrl-C while waiting for a debugger.
    #[error("--gdb: interrupted (Ctrl-C) while waiting for a debugger on {addr}")]
    Interrupted {
        /// The address listened on.
        addr: String,
    },
    /// The protocol session failed (connection lost mid-packet, a malformed packet stream).
    #[error("--gdb: the debug session failed: {0}")]
    Session(String),
}

/// A listening server, bound before the run starts; [`Server::serve`] waits for GDB.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    addr: String,
}

impl Server {
    /// Listens on 127.0.0.1:`port` (0: a free port) and says where on stderr
    /// (`q7emu: GDB server listening on 127.0.0.1:PORT`).
    pub fn listen(port: u16) -> Result<Server, GdbError> {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .map_err(|source| GdbError::Listen { port, source })?;
        let addr = listener
            .local_addr()
            .map(|a| a.to_string())
            .map_err(|source| GdbError::Listen { port, source })?;
        eprintln!("q7emu: GDB server listening on {addr}");
        Ok(Server { listener, addr })
    }

    /// Waits for a connection, looking every 50 ms at the process's stop request so that
    /// Ctrl-C ends the wait ([`crate::interrupt`]).
    fn accept(&self) -> Result<(TcpStream, std::net::SocketAddr), GdbError> {
        let failed = |source| GdbError::Accept {
            addr: self.addr.clone(),
            source,
        };
        self.listener.set_nonblocking(true).map_err(failed)?;
        eprintln!(
            "q7emu: waiting for a debugger on {}: the cores are stopped before their first \
             instruction",
            self.addr
        );
        let stop = crate::interrupt::stop_request();
        let accepted = loop {
            match self.listener.accept() {
                Ok(conn) => break conn,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if stop.is_requested() {
                        return Err(GdbError::Interrupted {
                            addr: self.addr.clone(),
                        });
                    }
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(e) => return Err(failed(e)),
            }
        };
        accepted.0.set_nonblocking(false).map_err(failed)?;
        Ok(accepted)
    }

    /// Waits for GDB, then serves it `cores` (stopped before their next instruction) until
    /// they all stop, GDB detaches (the cores then run on to their end undebugged) or kills
    /// the run (unfinished cores stop as interrupted). Each core may spend `budget` more
    /// cycles. Returns each core's stop, in the order given.
    pub fn serve<B: Bus + DebugMemory + 'static>(
        &self,
        cores: Vec<&mut Core<B>>,
        budget: u64,
        hook: &mut dyn StopHook,
    ) -> Result<Vec<Stop>, GdbError> {
        let (stream, peer) = self.accept()?;
        eprintln!("q7emu: debugger connected from {peer}");
        let _ = stream.set_nodelay(true);
        let mut session = Session::new(cores, budget, hook);
        let stub = GdbStub::<Session<'_, '_, B>, TcpStream>::builder(stream)
            .packet_buffer_size(0x4000)
            .build()
            .map_err(|e| GdbError::Session(e.to_string()))?;
        let reason = stub
            .run_blocking::<EventLoop<'_, '_, B>>(&mut session)
            .map_err(|e| GdbError::Session(e.to_string()))?;
        match reason {
            DisconnectReason::Disconnect => {
                eprintln!("q7emu: debugger detached; the cores run on");
                session.finish_undebugged();
            }
            DisconnectReason::Kill => {
                eprintln!("q7emu: debugger killed the run");
                session.finish_killed();
            }
            DisconnectReason::TargetExited(_) | DisconnectReason::TargetTerminated(_) => {}
        }
        Ok(session.into_stops())
    }
}

/// Where a core is.
#[derive(Debug)]
enum CoreRun {
    /// Can run.
    Live,
    /// Stopped for good.
    Done(Stop),
}

/// The signal GDB is told for a core's fault (docs/gdb.md "Stop reasons").
pub fn fault_signal(kind: &FaultKind) -> Signal {
    let cause = |c: &ExcCause| match c {
        ExcCause::IllegalInstruction | ExcCause::Privileged | ExcCause::Alloca => Signal::SIGILL,
        ExcCause::Syscall => Signal::SIGSYS,
        ExcCause::LoadStoreAlignment => Signal::SIGBUS,
        ExcCause::IntegerDivideByZero => Signal::SIGFPE,
        ExcCause::InstructionFetchError
        | ExcCause::LoadStoreError
        | ExcCause::LoadProhibited
        | ExcCause::StoreProhibited => Signal::SIGSEGV,
    };
    match kind {
        FaultKind::Exception { cause: c, .. } | FaultKind::DoubleException { cause: c, .. } => {
            cause(c)
        }
        FaultKind::UnsupportedBundle { .. } | FaultKind::WindowException { .. } => Signal::SIGILL,
        FaultKind::StackLimit { .. }
        | FaultKind::StackOverflow { .. }
        | FaultKind::MemoryLimit { .. } => Signal::SIGSEGV,
        FaultKind::Breakpoint { .. } => Signal::SIGTRAP,
        FaultKind::BudgetExhausted { .. } => Signal::SIGXCPU,
        FaultKind::Interrupted => Signal::SIGINT,
        FaultKind::WaitForever | FaultKind::Exited { .. } => Signal::SIGABRT,
    }
}

/// The debugged cores and what GDB asked of them.
struct Session<'c, 'h, B: Bus + DebugMemory + 'static> {
    cores: Vec<&'c mut Core<B>>,
    runs: Vec<CoreRun>,
    deadlines: Vec<u64>,
    budget: u64,
    points: Points,
    hook: &'h mut dyn StopHook,
    /// The core GDB asked to single-step, if any (the others stay put meanwhile).
    step: Option<usize>,
    /// Scheduler locking (`vCont` without a default continue): only the cores GDB named in
    /// `continued` run.
    locked: bool,
    /// The cores a `vCont` named with a continue action.
    continued: Vec<bool>,
    /// Cores sitting at a breakpoint they stopped at: they execute it when resumed.
    at_breakpoint: Vec<bool>,
    /// The core whose stop GDB was last told of or whose registers it last read (the thread
    /// `monitor` commands are about).
    current: usize,
}

/// Thread id of core index `i`.
fn tid(i: usize) -> Tid {
    Tid::new(i + 1).expect("i + 1 is not zero")
}

impl<'c, 'h, B: Bus + DebugMemory + 'static> Session<'c, 'h, B> {
    fn new(cores: Vec<&'c mut Core<B>>, budget: u64, hook: &'h mut dyn StopHook) -> Self {
        let n = cores.len();
        Session {
            deadlines: cores
                .iter()
                .map(|c| c.stats.cycles.saturating_add(budget))
                .collect(),
            runs: (0..n).map(|_| CoreRun::Live).collect(),
            cores,
            budget,
            points: Points::default(),
            hook,
            step: None,
            locked: false,
            continued: vec![false; n],
            at_breakpoint: vec![false; n],
            current: 0,
        }
    }

    fn index(&self, t: Tid) -> Result<usize, TargetError<&'static str>> {
        let i = t.get() - 1;
        if i < self.cores.len() {
            Ok(i)
        } else {
            Err(TargetError::NonFatal)
        }
    }

    fn limits(&self, i: usize, steps: u64) -> Limits {
        Limits {
            steps,
            deadline: self.deadlines[i],
            budget: self.budget,
            past_breakpoint: self.at_breakpoint[i],
        }
    }

    /// Runs core `i` for up to `steps` instructions: the stop reason to report, if it stopped.
    fn run_core(&mut self, i: usize, steps: u64) -> Option<MultiThreadStopReason<u32>> {
        let limits = self.limits(i, steps);
        let halt = debug::run(self.cores[i], &self.points, self.hook, limits);
        self.at_breakpoint[i] = false;
        let t = tid(i);
        let reason = match halt {
            Halt::Ran => return None,
            Halt::Breakpoint { .. } => {
                self.at_breakpoint[i] = true;
                MultiThreadStopReason::SwBreak(t)
            }
            Halt::Watchpoint { watch, access } => MultiThreadStopReason::Watch {
                tid: t,
                kind: if access.write {
                    WatchKind::Write
                } else {
                    WatchKind::Read
                },
                addr: watch.addr.max(access.addr),
            },
            Halt::Hook(stop) => {
                eprintln!("q7emu: core {} stopped: {}", self.prid(i), stop.reason);
                MultiThreadStopReason::SignalWithThread {
                    tid: t,
                    signal: Signal(stop.signal),
                }
            }
            Halt::Stopped(stop) => {
                let reason = match &stop {
                    Stop::Exited(_) => None,
                    Stop::Fault(r) => {
                        let signal = fault_signal(&r.kind);
                        eprintln!(
                            "q7emu: core {} faulted, reported to the debugger as signal {}: {}",
                            self.prid(i),
                            signal.0,
                            r.kind
                        );
                        Some(MultiThreadStopReason::SignalWithThread { tid: t, signal })
                    }
                };
                self.runs[i] = CoreRun::Done(stop);
                return reason.or_else(|| self.all_done());
            }
        };
        Some(reason)
    }

    fn prid(&self, i: usize) -> u32 {
        self.cores[i].state.sr(q7_isa::sreg::sr::PRID)
    }

    /// The end of the session once no core is live: exited (`W`, the first core's status)
    /// when every core exited, else terminated with the first fault's signal (`X`).
    fn all_done(&self) -> Option<MultiThreadStopReason<u32>> {
        if self.runs.iter().any(|r| matches!(r, CoreRun::Live)) {
            return None;
        }
        let fault = self.runs.iter().find_map(|r| match r {
            CoreRun::Done(Stop::Fault(f)) => Some(fault_signal(&f.kind)),
            _ => None,
        });
        if let Some(signal) = fault {
            return Some(MultiThreadStopReason::Terminated(signal));
        }
        let status = self.runs.iter().find_map(|r| match r {
            CoreRun::Done(Stop::Exited(s)) => Some(*s),
            _ => None,
        });
        Some(MultiThreadStopReason::Exited(status.unwrap_or(0) as u8))
    }

    /// Resumes as GDB asked until something stops, or `incoming()` says GDB sent a byte.
    fn resume_run(
        &mut self,
        mut incoming: impl FnMut() -> bool,
    ) -> Option<MultiThreadStopReason<u32>> {
        if let Some(i) = self.step.take() {
            self.current = i;
            if !matches!(self.runs[i], CoreRun::Live) {
                return self.all_done().or(Some(MultiThreadStopReason::DoneStep));
            }
            // A finished step names its thread (`T05thread:…`), so GDB knows which core moved.
            let done = MultiThreadStopReason::SignalWithThread {
                tid: tid(i),
                signal: Signal::SIGTRAP,
            };
            return Some(self.run_core(i, 1).unwrap_or(done));
        }
        // Scheduler locking on cores that can no longer run would run nothing: run them all.
        let lock = self.locked
            && (0..self.cores.len())
                .any(|i| self.continued[i] && matches!(self.runs[i], CoreRun::Live));
        loop {
            let mut any = false;
            for i in 0..self.cores.len() {
                if !matches!(self.runs[i], CoreRun::Live) {
                    continue;
                }
                any = true;
                if lock && !self.continued[i] {
                    continue;
                }
                if let Some(reason) = self.run_core(i, QUANTUM) {
                    self.current = i;
                    return Some(reason);
                }
            }
            if !any {
                return self.all_done();
            }
            if incoming() {
                return None;
            }
        }
    }

    /// After a detach: every live core runs to its end without the debugger.
    fn finish_undebugged(&mut self) {
        for i in 0..self.cores.len() {
            if matches!(self.runs[i], CoreRun::Live) {
                let core = &mut *self.cores[i];
                let left = self.deadlines[i].saturating_sub(core.stats.cycles);
                self.runs[i] = CoreRun::Done(core.run_for(left, &mut NoTrace));
            }
        }
    }

    /// After a kill: every live core stops where it is, as interrupted.
    fn finish_killed(&mut self) {
        for i in 0..self.cores.len() {
            if matches!(self.runs[i], CoreRun::Live) {
                let core = &*self.cores[i];
                let report = core.report(core.state.pc, FaultKind::Interrupted, None);
                self.runs[i] = CoreRun::Done(Stop::Fault(Box::new(report)));
            }
        }
    }

    fn into_stops(self) -> Vec<Stop> {
        self.runs
            .into_iter()
            .zip(self.cores)
            .map(|(r, core)| match r {
                CoreRun::Done(stop) => stop,
                CoreRun::Live => Stop::Fault(Box::new(core.report(
                    core.state.pc,
                    FaultKind::Interrupted,
                    None,
                ))),
            })
            .collect()
    }

    /// `monitor mem ADDR [WORDS]`: words of the current core's memory as the core reads them
    /// (little-endian), four to a line; an unreadable word ends the listing with a note.
    fn monitor_mem(&self, addr: u32, count: u32, out: &mut ConsoleOutput<'_>) {
        let bus = &self.cores[self.current].bus;
        for row in (0..count).step_by(4) {
            let at = addr.wrapping_add(row * 4);
            let mut line = format!("{at:#010x}:");
            for k in row..count.min(row + 4) {
                let mut w = [0u8; 4];
                let a = addr.wrapping_add(k * 4);
                if bus.debug_read(a, &mut w).is_err() {
                    outputln!(out, "{line}");
                    outputln!(
                        out,
                        "{a:#010x}: not mapped on core {}",
                        self.prid(self.current)
                    );
                    return;
                }
                line.push_str(&format!(" {:#010x}", u32::from_le_bytes(w)));
            }
            outputln!(out, "{line}");
        }
    }

    /// `monitor regs [N]`: core N's (default: the current thread's) windowed registers and
    /// physical AR file.
    fn monitor_regs(&self, i: usize, out: &mut ConsoleOutput<'_>) {
        let s = &self.cores[i].state;
        outputln!(
            out,
            "core {}: pc {:#010x} ps {:#010x} windowbase {} windowstart {:#06x} sar {}",
            self.prid(i),
            s.pc,
            s.ps(),
            s.windowbase(),
            s.windowstart(),
            s.sar()
        );
        let w = s.window();
        for row in 0..4 {
            let cells: Vec<String> = (0..4)
                .map(|c| {
                    let r = row * 4 + c;
                    format!("a{r:<2} {:#010x}", w[r])
                })
                .collect();
            outputln!(out, "{}", cells.join("  "));
        }
        for row in 0..(s.num_aregs as usize).div_ceil(4) {
            let cells: Vec<String> = (0..4)
                .map(|c| {
                    let r = row * 4 + c;
                    format!("ar{r:<2} {:#010x}", s.ar[r])
                })
                .collect();
            outputln!(out, "{}", cells.join("  "));
        }
    }
}

impl<B: Bus + DebugMemory + 'static> Target for Session<'_, '_, B> {
    type Arch = Xtensa;
    type Error = &'static str;

    fn base_ops(&mut self) -> BaseOps<'_, Self::Arch, Self::Error> {
        BaseOps::MultiThread(self)
    }

    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }

    fn support_monitor_cmd(&mut self) -> Option<MonitorCmdOps<'_, Self>> {
        Some(self)
    }
}

impl<B: Bus + DebugMemory + 'static> MultiThreadBase for Session<'_, '_, B> {
    fn read_registers(&mut self, regs: &mut XtensaRegs, t: Tid) -> TargetResult<(), Self> {
        let i = self.index(t)?;
        // GDB reads a thread's registers when it selects it: `monitor` commands follow.
        self.current = i;
        *regs = XtensaRegs::from_state(&self.cores[i].state);
        Ok(())
    }

    fn write_registers(&mut self, regs: &XtensaRegs, t: Tid) -> TargetResult<(), Self> {
        let i = self.index(t)?;
        let core = &mut *self.cores[i];
        regs.write_to(&mut core.state);
        core.refresh();
        Ok(())
    }

    fn read_addrs(&mut self, start: u32, data: &mut [u8], t: Tid) -> TargetResult<usize, Self> {
        let i = self.index(t)?;
        let bus = &self.cores[i].bus;
        if bus.debug_read(start, data).is_ok() {
            return Ok(data.len());
        }
        // As much as is readable from the start; none is an error reply.
        let n = (0..data.len())
            .take_while(|&k| {
                bus.debug_read(start.wrapping_add(k as u32), &mut data[k..k + 1])
                    .is_ok()
            })
            .count();
        if n == 0 {
            Err(TargetError::NonFatal)
        } else {
            Ok(n)
        }
    }

    fn write_addrs(&mut self, start: u32, data: &[u8], t: Tid) -> TargetResult<(), Self> {
        let i = self.index(t)?;
        let core = &mut *self.cores[i];
        core.bus
            .debug_write(start, data)
            .map_err(|_| TargetError::NonFatal)?;
        core.invalidate_code();
        Ok(())
    }

    fn list_active_threads(&mut self, f: &mut dyn FnMut(Tid)) -> Result<(), Self::Error> {
        (0..self.cores.len()).for_each(|i| f(tid(i)));
        Ok(())
    }

    fn support_resume(&mut self) -> Option<MultiThreadResumeOps<'_, Self>> {
        Some(self)
    }

    fn support_thread_extra_info(&mut self) -> Option<ThreadExtraInfoOps<'_, Self>> {
        Some(self)
    }
}

impl<B: Bus + DebugMemory + 'static> MultiThreadResume for Session<'_, '_, B> {
    fn resume(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }

    fn clear_resume_actions(&mut self) -> Result<(), Self::Error> {
        self.step = None;
        self.locked = false;
        self.continued.iter_mut().for_each(|c| *c = false);
        Ok(())
    }

    fn set_resume_action_continue(
        &mut self,
        t: Tid,
        signal: Option<Signal>,
    ) -> Result<(), Self::Error> {
        if signal.is_some() {
            return Err("q7emu cannot deliver a signal to a core");
        }
        match self.continued.get_mut(t.get() - 1) {
            Some(c) => {
                *c = true;
                Ok(())
            }
            None => Err("no such thread"),
        }
    }

    fn support_scheduler_locking(&mut self) -> Option<MultiThreadSchedulerLockingOps<'_, Self>> {
        Some(self)
    }

    fn support_single_step(&mut self) -> Option<MultiThreadSingleStepOps<'_, Self>> {
        Some(self)
    }
}

impl<B: Bus + DebugMemory + 'static> MultiThreadSingleStep for Session<'_, '_, B> {
    fn set_resume_action_step(
        &mut self,
        t: Tid,
        signal: Option<Signal>,
    ) -> Result<(), Self::Error> {
        if signal.is_some() {
            return Err("q7emu cannot deliver a signal to a core");
        }
        let i = t.get() - 1;
        if i >= self.cores.len() {
            return Err("no such thread");
        }
        self.step = Some(i);
        Ok(())
    }
}

impl<B: Bus + DebugMemory + 'static> MultiThreadSchedulerLocking for Session<'_, '_, B> {
    fn set_resume_action_scheduler_lock(&mut self) -> Result<(), Self::Error> {
        self.locked = true;
        Ok(())
    }
}

impl<B: Bus + DebugMemory + 'static> Breakpoints for Session<'_, '_, B> {
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }
    fn support_hw_breakpoint(&mut self) -> Option<HwBreakpointOps<'_, Self>> {
        Some(self)
    }
    fn support_hw_watchpoint(&mut self) -> Option<HwWatchpointOps<'_, Self>> {
        Some(self)
    }
}

impl<B: Bus + DebugMemory + 'static> SwBreakpoint for Session<'_, '_, B> {
    fn add_sw_breakpoint(&mut self, addr: u32, _: usize) -> TargetResult<bool, Self> {
        self.points.breakpoints.insert(addr);
        Ok(true)
    }
    fn remove_sw_breakpoint(&mut self, addr: u32, _: usize) -> TargetResult<bool, Self> {
        Ok(self.points.breakpoints.remove(&addr))
    }
}

impl<B: Bus + DebugMemory + 'static> HwBreakpoint for Session<'_, '_, B> {
    fn add_hw_breakpoint(&mut self, addr: u32, _: usize) -> TargetResult<bool, Self> {
        self.points.breakpoints.insert(addr);
        Ok(true)
    }
    fn remove_hw_breakpoint(&mut self, addr: u32, _: usize) -> TargetResult<bool, Self> {
        Ok(self.points.breakpoints.remove(&addr))
    }
}

fn watch_kind(kind: WatchKind) -> debug::WatchKind {
    match kind {
        WatchKind::Write => debug::WatchKind::Write,
        WatchKind::Read => debug::WatchKind::Read,
        WatchKind::ReadWrite => debug::WatchKind::Access,
    }
}

impl<B: Bus + DebugMemory + 'static> HwWatchpoint for Session<'_, '_, B> {
    fn add_hw_watchpoint(
        &mut self,
        addr: u32,
        len: u32,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        self.points.watchpoints.push(Watchpoint {
            addr,
            len,
            kind: watch_kind(kind),
        });
        Ok(true)
    }
    fn remove_hw_watchpoint(
        &mut self,
        addr: u32,
        len: u32,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        let w = Watchpoint {
            addr,
            len,
            kind: watch_kind(kind),
        };
        match self.points.watchpoints.iter().position(|x| *x == w) {
            Some(at) => {
                self.points.watchpoints.remove(at);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

impl<B: Bus + DebugMemory + 'static> ThreadExtraInfo for Session<'_, '_, B> {
    fn thread_extra_info(&self, t: Tid, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let i = t.get() - 1;
        if i >= self.cores.len() {
            return Err("no such thread");
        }
        let what = match &self.runs[i] {
            CoreRun::Live => "live".to_string(),
            CoreRun::Done(Stop::Exited(s)) => format!("exited {s}"),
            CoreRun::Done(Stop::Fault(r)) => format!("faulted: {}", r.kind),
        };
        let text = format!("core {} ({what})", self.prid(i));
        let n = text.len().min(buf.len());
        buf[..n].copy_from_slice(&text.as_bytes()[..n]);
        Ok(n)
    }
}

impl<B: Bus + DebugMemory + 'static> MonitorCmd for Session<'_, '_, B> {
    fn handle_monitor_cmd(
        &mut self,
        cmd: &[u8],
        mut out: ConsoleOutput<'_>,
    ) -> Result<(), Self::Error> {
        let cmd = String::from_utf8_lossy(cmd);
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["regs"] => self.monitor_regs(self.current, &mut out),
            ["regs", n] => match n.parse::<usize>() {
                Ok(p) => match (0..self.cores.len()).find(|&i| self.prid(i) as usize == p) {
                    Some(i) => self.monitor_regs(i, &mut out),
                    None => outputln!(out, "no core {p} in this session"),
                },
                Err(_) => outputln!(out, "monitor regs: not a core number: {n}"),
            },
            ["mem", addr, rest @ ..] if rest.len() <= 1 => {
                let count = rest.first().map_or(Ok(1), |n| crate::number::parse_u32(n));
                match (crate::number::parse_u32(addr), count) {
                    (Ok(addr), Ok(count)) => self.monitor_mem(addr, count.min(256), &mut out),
                    _ => outputln!(out, "monitor mem: usage: mem ADDR [WORDS]"),
                }
            }
            _ => {
                outputln!(out, "q7emu monitor commands:");
                outputln!(
                    out,
                    "  regs [CORE]       the windowed registers a0-a15 and the physical AR file"
                );
                outputln!(
                    out,
                    "  mem ADDR [WORDS]  little-endian words of the current core's memory"
                );
            }
        }
        Ok(())
    }
}

/// The blocking event loop: runs the cores between GDB's packets.
struct EventLoop<'c, 'h, B>(std::marker::PhantomData<(&'c (), &'h (), B)>);

impl<'c, 'h, B: Bus + DebugMemory + 'static> run_blocking::BlockingEventLoop
    for EventLoop<'c, 'h, B>
{
    type Target = Session<'c, 'h, B>;
    type Connection = TcpStream;
    type StopReason = MultiThreadStopReason<u32>;

    #[allow(clippy::type_complexity)]
    fn wait_for_stop_reason(
        target: &mut Self::Target,
        conn: &mut Self::Connection,
    ) -> Result<
        run_blocking::Event<Self::StopReason>,
        run_blocking::WaitForStopReasonError<&'static str, std::io::Error>,
    > {
        let reason = target.resume_run(|| conn.peek().map(|b| b.is_some()).unwrap_or(true));
        match reason {
            Some(reason) => Ok(run_blocking::Event::TargetStopped(reason)),
            None => {
                let byte = conn
                    .read()
                    .map_err(run_blocking::WaitForStopReasonError::Connection)?;
                Ok(run_blocking::Event::IncomingData(byte))
            }
        }
    }

    fn on_interrupt(
        target: &mut Self::Target,
    ) -> Result<Option<MultiThreadStopReason<u32>>, &'static str> {
        Ok(Some(MultiThreadStopReason::SignalWithThread {
            tid: tid(target.current),
            signal: Signal::SIGINT,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/gdb.md "Stop reasons": the signal of each exception cause.
    #[test]
    fn each_exception_cause_has_the_signal_the_doc_gives() {
        let signal = |cause| {
            fault_signal(&FaultKind::Exception {
                cause,
                detail: String::new(),
            })
        };
        for (cause, want) in [
            (ExcCause::IllegalInstruction, Signal::SIGILL),
            (ExcCause::Privileged, Signal::SIGILL),
            (ExcCause::Alloca, Signal::SIGILL),
            (ExcCause::LoadStoreError, Signal::SIGSEGV),
            (ExcCause::InstructionFetchError, Signal::SIGSEGV),
            (ExcCause::LoadProhibited, Signal::SIGSEGV),
            (ExcCause::StoreProhibited, Signal::SIGSEGV),
            (ExcCause::LoadStoreAlignment, Signal::SIGBUS),
            (ExcCause::IntegerDivideByZero, Signal::SIGFPE),
            (ExcCause::Syscall, Signal::SIGSYS),
        ] {
            assert_eq!(signal(cause), want, "{cause:?}");
        }
        assert_eq!(ExcCause::ALL.len(), 10, "every cause is listed above");
        let double = FaultKind::DoubleException {
            cause: ExcCause::LoadStoreAlignment,
            detail: String::new(),
        };
        assert_eq!(
            fault_signal(&double),
            Signal::SIGBUS,
            "a double exception: its cause's"
        );
        let runaway = FaultKind::BudgetExhausted { max_cycles: 1 };
        assert_eq!(fault_signal(&runaway), Signal::SIGXCPU);
    }
}
