//! The platform map of PLATFORM.md as the emulator uses it — the one place the emulator takes it
//! from (tests check this module against PLATFORM.md): the address layout shared with the
//! loader (re-exported from `q7_layout`), the MMIO register map the devices decode through
//! ([`reg`]), and the device and SoC constants only the emulator needs.

pub mod reg;

pub use q7_layout::{
    image_window, DATARAM, FWDATA, HBM_SCRATCH, IMAGE_WINDOW_SIZE, IRAM, MMIO, PINNED_WINDOWS,
    PINNED_XLATE, REGIONS, SINGLE_CORE_IMAGE_WINDOW, WINDOWS, WINDOW_SIZE, XLATE,
};

/// SDMA queue numbers.
pub mod queue {
    /// HBM → DATARAM.
    pub const M2S: u32 = 0;
    /// DATARAM → HBM.
    pub const S2M: u32 = 1;
    /// Queues per core.
    pub const COUNT: u32 = 2;
}

/// Size of an ARG_TENSOR descriptor (PLATFORM.md "ARG_TENSOR descriptor").
pub const ARG_TENSOR_SIZE: u32 = 0x30;
/// Most ARG_TENSOR descriptors a mailbox holds.
pub const MAX_ARGS: u32 = 16;
/// Largest console ring.
pub const MAX_CONSOLE: usize = 128 * 1024;
/// Default console ring.
pub const DEFAULT_CONSOLE: usize = 4 * 1024;

/// SoC side of the 16-entry SoC ↔ XT window table: base of entry 0.
pub const SOC_APERTURE_BASE: u64 = 0xF000_0000;
/// Size of one SoC aperture (seed: 64 KiB).
pub const SOC_APERTURE_SIZE: u64 = 0x1_0000;
/// Entries in the SoC ↔ XT window table (seed: 16).
pub const SOC_WINDOWS: u32 = 16;
/// Table index of core `prid`'s aperture (seed: 2·prid + 9).
pub const fn soc_window_index(prid: u32) -> u32 {
    2 * prid + 9
}

/// The cores' clock in Hz (PLATFORM.md "Cores"): what turns a cycle count into time, for
/// timelines and reports; nothing the emulator computes depends on it.
pub const CLOCK_HZ: u64 = 1_400_000_000;

/// Default HBM size (virtual; untouched pages cost nothing).
pub const DEFAULT_HBM_BYTES: u64 = 16 << 30;
