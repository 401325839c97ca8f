//! Core configurations: which ISA options a core has (isa/ISA.md §0, §2).
//!
//! Every opcode row and every special register carries the [`Options`] it needs; a
//! [`CoreConfig`] decodes exactly the rows whose options it has. Two profiles exist:
//! [`NCORE2GP`] (the Vision-Q7 POOL core the emulator models) and [`DC233C`] (what QEMU's and
//! the GNU toolchain's dc233c core has, used for oracle comparisons).

use std::fmt;
use std::sync::OnceLock;

bitflags::bitflags! {
    /// ISA options of a core configuration. An opcode or special register is present when all
    /// of its required options are present.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Options: u64 {
        /// Code Density option: the 16-bit `.n` forms (op0 8..13).
        const DENSITY = 1 << 0;
        /// Windowed registers: ENTRY, RETW, CALL8/CALLX8, MOVSP, ROTW, L32E/S32E, RFWO/RFWU.
        const WINDOWED = 1 << 1;
        /// CALL4/CALL12/CALLX4/CALLX12 (absent on ncore2gp: `XCHAL_HAVE_CALL4AND12 0`, §0).
        const WINDOWED_CALL4_CALL12 = 1 << 2;
        /// Zero-overhead loops (LOOP, LOOPNEZ, LOOPGTZ; LBEG/LEND/LCOUNT).
        const LOOPS = 1 << 3;
        /// MUL16U/MUL16S.
        const MUL16 = 1 << 4;
        /// MULL.
        const MUL32 = 1 << 5;
        /// MULUH/MULSH.
        const MUL32_HIGH = 1 << 6;
        /// QUOS/QUOU/REMS/REMU.
        const DIV32 = 1 << 7;
        /// NSA/NSAU.
        const NSA = 1 << 8;
        /// MIN/MAX/MINU/MAXU.
        const MINMAX = 1 << 9;
        /// SEXT.
        const SEXT = 1 << 10;
        /// CLAMPS.
        const CLAMPS = 1 << 11;
        /// Boolean registers (BR) and their instructions.
        const BOOLEAN = 1 << 12;
        /// S32C1I and SCOMPARE1 (absent on ncore2gp).
        const S32C1I = 1 << 13;
        /// Exclusive access: L32EX/S32EX/GETEX/CLREX (ncore2gp, §2.3).
        const EXCLUSIVE = 1 << 14;
        /// L32AI/S32RI.
        const ACQUIRE_RELEASE = 1 << 15;
        /// CONST16 (op0 = 4; exclusive with MAC16).
        const CONST16 = 1 << 16;
        /// MAC16 multiply-accumulate (op0 = 4; ACCLO/ACCHI, M0..M3).
        const MAC16 = 1 << 17;
        /// THREADPTR user register (RUR/WUR 231).
        const THREADPTR = 1 << 18;
        /// SALT/SALTU.
        const SALT = 1 << 19;
        /// S32NB non-buffered store.
        const S32NB = 1 << 20;
        /// Exception option: RFE, RFDE, SYSCALL, EXCW; EPC1, DEPC, EXCSAVE1, EXCCAUSE,
        /// EXCVADDR, PS, VECBASE.
        const EXCEPTIONS = 1 << 21;
        /// XEA2 high-priority interrupts: RFI, RSIL, WAITI; EPC2..7, EPS2..7, EXCSAVE2..7,
        /// INTERRUPT/INTSET/INTCLEAR/INTENABLE.
        const INTERRUPTS = 1 << 22;
        /// Debug option: BREAK, BREAK.N, RFDO, RFDD and the debug special registers.
        const DEBUG = 1 << 23;
        /// Instruction cache maintenance (IPF, IHI, III, LICT, LICW, SICT, SICW).
        const ICACHE = 1 << 24;
        /// Instruction cache line locking (IPFL, IHU, IIU).
        const ICACHE_LOCK = 1 << 25;
        /// Data cache maintenance (DHWB, DHWBI, DHI, DII, DIWB, DIWBI, DPF*, LDCT, SDCT).
        const DCACHE = 1 << 26;
        /// Data cache line locking (DPFL, DHU, DIU).
        const DCACHE_LOCK = 1 << 27;
        /// Full MMU: TLB instructions, PTEVADDR, RASID, ITLBCFG, DTLBCFG.
        const MMU = 1 << 28;
        /// External registers RER/WER.
        const EXTERNAL_REGS = 1 << 29;
        /// dc233c's example TIE state EXPSTATE and its instructions.
        const EXPSTATE_TIE = 1 << 30;
        /// Vision-Q7 FLIX bundles (op0 14/15), recognised by length only (§1.3).
        const FLIX_Q7 = 1 << 31;
        /// Extended L32R: LITBASE.
        const EXTENDED_L32R = 1 << 32;
        /// ATOMCTL special register.
        const ATOMCTL = 1 << 33;
        /// CCOUNT and CCOMPARE0..2.
        const TIMERS = 1 << 34;
        /// PRID special register.
        const PRID = 1 << 35;
        /// MISC0 and MISC1.
        const MISC_SR_0_1 = 1 << 36;
        /// MISC2 and MISC3.
        const MISC_SR_2_3 = 1 << 37;
        /// CPENABLE.
        const COPROCESSORS = 1 << 38;
        /// ISL (SR 248) and KSL (SR 249) stack limits (ncore2gp, §9.4).
        const STACK_LIMIT = 1 << 39;
        /// MPU: MPUENB (SR 90), MPUCFG (SR 92).
        const MPU = 1 << 40;
        /// MEMCTL (SR 97) and PREFCTL (SR 40).
        const MEMCTL = 1 << 41;
        /// Trace port: MMID (SR 89, write-only).
        const TRACE_PORT = 1 << 42;
        /// CONFIGID0/CONFIGID1 (SR 176/208), named by number as GNU binutils does for dc233c.
        const CONFIG_ID = 1 << 43;
    }
}

