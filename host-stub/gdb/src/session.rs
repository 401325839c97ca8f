//! One debug session: the packets GDB sends, answered from the cores (docs/gdb.md).
//!
//! A resume runs the live cores it names (docs/gdb.md "Threads and stopping"): the stepping
//! ones one instruction each, else the continuing ones in turn until one stops, and ends in
//! one stop reply — the stop of a core it ran (`T`), `T00` naming the last of them when every
//! core it ran has exited while others are left, `W`/`X` when every core has ended — or in
//! `E05` at once when every core it names has ended. While the cores run, the connection is
//! looked at after every round of quanta: GDB's Ctrl-C stops them (`T02`), a closed
//! connection ends the session.

use q7_emulator::debug::{self, DebugMemory, Halt, Limits, Points, StopHook, Watchpoint};
use q7_emulator::{Bus, Core, FaultKind, NoTrace, Stop};

use super::arch::{XtensaRegs, G_REGISTERS};
use super::command::{self, shown, ActionKind, Command, PointType, Refusal, Thread, PID};
use super::wire::{Incoming, Link, PACKET_SIZE};
use super::{fault_signal, signal, MAX_BREAKPOINTS, MAX_READ, MAX_WATCHPOINTS, QUANTUM};

/// How a session ended.
#[derive(Debug)]
pub enum End {
    /// Every core ended; GDB was told (`W`/`X`).
    Ended,
    /// GDB detached (`D`).
    Detached,
    /// GDB killed the run (`k`, `vKill`).
    Killed,
    /// The connection closed or failed.
    Lost(std::io::Error),
    /// Ctrl-C in q7emu's own terminal.
    Interrupted,
}

/// Where a core is.
#[derive(Debug)]
enum CoreRun {
    /// Can run.
    Live,
    /// Stopped for good.
    Done(Stop),
}

/// A stop reply.
#[derive(Debug, Clone, PartialEq, Eq)]
enum StopReply {
    /// `T` + signal, naming the core's thread, and what else it says (`swbreak:;`, …).
    Core {
        /// Index of the core.
        core: usize,
        /// The signal.
        signal: u8,
        /// `key:value;` pairs after the thread.
        extra: String,
    },
    /// `W`: every core ended by its exit; the first core's status.
    Exited(u8),
    /// `X`: every core ended, one by a fault; the first fault's signal.
    Terminated(u8),
}

/// What one instruction run of a core came to.
enum CoreEvent {
    /// It ran without a stop.
    Ran,
    /// It stopped (breakpoint, watchpoint, hook, fault): the reply.
    Stop(StopReply),
    /// It exited (its kernel returned): nothing to report on its own.
    Exited,
}

/// What a resume came to.
enum Resumed {
    /// A stop to reply.
    Stop(StopReply),
    /// The session ends without a reply.
    End(End),
}

/// The answer to a packet.
enum Answer {
    /// A reply body.
    Reply(Vec<u8>),
    /// `OK`, then acknowledgements off (`QStartNoAckMode`).
    AcksOff,
    /// Console text (`O` packets), then `OK`.
    Console(String),
    /// Run the cores; the reply is the stop.
    Run(Vec<ActionKind>),
    /// A reply, then the session ends.
    Last(Vec<u8>, End),
    /// No reply; the session ends.
    Silent(End),
}

/// Bytes as hex text, two lowercase digits a byte.
fn hex(bytes: &[u8]) -> Vec<u8> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    bytes
        .iter()
        .flat_map(|&b| [DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 15)]])
        .collect()
}

/// The debugged cores and what GDB asked of them.
pub struct Session<'c, 'h, B: Bus + DebugMemory + 'static> {
    cores: Vec<&'c mut Core<B>>,
    runs: Vec<CoreRun>,
    deadlines: Vec<u64>,
    budget: u64,
    points: Points,
    hook: &'h mut dyn StopHook,
    /// Cores sitting at a breakpoint they stopped at: they execute it when resumed.
    at_breakpoint: Vec<bool>,
    /// The core of register and memory packets (`Hg`, and the last stop), which `monitor`
    /// commands are about.
    selected: usize,
    /// The core `c`/`s` resume (`Hc`); `None`: every core.
    resume_with: Option<usize>,
    /// GDB offered `multiprocess+`: thread ids are written `pPID.TID`.
    multiprocess: bool,
}

