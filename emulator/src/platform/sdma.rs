//! The per-core SDMA engine (PLATFORM.md "SDMA"): two queues with descriptor rings in DATARAM,
//! doorbells, completion counters and waits, decoded through `map::reg::sdma`. Transfers are
//! timed — each starts after the previous one of its queue and costs [`transfer_cycles`] — and
//! take effect at their end cycle as the core observes it, so results never depend on host
//! timing. Each queue counts what it moved ([`QueueCounters`]) as transfers complete.

use std::collections::VecDeque;

use serde::Serialize;

use super::device::{self, Device, DeviceCtx};
use super::map::{self, queue, reg, reg::sdma as regs, reg::Decoded};
use super::recording::{Record, Recording};
use crate::bus::BusFault;
use crate::timing::TimingModel;

/// Largest transfer a descriptor may ask for.
pub const MAX_LEN: u32 = 65536;
/// Most entries a ring may have.
pub const MAX_RING: u32 = 256;
/// Bytes of one descriptor (and the ring base's alignment).
pub const DESCRIPTOR_SIZE: u32 = 16;
/// Most doorbells and waits a queue's [`Queue::log`] keeps (the first ones while recording).
pub const LOG_MAX: usize = 1024;

/// Cycles an SDMA transfer of `len` bytes takes from becoming eligible to its end: the latency,
/// then `len` at the engine's bytes per cycle. The firmware's timed image pull costs the same.
pub fn transfer_cycles(timing: &TimingModel, len: u32) -> u64 {
    u64::from(timing.sdma_latency) + u64::from(len.div_ceil(timing.sdma_bytes_per_cycle.max(1)))
}

/// A queued transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    /// Descriptor index (monotonic).
    pub index: u32,
    /// HBM address.
    pub hbm: u64,
    /// DATARAM address.
    pub local: u32,
    /// Bytes.
    pub len: u32,
    /// Core cycle at which it completes.
    pub end: u64,
}

/// What one queue has moved, counted as each transfer completes (when its copy takes effect):
/// counting changes no cycle count. A transfer still in flight when a run ends is not counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct QueueCounters {
    /// Descriptors completed.
    pub transfers: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// Cycles the queue spent on them: the sum of their [`transfer_cycles`] (start-up latency,
    /// then the bytes at the engine's rate). A queue serves one descriptor at a time, so this
    /// is the time it was busy.
    pub busy_cycles: u64,
}

impl QueueCounters {
    /// The counts since `before` (an earlier reading of the same queue's counters).
    pub fn since(&self, before: &QueueCounters) -> QueueCounters {
        QueueCounters {
            transfers: self.transfers - before.transfers,
            bytes: self.bytes - before.bytes,
            busy_cycles: self.busy_cycles - before.busy_cycles,
        }
    }
}

/// One queue's registers and in-flight transfers.
#[derive(Debug, Clone, Default)]
pub struct Queue {
    /// SDMA_RING_BASE.
    pub ring_base: u32,
    /// SDMA_RING_SIZE (0 until programmed).
    pub ring_size: u32,
    /// Descriptors queued so far (the last doorbell value).
    pub queued: u32,
    /// Descriptors whose copies have been applied.
    pub completed: u32,
    /// Transfers not yet applied, in order.
    pub pending: VecDeque<Transfer>,
    /// End cycle of the last queued transfer.
    pub busy_until: u64,
    /// Doorbells and waits as they happened, kept only while the core records (for tests and
    /// debugging; the timeline does not read them), the first [`LOG_MAX`] of them.
    pub log: Vec<QueueEvent>,
    /// What the queue has moved.
    pub counters: QueueCounters,
}

/// A transfer as it was queued, kept while the core records ([`Recording`]): its queue and
/// descriptor, what it copied and when (in core cycles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferRecord {
    /// Queue: [`queue::M2S`] or [`queue::S2M`].
    pub queue: u32,
    /// Descriptor index (monotonic).
    pub index: u32,
    /// HBM address.
    pub hbm: u64,
    /// DATARAM address.
    pub local: u32,
    /// Bytes.
    pub len: u32,
    /// Cycle of the doorbell that queued it.
    pub doorbell: u64,
    /// Cycle its copy starts: after the previous transfer of the queue and the start-up
    /// latency (PLATFORM.md "SDMA").
    pub start: u64,
    /// Cycle it completes.
    pub end: u64,
}

