//! Loads and stores: alignment, the memory-latency charge and bus faults shared by every data
//! access, the load/store instructions (L32R, conditional store, exclusive access, L32E/S32E
//! included), memory barriers, and cache and TLB maintenance on flat memory.

use q7_isa::sreg::sr;
use q7_isa::Opcode;

use super::exception::{Exc, Reason};
use super::{not_in_family, Core, Flow, Res};
use crate::bus::{Bus, BusFault, DataLatency};
use crate::predecode::Op;
use crate::trace::{Access, Tracer};

impl<B: Bus> Core<B> {
    fn mem_fault(e: BusFault, addr: u32, store: bool) -> Exc {
        let reason = match e {
            BusFault::MemoryLimit { limit, .. } => {
                return Exc::fatal(crate::fault::FaultKind::MemoryLimit { limit }, Some(addr))
            }
            BusFault::Unmapped { .. } => Reason::Unmapped { addr, store },
            BusFault::Device { message, .. } => Reason::Device { addr, message },
            BusFault::Prohibited { kind, .. } => Reason::Prohibited { addr, kind, store },
        };
        Exc::general(reason)
    }

    #[cold]
    #[inline(never)]
    fn unaligned(addr: u32, size: u32, what: &'static str) -> Exc {
        Exc::general(Reason::Unaligned { addr, size, what })
    }

    /// Alignment check and memory-latency charge shared by every data access.
    #[inline(always)]
    fn access(&mut self, addr: u32, size: u32, what: &'static str) -> Res {
        if addr & (size - 1) != 0 {
            return Err(Self::unaligned(addr, size, what));
        }
        match self.bus.data_latency(addr) {
            DataLatency::Free => {}
            DataLatency::Sram(lat) => {
                self.stats.cycles += u64::from(lat);
                self.stats.stalls.sram += u64::from(lat);
            }
            DataLatency::Hbm(lat) => {
                self.stats.cycles += u64::from(lat);
                self.stats.stalls.hbm += u64::from(lat);
            }
        }
        Ok(())
    }

    /// A data load; recorded for an enabled tracer `T`.
    #[inline(always)]
    pub(super) fn load<T: Tracer>(&mut self, addr: u32, size: u32) -> Res<u32> {
        self.access(addr, size, "load from")?;
        let now = self.stats.cycles;
        let loaded = self
            .bus
            .load(addr, size, now)
            .map_err(|e| Self::mem_fault(e, addr, false));
        if T::ENABLED {
            if let Ok(v) = loaded {
                self.record(addr, size, v, false, T::HBM_ADDRESSES);
            }
        }
        loaded
    }

    /// Records a data access for the tracer, with its HBM address when `hbm`.
    #[inline]
    fn record(&mut self, addr: u32, size: u32, value: u32, write: bool, hbm: bool) {
        let value = if size == 4 {
            value
        } else {
            value & ((1 << (8 * size)) - 1)
        };
        self.accesses.push(Access {
            addr,
            size: size as u8,
            value,
            write,
            hbm: if hbm {
                self.bus.shared_address(addr)
            } else {
                None
            },
        });
    }

    /// A data store; recorded for an enabled tracer `T`.
    #[inline(always)]
    pub(super) fn store<T: Tracer>(&mut self, addr: u32, size: u32, v: u32) -> Res {
        self.access(addr, size, "store to")?;
        let now = self.stats.cycles;
        let wait = self
            .bus
            .store(addr, size, v, now)
            .map_err(|e| Self::mem_fault(e, addr, true))?;
        if wait != 0 {
            self.stats.cycles += wait;
            self.stats.stalls.device_wait += wait;
        }
        if self.bus.may_hold_code(addr) {
            self.code_stored(addr, size);
        }
        if T::ENABLED {
            self.record(addr, size, v, true, T::HBM_ADDRESSES);
        }
        Ok(())
    }

    /// A load by `opcode` into operand 0 of `op`, usable after the load-use delay.
    #[inline(always)]
    fn load_into<T: Tracer>(
        &mut self,
        opcode: Opcode,
        op: &Op,
        addr: u32,
        size: u32,
        extend: impl Fn(u32) -> u32,
    ) -> Res {
        let v = self.load::<T>(addr, size)?;
        let r = op.insn.operands[0];
        self.set(r, extend(v));
        self.late_result(opcode, r);
        Ok(())
    }

