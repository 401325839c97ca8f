//! `q7emu inspect`: what an image or a build holds, as the loader and firmware see it.
//!
//! An input is one of:
//!
//! * a build directory of `q7emu build` (it has `q7build.json`): the build's ops and
//!   `ucode_lib.json`, then every core's image;
//! * a packed library (an ET_REL with `lib_func`, [`q7_loader::packed`]): the container, then
//!   the device image it carries;
//! * a device image (a linked ET_DYN, or an ET_EXEC with a PT_DYNAMIC): the image;
//! * any other ELF32-Xtensa file (a bare-metal executable, an object): its header and segments.
//!
//! A device image is shown as the host stub stages it: prelinked ([`q7_loader::prelink`]) for
//! its core's image window, with its UCPL header ([`q7_loader::ucpl`]), the relocations the
//! prelinker applied by type ([`q7_loader::dynamic::RELOCATION_TYPES`]), and its kernel table
//! ([`q7_loader::ktab`], [`q7_loader::kernel_table`]) as the firmware binds it: the image is
//! loaded on an emulated cluster and its start symbol run, since that is what fills the table
//! (PLATFORM.md "Kernel table"). Op names come from the build's `q7build.json`, else its
//! `ucode_lib.json` (for a single image, the ones beside it); launcher names from the unstripped
//! image when the build directory has it.
//!
//! Files are read within the bounds of their kind ([`q7_loader::input`]): an ELF file within the
//! ELF-image bound, and a packed library within the packed-library bound; every malformed input
//! is refused with the loader's own error, naming the file.

use std::path::{Path, PathBuf};

use q7_emulator::platform::{map, Cluster, ClusterConfig};
use q7_loader::dynamic::relocation_name;
use q7_loader::elf::{ElfError, ElfFile, ElfKind};
use q7_loader::input::{self, InputError, InputKind};
use q7_loader::kernel_table::{self, KernelEntry};
use q7_loader::ktab::KtabTrailer;
use q7_loader::packed::{self, PackedError, ENTRY_SYMBOL};
use q7_loader::prelink::{self, PrelinkError};
use q7_loader::ucode_lib::{self, Registry, CUSTOM_OP_OPCODE};
use q7_loader::ucpl::{self, UcplError, UcplHeader};
use serde::Serialize;

use crate::build::link::NUM_CPUS;
use crate::build::metadata::{BuildInfo, BUILD_INFO_FILE, UCODE_LIB_FILE};
use crate::firmware::{Firmware, FirmwareError};
use crate::nrtucode::{coretype, Context, NrtError, Source};
use crate::run_packed::SELECTOR;
use crate::symbolize::Symbols;

/// Why an input cannot be inspected, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// A file cannot be read within its bound, or is not a regular file.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A directory cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A directory without `q7build.json`.
    #[error("{}: a directory without {BUILD_INFO_FILE}: not a build directory of `q7emu build`", path.display())]
    NotABuild {
        /// The directory.
        path: PathBuf,
    },
    /// `q7build.json` does not parse.
    #[error("{}: not a q7emu build description: {source}", path.display())]
    BuildInfo {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// `ucode_lib.json` does not parse.
    #[error("{}: {source}", path.display())]
    UcodeLib {
        /// The file.
        path: PathBuf,
        /// Why.
        source: Box<ucode_lib::ParseError>,
    },
    /// Not a usable ELF32-Xtensa file.
    #[error("{}: {source}", path.display())]
    Elf {
        /// The file.
        path: PathBuf,
        /// Why.
        source: ElfError,
    },
    /// A packed library that yields no device image.
    #[error("{}: {source}", path.display())]
    Packed {
        /// The file.
        path: PathBuf,
        /// Why.
        source: PackedError,
    },
    /// A device image that does not prelink.
    #[error("{}: {source}", path.display())]
    Prelink {
        /// The file.
        path: PathBuf,
        /// Why.
        source: Box<PrelinkError>,
    },
    /// The prelinked image's header does not read back.
    #[error("{}: {source}", path.display())]
    Ucpl {
        /// The file.
        path: PathBuf,
        /// Why.
        source: UcplError,
    },
}

