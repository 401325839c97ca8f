//! A GDB remote serial protocol client for the tests of `q7emu … --gdb PORT` (docs/gdb.md):
//! packets `$body#cs` with their checksums checked both ways, `+` acknowledgements (until
//! `QStartNoAckMode`), run-length-decoded and unescaped replies, console output (`O`
//! packets) gathered apart, and the out-of-band Ctrl-C byte. Written from the protocol's
//! rules alone, so that it checks the server rather than sharing its code.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStderr};
use std::time::Duration;

/// A connection to a GDB server.
#[derive(Debug)]
pub struct Rsp {
    stream: TcpStream,
    acks: bool,
    /// Console text the server sent (`O` packets), in order.
    pub console: String,
}

/// The modulo-256 sum of `body`'s bytes.
pub fn checksum(body: &[u8]) -> u8 {
    body.iter().fold(0u8, |s, &b| s.wrapping_add(b))
}

/// `body` framed as a packet, with `#`, `$`, `}` and `*` escaped.
pub fn frame(body: &str) -> Vec<u8> {
    let mut esc = Vec::new();
    for &b in body.as_bytes() {
        if matches!(b, b'#' | b'$' | b'}' | b'*') {
            esc.extend_from_slice(&[b'}', b ^ 0x20]);
        } else {
            esc.push(b);
        }
    }
    let mut out = vec![b'$'];
    out.extend_from_slice(&esc);
    out.extend_from_slice(format!("#{:02x}", checksum(&esc)).as_bytes());
    out
}