impl Options {
    /// Rows without a configuration option: the base ISA every core has.
    pub const BASE: Options = Options::empty();
}

/// A core configuration: its name, options and register-file size.
#[derive(Debug)]
pub struct CoreConfig {
    /// Profile name as used on the command line (`ncore2gp`, `dc233c`).
    pub name: &'static str,
    /// One line saying what the profile is for (command-line help).
    pub summary: &'static str,
    /// ISA options.
    pub options: Options,
    /// Number of physical address registers (64 on ncore2gp, 32 on dc233c).
    pub num_aregs: u32,
    tables: OnceLock<DecodeTables>,
}

impl CoreConfig {
    /// A configuration with the given options; decode tables are built on first use.
    pub const fn new(
        name: &'static str,
        summary: &'static str,
        options: Options,
        num_aregs: u32,
    ) -> Self {
        // The window arithmetic (WINDOWBASE, WINDOWSTART bits) works modulo the group count
        // by masking: 16, 32 or 64 registers, as the windowed-register option allows.
        assert!(
            num_aregs.is_power_of_two() && num_aregs >= 16 && num_aregs <= 64,
            "a windowed register file of 16, 32 or 64 registers"
        );
        Self {
            name,
            summary,
            options,
            num_aregs,
            tables: OnceLock::new(),
        }
    }

    /// Whether every option of `required` is present.
    pub fn has(&self, required: Options) -> bool {
        self.options.contains(required)
    }

    /// A built-in profile by name.
    pub fn by_name(name: &str) -> Option<&'static CoreConfig> {
        PROFILES.iter().copied().find(|c| c.name == name)
    }

    /// Its decode tables, made by `build` the first time they are asked for.
    pub(crate) fn tables(&self, build: fn(&CoreConfig) -> DecodeTables) -> &DecodeTables {
        self.tables.get_or_init(|| build(self))
    }
}

/// A configuration's decode lookup tables (the decode module builds them, on first use).
pub(crate) struct DecodeTables {
    /// Row index + 1 for each 16-bit word (0: none).
    pub(crate) narrow: Box<[u16]>,
    /// For each 16-bit key of a 24-bit word: start of its candidate run in `pool`.
    pub(crate) wide_start: Box<[u32]>,
    /// Candidate row indices, grouped by key, in table order.
    pub(crate) pool: Box<[u16]>,
}

