//! The MMIO device interface: every device behind a core's bus owns one register block of the
//! register map (`map::reg`) and answers 32-bit reads and writes of its registers. [`load`] and
//! [`store`] check the access width, find the device whose block holds the offset and decode the
//! access through that block, so a device only ever sees its own registers, in the direction
//! their access allows. The bus registers its devices in one table (`PlatformBus`).

use super::hbm::Hbm;
use super::map::{self, reg, reg::Decoded};
use super::recording::Recording;
use crate::bus::BusFault;

/// What a device may touch besides its own registers: the core's DATARAM, the shared HBM and
/// the core's [`Recording`], through which every device keeps its records.
#[derive(Debug)]
pub struct DeviceCtx<'a> {
    /// The core's DATARAM, from `DATARAM.0`.
    pub dataram: &'a mut [u8],
    /// Shared HBM.
    pub hbm: &'a Hbm,
    /// Whether the core's devices keep records, and their room (shared by all of them).
    pub rec: &'a mut Recording,
}

/// A memory-mapped device. Accesses arrive decoded through [`Device::block`]: a read names a
/// readable register of the block, a write a writable one. `now` is the core's cycle count.
pub trait Device: std::fmt::Debug {
    /// The device's register block.
    fn block(&self) -> &'static reg::Block;
    /// Reads register `r`. Default: the device has no readable register.
    fn load(&mut self, r: Decoded, cx: &mut DeviceCtx<'_>, now: u64) -> Result<u32, BusFault> {
        let _ = (cx, now);
        Err(no_read(r.off))
    }
    /// Writes `value` to register `r`; returns the cycles the core must wait.
    fn store(
        &mut self,
        r: Decoded,
        value: u32,
        cx: &mut DeviceCtx<'_>,
        now: u64,
    ) -> Result<u64, BusFault>;
    /// The refusal of a write to offset `off` of the block that no writable register answers.
    /// Default: [`no_write`].
    fn refuse_write(&self, off: u32) -> BusFault {
        no_write(off)
    }
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

/// A write to offset `off` refused as one to a `what` register (e.g. "unknown MEM_WINDOW").
pub fn write_refused(off: u32, what: &str) -> BusFault {
    let addr = address(off);
    error(off, format!("write of {what} register {addr:#010x}"))
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
    let dev = owner(devices, off).ok_or_else(|| no_read(off))?;
    let r = dev
        .block()
        .decode(off, reg::Access::R)
        .ok_or_else(|| no_read(off))?;
    dev.load(r, cx, now)
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
    let dev = owner(devices, off).ok_or_else(|| no_write(off))?;
    let r = dev
        .block()
        .decode(off, reg::Access::W)
        .ok_or_else(|| dev.refuse_write(off))?;
    dev.store(r, value, cx, now)
}

/// Test support: one device driven through [`load`] and [`store`] with 32-bit accesses, over a
/// zeroed DATARAM and a 1 MiB HBM, recording as `rec` says (off by default).
#[cfg(test)]
pub(crate) struct Rig {
    pub dataram: Vec<u8>,
    pub hbm: Hbm,
    pub rec: Recording,
}

#[cfg(test)]
impl Rig {
    pub fn new() -> Self {
        Rig {
            dataram: vec![0; map::DATARAM.1 as usize],
            hbm: Hbm::new(1 << 20, 0).expect("1 MiB of HBM"),
            rec: Recording::default(),
        }
    }

    fn cx(&mut self) -> DeviceCtx<'_> {
        DeviceCtx {
            dataram: &mut self.dataram,
            hbm: &self.hbm,
            rec: &mut self.rec,
        }
    }

    pub fn load(&mut self, dev: &mut dyn Device, off: u32, now: u64) -> Result<u32, BusFault> {
        load(&mut [dev], off, reg::WIDTH, &mut self.cx(), now)
    }

    pub fn store(
        &mut self,
        dev: &mut dyn Device,
        off: u32,
        v: u32,
        now: u64,
    ) -> Result<u64, BusFault> {
        store(&mut [dev], off, reg::WIDTH, v, &mut self.cx(), now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A device on the mailbox block that records what it was asked.
    #[derive(Debug, Default)]
    struct Probe {
        stored: Vec<(&'static str, u32)>,
    }

    impl Device for Probe {
        fn block(&self) -> &'static reg::Block {
            &reg::mailbox::BLOCK
        }
        fn load(&mut self, r: Decoded, _: &mut DeviceCtx<'_>, _: u64) -> Result<u32, BusFault> {
            Ok(r.at)
        }
        fn store(
            &mut self,
            r: Decoded,
            v: u32,
            _: &mut DeviceCtx<'_>,
            now: u64,
        ) -> Result<u64, BusFault> {
            self.stored.push((r.register.name, v));
            Ok(now)
        }
        fn refuse_write(&self, off: u32) -> BusFault {
            write_refused(off, "probe")
        }
    }

    #[test]
    fn an_access_reaches_the_device_decoded_through_its_block() {
        let (mut rig, mut p) = (Rig::new(), Probe::default());
        assert_eq!(rig.load(&mut p, reg::MBOX_ARGS + 0x34, 0), Ok(0x34));
        assert_eq!(rig.store(&mut p, reg::MBOX_RESPONSE, 7, 9), Ok(9));
        assert_eq!(p.stored, [("MBOX_RESPONSE", 7)]);
    }

    #[test]
    fn the_wrong_direction_is_refused_before_the_device_sees_it() {
        let (mut rig, mut p) = (Rig::new(), Probe::default());
        assert_eq!(
            rig.load(&mut p, reg::MBOX_RESPONSE, 0),
            Err(no_read(reg::MBOX_RESPONSE))
        );
        assert_eq!(
            rig.store(&mut p, reg::MBOX_NARGS, 1, 0)
                .unwrap_err()
                .to_string(),
            "write of probe register 0x03002008"
        );
        assert!(p.stored.is_empty());
    }

    #[test]
    fn offsets_outside_every_block_are_refused_naming_the_address() {
        let (mut rig, mut p) = (Rig::new(), Probe::default());
        assert_eq!(
            rig.load(&mut p, 0x3000, 0).unwrap_err().to_string(),
            "read of MMIO register 0x03003000, which does not exist or is write-only"
        );
        assert_eq!(
            rig.store(&mut p, 0x0500, 1, 0).unwrap_err().to_string(),
            "write of MMIO register 0x03000500, which does not exist or is read-only"
        );
        assert!(p.stored.is_empty());
    }

    #[test]
    fn registers_are_32_bit() {
        let (mut rig, mut p) = (Rig::new(), Probe::default());
        let e = store(&mut [&mut p], reg::MBOX_RESPONSE, 1, 1, &mut rig.cx(), 0);
        assert_eq!(
            e,
            Err(BusFault::Device {
                addr: 0x0300_2400,
                message: "1-byte access to MMIO register 0x03002400: registers are 32-bit".into()
            })
        );
        assert!(p.stored.is_empty());
    }
}
