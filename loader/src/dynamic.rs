//! The dynamic section of a device image as the prelinker reads it, through `object`'s typed
//! ELF records: the [`Dyn32`] entries before DT_NULL ([`entries`]), the tags the prelinker uses
//! ([`Dynamic`]), and the [`Rela32`] relocation table they name ([`Dynamic::rela_table`],
//! [`relocations`]). Records are copied out of the file bytes, so nothing depends on where the
//! host buffer sits; a trailing partial record is not a record. Every entry and relocation
//! comes with its index, so a check can name what it refuses.

use std::mem::size_of;

use object::elf::{Dyn32, Rela32, DT_FINI, DT_INIT, DT_NULL, DT_RELA, DT_RELAENT, DT_RELASZ};
use object::{LittleEndian as LE, Pod, I32, U32};

/// Bytes of one `Rela32` relocation: the only DT_RELAENT accepted.
pub const RELA_ENTRY: u32 = size_of::<Rela32<LE>>() as u32;

/// Why the dynamic section cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DynamicError {
    /// DT_RELAENT is not the size of a `Rela32`.
    #[error("DT_RELAENT is {found}, expected {RELA_ENTRY}")]
    RelaEntrySize {
        /// The DT_RELAENT value.
        found: u32,
    },
    /// DT_RELA/DT_RELASZ name bytes outside both segments' file contents.
    #[error("DT_RELA {addr:#x}+{size:#x} is outside the loaded file bytes")]
    RelaOutside {
        /// DT_RELA.
        addr: u32,
        /// DT_RELASZ.
        size: u32,
    },
}

/// Whole records of `T` in `bytes`, copied out (so any alignment of `bytes` works).
fn records<T: Pod>(bytes: &[u8], zero: T) -> Vec<T> {
    let n = bytes.len() / size_of::<T>();
    let mut out = vec![zero; n];
    object::pod::bytes_of_slice_mut(&mut out).copy_from_slice(&bytes[..n * size_of::<T>()]);
    out
}

/// The dynamic entries of `bytes` (a PT_DYNAMIC segment's contents) before the first DT_NULL,
/// with their indices.
pub fn entries(bytes: &[u8]) -> Vec<(usize, Dyn32<LE>)> {
    let zero = Dyn32 {
        d_tag: U32::new(LE, 0),
        d_val: U32::new(LE, 0),
    };
    records(bytes, zero)
        .into_iter()
        .enumerate()
        .take_while(|(_, d)| d.d_tag.get(LE) != DT_NULL)
        .collect()
}

/// The relocations of a DT_RELA table's bytes, in order.
pub fn relocations(table: &[u8]) -> Vec<Rela32<LE>> {
    let zero = Rela32 {
        r_offset: U32::new(LE, 0),
        r_info: U32::new(LE, 0),
        r_addend: I32::new(LE, 0),
    };
    records(table, zero)
}

/// The tags the prelinker uses; where a tag repeats, its first entry counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dynamic {
    /// DT_RELA: link address of the relocation table.
    pub rela: Option<u32>,
    /// DT_RELASZ: its size in bytes (0 when absent).
    pub relasz: u32,
    /// DT_INIT.
    pub init: Option<u32>,
    /// DT_FINI.
    pub fini: Option<u32>,
}

impl Dynamic {
    /// Reads the tags of a PT_DYNAMIC segment's contents.
    pub fn parse(bytes: &[u8]) -> Result<Dynamic, DynamicError> {
        let entries = entries(bytes);
        let tag = |t: u32| {
            entries
                .iter()
                .find(|(_, d)| d.d_tag.get(LE) == t)
                .map(|(_, d)| d.d_val.get(LE))
        };
        let relaent = tag(DT_RELAENT).unwrap_or(RELA_ENTRY);
        if relaent != RELA_ENTRY {
            return Err(DynamicError::RelaEntrySize { found: relaent });
        }
        Ok(Dynamic {
            rela: tag(DT_RELA),
            relasz: tag(DT_RELASZ).unwrap_or(0),
            init: tag(DT_INIT),
            fini: tag(DT_FINI),
        })
    }

