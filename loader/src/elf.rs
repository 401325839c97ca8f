//! ELF32 little-endian Xtensa reader. Every ELF constant comes from `object::elf`.

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, Sym};
use object::LittleEndian as LE;

/// `e_machine` of Xtensa.
pub const EM_XTENSA: u16 = elf::EM_XTENSA;

/// Why a file is not a usable ELF32-Xtensa image. Each names what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElfError {
    /// Fewer bytes than an ELF header.
    #[error("truncated ELF file: {len} bytes, an ELF32 header needs 52")]
    TruncatedHeader {
        /// File length.
        len: usize,
    },
    /// No `\x7fELF` magic.
    #[error("not an ELF file: magic is {found:02x?}, expected 7f 45 4c 46")]
    BadMagic {
        /// The first four bytes.
        found: [u8; 4],
    },
    /// Not ELFCLASS32.
    #[error("wrong ELF class {found} at byte 4: expected 1 (ELFCLASS32)")]
    WrongClass {
        /// `e_ident[EI_CLASS]`.
        found: u8,
    },
    /// Not little-endian.
    #[error("wrong ELF data encoding {found} at byte 5: expected 1 (ELFDATA2LSB, little-endian)")]
    WrongEndian {
        /// `e_ident[EI_DATA]`.
        found: u8,
    },
    /// Not EM_XTENSA.
    #[error("wrong machine {found} (e_machine at byte 18): expected {EM_XTENSA} (EM_XTENSA)")]
    WrongMachine {
        /// `e_machine`.
        found: u16,
    },
    /// A table or section lies outside the file or is inconsistent.
    #[error("malformed ELF: {what}")]
    Malformed {
        /// What is wrong, and where.
        what: String,
    },
}

fn malformed(what: impl Into<String>) -> ElfError {
    ElfError::Malformed { what: what.into() }
}

/// `e_type` of an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElfKind {
    /// ET_REL.
    Relocatable,
    /// ET_EXEC.
    Executable,
    /// ET_DYN.
    Shared,
    /// Anything else (the value).
    Other(u16),
}

/// The `e_type` values of the ELF specification: value, name, what a file of that type is.
pub const E_TYPES: [(u16, &str, &str); 5] = [
    (elf::ET_NONE, "ET_NONE", "no file type"),
    (elf::ET_REL, "ET_REL", "a relocatable object"),
    (elf::ET_EXEC, "ET_EXEC", "an executable"),
    (elf::ET_DYN, "ET_DYN", "a shared object"),
    (elf::ET_CORE, "ET_CORE", "a core file"),
];

/// The `p_type` values a program header of an Xtensa image may carry: value and name.
pub const P_TYPES: [(u32, &str); 12] = [
    (elf::PT_NULL, "PT_NULL"),
    (elf::PT_LOAD, "PT_LOAD"),
    (elf::PT_DYNAMIC, "PT_DYNAMIC"),
    (elf::PT_INTERP, "PT_INTERP"),
    (elf::PT_NOTE, "PT_NOTE"),
    (elf::PT_SHLIB, "PT_SHLIB"),
    (elf::PT_PHDR, "PT_PHDR"),
    (elf::PT_TLS, "PT_TLS"),
    (elf::PT_GNU_EH_FRAME, "PT_GNU_EH_FRAME"),
    (elf::PT_GNU_STACK, "PT_GNU_STACK"),
    (elf::PT_GNU_RELRO, "PT_GNU_RELRO"),
    (elf::PT_GNU_PROPERTY, "PT_GNU_PROPERTY"),
];

impl ElfKind {
    /// The `e_type` value.
    pub fn e_type(self) -> u16 {
        match self {
            ElfKind::Relocatable => elf::ET_REL,
            ElfKind::Executable => elf::ET_EXEC,
            ElfKind::Shared => elf::ET_DYN,
            ElfKind::Other(v) => v,
        }
    }

