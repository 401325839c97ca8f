//! Special registers (RSR/WSR/XSR) and user registers (RUR/WUR): one row per register holds
//! everything known about it — number, name (as GNU binutils prints it), the instructions that
//! may name it, the option that provides it, whether naming it is privileged, how a write
//! changes it, its reset value and where its value is stored. Decode text, the emulator's
//! register instructions, reset, reports and traces all read these rows; the constants of
//! [`sr`] and [`ur`] are generated from the same rows.
//!
//! A number can carry different names per access (SR 226 reads as `interrupt`, writes as
//! `intset`) and, across profiles, different registers (SR 90 is RASID with an MMU and MPUENB
//! with an MPU). Rows are therefore (number, name, access, options); decode picks the row that
//! the configuration has, and the instruction keeps the row index.

use crate::config::{CoreConfig, Options};

bitflags::bitflags! {
    /// Which of RSR (read), WSR (write) and XSR (exchange) may name a register.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Access: u8 {
        /// RSR / RUR.
        const READ = 1;
        /// WSR / WUR.
        const WRITE = 2;
        /// XSR.
        const EXCHANGE = 4;
    }
}

/// LITBASE (Extended L32R, isa/ISA.md "§2.1 Operand decoding").
pub mod litbase {
    /// Bit 0: L32R reads relative to LITBASE.
    pub const ENABLE: u32 = 1;
    /// Bits 31:12: the literal page.
    pub const PAGE: u32 = 0xffff_f000;

    /// The address L32R at `pc` loads from with LITBASE = `litbase`, `plain` being its address
    /// without LITBASE: the same negative offset from LITBASE's page when it is enabled.
    pub fn literal_address(litbase: u32, pc: u32, plain: u32) -> u32 {
        if litbase & ENABLE == 0 {
            return plain;
        }
        let off = plain.wrapping_sub(pc.wrapping_add(3) & !3);
        (litbase & PAGE).wrapping_add(off)
    }
}

/// PS fields (XEA2 layout).
pub mod ps {
    /// INTLEVEL, bits 3:0.
    pub const INTLEVEL: u32 = 0xf;
    /// EXCM, bit 4.
    pub const EXCM: u32 = 1 << 4;
    /// UM, bit 5.
    pub const UM: u32 = 1 << 5;
    /// Shift of RING.
    pub const RING_SHIFT: u32 = 6;
    /// RING, bits 7:6 (present with the MMU).
    pub const RING: u32 = 3 << RING_SHIFT;
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
    /// The fields every core with the exception option has (RING needs the MMU).
    pub const WRITABLE: u32 = WOE | CALLINC | OWB | UM | EXCM | INTLEVEL;
    /// Reset value: INTLEVEL 15, EXCM 1 (as QEMU resets it).
    pub const RESET: u32 = 0x1f;
}

/// Where a register's value lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Storage {
    /// A state word of its own, indexed by the register number.
    Own,
    /// The state word of another register, by number (INTCLEAR clears bits of INTERRUPT's).
    WordOf(u8),
    /// Not stored: derived from the core's cycle count (CCOUNT); a write moves the count.
    CycleCount,
}

/// How a write (WSR, XSR, WUR) turns the written value into the register's new value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Write {
    /// Not writable (RSR / RUR only).
    ReadOnly,
    /// The written bits within `bits`, plus those within `extra` when the core has `with`; the
    /// other bits read as 0.
    Masked {
        /// Bits every core keeps.
        bits: u32,
        /// Bits kept only with option `with`.
        extra: u32,
        /// The option that provides `extra`.
        with: Options,
    },
    /// A register-group index: the value modulo the number of groups (WINDOWBASE).
    GroupIndex,
    /// One bit per register group (WINDOWSTART).
    GroupBits,
    /// The low 8 bits, sign-extended (ACCHI holds accumulator bits 39:32).
    SignExtend8,
    /// Sets the written bits, keeping the others (INTSET).
    SetBits,
    /// Clears the written bits, keeping the others (INTCLEAR).
    ClearBits,
}

