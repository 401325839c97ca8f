//! One core's bus on the platform: local IRAM, DATARAM and firmware band, the translate windows
//! onto shared HBM, and the MMIO devices of PLATFORM.md, registered in one table (the bus's
//! `devices`, in register-map order) and reached through [`super::device`]. What the core did
//! with them is counted in [`PlatformCounters`].

use std::sync::Arc;

use serde::Serialize;

use super::console::ConsoleRing;
use super::device::{self, Device, DeviceCtx};
use super::hbm::Hbm;
use super::mailbox::Mailbox;
use super::map;
use super::mem_window::{MemWindows, WindowCounters};
use super::recording::Recording;
use super::sdma::{QueueCounters, Sdma};
use super::trace_port::TracePort;
use crate::bus::{Bus, BusFault, DataLatency, Images};
use crate::timing::TimingModel;

/// How the I-cache served instruction fetches from the translate windows (docs/run-report.md).
/// The fetch unit looks a line up as execution enters it, and the instructions
/// after it in the same line come from its fetch buffer: a lookup is a fetch from a window in
/// another line than the last one fetched from a window. Fetches from local memory bypass the
/// cache and are not counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ICacheCounters {
    /// Line lookups.
    pub lookups: u64,
    /// Lookups that missed and refilled the line (each costs the latency of the line's memory:
    /// `sram_latency` in the image windows, where kernel code runs, `hbm_latency` in a dynamic
    /// window; the `fetch` stall category is the sum).
    pub misses: u64,
}

impl ICacheCounters {
    /// The counts since `before` (an earlier reading of the same core's counters).
    pub fn since(&self, before: &ICacheCounters) -> ICacheCounters {
        ICacheCounters {
            lookups: self.lookups - before.lookups,
            misses: self.misses - before.misses,
        }
    }
}

/// What one core did with the platform beyond its own pipeline: the SDMA queues, the translate
/// windows and the I-cache. Counted where the bus or the device already does the work, so
/// counting changes no cycle count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PlatformCounters {
    /// SDMA queue 0, M2S (HBM → DATARAM).
    pub sdma_m2s: QueueCounters,
    /// SDMA queue 1, S2M (DATARAM → HBM).
    pub sdma_s2m: QueueCounters,
    /// The translate windows.
    pub windows: WindowCounters,
    /// The I-cache.
    pub icache: ICacheCounters,
}

impl PlatformCounters {
    /// The counts since `before` (an earlier reading of the same core's counters).
    pub fn since(&self, before: &PlatformCounters) -> PlatformCounters {
        PlatformCounters {
            sdma_m2s: self.sdma_m2s.since(&before.sdma_m2s),
            sdma_s2m: self.sdma_s2m.since(&before.sdma_s2m),
            windows: self.windows.since(&before.windows),
            icache: self.icache.since(&before.icache),
        }
    }
}

/// A set-associative I-cache model (tags only) with LRU replacement. Each set's tags are
/// `ways` consecutive words, most recently used first; [`EMPTY`] marks a way never filled.
/// Compiled code reads the layout directly ([`crate::bus::FetchView`]).
#[derive(Debug, Clone)]
struct ICache {
    tags: Vec<u32>,
    ways: usize,
    line_shift: u32,
    last_line: u32,
    counters: ICacheCounters,
}

/// An I-cache way that holds no line (as `last_line` before the first fetch).
const EMPTY: u32 = u32::MAX;

impl ICache {
    fn new(t: &TimingModel) -> Self {
        let lines = (t.icache_bytes / t.icache_line).max(1);
        let ways = t.icache_ways.max(1) as usize;
        let sets = (lines as usize / ways).max(1);
        ICache {
            tags: vec![EMPTY; sets * ways],
            ways,
            line_shift: t.icache_line.max(1).trailing_zeros(),
            last_line: EMPTY,
            counters: ICacheCounters::default(),
        }
    }

    /// The number of sets.
    fn sets(&self) -> usize {
        self.tags.len() / self.ways
    }

