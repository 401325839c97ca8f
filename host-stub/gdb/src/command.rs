//! The packets the server takes, parsed from their bodies (docs/gdb.md "Packets and errors"),
//! and [`Refusal`]: why a packet gets an error reply, one `Enn` code per kind.
//!
//! Parsing never fails in any other way: a body is a [`Command`], a [`Command::Unsupported`]
//! packet (the empty reply), or a [`Refusal`].

use super::arch::G_REGISTERS;
use super::wire::{hex_digit, PACKET_SIZE};

/// Why a packet got the error reply `E` + [`Refusal::code`] (docs/gdb.md "Error replies");
/// the reason itself is said on q7emu's stderr.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A field missing or not hex, a number too large for its field, data of the wrong length.
    #[error("malformed packet: {0}")]
    Malformed(String),
    /// A thread id the session does not have (the id, and which there are).
    #[error("no thread {0}")]
    NoThread(String),
    /// Memory the selected core's address map does not hold.
    #[error("{len} byte(s) at {addr:#010x}: not mapped on core {prid}")]
    Unmapped {
        /// First byte asked for.
        addr: u32,
        /// Bytes asked for.
        len: usize,
        /// The core's PRID.
        prid: u32,
    },
    /// A packet longer than the server takes.
    #[error(
        "a packet of {0} bytes, longer than the {max} the server takes (its PacketSize)",
        max = PACKET_SIZE
    )]
    Overlong(usize),
    /// A resume that names only cores that have ended.
    #[error("nothing to resume: {0}")]
    NothingToResume(String),
    /// A breakpoint or watchpoint over the session's limit.
    #[error("{0}")]
    TooMany(String),
    /// A form of a packet the server does not take.
    #[error("not supported: {0}")]
    Unsupported(String),
}

impl Refusal {
    /// Every error reply and what it means: the table of docs/gdb.md "Error replies".
    pub const TABLE: [(u8, &'static str); 7] = [
        (
            0x01,
            "malformed packet: a field missing or not hex, a number too large for its field \
             (an address over 32 bits), data of the wrong length (a short `G`, `M` data short \
             of its length)",
        ),
        (
            0x02,
            "no such thread (an id past the session's cores, a process other than 1)",
        ),
        (
            0x03,
            "memory not mapped on the selected core (GDB: `Cannot access memory at address …`)",
        ),
        (
            0x04,
            "a packet longer than the `PacketSize` the server advertises",
        ),
        (
            0x05,
            "nothing to resume: every core the resume names has ended",
        ),
        (
            0x06,
            "one breakpoint or watchpoint more than a session holds",
        ),
        (
            0x07,
            "a form the server does not take: a range step (`vCont;r`), resuming at an \
             address, a breakpoint condition",
        ),
    ];

    /// The error number of the reply `Enn`.
    pub fn code(&self) -> u8 {
        let row = match self {
            Refusal::Malformed(_) => 0,
            Refusal::NoThread(_) => 1,
            Refusal::Unmapped { .. } => 2,
            Refusal::Overlong(_) => 3,
            Refusal::NothingToResume(_) => 4,
            Refusal::TooMany(_) => 5,
            Refusal::Unsupported(_) => 6,
        };
        Self::TABLE[row].0
    }

    /// The reply body, `Enn`.
    pub fn reply(&self) -> String {
        format!("E{:02x}", self.code())
    }
}

fn malformed(what: impl Into<String>) -> Refusal {
    Refusal::Malformed(what.into())
}

/// A thread as a packet names it (`[pPID.]TID`, each hex, `-1` or `0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thread {
    /// `-1`: every thread.
    All,
    /// `0`: any thread (the server picks the current one).
    Any,
    /// A thread id (core PRID + 1).
    Id(u32),
}

/// The one process the server serves: its id in multiprocess thread ids (`p1.N`).
pub const PID: u32 = 1;

/// What a resume does to a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    /// `c`/`C sig`: run on (a signal is not delivered: q7emu's cores take none).
    Continue,
    /// `s`/`S sig`: one instruction.
    Step,
    /// `t`: stay stopped.
    Stay,
}

/// A breakpoint or watchpoint type of `Z`/`z` (`Z0`..`Z4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointType {
    /// `Z0`.
    Software,
    /// `Z1`.
    Hardware,
    /// `Z2`.
    Write,
    /// `Z3`.
    Read,
    /// `Z4`.
    Access,
}

