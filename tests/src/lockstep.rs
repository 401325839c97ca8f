//! Lockstep differential testing against QEMU: the same ELF runs on
//! `qemu-system-xtensa -M sim -cpu dc233c -semihosting -singlestep -d exec,cpu,nochain,int` and
//! on q7emu; the architectural state before every instruction (PC, a0..a15, SAR, PS,
//! WINDOWBASE, WINDOWSTART, LBEG, LEND, LCOUNT) and every exception delivery are compared, and
//! the first divergence is reported with the instructions around it. Memory effects are
//! compared through the runtime's final memory checksum (`rt/memsum.c`: data, bss, stack top),
//! whatever else the programs print, and their exit status. Each program also runs as
//! `q7emu run-elf` runs it, under every default guard, and must reach QEMU's exit status and
//! output there too ([`run_with_defaults`]): no guard may stop a correct program.

use std::collections::{BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use q7_emulator::trace::{Event, Tracer};
use q7_emulator::{CoreState, Stop, Vector};
use q7_isa::Opcode;

/// The state QEMU logs before an instruction (or an exception index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// Before an instruction.
    Insn {
        /// PC.
        pc: u32,
        /// a0..a15.
        a: [u32; 16],
        /// SAR, PS, WINDOWBASE, WINDOWSTART, LBEG, LEND, LCOUNT.
        sr: [u32; 7],
    },
    /// An exception delivery (QEMU's exception index).
    Exception(u32),
}

impl Record {
    fn of(s: &CoreState) -> Record {
        Record::Insn {
            pc: s.pc,
            a: s.window(),
            sr: [
                s.sar(),
                s.ps(),
                s.windowbase(),
                s.windowstart(),
                s.lbeg(),
                s.lend(),
                s.lcount(),
            ],
        }
    }
}

impl std::fmt::Display for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Record::Insn { pc, a, sr } => {
                write!(f, "{pc:08x}")?;
                for v in a {
                    write!(f, " {v:08x}")?;
                }
                let names = ["sar", "ps", "wb", "ws", "lbeg", "lend", "lcount"];
                for (n, v) in names.iter().zip(sr) {
                    write!(f, " {n}={v:08x}")?;
                }
                Ok(())
            }
            Record::Exception(i) => write!(f, "EXC {i}"),
        }
    }
}

const SR_NAMES: [&str; 7] = [
    "SAR",
    "PS",
    "WINDOWBASE",
    "WINDOWSTART",
    "LBEG",
    "LEND",
    "LCOUNT",
];

/// QEMU's exception index of `vector`, as its `-d int` log prints it.
pub fn qemu_index(vector: Vector) -> u32 {
    match vector {
        Vector::WindowOverflow4 => 3,
        Vector::WindowUnderflow4 => 4,
        Vector::WindowOverflow8 => 5,
        Vector::WindowUnderflow8 => 6,
        Vector::WindowOverflow12 => 7,
        Vector::WindowUnderflow12 => 8,
        Vector::Kernel => 10,
        Vector::User => 11,
        Vector::Double => 12,
    }
}

/// Streams records out of a QEMU `-d exec,cpu,nochain,int` log.
struct QemuLog<R: BufRead> {
    lines: std::io::Lines<R>,
    cur: Option<Record>,
    queued: VecDeque<Record>,
}

impl<R: BufRead> QemuLog<R> {
    fn next_record(&mut self) -> Option<Record> {
        if let Some(r) = self.queued.pop_front() {
            return Some(r);
        }
        for line in self.lines.by_ref() {
            let Ok(line) = line else { break };
            if let Some(pc) = line.strip_prefix("PC=") {
                let new = Record::Insn {
                    pc: u32::from_str_radix(pc.trim(), 16).unwrap_or(0),
                    a: [0; 16],
                    sr: [0; 7],
                };
                if let Some(done) = self.cur.replace(new) {
                    return Some(done);
                }
            } else if let Some(rest) = line.strip_prefix("xtensa_cpu_do_interrupt(") {
                let idx = rest
                    .split(')')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(u32::MAX);
                let exc = Record::Exception(idx);
                match self.cur.take() {
                    Some(done) => {
                        self.queued.push_back(exc);
                        return Some(done);
                    }
                    None => return Some(exc),
                }
            } else if let Some(Record::Insn { a, sr, .. }) = &mut self.cur {
                for tok in line.split_whitespace() {
                    let Some((k, v)) = tok.split_once('=') else {
                        continue;
                    };
                    let Ok(v) = u32::from_str_radix(v, 16) else {
                        continue;
                    };
                    if let Some(r) = k.strip_prefix('A').and_then(|n| n.parse::<usize>().ok()) {
                        if k.len() == 3 && r < 16 {
                            a[r] = v;
                        }
                    } else if let Some(i) = SR_NAMES.iter().position(|n| *n == k) {
                        sr[i] = v;
                    }
                }
            }
        }
        self.cur.take()
    }
}

