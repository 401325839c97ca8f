//! The dynamic section of a device image as the prelinker reads it, through `object`'s typed
//! ELF records: the [`Dyn32`] entries before DT_NULL ([`entries`]), checked against the table of
//! dynamic tags ([`TAGS`], by [`check`]), the tags the prelinker uses ([`Dynamic`]), the [`Rela32`]
//! relocation table they name ([`Dynamic::rela_table`], [`relocations`]), and the dynamic
//! symbol table and PLT relocations that name what an image left undefined ([`Linkage`]).
//! Records are copied out of the file bytes, so nothing depends on where the host buffer sits; a
//! trailing partial record is not a record. Every entry and relocation comes with its index, so
//! a check can name what it refuses.

use std::mem::size_of;

use object::elf::*;
use object::{LittleEndian as LE, Pod, I32, U16, U32};

/// Bytes of one `Rela32` relocation: the only DT_RELAENT accepted.
pub const RELA_ENTRY: u32 = size_of::<Rela32<LE>>() as u32;
/// Bytes of one `Dyn32` entry.
pub const DYN_ENTRY: u32 = size_of::<Dyn32<LE>>() as u32;
/// Bytes of one `Sym32` dynamic symbol.
pub const SYM_ENTRY: u32 = size_of::<Sym32<LE>>() as u32;

/// Xtensa's processor-specific tag giving the address of `.got.loc` (DT_LOPROC + 0 in the
/// Xtensa ELF ABI; `object` has no constant for it).
pub const DT_XTENSA_GOT_LOC_OFF: u32 = DT_LOPROC;
/// Xtensa's processor-specific tag giving the size of `.got.loc` (DT_LOPROC + 1).
pub const DT_XTENSA_GOT_LOC_SZ: u32 = DT_LOPROC + 1;

/// How the prelinker treats a dynamic tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagUse {
    /// Read by the prelinker ([`Dynamic`], [`Linkage`]).
    Read,
    /// Linker bookkeeping the device has no use for: accepted, not read.
    Ignored,
    /// Asks for something the prelinker does not provide: the image is refused, saying why.
    Refused(&'static str),
}

/// Every dynamic tag the prelinker knows: value, name, treatment. A tag not listed is refused.
pub const TAGS: &[(u32, &str, TagUse)] = &[
    (DT_NULL, "DT_NULL", TagUse::Read),
    (
        DT_NEEDED,
        "DT_NEEDED",
        TagUse::Refused(
            "the image needs another shared library; a device image must be self-contained",
        ),
    ),
    (DT_PLTRELSZ, "DT_PLTRELSZ", TagUse::Read),
    (DT_PLTGOT, "DT_PLTGOT", TagUse::Ignored),
    (DT_HASH, "DT_HASH", TagUse::Ignored),
    (DT_STRTAB, "DT_STRTAB", TagUse::Read),
    (DT_SYMTAB, "DT_SYMTAB", TagUse::Read),
    (DT_RELA, "DT_RELA", TagUse::Read),
    (DT_RELASZ, "DT_RELASZ", TagUse::Read),
    (DT_RELAENT, "DT_RELAENT", TagUse::Read),
    (DT_STRSZ, "DT_STRSZ", TagUse::Read),
    (DT_SYMENT, "DT_SYMENT", TagUse::Ignored),
    (DT_INIT, "DT_INIT", TagUse::Read),
    (DT_FINI, "DT_FINI", TagUse::Read),
    (DT_SONAME, "DT_SONAME", TagUse::Ignored),
    (DT_RPATH, "DT_RPATH", TagUse::Ignored),
    (DT_SYMBOLIC, "DT_SYMBOLIC", TagUse::Ignored),
    (
        DT_REL,
        "DT_REL",
        TagUse::Refused(
            "REL-format relocations are not applied; Xtensa images carry RELA (DT_RELA)",
        ),
    ),
    (DT_RELSZ, "DT_RELSZ", TagUse::Ignored),
    (DT_RELENT, "DT_RELENT", TagUse::Ignored),
    (DT_PLTREL, "DT_PLTREL", TagUse::Ignored),
    (DT_DEBUG, "DT_DEBUG", TagUse::Ignored),
    (DT_TEXTREL, "DT_TEXTREL", TagUse::Ignored),
    (DT_JMPREL, "DT_JMPREL", TagUse::Read),
    (DT_BIND_NOW, "DT_BIND_NOW", TagUse::Ignored),
    (DT_INIT_ARRAY, "DT_INIT_ARRAY", TagUse::Ignored),
    (DT_FINI_ARRAY, "DT_FINI_ARRAY", TagUse::Ignored),
    (DT_INIT_ARRAYSZ, "DT_INIT_ARRAYSZ", TagUse::Ignored),
    (DT_FINI_ARRAYSZ, "DT_FINI_ARRAYSZ", TagUse::Ignored),
    (DT_RUNPATH, "DT_RUNPATH", TagUse::Ignored),
    (DT_FLAGS, "DT_FLAGS", TagUse::Ignored),
    (DT_PREINIT_ARRAY, "DT_PREINIT_ARRAY", TagUse::Ignored),
    (DT_PREINIT_ARRAYSZ, "DT_PREINIT_ARRAYSZ", TagUse::Ignored),
    (DT_SYMTAB_SHNDX, "DT_SYMTAB_SHNDX", TagUse::Ignored),
    (DT_GNU_HASH, "DT_GNU_HASH", TagUse::Ignored),
    (DT_VERSYM, "DT_VERSYM", TagUse::Ignored),
    (DT_RELACOUNT, "DT_RELACOUNT", TagUse::Ignored),
    (DT_RELCOUNT, "DT_RELCOUNT", TagUse::Ignored),
    (DT_FLAGS_1, "DT_FLAGS_1", TagUse::Ignored),
    (DT_VERDEF, "DT_VERDEF", TagUse::Ignored),
    (DT_VERDEFNUM, "DT_VERDEFNUM", TagUse::Ignored),
    (DT_VERNEED, "DT_VERNEED", TagUse::Ignored),
    (DT_VERNEEDNUM, "DT_VERNEEDNUM", TagUse::Ignored),
    (
        DT_XTENSA_GOT_LOC_OFF,
        "DT_XTENSA_GOT_LOC_OFF",
        TagUse::Ignored,
    ),
    (
        DT_XTENSA_GOT_LOC_SZ,
        "DT_XTENSA_GOT_LOC_SZ",
        TagUse::Ignored,
    ),
];