impl<'c, 'h, B: Bus + DebugMemory + 'static> Session<'c, 'h, B> {
    /// A session on `cores`, each with `budget` more cycles.
    pub fn new(cores: Vec<&'c mut Core<B>>, budget: u64, hook: &'h mut dyn StopHook) -> Self {
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
            at_breakpoint: vec![false; n],
            selected: 0,
            resume_with: None,
            multiprocess: false,
        }
    }

    /// Serves packets until the session ends.
    pub fn serve(&mut self, link: &mut Link) -> End {
        let stop = q7_conventions::interrupt::stop_request();
        loop {
            if stop.is_requested() {
                return End::Interrupted;
            }
            let step = link.recv(true).and_then(|incoming| match incoming {
                Some(incoming) => self.incoming(incoming, link),
                None => Ok(None),
            });
            match step {
                Ok(None) => {}
                Ok(Some(End::Lost(_))) | Err(_) if stop.is_requested() => return End::Interrupted,
                Ok(Some(end)) => return end,
                Err(e) => return End::Lost(e),
            }
        }
    }

    /// What arrived while the cores are stopped.
    fn incoming(&mut self, incoming: Incoming, link: &mut Link) -> std::io::Result<Option<End>> {
        match incoming {
            // A Ctrl-C that crossed a stop reply: the cores are stopped already.
            Incoming::Ack | Incoming::Interrupt => Ok(None),
            Incoming::Nack => link.resend().map(|()| None),
            Incoming::Overlong { len } => {
                link.ack(true)?;
                self.refuse(link, b"", &Refusal::Overlong(len))?;
                Ok(None)
            }
            Incoming::Packet { body, checksum_ok } => {
                if !checksum_ok {
                    if link.acks {
                        // The protocol's answer: send it again.
                        return link.ack(false).map(|()| None);
                    }
                    eprintln!(
                        "q7emu: debugger packet {:?} with a wrong checksum in no-ack mode: \
                         taken as sent",
                        shown(&body)
                    );
                }
                link.ack(true)?;
                self.packet(&body, link)
            }
        }
    }

    /// Answers one packet.
    fn packet(&mut self, body: &[u8], link: &mut Link) -> std::io::Result<Option<End>> {
        let answer = match command::parse(body).and_then(|cmd| self.command(cmd)) {
            Ok(answer) => answer,
            Err(refusal) => {
                self.refuse(link, body, &refusal)?;
                return Ok(None);
            }
        };
        match answer {
            Answer::Reply(reply) => link.send(&reply)?,
            Answer::AcksOff => {
                // `OK` goes out under acknowledgements; nothing after it does.
                link.send(b"OK")?;
                link.acks = false;
            }
            Answer::Console(text) => {
                // Each `O` packet's hex within the packet size.
                for chunk in text.as_bytes().chunks(PACKET_SIZE / 2 - 1) {
                    let mut o = b"O".to_vec();
                    o.extend(hex(chunk));
                    link.send(&o)?;
                }
                link.send(b"OK")?;
            }
            Answer::Last(reply, end) => {
                link.send(&reply)?;
                return Ok(Some(end));
            }
            Answer::Silent(end) => return Ok(Some(end)),
            Answer::Run(plan) => match self.resume(&plan, link) {
                Err(refusal) => self.refuse(link, body, &refusal)?,
                Ok(Resumed::End(end)) => return Ok(Some(end)),
                Ok(Resumed::Stop(stop)) => {
                    link.send(self.stop_text(&stop).as_bytes())?;
                    if matches!(stop, StopReply::Exited(_) | StopReply::Terminated(_)) {
                        return Ok(Some(End::Ended));
                    }
                }
            },
        }
        Ok(None)
    }

    /// Replies `Enn` and says why on stderr (an unmapped address only to GDB, which says it).
    fn refuse(&self, link: &mut Link, body: &[u8], refusal: &Refusal) -> std::io::Result<()> {
        if !matches!(refusal, Refusal::Unmapped { .. }) {
            let packet = if body.is_empty() {
                String::new()
            } else {
                format!(" {:?}", shown(body))
            };
            eprintln!(
                "q7emu: debugger packet{packet}: {refusal} (replied {})",
                refusal.reply()
            );
        }
        link.send(refusal.reply().as_bytes())
    }

    /// The answer to a parsed packet.
    fn command(&mut self, cmd: Command) -> Result<Answer, Refusal> {
        let reply = |text: &str| Ok(Answer::Reply(text.as_bytes().to_vec()));
        match cmd {
            Command::Supported { multiprocess } => {
                self.multiprocess = multiprocess;
                reply(&format!(
                    "PacketSize={PACKET_SIZE:x};QStartNoAckMode+;multiprocess+;swbreak+;\
                     hwbreak+;vContSupported+"
                ))
            }
            Command::NoAckMode => Ok(Answer::AcksOff),
            Command::StopReason => {
                let stop = StopReply::Core {
                    core: self.selected,
                    signal: signal::SIGTRAP,
                    extra: String::new(),
                };
                reply(&self.stop_text(&stop))
            }
            Command::SetThread { resume, thread } => {
                let core = self.core(thread)?;
                if resume {
                    // `Hc0`, any thread, is every thread, as `Hc-1`.
                    self.resume_with = match thread {
                        Thread::Id(_) => core,
                        Thread::All | Thread::Any => None,
                    };
                } else if let Some(i) = core {
                    self.selected = i;
                }
                reply("OK")
            }
            Command::ReadRegisters => {
                let regs = XtensaRegs::from_state(&self.cores[self.selected].state);
                Ok(Answer::Reply(hex(&regs.to_bytes())))
            }
            Command::WriteRegisters(bytes) => {
                let regs = XtensaRegs::from_bytes(&bytes).expect("parse checked the length");
                self.write_registers(&regs);
                reply("OK")
            }
            Command::ReadRegister(n) => {
                let regs = XtensaRegs::from_state(&self.cores[self.selected].state);
                Ok(Answer::Reply(hex(&regs.words()[n].to_be_bytes())))
            }
            Command::WriteRegister(n, value) => {
                let mut words = XtensaRegs::from_state(&self.cores[self.selected].state).words();
                words[n] = u32::from_be_bytes(value);
                self.write_registers(&XtensaRegs::from_words(&words));
                reply("OK")
            }
            Command::ReadMemory { addr, len } => {
                let data = self.read_memory(addr, len)?;
                Ok(Answer::Reply(hex(&data)))
            }
            Command::WriteMemory { addr, data } => {
                let i = self.selected;
                let unmapped = Refusal::Unmapped {
                    addr,
                    len: data.len(),
                    prid: self.prid(i),
                };
                let core = &mut *self.cores[i];
                core.bus.debug_write(addr, &data).map_err(|_| unmapped)?;
                core.invalidate_code();
                reply("OK")
            }
            Command::Point {
                insert,
                kind,
                addr,
                len,
            } => {
                self.point(insert, kind, addr, len)?;
                reply("OK")
            }
            Command::ResumeActions => reply("vCont;c;C;s;S;t"),
            Command::Resume(actions) => Ok(Answer::Run(self.plan(&actions)?)),
            Command::ResumeSelected(kind) => {
                let on = match self.resume_with {
                    Some(i) => Thread::Id(i as u32 + 1),
                    None => Thread::All,
                };
                Ok(Answer::Run(self.plan(&[(kind, on)])?))
            }
            Command::Detach => Ok(Answer::Last(b"OK".to_vec(), End::Detached)),
            Command::Kill { reply: true } => Ok(Answer::Last(b"OK".to_vec(), End::Killed)),
            Command::Kill { reply: false } => Ok(Answer::Silent(End::Killed)),
            Command::FirstThreads => {
                let ids: Vec<String> = (0..self.cores.len()).map(|i| self.thread_id(i)).collect();
                reply(&format!("m{}", ids.join(",")))
            }
            Command::MoreThreads => reply("l"),
            Command::CurrentThread => reply(&format!("QC{}", self.thread_id(self.selected))),
            Command::Attached => reply("1"),
            Command::ThreadAlive(thread) => {
                self.core(thread)?;
                reply("OK")
            }
            Command::ThreadExtraInfo(thread) => {
                let i = self.core(thread)?.unwrap_or(self.selected);
                Ok(Answer::Reply(hex(self.extra_info(i).as_bytes())))
            }
            Command::Monitor(cmd) => Ok(Answer::Console(self.monitor(&cmd))),
            Command::Unsupported => reply(""),
        }
    }

    /// The core a thread names: `None` for every thread, the selected core for any.
    fn core(&self, thread: Thread) -> Result<Option<usize>, Refusal> {
        match thread {
            Thread::All => Ok(None),
            Thread::Any => Ok(Some(self.selected)),
            Thread::Id(n) if (1..=self.cores.len()).contains(&(n as usize)) => {
                Ok(Some(n as usize - 1))
            }
            Thread::Id(n) => Err(Refusal::NoThread(format!(
                "{n:#x} (the threads are 1..={})",
                self.cores.len()
            ))),
        }
    }

    fn thread_id(&self, i: usize) -> String {
        if self.multiprocess {
            format!("p{PID:x}.{:x}", i + 1)
        } else {
            format!("{:x}", i + 1)
        }
    }

    fn prid(&self, i: usize) -> u32 {
        self.cores[i].state.sr(q7_isa::sreg::sr::PRID)
    }

    fn write_registers(&mut self, regs: &XtensaRegs) {
        let core = &mut *self.cores[self.selected];
        regs.write_to(&mut core.state);
        core.refresh();
    }

    /// `len` bytes at `addr` of the selected core (at most [`MAX_READ`]), or as many as are
    /// readable from `addr` on; none is a refusal.
    fn read_memory(&self, addr: u32, len: u32) -> Result<Vec<u8>, Refusal> {
        let len = (len as usize).min(MAX_READ);
        let bus = &self.cores[self.selected].bus;
        let mut data = vec![0u8; len];
        if bus.debug_read(addr, &mut data).is_ok() {
            return Ok(data);
        }
        let n = (0..len)
            .take_while(|&k| {
                bus.debug_read(addr.wrapping_add(k as u32), &mut data[k..k + 1])
                    .is_ok()
            })
            .count();
        if n == 0 {
            return Err(Refusal::Unmapped {
                addr,
                len,
                prid: self.prid(self.selected),
            });
        }
        data.truncate(n);
        Ok(data)
    }

    /// Inserts or removes a breakpoint or watchpoint (every core's); removing one that is
    /// not there is no error.
    fn point(&mut self, insert: bool, kind: PointType, addr: u32, len: u32) -> Result<(), Refusal> {
        let watch = match kind {
            PointType::Software | PointType::Hardware => {
                let breakpoints = &mut self.points.breakpoints;
                if !insert {
                    breakpoints.remove(&addr);
                } else if !breakpoints.contains(&addr) {
                    if breakpoints.len() >= MAX_BREAKPOINTS {
                        return Err(Refusal::TooMany(format!(
                            "a breakpoint past the session's {MAX_BREAKPOINTS} \
                             (MAX_BREAKPOINTS)"
                        )));
                    }
                    breakpoints.insert(addr);
                }
                return Ok(());
            }
            PointType::Write => debug::WatchKind::Write,
            PointType::Read => debug::WatchKind::Read,
            PointType::Access => debug::WatchKind::Access,
        };
        let w = Watchpoint {
            addr,
            len,
            kind: watch,
        };
        let watchpoints = &mut self.points.watchpoints;
        if insert {
            if watchpoints.len() >= MAX_WATCHPOINTS {
                return Err(Refusal::TooMany(format!(
                    "a watchpoint past the session's {MAX_WATCHPOINTS} (MAX_WATCHPOINTS)"
                )));
            }
            watchpoints.push(w);
        } else if let Some(at) = watchpoints.iter().position(|x| *x == w) {
            watchpoints.remove(at);
        }
        Ok(())
    }

    /// Each core's action under `actions` (the leftmost one naming it; none: it stays).
    fn plan(&self, actions: &[(ActionKind, Thread)]) -> Result<Vec<ActionKind>, Refusal> {
        let mut plan = vec![None; self.cores.len()];
        for &(kind, thread) in actions {
            match self.core(thread)? {
                None => plan
                    .iter_mut()
                    .filter(|p| p.is_none())
                    .for_each(|p| *p = Some(kind)),
                Some(i) => {
                    plan[i].get_or_insert(kind);
                }
            }
        }
        Ok(plan
            .into_iter()
            .map(|p| p.unwrap_or(ActionKind::Stay))
            .collect())
    }

    fn live(&self, i: usize) -> bool {
        matches!(self.runs[i], CoreRun::Live)
    }

    fn limits(&self, i: usize, steps: u64) -> Limits {
        Limits {
            steps,
            deadline: self.deadlines[i],
            budget: self.budget,
            past_breakpoint: self.at_breakpoint[i],
        }
    }

    /// Runs core `i` for up to `steps` instructions.
    fn run_core(&mut self, i: usize, steps: u64) -> CoreEvent {
        let limits = self.limits(i, steps);
        let halt = debug::run(self.cores[i], &self.points, self.hook, limits);
        self.at_breakpoint[i] = false;
        let stop = |signal, extra: String| {
            CoreEvent::Stop(StopReply::Core {
                core: i,
                signal,
                extra,
            })
        };
        match halt {
            Halt::Ran => CoreEvent::Ran,
            Halt::Breakpoint { .. } => {
                self.at_breakpoint[i] = true;
                stop(signal::SIGTRAP, "swbreak:;".into())
            }
            Halt::Watchpoint { watch, access } => {
                let key = match watch.kind {
                    debug::WatchKind::Access => "awatch",
                    _ if access.write => "watch",
                    _ => "rwatch",
                };
                let addr = watch.addr.max(access.addr);
                stop(signal::SIGTRAP, format!("{key}:{addr:x};"))
            }
            Halt::Hook(hooked) => {
                eprintln!("q7emu: core {} stopped: {}", self.prid(i), hooked.reason);
                stop(hooked.signal, String::new())
            }
            Halt::Stopped(Stop::Exited(status)) => {
                self.runs[i] = CoreRun::Done(Stop::Exited(status));
                CoreEvent::Exited
            }
            Halt::Stopped(Stop::Fault(report)) => {
                let signal = fault_signal(&report.kind);
                eprintln!(
                    "q7emu: core {} faulted, reported to the debugger as signal {signal}: {}",
                    self.prid(i),
                    report.kind
                );
                self.runs[i] = CoreRun::Done(Stop::Fault(report));
                stop(signal, String::new())
            }
        }
    }

    /// The end of the session once no core is live: exited (`W`, the first core's status)
    /// when every core exited, else terminated with the first fault's signal (`X`).
    fn all_done(&self) -> Option<StopReply> {
        if self.runs.iter().any(|r| matches!(r, CoreRun::Live)) {
            return None;
        }
        let fault = self.runs.iter().find_map(|r| match r {
            CoreRun::Done(Stop::Fault(f)) => Some(fault_signal(&f.kind)),
            _ => None,
        });
        if let Some(signal) = fault {
            return Some(StopReply::Terminated(signal));
        }
        let status = self.runs.iter().find_map(|r| match r {
            CoreRun::Done(Stop::Exited(s)) => Some(*s),
            _ => None,
        });
        Some(StopReply::Exited(status.unwrap_or(0) as u8))
    }

    /// Runs the cores as `plan` says (module documentation) until a stop to reply; `E05` at
    /// once when every core it names has ended.
    fn resume(&mut self, plan: &[ActionKind], link: &mut Link) -> Result<Resumed, Refusal> {
        if let Some(end) = self.all_done() {
            return Ok(Resumed::Stop(end));
        }
        let named = |kind| (0..plan.len()).filter(move |&i| plan[i] == kind);
        let steppers: Vec<usize> = named(ActionKind::Step).filter(|&i| self.live(i)).collect();
        if let Some(&first) = steppers.first() {
            let mut reply = None;
            for &i in &steppers {
                if let CoreEvent::Stop(stop) = self.run_core(i, 1) {
                    reply.get_or_insert(stop);
                }
            }
            // A finished step names its thread (`T05thread:…`), so GDB knows which core moved.
            let reply = self.all_done().or(reply).unwrap_or(StopReply::Core {
                core: first,
                signal: signal::SIGTRAP,
                extra: String::new(),
            });
            return Ok(Resumed::Stop(self.stopped(reply)));
        }
        let running: Vec<usize> = named(ActionKind::Continue)
            .filter(|&i| self.live(i))
            .collect();
        if running.is_empty() {
            let ended: Vec<String> = (0..plan.len())
                .filter(|&i| plan[i] != ActionKind::Stay)
                .map(|i| format!("core {} {}", self.prid(i), self.end_of(i)))
                .collect();
            return Err(Refusal::NothingToResume(if ended.is_empty() {
                "it resumes no thread".into()
            } else {
                format!(
                    "every core it names has ended ({}); the others stay stopped",
                    ended.join(", ")
                )
            }));
        }
        let stop = q7_conventions::interrupt::stop_request();
        let mut last_ended = running[0];
        loop {
            for &i in &running {
                if !self.live(i) {
                    continue;
                }
                match self.run_core(i, QUANTUM) {
                    CoreEvent::Ran => {}
                    CoreEvent::Stop(reply) => return Ok(Resumed::Stop(self.stopped(reply))),
                    CoreEvent::Exited => last_ended = i,
                }
            }
            if !running.iter().any(|&i| self.live(i)) {
                if let Some(end) = self.all_done() {
                    return Ok(Resumed::Stop(end));
                }
                eprintln!(
                    "q7emu: core {} {}: the cores the debugger resumed have all ended; the \
                     others stay stopped (GDB: set scheduler-locking off, then continue)",
                    self.prid(last_ended),
                    self.end_of(last_ended)
                );
                return Ok(Resumed::Stop(self.stopped(StopReply::Core {
                    core: last_ended,
                    signal: signal::NONE,
                    extra: String::new(),
                })));
            }
            if stop.is_requested() {
                return Ok(Resumed::End(End::Interrupted));
            }
            match self.poll(link) {
                Ok(false) => {}
                Ok(true) => {
                    let core = running.iter().copied().find(|&i| self.live(i));
                    return Ok(Resumed::Stop(self.stopped(StopReply::Core {
                        core: core.unwrap_or(self.selected),
                        signal: signal::SIGINT,
                        extra: String::new(),
                    })));
                }
                Err(e) => return Ok(Resumed::End(End::Lost(e))),
            }
        }
    }

    /// Looks at what arrived while the cores run: whether it was GDB's Ctrl-C. A packet then
    /// (the protocol allows none) is acknowledged and dropped, said on stderr.
    fn poll(&mut self, link: &mut Link) -> std::io::Result<bool> {
        match link.recv(false)? {
            None | Some(Incoming::Ack) => Ok(false),
            Some(Incoming::Interrupt) => Ok(true),
            Some(Incoming::Nack) => link.resend().map(|()| false),
            Some(Incoming::Overlong { len }) => {
                link.ack(true)?;
                eprintln!("q7emu: a debugger packet of {len} bytes while the cores run: dropped");
                Ok(false)
            }
            Some(Incoming::Packet { body, .. }) => {
                link.ack(true)?;
                eprintln!(
                    "q7emu: debugger packet {:?} while the cores run: dropped (only Ctrl-C \
                     is taken until the stop reply)",
                    shown(&body)
                );
                Ok(false)
            }
        }
    }

    /// A core's stop makes it the selected thread (GDB takes the stop's thread as the one
    /// its register and memory packets are about).
    fn stopped(&mut self, reply: StopReply) -> StopReply {
        if let StopReply::Core { core, .. } = reply {
            self.selected = core;
        }
        reply
    }

    fn stop_text(&self, stop: &StopReply) -> String {
        match stop {
            StopReply::Core {
                core,
                signal,
                extra,
            } => format!("T{signal:02x}thread:{};{extra}", self.thread_id(*core)),
            StopReply::Exited(status) => format!("W{status:02x}"),
            StopReply::Terminated(signal) => format!("X{signal:02x}"),
        }
    }

    /// How core `i` ended, or that it is live.
    fn end_of(&self, i: usize) -> String {
        match &self.runs[i] {
            CoreRun::Live => "is live".into(),
            CoreRun::Done(Stop::Exited(s)) => format!("exited {s}"),
            CoreRun::Done(Stop::Fault(r)) => format!("faulted: {}", r.kind),
        }
    }

    fn extra_info(&self, i: usize) -> String {
        let what = match &self.runs[i] {
            CoreRun::Live => "live".to_string(),
            CoreRun::Done(Stop::Exited(s)) => format!("exited {s}"),
            CoreRun::Done(Stop::Fault(r)) => format!("faulted: {}", r.kind),
        };
        format!("core {} ({what})", self.prid(i))
    }

    /// After a detach: every live core runs to its end without the debugger — through the
    /// hook when it watches (its checks and profile then see the cores to their end; its stops
    /// are not taken), else in the plain run loop.
    pub fn finish_undebugged(&mut self) {
        for i in 0..self.cores.len() {
            if self.live(i) {
                let core = &mut *self.cores[i];
                let stop = if self.hook.watches() {
                    debug::run_to_end(core, self.hook, self.deadlines[i], self.budget)
                } else {
                    let left = self.deadlines[i].saturating_sub(core.stats.cycles);
                    core.run_for(left, &mut NoTrace)
                };
                self.runs[i] = CoreRun::Done(stop);
            }
        }
    }

    /// After a kill: every live core stops where it is, as interrupted.
    pub fn finish_killed(&mut self) {
        for i in 0..self.cores.len() {
            if self.live(i) {
                let core = &*self.cores[i];
                let report = core.report(core.state.pc, FaultKind::Interrupted, None);
                self.runs[i] = CoreRun::Done(Stop::Fault(Box::new(report)));
            }
        }
    }

    /// Each core's stop (a core still live stops as interrupted).
    pub fn into_stops(self) -> Vec<Stop> {
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

    /// A `monitor` command's output.
    fn monitor(&self, cmd: &[u8]) -> String {
        let cmd = String::from_utf8_lossy(cmd);
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["regs"] => self.monitor_regs(self.selected),
            ["regs", n] => match n.parse::<usize>() {
                Ok(p) => match (0..self.cores.len()).find(|&i| self.prid(i) as usize == p) {
                    Some(i) => self.monitor_regs(i),
                    None => format!("no core {p} in this session\n"),
                },
                Err(_) => format!("monitor regs: not a core number: {n}\n"),
            },
            ["mem", addr, rest @ ..] if rest.len() <= 1 => {
                let count = rest
                    .first()
                    .map_or(Ok(1), |n| q7_conventions::number::parse_u32(n));
                match (q7_conventions::number::parse_u32(addr), count) {
                    (Ok(addr), Ok(count)) => self.monitor_mem(addr, count.min(256)),
                    _ => "monitor mem: usage: mem ADDR [WORDS]\n".into(),
                }
            }
            _ => "q7emu monitor commands:\n  \
                  regs [CORE]       the windowed registers a0-a15 and the physical AR file\n  \
                  mem ADDR [WORDS]  little-endian words of the current core's memory\n"
                .into(),
        }
    }

    /// `monitor mem ADDR [WORDS]`: words of the selected core's memory as the core reads them
    /// (little-endian), four to a line; an unreadable word ends the listing with a note.
    fn monitor_mem(&self, addr: u32, count: u32) -> String {
        let bus = &self.cores[self.selected].bus;
        let mut out = String::new();
        for row in (0..count).step_by(4) {
            let at = addr.wrapping_add(row * 4);
            let mut line = format!("{at:#010x}:");
            for k in row..count.min(row + 4) {
                let mut w = [0u8; 4];
                let a = addr.wrapping_add(k * 4);
                if bus.debug_read(a, &mut w).is_err() {
                    out.push_str(&format!(
                        "{line}\n{a:#010x}: not mapped on core {}\n",
                        self.prid(self.selected)
                    ));
                    return out;
                }
                line.push_str(&format!(" {:#010x}", u32::from_le_bytes(w)));
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// `monitor regs [N]`: core N's (default: the selected thread's) windowed registers and
    /// physical AR file.
    fn monitor_regs(&self, i: usize) -> String {
        let s = &self.cores[i].state;
        let mut out = format!(
            "core {}: pc {:#010x} ps {:#010x} windowbase {} windowstart {:#06x} sar {}\n",
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
            out.push_str(&cells.join("  "));
            out.push('\n');
        }
        for row in 0..(s.num_aregs as usize).div_ceil(4) {
            let cells: Vec<String> = (0..4)
                .map(|c| {
                    let r = row * 4 + c;
                    format!("ar{r:<2} {:#010x}", s.ar[r])
                })
                .collect();
            out.push_str(&cells.join("  "));
            out.push('\n');
        }
        out
    }
}

const _: () = assert!(G_REGISTERS * 8 < PACKET_SIZE, "a G packet fits PacketSize");