    /// The type's name and meaning from [`E_TYPES`], e.g. "ET_REL (a relocatable object)";
    /// "e_type 0xfe00" for a value the specification does not name.
    pub fn describe(self) -> String {
        let t = self.e_type();
        match E_TYPES.iter().find(|(v, ..)| *v == t) {
            Some((_, name, what)) => format!("{name} ({what})"),
            None => format!("e_type {t:#x}"),
        }
    }
}

/// A section header with its contents.
#[derive(Debug, Clone)]
pub struct Section<'data> {
    /// Section index.
    pub index: usize,
    /// Name from the section-name string table.
    pub name: String,
    /// `sh_type`.
    pub kind: u32,
    /// `sh_flags`.
    pub flags: u32,
    /// `sh_addr`.
    pub addr: u32,
    /// `sh_size`.
    pub size: u32,
    /// Contents (empty for SHT_NOBITS).
    pub data: &'data [u8],
}

impl Section<'_> {
    /// SHF_ALLOC.
    pub fn is_alloc(&self) -> bool {
        self.flags & elf::SHF_ALLOC != 0
    }
    /// SHF_EXECINSTR.
    pub fn is_exec(&self) -> bool {
        self.flags & elf::SHF_EXECINSTR != 0
    }
}

/// A program header with its file contents.
#[derive(Debug, Clone)]
pub struct Segment<'data> {
    /// `p_type`.
    pub kind: u32,
    /// `p_offset`: where `data` starts in the file.
    pub offset: u32,
    /// `p_flags`.
    pub flags: u32,
    /// `p_vaddr`.
    pub vaddr: u32,
    /// `p_paddr`.
    pub paddr: u32,
    /// `p_memsz` (≥ `data.len()`; the rest is zero-filled).
    pub memsz: u32,
    /// The `p_filesz` bytes from the file.
    pub data: &'data [u8],
}

impl Segment<'_> {
    /// The `p_type` name from [`P_TYPES`], e.g. "PT_LOAD"; the value in hex for a type it does
    /// not list.
    pub fn type_name(&self) -> String {
        P_TYPES
            .iter()
            .find(|(v, _)| *v == self.kind)
            .map_or_else(|| format!("{:#x}", self.kind), |(_, n)| n.to_string())
    }
    /// `p_flags` as `readelf` writes them: `R`, `W`, `E` or a blank for each of PF_R, PF_W, PF_X.
    pub fn flags_text(&self) -> String {
        [(elf::PF_R, 'R'), (elf::PF_W, 'W'), (elf::PF_X, 'E')]
            .iter()
            .map(|&(bit, c)| if self.flags & bit != 0 { c } else { ' ' })
            .collect()
    }
    /// PT_LOAD: loaded into memory.
    pub fn is_load(&self) -> bool {
        self.kind == elf::PT_LOAD
    }
    /// PT_DYNAMIC: the dynamic section.
    pub fn is_dynamic(&self) -> bool {
        self.kind == elf::PT_DYNAMIC
    }
    /// PF_X: executable.
    pub fn is_exec(&self) -> bool {
        self.flags & elf::PF_X != 0
    }
}

/// A symbol-table entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Name.
    pub name: String,
    /// `st_value`.
    pub value: u32,
    /// `st_size`.
    pub size: u32,
    /// `st_info & 0xf` (STT_*).
    pub kind: u8,
    /// `st_shndx`.
    pub section: u16,
    /// Binding is STB_GLOBAL or STB_WEAK (not STB_LOCAL).
    pub global: bool,
}

/// A parsed ELF32 little-endian Xtensa file.
#[derive(Debug, Clone)]
pub struct ElfFile<'data> {
    /// `e_type`.
    pub kind: ElfKind,
    /// `e_entry`.
    pub entry: u32,
    /// `e_flags`.
    pub flags: u32,
    /// Sections in header order.
    pub sections: Vec<Section<'data>>,
    /// Program headers in order.
    pub segments: Vec<Segment<'data>>,
    /// Entries of `.symtab` (without the null symbol).
    pub symbols: Vec<Symbol>,
}

