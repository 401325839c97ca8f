//! Exceptions, faults and the reasons a core stops (isa/ISA.md §5.1, §3).

use std::fmt;

/// XEA2 EXCCAUSE codes the core raises (§5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ExcCause {
    /// 0: undefined encoding, ILL, ENTRY/RETW misuse, absent register, FLIX bundle.
    IllegalInstruction,
    /// 1: SYSCALL.
    Syscall,
    /// 2: bus error on instruction fetch.
    InstructionFetchError,
    /// 3: bus error on load/store (unmapped address).
    LoadStoreError,
    /// 5: MOVSP with the caller's frame spilled.
    Alloca,
    /// 6: QUOS/QUOU/REMS/REMU by zero.
    IntegerDivideByZero,
    /// 8: privileged instruction or register in a non-zero ring.
    Privileged,
    /// 9: unaligned load/store.
    LoadStoreAlignment,
    /// 28: load from a region that forbids it.
    LoadProhibited,
    /// 29: store to a region that forbids it.
    StoreProhibited,
}

impl ExcCause {
    /// Every cause the core raises.
    pub const ALL: [ExcCause; 10] = [
        ExcCause::IllegalInstruction,
        ExcCause::Syscall,
        ExcCause::InstructionFetchError,
        ExcCause::LoadStoreError,
        ExcCause::Alloca,
        ExcCause::IntegerDivideByZero,
        ExcCause::Privileged,
        ExcCause::LoadStoreAlignment,
        ExcCause::LoadProhibited,
        ExcCause::StoreProhibited,
    ];

    /// The cause whose EXCCAUSE value is `code`, if the core raises one.
    pub fn from_code(code: u32) -> Option<ExcCause> {
        Self::ALL.into_iter().find(|c| c.code() == code)
    }

    /// The EXCCAUSE value.
    pub fn code(self) -> u32 {
        match self {
            ExcCause::IllegalInstruction => 0,
            ExcCause::Syscall => 1,
            ExcCause::InstructionFetchError => 2,
            ExcCause::LoadStoreError => 3,
            ExcCause::Alloca => 5,
            ExcCause::IntegerDivideByZero => 6,
            ExcCause::Privileged => 8,
            ExcCause::LoadStoreAlignment => 9,
            ExcCause::LoadProhibited => 28,
            ExcCause::StoreProhibited => 29,
        }
    }

    /// The architectural name.
    pub fn name(self) -> &'static str {
        match self {
            ExcCause::IllegalInstruction => "IllegalInstructionCause",
            ExcCause::Syscall => "SyscallCause",
            ExcCause::InstructionFetchError => "InstructionFetchErrorCause",
            ExcCause::LoadStoreError => "LoadStoreErrorCause",
            ExcCause::Alloca => "AllocaCause",
            ExcCause::IntegerDivideByZero => "IntegerDivideByZeroCause",
            ExcCause::Privileged => "PrivilegedCause",
            ExcCause::LoadStoreAlignment => "LoadStoreAlignmentCause",
            ExcCause::LoadProhibited => "LoadProhibitedCause",
            ExcCause::StoreProhibited => "StoreProhibitedCause",
        }
    }
}

