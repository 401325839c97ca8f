//! The console (PLATFORM.md "Console"): CONSOLE_PUTC appends a byte to the core's ring, which
//! keeps the newest bytes written and counts the oldest it overwrote ([`ConsoleRing::dropped`]),
//! so that whoever prints it can mark the loss ([`ConsoleRing::text`]). A ring of size 0 keeps
//! nothing (printf disabled, as a zero `NEURON_RT_GPSIMD_STDOUT_QUEUE_SIZE_BYTES` disables it on
//! hardware). Apart from the ring, the console keeps the last whole line written
//! ([`ConsoleRing::last_line`]): the SDK runtime's error line, which the host reports whatever the
//! ring's size.

use super::device::{Device, DeviceCtx};
use super::map::{self, reg, reg::console as regs, reg::Decoded};
use crate::bus::BusFault;

/// A console ring size that is neither 0 nor a power of two up to [`map::MAX_CONSOLE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "console ring of {0} bytes: must be 0 (printf disabled) or a power of two up to {max} bytes",
    max = map::MAX_CONSOLE
)]
pub struct ConsoleSizeError(pub usize);

/// The size of a console ring (PLATFORM.md "Console"): 0, which disables the console, or a
/// power of two up to [`map::MAX_CONSOLE`] (128 KiB); [`map::DEFAULT_CONSOLE`] (4 KiB) by
/// default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsoleSize(usize);

impl ConsoleSize {
    /// `bytes`, when it is a console size.
    pub fn new(bytes: usize) -> Result<ConsoleSize, ConsoleSizeError> {
        if bytes == 0 || (bytes.is_power_of_two() && bytes <= map::MAX_CONSOLE) {
            Ok(ConsoleSize(bytes))
        } else {
            Err(ConsoleSizeError(bytes))
        }
    }

    /// The size in bytes.
    pub fn bytes(self) -> usize {
        self.0
    }
}

impl Default for ConsoleSize {
    /// [`map::DEFAULT_CONSOLE`] bytes.
    fn default() -> Self {
        ConsoleSize(map::DEFAULT_CONSOLE)
    }
}

impl std::str::FromStr for ConsoleSize {
    type Err = String;

    /// A decimal or `0x` hex byte count that is a console size.
    fn from_str(s: &str) -> Result<ConsoleSize, String> {
        let t = s.trim();
        let bytes = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => usize::from_str_radix(hex, 16),
            None => t.parse::<usize>(),
        }
        .map_err(|_| format!("{s:?} is not a byte count"))?;
        ConsoleSize::new(bytes).map_err(|e| e.to_string())
    }
}

/// The longest line [`ConsoleRing::last_line`] keeps; a longer line keeps its first bytes.
pub const MAX_LINE: usize = 4096;

/// A console ring: the newest `capacity` bytes written, oldest overwritten, and the last whole
/// line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleRing {
    buf: Vec<u8>,
    written: u64,
    line: Vec<u8>,
    last_line: Vec<u8>,
}

impl Default for ConsoleRing {
    /// A ring of `DEFAULT_CONSOLE` bytes.
    fn default() -> Self {
        ConsoleRing::sized(ConsoleSize::default())
    }
}

impl ConsoleRing {
    /// A ring of `capacity` bytes (0, or a power of two up to `MAX_CONSOLE`).
    pub fn new(capacity: usize) -> Result<Self, ConsoleSizeError> {
        ConsoleSize::new(capacity).map(ConsoleRing::sized)
    }

    /// A ring of `size`.
    pub fn sized(size: ConsoleSize) -> Self {
        ConsoleRing {
            buf: vec![0; size.bytes()],
            written: 0,
            line: Vec::new(),
            last_line: Vec::new(),
        }
    }

    /// Appends one byte.
    pub fn push(&mut self, b: u8) {
        let cap = self.buf.len() as u64;
        if cap != 0 {
            self.buf[(self.written % cap) as usize] = b;
        }
        self.written += 1;
        if b == b'\n' {
            std::mem::swap(&mut self.line, &mut self.last_line);
            self.line.clear();
        } else if self.line.len() < MAX_LINE {
            self.line.push(b);
        }
    }

    /// The retained bytes, oldest first.
    pub fn contents(&self) -> Vec<u8> {
        let cap = self.buf.len() as u64;
        if self.written <= cap || cap == 0 {
            return self.buf[..self.written.min(cap) as usize].to_vec();
        }
        let start = (self.written % cap) as usize;
        [&self.buf[start..], &self.buf[..start]].concat()
    }

    /// Bytes written in total (including overwritten ones).
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Bytes overwritten: written but no longer held, the oldest first.
    pub fn dropped(&self) -> u64 {
        self.written.saturating_sub(self.buf.len() as u64)
    }

    /// The last whole line written (without its newline; its first [`MAX_LINE`] bytes), held
    /// whatever the ring's size.
    pub fn last_line(&self) -> &[u8] {
        &self.last_line
    }

