//! # q7-layout — the platform's address layout
//!
//! The per-core memory regions, translate windows and image windows of PLATFORM.md, defined once
//! for every crate that places bytes on the device: the emulator builds its bus from them and the
//! loader bounds images by them. A leaf: it depends on nothing. `tests/tests/all/platform_doc.rs`
//! checks these values against PLATFORM.md.
//!
//! A region is `(start, size)` in core addresses.

/// Instruction RAM (boot ROM window handlers at VECBASE = 0, then code).
pub const IRAM: (u32, u32) = (0x0000_0000, 0x0001_0000);
/// Data RAM / TCM; the whole range is the SDMA staging window.
pub const DATARAM: (u32, u32) = (0x0008_0000, 0x0001_0000);
/// Firmware data band.
pub const FWDATA: (u32, u32) = (0x0200_0000, 0x0010_0000);
/// Device registers.
pub const MMIO: (u32, u32) = (0x0300_0000, 0x0001_0000);

/// Number of translate windows.
pub const WINDOWS: u32 = 5;
/// Size of one translate window.
pub const WINDOW_SIZE: u32 = 0x0100_0000;
/// Windows pinned to HBM scratch at boot (0 and 1).
pub const PINNED_WINDOWS: u32 = 2;
/// The translate windows, back to back.
pub const XLATE: (u32, u32) = (0x8400_0000, WINDOWS * WINDOW_SIZE);

/// Every region of the per-core address map by its PLATFORM.md name, in address order: what
/// the documents and the SDK header list.
pub const REGIONS: [(&str, (u32, u32)); 5] = [
    ("IRAM", IRAM),
    ("DATARAM", DATARAM),
    ("FWDATA", FWDATA),
    ("MMIO", MMIO),
    ("XLATE", XLATE),
];

/// HBM scratch: the region the pinned windows map, from HBM offset 0.
pub const HBM_SCRATCH: (u64, u64) = (0, PINNED_WINDOWS as u64 * WINDOW_SIZE as u64);

/// Size of one core's image window (seed: 2 MiB).
pub const IMAGE_WINDOW_SIZE: u32 = 0x0020_0000;

/// Per-core image window of core `prid` (PLATFORM.md "Translate windows"): inside the pinned
/// windows.
pub const fn image_window(prid: u32) -> (u32, u32) {
    (XLATE.0 + prid * IMAGE_WINDOW_SIZE, IMAGE_WINDOW_SIZE)
}

/// Bytes the firmware's call trampoline takes at the end of each image window (PLATFORM.md
/// "Image size limits": the image gets the window less these).
pub const TRAMPOLINE_SIZE: u32 = 0x40;

/// The single-core image window: all of the pinned windows (seed: 32 MiB at 0x84000000).
pub const SINGLE_CORE_IMAGE_WINDOW: (u32, u32) = (XLATE.0, PINNED_WINDOWS * WINDOW_SIZE);

/// The pinned windows as one range: where every image window lies, the memory the seeds call
/// the library's SRAM (its own latency class, `TimingModel::sram_latency`; PLATFORM.md "Per-core
/// address map").
pub const PINNED_XLATE: (u32, u32) = SINGLE_CORE_IMAGE_WINDOW;
// The pinned windows open the translate windows: an offset into XLATE below PINNED_XLATE's
// size is in them (the emulator's bus classifies accesses so).
const _: () = assert!(PINNED_XLATE.0 == XLATE.0 && PINNED_XLATE.1 <= XLATE.1);

/// The largest image any device buffer can hold: the single-core image window.
pub const MAX_IMAGE_BYTES: u64 = SINGLE_CORE_IMAGE_WINDOW.1 as u64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_windows_have_their_seed_values() {
        assert_eq!(XLATE, (0x8400_0000, 0x0500_0000));
        assert_eq!(image_window(0), (0x8400_0000, 0x0020_0000));
        assert_eq!(image_window(7), (0x84e0_0000, 0x0020_0000));
        assert_eq!(SINGLE_CORE_IMAGE_WINDOW, (0x8400_0000, 0x0200_0000));
        assert_eq!(MAX_IMAGE_BYTES, 32 << 20);
    }

    #[test]
    fn eight_image_windows_fit_in_the_pinned_windows_over_hbm_scratch() {
        let (start, size) = image_window(7);
        let end = u64::from(start + size);
        let pinned_end = u64::from(XLATE.0) + HBM_SCRATCH.1;
        assert!(end <= pinned_end, "{end:#x} > {pinned_end:#x}");
        assert_eq!(HBM_SCRATCH, (0, 0x0200_0000));
    }

    #[test]
    fn local_regions_are_disjoint_and_below_the_windows() {
        let regions = [IRAM, DATARAM, FWDATA, MMIO];
        for (i, &(a, la)) in regions.iter().enumerate() {
            for &(b, lb) in &regions[i + 1..] {
                assert!(a + la <= b || b + lb <= a, "{a:#x} and {b:#x} overlap");
            }
            assert!(a + la <= XLATE.0);
        }
    }
}
