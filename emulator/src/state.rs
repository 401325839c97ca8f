//! Architectural state of one core: the address registers and one word per special and user
//! register, each where the register table of [`q7_isa::sreg`] says it is stored (CCOUNT alone is
//! derived from the cycle count, by the core). Reset values come from the same table.

use q7_isa::sreg::{self, sr, RegisterInfo};
use q7_isa::CoreConfig;

pub use q7_isa::sreg::ps;

/// The register state of one core.
#[derive(Debug, Clone)]
pub struct CoreState {
    /// Program counter of the next instruction.
    pub pc: u32,
    /// Physical address registers (64 on ncore2gp, 32 on dc233c; the rest unused).
    pub ar: [u32; 64],
    /// `num_aregs - 1`.
    amask: u32,
    /// WINDOWBASE * 4, kept with it: the physical index of a0.
    base: u32,
    /// Every special register's word, by number.
    sr: [u32; 256],
    /// Every user register's word, by number.
    ur: [u32; 256],
    /// Exclusive-access monitor: the armed address and the value seen.
    pub exclusive: Option<(u32, u32)>,
    /// Number of physical address registers.
    pub num_aregs: u32,
}

impl CoreState {
    /// The reset state for `config` on core `prid`: every register the configuration has at
    /// its table reset value (VECBASE = `vecbase`, PRID = `prid`), every AR 0.
    pub fn reset(config: &CoreConfig, prid: u32, pc: u32, vecbase: u32) -> Self {
        let mut state = CoreState {
            pc,
            ar: [0; 64],
            amask: (config.num_aregs - 1) & 63,
            base: 0,
            sr: [0; 256],
            ur: [0; 256],
            exclusive: None,
            num_aregs: config.num_aregs,
        };
        let present = |r: &&RegisterInfo| config.has(r.options);
        for r in sreg::SPECIAL_REGISTERS.iter().filter(present) {
            if let Some(word) = r.word() {
                state.sr[usize::from(word)] = r.reset.value(prid, vecbase);
            }
        }
        for r in sreg::USER_REGISTERS.iter().filter(present) {
            if let Some(word) = r.word() {
                state.ur[usize::from(word)] = r.reset.value(prid, vecbase);
            }
        }
        state.base = state.windowbase() * 4;
        state
    }

    /// The stored word of special register `n` (as stored: a write rule applies only through
    /// the core's WSR/XSR).
    #[inline(always)]
    pub fn sr(&self, n: u8) -> u32 {
        self.sr[usize::from(n)]
    }

    /// Stores `v` as the word of special register `n`, as is (no write rule applies; call
    /// [`crate::Core::refresh`] after changing WINDOWBASE, WINDOWSTART or PS).
    #[inline(always)]
    pub fn set_sr(&mut self, n: u8, v: u32) {
        self.sr[usize::from(n)] = v;
        if n == sr::WINDOWBASE {
            self.base = v.wrapping_mul(4);
        }
    }

    /// WINDOWBASE × 4 as kept for the register accesses ([`State::phys`]), for compiled code
    /// that moves the window (it sets WINDOWBASE's word too).
    pub(crate) fn base_word(&mut self) -> *mut u32 {
        &mut self.base
    }

    /// The special registers' words, for compiled code (256 words, indexed by number).
    pub(crate) fn sr_words(&mut self) -> *mut u32 {
        self.sr.as_mut_ptr()
    }

    /// The stored word of user register `n`.
    #[inline(always)]
    pub fn ur(&self, n: u8) -> u32 {
        self.ur[usize::from(n)]
    }

    /// The stored word of user register `n`, to change directly.
    #[inline(always)]
    pub fn ur_mut(&mut self, n: u8) -> &mut u32 {
        &mut self.ur[usize::from(n)]
    }

    /// PS.
    #[inline(always)]
    pub fn ps(&self) -> u32 {
        self.sr(sr::PS)
    }

    /// SAR.
    #[inline(always)]
    pub fn sar(&self) -> u32 {
        self.sr(sr::SAR)
    }

    /// LBEG.
    #[inline(always)]
    pub fn lbeg(&self) -> u32 {
        self.sr(sr::LBEG)
    }

    /// LEND.
    #[inline(always)]
    pub fn lend(&self) -> u32 {
        self.sr(sr::LEND)
    }

    /// LCOUNT.
    #[inline(always)]
    pub fn lcount(&self) -> u32 {
        self.sr(sr::LCOUNT)
    }

    /// WINDOWBASE (in register groups of 4).
    #[inline(always)]
    pub fn windowbase(&self) -> u32 {
        self.sr(sr::WINDOWBASE)
    }

    /// WINDOWSTART (one bit per group).
    #[inline(always)]
    pub fn windowstart(&self) -> u32 {
        self.sr(sr::WINDOWSTART)
    }