/// A parsed packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `qSupported[:features]`: whether GDB offered `multiprocess+`.
    Supported {
        /// `multiprocess+` was among GDB's features.
        multiprocess: bool,
    },
    /// `QStartNoAckMode`.
    NoAckMode,
    /// `?`.
    StopReason,
    /// `Hg`/`Hc` + thread: the thread of register and memory packets (`g`) or of `c`/`s`.
    SetThread {
        /// `Hc` (else `Hg`).
        resume: bool,
        /// The thread.
        thread: Thread,
    },
    /// `g`.
    ReadRegisters,
    /// `G`: the 45 registers' bytes.
    WriteRegisters(Vec<u8>),
    /// `p N`.
    ReadRegister(usize),
    /// `P N=VALUE`: the register number and its value's bytes.
    WriteRegister(usize, [u8; 4]),
    /// `m ADDR,LEN`.
    ReadMemory {
        /// First byte.
        addr: u32,
        /// Bytes asked for.
        len: u32,
    },
    /// `M ADDR,LEN:HEX` or `X ADDR,LEN:BINARY`.
    WriteMemory {
        /// First byte.
        addr: u32,
        /// The bytes.
        data: Vec<u8>,
    },
    /// `Z`/`z` TYPE,ADDR,KIND.
    Point {
        /// `Z` (else `z`).
        insert: bool,
        /// The type.
        kind: PointType,
        /// The address.
        addr: u32,
        /// The breakpoint's instruction length or the watched length.
        len: u32,
    },
    /// `vCont?`.
    ResumeActions,
    /// `vCont;ACTION[:THREAD]…`: the actions, leftmost first.
    Resume(Vec<(ActionKind, Thread)>),
    /// `c`, `C sig`, `s`, `S sig`: the thread `Hc` chose.
    ResumeSelected(ActionKind),
    /// `D`.
    Detach,
    /// `k` (no reply) or `vKill;PID` (`OK`).
    Kill {
        /// Reply `OK` (`vKill`).
        reply: bool,
    },
    /// `qfThreadInfo`.
    FirstThreads,
    /// `qsThreadInfo`.
    MoreThreads,
    /// `qC`.
    CurrentThread,
    /// `qAttached`.
    Attached,
    /// `T THREAD`.
    ThreadAlive(Thread),
    /// `qThreadExtraInfo,THREAD`.
    ThreadExtraInfo(Thread),
    /// `qRcmd,HEX`: the monitor command.
    Monitor(Vec<u8>),
    /// A packet the server does not implement: the empty reply.
    Unsupported,
}

/// A hex number of at most 32 bits; `what` names the field in the refusal.
fn hex_u32(field: &[u8], what: &str) -> Result<u32, Refusal> {
    if field.is_empty() {
        return Err(malformed(format!("{what} missing")));
    }
    let mut v: u64 = 0;
    for &b in field {
        let d = hex_digit(b)
            .ok_or_else(|| malformed(format!("{what} {:?} is not hex", shown(field))))?;
        v = v << 4 | u64::from(d);
        if v > u64::from(u32::MAX) {
            return Err(malformed(format!(
                "{what} {:?} does not fit 32 bits",
                shown(field)
            )));
        }
    }
    Ok(v as u32)
}

/// Bytes of hex text (two digits a byte).
fn hex_bytes(text: &[u8], what: &str) -> Result<Vec<u8>, Refusal> {
    if !text.len().is_multiple_of(2) {
        return Err(malformed(format!(
            "{what}: an odd number ({}) of hex digits",
            text.len()
        )));
    }
    text.chunks_exact(2)
        .enumerate()
        .map(|(i, pair)| match (hex_digit(pair[0]), hex_digit(pair[1])) {
            (Some(h), Some(l)) => Ok(h << 4 | l),
            _ => Err(malformed(format!(
                "{what}: {:?} at hex digit {} is not hex",
                shown(pair),
                2 * i
            ))),
        })
        .collect()
}

/// A field for a message: text, at most 40 characters of it.
pub fn shown(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.into_owned(),
    }
}