/// What went wrong, in the terms a kernel author needs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum FaultKind {
    /// A general exception no handler is installed for.
    Exception {
        /// EXCCAUSE.
        cause: ExcCause,
        /// What exactly (e.g. "unaligned 4-byte load", "divide by zero").
        detail: String,
    },
    /// A Vision-Q7 FLIX bundle: recognised, but its vector slots are not modelled.
    UnsupportedBundle {
        /// Bundle length in bytes.
        len: u8,
    },
    /// A frame allocation moved SP below the active stack limit (ISL/KSL, §9.4).
    StackLimit {
        /// "KSL" or "ISL".
        register: &'static str,
        /// The limit.
        limit: u32,
        /// The stack pointer the instruction would have set.
        new_sp: u32,
    },
    /// A general exception while PS.EXCM = 1 (inside a handler).
    DoubleException {
        /// EXCCAUSE of the second exception.
        cause: ExcCause,
        /// What exactly.
        detail: String,
    },
    /// A window overflow/underflow with no handler installed at its vector.
    WindowException {
        /// "overflow" or "underflow".
        kind: &'static str,
        /// Frame size in registers (4, 8 or 12).
        frame: u32,
        /// The vector address that holds no handler.
        vector: u32,
    },
    /// BREAK / BREAK.N with no debugger.
    Breakpoint {
        /// The immediate operands.
        imm: (u32, u32),
    },
    /// WAITI with no interrupt source: the core would sleep forever.
    WaitForever,
    /// The cycle budget ran out (runaway kernel).
    BudgetExhausted {
        /// The budget.
        max_cycles: u64,
    },
    /// The stack pointer (a1) left the program's stack region
    /// ([`Core::stack_region`](crate::core::Core::stack_region)).
    StackOverflow {
        /// a1 when it was seen.
        sp: u32,
        /// The region: lowest address.
        bottom: u32,
        /// The region: its top (the initial SP).
        top: u32,
        /// The fault the overflow went on to cause, when the core stopped on one.
        then: Option<Box<FaultKind>>,
    },
    /// A store would take the memory a bare-metal program has touched past its limit.
    MemoryLimit {
        /// The limit in bytes.
        limit: u64,
    },
    /// Stopped from outside (Ctrl-C) through the core's
    /// [`StopRequest`](crate::stop_request::StopRequest).
    Interrupted,
    /// A semihosting exit where the caller expected a return: a library's start symbol or
    /// kernel ends by returning to the firmware, never by exiting (the firmware's own exit
    /// sits in its call trampoline).
    Exited {
        /// The exit status.
        status: i32,
    },
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::Exception { cause, detail } => {
                write!(f, "{} ({}): {detail}", cause.name(), cause.code())
            }
            FaultKind::UnsupportedBundle { len } => write!(
                f,
                "unsupported Vision-Q7 vector bundle ({len}-byte FLIX instruction): vector slots are not modelled"
            ),
            FaultKind::StackLimit { register, limit, new_sp } => write!(
                f,
                "stack overflow: SP would become {new_sp:#010x}, below {register} = {limit:#010x}"
            ),
            FaultKind::DoubleException { cause, detail } => write!(
                f,
                "double exception: {} ({}) inside an exception handler: {detail}",
                cause.name(),
                cause.code()
            ),
            FaultKind::WindowException { kind, frame, vector } => write!(
                f,
                "window {kind} of a {frame}-register frame, but no handler at vector {vector:#010x}"
            ),
            FaultKind::Breakpoint { imm } => write!(f, "breakpoint (break {}, {})", imm.0, imm.1),
            FaultKind::WaitForever => {
                write!(f, "waiti with no interrupt source: the core would wait forever")
            }
            FaultKind::BudgetExhausted { max_cycles } => {
                write!(
                    f,
                    "cycle budget of {max_cycles} exhausted (runaway kernel? one that only runs \
                     long needs a larger budget: --max-cycles, max_cycles= in Python)"
                )
            }
            FaultKind::StackOverflow {
                sp,
                bottom,
                top,
                then,
            } => {
                write!(
                    f,
                    "stack overflow: SP {sp:#010x} is outside the stack region \
                     {bottom:#010x}..{top:#010x}: it ran {} bytes past the bottom",
                    bottom.wrapping_sub(*sp)
                )?;
                if sp > top {
                    f.write_str(" and wrapped round the address space")?;
                }
                if let Some(then) = then {
                    write!(f, "; it then caused: {then}")?;
                }
                f.write_str(
                    " (a program that runs its stack elsewhere on purpose: run-elf --stack \
                     LO..HI or --stack none)",
                )
            }
            FaultKind::MemoryLimit { limit } => write!(
                f,
                "memory limit: this store would take the memory the program has touched past \
                 {} MiB ({limit} bytes; run-elf --max-memory-mib raises it)",
                limit >> 20
            ),
            FaultKind::Interrupted => write!(f, "interrupted (Ctrl-C)"),
            FaultKind::Exited { status } => write!(
                f,
                "semihosting exit with status {status} where the firmware expected a return"
            ),
        }
    }
}

/// A frame of the a0-chain backtrace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Frame {
    /// Code address (the faulting PC for frame 0, return addresses after).
    pub pc: u32,
    /// Stack pointer (a1) of that frame.
    pub sp: u32,
}

/// The structured report of a stopped core.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FaultReport {
    /// Core (PRID).
    pub core: u32,
    /// Address of the faulting instruction.
    pub pc: u32,
    /// What happened.
    pub kind: FaultKind,
    /// The faulting data or instruction address, when there is one.
    pub address: Option<u32>,
    /// Disassembly of the faulting instruction (or why it has none).
    pub disassembly: String,
    /// a0..a15 of the current window.
    pub registers: [u32; 16],
    /// PS.
    pub ps: u32,
    /// WINDOWBASE.
    pub windowbase: u32,
    /// WINDOWSTART.
    pub windowstart: u32,
    /// SAR.
    pub sar: u32,
    /// Call chain, innermost first, each frame once.
    pub backtrace: Vec<Frame>,
    /// When the chain loops (a corrupted stack whose saved frame leads back to one already
    /// listed): the index in `backtrace` of the frame it returns to; the walk stops there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backtrace_loop: Option<usize>,
    /// Cycle count when it stopped.
    pub cycles: u64,
}

impl fmt::Display for FaultReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "core {} stopped at pc {:#010x}: {}",
            self.core, self.pc, self.kind
        )?;
        if let Some(a) = self.address {
            writeln!(f, "  address:     {a:#010x}")?;
        }
        writeln!(f, "  instruction: {}", self.disassembly)?;
        writeln!(
            f,
            "  ps {:#010x}  windowbase {}  windowstart {:#06x}  sar {}  cycles {}",
            self.ps, self.windowbase, self.windowstart, self.sar, self.cycles
        )?;
        for row in 0..4 {
            write!(f, " ")?;
            for i in 0..4 {
                let r = row * 4 + i;
                write!(f, " a{r:<2} {:#010x}", self.registers[r])?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  backtrace:")?;
        for (i, fr) in self.backtrace.iter().enumerate() {
            writeln!(f, "    #{i} pc {:#010x} sp {:#010x}", fr.pc, fr.sp)?;
        }
        if let Some(to) = self.backtrace_loop {
            writeln!(f, "    {}", loop_note(to))?;
        }
        Ok(())
    }
}

/// The line that ends a backtrace which loops back to frame `to`.
pub fn loop_note(to: usize) -> String {
    format!("… then frame #{to} again: the chain loops (a corrupted stack), each frame shown once")
}

/// Why `run` returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The program called semihosting exit with this status.
    Exited(i32),
    /// The core faulted (or ran out of budget); the report says where and why.
    Fault(Box<FaultReport>),
}
