//! Instruction traces (docs/tracing.md "Instruction traces"): what one core executed, one
//! line per instruction — its cycle, PC, `function+offset`, disassembly, the registers it wrote
//! with their new values and the memory it read and wrote — plus the exceptions delivered, the
//! start of each firmware call and how each ended; as text (`core<N>.trace`) and as JSON lines
//! (`core<N>.jsonl`) with the same events. Lines are formatted on the core's own thread and
//! handed to the writer thread in chunks ([`super::writer`]). A core's two files together stay
//! under its cap ([`CoreCap`], `--trace-max-bytes`): the event that would pass it is replaced
//! by a `truncated` notice and nothing more of that core is traced.

use std::fmt::Write as _;

use crossbeam_channel::Sender;
use q7_emulator::fault::ExcCause;
use q7_emulator::predecode::Op;
use q7_emulator::trace::Access;
use q7_emulator::{CoreState, Stop, Vector};
use q7_isa::sreg::{self, sr};
use q7_isa::CoreConfig;
use serde::ser::SerializeMap;
use serde::Serialize;

use super::writer::{Chunk, CHUNK_BYTES};
use q7_symbols::Symbols;

/// Version of the JSON-lines schema (the `header` line's `version`).
pub const FORMAT_VERSION: u32 = 1;
/// The `header` line's `format`.
pub const FORMAT: &str = "q7emu-instruction-trace";

/// Room kept under a core's cap for the notice that ends a truncated trace (its text line and
/// its JSON line, whatever the numbers in them): the files never pass the cap.
pub const NOTICE_MAX: u64 = 512;

/// The byte cap of one core's trace and how much of it is used, carried from one firmware
/// call of the core to the next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CoreCap {
    /// Most bytes of the core's two files together (no cap when `None`).
    pub limit: Option<u64>,
    /// Bytes of the core's two files so far.
    pub used: u64,
    /// The cycle at which the cap was reached, when it was: nothing after it is traced.
    pub truncated: Option<u64>,
}

impl CoreCap {
    /// A fresh cap of `limit` bytes (none when `None`).
    pub fn new(limit: Option<u64>) -> CoreCap {
        CoreCap {
            limit,
            ..CoreCap::default()
        }
    }
}

/// The notice ending the trace of `core`, which reached its cap of `limit` bytes at `cycle`
/// with `used` bytes written: its text line and its JSON line, together at most
/// [`NOTICE_MAX`] bytes.
pub fn notice(core: u32, cycle: u64, limit: u64, used: u64) -> (String, String) {
    let text = format!(
        "# truncated at cycle {cycle}: core {core}'s trace reached its cap of {limit} bytes \
         (--trace-max-bytes); nothing more of core {core} is traced\n"
    );
    let line = Line::Truncated {
        cycle,
        cap: limit,
        bytes: used,
    };
    let json = serde_json::to_string(&line).expect("a notice serialises") + "\n";
    (text, json)
}

/// Which events of one core a trace keeps: an instruction (and an exception it raises) when
/// its PC is in `pc` and the cycle it starts at is in `cycles`, both half-open; the start and
/// the end of every firmware call always.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreFilter {
    /// `[lo, hi)` of PCs, or every PC.
    pub pc: Option<(u32, u32)>,
    /// `[a, b)` of cycles, or every cycle.
    pub cycles: Option<(u64, u64)>,
}

impl CoreFilter {
    /// Whether an instruction at `pc` starting at `cycle` is kept.
    #[inline]
    pub fn keeps(&self, pc: u32, cycle: u64) -> bool {
        self.pc.is_none_or(|(lo, hi)| (lo..hi).contains(&pc))
            && self.cycles.is_none_or(|(a, b)| (a..b).contains(&cycle))
    }
}

/// One register file's names and storage words for one core profile.
#[derive(Debug, Clone)]
struct Table {
    /// By state word: the name (a word shared by several registers is named by the first the
    /// ISA table lists; CCOUNT, derived from the cycle count, has no word).
    name: Vec<Option<&'static str>>,
    /// By register number: its state word.
    word: Vec<Option<u8>>,
}

