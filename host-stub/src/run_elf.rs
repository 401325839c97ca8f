//! `q7emu run-elf`: a bare-metal ELF32-Xtensa executable on one emulated core.
//!
//! Every PT_LOAD segment is loaded at its address into a flat 4 GiB memory; the core starts in
//! QEMU's reset state (at the reset vector when the image has code there, else at the ELF
//! entry). Semihosting output goes to stdout/stderr; the run ends at the semihosting exit, a
//! fault (reported with registers and backtrace), or the cycle budget.

use q7_emulator::baremetal::{self, LoadSegment};
use q7_emulator::{Core, FlatMemory, NoTrace, Stats, Stop, TimingModel};
use q7_isa::CoreConfig;
use q7_loader::ElfFile;
use serde::Serialize;

/// Why a program could not be run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The ELF is unusable.
    #[error(transparent)]
    Elf(#[from] q7_loader::ElfError),
    /// Not an executable (ET_EXEC).
    #[error("ELF type is {}, expected ET_EXEC (an executable): run-elf runs linked bare-metal programs{}", kind.describe(), match kind {
        q7_loader::ElfKind::Relocatable => "; link the object first (a packed custom-op library runs with `q7emu run-packed`)",
        q7_loader::ElfKind::Shared => "; a device image runs from its packed library with `q7emu run-packed`",
        _ => "",
    })]
    NotExecutable {
        /// The type found.
        kind: q7_loader::ElfKind,
    },
    /// The ELF has nothing to load.
    #[error("no PT_LOAD segment: nothing to run")]
    NoSegments,
    /// The emulator could not be set up.
    #[error(transparent)]
    Setup(#[from] q7_emulator::baremetal::SetupError),
}

/// Statistics as written by `--stats-json`.
#[derive(Debug, Serialize)]
pub struct RunStats<'a> {
    /// Core profile.
    pub profile: &'a str,
    /// Instructions completed.
    pub instructions: u64,
    /// Cycles.
    pub cycles: u64,
    /// Exit code, when the program exited.
    pub exit_code: Option<i32>,
    /// Full counters, stall breakdown included.
    pub stats: &'a Stats,
    /// The timing model used.
    pub timing: &'a TimingModel,
    /// The fault, when the core stopped on one.
    pub fault: Option<&'a q7_emulator::FaultReport>,
}

/// Loads `elf`, which must be an executable (ET_EXEC), for `config`.
pub fn prepare(
    elf: &ElfFile<'_>,
    config: &'static CoreConfig,
) -> Result<Core<FlatMemory>, RunError> {
    if elf.kind != q7_loader::ElfKind::Executable {
        return Err(RunError::NotExecutable { kind: elf.kind });
    }
    let segments: Vec<LoadSegment<'_>> = elf
        .segments
        .iter()
        .filter(|s| s.is_load())
        .map(|s| LoadSegment {
            addr: s.vaddr,
            data: s.data,
            memsz: s.memsz,
            exec: s.is_exec(),
        })
        .collect();
    if segments.is_empty() {
        return Err(RunError::NoSegments);
    }
    Ok(baremetal::load(config, &segments, elf.entry)?)
}

/// Runs a prepared core; returns how it stopped.
pub fn run(core: &mut Core<FlatMemory>, max_cycles: u64) -> Stop {
    core.run(max_cycles, &mut NoTrace)
}
