//! One core's bus on the platform: local IRAM, DATARAM and firmware band, the translate windows
//! onto shared HBM, and the MMIO devices (MEM_WINDOW, SDMA, mailbox, console) of PLATFORM.md.

use std::sync::Arc;

use super::hbm::Hbm;
use super::map::{self, reg};
use super::sdma::{self, Sdma, Transfer};
use crate::bus::{Bus, BusFault};
use crate::timing::TimingModel;

/// A translate window's registers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    /// HBM base (16 MiB aligned).
    pub base: u64,
    /// MEM_WINDOW_CTRL bit 0.
    pub enabled: bool,
}

/// The invocation a dispatch places in the mailbox, and the kernel's response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mailbox {
    /// Dispatch opcode.
    pub opcode: u32,
    /// Sub-opcode.
    pub sub_opcode: u32,
    /// ARG_TENSOR descriptors, 0x30 bytes each.
    pub args: Vec<[u8; 0x30]>,
    /// TPB_WRITE_RESPONSE, once written.
    pub response: Option<u32>,
}

/// A console ring: the newest `capacity` bytes written, oldest overwritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleRing {
    buf: Vec<u8>,
    written: u64,
}

impl ConsoleRing {
    /// A ring of `capacity` bytes (a power of two, at most 128 KiB).
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

/// A 4-way set-associative I-cache model (tags only) with LRU replacement.
#[derive(Debug, Clone)]
struct ICache {
    sets: Vec<Vec<u32>>,
    ways: usize,
    line_shift: u32,
    last_line: u32,
}

impl ICache {
    fn new(t: &TimingModel) -> Self {
        let lines = (t.icache_bytes / t.icache_line).max(1);
        let ways = t.icache_ways.max(1) as usize;
        let sets = (lines as usize / ways).max(1);
        ICache {
            sets: vec![Vec::with_capacity(ways); sets],
            ways,
            line_shift: t.icache_line.max(1).trailing_zeros(),
            last_line: u32::MAX,
        }
    }

