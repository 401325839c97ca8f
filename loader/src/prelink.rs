//! The host prelinker (PLATFORM.md "Host flow", stage 6): validate a device image, load its two PT_LOAD
//! segments (zero-filled bss), apply every relocation against the device base — only
//! self-relative ones are allowed — and emit the UCPL image `[header][code][data]`.
//!
//! Device layout: the UCPL image is staged contiguously at the device base, so the code segment
//! sits at base + 0x20 (the magic's byte 4, PLATFORM.md "Host ↔ device formats") and the data segment follows at its
//! link-time distance from the code (any page gap between them is zero-filled and counted in
//! `code_seg_len`). Relocation semantics, with `bias` = base + 0x20 − link address of the code
//! segment: R_XTENSA_NONE does nothing; R_XTENSA_RELATIVE and
//! R_XTENSA_32 (symbol index 0) add `bias + A` to the word in place — GNU ld writes the
//! link-time address into the word and leaves r_addend 0, as the Xtensa dynamic loader
//! expects (`*where += load_bias + r_addend`). Any relocation naming a symbol (`r_info > 0xff`) or of another type is
//! rejected, naming it: a packaged image must be fully self-relative (PLATFORM.md "Image size limits"). So is a
//! relocation whose word is not 4-byte aligned, and an image with PLT relocations (DT_JMPREL):
//! both mean a link that went wrong — an undefined function is called through a PLT, whose
//! R_XTENSA_RTLD and R_XTENSA_JMP_SLOT relocations nothing on the device resolves — and the error
//! names the undefined symbols where the image still has its dynamic symbol table.
//!
//! The dynamic section is checked first ([`dynamic::check`]): entries present and terminated,
//! every tag known, DT_RELASZ a whole number of relocations; errors name the entry and its file
//! offset.
//!
//! Where the `.kernel_info_table` goes once sections are gone (ours, PLATFORM.md): the UCPL
//! image ends with a [`KtabTrailer`] after the data segment (see [`PrelinkedImage::ucpl`]).
//!
//! The dynamic section and relocations are read through [`crate::dynamic`]; ELF constants come
//! from `object::elf`.

use object::elf::{
    R_XTENSA_32, R_XTENSA_JMP_SLOT, R_XTENSA_NONE, R_XTENSA_PLT, R_XTENSA_RELATIVE, R_XTENSA_RTLD,
};
use object::LittleEndian as LE;

use crate::dynamic::{self, relocation_name, DynSymbol, Dynamic, DynamicError, Linkage};
use crate::elf::{ElfError, ElfFile, ElfKind};
use crate::ktab::{self, KtabTrailer};
use crate::ucpl::{self, UcplHeader};

/// The byte cap of libraries staged through the EXTISA path (PLATFORM.md "Image size limits": `cmpq $0x10001`).
pub const EXTISA_CAP: u32 = 0x1_0000;
/// The largest image any device buffer can hold: the single-core image window (PLATFORM.md,
/// "Image size limits"). Spans beyond it are refused before anything is allocated.
pub use q7_layout::MAX_IMAGE_BYTES;
/// The seed's error text for a prelinked image larger than its device buffer.
pub const TOO_LARGE: &str = "Prelinked library would be larger than the available buffer on device";