/// Outcome of a lockstep run.
#[derive(Debug, Default)]
pub struct Summary {
    /// Records compared.
    pub compared: u64,
    /// Opcodes q7emu executed (or attempted).
    pub executed: BTreeSet<Opcode>,
    /// The program's output on q7emu (fd 1, then fd 2).
    pub ours_stdout: Vec<u8>,
    /// The program's output on QEMU (fd 1, then fd 2).
    pub qemu_stdout: Vec<u8>,
    /// Exit status on q7emu.
    pub ours_exit: Option<i32>,
    /// Exit status of QEMU.
    pub qemu_exit: Option<i32>,
    /// The first divergence, with context.
    pub divergence: Option<String>,
    /// The same program run as `q7emu run-elf` runs it ([`run_with_defaults`]).
    pub defaults: DefaultsRun,
}

/// How a program ends when run as `q7emu run-elf` runs it: the whole run loop, with its
/// periodic look at the stack, under every default guard (the stack region of the image's
/// link symbols, the memory limit) and the default cycle budget.
#[derive(Debug, Default)]
pub struct DefaultsRun {
    /// The program's output (fd 1, then fd 2).
    pub stdout: Vec<u8>,
    /// Exit status, when it exited.
    pub exit: Option<i32>,
    /// The report of the fault (a guard's included) that stopped it instead.
    pub fault: Option<Box<q7_emulator::FaultReport>>,
}

/// Runs `elf` on q7emu (dc233c profile) as `q7emu run-elf --profile dc233c` does, with every
/// default guard on ([`crate::load_elf`]) and `baremetal::DEFAULT_MAX_CYCLES`.
///
/// Runs it with tier 2 on, compiling from an address's second arrival, and with the
/// interpreter alone, and asserts both give
/// the same exit, output, fault report, registers and every counter (docs/jit.md "Oracle"); then
/// stops both tiers at budgets that end mid-run — inside blocks — and asserts they stop at the
/// same cycle, PC and state.
pub fn run_with_defaults(elf: &Path) -> DefaultsRun {
    let whole = q7_emulator::baremetal::DEFAULT_MAX_CYCLES;
    let (run, cycles) = run_tier(elf, Some(Addresses::Fixed), whole);
    let (reference, _) = run_tier(elf, None, whole);
    assert_same_run(elf, "the whole run", &run, &reference);
    // Budgets that end at odd points: a third of the way, half way plus a prime, and 3 cycles
    // before the end; compiled with addresses relative to each block's start, as for the
    // cores of a cluster (docs/jit.md "Code shared by cores").
    for budget in [cycles / 3, cycles / 2 + 7, cycles.saturating_sub(3)] {
        if budget == 0 {
            continue;
        }
        let (a, _) = run_tier(elf, Some(Addresses::Relative), budget);
        let (b, _) = run_tier(elf, None, budget);
        assert_same_run(elf, &format!("a budget of {budget} cycles"), &a, &b);
    }
    run.run
}

/// One tier's run for [`run_with_defaults`]: the run, with its counters and registers in
/// `state`, and the cycles it took.
struct TierRun {
    run: DefaultsRun,
    state: String,
}

/// How tier 2 compiles code addresses: as constants (a core alone), or relative to each
/// block's start (a core sharing host code with the others of its cluster).
#[derive(Clone, Copy)]
enum Addresses {
    Fixed,
    Relative,
}

