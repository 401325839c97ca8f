//! The console (PLATFORM.md "Console"): CONSOLE_PUTC appends a byte to the core's ring, which
//! keeps the newest bytes written and counts the oldest it overwrote ([`ConsoleRing::dropped`]),
//! so that whoever prints it can mark the loss ([`ConsoleRing::text`]).

use super::device::{Device, DeviceCtx};
use super::map::{self, reg, reg::console as regs, reg::Decoded};
use crate::bus::BusFault;

/// A console ring: the newest `capacity` bytes written, oldest overwritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleRing {
    buf: Vec<u8>,
    written: u64,
}

impl Default for ConsoleRing {
    /// A ring of `DEFAULT_CONSOLE` bytes.
    fn default() -> Self {
        ConsoleRing::new(map::DEFAULT_CONSOLE).expect("the default console size is valid")
    }
}

impl ConsoleRing {
    /// A ring of `capacity` bytes (a power of two, at most `MAX_CONSOLE`).
    pub fn new(capacity: usize) -> Result<Self, String> {
        if !capacity.is_power_of_two() || capacity > map::MAX_CONSOLE {
            return Err(format!(
                "console ring of {capacity} bytes: must be a power of two up to {} bytes",
                map::MAX_CONSOLE
            ));
        }
        Ok(ConsoleRing {
            buf: vec![0; capacity],
            written: 0,
        })
    }

    /// Appends one byte.
    pub fn push(&mut self, b: u8) {
        let cap = self.buf.len() as u64;
        self.buf[(self.written % cap) as usize] = b;
        self.written += 1;
    }

    /// The retained bytes, oldest first.
    pub fn contents(&self) -> Vec<u8> {
        let cap = self.buf.len() as u64;
        if self.written <= cap {
            return self.buf[..self.written as usize].to_vec();
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