impl Record for TransferRecord {
    /// The doorbell's: when it was queued.
    fn cycle(&self) -> u64 {
        self.doorbell
    }
    /// 3 events of the timeline: the flow's start at the doorbell, the transfer, the flow's
    /// end.
    fn weight(&self) -> u64 {
        3
    }
}

impl Queue {
    /// Logs `e` if the core records and the log has room.
    fn note(&mut self, rec: &Recording, e: QueueEvent) {
        if rec.on && self.log.len() < LOG_MAX {
            self.log.push(e);
        }
    }
}

/// A doorbell or wait on a queue, with the core cycle it happened at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueEvent {
    /// SDMA_DOORBELL written with `tail` at `cycle`.
    Doorbell {
        /// Core cycle.
        cycle: u64,
        /// New tail.
        tail: u32,
    },
    /// SDMA_WAIT written at `cycle`; the core resumed at `until`.
    Wait {
        /// Core cycle.
        cycle: u64,
        /// Cycle the awaited descriptor completed (≥ `cycle`).
        until: u64,
    },
}

/// The SDMA device of one core: both queues and the timing they run at.
#[derive(Debug, Clone)]
pub struct Sdma {
    /// M2S (0) and S2M (1).
    pub queues: [Queue; queue::COUNT as usize],
    /// Transfers queued while the core records, within the recording's room, in doorbell
    /// order. Recording changes no timing.
    pub transfers: Vec<TransferRecord>,
    /// Where every queued transfer also goes, whatever the recording, when set: the checked
    /// mode's view of the HBM the engine reads and writes (docs/checked-mode.md). Watching
    /// changes no timing.
    pub watch: Option<TransferWatch>,
    timing: TimingModel,
}

/// A shared list of the transfers a queue pair has queued, in doorbell order, for an observer
/// on the core's own thread (it takes them after the doorbell's store completes).
#[derive(Debug, Clone, Default)]
pub struct TransferWatch(std::sync::Arc<std::sync::Mutex<Vec<TransferRecord>>>);

impl TransferWatch {
    fn push(&self, t: TransferRecord) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(t);
    }

    /// The transfers queued since the last call, oldest first.
    pub fn take(&self) -> Vec<TransferRecord> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// Name of queue `q` for messages.
pub fn queue_name(q: u32) -> &'static str {
    if q == queue::M2S {
        "M2S"
    } else {
        "S2M"
    }
}

/// Checks a DATARAM range of a descriptor.
pub fn local_in_range(local: u32, len: u32) -> bool {
    let (base, size) = map::DATARAM;
    local >= base && u64::from(local) + u64::from(len) <= u64::from(base) + u64::from(size)
}

/// Offset of DATARAM address `local` in the DATARAM slice.
fn dataram_offset(local: u32) -> usize {
    (local - map::DATARAM.0) as usize
}

impl Sdma {
    /// Idle queues, transfers timed by `timing`.
    pub fn new(timing: &TimingModel) -> Self {
        Sdma {
            queues: Default::default(),
            transfers: Vec::new(),
            watch: None,
            timing: timing.clone(),
        }
    }