/// `[pPID.]TID`.
fn thread(field: &[u8]) -> Result<Thread, Refusal> {
    let id = |f: &[u8], what: &str| -> Result<Thread, Refusal> {
        match f {
            b"-1" => Ok(Thread::All),
            _ => match hex_u32(f, what)? {
                0 => Ok(Thread::Any),
                n => Ok(Thread::Id(n)),
            },
        }
    };
    match field.strip_prefix(b"p") {
        None => id(field, "thread id"),
        Some(rest) => {
            let (pid, tid) = match rest.iter().position(|&b| b == b'.') {
                Some(dot) => (&rest[..dot], &rest[dot + 1..]),
                None => (rest, &b"-1"[..]),
            };
            match id(pid, "process id")? {
                Thread::Id(p) if p != PID => Err(Refusal::NoThread(format!(
                    "{}: the one process served is {PID}",
                    shown(field)
                ))),
                _ => id(tid, "thread id"),
            }
        }
    }
}

/// `ADDR,LEN` of `m`, `M`, `X`.
fn addr_len(field: &[u8]) -> Result<(u32, u32), Refusal> {
    let (addr, len) = split(field, b',', "a length after the address")?;
    Ok((hex_u32(addr, "address")?, hex_u32(len, "length")?))
}

/// `field` split at the first `sep`; `what` names what must follow it.
fn split<'a>(field: &'a [u8], sep: u8, what: &str) -> Result<(&'a [u8], &'a [u8]), Refusal> {
    match field.iter().position(|&b| b == sep) {
        Some(at) => Ok((&field[..at], &field[at + 1..])),
        None => Err(malformed(format!(
            "{what} ({:?} expected) missing",
            sep as char
        ))),
    }
}

/// A signal number (`C sig`, `S sig`): two hex digits.
fn signal(field: &[u8]) -> Result<u8, Refusal> {
    let n = hex_u32(field, "signal")?;
    u8::try_from(n).map_err(|_| malformed(format!("signal {:?} over 0xff", shown(field))))
}

/// A packet's body with `}` escapes undone (binary data of `X`).
fn unescape(data: &[u8]) -> Result<Vec<u8>, Refusal> {
    let mut out = Vec::with_capacity(data.len());
    let mut bytes = data.iter();
    while let Some(&b) = bytes.next() {
        if b == b'}' {
            let &next = bytes
                .next()
                .ok_or_else(|| malformed("binary data ends in the escape byte '}'"))?;
            out.push(next ^ 0x20);
        } else {
            out.push(b);
        }
    }
    Ok(out)
}