    /// Sets WINDOWBASE (modulo the group count).
    #[inline]
    pub fn set_windowbase(&mut self, wb: u32) {
        self.set_sr(sr::WINDOWBASE, wb & (self.groups() - 1));
    }

    /// Physical index of logical register `r` in the current window.
    #[inline(always)]
    pub fn phys(&self, r: u32) -> usize {
        // amask <= 63 lets the compiler drop the bounds check; the mask also keeps a WINDOWBASE
        // stored out of range with `set_sr` inside the register file.
        (self.base.wrapping_add(r) & self.amask & 63) as usize
    }

    /// Logical register `r` of the current window.
    #[inline(always)]
    pub fn a(&self, r: u32) -> u32 {
        self.ar[self.phys(r)]
    }

    /// Sets logical register `r` of the current window.
    #[inline(always)]
    pub fn set_a(&mut self, r: u32, v: u32) {
        let p = self.phys(r);
        self.ar[p] = v;
    }

    /// The current window a0..a15.
    pub fn window(&self) -> [u32; 16] {
        std::array::from_fn(|i| self.a(i as u32))
    }

    /// Number of register groups (WINDOWSTART bits).
    #[inline]
    pub fn groups(&self) -> u32 {
        self.num_aregs / 4
    }

    /// WINDOWSTART bit of group `g` (modulo the group count).
    #[inline]
    pub fn ws_bit(&self, g: u32) -> bool {
        self.windowstart() >> (g & (self.groups() - 1)) & 1 != 0
    }

    /// CWOE: window overflow checks, ENTRY and RETW are enabled (PS.WOE and not PS.EXCM).
    #[inline]
    pub fn cwoe(&self) -> bool {
        self.ps() & (ps::WOE | ps::EXCM) == ps::WOE
    }

    /// CRING: EXCM ? 0 : RING.
    #[inline]
    pub fn cring(&self) -> u32 {
        let ps = self.ps();
        if ps & ps::EXCM != 0 {
            0
        } else {
            (ps & ps::RING) >> ps::RING_SHIFT
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_isa::sreg::ur;
    use q7_isa::{DC233C, NCORE2GP};

    #[test]
    fn reset_sets_the_table_values_of_the_registers_the_profile_has() {
        let s = CoreState::reset(&DC233C, 5, 0x100, 0x2000);
        assert_eq!(s.ps(), 0x1f);
        assert_eq!(s.sr(sr::ATOMCTL), 0x28);
        assert_eq!(s.sr(sr::RASID), 0x0403_0201);
        assert_eq!(s.sr(sr::CONFIGID0), 0xc567_07fe);
        assert_eq!(s.sr(sr::CONFIGID1), 0x1440_4b21);
        assert_eq!(
            (s.sr(sr::PRID), s.sr(sr::VECBASE), s.pc),
            (5, 0x2000, 0x100)
        );
        assert_eq!((s.windowbase(), s.windowstart(), s.sar()), (0, 0, 0));
        assert_eq!((s.ur(ur::THREADPTR), s.ur(ur::EXPSTATE)), (0, 0));
        let n = CoreState::reset(&NCORE2GP, 1, 0, 0);
        assert_eq!(n.sr(sr::MPUENB), 0, "SR 90 is MPUENB without the MMU");
        assert_eq!(n.sr(sr::CONFIGID0), 0, "no CONFIGID on ncore2gp");
        assert_eq!(n.sr(sr::PRID), 1);
    }

    #[test]
    fn every_register_reads_from_its_own_word() {
        let mut s = CoreState::reset(&DC233C, 0, 0, 0);
        s.set_sr(sr::PS, 0x40010);
        s.set_sr(sr::SAR, 7);
        s.set_sr(sr::LEND, 0x1234);
        assert_eq!((s.ps(), s.sar(), s.lend()), (0x40010, 7, 0x1234));
        assert_eq!(s.sr(sr::PS), s.ps());
        assert!(!s.cwoe(), "EXCM masks WOE");
        s.set_sr(sr::PS, ps::WOE | (2 << ps::RING_SHIFT));
        assert!(s.cwoe());
        assert_eq!(s.cring(), 2);
    }

    #[test]
    fn windowbase_selects_the_physical_registers_of_the_window() {
        let mut s = CoreState::reset(&DC233C, 0, 0, 0);
        s.set_windowbase(9);
        assert_eq!(s.windowbase(), 1, "modulo 8 groups");
        s.set_a(3, 42);
        assert_eq!(s.ar[7], 42);
        s.set_windowbase(7);
        assert_eq!(s.phys(5), 1, "wraps around the 32 registers");
        s.set_sr(sr::WINDOWSTART, 0b1000_0001);
        assert!(s.ws_bit(0) && s.ws_bit(7) && s.ws_bit(8) && !s.ws_bit(1));
    }
}