/// The name of dynamic tag `tag` in [`TAGS`].
pub fn tag_name(tag: u32) -> Option<&'static str> {
    TAGS.iter().find(|(t, ..)| *t == tag).map(|(_, n, _)| *n)
}

/// Every Xtensa relocation type of `object::elf`: value and name.
pub const RELOCATION_TYPES: &[(u32, &str)] = &[
    (R_XTENSA_NONE, "R_XTENSA_NONE"),
    (R_XTENSA_32, "R_XTENSA_32"),
    (R_XTENSA_RTLD, "R_XTENSA_RTLD"),
    (R_XTENSA_GLOB_DAT, "R_XTENSA_GLOB_DAT"),
    (R_XTENSA_JMP_SLOT, "R_XTENSA_JMP_SLOT"),
    (R_XTENSA_RELATIVE, "R_XTENSA_RELATIVE"),
    (R_XTENSA_PLT, "R_XTENSA_PLT"),
    (R_XTENSA_OP0, "R_XTENSA_OP0"),
    (R_XTENSA_OP1, "R_XTENSA_OP1"),
    (R_XTENSA_OP2, "R_XTENSA_OP2"),
    (R_XTENSA_ASM_EXPAND, "R_XTENSA_ASM_EXPAND"),
    (R_XTENSA_ASM_SIMPLIFY, "R_XTENSA_ASM_SIMPLIFY"),
    (R_XTENSA_32_PCREL, "R_XTENSA_32_PCREL"),
    (R_XTENSA_GNU_VTINHERIT, "R_XTENSA_GNU_VTINHERIT"),
    (R_XTENSA_GNU_VTENTRY, "R_XTENSA_GNU_VTENTRY"),
    (R_XTENSA_DIFF8, "R_XTENSA_DIFF8"),
    (R_XTENSA_DIFF16, "R_XTENSA_DIFF16"),
    (R_XTENSA_DIFF32, "R_XTENSA_DIFF32"),
    (R_XTENSA_SLOT0_OP, "R_XTENSA_SLOT0_OP"),
    (R_XTENSA_SLOT1_OP, "R_XTENSA_SLOT1_OP"),
    (R_XTENSA_SLOT2_OP, "R_XTENSA_SLOT2_OP"),
    (R_XTENSA_SLOT3_OP, "R_XTENSA_SLOT3_OP"),
    (R_XTENSA_SLOT4_OP, "R_XTENSA_SLOT4_OP"),
    (R_XTENSA_SLOT5_OP, "R_XTENSA_SLOT5_OP"),
    (R_XTENSA_SLOT6_OP, "R_XTENSA_SLOT6_OP"),
    (R_XTENSA_SLOT7_OP, "R_XTENSA_SLOT7_OP"),
    (R_XTENSA_SLOT8_OP, "R_XTENSA_SLOT8_OP"),
    (R_XTENSA_SLOT9_OP, "R_XTENSA_SLOT9_OP"),
    (R_XTENSA_SLOT10_OP, "R_XTENSA_SLOT10_OP"),
    (R_XTENSA_SLOT11_OP, "R_XTENSA_SLOT11_OP"),
    (R_XTENSA_SLOT12_OP, "R_XTENSA_SLOT12_OP"),
    (R_XTENSA_SLOT13_OP, "R_XTENSA_SLOT13_OP"),
    (R_XTENSA_SLOT14_OP, "R_XTENSA_SLOT14_OP"),
    (R_XTENSA_SLOT0_ALT, "R_XTENSA_SLOT0_ALT"),
    (R_XTENSA_SLOT1_ALT, "R_XTENSA_SLOT1_ALT"),
    (R_XTENSA_SLOT2_ALT, "R_XTENSA_SLOT2_ALT"),
    (R_XTENSA_SLOT3_ALT, "R_XTENSA_SLOT3_ALT"),
    (R_XTENSA_SLOT4_ALT, "R_XTENSA_SLOT4_ALT"),
    (R_XTENSA_SLOT5_ALT, "R_XTENSA_SLOT5_ALT"),
    (R_XTENSA_SLOT6_ALT, "R_XTENSA_SLOT6_ALT"),
    (R_XTENSA_SLOT7_ALT, "R_XTENSA_SLOT7_ALT"),
    (R_XTENSA_SLOT8_ALT, "R_XTENSA_SLOT8_ALT"),
    (R_XTENSA_SLOT9_ALT, "R_XTENSA_SLOT9_ALT"),
    (R_XTENSA_SLOT10_ALT, "R_XTENSA_SLOT10_ALT"),
    (R_XTENSA_SLOT11_ALT, "R_XTENSA_SLOT11_ALT"),
    (R_XTENSA_SLOT12_ALT, "R_XTENSA_SLOT12_ALT"),
    (R_XTENSA_SLOT13_ALT, "R_XTENSA_SLOT13_ALT"),
    (R_XTENSA_SLOT14_ALT, "R_XTENSA_SLOT14_ALT"),
    (R_XTENSA_TLSDESC_FN, "R_XTENSA_TLSDESC_FN"),
    (R_XTENSA_TLSDESC_ARG, "R_XTENSA_TLSDESC_ARG"),
    (R_XTENSA_TLS_DTPOFF, "R_XTENSA_TLS_DTPOFF"),
    (R_XTENSA_TLS_TPOFF, "R_XTENSA_TLS_TPOFF"),
    (R_XTENSA_TLS_FUNC, "R_XTENSA_TLS_FUNC"),
    (R_XTENSA_TLS_ARG, "R_XTENSA_TLS_ARG"),
    (R_XTENSA_TLS_CALL, "R_XTENSA_TLS_CALL"),
    (R_XTENSA_PDIFF8, "R_XTENSA_PDIFF8"),
    (R_XTENSA_PDIFF16, "R_XTENSA_PDIFF16"),
    (R_XTENSA_PDIFF32, "R_XTENSA_PDIFF32"),
    (R_XTENSA_NDIFF8, "R_XTENSA_NDIFF8"),
    (R_XTENSA_NDIFF16, "R_XTENSA_NDIFF16"),
    (R_XTENSA_NDIFF32, "R_XTENSA_NDIFF32"),
];