    /// Whether fetching `pc` misses (and fills the line).
    #[inline]
    fn miss(&mut self, pc: u32) -> bool {
        let line = pc >> self.line_shift;
        if line == self.last_line {
            return false;
        }
        self.last_line = line;
        self.counters.lookups += 1;
        let first = line as usize % self.sets() * self.ways;
        let set = &mut self.tags[first..first + self.ways];
        // A hit moves its line to the front; a miss evicts the least recently used (the last
        // way) and puts the new line in front.
        let (at, missed) = match set.iter().position(|&t| t == line && t != EMPTY) {
            Some(i) => (i, false),
            None => (self.ways - 1, true),
        };
        set[..=at].rotate_right(1);
        set[0] = line;
        if missed {
            self.counters.misses += 1;
        }
        missed
    }
}

/// Which local memory an address falls in.
enum Local {
    Iram(usize),
    Dataram(usize),
    Fwdata(usize),
}

/// One core's view of the platform. A clone shares the HBM and copies the rest (a core
/// checkpoint, [`crate::core::CoreCheckpoint`]).
#[derive(Debug, Clone)]
pub struct PlatformBus {
    prid: u32,
    iram: Vec<u8>,
    dataram: Vec<u8>,
    fwdata: Vec<u8>,
    hbm: Arc<Hbm>,
    /// MEM_WINDOW: the translate windows.
    pub windows: MemWindows,
    /// SDMA engine.
    pub sdma: Sdma,
    /// Mailbox.
    pub mailbox: Mailbox,
    /// Console ring.
    pub console: ConsoleRing,
    /// Annotation port (runtime events).
    pub trace: TracePort,
    /// Whether the devices keep records for the run's timeline, and their room; off by
    /// default.
    pub recording: Recording,
    icache: ICache,
    hbm_latency: u32,
    sram_latency: u32,
    /// Where images (boot ROM, libraries, trampolines) are loaded, for [`Bus::vacant`].
    pub images: Images,
}

fn within(addr: u32, (base, size): (u32, u32)) -> Option<usize> {
    let off = addr.wrapping_sub(base);
    (off < size).then_some(off as usize)
}

impl PlatformBus {
    /// Core `prid`'s bus on `hbm`, windows 0 and 1 pinned to HBM scratch.
    pub fn new(prid: u32, hbm: Arc<Hbm>, timing: &TimingModel) -> Self {
        PlatformBus {
            prid,
            iram: vec![0; map::IRAM.1 as usize],
            dataram: vec![0; map::DATARAM.1 as usize],
            fwdata: vec![0; map::FWDATA.1 as usize],
            hbm,
            windows: MemWindows::default(),
            sdma: Sdma::new(timing),
            mailbox: Mailbox::default(),
            console: ConsoleRing::default(),
            trace: TracePort::default(),
            recording: Recording::default(),
            icache: ICache::new(timing),
            hbm_latency: timing.hbm_latency,
            sram_latency: timing.sram_latency,
            images: Images::default(),
        }
    }

    /// The MMIO devices, in register-map order, and what they may touch: the one table that
    /// registers a device with the bus.
    fn devices(&mut self) -> ([&mut dyn Device; 5], DeviceCtx<'_>) {
        (
            [
                &mut self.windows,
                &mut self.sdma,
                &mut self.mailbox,
                &mut self.console,
                &mut self.trace,
            ],
            DeviceCtx {
                dataram: &mut self.dataram,
                hbm: &self.hbm,
                rec: &mut self.recording,
            },
        )
    }

    /// What the core has done with the platform so far.
    pub fn counters(&self) -> PlatformCounters {
        let [m2s, s2m] = &self.sdma.queues;
        PlatformCounters {
            sdma_m2s: m2s.counters,
            sdma_s2m: s2m.counters,
            windows: self.windows.counters,
            icache: self.icache.counters,
        }
    }

    /// The core this bus belongs to.
    pub fn prid(&self) -> u32 {
        self.prid
    }