/// `jit`: tier 2 on, compiling addresses so; `None`: the interpreter alone.
fn run_tier(elf: &Path, jit: Option<Addresses>, max_cycles: u64) -> (TierRun, u64) {
    let mut core = crate::load_elf(elf, &q7_isa::DC233C);
    core.set_jit(jit.is_some());
    if let Some(Addresses::Relative) = jit {
        core.share_jit_code(&std::sync::Arc::default(), 1);
    }
    // Compile at the second arrival: as much of the program as can run compiled does.
    core.set_jit_tier_up(2);
    let out = capture_console(&mut core);
    let stop = core.run(max_cycles, &mut q7_emulator::NoTrace);
    let state = format!(
        "pc {:#x}, stats {:?}, ar {:?}, sr LCOUNT {} LBEG {:#x} LEND {:#x} SAR {}",
        core.state.pc,
        core.stats,
        core.state.ar,
        core.state.lcount(),
        core.state.lbeg(),
        core.state.lend(),
        core.state.sar(),
    );
    let cycles = core.stats.cycles;
    let (exit, fault) = match stop {
        Stop::Exited(c) => (Some(c), None),
        Stop::Fault(r) => (None, Some(r)),
    };
    let run = DefaultsRun {
        stdout: out.take(),
        exit,
        fault,
    };
    (TierRun { run, state }, cycles)
}

/// Asserts tier 2's run `a` is the interpreter's `b` in every respect.
fn assert_same_run(elf: &Path, what: &str, a: &TierRun, b: &TierRun) {
    let name = elf.display();
    assert_eq!(
        a.state, b.state,
        "{name}, {what}: state with tier 2 / interpreter"
    );
    assert_eq!(a.run.exit, b.run.exit, "{name}, {what}: exit");
    assert_eq!(a.run.stdout, b.run.stdout, "{name}, {what}: output");
    assert_eq!(
        a.run.fault.as_ref().map(|f| f.to_string()),
        b.run.fault.as_ref().map(|f| f.to_string()),
        "{name}, {what}: fault report"
    );
}