impl<'data> ElfFile<'data> {
    /// The value of the global symbol `name`, if the file has one.
    pub fn global_symbol(&self, name: &str) -> Option<u32> {
        self.symbols
            .iter()
            .find(|s| s.name == name && s.global)
            .map(|s| s.value)
    }

    /// Parses and validates `data` (identification, class, byte order, machine, tables).
    pub fn parse(data: &'data [u8]) -> Result<Self, ElfError> {
        if data.len() < 52 {
            if data.len() >= 4 && data[..4] != *b"\x7fELF" {
                return Err(ElfError::BadMagic {
                    found: [data[0], data[1], data[2], data[3]],
                });
            }
            return Err(ElfError::TruncatedHeader { len: data.len() });
        }
        if data[..4] != *b"\x7fELF" {
            return Err(ElfError::BadMagic {
                found: [data[0], data[1], data[2], data[3]],
            });
        }
        if data[4] != elf::ELFCLASS32 {
            return Err(ElfError::WrongClass { found: data[4] });
        }
        if data[5] != elf::ELFDATA2LSB {
            return Err(ElfError::WrongEndian { found: data[5] });
        }
        let machine = u16::from_le_bytes([data[18], data[19]]);
        if machine != EM_XTENSA {
            return Err(ElfError::WrongMachine { found: machine });
        }
        let header = elf::FileHeader32::<LE>::parse(data)
            .map_err(|e| malformed(format!("ELF header: {e}")))?;
        let e = LE;
        let kind = match header.e_type(e) {
            elf::ET_REL => ElfKind::Relocatable,
            elf::ET_EXEC => ElfKind::Executable,
            elf::ET_DYN => ElfKind::Shared,
            other => ElfKind::Other(other),
        };

        check_tables(header, data)?;
        let section_table = header
            .sections(e, data)
            .map_err(|err| malformed(format!("section header table: {err}")))?;
        let mut sections = Vec::new();
        for (index, sh) in section_table.iter().enumerate() {
            let name = section_table.section_name(e, sh).map_err(|err| {
                malformed(format!(
                    "name of section {index} (sh_name {:#x}, in section {} named by e_shstrndx): {err}",
                    sh.sh_name(e),
                    header.e_shstrndx(e)
                ))
            })?;
            let name = String::from_utf8_lossy(name).into_owned();
            let section_data = if sh.sh_type(e) == elf::SHT_NOBITS {
                &[][..]
            } else {
                sh.data(e, data).map_err(|_| {
                    malformed(format!(
                        "contents of section {index} ({name}) at file offset {:#x}, {:#x} bytes, run past the end of the {}-byte file",
                        sh.sh_offset(e),
                        sh.sh_size(e),
                        data.len()
                    ))
                })?
            };
            sections.push(Section {
                index,
                name,
                kind: sh.sh_type(e),
                flags: sh.sh_flags(e),
                addr: sh.sh_addr(e),
                size: sh.sh_size(e),
                data: section_data,
            });
        }

        let mut segments = Vec::new();
        let program_headers = header
            .program_headers(e, data)
            .map_err(|err| malformed(format!("program header table: {err}")))?;
        for (i, ph) in program_headers.iter().enumerate() {
            let seg_data = ph.data(e, data).map_err(|_| {
                malformed(format!(
                    "segment {i}: file range {:#x}+{:#x} is outside the {}-byte file",
                    ph.p_offset(e),
                    ph.p_filesz(e),
                    data.len()
                ))
            })?;
            if ph.p_memsz(e) < ph.p_filesz(e) {
                return Err(malformed(format!(
                    "segment {i}: p_memsz {:#x} is smaller than p_filesz {:#x}",
                    ph.p_memsz(e),
                    ph.p_filesz(e)
                )));
            }
            segments.push(Segment {
                kind: ph.p_type(e),
                offset: ph.p_offset(e),
                flags: ph.p_flags(e),
                vaddr: ph.p_vaddr(e),
                paddr: ph.p_paddr(e),
                memsz: ph.p_memsz(e),
                data: seg_data,
            });
        }

        let mut symbols = Vec::new();
        let symtab = section_table
            .symbols(e, data, elf::SHT_SYMTAB)
            .map_err(|err| malformed(format!("symbol table: {err}")))?;
        for (i, sym) in symtab.iter().enumerate().skip(1) {
            let name = symtab
                .symbol_name(e, sym)
                .map_err(|err| malformed(format!("name of symbol {i}: {err}")))?;
            symbols.push(Symbol {
                name: String::from_utf8_lossy(name).into_owned(),
                value: sym.st_value(e),
                size: sym.st_size(e),
                kind: sym.st_type(),
                section: sym.st_shndx(e),
                global: sym.st_bind() != elf::STB_LOCAL,
            });
        }

        Ok(ElfFile {
            kind,
            entry: header.e_entry(e),
            flags: header.e_flags(e),
            sections,
            segments,
            symbols,
        })
    }