/// The name of Xtensa relocation type `kind` in [`RELOCATION_TYPES`].
pub fn relocation_name(kind: u32) -> Option<&'static str> {
    RELOCATION_TYPES
        .iter()
        .find(|(t, _)| *t == kind)
        .map(|(_, n)| *n)
}

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
    /// No entry before DT_NULL (a zeroed section reads so).
    #[error("PT_DYNAMIC at file offset {offset:#x} ({size} bytes) has no entries: its first entry is DT_NULL or missing")]
    Empty {
        /// File offset of the segment.
        offset: u32,
        /// Its file size.
        size: usize,
    },
    /// No DT_NULL ends the entries.
    #[error("PT_DYNAMIC at file offset {offset:#x} has no DT_NULL among its {count} entries")]
    Unterminated {
        /// File offset of the segment.
        offset: u32,
        /// Whole entries in the segment.
        count: usize,
    },
    /// A tag not in [`TAGS`].
    #[error("unknown tag {tag:#x}")]
    UnknownTag {
        /// The tag.
        tag: u32,
    },
    /// A tag [`TAGS`] refuses.
    #[error("{name}: {why}")]
    RefusedTag {
        /// The tag's name.
        name: &'static str,
        /// Why it is refused.
        why: &'static str,
    },
    /// DT_RELASZ is not a whole number of relocations.
    #[error("DT_RELASZ is {size}, not a multiple of the {RELA_ENTRY}-byte DT_RELAENT")]
    RelaSize {
        /// DT_RELASZ.
        size: u32,
    },
    /// One tag of a pair that needs the other.
    #[error("{present} without {missing}")]
    Unpaired {
        /// The tag present.
        present: &'static str,
        /// The tag it needs.
        missing: &'static str,
    },
    /// A problem of one entry, with where it is.
    #[error("entry {index} at file offset {offset:#x}: {problem}")]
    Entry {
        /// Index of the entry.
        index: usize,
        /// Its file offset.
        offset: u32,
        /// What is wrong with it.
        problem: Box<DynamicError>,
    },
}