impl crate::exit_code::Outcome for InspectError {
    /// The outcome it ends `q7emu inspect` with ([`crate::exit_code`]): every failure is bad
    /// input.
    fn kind(&self) -> crate::exit_code::Kind {
        crate::exit_code::Kind::BadInput
    }
}

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

/// Where op names and symbols come from for one image.
#[derive(Debug, Default)]
struct Names<'a> {
    /// `q7build.json`.
    info: Option<&'a BuildInfo>,
    /// The `ucode_lib.json` library of this image.
    ucode: Option<&'a UcodeLibrary>,
    /// The unstripped image's symbols.
    symbols: Option<Symbols>,
}

impl Names<'_> {
    fn op(&self, key: u32) -> Option<String> {
        if let Some(op) = self.info.and_then(|i| i.ops.iter().find(|o| o.key == key)) {
            return Some(op.name.clone());
        }
        self.ucode
            .and_then(|l| l.functions.iter().find(|f| f.key == key))
            .map(|f| f.name.clone())
    }

    fn entry(&self, index: usize, e: &KernelEntry) -> EntryReport {
        EntryReport {
            index,
            key: e.key,
            function: e.func,
            op: (e.key != 0).then(|| self.op(e.key)).flatten(),
            symbol: self
                .symbols
                .as_ref()
                .filter(|_| e.func != 0)
                .and_then(|s| s.describe(e.func)),
        }
    }
}

fn elf_report(elf: &ElfFile<'_>) -> ElfReport {
    ElfReport {
        kind: q7_loader::elf::E_TYPES
            .iter()
            .find(|(v, ..)| *v == elf.kind.e_type())
            .map_or_else(
                || format!("{:#x}", elf.kind.e_type()),
                |(_, n, _)| n.to_string(),
            ),
        e_type: elf.kind.e_type(),
        machine: q7_loader::EM_XTENSA,
        entry: elf.entry,
        flags: elf.flags,
        sections: elf.sections.len(),
        symbols: elf.symbols.len(),
        segments: elf
            .segments
            .iter()
            .map(|s| SegmentReport {
                kind: s.type_name(),
                offset: s.offset,
                vaddr: s.vaddr,
                memsz: s.memsz,
                filesz: s.data.len() as u32,
                flags: s.flags,
                flags_text: s.flags_text(),
            })
            .collect(),
    }
}

/// Whether a linked ELF is a device image: an ET_DYN, or an ET_EXEC with a PT_DYNAMIC (what
/// the prelinker takes).
fn is_device_image(elf: &ElfFile<'_>) -> bool {
    match elf.kind {
        ElfKind::Shared => true,
        ElfKind::Executable => elf.segments.iter().any(|s| s.is_dynamic()),
        _ => false,
    }
}

/// The core of the 8-core layout whose image window an image linked with its code at `vaddr`
/// runs in: the window that starts a UCPL header below it, else core 0.
fn core_of(vaddr: u32) -> u32 {
    (0..NUM_CPUS)
        .find(|&c| map::image_window(c).0 + ucpl::SIZE as u32 == vaddr)
        .unwrap_or(0)
}

/// Options of an inspection.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Cycle budget of each start symbol.
    pub call_budget: u64,
}