/// A reply body with its escapes (`}x`) and run-length encoding (`c*n`: `n - 29` more `c`)
/// undone.
pub fn decode(raw: &[u8]) -> String {
    let mut out: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            b'}' if i + 1 < raw.len() => {
                out.push(raw[i + 1] ^ 0x20);
                i += 2;
            }
            b'*' if i + 1 < raw.len() && !out.is_empty() => {
                let last = *out.last().unwrap();
                let n = raw[i + 1] as usize - 29;
                out.extend(std::iter::repeat_n(last, n));
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Hex text of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes of hex text.
pub fn unhex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex digits"))
        .collect()
}

impl Rsp {
    /// Connects to `addr` (host:port).
    pub fn connect(addr: &str) -> Rsp {
        let stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        Rsp {
            stream,
            acks: true,
            console: String::new(),
        }
    }

    fn byte(&mut self) -> u8 {
        let mut b = [0u8];
        self.stream
            .read_exact(&mut b)
            .unwrap_or_else(|e| panic!("reading from the server: {e}"));
        b[0]
    }

    /// Sends `body` as a packet and waits for its acknowledgement (while acks are on).
    pub fn send(&mut self, body: &str) {
        self.stream.write_all(&frame(body)).unwrap();
        if self.acks {
            let ack = self.byte();
            assert_eq!(ack, b'+', "no acknowledgement of {body:?}");
        }
    }

    /// Writes `bytes` as they are: a packet with a wrong checksum, a stray byte.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// The next byte the server sends (an acknowledgement: `+`, or `-` asking again).
    pub fn next_byte(&mut self) -> u8 {
        self.byte()
    }

    /// Closes the connection.
    pub fn close(self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }

    /// The next packet's body (checksum checked, acknowledged), console packets gathered into
    /// [`Rsp::console`] and skipped.
    pub fn recv(&mut self) -> String {
        loop {
            while self.byte() != b'$' {}
            let mut raw = Vec::new();
            loop {
                match self.byte() {
                    b'#' => break,
                    b => raw.push(b),
                }
            }
            let cs = [self.byte(), self.byte()];
            let want = u8::from_str_radix(std::str::from_utf8(&cs).unwrap(), 16).unwrap();
            assert_eq!(checksum(&raw), want, "bad checksum on {raw:?}");
            if self.acks {
                self.stream.write_all(b"+").unwrap();
            }
            let body = decode(&raw);
            match body.strip_prefix('O') {
                Some(text) if !text.is_empty() && body != "OK" => {
                    self.console
                        .push_str(&String::from_utf8_lossy(&unhex(text)));
                }
                _ => return body,
            }
        }
    }

    /// Sends `body` and returns the reply.
    pub fn ask(&mut self, body: &str) -> String {
        self.send(body);
        self.recv()
    }

    /// The opening exchange GDB makes: features, no-ack mode, the initial stop reason.
    pub fn handshake(&mut self) -> String {
        let features = self.ask("qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+");
        assert!(features.contains("PacketSize="), "{features}");
        assert_eq!(self.ask("QStartNoAckMode"), "OK");
        self.acks = false;
        self.ask("?")
    }

    /// Ctrl-C: the interrupt byte, outside any packet.
    pub fn interrupt(&mut self) {
        self.stream.write_all(&[0x03]).unwrap();
    }

    /// Selects thread `tid` for register and memory packets.
    pub fn select(&mut self, tid: u32) {
        assert_eq!(self.ask(&format!("Hg{tid:x}")), "OK");
    }

    /// The `g` registers as words; q7emu sends each big-endian, as GDB's built-in Xtensa
    /// target reads them (docs/gdb.md "Registers").
    pub fn registers(&mut self) -> Vec<u32> {
        let g = self.ask("g");
        unhex(&g)
            .chunks_exact(4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// Writes all registers (`G`), each word big-endian.
    pub fn set_registers(&mut self, words: &[u32]) -> String {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        self.ask(&format!("G{}", hex(&bytes)))
    }

    /// `len` bytes at `addr`, or the error reply.
    pub fn memory(&mut self, addr: u32, len: u32) -> Result<Vec<u8>, String> {
        let r = self.ask(&format!("m{addr:x},{len:x}"));
        if r.starts_with('E') {
            Err(r)
        } else {
            Ok(unhex(&r))
        }
    }

    /// Writes `data` at `addr` (`M`): the reply.
    pub fn write_memory(&mut self, addr: u32, data: &[u8]) -> String {
        self.ask(&format!("M{addr:x},{:x}:{}", data.len(), hex(data)))
    }

    /// Every thread id the server lists.
    pub fn threads(&mut self) -> Vec<u32> {
        let mut out = Vec::new();
        let mut r = self.ask("qfThreadInfo");
        while let Some(list) = r.strip_prefix('m') {
            // `T` or, in the multiprocess form, `pP.T`.
            out.extend(list.split(',').map(|t| {
                let tid = t.rsplit('.').next().unwrap_or(t);
                u32::from_str_radix(tid, 16).unwrap_or_else(|_| panic!("thread id {t:?} in {r:?}"))
            }));
            r = self.ask("qsThreadInfo");
        }
        assert_eq!(r, "l");
        out
    }

    /// `monitor CMD`: the text it printed.
    pub fn monitor(&mut self, cmd: &str) -> String {
        self.console.clear();
        let r = self.ask(&format!("qRcmd,{}", hex(cmd.as_bytes())));
        assert_eq!(r, "OK", "monitor {cmd}");
        std::mem::take(&mut self.console)
    }
}

/// A stop reply's parts: `T` + signal + `key:value;` pairs, or `W`/`X` + code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopReply {
    /// `T`, `S`, `W` or `X`.
    pub kind: char,
    /// The signal (T/S/X) or exit status (W).
    pub code: u8,
    /// The `key:value` pairs of a `T` reply.
    pub pairs: Vec<(String, String)>,
}

impl StopReply {
    /// Parses a stop reply.
    pub fn parse(text: &str) -> StopReply {
        let kind = text.chars().next().expect("an empty stop reply");
        let code = u8::from_str_radix(&text[1..3], 16).unwrap_or_else(|_| panic!("{text}"));
        let pairs = text[3..]
            .split(';')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once(':').unwrap_or((p, ""));
                (k.to_string(), v.to_string())
            })
            .collect();
        StopReply { kind, code, pairs }
    }

    /// The value of `key`, if the reply has it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The thread the reply names (`thread:` in hex, maybe `pP.T`).
    pub fn thread(&self) -> Option<u32> {
        let t = self.get("thread")?;
        let t = t.rsplit('.').next().unwrap_or(t);
        u32::from_str_radix(t, 16).ok()
    }
}

/// Reads `child`'s stderr until the line `q7emu: GDB server listening on ADDR`: ADDR, and
/// a thread that keeps reading the rest (so the child never blocks on a full pipe), whose
/// result is everything it read, that line included.
pub fn server_address(child: &mut Child) -> (String, std::thread::JoinHandle<String>) {
    stderr_until(child, "q7emu: GDB server listening on ")
}

/// Reads `child`'s stderr up to the first line starting with `prefix`: the rest of that line,
/// and a thread that collects the whole stderr (that line and those before it included).
pub fn stderr_until(child: &mut Child, prefix: &str) -> (String, std::thread::JoinHandle<String>) {
    let stderr: ChildStderr = child.stderr.take().expect("stderr piped");
    let mut reader = BufReader::new(stderr);
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            panic!("q7emu ended before a line starting {prefix:?}:\n{seen}");
        }
        seen.push_str(&line);
        if let Some(addr) = line.trim().strip_prefix(prefix) {
            let addr = addr.to_string();
            let rest = std::thread::spawn(move || {
                let mut all = seen;
                let _ = reader.read_to_string(&mut all);
                all
            });
            return (addr, rest);
        }
    }
}
