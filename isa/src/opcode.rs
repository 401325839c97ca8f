//! The opcode table: the single source of truth for decode, encode and disassembly, and for two
//! facts an implementation needs of each opcode: the [`Family`] that executes it and the
//! [`Latency`] class of its result (isa/ISA.md §2, §7).

use crate::config::Options;
use crate::operand::OperandKind;

/// One row of the opcode table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeInfo {
    /// The opcode this row describes.
    pub opcode: Opcode,
    /// Mnemonic as GNU objdump prints it. For `rsr`/`wsr`/`xsr`/`rur`/`wur` the register name
    /// is appended after a dot.
    pub mnemonic: &'static str,
    /// Instruction length in bytes (2 or 3).
    pub len: u8,
    /// Value of the fixed bits of the little-endian instruction word.
    pub match_bits: u32,
    /// Which bits are fixed; every other bit belongs to exactly one operand.
    pub mask: u32,
    /// Operands in display order (hidden ones last).
    pub operands: &'static [OperandKind],
    /// Operands the instruction reads (bit i = operand i), from the ISA's operand directions.
    pub reads: u8,
    /// Operands the instruction writes (bit i = operand i).
    pub writes: u8,
    /// Options a core needs for this row to decode.
    pub options: Options,
    /// The family of instructions that executes this one.
    pub family: Family,
    /// When the instruction's result is usable by the next one.
    pub latency: Latency,
}

/// The family of instructions an opcode belongs to: the part of an implementation that
/// executes it (the emulator has one module per family, ARCHITECTURE.md "Where things happen").
/// A column of the opcode table: every row names its family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Arithmetic, logic, moves, shifts, multiply and divide, and the boolean-register
    /// operations.
    Alu,
    /// Loads and stores, memory barriers and synchronisation, cache and TLB maintenance.
    Memory,
    /// Branches, jumps, CALL0/CALLX0 and RET, and the zero-overhead loop instructions.
    Branch,
    /// The windowed calls, ENTRY, RETW, MOVSP and ROTW (isa/ISA.md §3).
    Window,
    /// Special- and user-register access (RSR/WSR/XSR, RUR/WUR, RSIL, RER/WER) and the ncore2gp
    /// EXPSTATE/IMPWIRE instructions.
    Register,
    /// Exception returns, SYSCALL, SIMCALL, BREAK, ILL, WAITI and the debug-mode returns
    /// (isa/ISA.md §5).
    Exception,
    /// MAC16: multiplies into the 40-bit accumulator and the loads into m0..m3 (isa/ISA.md §2.2).
    Mac16,
}

impl Family {
    /// Every family, in declaration order.
    pub const ALL: [Family; 7] = [
        Family::Alu,
        Family::Memory,
        Family::Branch,
        Family::Window,
        Family::Register,
        Family::Exception,
        Family::Mac16,
    ];
}

/// The latency class of an instruction: when its result (operand 0) is usable by the next
/// one, or whether it blocks the pipeline (isa/ISA.md §7). A column of the opcode table: every
/// row names its class; an implementation gives each class its cycles (the emulator's timing
/// parameters `load_use`, `mul_use`, `mul_high_use` and `divide`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Latency {
    /// Usable by the next instruction.
    Single,
    /// A load result: usable after the load-use delay.
    Load,
    /// A 16×16 or 32×32 multiply result (MUL16U/S, MULL).
    Multiply,
    /// The high word of a 32×32 multiply (MULUH/MULSH).
    MultiplyHigh,
    /// QUOS/QUOU/REMS/REMU: the iterative divider blocks the pipeline.
    Divide,
}

impl Latency {
    /// The latency class of `opcode` (its table row's).
    #[inline(always)]
    pub const fn of(opcode: Opcode) -> Latency {
        opcode.latency()
    }
}

macro_rules! define_opcodes {
    (($d:tt) $($name:ident = ($mn:literal, $len:literal, $match:literal, $mask:literal,
        [$($op:ident),*], $reads:literal, $writes:literal, $($opt:ident)|+,
        $family:ident, $latency:ident);)*) => {
        /// Every instruction of every supported configuration (one variant per table row).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $mn, "`")]
                $name,
            )*
        }

        /// The opcode table, indexed by `Opcode as usize`.
        pub static OPCODES: &[OpcodeInfo] = &[$(
            OpcodeInfo {
                opcode: Opcode::$name,
                mnemonic: $mn,
                len: $len,
                match_bits: $match,
                mask: $mask,
                operands: &[$(OperandKind::$op),*],
                reads: $reads,
                writes: $writes,
                options: Options::BASE$(.union(Options::$opt))+,
                family: Family::$family,
                latency: Latency::$latency,
            },
        )*];

        impl Opcode {
            /// The family that executes this opcode (its row's [`OpcodeInfo::family`]). A
            /// `match`, so that for an opcode known at compile time it is a constant.
            #[inline(always)]
            pub const fn family(self) -> Family {
                match self {
                    $(Opcode::$name => Family::$family,)*
                }
            }

            /// The latency class of this opcode's result (its row's [`OpcodeInfo::latency`]). A
            /// `match`, so that for an opcode known at compile time it is a constant.
            #[inline(always)]
            pub const fn latency(self) -> Latency {
                match self {
                    $(Opcode::$name => Latency::$latency,)*
                }
            }
        }

        /// A `match` on an [`Opcode`] with one arm per row of the opcode table, each arm the
        /// handler of the row's [`Family`] with the opcode bound, as a constant, to the name
        /// given:
        ///
        /// ```
        /// # use q7_isa::Opcode;
        /// fn family_name(opcode: Opcode) -> (&'static str, Opcode) {
        ///     q7_isa::dispatch_by_family!(opcode, |k| {
        ///         Alu => ("alu", k),
        ///         Memory => ("memory", k),
        ///         Branch => ("branch", k),
        ///         Window => ("window", k),
        ///         Register => ("register", k),
        ///         Exception => ("exception", k),
        ///         Mac16 => ("mac16", k),
        ///     })
        /// }
        /// assert_eq!(family_name(Opcode::L32i), ("memory", Opcode::L32i));
        /// ```
        ///
        /// Each arm holds only its family's handler (chosen as the macro expands), so with the
        /// opcode a constant in it a handler's own `match` on the opcode folds away: the one
        /// `match` is the whole dispatch. Every family a row names needs a handler (else the
        /// expansion fails), so the routing is the table's family column and nothing else.
        #[macro_export]
        macro_rules! dispatch_by_family {
            ($d opcode:expr, |$d k:ident| { $d($d listed:ident => $d handler:expr),+ $d(,)? }) => {
                match $d opcode {
                    $($d crate::Opcode::$name => {
                        #[allow(unused_variables)]
                        let $d k = $d crate::Opcode::$name;
                        $d crate::__handler_of_family!(
                            $family; $d($d listed => $d handler,)+
                        )
                    })*
                }
            };
        }
    };
}

