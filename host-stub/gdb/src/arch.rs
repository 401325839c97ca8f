//! The Xtensa register layout q7emu serves: GDB's built-in Xtensa register set (docs/gdb.md
//! "Registers"), 45 32-bit registers in the `g` packet, each in big-endian byte order — GDB's
//! built-in Xtensa target is a big-endian core and decodes register values so whatever
//! `set endian` says (which switches only how it reads instructions from memory; memory is
//! served as the core's little-endian bytes):
//!
//! `pc, ar0..ar31, lbeg, lend, lcount, sar, litbase, windowbase, windowstart, sr176, sr208,
//! ps, threadptr, scompare1`.
//!
//! GDB's register file has 32 ARs and a 3-bit WINDOWBASE; ncore2gp has 64 (`isa/ISA.md` §3).
//! The packet therefore carries a *window view* ([`XtensaRegs::from_state`]): `ar0..ar31` are
//! the 32 physical registers from 16 below the current window's a0 on, with `windowbase = 4`
//! and `windowstart` the matching 8 groups, so that GDB's `a0..a15` (which it computes as
//! `ar[4 * windowbase + i]`) are the current window and `ar0..ar15` the four groups below it,
//! where the callers' frames live. The whole physical file is `monitor regs`.

use q7_emulator::CoreState;
use q7_isa::sreg::{sr, ur};

/// Registers in GDB's view.
pub const AR_VIEW: usize = 32;
/// The WINDOWBASE GDB is shown: the current window is groups 4..7 of the view.
pub const VIEW_WINDOWBASE: u32 = 4;
/// Registers in the `g` packet.
pub const G_REGISTERS: usize = 45;

/// The 45 registers of the `g` packet (module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct XtensaRegs {
    /// PC.
    pub pc: u32,
    /// The window view of the address registers.
    pub ar: [u32; AR_VIEW],
    /// LBEG.
    pub lbeg: u32,
    /// LEND.
    pub lend: u32,
    /// LCOUNT.
    pub lcount: u32,
    /// SAR.
    pub sar: u32,
    /// LITBASE.
    pub litbase: u32,
    /// WINDOWBASE of the view ([`VIEW_WINDOWBASE`]).
    pub windowbase: u32,
    /// WINDOWSTART of the view's 8 groups.
    pub windowstart: u32,
    /// SR 176 (CONFIGID0).
    pub sr176: u32,
    /// SR 208 (CONFIGID1).
    pub sr208: u32,
    /// PS.
    pub ps: u32,
    /// THREADPTR.
    pub threadptr: u32,
    /// SCOMPARE1.
    pub scompare1: u32,
}

/// Where the view starts in the physical file: the physical index of `ar0`.
fn view_base(state: &CoreState) -> u32 {
    let n = state.num_aregs;
    (state.windowbase() * 4 + n - 4 * VIEW_WINDOWBASE) % n
}

/// The physical group of view group `j` (0..8).
fn view_group(state: &CoreState, j: u32) -> u32 {
    let groups = state.num_aregs / 4;
    (state.windowbase() + groups - VIEW_WINDOWBASE + j) % groups
}

impl XtensaRegs {
    /// The registers of `state` in GDB's view.
    pub fn from_state(state: &CoreState) -> XtensaRegs {
        let n = state.num_aregs;
        let base = view_base(state);
        let ws = state.windowstart();
        let windowstart = (0..AR_VIEW as u32 / 4)
            .filter(|&j| ws >> view_group(state, j) & 1 != 0)
            .fold(0, |w, j| w | 1 << j);
        XtensaRegs {
            pc: state.pc,
            ar: std::array::from_fn(|k| state.ar[((base + k as u32) % n) as usize]),
            lbeg: state.lbeg(),
            lend: state.lend(),
            lcount: state.lcount(),
            sar: state.sar(),
            litbase: state.sr(sr::LITBASE),
            windowbase: VIEW_WINDOWBASE,
            windowstart,
            sr176: state.sr(sr::CONFIGID0),
            sr208: state.sr(sr::CONFIGID1),
            ps: state.ps(),
            threadptr: state.ur(ur::THREADPTR),
            scompare1: state.sr(sr::SCOMPARE1),
        }
    }

    /// Writes what GDB changed back into `state` (the view's inverse; SR 176 and 208 are
    /// read-only and ignored). A changed `windowbase` moves the physical WINDOWBASE by the
    /// same number of groups. The caller refreshes the core afterwards.
    pub fn write_to(&self, state: &mut CoreState) {
        let old = XtensaRegs::from_state(state);
        let n = state.num_aregs;
        let base = view_base(state);
        for (k, &v) in self.ar.iter().enumerate() {
            state.ar[((base + k as u32) % n) as usize] = v;
        }
        if self.windowstart != old.windowstart {
            let mut ws = state.windowstart();
            for j in 0..AR_VIEW as u32 / 4 {
                let g = view_group(state, j);
                ws = (ws & !(1 << g)) | ((self.windowstart >> j & 1) << g);
            }
            state.set_sr(sr::WINDOWSTART, ws);
        }
        state.pc = self.pc;
        let set = |state: &mut CoreState, n: u8, new: u32, old: u32| {
            if new != old {
                state.set_sr(n, new);
            }
        };
        set(state, sr::LBEG, self.lbeg, old.lbeg);
        set(state, sr::LEND, self.lend, old.lend);
        set(state, sr::LCOUNT, self.lcount, old.lcount);
        set(state, sr::SAR, self.sar, old.sar);
        set(state, sr::LITBASE, self.litbase, old.litbase);
        set(state, sr::PS, self.ps, old.ps);
        set(state, sr::SCOMPARE1, self.scompare1, old.scompare1);
        if self.threadptr != old.threadptr {
            *state.ur_mut(ur::THREADPTR) = self.threadptr;
        }
        if self.windowbase != old.windowbase {
            let moved = self.windowbase.wrapping_sub(VIEW_WINDOWBASE);
            state.set_windowbase(state.windowbase().wrapping_add(moved));
        }
    }