impl fmt::Debug for DecodeTables {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeTables")
            .field("wide_candidates", &self.pool.len())
            .finish_non_exhaustive()
    }
}

/// The Vision-Q7 "ncore2gp" POOL core (isa/ISA.md §0): windowed with 64 AR but CALL0/CALL8 only,
/// CONST16 and L32R, exclusive access instead of S32C1I, no MAC16, FLIX bundles by length,
/// ISL/KSL stack limits. Exception machinery is modelled XEA2-style (ARCHITECTURE.md
/// "Exceptions and windows"), so the XEA2 exception registers are present; XEA2 interrupt
/// levels (RSIL, RFI, EPC2..) are not.
/// Cache operations: I-cache only (ncore2gp has no D-cache, §0).
pub static NCORE2GP: CoreConfig = CoreConfig::new(
    "ncore2gp",
    "The Vision-Q7 POOL core",
    Options::DENSITY
        .union(Options::WINDOWED)
        .union(Options::LOOPS)
        .union(Options::MUL16)
        .union(Options::MUL32)
        .union(Options::MUL32_HIGH)
        .union(Options::DIV32)
        .union(Options::NSA)
        .union(Options::MINMAX)
        .union(Options::SEXT)
        .union(Options::CLAMPS)
        .union(Options::BOOLEAN)
        .union(Options::EXCLUSIVE)
        .union(Options::ACQUIRE_RELEASE)
        .union(Options::CONST16)
        .union(Options::THREADPTR)
        .union(Options::SALT)
        .union(Options::S32NB)
        .union(Options::EXCEPTIONS)
        .union(Options::DEBUG)
        .union(Options::ICACHE)
        .union(Options::ICACHE_LOCK)
        .union(Options::FLIX_Q7)
        .union(Options::EXTENDED_L32R)
        .union(Options::ATOMCTL)
        .union(Options::TIMERS)
        .union(Options::PRID)
        .union(Options::MISC_SR_0_1)
        .union(Options::MISC_SR_2_3)
        .union(Options::COPROCESSORS)
        .union(Options::STACK_LIMIT)
        .union(Options::MPU)
        .union(Options::MEMCTL),
    64,
);

/// QEMU's and binutils' dc233c core (QEMU `target/xtensa/core-dc233c`): 32 AR, all window call
/// sizes, MAC16, S32C1I, MMU, caches, interrupts, and an example TIE state (EXPSTATE).
pub static DC233C: CoreConfig = CoreConfig::new(
    "dc233c",
    "QEMU's dc233c core (for programs compared against QEMU)",
    Options::DENSITY
        .union(Options::WINDOWED)
        .union(Options::WINDOWED_CALL4_CALL12)
        .union(Options::LOOPS)
        .union(Options::MUL16)
        .union(Options::MUL32)
        .union(Options::DIV32)
        .union(Options::NSA)
        .union(Options::MINMAX)
        .union(Options::SEXT)
        .union(Options::CLAMPS)
        .union(Options::S32C1I)
        .union(Options::ACQUIRE_RELEASE)
        .union(Options::MAC16)
        .union(Options::THREADPTR)
        .union(Options::EXCEPTIONS)
        .union(Options::INTERRUPTS)
        .union(Options::DEBUG)
        .union(Options::ICACHE)
        .union(Options::ICACHE_LOCK)
        .union(Options::DCACHE)
        .union(Options::DCACHE_LOCK)
        .union(Options::MMU)
        .union(Options::EXTERNAL_REGS)
        .union(Options::EXPSTATE_TIE)
        .union(Options::EXTENDED_L32R)
        .union(Options::ATOMCTL)
        .union(Options::TIMERS)
        .union(Options::PRID)
        .union(Options::MISC_SR_0_1)
        .union(Options::COPROCESSORS)
        .union(Options::TRACE_PORT)
        .union(Options::CONFIG_ID),
    32,
);

/// The built-in profiles.
pub static PROFILES: [&CoreConfig; 2] = [&NCORE2GP, &DC233C];
