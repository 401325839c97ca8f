//! The remote protocol's framing (docs/gdb.md "Packets and errors"): packets `$body#cs`
//! (`cs` the two-hex-digit modulo-256 sum of the body's bytes), the `+`/`-` acknowledgements
//! until `QStartNoAckMode`, and the out-of-band Ctrl-C byte 0x03.
//!
//! What the receiver holds is bounded: a body longer than [`PACKET_SIZE`] is counted, not
//! kept ([`Incoming::Overlong`]), and bytes outside a packet that are none of `$ + - 0x03`
//! are dropped. A `$` inside a body starts the packet afresh (the one before it was cut
//! short: a body carries `$` only escaped).

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The longest packet body the server takes (escapes included), which it advertises as
/// `PacketSize` in its `qSupported` reply; the reply to `m` is held to half of it in bytes.
pub const PACKET_SIZE: usize = 0x4000;

/// What arrived from the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    /// A whole packet: its body as sent (escapes not undone) and whether its checksum held.
    Packet {
        /// The bytes between `$` and `#`.
        body: Vec<u8>,
        /// The checksum after `#` was two hex digits equal to the body's sum.
        checksum_ok: bool,
    },
    /// A packet whose body was longer than [`PACKET_SIZE`]: its length, its bytes dropped.
    Overlong {
        /// Bytes between `$` and `#`.
        len: usize,
    },
    /// `+`: the client received the last packet.
    Ack,
    /// `-`: the client asks for the last packet again.
    Nack,
    /// The byte 0x03: GDB's Ctrl-C.
    Interrupt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between packets.
    Idle,
    /// After `$`.
    Body,
    /// After `#`.
    Sum1,
    /// After the checksum's first character.
    Sum2(u8),
}

/// Packets assembled byte by byte.
#[derive(Debug)]
pub struct Receiver {
    state: State,
    body: Vec<u8>,
    len: usize,
    sum: u8,
}

impl Default for Receiver {
    fn default() -> Self {
        Receiver {
            state: State::Idle,
            body: Vec::new(),
            len: 0,
            sum: 0,
        }
    }
}

/// The value of a hex digit.
pub fn hex_digit(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

impl Receiver {
    /// Takes one byte: what it completes, if anything.
    pub fn feed(&mut self, byte: u8) -> Option<Incoming> {
        match self.state {
            State::Idle => match byte {
                b'$' => self.start(),
                b'+' => return Some(Incoming::Ack),
                b'-' => return Some(Incoming::Nack),
                0x03 => return Some(Incoming::Interrupt),
                _ => {}
            },
            State::Body => match byte {
                b'#' => self.state = State::Sum1,
                b'$' => self.start(),
                _ => {
                    if self.body.len() < PACKET_SIZE {
                        self.body.push(byte);
                    }
                    self.len += 1;
                    self.sum = self.sum.wrapping_add(byte);
                }
            },
            State::Sum1 => self.state = State::Sum2(byte),
            State::Sum2(first) => {
                self.state = State::Idle;
                let body = std::mem::take(&mut self.body);
                if self.len > PACKET_SIZE {
                    return Some(Incoming::Overlong { len: self.len });
                }
                let sent = hex_digit(first)
                    .zip(hex_digit(byte))
                    .map(|(h, l)| h << 4 | l);
                return Some(Incoming::Packet {
                    body,
                    checksum_ok: sent == Some(self.sum),
                });
            }
        }
        None
    }

    fn start(&mut self) {
        self.state = State::Body;
        self.body.clear();
        self.len = 0;
        self.sum = 0;
    }
}

/// `body` framed as a packet: `$`, the body with `$ # } *` escaped (`}` and the byte XOR
/// 0x20), `#` and the checksum of what was sent.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 4);
    out.push(b'$');
    for &b in body {
        if matches!(b, b'$' | b'#' | b'}' | b'*') {
            out.extend_from_slice(&[b'}', b ^ 0x20]);
        } else {
            out.push(b);
        }
    }
    let sum = out[1..].iter().fold(0u8, |s, &b| s.wrapping_add(b));
    out.extend_from_slice(format!("#{sum:02x}").as_bytes());
    out
}

/// How long a waiting read or write blocks before the server looks at Ctrl-C again.
pub const WAIT: Duration = Duration::from_millis(50);

/// The connection to the client: reads through a [`Receiver`], writes framed packets, and
/// keeps the acknowledgement mode and the last packet sent (for a `-`).
#[derive(Debug)]
pub struct Link {
    stream: TcpStream,
    rx: Receiver,
    buf: Box<[u8; 4096]>,
    pos: usize,
    end: usize,
    /// Acknowledgements are on (until `QStartNoAckMode`).
    pub acks: bool,
    last: Vec<u8>,
    nonblocking: bool,
    stop: q7_emulator::StopRequest,
}

impl Link {
    /// A link over `stream`, acknowledgements on.
    pub fn new(stream: TcpStream) -> std::io::Result<Link> {
        stream.set_read_timeout(Some(WAIT))?;
        stream.set_write_timeout(Some(WAIT))?;
        Ok(Link {
            stop: q7_conventions::interrupt::stop_request(),
            stream,
            rx: Receiver::default(),
            buf: Box::new([0; 4096]),
            pos: 0,
            end: 0,
            acks: true,
            last: Vec::new(),
            nonblocking: false,
        })
    }

