//! The UCPL image's `KTAB` trailer (ours, PLATFORM.md "Host ↔ device formats"): where the
//! `.kernel_info_table` lands on the device, since the stripped image has no section headers.
//! Right after the data segment: the 4 bytes `"KTAB"`, u32 LE device address of the table, u32
//! LE its size in bytes. The prelinker writes it; the firmware binds the table from it.

use crate::ucpl::UcplHeader;

/// The trailer's magic.
pub const MAGIC: &[u8; 4] = b"KTAB";
/// The trailer's size in bytes.
pub const SIZE: usize = 12;

/// A decoded trailer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KtabTrailer {
    /// Device address of the `.kernel_info_table`.
    pub addr: u32,
    /// Its size in bytes.
    pub size: u32,
}

impl KtabTrailer {
    /// The trailer bytes.
    pub fn encode(&self) -> [u8; SIZE] {
        let mut b = [0u8; SIZE];
        b[..4].copy_from_slice(MAGIC);
        b[4..8].copy_from_slice(&self.addr.to_le_bytes());
        b[8..].copy_from_slice(&self.size.to_le_bytes());
        b
    }

    /// The trailer at the start of `bytes`; `None` when they are too short or lack the magic.
    pub fn decode(bytes: &[u8]) -> Option<KtabTrailer> {
        let b: &[u8; SIZE] = bytes.get(..SIZE)?.try_into().ok()?;
        (&b[..4] == MAGIC).then(|| KtabTrailer {
            addr: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            size: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
        })
    }

    /// The trailer of UCPL `image` with header `header`: right after its data segment. `None`
    /// when the image carries none (it registers no kernels).
    pub fn of_image(header: &UcplHeader, image: &[u8]) -> Option<KtabTrailer> {
        let end = header.data_seg_off as usize + header.data_seg_len as usize;
        Self::decode(image.get(end..)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trailer_is_magic_then_address_then_size_little_endian() {
        let t = KtabTrailer {
            addr: 0x8400_1234,
            size: 0x18,
        };
        assert_eq!(
            t.encode(),
            [b'K', b'T', b'A', b'B', 0x34, 0x12, 0x00, 0x84, 0x18, 0, 0, 0]
        );
        assert_eq!(KtabTrailer::decode(&t.encode()), Some(t));
    }

    #[test]
    fn short_or_unmarked_bytes_are_no_trailer() {
        let mut b = KtabTrailer { addr: 1, size: 8 }.encode();
        assert_eq!(KtabTrailer::decode(&b[..SIZE - 1]), None);
        b[0] = b'k';
        assert_eq!(KtabTrailer::decode(&b), None);
    }

    #[test]
    fn the_trailer_of_an_image_follows_its_data_segment() {
        let h = UcplHeader {
            code_seg_len: 4,
            data_seg_off: 0x24,
            data_seg_len: 4,
            init: 0,
            fini: 0,
            start_sym: 0,
        };
        let mut image = h.encode().to_vec();
        image.extend_from_slice(&[0; 8]);
        assert_eq!(KtabTrailer::of_image(&h, &image), None, "no trailer");
        let t = KtabTrailer {
            addr: 0x8400_0040,
            size: 16,
        };
        image.extend_from_slice(&t.encode());
        assert_eq!(KtabTrailer::of_image(&h, &image), Some(t));
    }
}