    /// SDMA_DOORBELL(q) = `tail`: queues descriptors `[queued, tail)` from the ring.
    fn doorbell(
        &mut self,
        q: u32,
        tail: u32,
        cx: &mut DeviceCtx<'_>,
        now: u64,
    ) -> Result<(), BusFault> {
        let off = reg::sdma_doorbell(q);
        let name = queue_name(q);
        self.apply(q, cx, now)?;
        let qu = &self.queues[q as usize];
        let (ring_base, size, queued, completed) =
            (qu.ring_base, qu.ring_size, qu.queued, qu.completed);
        let err = |message: String| Err(device::error(off, message));
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
        let (dram_base, dram_size) = map::DATARAM;
        let mut start_after = qu.busy_until.max(now);
        for k in 0..new {
            let index = queued.wrapping_add(k);
            let slot = ring_base + (index % size) * DESCRIPTOR_SIZE;
            let d = local_in_range(slot, DESCRIPTOR_SIZE)
                .then(|| {
                    let o = dataram_offset(slot);
                    &cx.dataram[o..o + DESCRIPTOR_SIZE as usize]
                })
                .ok_or_else(|| {
                    device::error(
                        off,
                        format!(
                            "SDMA {name}: descriptor {index} at {slot:#010x} is outside DATARAM"
                        ),
                    )
                })?;
            let word = |i: usize| u32::from_le_bytes([d[i], d[i + 1], d[i + 2], d[i + 3]]);
            let hbm = u64::from(word(0)) | (u64::from(word(4)) << 32);
            let (local, len) = (word(8), word(12));
            if len == 0 || len > MAX_LEN {
                return err(format!(
                    "SDMA {name}: malformed descriptor {index} at {slot:#010x}: length {len} (must be 1..{MAX_LEN})"
                ));
            }
            if !local_in_range(local, len) {
                return err(format!(
                    "SDMA {name}: descriptor {index} at {slot:#010x}: DATARAM address {local:#010x}+{len:#x} out of range [{dram_base:#010x}, {:#010x})",
                    dram_base + dram_size
                ));
            }
            if hbm
                .checked_add(u64::from(len))
                .is_none_or(|e| e > cx.hbm.size())
            {
                return err(format!(
                    "SDMA {name}: descriptor {index} at {slot:#010x}: HBM address {hbm:#x}+{len:#x} out of range (HBM is {:#x} bytes)",
                    cx.hbm.size()
                ));
            }
            let end = start_after + transfer_cycles(&self.timing, len);
            let record = TransferRecord {
                queue: q,
                index,
                hbm,
                local,
                len,
                doorbell: now,
                start: start_after + u64::from(self.timing.sdma_latency),
                end,
            };
            if let Some(w) = &self.watch {
                w.push(record);
            }
            cx.rec.keep(&mut self.transfers, record);
            start_after = end;
            self.queues[q as usize].pending.push_back(Transfer {
                index,
                hbm,
                local,
                len,
                end,
            });
        }
        let qu = &mut self.queues[q as usize];
        qu.queued = tail;
        qu.busy_until = start_after;
        qu.note(cx.rec, QueueEvent::Doorbell { cycle: now, tail });
        Ok(())
    }

    /// Applies the transfers of queue `q` that have ended by `now`.
    fn apply(&mut self, q: u32, cx: &mut DeviceCtx<'_>, now: u64) -> Result<(), BusFault> {
        let (qu, timing) = (&mut self.queues[q as usize], &self.timing);
        while let Some(t) = qu.pending.front().copied() {
            if t.end > now {
                break;
            }
            qu.pending.pop_front();
            let bad = |_| {
                device::error(
                    reg::sdma_completed(q),
                    format!(
                        "SDMA {}: descriptor {}: HBM access failed",
                        queue_name(q),
                        t.index
                    ),
                )
            };
            let o = dataram_offset(t.local);
            let local = &mut cx.dataram[o..o + t.len as usize];
            if q == queue::M2S {
                cx.hbm.read(t.hbm, local).map_err(bad)?;
            } else {
                cx.hbm.write(t.hbm, local).map_err(bad)?;
            }
            qu.completed = t.index.wrapping_add(1);
            qu.counters.transfers += 1;
            qu.counters.bytes += u64::from(t.len);
            qu.counters.busy_cycles += transfer_cycles(timing, t.len);
        }
        Ok(())
    }