    /// The shared HBM.
    pub fn hbm(&self) -> &Arc<Hbm> {
        &self.hbm
    }

    fn local(addr: u32) -> Option<Local> {
        if let Some(o) = within(addr, map::DATARAM) {
            Some(Local::Dataram(o))
        } else if let Some(o) = within(addr, map::IRAM) {
            Some(Local::Iram(o))
        } else {
            within(addr, map::FWDATA).map(Local::Fwdata)
        }
    }

    fn local_mut(&mut self, l: Local) -> (&mut Vec<u8>, usize) {
        match l {
            Local::Iram(o) => (&mut self.iram, o),
            Local::Dataram(o) => (&mut self.dataram, o),
            Local::Fwdata(o) => (&mut self.fwdata, o),
        }
    }

    /// The HBM address behind a translate-window address, if mapped.
    #[inline]
    pub fn translate(&self, addr: u32) -> Option<u64> {
        self.windows.translate(addr)
    }

    /// Host/loader access: writes bytes at a core address (local memories or mapped windows).
    pub fn write_bytes(&mut self, addr: u32, data: &[u8]) -> Result<(), BusFault> {
        for (i, &b) in data.iter().enumerate() {
            let a = addr.wrapping_add(i as u32);
            self.poke8(a, b)?;
        }
        Ok(())
    }

    /// Host/loader access: reads bytes at a core address.
    pub fn read_bytes(&self, addr: u32, len: usize) -> Result<Vec<u8>, BusFault> {
        (0..len)
            .map(|i| self.peek8(addr.wrapping_add(i as u32)))
            .collect()
    }

    fn poke8(&mut self, a: u32, b: u8) -> Result<(), BusFault> {
        if let Some(l) = Self::local(a) {
            let (m, o) = self.local_mut(l);
            m[o] = b;
            Ok(())
        } else if let Some(h) = self.translate(a) {
            self.hbm
                .store(h, 1, u32::from(b))
                .map_err(|_| BusFault::Unmapped { addr: a })
        } else {
            Err(BusFault::Unmapped { addr: a })
        }
    }

    fn peek8(&self, a: u32) -> Result<u8, BusFault> {
        match Self::local(a) {
            Some(Local::Iram(o)) => Ok(self.iram[o]),
            Some(Local::Dataram(o)) => Ok(self.dataram[o]),
            Some(Local::Fwdata(o)) => Ok(self.fwdata[o]),
            None => match self.translate(a) {
                Some(h) => self
                    .hbm
                    .load(h, 1)
                    .map(|v| v as u8)
                    .map_err(|_| BusFault::Unmapped { addr: a }),
                None => Err(BusFault::Unmapped { addr: a }),
            },
        }
    }
}

impl Bus for PlatformBus {
    const FETCH_TIMING: bool = true;

    #[inline]
    fn load(&mut self, addr: u32, size: u32, now: u64) -> Result<u32, BusFault> {
        if let Some(l) = Self::local(addr) {
            let (m, o) = self.local_mut(l);
            let b = &m[o..o + size as usize];
            return Ok(match size {
                1 => u32::from(b[0]),
                2 => u32::from(u16::from_le_bytes([b[0], b[1]])),
                _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            });
        }
        if let Some(h) = self.translate(addr) {
            self.windows.counters.count(addr);
            return self
                .hbm
                .load(h, size)
                .map_err(|_| BusFault::Unmapped { addr });
        }
        if let Some(off) = within(addr, map::MMIO) {
            let (mut devices, mut cx) = self.devices();
            return device::load(&mut devices, off as u32, size, &mut cx, now);
        }
        Err(BusFault::Unmapped { addr })
    }

