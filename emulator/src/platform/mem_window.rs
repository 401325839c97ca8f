//! The translate windows (PLATFORM.md "Translate windows"): MEM_WINDOW registers and the
//! translation of `XLATE` addresses to HBM. Windows 0 and 1 are pinned to HBM scratch at boot.
//! [`WindowCounters`] count the data accesses through the windows and the mappings put in use.

use serde::Serialize;

use super::device::{self, Device, DeviceCtx};
use super::map::{self, reg, reg::mem_window as regs, reg::Decoded};
use super::recording::Record;
use crate::bus::BusFault;

/// A translate window's registers (`repr(C)`: compiled code reads them, [`crate::bus::WindowView`]).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    /// HBM base (16 MiB aligned).
    pub base: u64,
    /// MEM_WINDOW_CTRL bit 0.
    pub enabled: bool,
}

/// How a core used the translate windows (PLATFORM.md "Translate windows", docs/run-report.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct WindowCounters {
    /// Hits in the dynamic windows (2..4): loads and stores that went through one to HBM —
    /// tensor data — each costing `hbm_latency`, so the `hbm` stall category is this count
    /// times it.
    pub hbm_accesses: u64,
    /// Hits in the pinned windows (0 and 1): loads and stores of the image windows' SRAM —
    /// the library's literal pools, rodata, data, bss and heap — each costing `sram_latency`,
    /// so the `sram` stall category is this count times it.
    ///
    /// Instruction fetches from a window go through the I-cache and are counted by neither;
    /// an access through a disabled window is not a miss but a fault.
    pub sram_accesses: u64,
    /// Misses: MEM_WINDOW_CTRL writes with bit 0 set, each putting a window's mapping in use.
    /// The SDK runtime writes one as the last store of programming a dynamic window, which it
    /// does on each miss of its translate TLB (examples/sdk/rt/customop/tlb.h).
    pub maps: u64,
}

impl WindowCounters {
    /// Counts a data access through the window at core address `addr`.
    #[inline]
    pub fn count(&mut self, addr: u32) {
        if addr.wrapping_sub(map::PINNED_XLATE.0) < map::PINNED_XLATE.1 {
            self.sram_accesses += 1;
        } else {
            self.hbm_accesses += 1;
        }
    }

    /// The counts since `before` (an earlier reading of the same core's counters).
    pub fn since(&self, before: &WindowCounters) -> WindowCounters {
        WindowCounters {
            hbm_accesses: self.hbm_accesses - before.hbm_accesses,
            sram_accesses: self.sram_accesses - before.sram_accesses,
            maps: self.maps - before.maps,
        }
    }
}

/// A write of MEM_WINDOW_CTRL, kept while the core records
/// ([`Recording`](super::recording::Recording)): the window as that write left it, at the core
/// cycle of the write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowEvent {
    /// Core cycle of the write.
    pub cycle: u64,
    /// Window number.
    pub window: u32,
    /// Its HBM base.
    pub base: u64,
    /// Whether it is enabled.
    pub enabled: bool,
}

impl Record for WindowEvent {
    fn cycle(&self) -> u64 {
        self.cycle
    }
    /// One instant of the timeline.
    fn weight(&self) -> u64 {
        1
    }
}

/// The MEM_WINDOW device: one [`Window`] per translate window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemWindows {
    /// The windows, by number.
    pub windows: [Window; map::WINDOWS as usize],
    /// Accesses through the windows and mappings put in use.
    pub counters: WindowCounters,
    /// CTRL writes while recording, within the recording's room, oldest first.
    pub log: Vec<WindowEvent>,
}

impl Default for MemWindows {
    /// The boot state: windows 0 and 1 pinned to HBM scratch, the others disabled.
    fn default() -> Self {
        let mut windows = [Window::default(); map::WINDOWS as usize];
        for (w, win) in windows
            .iter_mut()
            .enumerate()
            .take(map::PINNED_WINDOWS as usize)
        {
            *win = Window {
                base: map::HBM_SCRATCH.0 + w as u64 * u64::from(map::WINDOW_SIZE),
                enabled: true,
            };
        }
        MemWindows {
            windows,
            counters: WindowCounters::default(),
            log: Vec::new(),
        }
    }
}

impl MemWindows {
    /// The HBM address behind core address `addr`, if it is in an enabled window.
    #[inline]
    pub fn translate(&self, addr: u32) -> Option<u64> {
        let off = addr.wrapping_sub(map::XLATE.0);
        if off >= map::XLATE.1 {
            return None;
        }
        let win = self.windows[(off / map::WINDOW_SIZE) as usize];
        win.enabled
            .then_some(win.base + u64::from(off % map::WINDOW_SIZE))
    }
}