    /// The section called `name`.
    pub fn section(&self, name: &str) -> Option<&Section<'data>> {
        self.sections.iter().find(|s| s.name == name)
    }
}

/// Bytes of an `Elf32_Shdr`.
const SHDR: usize = std::mem::size_of::<elf::SectionHeader32<LE>>();
/// Bytes of an `Elf32_Phdr`.
const PHDR: usize = std::mem::size_of::<elf::ProgramHeader32<LE>>();

/// Offset of `sh_size` in an Elf32_Shdr (after name, type, flags, addr, offset).
const SH_SIZE_OFFSET: usize = 20;

/// Checks that the section and program header tables have the ELF32 entry sizes and lie inside
/// the file, naming the table, its offset and size, and the file size where one does not.
fn check_tables(h: &elf::FileHeader32<LE>, data: &[u8]) -> Result<(), ElfError> {
    let e = LE;
    let shoff = u64::from(h.e_shoff(e));
    if shoff != 0 {
        let entsize = h.e_shentsize(e);
        if usize::from(entsize) != SHDR {
            return Err(malformed(format!(
                "e_shentsize (byte 46) is {entsize}, expected {SHDR} (Elf32_Shdr)"
            )));
        }
        let count = match h.e_shnum(e) {
            // An extended count lives in section 0's sh_size.
            0 => {
                table_in_file("section header 0 (e_shnum is 0)", shoff, 1, SHDR, data)?;
                // Read field by field: the table may lie at any offset, aligned or not.
                let at = shoff as usize + SH_SIZE_OFFSET;
                let mut size = [0u8; 4];
                size.copy_from_slice(&data[at..at + 4]);
                u64::from(u32::from_le_bytes(size))
            }
            n => u64::from(n),
        };
        table_in_file("section header table", shoff, count, SHDR, data)?;
    }
    let phoff = u64::from(h.e_phoff(e));
    let phnum = h.e_phnum(e);
    if phoff != 0 && phnum != 0 {
        let entsize = h.e_phentsize(e);
        if usize::from(entsize) != PHDR {
            return Err(malformed(format!(
                "e_phentsize (byte 42) is {entsize}, expected {PHDR} (Elf32_Phdr)"
            )));
        }
        if phnum != elf::PN_XNUM {
            table_in_file("program header table", phoff, u64::from(phnum), PHDR, data)?;
        }
    }
    Ok(())
}