/// Checks the dynamic entries of a PT_DYNAMIC segment's contents `bytes`, found at file offset
/// `offset`: at least one entry, a DT_NULL after them, every tag known to [`TAGS`] and none it
/// refuses, DT_RELAENT the `Rela32` size, DT_RELASZ a whole number of relocations, and DT_RELA,
/// DT_RELASZ and DT_JMPREL, DT_PLTRELSZ each with its partner. Errors name the entry and its
/// file offset.
pub fn check(bytes: &[u8], offset: u32) -> Result<(), DynamicError> {
    let count = bytes.len() / DYN_ENTRY as usize;
    let all = entries(bytes);
    if all.is_empty() {
        return Err(DynamicError::Empty {
            offset,
            size: bytes.len(),
        });
    }
    if all.len() == count {
        return Err(DynamicError::Unterminated { offset, count });
    }
    let at = |index: usize, problem: DynamicError| DynamicError::Entry {
        index,
        offset: offset.wrapping_add((index as u32).wrapping_mul(DYN_ENTRY)),
        problem: Box::new(problem),
    };
    let first = |tag: u32| all.iter().find(|(_, d)| d.d_tag.get(LE) == tag);
    for (index, d) in &all {
        let tag = d.d_tag.get(LE);
        match TAGS.iter().find(|(t, ..)| *t == tag) {
            None => return Err(at(*index, DynamicError::UnknownTag { tag })),
            Some((_, name, TagUse::Refused(why))) => {
                return Err(at(*index, DynamicError::RefusedTag { name, why }))
            }
            Some(_) => {}
        }
    }
    if let Some((index, d)) = first(DT_RELAENT) {
        let found = d.d_val.get(LE);
        if found != RELA_ENTRY {
            return Err(at(*index, DynamicError::RelaEntrySize { found }));
        }
    }
    if let Some((index, d)) = first(DT_RELASZ) {
        let size = d.d_val.get(LE);
        if size % RELA_ENTRY != 0 {
            return Err(at(*index, DynamicError::RelaSize { size }));
        }
    }
    for (a, b) in [(DT_RELA, DT_RELASZ), (DT_JMPREL, DT_PLTRELSZ)] {
        for (present, missing) in [(a, b), (b, a)] {
            if let (Some((index, _)), None) = (first(present), first(missing)) {
                let name = |t| tag_name(t).expect("the pairs are in TAGS");
                return Err(at(
                    *index,
                    DynamicError::Unpaired {
                        present: name(present),
                        missing: name(missing),
                    },
                ));
            }
        }
    }
    Ok(())
}