impl Table {
    fn of(regs: &[sreg::RegisterInfo], config: &CoreConfig) -> Table {
        let (mut name, mut word) = (vec![None; 256], vec![None; 256]);
        for r in regs.iter().filter(|r| config.has(r.options)) {
            if let Some(w) = r.word() {
                name[usize::from(w)].get_or_insert(r.name);
                word[usize::from(r.number)].get_or_insert(w);
            }
        }
        Table { name, word }
    }
}

/// The special and user registers of one core profile, by name and state word.
#[derive(Debug, Clone)]
pub struct RegisterNames {
    sr: Table,
    ur: Table,
}

impl RegisterNames {
    /// The registers of `config`.
    pub fn of(config: &CoreConfig) -> RegisterNames {
        RegisterNames {
            sr: Table::of(sreg::SPECIAL_REGISTERS, config),
            ur: Table::of(sreg::USER_REGISTERS, config),
        }
    }
}

/// The registers instruction `op` wrote and their values after it: the register operands it
/// writes (address registers by the ISA table's operand directions, special and user
/// registers by operand kind, so a register written with the value it held is listed too) and
/// every register whose value differs between `before` and `after`.
/// Address registers first, named in the window after the instruction (`a0`..`a15`; a
/// physical register outside it as `ar<N>`), then special, then user registers, each in
/// number order.
pub fn written(
    names: &RegisterNames,
    op: &Op,
    before: &CoreState,
    after: &CoreState,
) -> Vec<(String, u32)> {
    let n = after.num_aregs as usize;
    let base = (after.windowbase() * 4) as usize;
    let mut ars: Vec<usize> = (0..n).filter(|&p| before.ar[p] != after.ar[p]).collect();
    let (mut srs, mut urs) = (Vec::new(), Vec::new());
    let info = op.insn.info();
    if op.bad.is_none() {
        for (i, (kind, &v)) in info.operands.iter().zip(&op.insn.operands).enumerate() {
            // The table's directions cover address-register operands; a special- or
            // user-register operand's kind says whether it is written.
            use q7_isa::OperandKind::*;
            match kind {
                ArR | ArS | ArT if info.writes >> i & 1 != 0 => ars.push(after.phys(v)),
                SrWrite | SrExchange => srs.extend(names.sr.word[v as usize & 0xff]),
                UrWrite => urs.extend(names.ur.word[v as usize & 0xff]),
                _ => {}
            }
        }
    }
    let mut ars: Vec<(usize, usize)> = ars.into_iter().map(|p| ((p + n - base) % n, p)).collect();
    ars.sort_unstable();
    ars.dedup();
    let mut out: Vec<(String, u32)> = ars
        .into_iter()
        .map(|(logical, p)| {
            let name = if logical < 16 {
                format!("a{logical}")
            } else {
                format!("ar{p}")
            };
            (name, after.ar[p])
        })
        .collect();
    let words = |t: &Table, mut named: Vec<u8>, get: &dyn Fn(&CoreState, u8) -> u32| {
        named.extend(
            (0..=255u8)
                .filter(|&w| t.name[usize::from(w)].is_some() && get(before, w) != get(after, w)),
        );
        named.sort_unstable();
        named.dedup();
        named
            .into_iter()
            .filter_map(|w| Some((t.name[usize::from(w)]?.to_string(), get(after, w))))
            .collect::<Vec<_>>()
    };
    out.extend(words(&names.sr, srs, &|s, w| s.sr(w)));
    out.extend(words(&names.ur, urs, &|s, w| s.ur(w)));
    out
}

/// The disassembly of `op`: mnemonic and operands as objdump writes them (one space after the
/// mnemonic instead of its tab), or what makes its bytes no instruction.
pub fn disassembly(op: &Op, pc: u32) -> String {
    match op.bad {
        Some(bad) => format!("(undecodable: {})", bad.describe(pc, &q7_isa::NCORE2GP)),
        None => op.insn.to_string().replacen('\t', " ", 1),
    }
}