/// Why an image does not prelink.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrelinkError {
    /// Not a usable ELF32 Xtensa file.
    #[error("device image: {0}")]
    Elf(#[from] ElfError),
    /// Not ET_DYN or ET_EXEC.
    #[error("device image is {kind:?}, expected a linked image (ET_DYN)")]
    NotLinked {
        /// Found.
        kind: ElfKind,
    },
    /// PT_DYNAMIC missing.
    #[error("device image has no PT_DYNAMIC segment: not a position-independent image")]
    NoDynamic,
    /// Wrong number of PT_LOAD segments.
    #[error("device image has {count} PT_LOAD segments, expected 2 (code and data)")]
    SegmentCount {
        /// Found.
        count: usize,
    },
    /// Segments overlap.
    #[error(
        "device image segments overlap: code {code:#x}+{code_len:#x}, data {data:#x}+{data_len:#x}"
    )]
    Overlap {
        /// Code start.
        code: u32,
        /// Code size.
        code_len: u32,
        /// Data start.
        data: u32,
        /// Data size.
        data_len: u32,
    },
    /// A relocation names a symbol.
    #[error(
        "relocation {index} at {offset:#x} ({}) names symbol {symbol}{} (r_info {info:#x}): the image must be fully self-relative{}",
        type_name(*info & 0xff),
        name.as_ref().map_or_else(String::new, |s| format!(" `{}`", s.name)),
        match name {
            Some(s) if s.undefined => format!(
                "; `{}` is undefined: {HELPERS_HINT}",
                s.name
            ),
            _ => String::new(),
        }
    )]
    SymbolRelocation {
        /// Index in the table.
        index: usize,
        /// r_offset.
        offset: u32,
        /// Symbol index.
        symbol: u32,
        /// r_info.
        info: u32,
        /// The symbol, when the image still has its dynamic symbol table.
        name: Option<DynSymbol>,
    },
    /// An unsupported relocation type.
    #[error(
        "relocation {index} at {offset:#x} has unsupported type {kind} ({})",
        type_name(*kind)
    )]
    UnknownRelocation {
        /// Index.
        index: usize,
        /// r_offset.
        offset: u32,
        /// Type.
        kind: u32,
    },
    /// A PLT relocation (R_XTENSA_RTLD, R_XTENSA_JMP_SLOT, R_XTENSA_PLT): the image calls
    /// functions its link left undefined.
    #[error(
        "relocation {index} at {offset:#x} has unsupported type {kind} ({}): {undefined}",
        type_name(*kind)
    )]
    PltRelocation {
        /// Index.
        index: usize,
        /// r_offset.
        offset: u32,
        /// Type.
        kind: u32,
        /// What the image says about the undefined symbols.
        undefined: Undefined,
    },
    /// PLT relocations (DT_JMPREL), which nothing on the device applies.
    #[error("the image has {count} PLT relocation(s) (DT_JMPREL), which the prelinker does not apply: {undefined}")]
    PltRelocations {
        /// How many.
        count: u32,
        /// What the image says about the undefined symbols.
        undefined: Undefined,
    },
    /// A relocation whose word is not 4-byte aligned.
    #[error("relocation {index} at {offset:#x} ({}) is not 4-byte aligned: the word it patches must be", type_name(*kind))]
    UnalignedRelocation {
        /// Index.
        index: usize,
        /// r_offset.
        offset: u32,
        /// Type.
        kind: u32,
    },
    /// A relocation outside the loaded segments.
    #[error("relocation {index} at {offset:#x} is outside the loaded segments")]
    RelocationOutOfRange {
        /// Index.
        index: usize,
        /// r_offset.
        offset: u32,
    },
    /// The data segment lies below the code segment.
    #[error("malformed dynamic section: data segment at {data:#x} precedes the code segment at {code:#x}")]
    DataBelowCode {
        /// Data start.
        data: u32,
        /// Code start.
        code: u32,
    },
    /// The dynamic section or its relocation table is malformed.
    #[error("malformed dynamic section: {0}")]
    Dynamic(#[from] DynamicError),
    /// The image does not fit its device buffer.
    #[error("{TOO_LARGE}: {size:#x} bytes, {limit_name} holds {limit:#x}")]
    TooLarge {
        /// Prelinked size.
        size: u64,
        /// Buffer size.
        limit: u64,
        /// Which buffer.
        limit_name: &'static str,
    },
}

/// What to do about an undefined symbol: the hint every such error ends with.
pub const HELPERS_HINT: &str =
    "link the SDK's helper routines (or whatever defines it) into the image";

/// How many undefined symbols an error names at most.
pub const NAMED_SYMBOLS: usize = 8;

/// `R_XTENSA_…` for a relocation type, or a note that it is none.
fn type_name(kind: u32) -> &'static str {
    relocation_name(kind).unwrap_or("not an Xtensa relocation type")
}

/// What an image says about the symbols its PLT relocations resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undefined {
    /// Their names, in DT_JMPREL order (at most [`NAMED_SYMBOLS`]), and how many more there are.
    Named {
        /// Names.
        names: Vec<String>,
        /// PLT relocations not named.
        more: u32,
    },
    /// `count` PLT relocations and no dynamic symbol table left to name their symbols.
    Unnamed {
        /// PLT relocations.
        count: u32,
    },
    /// No PLT relocations either: the image says nothing more.
    Unknown,
}

impl Undefined {
    /// Reads what `linkage` says from `segments` (link address, file bytes).
    pub fn of(linkage: &Linkage, segments: &[(u32, &[u8])]) -> Undefined {
        let count = linkage.plt_relocations();
        if count == 0 {
            return Undefined::Unknown;
        }
        let names: Vec<String> = linkage
            .plt_symbols(segments, NAMED_SYMBOLS)
            .into_iter()
            .flatten()
            .map(|s| s.name)
            .collect();
        if names.is_empty() {
            return Undefined::Unnamed { count };
        }
        Undefined::Named {
            more: count - names.len() as u32,
            names,
        }
    }
}