    /// Executes a load/store-family instruction at `pc` (`opcode` is `op`'s, as a constant of
    /// the dispatch).
    #[inline(always)]
    pub(super) fn memory<T: Tracer>(&mut self, opcode: Opcode, op: &Op, pc: u32) -> Res<Flow> {
        let o = op.insn.operands;
        let zero = |v| v;
        use Opcode::*;
        match opcode {
            L8ui => self.load_into::<T>(opcode, op, self.a(o[1]).wrapping_add(o[2]), 1, zero)?,
            L16ui => self.load_into::<T>(opcode, op, self.a(o[1]).wrapping_add(o[2]), 2, zero)?,
            L16si => self.load_into::<T>(opcode, op, self.a(o[1]).wrapping_add(o[2]), 2, |v| {
                v as u16 as i16 as i32 as u32
            })?,
            L32i | L32iN | L32ai | L32e => {
                self.load_into::<T>(opcode, op, self.a(o[1]).wrapping_add(o[2]), 4, zero)?
            }
            L32r => {
                let addr =
                    q7_isa::sreg::litbase::literal_address(self.state.sr(sr::LITBASE), pc, o[1]);
                self.load_into::<T>(opcode, op, addr, 4, zero)?
            }
            S8i => self.store::<T>(self.a(o[1]).wrapping_add(o[2]), 1, self.a(o[0]))?,
            S16i => self.store::<T>(self.a(o[1]).wrapping_add(o[2]), 2, self.a(o[0]))?,
            S32i | S32iN | S32ri | S32nb | S32e => {
                self.store::<T>(self.a(o[1]).wrapping_add(o[2]), 4, self.a(o[0]))?
            }
            S32c1i => {
                let addr = self.a(o[1]).wrapping_add(o[2]);
                // Flat memory is uncached ("bypass"): ATOMCTL bits 1:0 decide; 0 is
                // LoadStoreError, as QEMU does for its sim RAM at the reset value 0x28.
                if addr & 3 == 0 && self.state.sr(sr::ATOMCTL) & 3 == 0 {
                    return Err(Exc::general(Reason::AtomicBypass { addr }));
                }
                let old = self.load::<T>(addr, 4)?;
                if old == self.state.sr(sr::SCOMPARE1) {
                    self.store::<T>(addr, 4, self.a(o[0]))?;
                }
                self.set(o[0], old);
                self.late_result(opcode, o[0]);
            }
            L32ex => {
                let addr = self.a(o[1]);
                let v = self.load::<T>(addr, 4)?;
                self.state.exclusive = Some((addr, v));
                self.set(o[0], v);
                self.late_result(opcode, o[0]);
            }
            S32ex => {
                let addr = self.a(o[1]);
                if addr & 3 != 0 {
                    return Err(Exc::general(Reason::UnalignedExclusive { addr }));
                }
                let mut res = 0;
                if let Some((a, val)) = self.state.exclusive {
                    if a == addr && self.load::<T>(addr, 4)? == val {
                        self.store::<T>(addr, 4, self.a(o[0]))?;
                        res = 1;
                    }
                }
                self.state.exclusive = None;
                let atomctl = self.state.sr(sr::ATOMCTL);
                let old = (atomctl >> 8) & 1;
                self.state
                    .set_sr(sr::ATOMCTL, (atomctl & !0x100) | (res << 8));
                self.set(o[0], old);
            }
            Getex => {
                let atomctl = self.state.sr(sr::ATOMCTL);
                let v = self.a(o[0]);
                self.state
                    .set_sr(sr::ATOMCTL, (atomctl & !0x100) | ((v & 1) << 8));
                self.set(o[0], (atomctl >> 8) & 1);
            }
            Clrex => self.state.exclusive = None,

            // Barriers order nothing on an in-order core with flat memory.
            Memw | Extw | Isync | Rsync | Esync | Dsync => {}

            // Cache maintenance: no caches to maintain; tag reads return 0.
            Ipf | Ihi | Dhwb | Dhwbi | Dpfr | Dpfw | Dpfro | Dpfwo | Iii | Ipfl | Ihu | Iiu
            | Sict | Sicw | Diwb | Diwbi | Dhi | Dii | Dpfl | Dhu | Diu | Sdct => {}
            Lict | Licw | Ldct => self.set(o[0], 0),
            Idtlb | Pdtlb | Rdtlb0 | Rdtlb1 | Wdtlb | Iitlb | Pitlb | Ritlb0 | Ritlb1 | Witlb
            | Ldpte | Hwwitlba | Hwwdtlba => {
                return Err(Exc::general(Reason::TlbNotModelled(opcode)))
            }
            _ => not_in_family("load/store", op),
        }
        Ok(Flow::NEXT)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{core_with, exec};
    use crate::fault::ExcCause;
    use q7_isa::sreg::sr;
    use q7_isa::Opcode::*;
    use q7_isa::{DC233C, NCORE2GP};

    #[test]
    fn loads_extend_and_arrive_one_cycle_late() {
        let mut c = core_with(&DC233C, &[]);
        c.bus.write(0x200, &[0x80, 0xff, 0x34, 0x12]);
        c.set(4, 0x200);
        exec(&mut c, L16si, &[3, 4, 0]).unwrap();
        assert_eq!(c.a(3), 0xffff_ff80);
        exec(&mut c, L16ui, &[3, 4, 0]).unwrap();
        assert_eq!(c.a(3), 0xff80);
        exec(&mut c, L32i, &[3, 4, 0]).unwrap();
        assert_eq!(c.a(3), 0x1234_ff80);
        let before = c.stats.cycles;
        exec(&mut c, Add, &[5, 3, 3]).unwrap();
        assert_eq!(c.stats.cycles - before, 2, "load-use stall");
        assert_eq!(c.stats.stalls.load_use, 1);
    }

    #[test]
    fn stores_write_little_endian_and_unaligned_accesses_raise() {
        let mut c = core_with(&DC233C, &[]);
        c.set(4, 0x300);
        c.set(3, 0xa1b2_c3d4);
        exec(&mut c, S16i, &[3, 4, 2]).unwrap();
        assert_eq!(c.bus.read(0x300, 4), [0, 0, 0xd4, 0xc3]);
        let e = exec(&mut c, S32i, &[3, 4, 2]).unwrap_err();
        assert_eq!(e.cause(), Some(ExcCause::LoadStoreAlignment));
        assert_eq!(e.describe(c.config), "unaligned 4-byte store to 0x00000302");
        let e = exec(&mut c, L32i, &[3, 5, 0x10_0000]).unwrap_err();
        assert_eq!(e.cause(), Some(ExcCause::LoadStoreError));
        assert_eq!(e.describe(c.config), "load of unmapped address 0x00100000");
    }

    #[test]
    fn s32c1i_stores_only_on_a_match_and_needs_a_bypass_mode() {
        let mut c = core_with(&DC233C, &[]);
        c.bus.write(0x400, &7u32.to_le_bytes());
        c.set(4, 0x400);
        c.set(3, 9);
        let e = exec(&mut c, S32c1i, &[3, 4, 0]).unwrap_err();
        assert_eq!(e.cause(), Some(ExcCause::LoadStoreError), "ATOMCTL 0x28");
        c.state.set_sr(sr::ATOMCTL, 0x29);
        c.state.set_sr(sr::SCOMPARE1, 7);
        exec(&mut c, S32c1i, &[3, 4, 0]).unwrap();
        assert_eq!((c.a(3), c.bus.read(0x400, 1)[0]), (7, 9));
        c.set(3, 11);
        exec(&mut c, S32c1i, &[3, 4, 0]).unwrap();
        assert_eq!(
            (c.a(3), c.bus.read(0x400, 1)[0]),
            (9, 9),
            "no match: no store"
        );
    }

    #[test]
    fn an_exclusive_pair_succeeds_once_and_reports_through_atomctl_bit_8() {
        let mut c = core_with(&NCORE2GP, &[]);
        c.set(4, 0x500);
        c.set(3, 5);
        exec(&mut c, L32ex, &[6, 4]).unwrap();
        exec(&mut c, S32ex, &[3, 4]).unwrap();
        assert_eq!(c.bus.read(0x500, 1)[0], 5);
        exec(&mut c, Getex, &[7]).unwrap();
        assert_eq!(c.a(7), 1, "success");
        c.set(3, 6);
        exec(&mut c, S32ex, &[3, 4]).unwrap();
        assert_eq!(c.bus.read(0x500, 1)[0], 5, "monitor cleared");
        exec(&mut c, Getex, &[7]).unwrap();
        assert_eq!(c.a(7), 0);
    }

    #[test]
    fn l32r_is_pc_relative_unless_litbase_is_enabled() {
        let mut c = core_with(&DC233C, &[]);
        c.bus.write(0x0ffc, &0x1111u32.to_le_bytes());
        c.bus.write(0x8ffc, &0x2222u32.to_le_bytes());
        exec(&mut c, L32r, &[3, 0x0ffc]).unwrap();
        assert_eq!(c.a(3), 0x1111);
        c.state.set_sr(sr::LITBASE, 0x9001);
        exec(&mut c, L32r, &[3, 0x0ffc]).unwrap();
        assert_eq!(c.a(3), 0x2222, "LITBASE 0x9000 + (0xffc - 0x1000)");
    }
}