    /// The relocation table's bytes, found in the file contents of the first of `segments`
    /// (link address, bytes) that holds all of it; empty without DT_RELA.
    pub fn rela_table<'a>(&self, segments: &[(u32, &'a [u8])]) -> Result<&'a [u8], DynamicError> {
        let Some(addr) = self.rela else {
            return Ok(&[]);
        };
        segments
            .iter()
            .find_map(|&(start, bytes)| {
                let off = addr.checked_sub(start)? as usize;
                bytes.get(off..off.checked_add(self.relasz as usize)?)
            })
            .ok_or(DynamicError::RelaOutside {
                addr,
                size: self.relasz,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dynamic-section bytes of `(tag, value)` entries.
    fn section(entries: &[(u32, u32)]) -> Vec<u8> {
        entries
            .iter()
            .flat_map(|&(t, v)| [t.to_le_bytes(), v.to_le_bytes()])
            .flatten()
            .collect()
    }

    #[test]
    fn entries_stop_at_dt_null_and_the_first_of_a_tag_counts() {
        let bytes = section(&[
            (DT_RELA, 0x100),
            (DT_RELASZ, 24),
            (DT_INIT, 0x40),
            (DT_INIT, 0x80),
            (DT_NULL, 0),
            (DT_FINI, 0x60),
        ]);
        assert_eq!(entries(&bytes).len(), 4);
        assert_eq!(
            Dynamic::parse(&bytes),
            Ok(Dynamic {
                rela: Some(0x100),
                relasz: 24,
                init: Some(0x40),
                fini: None,
            })
        );
    }

    #[test]
    fn a_trailing_partial_entry_and_unaligned_bytes_read_the_same() {
        let mut bytes = vec![0xaa];
        bytes.extend(section(&[(DT_FINI, 0x60)]));
        bytes.extend([1, 2, 3]);
        assert_eq!(Dynamic::parse(&bytes[1..]).unwrap().fini, Some(0x60));
    }

    #[test]
    fn relaent_must_be_the_rela32_size() {
        assert_eq!(RELA_ENTRY, 12);
        assert_eq!(
            Dynamic::parse(&section(&[(DT_RELAENT, 8)])),
            Err(DynamicError::RelaEntrySize { found: 8 })
        );
        assert_eq!(
            DynamicError::RelaEntrySize { found: 8 }.to_string(),
            "DT_RELAENT is 8, expected 12"
        );
    }

    #[test]
    fn the_rela_table_is_found_in_the_segment_that_holds_it() {
        let (code, data) = ([1u8; 16], [2u8; 16]);
        let d = Dynamic {
            rela: Some(0x1004),
            relasz: 12,
            ..Dynamic::default()
        };
        let segs = [(0x0, &code[..]), (0x1000, &data[..])];
        assert_eq!(d.rela_table(&segs), Ok(&data[4..16]));
        let past = Dynamic { relasz: 13, ..d };
        assert_eq!(
            past.rela_table(&segs),
            Err(DynamicError::RelaOutside {
                addr: 0x1004,
                size: 13
            })
        );
        assert_eq!(Dynamic::default().rela_table(&segs), Ok(&[][..]));
    }

    #[test]
    fn relocations_are_whole_rela32_records() {
        let mut table = Vec::new();
        for w in [0x10u32, 5, 0xffff_fffc, 0x20, 0x0101, 0] {
            table.extend(w.to_le_bytes());
        }
        table.push(0);
        let r = relocations(&table);
        assert_eq!(r.len(), 2);
        assert_eq!(
            (
                r[0].r_offset.get(LE),
                r[0].r_type(LE),
                r[0].r_addend.get(LE)
            ),
            (0x10, 5, -4)
        );
        assert_eq!((r[1].r_sym(LE), r[1].r_type(LE)), (1, 1));
    }
}