/// Inspects `path`: a build directory, a packed library, a device image or another ELF file.
pub fn inspect(path: &Path, options: &Options) -> Result<Report, InspectError> {
    let input = path.display().to_string();
    if path.is_dir() {
        return inspect_build(path, input, options);
    }
    let data = input::read_file(path, InputKind::ElfImage)?;
    let elf = ElfFile::parse(&data).map_err(|source| InspectError::Elf {
        path: path.to_path_buf(),
        source,
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let info = read_sibling_info(dir);
    let ucode = read_sibling_ucode(dir);
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let names = Names {
        info: info.as_ref(),
        ucode: ucode.iter().find(|l| l.library == file),
        symbols: None,
    };
    let kind = if elf.kind == ElfKind::Relocatable && has_lib_func(&elf) {
        "packed"
    } else if is_device_image(&elf) {
        "device-image"
    } else {
        "elf"
    };
    let image = image_report(
        path,
        input.clone(),
        &data,
        &elf,
        None,
        false,
        &names,
        options,
    )?;
    Ok(Report {
        format_version: FORMAT_VERSION,
        input,
        kind,
        build: None,
        images: vec![image],
    })
}

fn has_lib_func(elf: &ElfFile<'_>) -> bool {
    elf.symbols.iter().any(|s| s.name == ENTRY_SYMBOL)
}

/// `q7build.json` beside a single image, when there is one that parses.
fn read_sibling_info(dir: &Path) -> Option<BuildInfo> {
    let text = std::fs::read_to_string(dir.join(BUILD_INFO_FILE)).ok()?;
    BuildInfo::from_json(&text).ok()
}

/// `ucode_lib.json` beside a single image, when there is one that parses.
fn read_sibling_ucode(dir: &Path) -> Vec<UcodeLibrary> {
    std::fs::read_to_string(dir.join(UCODE_LIB_FILE))
        .ok()
        .and_then(|t| Registry::from_json(&t).ok())
        .map(|r| ucode_libraries(&r))
        .unwrap_or_default()
}

fn ucode_libraries(r: &Registry) -> Vec<UcodeLibrary> {
    r.libraries()
        .iter()
        .map(|l| UcodeLibrary {
            library: l.file_name.clone(),
            ulib_to_ucode_version: l.ulib_to_ucode_version.clone(),
            ulib_to_isa_version: l.ulib_to_isa_version.clone(),
            is_builtin: l.is_builtin,
            cpu_id: l.cpu_id,
            total_cpus: l.total_cpus,
            functions: l
                .functions
                .iter()
                .map(|(name, sub)| UcodeFunction {
                    name: name.clone(),
                    sub_opcode: *sub,
                    key: u32::from(*sub) << 8 | CUSTOM_OP_OPCODE as u32,
                })
                .collect(),
        })
        .collect()
}

fn inspect_build(dir: &Path, input: String, options: &Options) -> Result<Report, InspectError> {
    let info_path = dir.join(BUILD_INFO_FILE);
    if !info_path.exists() {
        return Err(InspectError::NotABuild {
            path: dir.to_path_buf(),
        });
    }
    let text = std::fs::read_to_string(&info_path).map_err(|source| InspectError::Io {
        path: info_path.clone(),
        source,
    })?;
    let info = BuildInfo::from_json(&text).map_err(|source| InspectError::BuildInfo {
        path: info_path,
        source,
    })?;
    let ucode_path = dir.join(UCODE_LIB_FILE);
    let text = std::fs::read_to_string(&ucode_path).map_err(|source| InspectError::Io {
        path: ucode_path.clone(),
        source,
    })?;
    let registry = Registry::from_json(&text).map_err(|source| InspectError::UcodeLib {
        path: ucode_path,
        source: Box::new(source),
    })?;
    let ucode = ucode_libraries(&registry);
    let mut images = Vec::new();
    for (core, file) in info.images.iter().enumerate() {
        let path = dir.join(file);
        // Every image of a build within the packed-library bound, as `q7emu run` reads them.
        let data = input::read_file(&path, InputKind::PackedLibrary)?;
        let elf = ElfFile::parse(&data).map_err(|source| InspectError::Elf {
            path: path.clone(),
            source,
        })?;
        let symbols = info
            .linked
            .get(core)
            .and_then(|f| input::read_file(&dir.join(f), InputKind::ElfImage).ok())
            .map(|b| Symbols::from_elf(&b))
            .filter(|s| !s.is_empty());
        let names = Names {
            info: Some(&info),
            ucode: ucode.iter().find(|l| &l.library == file),
            symbols,
        };
        let core = info.multicore.then_some(core as u32);
        images.push(image_report(
            &path,
            file.clone(),
            &data,
            &elf,
            core,
            !info.multicore,
            &names,
            options,
        )?);
    }
    Ok(Report {
        format_version: FORMAT_VERSION,
        input,
        kind: "build",
        build: Some(BuildReport {
            info,
            ucode_lib: ucode,
        }),
        images,
    })
}

/// The report of one image file `data` (parsed as `elf`), shown as `file`. A device image is
/// prelinked for `core`'s window of the 8-core layout (when `None`: the window its link address
/// names), or for the single-core window with `single_core`.
#[allow(clippy::too_many_arguments)]
fn image_report(
    path: &Path,
    file: String,
    data: &[u8],
    elf: &ElfFile<'_>,
    core: Option<u32>,
    single_core: bool,
    names: &Names<'_>,
    options: &Options,
) -> Result<ImageReport, InspectError> {
    let mut report = ImageReport {
        file,
        bytes: data.len() as u64,
        elf: elf_report(elf),
        packed: None,
        device: None,
    };
    if elf.kind == ElfKind::Relocatable && has_lib_func(elf) {
        let limit = InputKind::PackedLibrary.limit().bytes;
        if data.len() as u64 > limit {
            return Err(InputError::TooLarge {
                path: path.to_path_buf(),
                size: Some(data.len() as u64),
                kind: InputKind::PackedLibrary,
            }
            .into());
        }
        let image = packed::device_image(data).map_err(|source| InspectError::Packed {
            path: path.to_path_buf(),
            source,
        })?;
        let sym = elf
            .symbols
            .iter()
            .find(|s| s.name == ENTRY_SYMBOL)
            .expect("device_image found lib_func");
        report.packed = Some(PackedReport {
            section: elf
                .sections
                .get(usize::from(sym.section))
                .map(|s| s.name.clone())
                .unwrap_or_default(),
            offset: sym.value,
            device_image_bytes: image.len(),
        });
        report.device = Some(device_report(
            path,
            image,
            Source::CustomOp(data),
            core,
            single_core,
            names,
            options,
        )?);
    } else if is_device_image(elf) {
        let mut device = device_report(
            path,
            data,
            Source::CustomOpImage(data),
            core,
            single_core,
            names,
            options,
        )?;
        device.elf = None;
        report.device = Some(device);
    }
    Ok(report)
}

fn device_report(
    path: &Path,
    image: &[u8],
    source: Source<'_>,
    core: Option<u32>,
    single_core: bool,
    names: &Names<'_>,
    options: &Options,
) -> Result<DeviceReport, InspectError> {
    let elf = ElfFile::parse(image).map_err(|e| InspectError::Prelink {
        path: path.to_path_buf(),
        source: Box::new(PrelinkError::Elf(e)),
    })?;
    let code_vaddr = elf
        .segments
        .iter()
        .find(|s| s.is_load() && s.is_exec())
        .map_or(0, |s| s.vaddr);
    let core = core.unwrap_or_else(|| if single_core { 0 } else { core_of(code_vaddr) });
    let window = if single_core {
        map::SINGLE_CORE_IMAGE_WINDOW
    } else {
        map::image_window(core)
    };
    let pre = prelink::prelink(image, window.0).map_err(|source| InspectError::Prelink {
        path: path.to_path_buf(),
        source: Box::new(source),
    })?;
    let ucpl_image = pre.ucpl();
    let header = UcplHeader::decode(&ucpl_image).map_err(|source| InspectError::Ucpl {
        path: path.to_path_buf(),
        source,
    })?;
    let kernel_table = KtabTrailer::of_image(&header, &ucpl_image).map(|t| {
        let at = t.addr.wrapping_sub(window.0) as usize;
        let image_entries = ucpl_image
            .get(at..at + t.size as usize)
            .and_then(|b| kernel_table::decode(b).ok())
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, e)| names.entry(i, e))
            .collect();
        let (bound_entries, bind_error) = match bind(source, core, single_core, options) {
            Ok(entries) => (
                Some(
                    entries
                        .iter()
                        .enumerate()
                        .map(|(i, e)| names.entry(i, e))
                        .collect(),
                ),
                None,
            ),
            Err(e) => (None, Some(e.to_string())),
        };
        KernelTableReport {
            addr: t.addr,
            size: t.size,
            image_entries,
            bound_entries,
            bind_error,
        }
    });
    Ok(DeviceReport {
        elf: Some(elf_report(&elf)),
        core,
        single_core,
        window: WindowReport {
            start: window.0,
            size: window.1,
        },
        ucpl: UcplReport {
            magic: ucpl::MAGIC,
            code_seg_off: header.code_seg_off(),
            code_seg_len: header.code_seg_len,
            data_seg_off: header.data_seg_off,
            data_seg_len: header.data_seg_len,
            init: header.init,
            fini: header.fini,
            start_sym: header.start_sym,
            image_bytes: pre.size(),
        },
        relocations: RelocationReport {
            applied: pre.relocations,
            by_type: pre
                .by_type
                .iter()
                .map(|&(t, n)| RelocationCount {
                    r_type: t,
                    name: relocation_name(t).map_or_else(|| format!("type {t}"), str::to_string),
                    count: n,
                })
                .collect(),
        },
        kernel_table,
    })
}