    /// The registers in the `g` packet's order.
    pub fn words(&self) -> [u32; G_REGISTERS] {
        let mut w = [0; G_REGISTERS];
        w[0] = self.pc;
        w[1..33].copy_from_slice(&self.ar);
        w[33..].copy_from_slice(&[
            self.lbeg,
            self.lend,
            self.lcount,
            self.sar,
            self.litbase,
            self.windowbase,
            self.windowstart,
            self.sr176,
            self.sr208,
            self.ps,
            self.threadptr,
            self.scompare1,
        ]);
        w
    }

    /// The registers from words in the `g` packet's order.
    pub fn from_words(w: &[u32; G_REGISTERS]) -> XtensaRegs {
        XtensaRegs {
            pc: w[0],
            ar: std::array::from_fn(|k| w[1 + k]),
            lbeg: w[33],
            lend: w[34],
            lcount: w[35],
            sar: w[36],
            litbase: w[37],
            windowbase: w[38],
            windowstart: w[39],
            sr176: w[40],
            sr208: w[41],
            ps: w[42],
            threadptr: w[43],
            scompare1: w[44],
        }
    }

    /// The `g` packet's bytes: each word big-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words().iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    /// The registers from the `g` packet's bytes, `None` unless there are exactly
    /// [`G_REGISTERS`] × 4 of them.
    pub fn from_bytes(bytes: &[u8]) -> Option<XtensaRegs> {
        if bytes.len() != G_REGISTERS * 4 {
            return None;
        }
        let w: [u32; G_REGISTERS] = std::array::from_fn(|k| {
            u32::from_be_bytes(bytes[4 * k..4 * k + 4].try_into().expect("4 bytes"))
        });
        Some(XtensaRegs::from_words(&w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gdbs_a0_to_a15_are_the_current_window_for_every_windowbase() {
        for config in [&q7_isa::NCORE2GP, &q7_isa::DC233C] {
            let mut s = CoreState::reset(config, 0, 0x1000, 0);
            for (i, r) in s.ar.iter_mut().enumerate() {
                *r = 0x100 + i as u32;
            }
            for wb in 0..config.num_aregs / 4 {
                s.set_windowbase(wb);
                s.set_sr(
                    sr::WINDOWSTART,
                    1 << wb | 1 << ((wb + 1) % (config.num_aregs / 4)),
                );
                let g = XtensaRegs::from_state(&s);
                let a: Vec<u32> = (0..16)
                    .map(|i| g.ar[(4 * g.windowbase + i) as usize])
                    .collect();
                assert_eq!(a, s.window(), "{} WINDOWBASE {wb}", config.name);
                assert_eq!(
                    g.windowstart,
                    1 << 4 | 1 << 5,
                    "{} WINDOWBASE {wb}",
                    config.name
                );
                // Written back unchanged, the state is unchanged; a2 written lands in a2.
                let mut changed = g.clone();
                changed.ar[4 * 4 + 2] = 0xdead;
                let mut t = s.clone();
                changed.write_to(&mut t);
                assert_eq!(
                    (t.a(2), t.windowbase(), t.windowstart()),
                    (0xdead, s.windowbase(), s.windowstart())
                );
            }
        }
    }

    #[test]
    fn the_g_packet_is_45_big_endian_words_in_gdbs_order() {
        let regs = XtensaRegs {
            pc: 0x0403_0201,
            ps: 0x11,
            scompare1: 0xaabb_ccdd,
            ..XtensaRegs::default()
        };
        let bytes = regs.to_bytes();
        assert_eq!(bytes.len(), 180);
        assert_eq!(&bytes[..4], &[4, 3, 2, 1]);
        assert_eq!(bytes[42 * 4 + 3], 0x11, "ps is register 42");
        assert_eq!(
            &bytes[176..],
            &[0xaa, 0xbb, 0xcc, 0xdd],
            "scompare1 is the last"
        );
        assert_eq!(XtensaRegs::from_bytes(&bytes), Some(regs));
        let w: [u32; G_REGISTERS] = std::array::from_fn(|k| k as u32 + 1);
        assert_eq!(
            XtensaRegs::from_words(&w).words(),
            w,
            "every word in its place"
        );
        assert_eq!(XtensaRegs::from_bytes(&bytes[..176]), None, "a short G");
    }
}
