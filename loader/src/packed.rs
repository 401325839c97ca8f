//! Packed load-libs (examples/sdk/BUILD.md "Strip and pack"): a relocatable ELF object whose `.rodata` holds the cleaned
//! device image as the `libdata` blob, starting at the exported symbol `lib_func`.

use crate::elf::{ElfError, ElfFile, ElfKind};

/// The symbol that marks the embedded device image.
pub const ENTRY_SYMBOL: &str = "lib_func";

/// Why a packed image does not yield a device image.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackedError {
    /// The container is not a usable ELF.
    #[error("packed image: {0}")]
    Elf(#[from] ElfError),
    /// Not a relocatable object.
    #[error(
        "packed image is {kind:?}, expected a relocatable object (ET_REL) made by the packager"
    )]
    NotRelocatable {
        /// The ELF type found.
        kind: ElfKind,
    },
    /// No `lib_func` symbol.
    #[error(
        "packed image has no `lib_func` symbol: not a load-lib (was it packaged with -e lib_func?)"
    )]
    MissingLibFunc,
    /// `lib_func` points outside its section.
    #[error(
        "`lib_func` at offset {offset:#x} lies outside its section {section} ({size:#x} bytes)"
    )]
    LibFuncOutOfRange {
        /// Section name.
        section: String,
        /// Offset of the symbol.
        offset: u32,
        /// Section size.
        size: usize,
    },
}

/// Returns the device image embedded in packed load-lib `data` (from `lib_func` to the end of
/// its section).
pub fn device_image(data: &[u8]) -> Result<&[u8], PackedError> {
    let elf = ElfFile::parse(data)?;
    if elf.kind != ElfKind::Relocatable {
        return Err(PackedError::NotRelocatable { kind: elf.kind });
    }
    let sym = elf
        .symbols
        .iter()
        .find(|s| s.name == ENTRY_SYMBOL)
        .ok_or(PackedError::MissingLibFunc)?;
    let sec = elf
        .sections
        .get(usize::from(sym.section))
        .ok_or(PackedError::MissingLibFunc)?;
    let start = sym.value as usize;
    if start >= sec.data.len() {
        return Err(PackedError::LibFuncOutOfRange {
            section: sec.name.clone(),
            offset: sym.value,
            size: sec.data.len(),
        });
    }
    Ok(&sec.data[start..])
}