    /// The next thing the client sent, from what has arrived and at most one read more: that
    /// read waits up to [`WAIT`] when `wait`, else takes only what is there. `Ok(None)`:
    /// nothing whole yet. A closed connection is an [`ErrorKind::UnexpectedEof`] error.
    pub fn recv(&mut self, wait: bool) -> std::io::Result<Option<Incoming>> {
        if let Some(incoming) = self.take() {
            return Ok(Some(incoming));
        }
        if self.nonblocking == wait {
            self.stream.set_nonblocking(!wait)?;
            self.nonblocking = !wait;
        }
        match self.stream.read(&mut self.buf[..]) {
            Ok(0) => Err(std::io::Error::new(
                ErrorKind::UnexpectedEof,
                "the debugger closed the connection",
            )),
            Ok(n) => {
                self.pos = 0;
                self.end = n;
                Ok(self.take())
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// What the bytes read so far complete.
    fn take(&mut self) -> Option<Incoming> {
        while self.pos < self.end {
            let byte = self.buf[self.pos];
            self.pos += 1;
            if let Some(incoming) = self.rx.feed(byte) {
                return Some(incoming);
            }
        }
        None
    }

    /// Sends `body` as a packet (kept for a `-` while acknowledgements are on).
    pub fn send(&mut self, body: &[u8]) -> std::io::Result<()> {
        let packet = frame(body);
        self.write(&packet)?;
        if self.acks {
            self.last = packet;
        }
        Ok(())
    }

    /// Sends the last packet again (the client's `-`).
    pub fn resend(&mut self) -> std::io::Result<()> {
        let last = std::mem::take(&mut self.last);
        let sent = self.write(&last);
        self.last = last;
        sent
    }

    /// Acknowledges a packet: `+` when `good`, `-` (send it again) when not; nothing once
    /// acknowledgements are off.
    pub fn ack(&mut self, good: bool) -> std::io::Result<()> {
        if self.acks {
            self.write(if good { b"+" } else { b"-" })?;
        }
        Ok(())
    }

    /// Writes `bytes`, waiting [`WAIT`] at a time for a client that takes none, until Ctrl-C
    /// (then an [`ErrorKind::Interrupted`] error).
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if self.nonblocking {
            self.stream.set_nonblocking(false)?;
            self.nonblocking = false;
        }
        let mut done = 0;
        while done < bytes.len() {
            match self.stream.write(&bytes[done..]) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(n) => done += n,
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) =>
                {
                    if self.stop.is_requested() {
                        return Err(std::io::Error::new(
                            ErrorKind::Interrupted,
                            "Ctrl-C while the debugger took no reply",
                        ));
                    }
                }
                Err(e) => return Err(e),
            }
        }
        self.stream.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(bytes: &[u8]) -> Vec<Incoming> {
        let mut rx = Receiver::default();
        bytes.iter().filter_map(|&b| rx.feed(b)).collect()
    }

    fn packet(body: &str, checksum_ok: bool) -> Incoming {
        Incoming::Packet {
            body: body.as_bytes().to_vec(),
            checksum_ok,
        }
    }

    /// docs/gdb.md "Packets and errors": the checksum is the modulo-256 sum of the body, two
    /// hex digits (either case); `g` sums to 0x67.
    #[test]
    fn a_packet_is_good_when_its_checksum_is_the_sum_of_its_body() {
        assert_eq!(feed(b"$g#67"), [packet("g", true)]);
        assert_eq!(
            feed(b"$m0,4#fd$m0,4#FD"),
            [packet("m0,4", true), packet("m0,4", true)]
        );
        assert_eq!(feed(b"$g#68"), [packet("g", false)]);
        assert_eq!(feed(b"$g#6z"), [packet("g", false)], "not a hex digit");
    }

    /// Acknowledgements and Ctrl-C between packets; other stray bytes are dropped; a `$` in
    /// a body starts the packet afresh.
    #[test]
    fn acks_interrupts_and_stray_bytes_between_packets() {
        assert_eq!(
            feed(b"+x-\x03\n$?#3f"),
            [
                Incoming::Ack,
                Incoming::Nack,
                Incoming::Interrupt,
                packet("?", true)
            ]
        );
        assert_eq!(feed(b"$m12$g#67"), [packet("g", true)]);
    }

    /// A body longer than PACKET_SIZE is counted, not kept, and the next packet is whole.
    #[test]
    fn an_overlong_packet_is_reported_by_its_length_and_the_next_one_is_whole() {
        let mut rx = Receiver::default();
        let mut seen = Vec::new();
        let long = PACKET_SIZE * 3;
        for b in std::iter::once(b'$')
            .chain(std::iter::repeat_n(b'a', long))
            .chain(*b"#00$g#67")
        {
            seen.extend(rx.feed(b));
            assert!(rx.body.capacity() <= PACKET_SIZE * 2, "bounded");
        }
        assert_eq!(seen, [Incoming::Overlong { len: long }, packet("g", true)]);
        let at_limit = "a".repeat(PACKET_SIZE);
        let got = feed(&frame(at_limit.as_bytes()));
        assert_eq!(
            got,
            [packet(&at_limit, true)],
            "PACKET_SIZE itself is taken"
        );
    }

    /// Framing escapes `$ # } *` and sums what is sent.
    #[test]
    fn frame_escapes_and_sums_the_sent_bytes() {
        assert_eq!(frame(b"OK"), b"$OK#9a");
        assert_eq!(frame(b"a#"), b"$a}\x03#e1");
        assert_eq!(frame(b""), b"$#00");
    }
}
