//! The annotation port (PLATFORM.md "Annotation port (TRACE)"): the SDK runtime reports its own
//! events — phases, allocations, tensor bindings, accessors, stack switches — by writing up to
//! four arguments and then an event code. The guest pays the same stores whether or not the
//! events are kept (while the core's [`Recording`](super::recording::Recording) is on), so
//! keeping them never changes a cycle count; with recording off an event costs the emulator
//! nothing beyond decoding the store. An unknown event code is refused, so a runtime bug is
//! reported the same way with and without an observer.

use super::device::{self, Device, DeviceCtx};
use super::map::{reg, reg::trace as regs, reg::Decoded};
use super::recording::Record;
use crate::bus::BusFault;

/// The event codes of PLATFORM.md: code and name.
pub const EVENTS: [(u32, &str); 8] = [
    (1, "PHASE_BEGIN"),
    (2, "PHASE_END"),
    (3, "ALLOC"),
    (4, "FREE"),
    (5, "TENSOR_BIND"),
    (6, "STACK_SWITCH"),
    (7, "STACK_RETURN"),
    (8, "ACCESSOR"),
];

/// Event codes, from [`EVENTS`].
pub mod code {
    /// PHASE_BEGIN: argument 0 the phase ([`super::PHASES`]).
    pub const PHASE_BEGIN: u32 = 1;
    /// PHASE_END: argument 0 the phase.
    pub const PHASE_END: u32 = 2;
    /// ALLOC: heap ([`super::HEAPS`]), address low, high, bytes.
    pub const ALLOC: u32 = 3;
    /// FREE: heap, address low, high.
    pub const FREE: u32 = 4;
    /// TENSOR_BIND: argument index ([`super::BIND_OUTPUT`] for the output), HBM address low,
    /// high, bytes.
    pub const TENSOR_BIND: u32 = 5;
    /// STACK_SWITCH: new SP, stack bytes, 1 for an HBM stack.
    pub const STACK_SWITCH: u32 = 6;
    /// STACK_RETURN: SP restored.
    pub const STACK_RETURN: u32 = 7;
    /// ACCESSOR: kind ([`super::ACCESSORS`]), HBM address low, high, 1 for a write access.
    pub const ACCESSOR: u32 = 8;
}

/// The phases of PHASE_BEGIN/PHASE_END's argument 0 (PLATFORM.md): code and name.
pub const PHASES: [(u32, &str); 5] = [
    (1, "setup"),
    (2, "marshal"),
    (3, "compute"),
    (4, "return"),
    (5, "cleanup"),
];

/// Phase codes, from [`PHASES`].
pub mod phase {
    /// Setting up the dispatch.
    pub const SETUP: u32 = 1;
    /// Reading the arguments.
    pub const MARSHAL: u32 = 2;
    /// The kernel's own code.
    pub const COMPUTE: u32 = 3;
    /// Taking the kernel's returned tensor (copied to the output unless it called
    /// `get_dst_tensor()`).
    pub const RETURN: u32 = 4;
    /// Draining SDMA and answering the host.
    pub const CLEANUP: u32 = 5;
}

/// The heaps of ALLOC/FREE's argument 0 (PLATFORM.md): code and name.
pub const HEAPS: [(u32, &str); 5] = [
    (1, "HBM"),
    (2, "DATARAM"),
    (3, "TCM pool"),
    (4, "libc heap"),
    (5, "HBM stack"),
];

/// Heap codes, from [`HEAPS`].
pub mod heap {
    /// The HBM heap (tensors the kernel makes, `neuron_hbm_allocate`).
    pub const HBM: u32 = 1;
    /// The DATARAM heap (`neuron_dataram_allocate`).
    pub const DATARAM: u32 = 2;
    /// The TCM pool (`tcm_malloc`, stream buffers); address 0 reports a failed `tcm_malloc` or
    /// `tcm_free(nullptr)`.
    pub const TCM_POOL: u32 = 3;
    /// The libc heap (`malloc`, `new`).
    pub const LIBC: u32 = 4;
    /// An HBM stack.
    pub const HBM_STACK: u32 = 5;
}