/// One `vCont` action: `c`, `C sig`, `s`, `S sig`, `t`, each with an optional `:THREAD`.
fn action(text: &[u8]) -> Result<(ActionKind, Thread), Refusal> {
    let (act, on) = match text.iter().position(|&b| b == b':') {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let on = on.map(thread).transpose()?.unwrap_or(Thread::All);
    let kind = match act.split_first() {
        Some((b'c', [])) => ActionKind::Continue,
        Some((b's', [])) => ActionKind::Step,
        Some((b't', [])) => ActionKind::Stay,
        Some((b'C', sig)) => {
            signal(sig)?;
            ActionKind::Continue
        }
        Some((b'S', sig)) => {
            signal(sig)?;
            ActionKind::Step
        }
        Some((b'r', _)) => {
            return Err(Refusal::Unsupported(
                "range stepping (vCont;r): vCont? does not offer it".into(),
            ))
        }
        _ => {
            return Err(malformed(format!(
                "vCont action {:?} is none of c, C sig, s, S sig, t",
                shown(act)
            )))
        }
    };
    Ok((kind, on))
}

/// `c`/`s` with an optional address, `C`/`S` with a signal and an optional `;ADDR`.
fn resume_selected(kind: ActionKind, with_signal: bool, args: &[u8]) -> Result<Command, Refusal> {
    let addr = if with_signal {
        let (sig, addr) = match args.iter().position(|&b| b == b';') {
            Some(at) => (&args[..at], Some(&args[at + 1..])),
            None => (args, None),
        };
        signal(sig)?;
        addr
    } else {
        (!args.is_empty()).then_some(args)
    };
    if let Some(addr) = addr {
        hex_u32(addr, "resume address")?;
        return Err(Refusal::Unsupported(
            "resuming at an address (set $pc first)".into(),
        ));
    }
    Ok(Command::ResumeSelected(kind))
}

/// Nothing may follow a packet's name.
fn bare(cmd: Command, args: &[u8], name: &str) -> Result<Command, Refusal> {
    if args.is_empty() {
        Ok(cmd)
    } else {
        Err(malformed(format!(
            "{name} takes no argument, got {:?}",
            shown(args)
        )))
    }
}

/// Parses a packet body.
pub fn parse(body: &[u8]) -> Result<Command, Refusal> {
    let Some((&first, args)) = body.split_first() else {
        return Ok(Command::Unsupported);
    };
    match first {
        b'?' => bare(Command::StopReason, args, "?"),
        b'g' => bare(Command::ReadRegisters, args, "g"),
        b'G' => {
            let bytes = hex_bytes(args, "G register data")?;
            if bytes.len() != G_REGISTERS * 4 {
                return Err(malformed(format!(
                    "G: {} bytes of register data, not the {} of the {G_REGISTERS} registers",
                    bytes.len(),
                    G_REGISTERS * 4
                )));
            }
            Ok(Command::WriteRegisters(bytes))
        }
        b'p' => Ok(Command::ReadRegister(register(args)?)),
        b'P' => {
            let (n, value) = split(args, b'=', "a value after the register number")?;
            let bytes = hex_bytes(value, "P value")?;
            let value: [u8; 4] = bytes.try_into().map_err(|b: Vec<u8>| {
                malformed(format!("P: a {}-byte value for a 4-byte register", b.len()))
            })?;
            Ok(Command::WriteRegister(register(n)?, value))
        }
        b'm' => {
            let (addr, len) = addr_len(args)?;
            Ok(Command::ReadMemory { addr, len })
        }
        b'M' | b'X' => {
            let (head, data) = split(args, b':', "the data after the length")?;
            let (addr, len) = addr_len(head)?;
            let data = if first == b'M' {
                hex_bytes(data, "M data")?
            } else {
                unescape(data)?
            };
            if data.len() != len as usize {
                return Err(malformed(format!(
                    "{}: {} data bytes for a length of {len}",
                    first as char,
                    data.len()
                )));
            }
            Ok(Command::WriteMemory { addr, data })
        }
        b'Z' | b'z' => point(first == b'Z', args),
        b'H' => {
            let (op, id) = args
                .split_first()
                .ok_or_else(|| malformed("H: the operation (g or c) missing"))?;
            let resume = match op {
                b'g' => false,
                b'c' => true,
                _ => {
                    return Err(malformed(format!(
                        "H{}: the operation is g or c",
                        *op as char
                    )))
                }
            };
            Ok(Command::SetThread {
                resume,
                thread: thread(id)?,
            })
        }
        b'c' => resume_selected(ActionKind::Continue, false, args),
        b's' => resume_selected(ActionKind::Step, false, args),
        b'C' => resume_selected(ActionKind::Continue, true, args),
        b'S' => resume_selected(ActionKind::Step, true, args),
        b'D' => {
            if !args.is_empty() {
                let pid = args
                    .strip_prefix(b";")
                    .ok_or_else(|| malformed(format!("D: {:?} is not ;PID", shown(args))))?;
                hex_u32(pid, "process id")?;
            }
            Ok(Command::Detach)
        }
        b'k' => bare(Command::Kill { reply: false }, args, "k"),
        b'T' => Ok(Command::ThreadAlive(thread(args)?)),
        _ => named(body),
    }
}

/// `p`/`P`'s register number: one of the `g` packet's [`G_REGISTERS`].
fn register(field: &[u8]) -> Result<usize, Refusal> {
    let n = hex_u32(field, "register number")? as usize;
    if n < G_REGISTERS {
        Ok(n)
    } else {
        Err(malformed(format!(
            "register {n:#x}: the g packet has {G_REGISTERS} (0..={:#x})",
            G_REGISTERS - 1
        )))
    }
}

/// `Z`/`z` TYPE,ADDR,KIND (a `;` condition list is refused: `qSupported` offers none).
fn point(insert: bool, args: &[u8]) -> Result<Command, Refusal> {
    let (kind, rest) = split(args, b',', "the address after the type")?;
    let kind = match kind {
        b"0" => PointType::Software,
        b"1" => PointType::Hardware,
        b"2" => PointType::Write,
        b"3" => PointType::Read,
        b"4" => PointType::Access,
        _ => {
            hex_u32(kind, "breakpoint type")?;
            return Ok(Command::Unsupported);
        }
    };
    let (addr, len) = split(rest, b',', "the kind after the address")?;
    let (len, conditions) = match len.iter().position(|&b| b == b';') {
        Some(at) => (&len[..at], true),
        None => (len, false),
    };
    let addr = hex_u32(addr, "address")?;
    let len = hex_u32(len, "kind")?;
    if conditions {
        return Err(Refusal::Unsupported(
            "breakpoint conditions or commands (qSupported offers none)".into(),
        ));
    }
    if len == 0 && !matches!(kind, PointType::Software | PointType::Hardware) {
        return Err(malformed("a watchpoint of length 0"));
    }
    Ok(Command::Point {
        insert,
        kind,
        addr,
        len,
    })
}

/// The packets with names (`q…`, `Q…`, `v…`).
fn named(body: &[u8]) -> Result<Command, Refusal> {
    let (name, args) = match body.iter().position(|&b| matches!(b, b':' | b',' | b';')) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let sep = body.get(name.len()).copied();
    Ok(match (name, sep) {
        (b"qSupported", None | Some(b':')) => Command::Supported {
            multiprocess: args
                .unwrap_or_default()
                .split(|&b| b == b';')
                .any(|f| f == b"multiprocess+"),
        },
        (b"QStartNoAckMode", None) => Command::NoAckMode,
        (b"qfThreadInfo", None) => Command::FirstThreads,
        (b"qsThreadInfo", None) => Command::MoreThreads,
        (b"qC", None) => Command::CurrentThread,
        (b"qAttached", None) => Command::Attached,
        (b"qAttached", Some(b':')) => {
            hex_u32(args.unwrap_or_default(), "process id")?;
            Command::Attached
        }
        (b"qThreadExtraInfo", Some(b',')) => {
            Command::ThreadExtraInfo(thread(args.unwrap_or_default())?)
        }
        (b"qRcmd", Some(b',')) => {
            Command::Monitor(hex_bytes(args.unwrap_or_default(), "qRcmd command")?)
        }
        (b"vCont?", None) => Command::ResumeActions,
        (b"vCont", Some(b';')) => {
            let actions = args
                .unwrap_or_default()
                .split(|&b| b == b';')
                .map(action)
                .collect::<Result<Vec<_>, _>>()?;
            Command::Resume(actions)
        }
        (b"vCont", _) => return Err(malformed("vCont: no action (vCont;ACTION[:THREAD]…)")),
        (b"vKill", Some(b';')) => {
            hex_u32(args.unwrap_or_default(), "process id")?;
            Command::Kill { reply: true }
        }
        _ => Command::Unsupported,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> u8 {
        match parse(body.as_bytes()) {
            Err(r) => r.code(),
            Ok(c) => panic!("{body:?} parsed: {c:?}"),
        }
    }

    /// The packets GDB 18 sends in the worked session of docs/gdb.md, as it sends them.
    #[test]
    fn the_packets_gdb_sends_parse_to_their_commands() {
        let ok = |body: &str| parse(body.as_bytes()).unwrap();
        assert_eq!(
            ok("qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+;no-resumed+"),
            Command::Supported { multiprocess: true }
        );
        assert_eq!(
            ok("Hgp0.0"),
            Command::SetThread {
                resume: false,
                thread: Thread::Any
            }
        );
        assert_eq!(
            ok("Hgp1.8"),
            Command::SetThread {
                resume: false,
                thread: Thread::Id(8)
            }
        );
        assert_eq!(
            ok("Hc-1"),
            Command::SetThread {
                resume: true,
                thread: Thread::All
            }
        );
        assert_eq!(
            ok("m84000648,2"),
            Command::ReadMemory {
                addr: 0x8400_0648,
                len: 2
            }
        );
        assert_eq!(
            ok("Z0,84000648,2"),
            Command::Point {
                insert: true,
                kind: PointType::Software,
                addr: 0x8400_0648,
                len: 2
            }
        );
        assert_eq!(
            ok("vCont;c:p1.-1"),
            Command::Resume(vec![(ActionKind::Continue, Thread::All)])
        );
        assert_eq!(
            ok("vCont;C04:p1.1;s:2;t"),
            Command::Resume(vec![
                (ActionKind::Continue, Thread::Id(1)),
                (ActionKind::Step, Thread::Id(2)),
                (ActionKind::Stay, Thread::All)
            ])
        );
        assert_eq!(
            ok("qThreadExtraInfo,p1.3"),
            Command::ThreadExtraInfo(Thread::Id(3))
        );
        assert_eq!(ok("qRcmd,72656773"), Command::Monitor(b"regs".to_vec()));
        assert_eq!(
            ok("X82000,3:a}]b"),
            Command::WriteMemory {
                addr: 0x82000,
                data: b"a}b".to_vec()
            }
        );
        assert_eq!(
            ok("P2a=11223344"),
            Command::WriteRegister(0x2a, [0x11, 0x22, 0x33, 0x44])
        );
        for unsupported in [
            "vMustReplyEmpty",
            "qTStatus",
            "qExecAndArgs",
            "Z5,0,1",
            "x0,4",
            "",
        ] {
            assert_eq!(ok(unsupported), Command::Unsupported, "{unsupported:?}");
        }
    }

    /// docs/gdb.md "Error replies": each malformed form gets its code, never a panic.
    #[test]
    fn malformed_packets_get_their_error_codes() {
        for body in [
            "m123456789,4",
            "m82000",
            "m82000,zz",
            "mfoo,4",
            "M82000,4:0102",
            "M82000,2:01zz",
            "M82000,1:123",
            "M82000,4",
            "X82000,2:a",
            "X82000,1:}",
            "G0102",
            "Gxx",
            "p2d",
            "p",
            "P1=12",
            "P1",
            "Z0,100000000,3",
            "Z2,82000,0",
            "z1,84000000",
            "Hx1",
            "H",
            "Hgzz",
            "vCont",
            "vCont;",
            "vCont;q",
            "vCont;C",
            "vCont;C100",
            "vCont;c:zz",
            "C",
            "S1ff",
            "gx",
            "?x",
            "kk",
            "qRcmd,7",
            "D1",
            "T",
        ] {
            assert_eq!(code(body), 0x01, "{body:?}");
        }
        assert_eq!(code("Hgp2.1"), 0x02, "a process other than the one served");
        assert_eq!(code("vCont;r84000000,84000010:1"), 0x07);
        assert_eq!(code("c84000000"), 0x07);
        assert_eq!(code("S05;84000000"), 0x07);
        assert_eq!(code("Z0,84000000,3;X1,0"), 0x07);
    }

    /// Every prefix of a packet the server takes, and the packet with any one byte changed to
    /// a delimiter, a non-hex letter, a high byte or an escape, parses or is refused: parsing
    /// has no third outcome (no panic).
    #[test]
    fn every_prefix_and_byte_change_of_a_packet_parses_or_is_refused() {
        let packets = [
            "qSupported:multiprocess+;swbreak+",
            "Hgp1.2",
            "Hc-1",
            "g",
            "G0102030405060708",
            "p2a",
            "P2a=11223344",
            "m84000648,2",
            "M82000,2:0102",
            "X82000,2:}]a",
            "Z2,82000,4",
            "z0,84000648,3",
            "vCont;C04:p1.1;s:2;c",
            "c",
            "S05",
            "D;1",
            "vKill;1",
            "T3",
            "qThreadExtraInfo,p1.3",
            "qRcmd,72656773",
            "qAttached:1",
        ];
        let mut outcomes = 0;
        for packet in packets {
            let bytes = packet.as_bytes();
            for end in 0..=bytes.len() {
                let _ = parse(&bytes[..end]);
                outcomes += 1;
            }
            for at in 0..bytes.len() {
                for b in [b',', b':', b';', b'.', b'-', b'=', b'p', b'z', 0xff, b'}'] {
                    let mut changed = bytes.to_vec();
                    changed[at] = b;
                    let _ = parse(&changed);
                    outcomes += 1;
                }
            }
        }
        assert!(outcomes > 2000, "{outcomes} bodies parsed");
    }

    /// docs/gdb.md "Error replies" is this table.
    #[test]
    fn the_doc_lists_every_error_reply() {
        let doc = q7_tests::doc::read("docs/gdb.md");
        let rows = q7_tests::doc::table_after(&doc, "### Error replies");
        let want: Vec<Vec<String>> = Refusal::TABLE
            .iter()
            .map(|(code, meaning)| vec![format!("`E{code:02x}`"), meaning.to_string()])
            .collect();
        assert_eq!(rows, want);
    }

    #[test]
    fn every_refusal_has_its_own_code() {
        let codes: Vec<u8> = Refusal::TABLE.iter().map(|(c, _)| *c).collect();
        assert_eq!(codes, (1..=7).collect::<Vec<u8>>());
        assert_eq!(Refusal::Overlong(1).reply(), "E04");
    }
}