    /// SDMA_WAIT(q) = `count`: the cycles until `count` descriptors have completed.
    fn wait(
        &mut self,
        q: u32,
        count: u32,
        cx: &mut DeviceCtx<'_>,
        now: u64,
    ) -> Result<u64, BusFault> {
        let qu = &self.queues[q as usize];
        // COMPLETED is monotonic: a count at or behind it (within 2^31, so the counters may
        // wrap) has been reached already and the wait ends at once (PLATFORM.md "SDMA").
        if (count.wrapping_sub(qu.completed) as i32) <= 0 {
            let wait = QueueEvent::Wait {
                cycle: now,
                until: now,
            };
            self.queues[q as usize].note(cx.rec, wait);
            return Ok(0);
        }
        if count.wrapping_sub(qu.completed) > qu.queued.wrapping_sub(qu.completed) {
            return Err(device::error(
                reg::sdma_wait(q),
                format!(
                    "SDMA {}: wait for {count} completions, but only {} descriptors were queued: the core would wait forever",
                    queue_name(q),
                    qu.queued
                ),
            ));
        }
        let end = qu
            .pending
            .iter()
            .take_while(|t| t.index.wrapping_sub(qu.completed) < count.wrapping_sub(qu.completed))
            .map(|t| t.end)
            .max()
            .unwrap_or(now);
        let until = end.max(now);
        self.apply(q, cx, until)?;
        self.queues[q as usize].note(cx.rec, QueueEvent::Wait { cycle: now, until });
        Ok(until - now)
    }
}

