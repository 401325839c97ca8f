//! The cycle model: one in-order scalar pipeline per core, every parameter in one
//! [`TimingModel`] with its default and where that default comes from (ARCHITECTURE.md "Timing
//! model"; isa/ISA.md §7). Cycle counts depend only on the instruction stream and
//! these parameters — never on host timing.

pub use q7_isa::Latency;
use serde::{Deserialize, Serialize};

/// Timing parameters. Every field documents its default and its source or the reason for it.
///
/// A timing profile (`q7emu run --timing FILE`, docs/timing.md) is this struct
/// in JSON or TOML: each key a field name below, each value an unsigned 32-bit integer; keys it
/// leaves out keep their defaults, and any other key is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimingModel {
    /// Cycles every instruction takes to issue. Default 1: LX-class cores issue one instruction
    /// per cycle (public Tensilica LX material; isa/ISA.md §7 "Issue width").
    pub issue: u32,
    /// Stall when an instruction uses a register loaded by the instruction just before it.
    /// Default 1: LX 5-stage load-use (ESP32-S3 TRM §1.7 via isa/ISA.md §7) and the third-party
    /// ncore2gp ISS figures (load result DEF@5, ALU use @4).
    pub load_use: u32,
    /// Cycles lost on a taken branch, jump, call or return. Default 2: instructions in R and E
    /// are squashed (ESP32-S3 TRM summary, isa/ISA.md §7; reported, not verified).
    pub taken_branch: u32,
    /// Extra cycles before a 16×16 or 32×32 multiply result (MUL16U/S, MULL) can be used by the
    /// next instruction. Default 1: third-party ncore2gp figure "MUL 2" = result two cycles after
    /// issue, i.e. one stall for an immediate consumer (a guess for the exact cores).
    pub mul_use: u32,
    /// Extra cycles of MULUH/MULSH results before use. Default 2: "≥ 2 cycles" (isa/ISA.md §7,
    /// tag G).
    pub mul_high_use: u32,
    /// Cycles QUOS/QUOU/REMS/REMU block the pipeline. Default 32: the ISA manual only says the
    /// divider is iterative; one bit per cycle is the common design (guess).
    pub divide: u32,
    /// Extra cycles to enter an exception handler (vector fetch after a pipeline flush).
    /// Default 3: flush of the stages after E plus the redirect, same order as a taken branch
    /// (guess; not published, isa/ISA.md §11).
    pub exception_entry: u32,
    /// Extra cycles of RFE/RFDE/RFWO/RFWU/RFI returns. Default 2: a return is a taken jump to
    /// EPC (same cost as `taken_branch`).
    pub exception_return: u32,
    /// Zero-overhead loop back-edge cost. Default 0: the loop buffer makes it free (Xtensa ISA
    /// RM §4.3.2, isa/ISA.md §6/§7).
    pub loop_back: u32,
    /// Extra cycles of a data access to HBM through a dynamic translate window (windows 2..4:
    /// tensor data reached by element accessors, HBM stacks, anything the runtime maps), and
    /// of an I-cache refill of a line there. Default 126: calibrated against AWS's published
    /// ReLU throughputs, which put the element-accessor ReLU at 853.6 cycles per element on
    /// hardware; here it costs 538.5 + 2.5 × `hbm_latency` + 26.0 × `sram_latency`
    /// (docs/calibration.md). 126 cycles are 90 ns at the 1.4 GHz clock, the order of a DRAM
    /// round trip.
    pub hbm_latency: u32,
    /// Extra cycles of a data access to the image windows' SRAM (the pinned windows 0 and 1,
    /// where each library image lives: its literal pools, rodata, data, bss and libc heap;
    /// the seeds' "SRAM", PLATFORM.md "Per-core address map"), and of an I-cache refill of a
    /// line there. Default 0, as fast as core-local memory: the TCM ReLU makes 2.6 of these
    /// accesses per element and no HBM ones, and already costs more here than on hardware
    /// (no vector unit), so each cycle of SRAM latency would take it further away; the
    /// element-accessor calibration rules out anything near HBM's latency
    /// (docs/calibration.md).
    pub sram_latency: u32,
    /// Cycles from an SDMA descriptor becoming eligible to its first byte moving. Default 200:
    /// one HBM round trip (`hbm_latency`) plus the descriptor fetch and engine start-up
    /// (guess). The calibration does not rest on it: the TCM ReLU waits on one transfer per
    /// 1,024 elements, so ±100 cycles move it by ±0.1 cycle per element
    /// (docs/calibration.md).
    pub sdma_latency: u32,
    /// SDMA bytes moved per cycle once a transfer runs. Default 64: the 512-bit data path of
    /// the ncore2gp load/store units (third-party ncore2gp notes, isa/ISA.md §9.5).
    pub sdma_bytes_per_cycle: u32,
    /// Cycles a semihosting `write` (SIMCALL) takes per byte written. Default 1: the
    /// simulator's host link is not hardware (QEMU charges nothing); one cycle per byte puts
    /// guest output under the cycle budget, so no program prints without bound. A write is
    /// cut short at the budget's end.
    pub semihost_write_byte: u32,
    /// I-cache size in bytes. Default 16384 (ncore2gp: 16 KiB, isa/ISA.md §0).
    pub icache_bytes: u32,
    /// I-cache associativity. Default 4 (ncore2gp: 4-way, isa/ISA.md §0).
    pub icache_ways: u32,
    /// I-cache line size in bytes. Default 64 (ncore2gp: 64-byte lines, isa/ISA.md §0).
    pub icache_line: u32,
}

