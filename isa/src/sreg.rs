//! Special registers (RSR/WSR/XSR) and user registers (RUR/WUR): numbers, names, access and the
//! option that provides each (reference/xtensa-isa.md §4.1; names as GNU binutils prints them).
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

const R: Access = Access::READ;
const W: Access = Access::WRITE;
const RW: Access = Access::READ.union(Access::WRITE);
const RWX: Access = Access::READ.union(Access::WRITE).union(Access::EXCHANGE);

/// One row of a register-name table.
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
}

macro_rules! regs {
    ($($num:literal $name:literal $acc:ident $($opt:ident)|+;)*) => {
        &[$(RegisterInfo {
            number: $num,
            name: $name,
            access: $acc,
            options: Options::BASE$(.union(Options::$opt))+,
        }),*]
    };
}

/// Special registers, numbered as in XEA2 (§4.1) plus ncore2gp's ISL/KSL (§9.3).
pub static SPECIAL_REGISTERS: &[RegisterInfo] = regs! {
    0 "lbeg" RWX LOOPS;
    1 "lend" RWX LOOPS;
    2 "lcount" RWX LOOPS;
    3 "sar" RWX BASE;
    4 "br" RWX BOOLEAN;
    5 "litbase" RWX EXTENDED_L32R;
    12 "scompare1" RWX S32C1I;
    16 "acclo" RWX MAC16;
    17 "acchi" RWX MAC16;
    32 "m0" RWX MAC16;
    33 "m1" RWX MAC16;
    34 "m2" RWX MAC16;
    35 "m3" RWX MAC16;
    40 "prefctl" RWX MEMCTL;
    72 "windowbase" RWX WINDOWED;
    73 "windowstart" RWX WINDOWED;
    83 "ptevaddr" RWX MMU;
    89 "mmid" W TRACE_PORT;
    90 "rasid" RWX MMU;
    90 "mpuenb" RWX MPU;
    91 "itlbcfg" RWX MMU;
    92 "dtlbcfg" RWX MMU;
    92 "mpucfg" R MPU;
    96 "ibreakenable" RWX DEBUG;
    97 "memctl" RWX MEMCTL;
    99 "atomctl" RWX ATOMCTL;
    104 "ddr" RWX DEBUG;
    128 "ibreaka0" RWX DEBUG;
    129 "ibreaka1" RWX DEBUG;
    144 "dbreaka0" RWX DEBUG;
    145 "dbreaka1" RWX DEBUG;
    160 "dbreakc0" RWX DEBUG;
    161 "dbreakc1" RWX DEBUG;
    176 "176" RW CONFIG_ID;
    177 "epc1" RWX EXCEPTIONS;
    178 "epc2" RWX INTERRUPTS;
    179 "epc3" RWX INTERRUPTS;
    180 "epc4" RWX INTERRUPTS;
    181 "epc5" RWX INTERRUPTS;
    182 "epc6" RWX INTERRUPTS;
    183 "epc7" RWX INTERRUPTS;
    192 "depc" RWX EXCEPTIONS;
    194 "eps2" RWX INTERRUPTS;
    195 "eps3" RWX INTERRUPTS;
    196 "eps4" RWX INTERRUPTS;
    197 "eps5" RWX INTERRUPTS;
    198 "eps6" RWX INTERRUPTS;
    199 "eps7" RWX INTERRUPTS;
    208 "208" R CONFIG_ID;
    209 "excsave1" RWX EXCEPTIONS;
    210 "excsave2" RWX INTERRUPTS;
    211 "excsave3" RWX INTERRUPTS;
    212 "excsave4" RWX INTERRUPTS;
    213 "excsave5" RWX INTERRUPTS;
    214 "excsave6" RWX INTERRUPTS;
    215 "excsave7" RWX INTERRUPTS;
    224 "cpenable" RWX COPROCESSORS;
    226 "interrupt" R INTERRUPTS;
    226 "intset" W INTERRUPTS;
    227 "intclear" W INTERRUPTS;
    228 "intenable" RWX INTERRUPTS;
    230 "ps" RWX EXCEPTIONS;
    231 "vecbase" RWX EXCEPTIONS;
    232 "exccause" RWX EXCEPTIONS;
    233 "debugcause" RWX DEBUG;
    234 "ccount" RWX TIMERS;
    235 "prid" R PRID;
    236 "icount" RWX DEBUG;
    237 "icountlevel" RWX DEBUG;
    238 "excvaddr" RWX EXCEPTIONS;
    240 "ccompare0" RWX TIMERS;
    241 "ccompare1" RWX TIMERS;
    242 "ccompare2" RWX TIMERS;
    244 "misc0" RWX MISC_SR_0_1;
    245 "misc1" RWX MISC_SR_0_1;
    246 "misc2" RWX MISC_SR_2_3;
    247 "misc3" RWX MISC_SR_2_3;
    248 "isl" RWX STACK_LIMIT;
    249 "ksl" RWX STACK_LIMIT;
};

/// User registers (RUR/WUR): THREADPTR (231) and dc233c's EXPSTATE (230) (§4).
pub static USER_REGISTERS: &[RegisterInfo] = regs! {
    230 "expstate" RW EXPSTATE_TIE;
    231 "threadptr" RW THREADPTR;
};

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

/// Special-register number of a well-known name, for code that names registers (assemblers,
/// the emulator's state model). Searches every row regardless of profile.
pub fn special_register_number(name: &str) -> Option<u8> {
    SPECIAL_REGISTERS
        .iter()
        .find(|r| r.name == name)
        .map(|r| r.number)
}