impl Device for Sdma {
    fn block(&self) -> &'static reg::Block {
        &regs::BLOCK
    }

    fn load(&mut self, d: Decoded, cx: &mut DeviceCtx<'_>, now: u64) -> Result<u32, BusFault> {
        let q = d.instance;
        match d.register {
            regs::RING_BASE => Ok(self.queues[q as usize].ring_base),
            regs::RING_SIZE => Ok(self.queues[q as usize].ring_size),
            _ => {
                // SDMA_COMPLETED: first apply what has ended by now.
                self.apply(q, cx, now)?;
                Ok(self.queues[q as usize].completed)
            }
        }
    }

    fn store(
        &mut self,
        d: Decoded,
        v: u32,
        cx: &mut DeviceCtx<'_>,
        now: u64,
    ) -> Result<u64, BusFault> {
        let (q, off) = (d.instance, d.off);
        let name = queue_name(q);
        let qu = &mut self.queues[q as usize];
        match d.register {
            regs::RING_BASE => {
                if !v.is_multiple_of(DESCRIPTOR_SIZE) || !local_in_range(v, DESCRIPTOR_SIZE) {
                    return Err(device::error(
                        off,
                        format!(
                            "SDMA {name}: ring base {v:#010x} must be {DESCRIPTOR_SIZE}-byte aligned inside DATARAM"
                        ),
                    ));
                }
                qu.ring_base = v;
                Ok(0)
            }
            regs::RING_SIZE => {
                if !v.is_power_of_two() || v > MAX_RING {
                    return Err(device::error(
                        off,
                        format!(
                            "SDMA {name}: ring size {v} must be a power of two in 1..{MAX_RING}"
                        ),
                    ));
                }
                qu.ring_size = v;
                Ok(0)
            }
            regs::DOORBELL => self.doorbell(q, v, cx, now).map(|_| 0),
            _ => self.wait(q, v, cx, now), // SDMA_WAIT
        }
    }

    fn refuse_write(&self, off: u32) -> BusFault {
        device::write_refused(off, "read-only or unknown SDMA")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::device::Rig;

    /// Writes descriptor `slot` of a ring at the start of DATARAM.
    fn descriptor(rig: &mut Rig, slot: usize, hbm: u64, local: u32, len: u32) {
        let d = &mut rig.dataram[slot * 16..slot * 16 + 16];
        d[..8].copy_from_slice(&hbm.to_le_bytes());
        d[8..12].copy_from_slice(&local.to_le_bytes());
        d[12..].copy_from_slice(&len.to_le_bytes());
    }

    #[test]
    fn a_transfer_costs_the_latency_plus_its_bytes_at_the_engine_rate() {
        let t = TimingModel::default();
        assert_eq!(transfer_cycles(&t, 1024), 200 + 1024 / 64);
        assert_eq!(
            transfer_cycles(&t, 65),
            200 + 2,
            "a partial cycle counts whole"
        );
        let zero_rate = TimingModel {
            sdma_bytes_per_cycle: 0,
            ..TimingModel::default()
        };
        assert_eq!(
            transfer_cycles(&zero_rate, 10),
            200 + 10,
            "rate 0 moves a byte per cycle"
        );
    }

    #[test]
    fn recording_keeps_each_transfer_with_its_doorbell_start_and_end() {
        let (t, mut rig) = (TimingModel::default(), Rig::new());
        let mut s = Sdma::new(&t);
        rig.rec = Recording::with_room(None);
        descriptor(&mut rig, 0, 0x100, map::DATARAM.0 + 0x800, 64);
        descriptor(&mut rig, 1, 0x200, map::DATARAM.0 + 0x900, 130);
        rig.store(&mut s, reg::sdma_ring_base(1), map::DATARAM.0, 0)
            .unwrap();
        rig.store(&mut s, reg::sdma_ring_size(1), 4, 0).unwrap();
        rig.store(&mut s, reg::sdma_doorbell(1), 2, 50).unwrap();
        // Latency 200, then 64 bytes per cycle: the second starts when the first ends.
        assert_eq!(
            s.transfers,
            [
                TransferRecord {
                    queue: 1,
                    index: 0,
                    hbm: 0x100,
                    local: map::DATARAM.0 + 0x800,
                    len: 64,
                    doorbell: 50,
                    start: 250,
                    end: 251
                },
                TransferRecord {
                    queue: 1,
                    index: 1,
                    hbm: 0x200,
                    local: map::DATARAM.0 + 0x900,
                    len: 130,
                    doorbell: 50,
                    start: 451,
                    end: 454
                },
            ]
        );
    }

    #[test]
    fn m2s_copies_at_the_end_cycle_and_wait_stalls_until_then() {
        let (t, mut rig) = (TimingModel::default(), Rig::new());
        rig.rec = Recording::with_room(None);
        let mut s = Sdma::new(&t);
        rig.hbm.write(0x100, b"sdma").unwrap();
        descriptor(&mut rig, 0, 0x100, map::DATARAM.0 + 0x800, 4);
        rig.store(&mut s, reg::sdma_ring_base(0), map::DATARAM.0, 0)
            .unwrap();
        rig.store(&mut s, reg::sdma_ring_size(0), 4, 0).unwrap();
        rig.store(&mut s, reg::sdma_doorbell(0), 1, 10).unwrap();
        let end = 10 + transfer_cycles(&t, 4);
        assert_eq!(rig.load(&mut s, reg::sdma_completed(0), end - 1), Ok(0));
        assert_eq!(rig.store(&mut s, reg::sdma_wait(0), 1, 20), Ok(end - 20));
        assert_eq!(&rig.dataram[0x800..0x804], b"sdma");
        assert_eq!(rig.load(&mut s, reg::sdma_completed(0), end), Ok(1));
        assert_eq!(
            s.queues[0].counters,
            QueueCounters {
                transfers: 1,
                bytes: 4,
                busy_cycles: transfer_cycles(&t, 4)
            }
        );
        assert_eq!(
            s.queues[0].log,
            [
                QueueEvent::Doorbell { cycle: 10, tail: 1 },
                QueueEvent::Wait {
                    cycle: 20,
                    until: end
                }
            ]
        );
    }

    #[test]
    fn a_queue_counts_a_transfer_when_it_completes() {
        let (t, mut rig) = (TimingModel::default(), Rig::new());
        let mut s = Sdma::new(&t);
        descriptor(&mut rig, 0, 0x100, map::DATARAM.0 + 0x800, 100);
        descriptor(&mut rig, 1, 0x200, map::DATARAM.0 + 0x900, 1000);
        rig.store(&mut s, reg::sdma_ring_base(0), map::DATARAM.0, 0)
            .unwrap();
        rig.store(&mut s, reg::sdma_ring_size(0), 4, 0).unwrap();
        rig.store(&mut s, reg::sdma_doorbell(0), 2, 0).unwrap();
        let first = transfer_cycles(&t, 100);
        assert_eq!(rig.load(&mut s, reg::sdma_completed(0), first - 1), Ok(0));
        assert_eq!(s.queues[0].counters, QueueCounters::default(), "in flight");
        assert_eq!(rig.load(&mut s, reg::sdma_completed(0), first), Ok(1));
        let one = s.queues[0].counters;
        assert_eq!((one.transfers, one.bytes, one.busy_cycles), (1, 100, 202));
        rig.store(&mut s, reg::sdma_wait(0), 2, first).unwrap();
        let both = s.queues[0].counters;
        // 200 cycles of latency each, then 2 and 16 cycles at 64 bytes per cycle.
        assert_eq!(
            (both.transfers, both.bytes, both.busy_cycles),
            (2, 1100, 418)
        );
        assert_eq!(
            both.since(&one),
            QueueCounters {
                transfers: 1,
                bytes: 1000,
                busy_cycles: 216
            }
        );
        assert_eq!(s.queues[1].counters, QueueCounters::default(), "S2M idle");
    }

    #[test]
    fn a_wait_for_a_count_already_completed_ends_at_once() {
        let (t, mut rig) = (TimingModel::default(), Rig::new());
        let mut s = Sdma::new(&t);
        descriptor(&mut rig, 0, 0x100, map::DATARAM.0 + 0x800, 4);
        rig.store(&mut s, reg::sdma_ring_base(0), map::DATARAM.0, 0)
            .unwrap();
        rig.store(&mut s, reg::sdma_ring_size(0), 4, 0).unwrap();
        rig.store(&mut s, reg::sdma_doorbell(0), 1, 0).unwrap();
        let end = transfer_cycles(&t, 4);
        assert_eq!(rig.store(&mut s, reg::sdma_wait(0), 1, 0), Ok(end));
        // PLATFORM.md: "stall the core until COMPLETED >= value" — 1 and 0 are reached already.
        assert_eq!(rig.store(&mut s, reg::sdma_wait(0), 1, end + 5), Ok(0));
        assert_eq!(rig.store(&mut s, reg::sdma_wait(0), 0, end + 6), Ok(0));
        assert!(
            rig.store(&mut s, reg::sdma_wait(0), 2, end + 7).is_err(),
            "never queued"
        );
    }

    #[test]
    fn without_recording_no_transfer_doorbell_or_wait_is_kept() {
        let (t, mut rig) = (TimingModel::default(), Rig::new());
        let mut s = Sdma::new(&t);
        for slot in 0..3 {
            descriptor(&mut rig, slot, 0x100, map::DATARAM.0 + 0x800, 4);
        }
        rig.store(&mut s, reg::sdma_ring_base(0), map::DATARAM.0, 0)
            .unwrap();
        rig.store(&mut s, reg::sdma_ring_size(0), 4, 0).unwrap();
        for round in 0..3u32 {
            rig.store(
                &mut s,
                reg::sdma_doorbell(0),
                round + 1,
                1000 * u64::from(round),
            )
            .unwrap();
            rig.store(
                &mut s,
                reg::sdma_wait(0),
                round + 1,
                1000 * u64::from(round),
            )
            .unwrap();
            rig.store(
                &mut s,
                reg::sdma_wait(0),
                round + 1,
                1000 * u64::from(round) + 999,
            )
            .unwrap();
        }
        assert_eq!(s.queues[0].counters.transfers, 3, "the transfers ran");
        assert!(s.queues[0].log.is_empty() && s.queues[1].log.is_empty());
        assert!(s.transfers.is_empty());
        assert_eq!(rig.rec, Recording::default(), "nothing counted either");
    }

    #[test]
    fn a_queue_log_keeps_the_first_log_max_doorbells_and_waits() {
        let (t, mut rig) = (TimingModel::default(), Rig::new());
        rig.rec = Recording::with_room(Some(0));
        let mut s = Sdma::new(&t);
        for i in 0..LOG_MAX as u64 + 10 {
            rig.store(&mut s, reg::sdma_wait(1), 0, i).unwrap();
        }
        let log = &s.queues[1].log;
        assert_eq!(log.len(), LOG_MAX);
        assert_eq!(
            log[LOG_MAX - 1],
            QueueEvent::Wait {
                cycle: LOG_MAX as u64 - 1,
                until: LOG_MAX as u64 - 1
            }
        );
        assert_eq!(rig.rec.dropped, 0, "the log does not use the room");
    }

    #[test]
    fn a_transfer_counts_three_events_of_the_room() {
        let (t, mut rig) = (TimingModel::default(), Rig::new());
        rig.rec = Recording::with_room(Some(5));
        let mut s = Sdma::new(&t);
        descriptor(&mut rig, 0, 0x100, map::DATARAM.0 + 0x800, 64);
        descriptor(&mut rig, 1, 0x200, map::DATARAM.0 + 0x900, 64);
        rig.store(&mut s, reg::sdma_ring_base(0), map::DATARAM.0, 0)
            .unwrap();
        rig.store(&mut s, reg::sdma_ring_size(0), 4, 0).unwrap();
        rig.store(&mut s, reg::sdma_doorbell(0), 1, 7).unwrap();
        rig.store(&mut s, reg::sdma_doorbell(0), 2, 9).unwrap();
        assert_eq!(s.transfers.len(), 1, "2 left for the second");
        assert_eq!(
            rig.rec,
            Recording {
                on: true,
                room: Some(0),
                dropped: 3,
                first_dropped: Some(9)
            }
        );
        assert_eq!(
            s.queues[0].pending.len(),
            2,
            "both were queued all the same"
        );
    }

    #[test]
    fn s2m_copies_dataram_to_hbm() {
        let (t, mut rig) = (TimingModel::default(), Rig::new());
        let mut s = Sdma::new(&t);
        rig.dataram[0x400..0x403].copy_from_slice(b"out");
        descriptor(&mut rig, 0, 0x2000, map::DATARAM.0 + 0x400, 3);
        rig.store(&mut s, reg::sdma_ring_base(1), map::DATARAM.0, 0)
            .unwrap();
        rig.store(&mut s, reg::sdma_ring_size(1), 1, 0).unwrap();
        rig.store(&mut s, reg::sdma_doorbell(1), 1, 0).unwrap();
        rig.store(&mut s, reg::sdma_wait(1), 1, 0).unwrap();
        let mut got = [0u8; 3];
        rig.hbm.read(0x2000, &mut got).unwrap();
        assert_eq!(&got, b"out");
    }

    #[test]
    fn register_misuse_names_the_queue() {
        let mut rig = Rig::new();
        let mut s = Sdma::new(&TimingModel::default());
        let msg = |r: Result<u64, BusFault>| r.unwrap_err().to_string();
        assert_eq!(
            msg(rig.store(&mut s, reg::sdma_ring_base(1), 0x0008_0004, 0)),
            "SDMA S2M: ring base 0x00080004 must be 16-byte aligned inside DATARAM"
        );
        assert_eq!(
            msg(rig.store(&mut s, reg::sdma_ring_size(0), 512, 0)),
            "SDMA M2S: ring size 512 must be a power of two in 1..256"
        );
        assert_eq!(
            msg(rig.store(&mut s, reg::sdma_doorbell(0), 1, 0)),
            "SDMA M2S: doorbell before SDMA_RING_SIZE was set"
        );
        assert_eq!(
            msg(rig.store(&mut s, reg::sdma_completed(0), 1, 0)),
            "write of read-only or unknown SDMA register 0x0300100c"
        );
        assert_eq!(
            rig.load(&mut s, reg::sdma_wait(0), 0)
                .unwrap_err()
                .to_string(),
            "read of MMIO register 0x03001010, which does not exist or is write-only"
        );
    }
}