/// Registers as one JSON object, in the order given.
struct Registers<'a>(&'a [(String, u32)]);

impl Serialize for Registers<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// One memory access in JSON.
#[derive(Serialize)]
struct Mem {
    addr: u32,
    size: u8,
    value: u32,
    write: bool,
}

/// One JSON line (docs/tracing.md "JSON lines").
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Line<'a> {
    /// First line of every file.
    Header {
        format: &'static str,
        version: u32,
        core: u32,
        image: &'a str,
        symbols: bool,
        filter: Filter,
    },
    /// A firmware call starts on the core.
    Run { what: &'a str, cycle: u64, pc: u32 },
    /// An instruction completed.
    Insn {
        cycle: u64,
        end: u64,
        pc: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        func: Option<&'a str>,
        insn: &'a str,
        regs: Registers<'a>,
        mem: Vec<Mem>,
    },
    /// The instruction raised an exception that was delivered.
    Exception {
        cycle: u64,
        end: u64,
        pc: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        func: Option<&'a str>,
        insn: &'a str,
        vector: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        cause: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cause_name: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        vaddr: Option<u32>,
    },
    /// The core's trace reached its cap: nothing after this line.
    Truncated { cycle: u64, cap: u64, bytes: u64 },
    /// The firmware call ended: the core exited or stopped.
    Stop {
        cycle: u64,
        pc: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        func: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        insn: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        exit: Option<i32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        fault: Option<String>,
    },
}

/// The filter as the header line states it.
#[derive(Serialize, Clone, Copy)]
struct Filter {
    pc: Option<[u32; 2]>,
    cycles: Option<[u64; 2]>,
}

/// The last instruction the core began: from its `Before` event until its `After`, its
/// exception or the end of the run.
#[derive(Debug, Clone, Copy)]
struct Current {
    pc: u32,
    cycle: u64,
    op: Op,
    kept: bool,
}

/// One core's trace while it runs: the pending instruction, the registers before it (for a
/// kept one), and the lines not yet sent.
#[derive(Debug)]
pub struct Sink<'a> {
    core: u32,
    filter: CoreFilter,
    symbols: &'a Symbols,
    names: &'a RegisterNames,
    tx: Sender<Chunk>,
    chunk: Chunk,
    current: Option<Current>,
    before: Box<CoreState>,
    cap: CoreCap,
    /// Instructions written so far by this sink.
    pub kept: u64,
}