/// Accessor kinds, from [`ACCESSORS`].
pub mod accessor {
    /// An element accessor (`accessor<T, N>()`).
    pub const ELEMENT: u32 = 1;
    /// A TCM accessor.
    pub const TCM: u32 = 2;
    /// A read stream.
    pub const READ_STREAM: u32 = 3;
    /// A write stream.
    pub const WRITE_STREAM: u32 = 4;
}

/// The accessor kinds of ACCESSOR's argument 0 (PLATFORM.md): code and name.
pub const ACCESSORS: [(u32, &str); 4] = [
    (1, "element accessor"),
    (2, "TCM accessor"),
    (3, "read stream"),
    (4, "write stream"),
];

/// TENSOR_BIND's argument index of the output.
pub const BIND_OUTPUT: u32 = 0xFF;

/// The name of event `code`, if it is one.
pub fn event_name(code: u32) -> Option<&'static str> {
    EVENTS.iter().find(|e| e.0 == code).map(|e| e.1)
}

/// The name `code` has in `table` ([`PHASES`], [`HEAPS`], [`ACCESSORS`]), if it has one.
pub fn name_in(table: &[(u32, &'static str)], code: u32) -> Option<&'static str> {
    table.iter().find(|e| e.0 == code).map(|e| e.1)
}

/// One committed event: the core's cycle count at the TRACE_EVENT store, the code and the four
/// arguments as they stood.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeEvent {
    /// Cycle of the committing store.
    pub cycle: u64,
    /// Event code (one of [`EVENTS`]).
    pub code: u32,
    /// TRACE_ARG0..3.
    pub args: [u32; 4],
}

impl Record for RuntimeEvent {
    fn cycle(&self) -> u64 {
        self.cycle
    }
    /// An ALLOC or FREE is 2 events of the timeline (its instant and a sample of the heap
    /// counter), any other event 1 (docs/tracing.md "Timeline", "Cap").
    fn weight(&self) -> u64 {
        match self.code {
            code::ALLOC | code::FREE => 2,
            _ => 1,
        }
    }
}

/// The word a poisoned allocation is filled with, little-endian, over and over
/// (`q7emu run --poison`, docs/checked-mode.md "Poison").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poison {
    /// 0x7FC07FC0: a quiet NaN read as one float32, and as two bfloat16 or two float16.
    Nan,
    /// 0xDEADBEEF: a value no computation is likely to make.
    Pattern,
}

impl Poison {
    /// The fill word.
    pub const fn word(self) -> u32 {
        match self {
            Poison::Nan => 0x7FC0_7FC0,
            Poison::Pattern => 0xDEAD_BEEF,
        }
    }
}

/// The port's argument latches and the events committed while the core records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TracePort {
    args: [u32; 4],
    /// Events committed while recording, within the recording's room, oldest first.
    pub events: Vec<RuntimeEvent>,
    /// Fill each allocation of the HBM heap, the DATARAM heap and the TCM pool as its ALLOC
    /// event commits (the allocator reports it before the caller sees the memory).
    pub poison: Option<Poison>,
}