/// What a core writes to fd 1 and fd 2, kept in that order.
struct Captured {
    stdout: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    stderr: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl Captured {
    /// fd 1's bytes, then fd 2's.
    fn take(&self) -> Vec<u8> {
        let mut all = std::mem::take(&mut *self.stdout.lock().unwrap());
        all.extend_from_slice(&self.stderr.lock().unwrap());
        all
    }
}

/// Sends `core`'s semihosting output to buffers.
fn capture_console(core: &mut q7_emulator::Core<q7_emulator::FlatMemory>) -> Captured {
    let c = Captured {
        stdout: Default::default(),
        stderr: Default::default(),
    };
    core.console.stdout = Box::new(SharedBuf(c.stdout.clone()));
    core.console.stderr = Box::new(SharedBuf(c.stderr.clone()));
    c
}

struct Compare<R: BufRead> {
    qemu: QemuLog<R>,
    history: VecDeque<Record>,
    compared: u64,
    divergence: Option<String>,
    executed: BTreeSet<Opcode>,
}

impl<R: BufRead> Compare<R> {
    fn check(&mut self, ours: Record, what: &str) {
        if self.divergence.is_some() {
            return;
        }
        let theirs = self.qemu.next_record();
        if theirs.as_ref() == Some(&ours) {
            self.compared += 1;
            if self.history.len() == 8 {
                self.history.pop_front();
            }
            self.history.push_back(ours);
            return;
        }
        let mut msg = format!(
            "first divergence after {} matching records, at {what}:\n",
            self.compared
        );
        for h in &self.history {
            let _ = writeln!(msg, "    both  {h}");
        }
        let _ = writeln!(
            msg,
            "    qemu  {}",
            theirs
                .map(|t| t.to_string())
                .unwrap_or_else(|| "<end of trace>".into())
        );
        let _ = writeln!(msg, "    q7emu {ours}");
        self.divergence = Some(msg);
    }
}

impl<R: BufRead> Tracer for Compare<R> {
    const ENABLED: bool = true;
    fn event(&mut self, e: Event<'_>) {
        match e {
            Event::Before { state, insn, .. } => {
                if insn.bad.is_none() {
                    self.executed.insert(insn.insn.opcode);
                }
                let what = if insn.bad.is_none() {
                    insn.insn.to_string()
                } else {
                    "<undecodable>".into()
                };
                self.check(Record::of(state), &what)
            }
            Event::Exception { vector, .. } => {
                self.check(Record::Exception(qemu_index(vector)), "exception delivery")
            }
            Event::After { .. } => {}
        }
    }
}

/// Runs `elf` on QEMU and on q7emu (dc233c profile) in lockstep, up to `max_steps` records.
pub fn run(elf: &Path, max_steps: u64) -> Summary {
    let mut core = crate::load_elf(elf, &q7_isa::DC233C);
    let out = capture_console(&mut core);

    let dir = crate::TempDir::new("lockstep");
    let fifo = dir.join("trace.fifo");
    crate::run(Command::new("mkfifo").arg(&fifo));
    let mut child = crate::qemu_system_sim()
        .args(["-singlestep", "-d", "exec,cpu,nochain,int", "-D"])
        .arg(&fifo)
        .arg("-kernel")
        .arg(elf)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qemu-system-xtensa (run scripts/setup-toolchain.sh)");
    let reader = BufReader::with_capacity(1 << 20, std::fs::File::open(&fifo).unwrap());
    let mut cmp = Compare {
        qemu: QemuLog {
            lines: reader.lines(),
            cur: None,
            queued: VecDeque::new(),
        },
        history: VecDeque::new(),
        compared: 0,
        divergence: None,
        executed: BTreeSet::new(),
    };
    let mut ours_exit = None;
    let mut steps = 0;
    while cmp.divergence.is_none() && steps < max_steps {
        steps += 1;
        match core.step(&mut cmp) {
            None => {}
            Some(Stop::Exited(c)) => {
                ours_exit = Some(c);
                break;
            }
            Some(Stop::Fault(r)) => {
                cmp.divergence
                    .get_or_insert(format!("q7emu stopped on a fault:\n{r}"));
                break;
            }
        }
    }
    if cmp.divergence.is_none() && ours_exit.is_some() {
        if let Some(extra) = cmp.qemu.next_record() {
            cmp.divergence = Some(format!("q7emu exited but QEMU continues with {extra}"));
        }
    }
    drop(cmp.qemu);
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    let ours_stdout = out.take();
    let mut qemu_stdout = output.stdout;
    qemu_stdout.extend_from_slice(&output.stderr);
    Summary {
        compared: cmp.compared,
        executed: cmp.executed,
        ours_stdout,
        qemu_stdout,
        ours_exit,
        qemu_exit: output.status.code(),
        divergence: cmp.divergence,
        defaults: run_with_defaults(elf),
    }
}

struct SharedBuf(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Asserts a lockstep run agreed everywhere: every record, the output and the exit status.
pub fn assert_agrees(name: &str, s: &Summary) {
    if let Some(d) = &s.divergence {
        panic!("{name}: {d}");
    }
    assert_eq!(
        String::from_utf8_lossy(&s.ours_stdout),
        String::from_utf8_lossy(&s.qemu_stdout),
        "{name}: program output differs"
    );
    // A process exit status keeps 8 bits (QEMU exits with the semihosting status).
    assert_eq!(
        s.ours_exit.map(|c| c & 0xff),
        s.qemu_exit,
        "{name}: exit status differs"
    );
    // No default guard of `q7emu run-elf` may stop a program QEMU runs to its end.
    if let Some(fault) = &s.defaults.fault {
        panic!(
            "{name}: run-elf's defaults stopped a program QEMU runs to exit {:?}:\n{fault}",
            s.qemu_exit
        );
    }
    assert_eq!(
        String::from_utf8_lossy(&s.defaults.stdout),
        String::from_utf8_lossy(&s.qemu_stdout),
        "{name}: program output under run-elf's defaults differs"
    );
    assert_eq!(
        s.defaults.exit.map(|c| c & 0xff),
        s.qemu_exit,
        "{name}: exit status under run-elf's defaults differs"
    );
    eprintln!(
        "{name}: {} records identical to QEMU, exit {:?} (also under run-elf's defaults)",
        s.compared, s.ours_exit
    );
}