    /// The retained bytes as text (invalid UTF-8 replaced by U+FFFD), after a line marking
    /// the loss when bytes were overwritten ([`dropped_line`]).
    pub fn text(&self) -> String {
        let mut out = dropped_line(self.dropped());
        out.push_str(&String::from_utf8_lossy(&self.contents()));
        out
    }
}

/// The line that marks `dropped` overwritten bytes where a console is printed:
/// `… 1234 bytes dropped` and a newline; empty when nothing was dropped.
pub fn dropped_line(dropped: u64) -> String {
    match dropped {
        0 => String::new(),
        1 => "… 1 byte dropped\n".to_string(),
        n => format!("… {n} bytes dropped\n"),
    }
}

impl Device for ConsoleRing {
    fn block(&self) -> &'static reg::Block {
        &regs::BLOCK
    }

    fn store(
        &mut self,
        _: Decoded,
        v: u32,
        _: &mut DeviceCtx<'_>,
        _: u64,
    ) -> Result<u64, BusFault> {
        // CONSOLE_PUTC is the one register.
        self.push(v as u8);
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::device::Rig;

    #[test]
    fn putc_appends_the_low_byte_and_the_register_is_write_only() {
        let (mut rig, mut ring) = (Rig::new(), ConsoleRing::new(4).unwrap());
        for b in *b"ab" {
            rig.store(&mut ring, reg::CONSOLE_PUTC, 0x100 | u32::from(b), 0)
                .unwrap();
        }
        assert_eq!(ring.contents(), b"ab");
        assert_eq!(
            rig.load(&mut ring, reg::CONSOLE_PUTC, 0)
                .unwrap_err()
                .to_string(),
            "read of MMIO register 0x03003000, which does not exist or is write-only"
        );
    }

    #[test]
    fn the_default_ring_holds_default_console_bytes() {
        let mut ring = ConsoleRing::default();
        for i in 0..map::DEFAULT_CONSOLE + 1 {
            ring.push(i as u8);
        }
        assert_eq!(ring.contents().len(), map::DEFAULT_CONSOLE);
        assert_eq!(ring.contents()[0], 1);
        assert_eq!(ring.dropped(), 1);
    }

    #[test]
    fn a_ring_of_size_0_keeps_nothing_but_the_last_whole_line() {
        let mut ring = ConsoleRing::new(0).unwrap();
        for b in *b"printf output\nq7 runtime error: stop\npartial" {
            ring.push(b);
        }
        assert_eq!(ring.contents(), b"");
        assert_eq!((ring.written(), ring.dropped()), (44, 44));
        assert_eq!(ring.text(), "… 44 bytes dropped\n");
        assert_eq!(ring.last_line(), b"q7 runtime error: stop");
    }

    #[test]
    fn the_last_line_survives_a_ring_smaller_than_it_and_keeps_its_first_bytes() {
        let mut ring = ConsoleRing::new(8).unwrap();
        for b in *b"a line longer than the ring\n" {
            ring.push(b);
        }
        assert_eq!(ring.contents(), b"he ring\n");
        assert_eq!(ring.last_line(), b"a line longer than the ring");
        for _ in 0..MAX_LINE + 10 {
            ring.push(b'x');
        }
        ring.push(b'\n');
        assert_eq!(ring.last_line(), vec![b'x'; MAX_LINE].as_slice());
    }

    #[test]
    fn console_sizes_are_0_or_powers_of_two_up_to_128_kib() {
        for ok in [0, 1, 4096, 1 << 17] {
            assert_eq!(ConsoleSize::new(ok).map(ConsoleSize::bytes), Ok(ok));
        }
        assert_eq!(
            ConsoleSize::new(3000).unwrap_err().to_string(),
            "console ring of 3000 bytes: must be 0 (printf disabled) or a power of two up to \
             131072 bytes"
        );
        assert!(ConsoleSize::new(1 << 18).is_err());
        assert_eq!(
            "0x400".parse::<ConsoleSize>().map(ConsoleSize::bytes),
            Ok(1024)
        );
        assert_eq!("0".parse::<ConsoleSize>().map(ConsoleSize::bytes), Ok(0));
        assert_eq!(
            "1k".parse::<ConsoleSize>().unwrap_err(),
            "\"1k\" is not a byte count"
        );
        assert_eq!(ConsoleSize::default().bytes(), map::DEFAULT_CONSOLE);
    }

    #[test]
    fn overwritten_bytes_are_counted_and_marked_where_the_text_is_printed() {
        let mut ring = ConsoleRing::new(4).unwrap();
        for b in *b"abc" {
            ring.push(b);
        }
        assert_eq!((ring.dropped(), ring.text().as_str()), (0, "abc"));
        for b in *b"defgh" {
            ring.push(b);
        }
        assert_eq!(ring.written(), 8);
        assert_eq!(ring.dropped(), 4);
        assert_eq!(ring.text(), "… 4 bytes dropped\nefgh");
        ring.push(b'i');
        assert_eq!(ring.text(), "… 5 bytes dropped\nfghi");
        assert_eq!(dropped_line(1), "… 1 byte dropped\n");
    }
}