impl Default for TimingModel {
    fn default() -> Self {
        TimingModel {
            issue: 1,
            load_use: 1,
            taken_branch: 2,
            mul_use: 1,
            mul_high_use: 2,
            divide: 32,
            exception_entry: 3,
            exception_return: 2,
            loop_back: 0,
            hbm_latency: 126,
            sram_latency: 0,
            sdma_latency: 200,
            sdma_bytes_per_cycle: 64,
            semihost_write_byte: 1,
            icache_bytes: 16384,
            icache_ways: 4,
            icache_line: 64,
        }
    }
}

/// The bounds a usable [`TimingModel`] keeps, checked by [`TimingModel::check`]: every key has
/// a least and a greatest value ([`bounds::KEYS`], the one table docs/timing.md "Bounds"
/// restates), and the I-cache geometry one rule more.
///
/// Why these bounds: every instruction takes at least one cycle (so a cycle budget always
/// ends); a cycle key charges at most [`bounds::MAX_CYCLES`] per event, so one instruction
/// costs at most a few million cycles, every per-instruction sum is exact in 32 bits and every
/// counter exact in 64 — the stall identities of docs/run-report.md hold for any model that
/// passes; the I-cache is one the model can build in bounded memory.
pub mod bounds {
    use super::TimingModel;

    /// Most cycles a cycle key charges for one event: 1,000,000 (0.7 ms at the 1.4 GHz
    /// clock, four orders of magnitude past the slowest event modelled, an HBM round trip).
    pub const MAX_CYCLES: u32 = 1_000_000;
    /// Most SDMA bytes per cycle: 1 MiB (the ncore2gp moves 64).
    pub const MAX_SDMA_BYTES_PER_CYCLE: u32 = 1 << 20;
    /// Largest I-cache modelled: 16 MiB (the ncore2gp has 16 KiB).
    pub const MAX_ICACHE_BYTES: u32 = 16 << 20;
    /// Most I-cache lines (`icache_bytes / icache_line`): 262,144, 16 MiB of 64-byte lines (the
    /// ncore2gp has 256). The model keeps 24 bytes per set: 6 MiB per core at most.
    pub const MAX_ICACHE_LINES: u32 = 1 << 18;
    /// Largest I-cache line: 4096 bytes.
    pub const MAX_ICACHE_LINE: u32 = 4096;
    /// Most I-cache ways: 64.
    pub const MAX_ICACHE_WAYS: u32 = 64;

    /// One key of a timing profile and the values it may take.
    #[derive(Debug, Clone, Copy)]
    pub struct Key {
        /// The key: a field of [`TimingModel`].
        pub key: &'static str,
        /// Its least value.
        pub min: u32,
        /// Its greatest value.
        pub max: u32,
        /// Why a value below `min` is refused, when `min` is not 0.
        pub why_min: &'static str,
        /// The key's value in a model.
        pub get: fn(&TimingModel) -> u32,
    }

    macro_rules! keys {
        ($($field:ident $min:expr, $max:expr, $why:expr;)*) => {
            /// Every key with its bounds, in the field order of [`TimingModel`].
            pub const KEYS: [Key; [$(stringify!($field)),*].len()] = [$(Key {
                key: stringify!($field),
                min: $min,
                max: $max,
                why_min: $why,
                get: |m| m.$field,
            }),*];
        };
    }