/// Why the kernel table could not be bound: the step that failed and its error.
#[derive(Debug, thiserror::Error)]
enum BindError {
    /// The emulated cluster could not be made.
    #[error("cluster: {0}")]
    Cluster(#[from] q7_emulator::platform::HbmError),
    /// The library could not be created (prelinked and staged).
    #[error(transparent)]
    Create(#[from] NrtError),
    /// The firmware refused a load record, or the start symbol failed.
    #[error(transparent)]
    Load(#[from] FirmwareError),
}

/// Loads `source` on `core` of a fresh emulated cluster as `q7emu run` does and returns the
/// kernel table the firmware bound after the start symbol.
fn bind(
    source: Source<'_>,
    core: u32,
    single_core: bool,
    options: &Options,
) -> Result<Vec<KernelEntry>, BindError> {
    let cluster = Cluster::new(&ClusterConfig::default())?;
    let mut device = Firmware::new(cluster);
    device.single_core = single_core;
    device.call_budget = options.call_budget;
    let mut ctx = Context::new(device);
    let mut lib = ctx.create(coretype::CAYMAN, core, Some(SELECTOR), "inspect", source)?;
    for record in ctx.load_sequence(&mut lib, None) {
        ctx.device.process(core, &record)?;
    }
    Ok(ctx
        .device
        .kernel_table(SELECTOR, core)
        .map(<[KernelEntry]>::to_vec)
        .unwrap_or_default())
}

/// Rows as aligned columns, each line indented by `indent` spaces; trailing blanks trimmed.
fn columns(rows: &[Vec<String>], indent: usize) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = " ".repeat(indent);
        for (c, cell) in r.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < r.len() {
                line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `n` and the noun for it: "1 entry", "2 entries".
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn hex(v: u32) -> String {
    format!("{v:#010x}")
}

fn elf_text(e: &ElfReport, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let kind = ElfKind::Other(e.e_type).describe();
    out.push_str(&format!(
        "{pad}ELF32 {kind}, machine {} (EM_XTENSA), entry {}, flags {:#x}, {} sections, {} symbols\n",
        e.machine,
        hex(e.entry),
        e.flags,
        e.sections,
        e.symbols
    ));
    if e.segments.is_empty() {
        out.push_str(&format!("{pad}no program headers\n"));
        return;
    }
    let mut rows = vec![["type", "offset", "vaddr", "memsz", "filesz", "flags"]
        .map(str::to_string)
        .to_vec()];
    for s in &e.segments {
        rows.push(vec![
            s.kind.clone(),
            format!("{:#08x}", s.offset),
            hex(s.vaddr),
            format!("{:#08x}", s.memsz),
            format!("{:#08x}", s.filesz),
            s.flags_text.clone(),
        ]);
    }
    out.push_str(&columns(&rows, indent));
}

fn entries_text(entries: &[EntryReport], indent: usize) -> String {
    let mut rows = vec![["#", "key", "function", "op", "symbol"]
        .map(str::to_string)
        .to_vec()];
    for e in entries {
        rows.push(vec![
            e.index.to_string(),
            format!("{:#06x}", e.key),
            hex(e.function),
            e.op.clone().unwrap_or_else(|| "-".into()),
            e.symbol.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    columns(&rows, indent)
}

fn device_text(d: &DeviceReport, out: &mut String) {
    if let Some(elf) = &d.elf {
        out.push_str("  device image:\n");
        elf_text(elf, 4, out);
    }
    let u = &d.ucpl;
    let window = if d.single_core {
        "the single-core image window".to_string()
    } else {
        format!("core {}'s image window", d.core)
    };
    out.push_str(&format!(
        "  UCPL image, prelinked for {window} {}+{:#x}: {} bytes\n",
        hex(d.window.start),
        d.window.size,
        u.image_bytes
    ));
    let rows: Vec<Vec<String>> = [
        ("magic", format!("{:#x} (\"UCPL \")", u.magic)),
        ("code_seg_off", format!("{:#x}", u.code_seg_off)),
        ("code_seg_len", format!("{:#x}", u.code_seg_len)),
        ("data_seg_off", format!("{:#x}", u.data_seg_off)),
        ("data_seg_len", format!("{:#x}", u.data_seg_len)),
        ("init", hex(u.init)),
        ("fini", hex(u.fini)),
        ("start_sym", hex(u.start_sym)),
    ]
    .into_iter()
    .map(|(k, v)| vec![k.to_string(), v])
    .collect();
    out.push_str(&columns(&rows, 4));
    out.push_str(&format!(
        "  relocations: {} applied\n",
        d.relocations.applied
    ));
    let rows: Vec<Vec<String>> = d
        .relocations
        .by_type
        .iter()
        .map(|r| vec![r.name.clone(), r.count.to_string()])
        .collect();
    out.push_str(&columns(&rows, 4));
    match &d.kernel_table {
        None => {
            out.push_str("  kernel table: none (no KTAB trailer: the image registers no kernels)\n")
        }
        Some(k) => {
            out.push_str(&format!(
                "  kernel table at {}, {} bytes, {}\n",
                hex(k.addr),
                k.size,
                plural(
                    k.size as usize / kernel_table::ENTRY_SIZE,
                    "entry",
                    "entries"
                )
            ));
            match (&k.bound_entries, &k.bind_error) {
                (Some(b), _) => {
                    out.push_str("    bound by the firmware after the start symbol:\n");
                    out.push_str(&entries_text(b, 6));
                }
                (None, Some(e)) => {
                    out.push_str(&format!("    not bound: {e}\n"));
                }
                (None, None) => {}
            }
            if k.image_entries
                .iter()
                .all(|e| e.key == 0 && e.function == 0)
            {
                out.push_str("    in the image: all entries empty (the start symbol fills them)\n");
            } else {
                out.push_str("    in the image:\n");
                out.push_str(&entries_text(&k.image_entries, 6));
            }
        }
    }
}

impl Report {
    /// The `--json` document.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("plain data serializes") + "\n"
    }

    /// The human-readable text.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if let Some(b) = &self.build {
            let i = &b.info;
            out.push_str(&format!(
                "build {}: library {}, {}, get_cpu_count() {}, {}\n",
                self.input,
                i.library,
                if i.multicore {
                    "multicore (one image per core)"
                } else {
                    "single-core"
                },
                i.cpu_count,
                if i.packed {
                    "stripped and packed"
                } else {
                    "unpacked (a -g build)"
                }
            ));
            out.push_str("ops (q7build.json):\n");
            let mut rows = vec![["id", "key", "name", "schema"].map(str::to_string).to_vec()];
            for o in &i.ops {
                rows.push(vec![
                    o.function_id.to_string(),
                    format!("{:#06x}", o.key),
                    o.name.clone(),
                    o.schema.clone(),
                ]);
            }
            out.push_str(&columns(&rows, 2));
            out.push_str(&format!(
                "ucode_lib.json: {}\n",
                plural(b.ucode_lib.len(), "library", "libraries")
            ));
            let mut rows = vec![["library", "cpu", "ucode", "isa", "builtin", "functions"]
                .map(str::to_string)
                .to_vec()];
            for l in &b.ucode_lib {
                let functions: Vec<String> = l
                    .functions
                    .iter()
                    .map(|f| format!("{} (sub_opcode {})", f.name, f.sub_opcode))
                    .collect();
                rows.push(vec![
                    l.library.clone(),
                    format!("{}/{}", l.cpu_id, l.total_cpus),
                    l.ulib_to_ucode_version.clone(),
                    l.ulib_to_isa_version.clone(),
                    l.is_builtin.to_string(),
                    functions.join(", "),
                ]);
            }
            out.push_str(&columns(&rows, 2));
        }
        for image in &self.images {
            out.push_str(&format!("\n{} ({} bytes):\n", image.file, image.bytes));
            elf_text(&image.elf, 2, &mut out);
            if let Some(p) = &image.packed {
                out.push_str(&format!(
                    "  packed library: `{ENTRY_SYMBOL}` at {}+{:#x}, a {}-byte device image\n",
                    p.section, p.offset, p.device_image_bytes
                ));
            }
            if let Some(d) = &image.device {
                device_text(d, &mut out);
            }
        }
        out.trim_start_matches('\n').to_string()
    }
}

// ---------------------------------------------------------------------------------------------
// The command line.

/// `q7emu inspect [--json | --json-file FILE] [--max-cycles N] IMAGE|BUILD_DIR`.
#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// What it holds as one JSON document: `--json` on stdout instead of the text,
    /// `--json-file FILE` besides it.
    #[command(flatten)]
    pub report: crate::json_output::JsonOutput,
    /// Cycle budget of each start symbol run to fill the kernel table.
    #[arg(long, default_value_t = crate::firmware::CALL_BUDGET, value_parser = crate::number::parse_u64)]
    pub max_cycles: u64,
    /// An ELF image (device image, packed library, bare-metal executable) or a build
    /// directory of `q7emu build`.
    #[arg(value_name = "IMAGE|BUILD_DIR")]
    pub input: PathBuf,
}

/// Runs `q7emu inspect`: the text (or the JSON) on stdout; with `--json-file`, the JSON there.
pub fn run(args: InspectArgs) -> Result<crate::exit_code::Exit, crate::command::Failure> {
    use crate::command::Failure;
    let file = args
        .report
        .json_file
        .as_deref()
        .map(crate::json_output::AtomicFile::create)
        .transpose()
        .map_err(Failure::input)?;
    let options = Options {
        call_budget: args.max_cycles,
    };
    let report = inspect(&args.input, &options)?;
    if let Some(file) = file {
        file.write_all_and_commit(report.json().as_bytes())
            .map_err(Failure::input)?;
    }
    let text = if args.report.json {
        report.json()
    } else {
        report.text()
    };
    print!("{text}");
    Ok(crate::exit_code::Exit::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_on_the_widest_cell() {
        let rows = vec![
            vec!["a".to_string(), "bb".to_string(), "c".to_string()],
            vec!["dddd".to_string(), "e".to_string(), String::new()],
        ];
        assert_eq!(columns(&rows, 2), "  a     bb  c\n  dddd  e\n");
    }

    #[test]
    fn an_image_linked_at_a_cores_window_is_prelinked_there() {
        assert_eq!(core_of(0x8400_0020), 0);
        assert_eq!(core_of(0x8460_0020), 3);
        assert_eq!(core_of(0x20), 0, "linked elsewhere: core 0");
    }
}