/// The bytes `addr..addr + size` (link addresses) from the first of `segments` (link address,
/// file bytes) that holds all of them.
fn bytes_at<'a>(segments: &[(u32, &'a [u8])], addr: u32, size: u32) -> Option<&'a [u8]> {
    segments.iter().find_map(|&(start, bytes)| {
        let off = addr.checked_sub(start)? as usize;
        bytes.get(off..off.checked_add(size as usize)?)
    })
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
        bytes_at(segments, addr, self.relasz).ok_or(DynamicError::RelaOutside {
            addr,
            size: self.relasz,
        })
    }
}

/// Where an image's dynamic symbol table and PLT relocations are, as its dynamic section says:
/// what names the symbols a link left undefined. The prelinker applies none of it; it reads it
/// only to say what an image it refuses is missing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Linkage {
    /// DT_JMPREL: link address of the PLT relocations.
    pub jmprel: Option<u32>,
    /// DT_PLTRELSZ: their size in bytes (0 when absent).
    pub pltrelsz: u32,
    /// DT_SYMTAB: link address of the dynamic symbol table.
    pub symtab: Option<u32>,
    /// DT_STRTAB: link address of its string table.
    pub strtab: Option<u32>,
    /// DT_STRSZ: the string table's size (0 when absent).
    pub strsz: u32,
}

/// A dynamic symbol as [`Linkage::symbol`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynSymbol {
    /// Its name.
    pub name: String,
    /// SHN_UNDEF: the link left it undefined.
    pub undefined: bool,
}

impl Linkage {
    /// Reads the tags of a PT_DYNAMIC segment's contents (the first entry of a tag counts).
    pub fn parse(bytes: &[u8]) -> Linkage {
        let entries = entries(bytes);
        let tag = |t: u32| {
            entries
                .iter()
                .find(|(_, d)| d.d_tag.get(LE) == t)
                .map(|(_, d)| d.d_val.get(LE))
        };
        Linkage {
            jmprel: tag(DT_JMPREL),
            pltrelsz: tag(DT_PLTRELSZ).unwrap_or(0),
            symtab: tag(DT_SYMTAB),
            strtab: tag(DT_STRTAB),
            strsz: tag(DT_STRSZ).unwrap_or(0),
        }
    }

    /// Whole PLT relocations DT_PLTRELSZ counts.
    pub fn plt_relocations(&self) -> u32 {
        self.pltrelsz / RELA_ENTRY
    }

    /// Dynamic symbol `index`, read from `segments` (link address, file bytes); `None` when the
    /// table or its name is not there or the name is empty (a packager that drops `.dynsym` and
    /// `.dynstr` leaves zeroes).
    pub fn symbol(&self, segments: &[(u32, &[u8])], index: u32) -> Option<DynSymbol> {
        let at = self.symtab?.checked_add(index.checked_mul(SYM_ENTRY)?)?;
        let zero = Sym32 {
            st_name: U32::new(LE, 0),
            st_value: U32::new(LE, 0),
            st_size: U32::new(LE, 0),
            st_info: 0,
            st_other: 0,
            st_shndx: U16::new(LE, 0),
        };
        let sym = records(bytes_at(segments, at, SYM_ENTRY)?, zero)[0];
        let strings = bytes_at(segments, self.strtab?, self.strsz)?;
        let name = strings.get(sym.st_name.get(LE) as usize..)?;
        let name = &name[..name.iter().position(|&b| b == 0)?];
        (!name.is_empty()).then(|| DynSymbol {
            name: String::from_utf8_lossy(name).into_owned(),
            undefined: sym.st_shndx.get(LE) == SHN_UNDEF,
        })
    }