    const NO_CYCLE: &str = "an instruction that takes no cycle would never end a budget";

    keys! {
        issue 1, MAX_CYCLES, NO_CYCLE;
        load_use 0, MAX_CYCLES, "";
        taken_branch 0, MAX_CYCLES, "";
        mul_use 0, MAX_CYCLES, "";
        mul_high_use 0, MAX_CYCLES, "";
        divide 0, MAX_CYCLES, "";
        exception_entry 0, MAX_CYCLES, "";
        exception_return 0, MAX_CYCLES, "";
        loop_back 0, MAX_CYCLES, "";
        hbm_latency 0, MAX_CYCLES, "";
        sram_latency 0, MAX_CYCLES, "";
        sdma_latency 0, MAX_CYCLES, "";
        sdma_bytes_per_cycle 1, MAX_SDMA_BYTES_PER_CYCLE, "a transfer that moves nothing would never end";
        semihost_write_byte 0, MAX_CYCLES, "";
        icache_bytes 1, MAX_ICACHE_BYTES, "";
        icache_ways 1, MAX_ICACHE_WAYS, "";
        icache_line 1, MAX_ICACHE_LINE, "";
    }
}

/// Why a timing model cannot be used: the key and what it must be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{key}` is {value}: {must}")]
pub struct TimingError {
    /// The parameter.
    pub key: &'static str,
    /// Its value.
    pub value: u32,
    /// What it must be.
    pub must: String,
}

impl TimingModel {
    /// Checks the [`bounds`]: each key of [`bounds::KEYS`] from its least to its greatest
    /// value; `icache_line` a power of two; `icache_bytes` a multiple of `icache_line ×
    /// icache_ways` of at most [`bounds::MAX_ICACHE_LINES`] lines.
    pub fn check(&self) -> Result<(), TimingError> {
        let fail = |key, value, must: String| Err(TimingError { key, value, must });
        let line = self.icache_line;
        if !line.is_power_of_two() || line > bounds::MAX_ICACHE_LINE {
            return fail(
                "icache_line",
                line,
                format!("a power of two up to {}", bounds::MAX_ICACHE_LINE),
            );
        }
        let ways = self.icache_ways;
        if ways == 0 || ways > bounds::MAX_ICACHE_WAYS {
            return fail(
                "icache_ways",
                ways,
                format!("1 to {}", bounds::MAX_ICACHE_WAYS),
            );
        }
        let bytes = self.icache_bytes;
        let set = line * ways;
        if bytes == 0 || !bytes.is_multiple_of(set) || bytes > bounds::MAX_ICACHE_BYTES {
            return fail(
                "icache_bytes",
                bytes,
                format!(
                    "a non-zero multiple of icache_line × icache_ways ({set}) up to {}",
                    bounds::MAX_ICACHE_BYTES
                ),
            );
        }
        if bytes / line > bounds::MAX_ICACHE_LINES {
            return fail(
                "icache_bytes",
                bytes,
                format!(
                    "at most {} lines of icache_line ({line}) bytes, {} bytes",
                    bounds::MAX_ICACHE_LINES,
                    u64::from(bounds::MAX_ICACHE_LINES) * u64::from(line)
                ),
            );
        }
        for k in &bounds::KEYS {
            let value = (k.get)(self);
            if value < k.min {
                let why = match k.why_min {
                    "" => String::new(),
                    why => format!(" ({why})"),
                };
                return fail(k.key, value, format!("at least {}{why}", k.min));
            }
            if value > k.max {
                return fail(
                    k.key,
                    value,
                    format!("at most {} (docs/timing.md \"Bounds\")", k.max),
                );
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for TimingModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "timing: issue {} | load-use +{} | taken branch +{} | mul use +{} | mulh use +{} | \
             divide {} | exception entry +{} | return +{} | loop back +{} | hbm +{} | sram +{} | \
             sdma {} + bytes/{} | semihost write {}/byte | icache {} B {}-way {} B lines",
            self.issue,
            self.load_use,
            self.taken_branch,
            self.mul_use,
            self.mul_high_use,
            self.divide,
            self.exception_entry,
            self.exception_return,
            self.loop_back,
            self.hbm_latency,
            self.sram_latency,
            self.sdma_latency,
            self.sdma_bytes_per_cycle,
            self.semihost_write_byte,
            self.icache_bytes,
            self.icache_ways,
            self.icache_line
        )
    }
}

impl TimingModel {
    /// Cycles after its issue cycle before a result of latency class `class` (a column of the
    /// opcode table, isa/ISA.md §2 and §7) is usable by the next instruction: `load_use` for a
    /// load, `mul_use` for a multiply, `mul_high_use` for the high word of one; 0 for a
    /// single-cycle result and for a divide, whose `divide` cycles block the pipeline instead
    /// (its result is ready when the next instruction issues).
    #[inline(always)]
    pub fn result_delay(&self, class: Latency) -> u32 {
        match class {
            Latency::Single | Latency::Divide => 0,
            Latency::Load => self.load_use,
            Latency::Multiply => self.mul_use,
            Latency::MultiplyHigh => self.mul_high_use,
        }
    }