impl std::fmt::Display for Undefined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undefined::Named { names, more } => {
                let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                write!(f, "the image calls {}", list.join(", "))?;
                if *more > 0 {
                    write!(f, " and {more} more")?;
                }
                write!(
                    f,
                    " through a PLT, left undefined by its link; {HELPERS_HINT}"
                )
            }
            Undefined::Unnamed { count } => write!(
                f,
                "the image has {count} PLT relocation(s) (DT_JMPREL) and no dynamic symbol table left to name their symbols: it was linked with an undefined function; {HELPERS_HINT}"
            ),
            Undefined::Unknown => write!(
                f,
                "the image was linked with an undefined symbol; {HELPERS_HINT}"
            ),
        }
    }
}

/// A segment as loaded on the device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedSegment {
    /// Device address.
    pub addr: u32,
    /// Contents, bss zero-filled.
    pub bytes: Vec<u8>,
}

/// A fully relocated image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrelinkedImage {
    /// The code segment (PF_X).
    pub code: LoadedSegment,
    /// The data segment.
    pub data: LoadedSegment,
    /// Entry point (start symbol) on the device.
    pub entry: u32,
    /// DT_INIT on the device (0 if none).
    pub init: u32,
    /// DT_FINI on the device (0 if none).
    pub fini: u32,
    /// `.kernel_info_table` address and size on the device, when the image has one.
    pub kernel_table: Option<(u32, u32)>,
    /// Relocations applied.
    pub relocations: usize,
    /// Every relocation of the table by type, `(r_type, count)` in type order: the applied
    /// R_XTENSA_32 and R_XTENSA_RELATIVE ones and the R_XTENSA_NONE ones, which do nothing.
    pub by_type: Vec<(u32, usize)>,
}

impl PrelinkedImage {
    /// The UCPL image: header, code, data, then the [`KtabTrailer`] when the image has a
    /// `.kernel_info_table`. Staged at device address
    /// `code.addr − 0x20`.
    pub fn ucpl(&self) -> Vec<u8> {
        let code_len = self.code.bytes.len() as u32;
        let data_off = ucpl::SIZE as u32 + code_len;
        let h = UcplHeader {
            code_seg_len: code_len,
            data_seg_off: data_off,
            data_seg_len: self.data.bytes.len() as u32,
            init: self.init,
            fini: self.fini,
            start_sym: self.entry,
        };
        let mut out = h.encode().to_vec();
        out.extend_from_slice(&self.code.bytes);
        out.extend_from_slice(&self.data.bytes);
        if let Some((addr, size)) = self.kernel_table {
            out.extend_from_slice(&KtabTrailer { addr, size }.encode());
        }
        out
    }

    /// Size of the UCPL image.
    pub fn size(&self) -> u64 {
        let trailer = if self.kernel_table.is_some() {
            ktab::SIZE
        } else {
            0
        };
        (ucpl::SIZE + self.code.bytes.len() + self.data.bytes.len() + trailer) as u64
    }

    /// Checks the image against a device buffer of `limit` bytes named `limit_name`.
    pub fn check_size(&self, limit: u64, limit_name: &'static str) -> Result<(), PrelinkError> {
        let size = self.size();
        if size > limit {
            return Err(PrelinkError::TooLarge {
                size,
                limit,
                limit_name,
            });
        }
        Ok(())
    }
}