    /// The symbols of the first `max` PLT relocations (DT_JMPREL), as [`Self::symbol`] reads
    /// them; empty when the relocations are not in `segments`.
    pub fn plt_symbols(&self, segments: &[(u32, &[u8])], max: usize) -> Vec<Option<DynSymbol>> {
        let Some(table) = self
            .jmprel
            .and_then(|addr| bytes_at(segments, addr, self.pltrelsz))
        else {
            return Vec::new();
        };
        relocations(table)
            .iter()
            .take(max)
            .map(|r| self.symbol(segments, r.r_sym(LE)))
            .collect()
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

    #[test]
    fn check_names_the_entry_and_its_file_offset() {
        let ok = section(&[
            (DT_RELA, 0x100),
            (DT_RELASZ, 24),
            (DT_RELAENT, 12),
            (DT_NULL, 0),
        ]);
        assert_eq!(check(&ok, 0x200), Ok(()));
        let err = |entries: &[(u32, u32)]| check(&section(entries), 0x200).unwrap_err().to_string();
        assert_eq!(
            err(&[(DT_RELA, 0x100), (DT_RELASZ, 25), (DT_NULL, 0)]),
            "entry 1 at file offset 0x208: DT_RELASZ is 25, not a multiple of the 12-byte DT_RELAENT"
        );
        assert_eq!(
            err(&[(DT_RELAENT, 8), (DT_NULL, 0)]),
            "entry 0 at file offset 0x200: DT_RELAENT is 8, expected 12"
        );
        assert_eq!(
            err(&[(DT_HASH, 0), (0x6fff_0123, 7), (DT_NULL, 0)]),
            "entry 1 at file offset 0x208: unknown tag 0x6fff0123"
        );
        assert_eq!(
            err(&[(DT_REL, 0x100), (DT_NULL, 0)]),
            "entry 0 at file offset 0x200: DT_REL: REL-format relocations are not applied; Xtensa images carry RELA (DT_RELA)"
        );
        assert_eq!(
            err(&[(DT_HASH, 0), (DT_PLTRELSZ, 12), (DT_NULL, 0)]),
            "entry 1 at file offset 0x208: DT_PLTRELSZ without DT_JMPREL"
        );
        assert_eq!(
            err(&[(DT_NULL, 0), (DT_HASH, 0)]),
            "PT_DYNAMIC at file offset 0x200 (16 bytes) has no entries: its first entry is DT_NULL or missing"
        );
        assert_eq!(
            err(&[(DT_HASH, 0), (DT_SYMTAB, 0)]),
            "PT_DYNAMIC at file offset 0x200 has no DT_NULL among its 2 entries"
        );
    }

    #[test]
    fn tag_and_relocation_names_are_one_table_each() {
        for (table, what) in [
            (
                TAGS.iter().map(|(v, n, _)| (*v, *n)).collect::<Vec<_>>(),
                "tag",
            ),
            (RELOCATION_TYPES.to_vec(), "relocation type"),
        ] {
            for (i, (v, n)) in table.iter().enumerate() {
                assert!(
                    table[i + 1..].iter().all(|(w, m)| w != v && m != n),
                    "{what} {v:#x} {n} is listed twice"
                );
            }
        }
        assert_eq!(relocation_name(2), Some("R_XTENSA_RTLD"));
        assert_eq!(relocation_name(R_XTENSA_NDIFF32), Some("R_XTENSA_NDIFF32"));
        assert_eq!(relocation_name(7), None, "7 is unassigned");
        assert_eq!(tag_name(DT_XTENSA_GOT_LOC_SZ), Some("DT_XTENSA_GOT_LOC_SZ"));
    }

    #[test]
    fn a_dynamic_symbol_is_named_from_the_tables_the_dynamic_section_gives() {
        // Symbol 1 (`foo`, undefined) at 0x1010 and its strings at 0x1030, in one segment;
        // one PLT relocation against it at 0x1040.
        let mut seg = [0u8; 0x50];
        seg[0x10 + 16..0x10 + 20].copy_from_slice(&1u32.to_le_bytes()); // st_name
        seg[0x31..0x35].copy_from_slice(b"foo\0");
        seg[0x40..0x44].copy_from_slice(&0x2000u32.to_le_bytes());
        seg[0x44..0x48].copy_from_slice(&((1u32 << 8) | R_XTENSA_JMP_SLOT).to_le_bytes());
        let l = Linkage {
            jmprel: Some(0x1040),
            pltrelsz: 12,
            symtab: Some(0x1010),
            strtab: Some(0x1030),
            strsz: 8,
        };
        let segs = [(0x1000, &seg[..])];
        let foo = DynSymbol {
            name: "foo".into(),
            undefined: true,
        };
        assert_eq!(l.symbol(&segs, 1), Some(foo.clone()));
        assert_eq!(l.symbol(&segs, 0), None, "the null symbol has no name");
        assert_eq!(l.plt_symbols(&segs, 8), vec![Some(foo)]);
        let stripped = [(0x1000, &[0u8; 0x50][..])];
        assert_eq!(l.plt_symbols(&stripped, 8), vec![None]);
        assert_eq!(l.plt_relocations(), 1);
    }
}
