//! The console (PLATFORM.md "Console"): CONSOLE_PUTC appends a byte to the core's ring, which
//! keeps the newest bytes written.

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
    }
}