impl Write {
    /// Every bit written as given.
    pub const ALL: Write = Write::bits(u32::MAX);

    /// Keeps the bits of `bits` on every core.
    pub const fn bits(bits: u32) -> Write {
        Write::Masked {
            bits,
            extra: 0,
            with: Options::BASE,
        }
    }

    /// The register's value after writing `value` over `old` on a core of `config`.
    pub fn apply(self, old: u32, value: u32, config: &CoreConfig) -> u32 {
        let groups = config.num_aregs / 4;
        match self {
            Write::ReadOnly => old,
            Write::Masked { bits, extra, with } => {
                value & (bits | if config.has(with) { extra } else { 0 })
            }
            Write::GroupIndex => value & (groups - 1),
            Write::GroupBits => value & ((1 << groups) - 1),
            Write::SignExtend8 => value as u8 as i8 as i32 as u32,
            Write::SetBits => old | value,
            Write::ClearBits => old & !value,
        }
    }
}

/// A register's value at reset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reset {
    /// A fixed value.
    Value(u32),
    /// The core's number (PRID).
    CoreId,
    /// The configuration's reset vector base (VECBASE), given when the core is made.
    VectorBase,
}

impl Reset {
    /// The value for core `core_id` with reset vector base `vecbase`.
    pub fn value(self, core_id: u32, vecbase: u32) -> u32 {
        match self {
            Reset::Value(v) => v,
            Reset::CoreId => core_id,
            Reset::VectorBase => vecbase,
        }
    }
}

/// One register: one row of [`SPECIAL_REGISTERS`] or [`USER_REGISTERS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegisterInfo {
    /// Register number (`sr` field, or user-register number).
    pub number: u8,
    /// Lower-case name as it appears after `rsr.`/`wsr.`/`xsr.`/`rur.`/`wur.`.
    pub name: &'static str,
    /// Instructions that may name it.
    pub access: Access,
    /// Options the core needs for the register to exist.
    pub options: Options,
    /// Whether naming it needs ring 0 (special registers 64..255; no user register).
    pub privileged: bool,
    /// Where its value lives.
    pub storage: Storage,
    /// How a write changes it.
    pub write: Write,
    /// Its value at reset.
    pub reset: Reset,
}

impl RegisterInfo {
    /// The state word that holds the value (its own number unless shared), or `None` for a
    /// register derived from the cycle count.
    pub fn word(&self) -> Option<u8> {
        match self.storage {
            Storage::Own => Some(self.number),
            Storage::WordOf(n) => Some(n),
            Storage::CycleCount => None,
        }
    }
}

// Shorthands for the columns of the tables below.
const R: Access = Access::READ;
const W: Access = Access::WRITE;
const RW: Access = Access::READ.union(Access::WRITE);
const RWX: Access = Access::READ.union(Access::WRITE).union(Access::EXCHANGE);

const OWN: Storage = Storage::Own;
const CYCLES: Storage = Storage::CycleCount;
const RO: Write = Write::ReadOnly;
const ALL: Write = Write::ALL;
const SEXT8: Write = Write::SignExtend8;
const GROUP_INDEX: Write = Write::GroupIndex;
const GROUP_BITS: Write = Write::GroupBits;
const SET_BITS: Write = Write::SetBits;
const CLEAR_BITS: Write = Write::ClearBits;
const VECTOR_BASE: Reset = Reset::VectorBase;
const CORE_ID: Reset = Reset::CoreId;

const fn of(number: u8) -> Storage {
    Storage::WordOf(number)
}

const fn bits(bits: u32) -> Write {
    Write::bits(bits)
}

const fn bits_with(bits: u32, with: Options, extra: u32) -> Write {
    Write::Masked { bits, extra, with }
}