impl Device for MemWindows {
    fn block(&self) -> &'static reg::Block {
        &regs::BLOCK
    }

    fn load(&mut self, d: Decoded, _: &mut DeviceCtx<'_>, _: u64) -> Result<u32, BusFault> {
        let w = self.windows[d.instance as usize];
        Ok(match d.register {
            regs::BASE_LO => w.base as u32,
            regs::BASE_HI => (w.base >> 32) as u32,
            _ => u32::from(w.enabled), // CTRL
        })
    }

    fn store(
        &mut self,
        d: Decoded,
        v: u32,
        cx: &mut DeviceCtx<'_>,
        now: u64,
    ) -> Result<u64, BusFault> {
        let (w, win) = (d.instance, &mut self.windows[d.instance as usize]);
        match d.register {
            regs::BASE_LO => {
                if v & (map::WINDOW_SIZE - 1) != 0 {
                    return Err(device::error(
                        d.off,
                        format!(
                            "MEM_WINDOW_BASE_LO({w}) = {v:#010x}: misaligned window base (bits 23:0 must be 0)"
                        ),
                    ));
                }
                win.base = (win.base & !0xffff_ffff) | u64::from(v);
            }
            regs::BASE_HI => win.base = (win.base & 0xffff_ffff) | (u64::from(v) << 32),
            _ => {
                // CTRL
                win.enabled = v & 1 != 0;
                self.counters.maps += u64::from(win.enabled);
                let event = WindowEvent {
                    cycle: now,
                    window: w,
                    base: win.base,
                    enabled: win.enabled,
                };
                cx.rec.keep(&mut self.log, event);
            }
        }
        Ok(0)
    }

    fn refuse_write(&self, off: u32) -> BusFault {
        device::write_refused(off, "unknown MEM_WINDOW")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::device::Rig;

    #[test]
    fn windows_0_and_1_boot_pinned_to_hbm_scratch() {
        let m = MemWindows::default();
        assert_eq!(m.translate(0x8400_0010), Some(0x10));
        assert_eq!(m.translate(0x8500_0000), Some(0x0100_0000));
        assert_eq!(m.translate(0x8600_0000), None, "window 2 is disabled");
        assert_eq!(m.translate(0x8900_0000), None, "past the five windows");
    }

    #[test]
    fn programming_a_window_maps_it() {
        let (mut rig, mut m) = (Rig::new(), MemWindows::default());
        rig.store(&mut m, reg::mem_window_base_lo(2), 0x0300_0000, 0)
            .unwrap();
        rig.store(&mut m, reg::mem_window_base_hi(2), 0x1, 0)
            .unwrap();
        rig.store(&mut m, reg::mem_window_ctrl(2), 1, 0).unwrap();
        assert_eq!(m.translate(0x8600_0004), Some(0x1_0300_0004));
        assert_eq!(rig.load(&mut m, reg::mem_window_base_hi(2), 0), Ok(1));
        assert_eq!(rig.load(&mut m, reg::mem_window_ctrl(2), 0), Ok(1));
        assert_eq!(m.counters.maps, 1, "the CTRL write enabling it");
        rig.store(&mut m, reg::mem_window_ctrl(2), 0, 0).unwrap();
        assert_eq!(m.counters.maps, 1, "disabling maps nothing");
    }

    #[test]
    fn recording_keeps_each_ctrl_write_with_the_window_it_leaves() {
        let (mut rig, mut m) = (Rig::new(), MemWindows::default());
        rig.store(&mut m, reg::mem_window_ctrl(4), 1, 3).unwrap();
        assert!(m.log.is_empty(), "not recording");
        rig.rec = crate::platform::recording::Recording::with_room(None);
        rig.store(&mut m, reg::mem_window_base_lo(2), 0x0300_0000, 10)
            .unwrap();
        rig.store(&mut m, reg::mem_window_ctrl(2), 1, 12).unwrap();
        rig.store(&mut m, reg::mem_window_ctrl(2), 0, 20).unwrap();
        assert_eq!(
            m.log,
            [
                WindowEvent {
                    cycle: 12,
                    window: 2,
                    base: 0x0300_0000,
                    enabled: true
                },
                WindowEvent {
                    cycle: 20,
                    window: 2,
                    base: 0x0300_0000,
                    enabled: false
                },
            ]
        );
    }

    #[test]
    fn a_misaligned_base_and_unknown_registers_are_refused() {
        let (mut rig, mut m) = (Rig::new(), MemWindows::default());
        let e = rig.store(&mut m, reg::mem_window_base_lo(3), 0x10, 0);
        assert!(e.unwrap_err().to_string().contains(
            "MEM_WINDOW_BASE_LO(3) = 0x00000010: misaligned window base (bits 23:0 must be 0)"
        ));
        assert_eq!(
            rig.store(&mut m, 0xc, 0, 0).unwrap_err().to_string(),
            "write of unknown MEM_WINDOW register 0x0300000c"
        );
        assert_eq!(
            rig.load(&mut m, 0xc, 0).unwrap_err().to_string(),
            "read of MMIO register 0x0300000c, which does not exist or is write-only"
        );
    }
}