    #[inline]
    fn store(&mut self, addr: u32, size: u32, value: u32, now: u64) -> Result<u64, BusFault> {
        if let Some(l) = Self::local(addr) {
            let (m, o) = self.local_mut(l);
            m[o..o + size as usize].copy_from_slice(&value.to_le_bytes()[..size as usize]);
            return Ok(0);
        }
        if let Some(h) = self.translate(addr) {
            self.windows.counters.count(addr);
            self.hbm
                .store(h, size, value)
                .map_err(|_| BusFault::Unmapped { addr })?;
            return Ok(0);
        }
        if let Some(off) = within(addr, map::MMIO) {
            let (mut devices, mut cx) = self.devices();
            return device::store(&mut devices, off as u32, size, value, &mut cx, now);
        }
        Err(BusFault::Unmapped { addr })
    }

    fn plain_load(&mut self, addr: u32, size: u32) -> Option<u32> {
        if let Some(l) = Self::local(addr) {
            let _ = l;
            return self.load(addr, size, 0).ok();
        }
        let h = self.translate(addr)?;
        // Counted only when done: a failing access is the interpreter's to count and report.
        let v = self.hbm.load(h, size).ok()?;
        self.windows.counters.count(addr);
        Some(v)
    }

    fn plain_store(&mut self, addr: u32, size: u32, value: u32) -> bool {
        if Self::local(addr).is_some() {
            return self.store(addr, size, value, 0).is_ok();
        }
        let Some(h) = self.translate(addr) else {
            return false;
        };
        if self.hbm.store(h, size, value).is_err() {
            return false;
        }
        self.windows.counters.count(addr);
        true
    }

    fn direct(&mut self) -> Option<crate::bus::Direct> {
        // DATARAM: no latency, no device, and no code (`may_hold_code`).
        Some(crate::bus::Direct::writable(
            map::DATARAM,
            &mut self.dataram,
        ))
    }

    fn direct_code(&mut self) -> Option<crate::bus::Direct> {
        // The firmware band, where the kernels' stacks are: no latency, no device, nothing
        // counted; it may hold code.
        Some(crate::bus::Direct::writable(map::FWDATA, &mut self.fwdata))
    }

    fn window_view(&mut self) -> Option<crate::bus::WindowView> {
        use super::mem_window::Window;
        let c = &mut self.windows.counters;
        Some(crate::bus::WindowView {
            xlate: map::XLATE,
            shift: map::WINDOW_SIZE.trailing_zeros(),
            pinned: map::PINNED_XLATE.1,
            latency: [self.sram_latency, self.hbm_latency],
            windows: self.windows.windows.as_ptr().cast(),
            stride: std::mem::size_of::<Window>() as u32,
            base_at: std::mem::offset_of!(Window, base) as u32,
            enabled_at: std::mem::offset_of!(Window, enabled) as u32,
            hbm: self.hbm.host(),
            hbm_size: self.hbm.size(),
            counted: [&mut c.sram_accesses, &mut c.hbm_accesses],
        })
    }

    fn fetch_view(&mut self) -> Option<crate::bus::FetchView> {
        let c = &mut self.icache;
        Some(crate::bus::FetchView {
            timed: map::XLATE,
            line_shift: c.line_shift,
            sets: c.sets() as u32,
            ways: c.ways as u32,
            tags: c.tags.as_mut_ptr(),
            last_line: &mut c.last_line,
            lookups: &mut c.counters.lookups,
        })
    }

    fn fetch(&mut self, addr: u32, buf: &mut [u8]) -> Result<usize, BusFault> {
        let mut n = 0;
        for (i, b) in buf.iter_mut().enumerate() {
            match self.peek8(addr.wrapping_add(i as u32)) {
                Ok(v) if within(addr, map::MMIO).is_none() => {
                    *b = v;
                    n += 1;
                }
                _ => break,
            }
        }
        if n == 0 {
            return Err(BusFault::Unmapped { addr });
        }
        Ok(n)
    }

    #[inline]
    fn fetch_cycles(&mut self, pc: u32) -> u32 {
        if within(pc, map::XLATE).is_none() || !self.icache.miss(pc) {
            0
        } else if within(pc, map::PINNED_XLATE).is_some() {
            self.sram_latency
        } else {
            self.hbm_latency
        }
    }

    fn most_access_cycles(&self) -> u32 {
        self.sram_latency.max(self.hbm_latency)
    }