impl TracePort {
    /// Fills the allocation of an ALLOC event with `poison`'s word (heaps HBM, DATARAM and TCM
    /// pool; the others are left as they are). An address outside the memory is the runtime's
    /// bug, reported at the event.
    fn poison(&self, poison: Poison, off: u32, cx: &mut DeviceCtx<'_>) -> Result<(), BusFault> {
        let [heap, lo, hi, bytes] = self.args;
        let addr = u64::from(lo) | (u64::from(hi) << 32);
        let word = poison.word().to_le_bytes();
        let fill = |len: usize, at: u64| -> Vec<u8> {
            (0..len)
                .map(|i| word[((at + i as u64) % 4) as usize])
                .collect()
        };
        let bad = || {
            device::error(
                off,
                format!("TRACE_EVENT: ALLOC of {bytes} bytes at {addr:#x} of heap {heap} lies outside its memory"),
            )
        };
        match heap {
            heap::HBM => {
                if addr
                    .checked_add(u64::from(bytes))
                    .is_none_or(|end| end > cx.hbm.size())
                {
                    return Err(bad());
                }
                const CHUNK: u64 = 64 * 1024;
                let mut at = 0;
                while at < u64::from(bytes) {
                    let n = CHUNK.min(u64::from(bytes) - at);
                    cx.hbm
                        .write(addr + at, &fill(n as usize, addr + at))
                        .map_err(|_| bad())?;
                    at += n;
                }
            }
            heap::DATARAM | heap::TCM_POOL => {
                let start = addr
                    .checked_sub(u64::from(super::map::DATARAM.0))
                    .filter(|o| {
                        o.checked_add(u64::from(bytes))
                            .is_some_and(|end| end <= cx.dataram.len() as u64)
                    })
                    .ok_or_else(bad)? as usize;
                let f = fill(bytes as usize, addr);
                cx.dataram[start..start + bytes as usize].copy_from_slice(&f);
            }
            _ => {}
        }
        Ok(())
    }
}