    /// Whether fetching `pc` misses (and fills the line).
    #[inline]
    fn miss(&mut self, pc: u32) -> bool {
        let line = pc >> self.line_shift;
        if line == self.last_line {
            return false;
        }
        self.last_line = line;
        let n = self.sets.len();
        let set = &mut self.sets[line as usize % n];
        if let Some(i) = set.iter().position(|&t| t == line) {
            let t = set.remove(i);
            set.push(t);
            return false;
        }
        if set.len() == self.ways {
            set.remove(0);
        }
        set.push(line);
        true
    }
}

/// Which local memory an address falls in.
enum Local {
    Iram(usize),
    Dataram(usize),
    Fwdata(usize),
}

/// One core's view of the platform.
#[derive(Debug)]
pub struct PlatformBus {
    prid: u32,
    iram: Vec<u8>,
    dataram: Vec<u8>,
    fwdata: Vec<u8>,
    hbm: Arc<Hbm>,
    /// MEM_WINDOW registers.
    pub windows: [Window; map::WINDOWS as usize],
    /// SDMA engine.
    pub sdma: Sdma,
    /// Mailbox.
    pub mailbox: Mailbox,
    /// Console ring.
    pub console: ConsoleRing,
    icache: ICache,
    hbm_latency: u32,
    sdma_latency: u32,
    sdma_bytes_per_cycle: u32,
}

fn within(addr: u32, (base, size): (u32, u32)) -> Option<usize> {
    let off = addr.wrapping_sub(base);
    (off < size).then_some(off as usize)
}

impl PlatformBus {
    /// Core `prid`'s bus on `hbm`, windows 0 and 1 pinned to HBM scratch.
    pub fn new(prid: u32, hbm: Arc<Hbm>, timing: &TimingModel) -> Self {
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
        PlatformBus {
            prid,
            iram: vec![0; map::IRAM.1 as usize],
            dataram: vec![0; map::DATARAM.1 as usize],
            fwdata: vec![0; map::FWDATA.1 as usize],
            hbm,
            windows,
            sdma: Sdma::default(),
            mailbox: Mailbox::default(),
            console: ConsoleRing::new(map::DEFAULT_CONSOLE).expect("default console size is valid"),
            icache: ICache::new(timing),
            hbm_latency: timing.hbm_latency,
            sdma_latency: timing.sdma_latency,
            sdma_bytes_per_cycle: timing.sdma_bytes_per_cycle.max(1),
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
    pub fn translate(&self, addr: u32) -> Option<u64> {
        let off = within(addr, map::XLATE)? as u64;
        let win = self.windows[(off / u64::from(map::WINDOW_SIZE)) as usize];
        win.enabled
            .then_some(win.base + off % u64::from(map::WINDOW_SIZE))
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

    // ------------------------------------------------------------------------------- MMIO

    fn mmio_load(&mut self, off: u32, now: u64) -> Result<u32, BusFault> {
        let addr = map::MMIO.0 + off;
        let unknown = || BusFault::Device {
            addr,
            message: format!(
                "read of MMIO register {addr:#010x}, which does not exist or is write-only"
            ),
        };
        if off < map::WINDOWS * 0x10 {
            let w = self.windows[(off / 0x10) as usize];
            return match off % 0x10 {
                0x0 => Ok(w.base as u32),
                0x4 => Ok((w.base >> 32) as u32),
                0x8 => Ok(u32::from(w.enabled)),
                _ => Err(unknown()),
            };
        }
        if (0x1000..0x1040).contains(&off) {
            let q = (off - 0x1000) / 0x20;
            return match (off - 0x1000) % 0x20 {
                0x0 => Ok(self.sdma.queues[q as usize].ring_base),
                0x4 => Ok(self.sdma.queues[q as usize].ring_size),
                0xc => {
                    self.sdma_apply(q, now)?;
                    Ok(self.sdma.queues[q as usize].completed)
                }
                _ => Err(unknown()),
            };
        }
        match off {
            reg::MBOX_OPCODE => Ok(self.mailbox.opcode),
            reg::MBOX_SUB_OPCODE => Ok(self.mailbox.sub_opcode),
            reg::MBOX_NARGS => Ok(self.mailbox.args.len() as u32),
            reg::MBOX_RESPONSE_VALID => Ok(u32::from(self.mailbox.response.is_some())),
            o if (reg::MBOX_ARGS..reg::MBOX_ARGS + map::MAX_ARGS * map::ARG_TENSOR_SIZE)
                .contains(&o) =>
            {
                let rel = o - reg::MBOX_ARGS;
                let (i, b) = (
                    (rel / map::ARG_TENSOR_SIZE) as usize,
                    (rel % map::ARG_TENSOR_SIZE) as usize,
                );
                Ok(self.mailbox.args.get(i).map_or(0, |d| {
                    u32::from_le_bytes([d[b], d[b + 1], d[b + 2], d[b + 3]])
                }))
            }
            _ => Err(unknown()),
        }
    }

    fn mmio_store(&mut self, off: u32, v: u32, now: u64) -> Result<u64, BusFault> {
        let addr = map::MMIO.0 + off;
        let dev = |message: String| BusFault::Device { addr, message };
        if off < map::WINDOWS * 0x10 {
            let w = (off / 0x10) as usize;
            match off % 0x10 {
                0x0 => {
                    if v & (map::WINDOW_SIZE - 1) != 0 {
                        return Err(dev(format!(
                            "MEM_WINDOW_BASE_LO({w}) = {v:#010x}: misaligned window base (bits 23:0 must be 0)"
                        )));
                    }
                    self.windows[w].base = (self.windows[w].base & !0xffff_ffff) | u64::from(v);
                }
                0x4 => {
                    self.windows[w].base =
                        (self.windows[w].base & 0xffff_ffff) | (u64::from(v) << 32)
                }
                0x8 => self.windows[w].enabled = v & 1 != 0,
                _ => {
                    return Err(dev(format!(
                        "write of unknown MEM_WINDOW register {addr:#010x}"
                    )))
                }
            }
            return Ok(0);
        }
        if (0x1000..0x1040).contains(&off) {
            let q = (off - 0x1000) / 0x20;
            let name = sdma::queue_name(q);
            let qu = &mut self.sdma.queues[q as usize];
            match (off - 0x1000) % 0x20 {
                0x0 => {
                    if !v.is_multiple_of(16) || !sdma::local_in_range(v, 16) {
                        return Err(dev(format!(
                            "SDMA {name}: ring base {v:#010x} must be 16-byte aligned inside DATARAM"
                        )));
                    }
                    qu.ring_base = v;
                }
                0x4 => {
                    if !v.is_power_of_two() || v > 256 {
                        return Err(dev(format!(
                            "SDMA {name}: ring size {v} must be a power of two in 1..256"
                        )));
                    }
                    qu.ring_size = v;
                }
                0x8 => return self.sdma_doorbell(q, v, now).map(|_| 0),
                0x10 => return self.sdma_wait(q, v, now),
                _ => {
                    return Err(dev(format!(
                        "write of read-only or unknown SDMA register {addr:#010x}"
                    )))
                }
            }
            return Ok(0);
        }
        match off {
            reg::MBOX_RESPONSE => self.mailbox.response = Some(v),
            reg::CONSOLE_PUTC => self.console.push(v as u8),
            _ => {
                return Err(dev(format!(
                    "write of MMIO register {addr:#010x}, which does not exist or is read-only"
                )))
            }
        }
        Ok(0)
    }

    fn sdma_doorbell(&mut self, q: u32, tail: u32, now: u64) -> Result<(), BusFault> {
        let addr = map::MMIO.0 + reg::sdma_doorbell(q);
        let name = sdma::queue_name(q);
        self.sdma_apply(q, now)?;
        let (ring_base, size, queued, completed, busy) = {
            let qu = &self.sdma.queues[q as usize];
            (
                qu.ring_base,
                qu.ring_size,
                qu.queued,
                qu.completed,
                qu.busy_until,
            )
        };
        let err = |message: String| Err(BusFault::Device { addr, message });
        if size == 0 {
            return err(format!(
                "SDMA {name}: doorbell before SDMA_RING_SIZE was set"
            ));
        }
        let new = tail.wrapping_sub(queued);
        if new > (1 << 30) {
            return err(format!(
                "SDMA {name}: doorbell {tail} is behind the {queued} descriptors already queued"
            ));
        }
        if tail.wrapping_sub(completed) > size {
            return err(format!(
                "SDMA {name}: ring overflow: doorbell {tail} would put {} descriptors in flight in a {size}-entry ring ({completed} completed)",
                tail.wrapping_sub(completed)
            ));
        }
        let mut start_after = busy.max(now);
        for k in 0..new {
            let index = queued.wrapping_add(k);
            let slot = ring_base + (index % size) * 16;
            let d = self.read_bytes(slot, 16).map_err(|_| BusFault::Device {
                addr,
                message: format!(
                    "SDMA {name}: descriptor {index} at {slot:#010x} is outside DATARAM"
                ),
            })?;
            let word = |i: usize| u32::from_le_bytes([d[i], d[i + 1], d[i + 2], d[i + 3]]);
            let hbm = u64::from(word(0)) | (u64::from(word(4)) << 32);
            let (local, len) = (word(8), word(12));
            if len == 0 || len > sdma::MAX_LEN {
                return err(format!(
                    "SDMA {name}: malformed descriptor {index} at {slot:#010x}: length {len} (must be 1..{})",
                    sdma::MAX_LEN
                ));
            }
            if !sdma::local_in_range(local, len) {
                return err(format!(
                    "SDMA {name}: descriptor {index} at {slot:#010x}: DATARAM address {local:#010x}+{len:#x} out of range [0x00080000, 0x00090000)"
                ));
            }
            if hbm
                .checked_add(u64::from(len))
                .is_none_or(|e| e > self.hbm.size())
            {
                return err(format!(
                    "SDMA {name}: descriptor {index} at {slot:#010x}: HBM address {hbm:#x}+{len:#x} out of range (HBM is {:#x} bytes)",
                    self.hbm.size()
                ));
            }
            let start = start_after + u64::from(self.sdma_latency);
            let end = start + u64::from(len.div_ceil(self.sdma_bytes_per_cycle));
            start_after = end;
            self.sdma.queues[q as usize].pending.push_back(Transfer {
                index,
                hbm,
                local,
                len,
                end,
            });
        }
        let qu = &mut self.sdma.queues[q as usize];
        qu.queued = tail;
        qu.busy_until = start_after;
        qu.log.push(sdma::QueueEvent::Doorbell { cycle: now, tail });
        Ok(())
    }

    /// Applies the transfers of queue `q` that have ended by `now`.
    fn sdma_apply(&mut self, q: u32, now: u64) -> Result<(), BusFault> {
        while let Some(t) = self.sdma.queues[q as usize].pending.front().copied() {
            if t.end > now {
                break;
            }
            self.sdma.queues[q as usize].pending.pop_front();
            let mut buf = vec![0u8; t.len as usize];
            let bad = |_| BusFault::Device {
                addr: map::MMIO.0 + reg::sdma_completed(q),
                message: format!(
                    "SDMA {}: descriptor {}: HBM access failed",
                    sdma::queue_name(q),
                    t.index
                ),
            };
            if q == super::map::queue::M2S {
                self.hbm.read(t.hbm, &mut buf).map_err(bad)?;
                let o = (t.local - map::DATARAM.0) as usize;
                self.dataram[o..o + buf.len()].copy_from_slice(&buf);
            } else {
                let o = (t.local - map::DATARAM.0) as usize;
                buf.copy_from_slice(&self.dataram[o..o + t.len as usize]);
                self.hbm.write(t.hbm, &buf).map_err(bad)?;
            }
            self.sdma.queues[q as usize].completed = t.index.wrapping_add(1);
        }
        Ok(())
    }

    fn sdma_wait(&mut self, q: u32, count: u32, now: u64) -> Result<u64, BusFault> {
        let qu = &self.sdma.queues[q as usize];
        if count.wrapping_sub(qu.completed) > qu.queued.wrapping_sub(qu.completed) {
            return Err(BusFault::Device {
                addr: map::MMIO.0 + reg::sdma_wait(q),
                message: format!(
                    "SDMA {}: wait for {count} completions, but only {} descriptors were queued: the core would wait forever",
                    sdma::queue_name(q),
                    qu.queued
                ),
            });
        }
        let end = qu
            .pending
            .iter()
            .take_while(|t| t.index.wrapping_sub(qu.completed) < count.wrapping_sub(qu.completed))
            .map(|t| t.end)
            .max()
            .unwrap_or(now);
        let until = end.max(now);
        self.sdma_apply(q, until)?;
        self.sdma.queues[q as usize]
            .log
            .push(sdma::QueueEvent::Wait { cycle: now, until });
        Ok(until - now)
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
            return self
                .hbm
                .load(h, size)
                .map_err(|_| BusFault::Unmapped { addr });
        }
        if let Some(off) = within(addr, map::MMIO) {
            check_mmio_width(addr, size)?;
            return self.mmio_load(off as u32, now);
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
            self.hbm
                .store(h, size, value)
                .map_err(|_| BusFault::Unmapped { addr })?;
            return Ok(0);
        }
        if let Some(off) = within(addr, map::MMIO) {
            check_mmio_width(addr, size)?;
            return self.mmio_store(off as u32, value, now);
        }
        Err(BusFault::Unmapped { addr })
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
        if within(pc, map::XLATE).is_some() && self.icache.miss(pc) {
            self.hbm_latency
        } else {
            0
        }
    }

    #[inline]
    fn data_latency(&self, addr: u32) -> u32 {
        if within(addr, map::XLATE).is_some() {
            self.hbm_latency
        } else {
            0
        }
    }

    fn peek(&self, addr: u32) -> Option<u32> {
        let b = self.read_bytes(addr, 4).ok()?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    #[inline]
    fn may_hold_code(&self, addr: u32) -> bool {
        within(addr, map::DATARAM).is_none() && within(addr, map::MMIO).is_none()
    }
}

/// MMIO registers are 32-bit: any other access width is a device error naming the register.
fn check_mmio_width(addr: u32, size: u32) -> Result<(), BusFault> {
    if size == 4 {
        return Ok(());
    }
    Err(BusFault::Device {
        addr,
        message: format!("{size}-byte access to MMIO register {addr:#010x}: registers are 32-bit"),
    })
}
