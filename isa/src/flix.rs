//! Vision-Q7 (ncore2gp) FLIX bundle lengths (isa/ISA.md §1.3).
//!
//! Bundles are recognised by length only; their slots are not public, so the emulator reports
//! them as unsupported Vision-Q7 vector bundles rather than guessing.

/// What the first bytes say about a bundle's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleLen {
    /// The bundle is this many bytes long (8 or 16).
    Bytes(u8),
    /// op0 = 0xF: byte 3 decides the length, and it is not available.
    NeedByte3,
    /// No bundle format starts this way (op0 0xF with `b3 & 0xF` of 7 or 15, or op0 not 0xE/0xF).
    Illegal,
}

/// Length of the bundle starting with `b0`, given byte 3 when available.
pub fn bundle_len(b0: u8, b3: Option<u8>) -> BundleLen {
    match (b0 & 0xf, b3) {
        // op0 = 0xE: formats F3 / F11, always 16 bytes.
        (0xe, _) => BundleLen::Bytes(16),
        (0xf, None) => BundleLen::NeedByte3,
        (0xf, Some(b3)) => match b3 & 0xf {
            0x7 | 0xf => BundleLen::Illegal,
            n if n % 2 == 0 => BundleLen::Bytes(8),
            _ => BundleLen::Bytes(16),
        },
        _ => BundleLen::Illegal,
    }
}