impl Device for TracePort {
    fn block(&self) -> &'static reg::Block {
        &regs::BLOCK
    }

    fn store(
        &mut self,
        d: Decoded,
        v: u32,
        cx: &mut DeviceCtx<'_>,
        now: u64,
    ) -> Result<u64, BusFault> {
        if d.register == regs::EVENT {
            if event_name(v).is_none() {
                return Err(device::error(
                    d.off,
                    format!("TRACE_EVENT: unknown event code {v}"),
                ));
            }
            if let (code::ALLOC, Some(p)) = (v, self.poison) {
                self.poison(p, d.off, cx)?;
            }
            let event = RuntimeEvent {
                cycle: now,
                code: v,
                args: self.args,
            };
            cx.rec.keep(&mut self.events, event);
        } else {
            self.args[(d.register.offset / reg::WIDTH) as usize] = v;
        }
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::device::Rig;
    use crate::platform::recording::Recording;

    fn at(r: &reg::Register) -> u32 {
        regs::BLOCK.at(r, 0)
    }

    #[test]
    fn an_event_commits_the_arguments_written_before_it_at_its_cycle() {
        let (mut rig, mut t) = (Rig::new(), TracePort::default());
        rig.rec = Recording::with_room(None);
        assert_eq!(
            at(&regs::ARGS[0]),
            0x4000,
            "PLATFORM.md: TRACE_ARG0 at 0x4000"
        );
        assert_eq!(
            at(&regs::EVENT),
            0x4010,
            "PLATFORM.md: TRACE_EVENT at 0x4010"
        );
        for (i, v) in [3, 0x8_2000, 0, 64].into_iter().enumerate() {
            rig.store(&mut t, at(&regs::ARGS[i]), v, 5).unwrap();
        }
        rig.store(&mut t, at(&regs::EVENT), 3, 17).unwrap(); // ALLOC
        rig.store(&mut t, at(&regs::ARGS[0]), 1, 20).unwrap();
        rig.store(&mut t, at(&regs::EVENT), 1, 21).unwrap(); // PHASE_BEGIN
        assert_eq!(
            t.events,
            [
                RuntimeEvent {
                    cycle: 17,
                    code: 3,
                    args: [3, 0x8_2000, 0, 64]
                },
                RuntimeEvent {
                    cycle: 21,
                    code: 1,
                    args: [1, 0x8_2000, 0, 64]
                },
            ]
        );
    }

    #[test]
    fn without_recording_events_are_dropped_but_still_checked() {
        let (mut rig, mut t) = (Rig::new(), TracePort::default());
        rig.store(&mut t, at(&regs::EVENT), 2, 0).unwrap();
        assert!(t.events.is_empty());
        assert_eq!(
            rig.store(&mut t, at(&regs::EVENT), 9, 0)
                .unwrap_err()
                .to_string(),
            "TRACE_EVENT: unknown event code 9"
        );
        assert!(rig.load(&mut t, at(&regs::EVENT), 0).is_err(), "write-only");
    }

    #[test]
    fn the_code_constants_are_the_tables_rows() {
        let heaps = [
            (heap::HBM, "HBM"),
            (heap::DATARAM, "DATARAM"),
            (heap::TCM_POOL, "TCM pool"),
            (heap::LIBC, "libc heap"),
            (heap::HBM_STACK, "HBM stack"),
        ];
        assert_eq!(heaps, HEAPS);
        let kinds = [
            (accessor::ELEMENT, "element accessor"),
            (accessor::TCM, "TCM accessor"),
            (accessor::READ_STREAM, "read stream"),
            (accessor::WRITE_STREAM, "write stream"),
        ];
        assert_eq!(kinds, ACCESSORS);
        let phases = [
            (phase::SETUP, "setup"),
            (phase::MARSHAL, "marshal"),
            (phase::COMPUTE, "compute"),
            (phase::RETURN, "return"),
            (phase::CLEANUP, "cleanup"),
        ];
        assert_eq!(phases, PHASES);
    }

    #[test]
    fn a_poisoned_port_fills_each_hbm_dataram_and_tcm_allocation_as_it_is_reported() {
        let (mut rig, mut t) = (Rig::new(), TracePort::default());
        t.poison = Some(Poison::Nan);
        let alloc = |rig: &mut Rig, t: &mut TracePort, args: [u32; 4]| {
            for (i, v) in args.into_iter().enumerate() {
                rig.store(t, at(&regs::ARGS[i]), v, 0).unwrap();
            }
            rig.store(t, at(&regs::EVENT), code::ALLOC, 0)
        };
        alloc(&mut rig, &mut t, [1, 0x100, 0, 6]).unwrap();
        let mut hbm = [0u8; 8];
        rig.hbm.read(0x100, &mut hbm).unwrap();
        assert_eq!(
            hbm,
            [0xC0, 0x7F, 0xC0, 0x7F, 0xC0, 0x7F, 0, 0],
            "6 bytes of 0x7FC07FC0"
        );
        t.poison = Some(Poison::Pattern);
        // TCM pool (heap 3) at DATARAM 0x82000, 5 bytes.
        alloc(&mut rig, &mut t, [3, 0x0008_2000, 0, 5]).unwrap();
        let o = (0x0008_2000 - crate::platform::map::DATARAM.0) as usize;
        assert_eq!(rig.dataram[o..o + 6], [0xEF, 0xBE, 0xAD, 0xDE, 0xEF, 0]);
        // The libc heap (4) is not poisoned; an allocation outside DATARAM is an error.
        alloc(&mut rig, &mut t, [4, 0x1000, 0, 4]).unwrap();
        let e = alloc(&mut rig, &mut t, [2, 0x10, 0, 4]).unwrap_err();
        assert!(e.to_string().contains("lies outside its memory"), "{e}");
        // A kernel may write the port itself: addresses at the top of the 64-bit space are
        // refused, not wrapped.
        for heap in [1, 2, 3] {
            let e = alloc(&mut rig, &mut t, [heap, u32::MAX, u32::MAX, 16]).unwrap_err();
            assert!(e.to_string().contains("lies outside its memory"), "{e}");
        }
    }

    #[test]
    fn an_allocation_counts_two_events_of_the_room_and_the_others_one() {
        let (mut rig, mut t) = (Rig::new(), TracePort::default());
        rig.rec = Recording::with_room(Some(4));
        for (code, cycle) in [(3, 1), (1, 2), (4, 3), (2, 4)] {
            rig.store(&mut t, at(&regs::EVENT), code, cycle).unwrap();
        }
        let kept: Vec<(u32, u64)> = t.events.iter().map(|e| (e.code, e.weight())).collect();
        assert_eq!(
            kept,
            [(3, 2), (1, 1)],
            "the FREE at cycle 3 needs 2, 1 is left"
        );
        // The FREE and the PHASE_END after it, though 1 would fit: the keeping has ended.
        assert_eq!((rig.rec.dropped, rig.rec.first_dropped), (3, Some(3)));
    }
}
