//! Architectural state of one core (reference/xtensa-isa.md §3–§6, XEA2 layout).

use q7_isa::CoreConfig;

/// PS (SR 230) fields, XEA2 (§4.2).
pub mod ps {
    /// INTLEVEL, bits 3:0.
    pub const INTLEVEL: u32 = 0xf;
    /// EXCM, bit 4.
    pub const EXCM: u32 = 1 << 4;
    /// UM, bit 5.
    pub const UM: u32 = 1 << 5;
    /// RING, bits 7:6.
    pub const RING: u32 = 3 << 6;
    /// Shift of OWB.
    pub const OWB_SHIFT: u32 = 8;
    /// OWB, bits 11:8.
    pub const OWB: u32 = 0xf << OWB_SHIFT;
    /// Shift of CALLINC.
    pub const CALLINC_SHIFT: u32 = 16;
    /// CALLINC, bits 17:16.
    pub const CALLINC: u32 = 3 << CALLINC_SHIFT;
    /// WOE, bit 18.
    pub const WOE: u32 = 1 << 18;
    /// Reset value with the exception option: INTLEVEL 15, EXCM 1 (QEMU reset state).
    pub const RESET: u32 = 0x1f;
}

/// Special-register numbers the core gives behaviour to (§4.1).
pub mod sr {
    #![allow(missing_docs)]
    pub const LBEG: u32 = 0;
    pub const LEND: u32 = 1;
    pub const LCOUNT: u32 = 2;
    pub const SAR: u32 = 3;
    pub const BR: u32 = 4;
    pub const LITBASE: u32 = 5;
    pub const SCOMPARE1: u32 = 12;
    pub const ACCLO: u32 = 16;
    pub const ACCHI: u32 = 17;
    pub const M0: u32 = 32;
    pub const WINDOWBASE: u32 = 72;
    pub const WINDOWSTART: u32 = 73;
    pub const IBREAKENABLE: u32 = 96;
    pub const ATOMCTL: u32 = 99;
    pub const CONFIGID0: u32 = 176;
    pub const EPC1: u32 = 177;
    pub const DEPC: u32 = 192;
    pub const EPS2: u32 = 194;
    pub const CONFIGID1: u32 = 208;
    pub const EXCSAVE1: u32 = 209;
    pub const CPENABLE: u32 = 224;
    pub const INTSET: u32 = 226;
    pub const INTCLEAR: u32 = 227;
    pub const INTENABLE: u32 = 228;
    pub const PS: u32 = 230;
    pub const VECBASE: u32 = 231;
    pub const EXCCAUSE: u32 = 232;
    pub const DEBUGCAUSE: u32 = 233;
    pub const CCOUNT: u32 = 234;
    pub const PRID: u32 = 235;
    pub const ICOUNT: u32 = 236;
    pub const ICOUNTLEVEL: u32 = 237;
    pub const EXCVADDR: u32 = 238;
    pub const CCOMPARE0: u32 = 240;
    pub const ISL: u32 = 248;
    pub const KSL: u32 = 249;
}

/// User-register numbers (§4).
pub mod ur {
    /// EXPSTATE (dc233c TIE).
    pub const EXPSTATE: u32 = 230;
    /// THREADPTR.
    pub const THREADPTR: u32 = 231;
}

/// The register state of one core. Special registers without behaviour of their own live in
/// `sr` by number; those the pipeline consults on every instruction have fields.
#[derive(Debug, Clone)]
pub struct CoreState {
    /// Program counter of the next instruction.
    pub pc: u32,
    /// Physical address registers (64 on ncore2gp, 32 on dc233c; the rest unused).
    pub ar: [u32; 64],
    /// WINDOWBASE (in register groups of 4); change it with [`CoreState::set_windowbase`].
    windowbase: u32,
    /// `windowbase * 4`, kept with it: the physical index of a0.
    base: u32,
    /// `num_aregs - 1`.
    amask: u32,
    /// WINDOWSTART (one bit per group).
    pub windowstart: u32,
    /// PS.
    pub ps: u32,
    /// SAR (6 bits).
    pub sar: u32,
    /// LBEG.
    pub lbeg: u32,
    /// LEND.
    pub lend: u32,
    /// LCOUNT.
    pub lcount: u32,
    /// Every other special register, by number.
    pub sr: [u32; 256],
    /// THREADPTR.
    pub threadptr: u32,
    /// EXPSTATE (dc233c).
    pub expstate: u32,
    /// MAC16 accumulator (40 bits, ACCLO/ACCHI).
    pub acc: u64,
    /// Exclusive-access monitor: the armed address and the value seen (§2.3).
    pub exclusive: Option<(u32, u32)>,
    /// Number of physical address registers.
    pub num_aregs: u32,
}

impl CoreState {
    /// The reset state for `config` on core `prid` (QEMU's reset values where it defines them:
    /// PS 0x1F, WINDOWBASE 0, WINDOWSTART 0, ATOMCTL 0x28, every AR 0).
    pub fn reset(config: &CoreConfig, prid: u32, pc: u32, vecbase: u32) -> Self {
        let mut sr = [0u32; 256];
        sr[sr::VECBASE as usize] = vecbase;
        sr[sr::PRID as usize] = prid;
        sr[sr::ATOMCTL as usize] = 0x28;
        // dc233c's CONFIGID0/1 as QEMU reports them.
        sr[sr::CONFIGID0 as usize] = 0xc567_07fe;
        sr[sr::CONFIGID1 as usize] = 0x1440_4b21;
        sr[90] = if config.has(q7_isa::Options::MMU) {
            0x0403_0201
        } else {
            0
        };
        CoreState {
            pc,
            ar: [0; 64],
            windowbase: 0,
            base: 0,
            amask: (config.num_aregs - 1) & 63,
            windowstart: 0,
            ps: ps::RESET,
            sar: 0,
            lbeg: 0,
            lend: 0,
            lcount: 0,
            sr,
            threadptr: 0,
            expstate: 0,
            acc: 0,
            exclusive: None,
            num_aregs: config.num_aregs,
        }
    }

    /// Physical index of logical register `r` in the current window.
    #[inline]
    pub fn phys(&self, r: u32) -> usize {
        // amask <= 63 lets the compiler drop the bounds check.
        ((self.base + r) & self.amask & 63) as usize
    }

    /// WINDOWBASE.
    #[inline]
    pub fn windowbase(&self) -> u32 {
        self.windowbase
    }

    /// Sets WINDOWBASE (modulo the group count).
    #[inline]
    pub fn set_windowbase(&mut self, wb: u32) {
        self.windowbase = wb & (self.groups() - 1);
        self.base = self.windowbase * 4;
    }

    /// Logical register `r` of the current window.
    #[inline]
    pub fn a(&self, r: u32) -> u32 {
        self.ar[self.phys(r)]
    }

    /// Sets logical register `r` of the current window.
    #[inline]
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
        self.windowstart >> (g & (self.groups() - 1)) & 1 != 0
    }

    /// CWOE: window overflow checks, ENTRY and RETW are enabled (PS.WOE and not PS.EXCM).
    #[inline]
    pub fn cwoe(&self) -> bool {
        self.ps & (ps::WOE | ps::EXCM) == ps::WOE
    }

    /// CRING: EXCM ? 0 : RING.
    #[inline]
    pub fn cring(&self) -> u32 {
        if self.ps & ps::EXCM != 0 {
            0
        } else {
            (self.ps & ps::RING) >> 6
        }
    }
}