/// Prelinks device image `image` so its first PT_LOAD lands at `base`.
pub fn prelink(image: &[u8], base: u32) -> Result<PrelinkedImage, PrelinkError> {
    let elf = ElfFile::parse(image)?;
    if !matches!(elf.kind, ElfKind::Shared | ElfKind::Executable) {
        return Err(PrelinkError::NotLinked { kind: elf.kind });
    }
    let dynamic = elf
        .segments
        .iter()
        .find(|s| s.is_dynamic())
        .ok_or(PrelinkError::NoDynamic)?;
    let loads: Vec<_> = elf.segments.iter().filter(|s| s.is_load()).collect();
    if loads.len() != 2 {
        return Err(PrelinkError::SegmentCount { count: loads.len() });
    }
    let (code_seg, data_seg) = if loads[0].is_exec() {
        (loads[0], loads[1])
    } else {
        (loads[1], loads[0])
    };
    if data_seg.vaddr < code_seg.vaddr {
        return Err(PrelinkError::DataBelowCode {
            data: data_seg.vaddr,
            code: code_seg.vaddr,
        });
    }
    let link_base = code_seg.vaddr;
    let (c0, c1) = (
        u64::from(code_seg.vaddr),
        u64::from(code_seg.vaddr) + u64::from(code_seg.memsz),
    );
    let (d0, d1) = (
        u64::from(data_seg.vaddr),
        u64::from(data_seg.vaddr) + u64::from(data_seg.memsz),
    );
    if c0 < d1 && d0 < c1 {
        return Err(PrelinkError::Overlap {
            code: code_seg.vaddr,
            code_len: code_seg.memsz,
            data: data_seg.vaddr,
            data_len: data_seg.memsz,
        });
    }
    let span = ucpl::SIZE as u64 + d1 - c0;
    if span > MAX_IMAGE_BYTES {
        return Err(PrelinkError::TooLarge {
            size: span,
            limit: MAX_IMAGE_BYTES,
            limit_name: "the largest device image window",
        });
    }
    let bias = base.wrapping_add(ucpl::SIZE as u32).wrapping_sub(link_base);
    // The code segment runs up to the data segment (the gap zero-filled).
    let mut code = code_seg.data.to_vec();
    code.resize((data_seg.vaddr - code_seg.vaddr) as usize, 0);
    let mut data = data_seg.data.to_vec();
    data.resize(data_seg.memsz as usize, 0);

    dynamic::check(dynamic.data, dynamic.offset)?;
    let tags = Dynamic::parse(dynamic.data)?;
    // The relocation table lives in the (pre-relocation) code or data segment bytes.
    let file_bytes = [
        (code_seg.vaddr, code_seg.data),
        (data_seg.vaddr, data_seg.data),
    ];
    let linkage = Linkage::parse(dynamic.data);
    let table = tags.rela_table(&file_bytes)?;
    let mut applied = 0;
    let mut by_type: std::collections::BTreeMap<u32, usize> = Default::default();
    for (index, r) in dynamic::relocations(table).iter().enumerate() {
        let (offset, info, addend) = (
            r.r_offset.get(LE),
            r.r_info.get(LE),
            r.r_addend.get(LE) as u32,
        );
        if r.r_sym(LE) != 0 {
            return Err(PrelinkError::SymbolRelocation {
                index,
                offset,
                symbol: r.r_sym(LE),
                info,
                name: linkage.symbol(&file_bytes, r.r_sym(LE)),
            });
        }
        let kind = r.r_type(LE);
        match kind {
            R_XTENSA_NONE => {
                *by_type.entry(kind).or_default() += 1;
                continue;
            }
            R_XTENSA_32 | R_XTENSA_RELATIVE => {}
            R_XTENSA_RTLD | R_XTENSA_JMP_SLOT | R_XTENSA_PLT => {
                return Err(PrelinkError::PltRelocation {
                    index,
                    offset,
                    kind,
                    undefined: Undefined::of(&linkage, &file_bytes),
                })
            }
            _ => {
                return Err(PrelinkError::UnknownRelocation {
                    index,
                    offset,
                    kind,
                })
            }
        }
        let code_len = code.len() as u32;
        let target = if let Some(o) = offset
            .checked_sub(code_seg.vaddr)
            .filter(|o| o.checked_add(4).is_some_and(|end| end <= code_len))
        {
            &mut code[o as usize..o as usize + 4]
        } else if let Some(o) = offset
            .checked_sub(data_seg.vaddr)
            .filter(|o| o.checked_add(4).is_some_and(|end| end <= data_seg.memsz))
        {
            &mut data[o as usize..o as usize + 4]
        } else {
            return Err(PrelinkError::RelocationOutOfRange { index, offset });
        };
        if offset % 4 != 0 {
            return Err(PrelinkError::UnalignedRelocation {
                index,
                offset,
                kind,
            });
        }
        let old = u32::from_le_bytes([target[0], target[1], target[2], target[3]]);
        let new = old.wrapping_add(bias).wrapping_add(addend);
        target.copy_from_slice(&new.to_le_bytes());
        applied += 1;
        *by_type.entry(kind).or_default() += 1;
    }
    let count = linkage.plt_relocations();
    if count > 0 {
        return Err(PrelinkError::PltRelocations {
            count,
            undefined: Undefined::of(&linkage, &file_bytes),
        });
    }
    let kernel_table = elf
        .section(".kernel_info_table")
        .map(|s| (s.addr.wrapping_add(bias), s.size));
    Ok(PrelinkedImage {
        code: LoadedSegment {
            addr: code_seg.vaddr.wrapping_add(bias),
            bytes: code,
        },
        data: LoadedSegment {
            addr: data_seg.vaddr.wrapping_add(bias),
            bytes: data,
        },
        entry: elf.entry.wrapping_add(bias),
        init: tags.init.map_or(0, |v| v.wrapping_add(bias)),
        fini: tags.fini.map_or(0, |v| v.wrapping_add(bias)),
        kernel_table,
        relocations: applied,
        by_type: by_type.into_iter().collect(),
    })
}