    #[inline]
    fn data_latency(&self, addr: u32) -> DataLatency {
        // The pinned windows open the translate windows (PINNED_XLATE.0 == XLATE.0).
        let off = addr.wrapping_sub(map::XLATE.0);
        if off >= map::XLATE.1 {
            DataLatency::Free
        } else if off < map::PINNED_XLATE.1 {
            match self.sram_latency {
                0 => DataLatency::Free,
                lat => DataLatency::Sram(lat),
            }
        } else {
            match self.hbm_latency {
                0 => DataLatency::Free,
                lat => DataLatency::Hbm(lat),
            }
        }
    }

    #[inline]
    fn shared_address(&self, addr: u32) -> Option<u64> {
        self.translate(addr)
    }

    fn peek(&self, addr: u32) -> Option<u32> {
        let b = self.read_bytes(addr, 4).ok()?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    #[inline]
    fn may_hold_code(&self, addr: u32) -> bool {
        within(addr, map::DATARAM).is_none() && within(addr, map::MMIO).is_none()
    }

    #[cold]
    fn vacant(&self, addr: u32) -> Option<String> {
        if self.images.holds(addr) {
            return None;
        }
        let prid = self.prid;
        let region = if within(addr, map::IRAM).is_some() {
            format!("core {prid}'s IRAM")
        } else if within(addr, map::DATARAM).is_some() {
            format!("core {prid}'s DATARAM (data memory)")
        } else if within(addr, map::FWDATA).is_some() {
            format!("core {prid}'s firmware data band")
        } else if within(addr, map::MMIO).is_some() {
            "the MMIO register block".to_string()
        } else if let Some(off) = within(addr, map::XLATE) {
            let n = off as u32 / map::WINDOW_SIZE;
            match self.translate(addr) {
                Some(h) => format!("translate window {n} (HBM {h:#x})"),
                None => format!("translate window {n}, which maps nothing"),
            }
        } else {
            "unmapped address space".to_string()
        };
        Some(format!(
            "{region}, where no image is loaded ({})",
            self.images.list()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::map::reg;
    use crate::platform::mem_window::Window;

    fn bus() -> PlatformBus {
        let hbm = Arc::new(Hbm::new(map::HBM_SCRATCH.1 * 2, map::HBM_SCRATCH.1).unwrap());
        PlatformBus::new(0, hbm, &TimingModel::default())
    }

    #[test]
    fn the_device_table_registers_every_block_of_the_register_map_in_order() {
        let mut b = bus();
        let (devices, _) = b.devices();
        let blocks: Vec<_> = devices.iter().map(|d| d.block().name).collect();
        let map: Vec<_> = reg::BLOCKS.iter().map(|b| b.name).collect();
        assert_eq!(blocks, map);
    }

    #[test]
    fn the_icache_replaces_the_least_recently_used_line_of_a_set() {
        // The default model: 16 KiB of 64-byte lines, 4 ways, so 64 sets; lines 4 KiB apart
        // share a set.
        let t = TimingModel {
            sram_latency: 7,
            ..TimingModel::default()
        };
        assert_eq!(
            (t.icache_bytes, t.icache_line, t.icache_ways),
            (16384, 64, 4)
        );
        let hbm = Arc::new(Hbm::new(map::HBM_SCRATCH.1 * 2, map::HBM_SCRATCH.1).unwrap());
        let mut b = PlatformBus::new(0, hbm, &t);
        let [a, bb, c, d, e] = [0, 1, 2, 3, 4].map(|i| map::XLATE.0 + i * 4096);
        // A B C D fill the set; A hits and becomes the most recent; E evicts B (the least
        // recent), B evicts C, C evicts D; A still hits; D misses.
        let costs: Vec<u32> = [a, bb, c, d, a, e, bb, c, a, d]
            .iter()
            .map(|&pc| b.fetch_cycles(pc))
            .collect();
        assert_eq!(costs, [7, 7, 7, 7, 0, 7, 7, 7, 0, 7]);
        assert_eq!(
            b.counters().icache,
            ICacheCounters {
                lookups: 10,
                misses: 8
            }
        );
    }

    #[test]
    fn the_icache_counts_a_lookup_per_line_entered_and_a_miss_per_refill() {
        let t = TimingModel {
            sram_latency: 7,
            hbm_latency: 150,
            ..TimingModel::default()
        };
        let hbm = Arc::new(Hbm::new(map::HBM_SCRATCH.1 * 2, map::HBM_SCRATCH.1).unwrap());
        let mut b = PlatformBus::new(0, hbm, &t);
        b.windows.windows[2] = Window {
            base: 2 * u64::from(map::WINDOW_SIZE),
            enabled: true,
        };
        let x = map::XLATE.0;
        let dynamic = x + 2 * map::WINDOW_SIZE;
        // Line 0 (miss), again within it (no lookup), line 1 (miss), back to line 0 (hit); a
        // line of a dynamic window refills from HBM.
        let costs: Vec<u32> = [x, x + 4, x + 64, x + 8, dynamic]
            .iter()
            .map(|&pc| b.fetch_cycles(pc))
            .collect();
        assert_eq!(
            costs,
            [7, 0, 7, 0, 150],
            "image-window lines at sram_latency"
        );
        assert_eq!(b.fetch_cycles(map::IRAM.0 + 0x200), 0, "local fetch");
        assert_eq!(
            b.counters().icache,
            ICacheCounters {
                lookups: 4,
                misses: 3
            }
        );
        // Data: local memories free, the pinned windows SRAM, the dynamic ones HBM.
        assert_eq!(b.data_latency(map::DATARAM.0), DataLatency::Free);
        assert_eq!(b.data_latency(map::MMIO.0), DataLatency::Free);
        assert_eq!(b.data_latency(x), DataLatency::Sram(7));
        assert_eq!(
            b.data_latency(x + 2 * map::WINDOW_SIZE - 4),
            DataLatency::Sram(7),
            "window 1 is pinned too"
        );
        assert_eq!(b.data_latency(dynamic), DataLatency::Hbm(150));
        b.sram_latency = 0;
        assert_eq!(
            b.data_latency(x),
            DataLatency::Free,
            "a class at 0 costs nothing"
        );
    }

    #[test]
    fn mmio_accesses_reach_the_devices() {
        let mut b = bus();
        let mmio = |off: u32| map::MMIO.0 + off;
        b.store(mmio(reg::CONSOLE_PUTC), 4, u32::from(b'x'), 0)
            .unwrap();
        b.store(mmio(reg::MBOX_RESPONSE), 4, 9, 0).unwrap();
        assert_eq!(b.load(mmio(reg::MBOX_RESPONSE_VALID), 4, 0), Ok(1));
        assert_eq!(b.load(mmio(reg::mem_window_ctrl(1)), 4, 0), Ok(1));
        assert_eq!(b.load(mmio(reg::sdma_ring_size(0)), 4, 0), Ok(0));
        assert_eq!(
            (b.console.contents(), b.mailbox.response),
            (b"x".to_vec(), Some(9))
        );
    }

    #[test]
    fn translate_window_addresses_reach_hbm() {
        let mut b = bus();
        b.store(map::XLATE.0 + 8, 4, 0xabcd, 0).unwrap();
        assert_eq!(b.hbm().load(8, 4), Ok(0xabcd));
        assert_eq!(b.load(map::XLATE.0 + 8, 2, 0), Ok(0xabcd));
        b.store(map::DATARAM.0, 4, 1, 0).unwrap();
        assert_eq!(
            (
                b.counters().windows.sram_accesses,
                b.counters().windows.hbm_accesses
            ),
            (2, 0),
            "the load and store through pinned window 0; DATARAM is local"
        );
        assert_eq!(
            b.load(map::XLATE.0 + 2 * map::WINDOW_SIZE, 4, 0),
            Err(BusFault::Unmapped {
                addr: map::XLATE.0 + 2 * map::WINDOW_SIZE
            })
        );
    }
}