/// `count` entries of `entsize` bytes at file offset `off` lie inside `data`.
fn table_in_file(
    what: &str,
    off: u64,
    count: u64,
    entsize: usize,
    data: &[u8],
) -> Result<(), ElfError> {
    let size = count * entsize as u64;
    let end = off + size;
    if end <= data.len() as u64 {
        return Ok(());
    }
    Err(malformed(format!(
        "{what} at file offset {off:#x} ({count} entries of {entsize} bytes, {size:#x} in all) ends at {end:#x}, past the end of the {}-byte ({:#x}) file",
        data.len(),
        data.len()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(kind: u32, flags: u32) -> Segment<'static> {
        Segment {
            kind,
            offset: 0,
            flags,
            vaddr: 0,
            paddr: 0,
            memsz: 0,
            data: &[],
        }
    }

    #[test]
    fn segment_kinds_and_flags_are_the_elf_constants() {
        let code = segment(1, 5); // PT_LOAD, PF_R | PF_X
        assert!(code.is_load() && code.is_exec() && !code.is_dynamic());
        let data = segment(1, 6); // PT_LOAD, PF_R | PF_W
        assert!(data.is_load() && !data.is_exec());
        assert!(segment(2, 6).is_dynamic(), "PT_DYNAMIC");
        assert_eq!(code.type_name(), "PT_LOAD");
        assert_eq!(segment(0x6474e551, 6).type_name(), "PT_GNU_STACK");
        assert_eq!(segment(0x7000_0000, 6).type_name(), "0x70000000");
        assert_eq!(
            (code.flags_text(), data.flags_text()),
            ("R E".into(), "RW ".into())
        );
        assert_eq!(EM_XTENSA, 94);
    }

    #[test]
    fn e_types_are_named_from_one_table() {
        assert_eq!(
            ElfKind::Relocatable.describe(),
            "ET_REL (a relocatable object)"
        );
        assert_eq!(ElfKind::Other(4).describe(), "ET_CORE (a core file)");
        assert_eq!(ElfKind::Other(0).describe(), "ET_NONE (no file type)");
        assert_eq!(ElfKind::Other(0xfe00).describe(), "e_type 0xfe00");
        assert_eq!(ElfKind::Shared.e_type(), 3);
    }

    /// An ELF32-Xtensa header alone, with section header table fields as given.
    fn header(shoff: u32, shentsize: u16, shnum: u16) -> Vec<u8> {
        let mut b = vec![0u8; 52];
        b[..7].copy_from_slice(b"\x7fELF\x01\x01\x01");
        b[16] = 2;
        b[18] = 94;
        b[32..36].copy_from_slice(&shoff.to_le_bytes());
        b[46..48].copy_from_slice(&shentsize.to_le_bytes());
        b[48..50].copy_from_slice(&shnum.to_le_bytes());
        b
    }

    #[test]
    fn header_tables_are_checked_naming_offset_size_and_file_size() {
        let err = |b: &[u8]| ElfFile::parse(b).unwrap_err().to_string();
        assert_eq!(
            err(&header(0x34, 40, 2)),
            "malformed ELF: section header table at file offset 0x34 (2 entries of 40 bytes, 0x50 in all) ends at 0x84, past the end of the 52-byte (0x34) file"
        );
        assert_eq!(
            err(&header(0x34, 32, 2)),
            "malformed ELF: e_shentsize (byte 46) is 32, expected 40 (Elf32_Shdr)"
        );
        assert_eq!(
            err(&header(0x30, 40, 0)),
            "malformed ELF: section header 0 (e_shnum is 0) at file offset 0x30 (1 entries of 40 bytes, 0x28 in all) ends at 0x58, past the end of the 52-byte (0x34) file"
        );
        // An extended count read from section 0 at an unaligned offset (found by the `elf`
        // fuzz target: this panicked), here 0x3a: sh_size 0x10 asks for 16 headers.
        let mut b = header(0x3a, 40, 0);
        b.resize(0x3a + 40, 0);
        b[0x3a + 20..0x3a + 24].copy_from_slice(&16u32.to_le_bytes());
        assert_eq!(
            err(&b),
            "malformed ELF: section header table at file offset 0x3a (16 entries of 40 bytes, 0x280 in all) ends at 0x2ba, past the end of the 98-byte (0x62) file"
        );
        // No section header table at all is a file without sections, not an error.
        assert!(ElfFile::parse(&header(0, 0, 0))
            .unwrap()
            .sections
            .is_empty());
    }
}
