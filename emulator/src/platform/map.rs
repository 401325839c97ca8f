//! The per-core address map and device register offsets of PLATFORM.md — the one place the
//! emulator takes them from (tests check this file against PLATFORM.md).

/// Instruction RAM (boot ROM window handlers at VECBASE = 0, then code).
pub const IRAM: (u32, u32) = (0x0000_0000, 0x0001_0000);
/// Data RAM / TCM; the whole range is the SDMA staging window.
pub const DATARAM: (u32, u32) = (0x0008_0000, 0x0001_0000);
/// Firmware data band.
pub const FWDATA: (u32, u32) = (0x0200_0000, 0x0010_0000);
/// Device registers.
pub const MMIO: (u32, u32) = (0x0300_0000, 0x0001_0000);
/// The five 16 MiB translate windows.
pub const XLATE: (u32, u32) = (0x8400_0000, 0x0500_0000);

/// Number of translate windows.
pub const WINDOWS: u32 = 5;
/// Size of one translate window.
pub const WINDOW_SIZE: u32 = 0x0100_0000;
/// Windows pinned to HBM scratch at boot (0 and 1).
pub const PINNED_WINDOWS: u32 = 2;

/// Per-core image window (2 MiB) of core `prid` (seed 001/002/003).
pub const fn image_window(prid: u32) -> (u32, u32) {
    (0x8400_0000 + prid * 0x0020_0000, 0x0020_0000)
}

/// The single-core image window (32 MiB at 0x84000000).
pub const SINGLE_CORE_IMAGE_WINDOW: (u32, u32) = (0x8400_0000, 0x0200_0000);

/// MMIO offsets (add to `MMIO.0`).
pub mod reg {
    /// MEM_WINDOW_BASE_LO of window `w`.
    pub const fn mem_window_base_lo(w: u32) -> u32 {
        w * 0x10
    }
    /// MEM_WINDOW_BASE_HI of window `w`.
    pub const fn mem_window_base_hi(w: u32) -> u32 {
        0x4 + w * 0x10
    }
    /// MEM_WINDOW_CTRL of window `w`.
    pub const fn mem_window_ctrl(w: u32) -> u32 {
        0x8 + w * 0x10
    }
    /// SDMA_RING_BASE of queue `q`.
    pub const fn sdma_ring_base(q: u32) -> u32 {
        0x1000 + q * 0x20
    }
    /// SDMA_RING_SIZE of queue `q`.
    pub const fn sdma_ring_size(q: u32) -> u32 {
        0x1004 + q * 0x20
    }
    /// SDMA_DOORBELL of queue `q`.
    pub const fn sdma_doorbell(q: u32) -> u32 {
        0x1008 + q * 0x20
    }
    /// SDMA_COMPLETED of queue `q`.
    pub const fn sdma_completed(q: u32) -> u32 {
        0x100c + q * 0x20
    }
    /// SDMA_WAIT of queue `q`.
    pub const fn sdma_wait(q: u32) -> u32 {
        0x1010 + q * 0x20
    }
    /// MBOX_OPCODE.
    pub const MBOX_OPCODE: u32 = 0x2000;
    /// MBOX_SUB_OPCODE.
    pub const MBOX_SUB_OPCODE: u32 = 0x2004;
    /// MBOX_NARGS.
    pub const MBOX_NARGS: u32 = 0x2008;
    /// MBOX_ARGS (0x30 bytes per ARG_TENSOR descriptor).
    pub const MBOX_ARGS: u32 = 0x2010;
    /// MBOX_RESPONSE (TPB_WRITE_RESPONSE).
    pub const MBOX_RESPONSE: u32 = 0x2400;
    /// MBOX_RESPONSE_VALID.
    pub const MBOX_RESPONSE_VALID: u32 = 0x2404;
    /// CONSOLE_PUTC.
    pub const CONSOLE_PUTC: u32 = 0x3000;
}

/// SDMA queue numbers.
pub mod queue {
    /// HBM → DATARAM.
    pub const M2S: u32 = 0;
    /// DATARAM → HBM.
    pub const S2M: u32 = 1;
}

/// Size of an ARG_TENSOR descriptor (seed 001).
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

/// HBM scratch: the region windows 0 and 1 are pinned to (32 MiB at HBM offset 0).
pub const HBM_SCRATCH: (u64, u64) = (0, 0x0200_0000);
/// Default HBM size (virtual; untouched pages cost nothing).
pub const DEFAULT_HBM_BYTES: u64 = 16 << 30;