    /// Cycles a divide blocks the pipeline beyond its issue cycle (`divide` − `issue`),
    /// counted as `divide` stalls.
    #[inline(always)]
    pub fn divide_block(&self) -> u32 {
        self.divide.saturating_sub(self.issue)
    }
}

macro_rules! stall_categories {
    ($($(#[$doc:meta])* $field:ident $label:literal;)*) => {
        /// Where cycles went beyond one issue cycle per instruction, by category. One table
        /// (the fields below) gives the struct, its JSON form, [`Stalls::list`],
        /// [`Stalls::since`] and [`Stalls::take_growth`].
        #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
        pub struct Stalls {
            $($(#[$doc])* pub $field: u64,)*
        }

        impl Stalls {
            /// Number of categories.
            pub const COUNT: usize = [$($label),*].len();

            /// Every category as (label, cycles), in field order.
            pub fn list(&self) -> [(&'static str, u64); Self::COUNT] {
                [$(($label, self.$field)),*]
            }

            /// Every category's label, in field order.
            pub const LABELS: [&'static str; Self::COUNT] = [$($label),*];

            /// Adds `other`'s cycles to each category.
            #[inline(always)]
            pub fn add(&mut self, other: &Stalls) {
                $(self.$field += other.$field;)*
            }

            /// Adds what each category of `now` grew by since `last` (an earlier reading of
            /// the same counters) and moves `last` up to it, given that they grew by `total`
            /// cycles together: the categories are taken in field order, the most frequent
            /// first, and the rest are left once `total` is accounted for (they did not grow).
            #[inline(always)]
            pub fn take_growth(&mut self, now: &Stalls, last: &mut Stalls, mut total: u64) {
                $(
                    if total == 0 {
                        return;
                    }
                    let grew = now.$field - last.$field;
                    self.$field += grew;
                    last.$field = now.$field;
                    total = total.saturating_sub(grew);
                )*
                // (What is left after the last category is of no further use.)
                let _ = total;
            }

            /// The cycles of every category together.
            pub fn total(&self) -> u64 {
                0 $(+ self.$field)*
            }

            /// The cycles of each category counted since `before` (an earlier reading of the
            /// same counters).
            pub fn since(&self, before: &Stalls) -> Stalls {
                Stalls {
                    $($field: self.$field - before.$field,)*
                }
            }
        }
    };
}

stall_categories! {
    /// Load-use interlocks.
    load_use "load-use";
    /// Taken branches, jumps, calls and returns, and zero-overhead loop back-edges
    /// ([`TimingModel::loop_back`]).
    taken_branch "taken-branch";
    /// Multiply result interlocks.
    multiply "multiply";
    /// Divider occupancy.
    divide "divide";
    /// Data accesses to HBM through the dynamic translate windows ([`TimingModel::hbm_latency`]).
    hbm "hbm";
    /// Data accesses to the image windows' SRAM ([`TimingModel::sram_latency`]).
    sram "sram";
    /// Exception entry and return.
    exception "exception";
    /// Instruction-fetch misses (I-cache refills, at the latency of the line's memory).
    fetch "fetch";
    /// Waits on devices (SDMA_WAIT).
    device_wait "device-wait";
    /// Semihosting output (SIMCALL write), charged per byte.
    host_io "host-io";
}

impl std::fmt::Display for Stalls {
    /// `load-use 3, taken-branch 10, …` — every category.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (label, cycles)) in self.list().iter().enumerate() {
            if i != 0 {
                f.write_str(", ")?;
            }
            write!(f, "{label} {cycles}")?;
        }
        Ok(())
    }
}

/// Per-core execution statistics. Every cycle is a stall of one category or the issue cycle of
/// a completed instruction or of an exception entry, save for a semihosting exit, which counts
/// as an instruction and stops the core before its cycle: a run that ends in an exit has
/// `cycles = issue × (instructions + exceptions − 1) + stalls.total()` (docs/run-report.md).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Instructions that completed (an instruction that raised an exception does not count;
    /// handler instructions do).
    pub instructions: u64,
    /// Cycles elapsed (what CCOUNT counts).
    pub cycles: u64,
    /// Breakdown of the cycles beyond one issue cycle per instruction.
    pub stalls: Stalls,
    /// Exceptions taken (window overflow/underflow included).
    pub exceptions: u64,
}

impl Stats {
    /// Adds `other`'s counts.
    #[inline(always)]
    pub fn add(&mut self, other: &Stats) {
        self.instructions += other.instructions;
        self.cycles += other.cycles;
        self.stalls.add(&other.stalls);
        self.exceptions += other.exceptions;
    }

    /// The counts since `before` (an earlier reading of the same core's counters).
    pub fn since(&self, before: &Stats) -> Stats {
        Stats {
            instructions: self.instructions - before.instructions,
            cycles: self.cycles - before.cycles,
            stalls: self.stalls.since(&before.stalls),
            exceptions: self.exceptions - before.exceptions,
        }
    }
}

impl std::fmt::Display for Stats {
    /// `N instructions, C cycles (<stalls>; E exceptions)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} instructions, {} cycles ({}; {} exceptions)",
            self.instructions, self.cycles, self.stalls, self.exceptions
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Stats {
        Stats {
            instructions: 100,
            cycles: 190,
            stalls: Stalls {
                load_use: 1,
                taken_branch: 2,
                multiply: 3,
                divide: 4,
                hbm: 5,
                sram: 10,
                exception: 6,
                fetch: 7,
                device_wait: 8,
                host_io: 9,
            },
            exceptions: 2,
        }
    }

    #[test]
    fn the_default_model_is_usable_and_each_bound_is_named() {
        assert_eq!(TimingModel::default().check(), Ok(()));
        let with = |f: fn(&mut TimingModel)| {
            let mut m = TimingModel::default();
            f(&mut m);
            m.check().map_err(|e| e.to_string())
        };
        assert_eq!(
            with(|m| m.issue = 0),
            Err("`issue` is 0: at least 1 (an instruction that takes no cycle would never end a budget)".into())
        );
        assert_eq!(
            with(|m| m.icache_line = 0),
            Err("`icache_line` is 0: a power of two up to 4096".into())
        );
        assert_eq!(
            with(|m| m.icache_line = 48),
            Err("`icache_line` is 48: a power of two up to 4096".into())
        );
        assert_eq!(
            with(|m| m.icache_ways = 0),
            Err("`icache_ways` is 0: 1 to 64".into())
        );
        assert_eq!(
            with(|m| m.icache_bytes = u32::MAX),
            Err("`icache_bytes` is 4294967295: a non-zero multiple of icache_line × icache_ways (256) up to 16777216".into())
        );
        assert_eq!(
            with(|m| m.sdma_bytes_per_cycle = 0),
            Err(
                "`sdma_bytes_per_cycle` is 0: at least 1 (a transfer that moves nothing would \
                 never end)"
                    .into()
            )
        );
        assert_eq!(with(|m| m.icache_bytes = 1 << 24), Ok(()));
        assert_eq!(
            with(|m| {
                m.icache_line = 32;
                m.icache_bytes = 1 << 24;
            }),
            Err(
                "`icache_bytes` is 16777216: at most 262144 lines of icache_line (32) bytes, \
                 8388608 bytes"
                    .into()
            )
        );
        assert_eq!(
            with(|m| m.load_use = u32::MAX),
            Err("`load_use` is 4294967295: at most 1000000 (docs/timing.md \"Bounds\")".into())
        );
        assert_eq!(
            with(|m| m.sdma_bytes_per_cycle = (1 << 20) + 1),
            Err(
                "`sdma_bytes_per_cycle` is 1048577: at most 1048576 (docs/timing.md \"Bounds\")"
                    .into()
            )
        );
    }

    #[test]
    fn the_bounds_table_has_every_key_in_field_order() {
        let json = serde_json::to_value(TimingModel::default()).unwrap();
        let mut fields: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        let mut keys: Vec<&str> = bounds::KEYS.iter().map(|k| k.key).collect();
        assert_eq!(keys.len(), fields.len());
        fields.sort_unstable();
        keys.sort_unstable();
        assert_eq!(keys, fields);
        // Each key reads its own field.
        for k in &bounds::KEYS {
            let mut v = serde_json::to_value(TimingModel::default()).unwrap();
            v[k.key] = serde_json::json!(12345);
            let m: TimingModel = serde_json::from_value(v).unwrap();
            assert_eq!((k.get)(&m), 12345, "{}", k.key);
        }
    }

    #[test]
    fn every_key_at_either_bound_is_usable_and_one_past_it_is_not() {
        for k in &bounds::KEYS {
            let set = |value: u32| {
                let mut v = serde_json::to_value(TimingModel::default()).unwrap();
                v[k.key] = serde_json::json!(value);
                serde_json::from_value::<TimingModel>(v).unwrap()
            };
            if k.key.starts_with("icache_") {
                continue; // the geometry's own rule, tested above
            }
            assert_eq!(set(k.min).check(), Ok(()), "{} at {}", k.key, k.min);
            assert_eq!(set(k.max).check(), Ok(()), "{} at {}", k.key, k.max);
            assert_eq!(set(k.max + 1).check().unwrap_err().key, k.key);
            assert_eq!(set(u32::MAX).check().unwrap_err().key, k.key);
            if k.min > 0 {
                assert_eq!(set(k.min - 1).check().unwrap_err().key, k.key);
            }
        }
        let mut all = TimingModel::default();
        for k in &bounds::KEYS {
            if !k.key.starts_with("icache_") {
                let mut v = serde_json::to_value(&all).unwrap();
                v[k.key] = serde_json::json!(k.max);
                all = serde_json::from_value(v).unwrap();
            }
        }
        assert_eq!(
            all.check(),
            Ok(()),
            "every key at its greatest value together"
        );
    }

    #[test]
    fn a_result_waits_the_parameter_of_its_latency_class() {
        // The classes are the opcode table's (isa/ISA.md §2, §7); the cycles are the
        // parameters documented on `TimingModel` above.
        use q7_isa::Opcode::*;
        let m = TimingModel {
            load_use: 3,
            mul_use: 5,
            mul_high_use: 7,
            divide: 11,
            ..TimingModel::default()
        };
        for (opcode, delay) in [
            (Add, 0),
            (S32i, 0),
            (L8ui, 3),
            (L32r, 3),
            (L32e, 3),
            (S32c1i, 3),
            (Mull, 5),
            (Mul16s, 5),
            (Muluh, 7),
            (Remu, 0),
        ] {
            assert_eq!(m.result_delay(Latency::of(opcode)), delay, "{opcode:?}");
        }
        assert_eq!(
            Latency::of(Quos),
            Latency::Divide,
            "blocks for `divide` instead"
        );
    }

    #[test]
    fn stalls_list_every_category_in_field_order() {
        let labels: Vec<&str> = sample().stalls.list().iter().map(|(l, _)| *l).collect();
        assert_eq!(
            labels,
            [
                "load-use",
                "taken-branch",
                "multiply",
                "divide",
                "hbm",
                "sram",
                "exception",
                "fetch",
                "device-wait",
                "host-io"
            ]
        );
        let values: Vec<u64> = sample().stalls.list().iter().map(|(_, v)| *v).collect();
        assert_eq!(values, [1, 2, 3, 4, 5, 10, 6, 7, 8, 9]);
    }

    #[test]
    fn since_subtracts_every_counter() {
        let mut later = sample();
        later.instructions += 10;
        later.cycles += 20;
        later.exceptions += 1;
        later.stalls.device_wait += 5;
        later.stalls.load_use += 1;
        let d = later.since(&sample());
        assert_eq!((d.instructions, d.cycles, d.exceptions), (10, 20, 1));
        assert_eq!(
            d.stalls.list().map(|(_, v)| v),
            [1, 0, 0, 0, 0, 0, 0, 0, 5, 0]
        );
    }

    #[test]
    fn display_and_json_name_every_category() {
        assert_eq!(
            sample().to_string(),
            "100 instructions, 190 cycles (load-use 1, taken-branch 2, multiply 3, divide 4, \
             hbm 5, sram 10, exception 6, fetch 7, device-wait 8, host-io 9; 2 exceptions)"
        );
        let json = serde_json::to_value(sample()).unwrap();
        assert_eq!(json["stalls"]["device_wait"], 8);
        assert_eq!(json["stalls"].as_object().unwrap().len(), Stalls::COUNT);
    }
}
