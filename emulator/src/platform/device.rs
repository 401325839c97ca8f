//! The MMIO device interface: every device behind a core's bus answers 32-bit register reads and
//! writes at offsets of its own register block (`map::reg`), and decodes them through that
//! block. [`load`] and [`store`] check the access width and hand the access to the device whose
//! block holds the offset; the bus registers its devices in one table (`PlatformBus`).

use super::hbm::Hbm;
use super::map::{self, reg};
use crate::bus::BusFault;

/// What a device may touch besides its own registers: the core's DATARAM and the shared HBM.
#[derive(Debug)]
pub struct DeviceCtx<'a> {
    /// The core's DATARAM, from `DATARAM.0`.
    pub dataram: &'a mut [u8],
    /// Shared HBM.
    pub hbm: &'a Hbm,
}

/// A memory-mapped device. Offsets are MMIO offsets inside [`Device::block`]; `now` is the
/// core's cycle count.
pub trait Device: std::fmt::Debug {
    /// The device's register block.
    fn block(&self) -> &'static reg::Block;
    /// Reads the register at `off`.
    fn load(&mut self, off: u32, cx: &mut DeviceCtx<'_>, now: u64) -> Result<u32, BusFault>;
    /// Writes `value` to the register at `off`; returns the cycles the core must wait.
    fn store(
        &mut self,
        off: u32,
        value: u32,
        cx: &mut DeviceCtx<'_>,
        now: u64,
    ) -> Result<u64, BusFault>;
}

/// Core address of MMIO offset `off`.
pub const fn address(off: u32) -> u32 {
    map::MMIO.0 + off
}

/// A device's refusal of an access to MMIO offset `off`, saying why.
pub fn error(off: u32, message: String) -> BusFault {
    BusFault::Device {
        addr: address(off),
        message,
    }
}

/// A read of an offset no register answers.
pub fn no_read(off: u32) -> BusFault {
    let addr = address(off);
    error(
        off,
        format!("read of MMIO register {addr:#010x}, which does not exist or is write-only"),
    )
}

/// A write of an offset no register answers.
pub fn no_write(off: u32) -> BusFault {
    let addr = address(off);
    error(
        off,
        format!("write of MMIO register {addr:#010x}, which does not exist or is read-only"),
    )
}

/// Registers are [`reg::WIDTH`] bytes wide: any other access size names the register.
fn check_width(off: u32, size: u32) -> Result<(), BusFault> {
    if size == reg::WIDTH {
        return Ok(());
    }
    let addr = address(off);
    Err(error(
        off,
        format!("{size}-byte access to MMIO register {addr:#010x}: registers are 32-bit"),
    ))
}

/// The device whose block holds `off`.
fn owner<'d, 'a>(
    devices: &'d mut [&'a mut (dyn Device + 'a)],
    off: u32,
) -> Option<&'d mut (dyn Device + 'a)> {
    devices
        .iter_mut()
        .find(|d| d.block().contains(off))
        .map(|d| &mut **d)
}

/// A `size`-byte read at MMIO offset `off`, answered by the device of `devices` that holds it.
pub fn load(
    devices: &mut [&mut dyn Device],
    off: u32,
    size: u32,
    cx: &mut DeviceCtx<'_>,
    now: u64,
) -> Result<u32, BusFault> {
    check_width(off, size)?;
    owner(devices, off)
        .ok_or_else(|| no_read(off))?
        .load(off, cx, now)
}

/// A `size`-byte write at MMIO offset `off`; returns the cycles the core must wait.
pub fn store(
    devices: &mut [&mut dyn Device],
    off: u32,
    size: u32,
    value: u32,
    cx: &mut DeviceCtx<'_>,
    now: u64,
) -> Result<u64, BusFault> {
    check_width(off, size)?;
    owner(devices, off)
        .ok_or_else(|| no_write(off))?
        .store(off, value, cx, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-register device that records what it was asked.
    #[derive(Debug, Default)]
    struct Probe {
        stored: Vec<(u32, u32)>,
    }

    impl Device for Probe {
        fn block(&self) -> &'static reg::Block {
            &reg::console::BLOCK
        }
        fn load(&mut self, off: u32, _: &mut DeviceCtx<'_>, _: u64) -> Result<u32, BusFault> {
            Ok(off)
        }
        fn store(
            &mut self,
            off: u32,
            v: u32,
            _: &mut DeviceCtx<'_>,
            now: u64,
        ) -> Result<u64, BusFault> {
            self.stored.push((off, v));
            Ok(now)
        }
    }

    fn with_ctx<T>(f: impl FnOnce(&mut DeviceCtx<'_>) -> T) -> T {
        let hbm = Hbm::new(4096, 0).unwrap();
        let mut dataram = vec![0u8; 16];
        f(&mut DeviceCtx {
            dataram: &mut dataram,
            hbm: &hbm,
        })
    }

    #[test]
    fn an_access_goes_to_the_device_whose_block_holds_the_offset() {
        let mut p = Probe::default();
        with_ctx(|cx| {
            assert_eq!(load(&mut [&mut p], 0x3000, 4, cx, 0), Ok(0x3000));
            assert_eq!(store(&mut [&mut p], 0x3000, 4, 7, cx, 9), Ok(9));
        });
        assert_eq!(p.stored, [(0x3000, 7)]);
    }

    #[test]
    fn offsets_outside_every_block_are_refused_naming_the_address() {
        let mut p = Probe::default();
        let (r, w) = with_ctx(|cx| {
            (
                load(&mut [&mut p], 0x3004, 4, cx, 0).unwrap_err(),
                store(&mut [&mut p], 0x0500, 4, 1, cx, 0).unwrap_err(),
            )
        });
        assert_eq!(
            r.to_string(),
            "read of MMIO register 0x03003004, which does not exist or is write-only"
        );
        assert_eq!(
            w.to_string(),
            "write of MMIO register 0x03000500, which does not exist or is read-only"
        );
        assert!(p.stored.is_empty());
    }

    #[test]
    fn registers_are_32_bit() {
        let mut p = Probe::default();
        let e = with_ctx(|cx| store(&mut [&mut p], 0x3000, 1, 1, cx, 0).unwrap_err());
        assert_eq!(
            e,
            BusFault::Device {
                addr: 0x0300_3000,
                message: "1-byte access to MMIO register 0x03003000: registers are 32-bit".into()
            }
        );
        assert!(p.stored.is_empty());
    }
}