impl<'a> Sink<'a> {
    /// The trace of `core`, whose state is `start`, for one firmware call, with what is left
    /// of its cap.
    pub fn new(
        core: u32,
        filter: CoreFilter,
        symbols: &'a Symbols,
        names: &'a RegisterNames,
        tx: Sender<Chunk>,
        start: &CoreState,
        cap: CoreCap,
    ) -> Sink<'a> {
        Sink {
            core,
            filter,
            symbols,
            names,
            tx,
            chunk: Chunk {
                core,
                ..Chunk::default()
            },
            current: None,
            before: Box::new(start.clone()),
            cap,
            kept: 0,
        }
    }

    /// Whether the core's trace has ended at its cap.
    fn ended(&self) -> bool {
        self.cap.truncated.is_some()
    }

    /// Where the chunk's text and JSON end now.
    fn mark(&self) -> (usize, usize) {
        (self.chunk.text.len(), self.chunk.json.len())
    }

    /// The event formatted since `mark`, which happened at `cycle`, is kept when it fits under
    /// the cap with room for the notice; else it is taken out again, the notice is written in
    /// its place and the core's trace ends. Whether it was kept.
    fn settle(&mut self, mark: (usize, usize), cycle: u64) -> bool {
        let (text, json) = self.mark();
        let added = (text - mark.0 + json - mark.1) as u64;
        match self.cap.limit {
            Some(limit) if self.cap.used + added + NOTICE_MAX > limit => {
                self.chunk.text.truncate(mark.0);
                self.chunk.json.truncate(mark.1);
                self.truncate(cycle, limit);
                false
            }
            _ => {
                self.cap.used += added;
                true
            }
        }
    }

    /// Writes the notice that the trace reached its cap of `limit` bytes at `cycle` and sends
    /// everything: nothing more of the core is traced.
    fn truncate(&mut self, cycle: u64, limit: u64) {
        let (text, json) = notice(self.core, cycle, limit, self.cap.used);
        self.chunk.text.push_str(&text);
        self.chunk.json.push_str(&json);
        self.cap.used += (text.len() + json.len()) as u64;
        self.cap.truncated = Some(cycle);
        self.current = None;
        self.send();
    }

    /// The call `what` starts at `cycle`: writes the file headers first when `header` names
    /// the image (the core's first call), then the `run` event.
    pub fn start(&mut self, header: Option<&str>, what: &str, cycle: u64) {
        if let Some(image) = header {
            if self.ended() {
                return;
            }
            let mark = self.mark();
            self.header(image);
            self.settle(mark, cycle);
        }
        if self.ended() {
            return;
        }
        let mark = self.mark();
        let (core, pc) = (self.core, self.before.pc);
        let _ = writeln!(
            self.chunk.text,
            "# core {core}: {what} from cycle {cycle} at {pc:#010x}{}",
            self.func(pc).map(|f| format!(" {f}")).unwrap_or_default()
        );
        self.json(&Line::Run { what, cycle, pc });
        self.settle(mark, cycle);
    }

    fn header(&mut self, image: &str) {
        let symbols = !self.symbols.is_empty();
        let f = self.filter;
        let _ = writeln!(
            self.chunk.text,
            "# {FORMAT} {FORMAT_VERSION}: core {}, image {image}{}",
            self.core,
            if symbols { "" } else { " (no symbols)" }
        );
        let _ = writeln!(
            self.chunk.text,
            "# kept: pc {}, cycles {}",
            f.pc.map_or("all".to_string(), |(lo, hi)| format!(
                "{lo:#010x}..{hi:#010x}"
            )),
            f.cycles
                .map_or("all".to_string(), |(a, b)| format!("{a}..{b}")),
        );
        let _ = writeln!(
            self.chunk.text,
            "# cycle pc{} instruction; registers written, ld/st<size> address=value",
            if symbols { " function+offset" } else { "" }
        );
        self.json(&Line::Header {
            format: FORMAT,
            version: FORMAT_VERSION,
            core: self.core,
            image,
            symbols,
            filter: Filter {
                pc: f.pc.map(|(lo, hi)| [lo, hi]),
                cycles: f.cycles.map(|(a, b)| [a, b]),
            },
        });
    }

    /// `function+offset` of `pc`, when the image has symbols and one holds it.
    fn func(&self, pc: u32) -> Option<String> {
        self.symbols.describe(pc)
    }

    fn json(&mut self, line: &Line<'_>) {
        // A `Line` always serialises: its only map has string keys.
        if let Ok(text) = serde_json::to_string(line) {
            self.chunk.json.push_str(&text);
        }
        self.chunk.json.push('\n');
    }

    /// The text line's head: cycle, PC, function, disassembly.
    fn head(&mut self, c: &Current, insn: &str, func: Option<&str>) {
        let t = &mut self.chunk.text;
        let _ = write!(t, "{:>12} {:#010x} ", c.cycle, c.pc);
        if !self.symbols.is_empty() {
            let _ = write!(t, "{:<32} ", func.unwrap_or("-"));
        }
        let _ = write!(t, "{insn:<32}");
    }

    /// Sends the lines so far once they are long enough (blocking while the channel is full).
    fn maybe_send(&mut self) {
        if self.chunk.text.len() >= CHUNK_BYTES || self.chunk.json.len() >= CHUNK_BYTES {
            self.send();
        }
    }

    fn send(&mut self) {
        let chunk = std::mem::replace(
            &mut self.chunk,
            Chunk {
                core: self.core,
                ..Chunk::default()
            },
        );
        if !chunk.text.is_empty() || !chunk.json.is_empty() {
            // The writer receives until every sender is gone, so a send only fails if its
            // thread died, and then `finish` reports why.
            let _ = self.tx.send(chunk);
        }
    }

    /// The core is about to execute `op` at `state.pc` from `cycle`.
    #[inline]
    pub fn before(&mut self, state: &CoreState, op: &Op, cycle: u64) {
        if self.ended() {
            return;
        }
        let kept = self.filter.keeps(state.pc, cycle);
        if kept {
            (*self.before).clone_from(state);
        }
        self.current = Some(Current {
            pc: state.pc,
            cycle,
            op: *op,
            kept,
        });
    }

    /// The instruction begun completed at `end` with `accesses`, leaving `state`.
    pub fn after(&mut self, state: &CoreState, end: u64, accesses: &[Access]) {
        let Some(c) = self.current.take().filter(|c| c.kept) else {
            return;
        };
        let regs = written(self.names, &c.op, &self.before, state);
        let insn = disassembly(&c.op, c.pc);
        let func = self.func(c.pc);
        let mark = self.mark();
        self.head(&c, &insn, func.as_deref());
        let t = &mut self.chunk.text;
        for (name, v) in &regs {
            let _ = write!(t, " {name}={v:#010x}");
        }
        for a in accesses {
            let dir = if a.write { "st" } else { "ld" };
            let _ = write!(t, " {dir}{} {:#010x}={:#x}", a.size, a.addr, a.value);
        }
        t.push('\n');
        let mem = accesses
            .iter()
            .map(|a| Mem {
                addr: a.addr,
                size: a.size,
                value: a.value,
                write: a.write,
            })
            .collect();
        self.json(&Line::Insn {
            cycle: c.cycle,
            end,
            pc: c.pc,
            func: func.as_deref(),
            insn: &insn,
            regs: Registers(&regs),
            mem,
        });
        if self.settle(mark, c.cycle) {
            self.kept += 1;
            self.maybe_send();
        }
    }

    /// The instruction begun raised an exception, delivered through `vector` (entry done at
    /// `end`, `state` after delivery).
    pub fn exception(&mut self, vector: Vector, state: &CoreState, end: u64) {
        let Some(c) = self.current.take().filter(|c| c.kept) else {
            return;
        };
        let insn = disassembly(&c.op, c.pc);
        let func = self.func(c.pc);
        let general = vector.window().is_none();
        let cause = general.then(|| state.sr(sr::EXCCAUSE));
        let cause_name = cause.and_then(ExcCause::from_code).map(ExcCause::name);
        let vaddr = general.then(|| state.sr(sr::EXCVADDR));
        let mark = self.mark();
        self.head(&c, &insn, func.as_deref());
        let t = &mut self.chunk.text;
        let _ = write!(t, " ! exception {}", vector.name());
        if let Some(code) = cause {
            let _ = write!(
                t,
                ", EXCCAUSE {code} ({}), EXCVADDR {:#010x}",
                cause_name.unwrap_or("?"),
                vaddr.unwrap_or(0)
            );
        }
        t.push('\n');
        self.json(&Line::Exception {
            cycle: c.cycle,
            end,
            pc: c.pc,
            func: func.as_deref(),
            insn: &insn,
            vector: vector.name(),
            cause,
            cause_name,
            vaddr,
        });
        if self.settle(mark, c.cycle) {
            self.kept += 1;
            self.maybe_send();
        }
    }

    /// The firmware call ended with `stop` at `cycle`; sends everything not yet sent. The
    /// events kept and the core's cap as it is now, for its next call.
    pub fn stop(mut self, stop: &Stop, cycle: u64) -> (u64, CoreCap) {
        if self.ended() {
            self.send();
            return (self.kept, self.cap);
        }
        let mark = self.mark();
        let current = self.current.take();
        let (pc, insn) = match (stop, &current) {
            (Stop::Fault(r), _) => (r.pc, current.map(|c| disassembly(&c.op, c.pc))),
            (Stop::Exited(_), Some(c)) => (c.pc, Some(disassembly(&c.op, c.pc))),
            (Stop::Exited(_), None) => (self.before.pc, None),
        };
        let func = self.func(pc);
        let (exit, fault) = match stop {
            Stop::Exited(status) => (Some(*status), None),
            Stop::Fault(r) => (None, Some(r.kind.to_string())),
        };
        let t = &mut self.chunk.text;
        let _ = write!(t, "{cycle:>12} {pc:#010x} ");
        if !self.symbols.is_empty() {
            let _ = write!(t, "{:<32} ", func.as_deref().unwrap_or("-"));
        }
        let _ = write!(t, "{:<32}", insn.as_deref().unwrap_or("-"));
        match (&exit, &fault) {
            (Some(status), _) => {
                let _ = writeln!(t, " ! exit {status}");
            }
            (_, Some(why)) => {
                let _ = writeln!(t, " ! stopped: {why}");
            }
            _ => {}
        }
        self.json(&Line::Stop {
            cycle,
            pc,
            func: func.as_deref(),
            insn: insn.as_deref(),
            exit,
            fault,
        });
        self.settle(mark, cycle);
        self.send();
        (self.kept, self.cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_keeps_half_open_pc_and_cycle_ranges() {
        let f = CoreFilter {
            pc: Some((0x100, 0x200)),
            cycles: Some((10, 20)),
        };
        assert!(f.keeps(0x100, 10));
        assert!(f.keeps(0x1ff, 19));
        assert!(!f.keeps(0x200, 10), "HI is outside");
        assert!(!f.keeps(0x100, 20), "B is outside");
        assert!(!f.keeps(0xff, 15));
        let all = CoreFilter {
            pc: None,
            cycles: None,
        };
        assert!(all.keeps(0, 0) && all.keeps(u32::MAX, u64::MAX));
    }

    #[test]
    fn written_registers_are_named_in_the_window_after_the_instruction() {
        let names = RegisterNames::of(&q7_isa::NCORE2GP);
        let mut before = CoreState::reset(&q7_isa::NCORE2GP, 0, 0, 0);
        before.set_windowbase(1);
        let mut after = before.clone();
        // An ENTRY-like change: the window moves up two groups and a1 of the new one is set.
        after.set_windowbase(3);
        after.set_a(1, 0x020f_ff90);
        after.set_sr(sr::SAR, 7);
        let nop = Op::from_insn(q7_isa::Insn::new(q7_isa::Opcode::Nop, &[]));
        assert_eq!(
            written(&names, &nop, &before, &after),
            [
                ("a1".to_string(), 0x020f_ff90),
                ("sar".to_string(), 7),
                ("windowbase".to_string(), 3),
            ]
        );
        assert!(written(&names, &nop, &after, &after).is_empty());
    }

    #[test]
    fn a_destination_operand_is_written_even_with_the_value_it_held() {
        let names = RegisterNames::of(&q7_isa::NCORE2GP);
        let s = CoreState::reset(&q7_isa::NCORE2GP, 0, 0, 0);
        let insn = |opcode, operands: &[u32]| Op::from_insn(q7_isa::Insn::new(opcode, operands));
        use q7_isa::Opcode::{Rsr, Wsr};
        assert_eq!(
            written(&names, &insn(Rsr, &[3, u32::from(sr::PRID)]), &s, &s),
            [("a3".to_string(), 0)],
            "rsr.prid a3 on core 0"
        );
        assert_eq!(
            written(&names, &insn(Wsr, &[5, u32::from(sr::SAR)]), &s, &s),
            [("sar".to_string(), 0)],
            "wsr.sar a5 of 0"
        );
    }

    /// Runs `insns` NOPs through a sink of core 3 with `cap`, as one call starting at cycle
    /// `from`: what it sent (text, JSON), the instructions kept and the cap after.
    fn nops(cap: CoreCap, from: u64, insns: u64, header: bool) -> (String, String, u64, CoreCap) {
        let (names, symbols) = (RegisterNames::of(&q7_isa::NCORE2GP), Symbols::default());
        let (tx, rx) = crossbeam_channel::unbounded();
        let state = CoreState::reset(&q7_isa::NCORE2GP, 0, 0, 0);
        let filter = CoreFilter {
            pc: None,
            cycles: None,
        };
        let nop = Op::from_insn(q7_isa::Insn::new(q7_isa::Opcode::Nop, &[]));
        let mut sink = Sink::new(3, filter, &symbols, &names, tx, &state, cap);
        sink.start(header.then_some("k.packed.so"), "kernel of key 0x85", from);
        for cycle in from..from + insns {
            sink.before(&state, &nop, cycle);
            sink.after(&state, cycle + 1, &[]);
        }
        let (kept, cap) = sink.stop(&Stop::Exited(0), from + insns);
        let (mut text, mut json) = (String::new(), String::new());
        for c in rx.try_iter() {
            text.push_str(&c.text);
            json.push_str(&c.json);
        }
        (text, json, kept, cap)
    }

    #[test]
    fn a_cores_trace_ends_with_a_notice_at_its_cap_and_never_passes_it() {
        let limit = 8192;
        let (text, json, kept, cap) = nops(CoreCap::new(Some(limit)), 100, 1000, true);
        let bytes = (text.len() + json.len()) as u64;
        assert!(bytes <= limit, "{bytes} bytes");
        assert_eq!(cap.used, bytes, "every byte sent is counted");
        let at = cap.truncated.expect("1000 NOPs do not fit 8 KiB");
        let insn_lines = text.lines().filter(|l| !l.starts_with('#')).count() as u64;
        assert_eq!(
            kept, insn_lines,
            "the event that did not fit is not in the files"
        );
        assert_eq!(at, 100 + kept, "cut at the first event left out");
        assert_eq!(
            text.lines().last().unwrap(),
            format!(
                "# truncated at cycle {at}: core 3's trace reached its cap of 8192 bytes \
                 (--trace-max-bytes); nothing more of core 3 is traced"
            )
        );
        let last: serde_json::Value = serde_json::from_str(json.lines().last().unwrap()).unwrap();
        let notice_bytes = |t: &str| t.lines().last().unwrap().len() as u64 + 1;
        let before = bytes - notice_bytes(&text) - notice_bytes(&json);
        assert_eq!(
            last,
            serde_json::json!({"type": "truncated", "cycle": at, "cap": 8192, "bytes": before})
        );
        assert!(!json.contains("\"stop\""), "nothing after the notice");

        // The core's next call adds nothing.
        let (text, json, kept, after) = nops(cap, 5000, 10, false);
        assert_eq!((text.as_str(), json.as_str(), kept), ("", "", 0));
        assert_eq!(after, cap);

        // Without a cap, or with room, every event is there and ends with the stop.
        let (text, _, kept, cap) = nops(CoreCap::new(None), 100, 1000, true);
        assert_eq!((kept, cap.truncated), (1000, None));
        assert!(text.lines().last().unwrap().ends_with("! exit 0"));
    }

    #[test]
    fn the_notice_fits_its_room_whatever_its_numbers() {
        let (text, json) = notice(u32::MAX, u64::MAX, u64::MAX, u64::MAX);
        assert!(
            (text.len() + json.len()) as u64 <= NOTICE_MAX,
            "{} bytes",
            text.len() + json.len()
        );
    }

    #[test]
    fn disassembly_is_objdumps_text_with_one_space_after_the_mnemonic() {
        let op = Op::from_insn(q7_isa::Insn::new(
            q7_isa::Opcode::Addi,
            &[3, 4, -8i32 as u32],
        ));
        assert_eq!(disassembly(&op, 0), "addi a3, a4, -8");
    }
}
