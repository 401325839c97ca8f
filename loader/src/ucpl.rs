//! The UCPL image header (PLATFORM.md "Host ↔ device formats"; stage 6 of "Host flow"): 0x20 bytes in front of the fully relocated
//! `[code][data]` image that the host stages to the device.
//!
//! Seed facts: magic "UCPL " as the qword 0x204c504355, whose byte 4 (0x20, the space) doubles
//! as the device offset of the code segment; fields code_seg_len, data_seg_off, data_seg_len,
//! init, fini, start_sym; no version, checksum, section count or relocation table. The field
//! offsets after the magic are ours (PLATFORM.md, "Host ↔ device formats"): six little-endian
//! u32 at +0x08..+0x1c in the order the seed lists them.

/// The magic qword ("UCPL " followed by three zero bytes).
pub const MAGIC: u64 = 0x0020_4c50_4355;
/// Header size; also the code segment's offset in the image (byte 4 of the magic).
pub const SIZE: usize = 0x20;

/// A UCPL header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UcplHeader {
    /// Code segment length in bytes (the code follows the header at offset 0x20).
    pub code_seg_len: u32,
    /// Offset of the data segment in the image.
    pub data_seg_off: u32,
    /// Data segment length in bytes.
    pub data_seg_len: u32,
    /// Device address of the init routine (0: none).
    pub init: u32,
    /// Device address of the fini routine (0: none).
    pub fini: u32,
    /// Device address of the start symbol.
    pub start_sym: u32,
}

/// Why bytes are not a UCPL header.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UcplError {
    /// Fewer than 0x20 bytes.
    #[error("truncated UCPL header: {len} bytes, the header is 0x20")]
    Truncated {
        /// Bytes available.
        len: usize,
    },
    /// Wrong magic.
    #[error(
        "not a UCPL image: magic {found:#018x} at offset 0, expected {MAGIC:#018x} (\"UCPL \")"
    )]
    BadMagic {
        /// The qword found.
        found: u64,
    },
    /// A segment lies outside the image.
    #[error("UCPL {segment} segment {off:#x}+{len:#x} lies outside the {size:#x}-byte image")]
    SegmentOutOfRange {
        /// "code" or "data".
        segment: &'static str,
        /// Offset.
        off: u32,
        /// Length.
        len: u32,
        /// Image size.
        size: usize,
    },
}

impl UcplHeader {
    /// The 0x20 header bytes.
    pub fn encode(&self) -> [u8; SIZE] {
        let mut b = [0u8; SIZE];
        b[..8].copy_from_slice(&MAGIC.to_le_bytes());
        for (i, v) in [
            self.code_seg_len,
            self.data_seg_off,
            self.data_seg_len,
            self.init,
            self.fini,
            self.start_sym,
        ]
        .into_iter()
        .enumerate()
        {
            b[8 + 4 * i..12 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    /// Parses the header at the start of `image` and checks both segments lie inside it.
    pub fn decode(image: &[u8]) -> Result<UcplHeader, UcplError> {
        if image.len() < SIZE {
            return Err(UcplError::Truncated { len: image.len() });
        }
        let magic = u64::from_le_bytes(image[..8].try_into().expect("8 bytes"));
        if magic != MAGIC {
            return Err(UcplError::BadMagic { found: magic });
        }
        let w = |i: usize| {
            u32::from_le_bytes(image[8 + 4 * i..12 + 4 * i].try_into().expect("4 bytes"))
        };
        let h = UcplHeader {
            code_seg_len: w(0),
            data_seg_off: w(1),
            data_seg_len: w(2),
            init: w(3),
            fini: w(4),
            start_sym: w(5),
        };
        let fits = |off: u32, len: u32| u64::from(off) + u64::from(len) <= image.len() as u64;
        if !fits(SIZE as u32, h.code_seg_len) {
            return Err(UcplError::SegmentOutOfRange {
                segment: "code",
                off: SIZE as u32,
                len: h.code_seg_len,
                size: image.len(),
            });
        }
        if !fits(h.data_seg_off, h.data_seg_len) {
            return Err(UcplError::SegmentOutOfRange {
                segment: "data",
                off: h.data_seg_off,
                len: h.data_seg_len,
                size: image.len(),
            });
        }
        Ok(h)
    }

    /// The code segment's offset in the image: byte 4 of the magic (0x20).
    pub fn code_seg_off(&self) -> u32 {
        MAGIC.to_le_bytes()[4] as u32
    }
}
