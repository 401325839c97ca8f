//! Vision-Q7 (ncore2gp) FLIX bundle lengths (reference/xtensa-isa.md §1.3).
//!
//! Bundles are recognised by length only; their slots are not public, so the emulator reports
//! them as unsupported Vision-Q7 vector bundles rather than guessing.

/// Length of the instruction starting with `b0` when op0 (`b0 & 0xF`) is 0xE or 0xF on ncore2gp,
/// given byte 3 when available. `Ok(None)` means byte 3 is needed; `Err(())` an illegal length
/// (op0 0xF with `b3 & 0xF` of 7 or 15) or a first byte that does not start a bundle.
pub fn bundle_len(b0: u8, b3: Option<u8>) -> Result<Option<u8>, ()> {
    match b0 & 0xf {
        // op0 = 0xE: formats F3 / F11, always 16 bytes.
        0xe => Ok(Some(16)),
        0xf => match b3 {
            None => Ok(None),
            Some(b3) => match b3 & 0xf {
                0x7 | 0xf => Err(()),
                n if n % 2 == 0 => Ok(Some(8)),
                _ => Ok(Some(16)),
            },
        },
        _ => Err(()),
    }
}
