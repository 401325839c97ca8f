//! What `q7emu inspect` found, as plain data: [`Report`] is the `--json` document (its layout
//! versioned by [`FORMAT_VERSION`]) and what the text is rendered from.

use serde::Serialize;

use q7_kernel_build::metadata::BuildInfo;

/// The version of the `--json` document's layout: raised when a field changes meaning or goes.
pub const FORMAT_VERSION: u32 = 1;

/// What `q7emu inspect` reports: the JSON document of `--json`, and the text otherwise.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The version of this document's layout ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// The input as given.
    pub input: String,
    /// `build`, `packed`, `device-image` or `elf`.
    pub kind: &'static str,
    /// The build (a build directory only).
    pub build: Option<BuildReport>,
    /// The images, in core order for a build.
    pub images: Vec<ImageReport>,
}

/// A build directory's metadata.
#[derive(Debug, Clone, Serialize)]
pub struct BuildReport {
    /// `q7build.json`.
    pub info: BuildInfo,
    /// `ucode_lib.json`.
    pub ucode_lib: Vec<UcodeLibrary>,
}

/// One library of `ucode_lib.json`.
#[derive(Debug, Clone, Serialize)]
pub struct UcodeLibrary {
    /// File name.
    pub library: String,
    /// `ulib_to_ucode_version`.
    pub ulib_to_ucode_version: String,
    /// `ulib_to_isa_version`.
    pub ulib_to_isa_version: String,
    /// `is_builtin`.
    pub is_builtin: bool,
    /// `cpu_id`.
    pub cpu_id: u8,
    /// `total_cpus`.
    pub total_cpus: u8,
    /// Its functions: name and sub-opcode (every one has opcode 133).
    pub functions: Vec<UcodeFunction>,
}

/// One function of a `ucode_lib.json` library.
#[derive(Debug, Clone, Serialize)]
pub struct UcodeFunction {
    /// Name.
    pub name: String,
    /// `sub_opcode` (the FunctionId byte).
    pub sub_opcode: u8,
    /// The dispatch key it makes, `sub_opcode << 8 | 133`.
    pub key: u32,
}

/// One image file.
#[derive(Debug, Clone, Serialize)]
pub struct ImageReport {
    /// The file, as given or relative to the build directory.
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The ELF file itself.
    pub elf: ElfReport,
    /// The container, when the file is a packed library.
    pub packed: Option<PackedReport>,
    /// The device image (the file itself, or the one a packed library carries).
    pub device: Option<DeviceReport>,
}

/// An ELF file's header and program headers.
#[derive(Debug, Clone, Serialize)]
pub struct ElfReport {
    /// `e_type` name, e.g. `ET_DYN`.
    pub kind: String,
    /// `e_type`.
    pub e_type: u16,
    /// `e_machine` (94, EM_XTENSA: the reader accepts no other).
    pub machine: u16,
    /// `e_entry`.
    pub entry: u32,
    /// `e_flags`.
    pub flags: u32,
    /// Section headers.
    pub sections: usize,
    /// Entries of `.symtab`.
    pub symbols: usize,
    /// The program headers, in order.
    pub segments: Vec<SegmentReport>,
}

/// One program header.
#[derive(Debug, Clone, Serialize)]
pub struct SegmentReport {
    /// `p_type` name, e.g. `PT_LOAD`.
    pub kind: String,
    /// `p_offset`.
    pub offset: u32,
    /// `p_vaddr`.
    pub vaddr: u32,
    /// `p_memsz`.
    pub memsz: u32,
    /// `p_filesz`.
    pub filesz: u32,
    /// `p_flags`.
    pub flags: u32,
    /// `p_flags` as `R`, `W`, `E` letters.
    pub flags_text: String,
}

/// A packed library's container.
#[derive(Debug, Clone, Serialize)]
pub struct PackedReport {
    /// The section holding `lib_func`.
    pub section: String,
    /// `lib_func`'s offset in it.
    pub offset: u32,
    /// Bytes of the device image (from `lib_func` to the section's end).
    pub device_image_bytes: usize,
}

/// A device image as the host stub stages it.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceReport {
    /// Its ELF header and segments (the packed library's inner image, or the file itself).
    pub elf: Option<ElfReport>,
    /// The core whose image window it is prelinked for.
    pub core: u32,
    /// Whether that is the single-core window (core 0 alone) rather than the core's 2 MiB one.
    pub single_core: bool,
    /// That window.
    pub window: WindowReport,
    /// The UCPL header of the prelinked image.
    pub ucpl: UcplReport,
    /// The relocations of its table.
    pub relocations: RelocationReport,
    /// Its kernel table, when the image has a `.kernel_info_table`.
    pub kernel_table: Option<KernelTableReport>,
}

/// An image window.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct WindowReport {
    /// Device address of its start (where the UCPL header is staged).
    pub start: u32,
    /// Its size in bytes.
    pub size: u32,
}

/// How many relocations of one type the table holds.
#[derive(Debug, Clone, Serialize)]
pub struct RelocationCount {
    /// `r_type`.
    pub r_type: u32,
    /// Its name, e.g. `R_XTENSA_RELATIVE`.
    pub name: String,
    /// How many.
    pub count: usize,
}

/// The UCPL header fields.
#[derive(Debug, Clone, Serialize)]
pub struct UcplReport {
    /// The magic qword.
    pub magic: u64,
    /// Offset of the code segment (byte 4 of the magic).
    pub code_seg_off: u32,
    /// `code_seg_len`.
    pub code_seg_len: u32,
    /// `data_seg_off`.
    pub data_seg_off: u32,
    /// `data_seg_len`.
    pub data_seg_len: u32,
    /// `init`.
    pub init: u32,
    /// `fini`.
    pub fini: u32,
    /// `start_sym`.
    pub start_sym: u32,
    /// Bytes of the whole UCPL image (header, code, data, KTAB trailer).
    pub image_bytes: u64,
}

/// The relocations the prelinker processed.
#[derive(Debug, Clone, Serialize)]
pub struct RelocationReport {
    /// How many it applied.
    pub applied: usize,
    /// Every relocation of the table by type, in type order.
    pub by_type: Vec<RelocationCount>,
}

/// A kernel table: where the KTAB trailer puts it and what the start symbol filled in.
#[derive(Debug, Clone, Serialize)]
pub struct KernelTableReport {
    /// Device address.
    pub addr: u32,
    /// Size in bytes.
    pub size: u32,
    /// Its entries as the image holds them before the start symbol ran.
    pub image_entries: Vec<EntryReport>,
    /// Its entries as the firmware bound them after the start symbol ran; `None` when that
    /// failed.
    pub bound_entries: Option<Vec<EntryReport>>,
    /// Why the start symbol or the binding failed.
    pub bind_error: Option<String>,
}

/// One kernel table entry.
#[derive(Debug, Clone, Serialize)]
pub struct EntryReport {
    /// Index in the table.
    pub index: usize,
    /// `spec << 8 | opcode`.
    pub key: u32,
    /// The launcher's device address.
    pub function: u32,
    /// The op whose key it is, from the build's metadata.
    pub op: Option<String>,
    /// The launcher's symbol, from the unstripped image.
    pub symbol: Option<String>,
}

impl Report {
    /// The `--json` document.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("plain data serializes") + "\n"
    }
}