/// The handler listed for the family named first (a helper of `dispatch_by_family!`): one rule
/// per [`Family`], then one that skips a handler of another family.
#[doc(hidden)]
#[macro_export]
macro_rules! __handler_of_family {
    (Alu; Alu => $handler:expr, $($rest:tt)*) => { $handler };
    (Memory; Memory => $handler:expr, $($rest:tt)*) => { $handler };
    (Branch; Branch => $handler:expr, $($rest:tt)*) => { $handler };
    (Window; Window => $handler:expr, $($rest:tt)*) => { $handler };
    (Register; Register => $handler:expr, $($rest:tt)*) => { $handler };
    (Exception; Exception => $handler:expr, $($rest:tt)*) => { $handler };
    (Mac16; Mac16 => $handler:expr, $($rest:tt)*) => { $handler };
    ($family:ident; $other:ident => $handler:expr, $($rest:tt)*) => {
        $crate::__handler_of_family!($family; $($rest)*)
    };
}

include!("opcodes.rs");

impl Opcode {
    /// This opcode's table row.
    #[inline]
    pub fn info(self) -> &'static OpcodeInfo {
        &OPCODES[self as usize]
    }

    /// The base mnemonic (without a special-register suffix).
    pub fn mnemonic(self) -> &'static str {
        self.info().mnemonic
    }

    /// Looks up an opcode by its table mnemonic.
    pub fn from_mnemonic(mnemonic: &str) -> Option<Opcode> {
        OPCODES
            .iter()
            .find(|o| o.mnemonic == mnemonic)
            .map(|o| o.opcode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The opcodes of each latency class, as isa/ISA.md §7 documents them (load-use; MUL16 and
    /// MULL; MULUH and MULSH; QUOS, QUOU, REMS and REMU) and the emulator's timing parameters
    /// `load_use`, `mul_use`, `mul_high_use` and `divide` (emulator/src/timing.rs) charge them.
    /// S32C1I and L32EX return a loaded word; every other opcode is single-cycle.
    #[test]
    fn the_latency_classes_are_the_documented_ones() {
        use Opcode::*;
        let class_of = |opcodes: &[Opcode], class: Latency| {
            opcodes.iter().map(move |&o| (o, class)).collect::<Vec<_>>()
        };
        let mut expected = class_of(
            &[
                L8ui, L16ui, L16si, L32i, L32iN, L32ai, L32r, S32c1i, L32ex, L32e,
            ],
            Latency::Load,
        );
        expected.extend(class_of(&[Mul16u, Mul16s, Mull], Latency::Multiply));
        expected.extend(class_of(&[Muluh, Mulsh], Latency::MultiplyHigh));
        expected.extend(class_of(&[Quos, Quou, Rems, Remu], Latency::Divide));
        expected.sort_by_key(|&(o, _)| o);
        let mut actual: Vec<(Opcode, Latency)> = OPCODES
            .iter()
            .filter(|row| row.latency != Latency::Single)
            .map(|row| (row.opcode, row.latency))
            .collect();
        actual.sort_by_key(|&(o, _)| o);
        assert_eq!(actual, expected);
        for row in OPCODES {
            assert_eq!(Latency::of(row.opcode), row.latency, "{}", row.mnemonic);
        }
    }

    #[test]
    fn every_opcode_has_a_family_and_every_family_opcodes() {
        for row in OPCODES {
            assert_eq!(row.opcode.family(), row.family, "{}", row.mnemonic);
        }
        for family in Family::ALL {
            assert!(OPCODES.iter().any(|row| row.family == family), "{family:?}");
        }
        // The MAC16 family is exactly the rows of the MAC16 option (isa/ISA.md §2.2).
        for row in OPCODES {
            assert_eq!(
                row.family == Family::Mac16,
                row.options.contains(Options::MAC16),
                "{}",
                row.mnemonic
            );
        }
    }

    #[test]
    fn the_dispatch_routes_each_opcode_to_the_handler_of_its_family() {
        for row in OPCODES {
            let routed = dispatch_by_family!(row.opcode, |k| {
                Alu => (Family::Alu, k),
                Memory => (Family::Memory, k),
                Branch => (Family::Branch, k),
                Window => (Family::Window, k),
                Register => (Family::Register, k),
                Exception => (Family::Exception, k),
                Mac16 => (Family::Mac16, k),
            });
            assert_eq!(routed, (row.family, row.opcode), "{}", row.mnemonic);
        }
    }
}