/// ATOMCTL: bits 5:0, and 9:6 with exclusive access.
const ATOMCTL_WRITE: Write = bits_with(0x3f, Options::EXCLUSIVE, 0x3c0);
/// PS: every field, RING only with the MMU.
const PS_WRITE: Write = bits_with(ps::WRITABLE, Options::MMU, ps::RING);

const fn val(v: u32) -> Reset {
    Reset::Value(v)
}

macro_rules! registers {
    (
        $(#[$meta:meta])* $table:ident,
        $(#[$mmeta:meta])* mod $consts:ident,
        privileged from $first:literal;
        $($num:literal $konst:ident $name:literal $acc:ident [$($opt:ident)|+]
            $store:expr, $write:expr, $reset:expr;)*
    ) => {
        $(#[$meta])*
        pub static $table: &[RegisterInfo] = &[$(RegisterInfo {
            number: $num,
            name: $name,
            access: $acc,
            options: Options::BASE$(.union(Options::$opt))+,
            privileged: $num >= $first,
            storage: $store,
            write: $write,
            reset: $reset,
        }),*];

        $(#[$mmeta])*
        pub mod $consts {
            $(
                #[doc = concat!("`", $name, "` (", stringify!($num), ").")]
                pub const $konst: u8 = $num;
            )*
        }
    };
}

registers! {
    /// Special registers, numbered as in XEA2 plus ncore2gp's ISL/KSL. Numbers 64..255 are
    /// privileged.
    SPECIAL_REGISTERS,
    /// Special-register numbers by name, from [`SPECIAL_REGISTERS`].
    mod sr,
    privileged from 64;
//  no. constant     name           acc options         storage  write             reset
    0   LBEG         "lbeg"         RWX [LOOPS]         OWN,     ALL,              val(0);
    1   LEND         "lend"         RWX [LOOPS]         OWN,     ALL,              val(0);
    2   LCOUNT       "lcount"       RWX [LOOPS]         OWN,     ALL,              val(0);
    3   SAR          "sar"          RWX [BASE]          OWN,     bits(0x3f),       val(0);
    4   BR           "br"           RWX [BOOLEAN]       OWN,     bits(0xffff),     val(0);
    5   LITBASE      "litbase"      RWX [EXTENDED_L32R] OWN,     bits(0xfffff001), val(0);
    12  SCOMPARE1    "scompare1"    RWX [S32C1I]        OWN,     ALL,              val(0);
    16  ACCLO        "acclo"        RWX [MAC16]         OWN,     ALL,              val(0);
    17  ACCHI        "acchi"        RWX [MAC16]         OWN,     SEXT8,            val(0);
    32  M0           "m0"           RWX [MAC16]         OWN,     ALL,              val(0);
    33  M1           "m1"           RWX [MAC16]         OWN,     ALL,              val(0);
    34  M2           "m2"           RWX [MAC16]         OWN,     ALL,              val(0);
    35  M3           "m3"           RWX [MAC16]         OWN,     ALL,              val(0);
    40  PREFCTL      "prefctl"      RWX [MEMCTL]        OWN,     ALL,              val(0);
    72  WINDOWBASE   "windowbase"   RWX [WINDOWED]      OWN,     GROUP_INDEX,      val(0);
    73  WINDOWSTART  "windowstart"  RWX [WINDOWED]      OWN,     GROUP_BITS,       val(0);
    83  PTEVADDR     "ptevaddr"     RWX [MMU]           OWN,     ALL,              val(0);
    89  MMID         "mmid"         W   [TRACE_PORT]    OWN,     ALL,              val(0);
    90  RASID        "rasid"        RWX [MMU]           OWN,     ALL,              val(0x04030201);
    90  MPUENB       "mpuenb"       RWX [MPU]           OWN,     ALL,              val(0);
    91  ITLBCFG      "itlbcfg"      RWX [MMU]           OWN,     ALL,              val(0);
    92  DTLBCFG      "dtlbcfg"      RWX [MMU]           OWN,     ALL,              val(0);
    92  MPUCFG       "mpucfg"       R   [MPU]           OWN,     RO,               val(0);
    96  IBREAKENABLE "ibreakenable" RWX [DEBUG]         OWN,     bits(0x3),        val(0);
    97  MEMCTL       "memctl"       RWX [MEMCTL]        OWN,     ALL,              val(0);
    99  ATOMCTL      "atomctl"      RWX [ATOMCTL]       OWN,     ATOMCTL_WRITE,    val(0x28);
    104 DDR          "ddr"          RWX [DEBUG]         OWN,     ALL,              val(0);
    128 IBREAKA0     "ibreaka0"     RWX [DEBUG]         OWN,     ALL,              val(0);
    129 IBREAKA1     "ibreaka1"     RWX [DEBUG]         OWN,     ALL,              val(0);
    144 DBREAKA0     "dbreaka0"     RWX [DEBUG]         OWN,     ALL,              val(0);
    145 DBREAKA1     "dbreaka1"     RWX [DEBUG]         OWN,     ALL,              val(0);
    160 DBREAKC0     "dbreakc0"     RWX [DEBUG]         OWN,     ALL,              val(0);
    161 DBREAKC1     "dbreakc1"     RWX [DEBUG]         OWN,     ALL,              val(0);
    // dc233c's CONFIGID0/1, named by number as binutils prints them; values as QEMU reports.
    176 CONFIGID0    "176"          RW  [CONFIG_ID]     OWN,     ALL,              val(0xc56707fe);
    177 EPC1         "epc1"         RWX [EXCEPTIONS]    OWN,     ALL,              val(0);
    178 EPC2         "epc2"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    179 EPC3         "epc3"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    180 EPC4         "epc4"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    181 EPC5         "epc5"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    182 EPC6         "epc6"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    183 EPC7         "epc7"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    192 DEPC         "depc"         RWX [EXCEPTIONS]    OWN,     ALL,              val(0);
    194 EPS2         "eps2"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    195 EPS3         "eps3"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    196 EPS4         "eps4"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    197 EPS5         "eps5"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    198 EPS6         "eps6"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    199 EPS7         "eps7"         RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    208 CONFIGID1    "208"          R   [CONFIG_ID]     OWN,     RO,               val(0x14404b21);
    209 EXCSAVE1     "excsave1"     RWX [EXCEPTIONS]    OWN,     ALL,              val(0);
    210 EXCSAVE2     "excsave2"     RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    211 EXCSAVE3     "excsave3"     RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    212 EXCSAVE4     "excsave4"     RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    213 EXCSAVE5     "excsave5"     RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    214 EXCSAVE6     "excsave6"     RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    215 EXCSAVE7     "excsave7"     RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    224 CPENABLE     "cpenable"     RWX [COPROCESSORS]  OWN,     bits(0xff),       val(0);
    226 INTERRUPT    "interrupt"    R   [INTERRUPTS]    OWN,     RO,               val(0);
    226 INTSET       "intset"       W   [INTERRUPTS]    OWN,     SET_BITS,         val(0);
    227 INTCLEAR     "intclear"     W   [INTERRUPTS]    of(226), CLEAR_BITS,       val(0);
    228 INTENABLE    "intenable"    RWX [INTERRUPTS]    OWN,     ALL,              val(0);
    230 PS           "ps"           RWX [EXCEPTIONS]    OWN,     PS_WRITE,         val(ps::RESET);
    231 VECBASE      "vecbase"      RWX [EXCEPTIONS]    OWN,     ALL,              VECTOR_BASE;
    232 EXCCAUSE     "exccause"     RWX [EXCEPTIONS]    OWN,     ALL,              val(0);
    233 DEBUGCAUSE   "debugcause"   RWX [DEBUG]         OWN,     ALL,              val(0);
    234 CCOUNT       "ccount"       RWX [TIMERS]        CYCLES,  ALL,              val(0);
    235 PRID         "prid"         R   [PRID]          OWN,     RO,               CORE_ID;
    236 ICOUNT       "icount"       RWX [DEBUG]         OWN,     ALL,              val(0);
    237 ICOUNTLEVEL  "icountlevel"  RWX [DEBUG]         OWN,     bits(0xf),        val(0);
    238 EXCVADDR     "excvaddr"     RWX [EXCEPTIONS]    OWN,     ALL,              val(0);
    240 CCOMPARE0    "ccompare0"    RWX [TIMERS]        OWN,     ALL,              val(0);
    241 CCOMPARE1    "ccompare1"    RWX [TIMERS]        OWN,     ALL,              val(0);
    242 CCOMPARE2    "ccompare2"    RWX [TIMERS]        OWN,     ALL,              val(0);
    244 MISC0        "misc0"        RWX [MISC_SR_0_1]   OWN,     ALL,              val(0);
    245 MISC1        "misc1"        RWX [MISC_SR_0_1]   OWN,     ALL,              val(0);
    246 MISC2        "misc2"        RWX [MISC_SR_2_3]   OWN,     ALL,              val(0);
    247 MISC3        "misc3"        RWX [MISC_SR_2_3]   OWN,     ALL,              val(0);
    248 ISL          "isl"          RWX [STACK_LIMIT]   OWN,     ALL,              val(0);
    249 KSL          "ksl"          RWX [STACK_LIMIT]   OWN,     ALL,              val(0);
}

registers! {
    /// User registers (RUR/WUR): THREADPTR and dc233c's example TIE state EXPSTATE. None is
    /// privileged.
    USER_REGISTERS,
    /// User-register numbers by name, from [`USER_REGISTERS`].
    mod ur,
    privileged from 256;
//  no. constant     name           acc options         storage  write             reset
    230 EXPSTATE     "expstate"     RW  [EXPSTATE_TIE]  OWN,     ALL,              val(0);
    231 THREADPTR    "threadptr"    RW  [THREADPTR]     OWN,     ALL,              val(0);
}

/// Index into `table` of the register `number` that `config` has with `access`.
pub(crate) fn lookup(
    table: &[RegisterInfo],
    number: u32,
    access: Access,
    config: &CoreConfig,
) -> Option<usize> {
    table.iter().position(|r| {
        u32::from(r.number) == number && r.access.contains(access) && config.has(r.options)
    })
}

/// The special register `number` that `config` has with `access`, if any.
pub fn special(number: u8, access: Access, config: &CoreConfig) -> Option<&'static RegisterInfo> {
    lookup(SPECIAL_REGISTERS, number.into(), access, config).map(|i| &SPECIAL_REGISTERS[i])
}

/// The user register `number` that `config` has with `access`, if any.
pub fn user(number: u8, access: Access, config: &CoreConfig) -> Option<&'static RegisterInfo> {
    lookup(USER_REGISTERS, number.into(), access, config).map(|i| &USER_REGISTERS[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DC233C, NCORE2GP};

    #[test]
    fn constants_name_their_rows() {
        for (table, konst) in [
            (SPECIAL_REGISTERS, sr::PS),
            (SPECIAL_REGISTERS, sr::WINDOWBASE),
            (USER_REGISTERS, ur::THREADPTR),
        ] {
            assert!(table.iter().any(|r| r.number == konst));
        }
        assert_eq!(
            (sr::LBEG, sr::SAR, sr::PS, sr::CCOUNT, sr::ISL, sr::KSL),
            (0, 3, 230, 234, 248, 249)
        );
        assert_eq!((ur::EXPSTATE, ur::THREADPTR), (230, 231));
    }

    #[test]
    fn privilege_is_numbers_64_and_up_for_special_registers_only() {
        for r in SPECIAL_REGISTERS {
            assert_eq!(r.privileged, r.number >= 64, "{}", r.name);
        }
        assert!(USER_REGISTERS.iter().all(|r| !r.privileged));
    }

    #[test]
    fn a_register_is_writable_exactly_when_an_instruction_may_write_it() {
        for r in SPECIAL_REGISTERS.iter().chain(USER_REGISTERS) {
            assert_eq!(
                r.write == Write::ReadOnly,
                !r.access.contains(Access::WRITE),
                "{}",
                r.name
            );
        }
    }

    #[test]
    fn write_rules_keep_exactly_the_architectural_bits() {
        let w = |name: &str, config: &CoreConfig, old: u32, v: u32| {
            let row = SPECIAL_REGISTERS.iter().find(|r| r.name == name).unwrap();
            row.write.apply(old, v, config)
        };
        assert_eq!(w("sar", &DC233C, 0, u32::MAX), 0x3f);
        assert_eq!(w("litbase", &DC233C, 0, u32::MAX), 0xffff_f001);
        assert_eq!(w("acchi", &DC233C, 0, 0x180), 0xffff_ff80);
        assert_eq!(w("acchi", &DC233C, 0, 0x17f), 0x7f);
        assert_eq!(w("atomctl", &DC233C, 0, u32::MAX), 0x3f);
        assert_eq!(w("atomctl", &NCORE2GP, 0, u32::MAX), 0x3ff);
        assert_eq!(w("ps", &DC233C, 0, u32::MAX), 0x7_0fff, "RING with the MMU");
        assert_eq!(w("ps", &NCORE2GP, 0, u32::MAX), 0x7_0f3f, "no RING without");
        assert_eq!(w("windowbase", &DC233C, 0, 9), 1, "8 groups of 32 AR");
        assert_eq!(w("windowbase", &NCORE2GP, 0, 17), 1, "16 groups of 64 AR");
        assert_eq!(w("windowstart", &DC233C, 0, u32::MAX), 0xff);
        assert_eq!(w("windowstart", &NCORE2GP, 0, u32::MAX), 0xffff);
        assert_eq!(w("intset", &DC233C, 0b0101, 0b0010), 0b0111);
        assert_eq!(w("intclear", &DC233C, 0b0111, 0b0010), 0b0101);
        assert_eq!(w("prid", &DC233C, 7, 9), 7, "read-only");
        assert_eq!(w("excsave1", &DC233C, 0, 0xdead_beef), 0xdead_beef);
    }

    #[test]
    fn storage_words_and_reset_values() {
        let row = |name: &str| *SPECIAL_REGISTERS.iter().find(|r| r.name == name).unwrap();
        assert_eq!(row("intclear").word(), Some(sr::INTERRUPT));
        assert_eq!(row("intset").word(), Some(sr::INTERRUPT));
        assert_eq!(row("ccount").word(), None);
        assert_eq!(row("ps").word(), Some(230));
        assert_eq!(row("ps").reset.value(3, 0x2000), 0x1f);
        assert_eq!(row("atomctl").reset.value(3, 0x2000), 0x28);
        assert_eq!(row("rasid").reset.value(3, 0x2000), 0x0403_0201);
        assert_eq!(row("prid").reset.value(3, 0x2000), 3);
        assert_eq!(row("vecbase").reset.value(3, 0x2000), 0x2000);
    }

    #[test]
    fn lookup_picks_the_row_the_profile_has_and_refuses_unknown_numbers() {
        let read = Access::READ;
        assert_eq!(special(90, read, &DC233C).map(|r| r.name), Some("rasid"));
        assert_eq!(special(90, read, &NCORE2GP).map(|r| r.name), Some("mpuenb"));
        assert_eq!(
            special(226, read, &DC233C).map(|r| r.name),
            Some("interrupt")
        );
        assert_eq!(
            special(226, Access::WRITE, &DC233C).map(|r| r.name),
            Some("intset")
        );
        assert_eq!(special(6, read, &DC233C), None);
        assert_eq!(
            user(231, read, &NCORE2GP).map(|r| r.name),
            Some("threadptr")
        );
        assert_eq!(user(230, read, &NCORE2GP), None, "no EXPSTATE on ncore2gp");
        assert_eq!(user(0, read, &DC233C), None);
    }
}
