//! Gathering a [`Report`]: reading an input within its bound ([`q7_loader::input`]) — a build
//! directory with its `q7build.json` and `ucode_lib.json`, a packed library, a device image or
//! another ELF file —, prelinking each device image for its core's image window, and binding
//! its kernel table by loading it on an emulated cluster and running its start symbol, as the
//! firmware does (PLATFORM.md "Kernel table").

use std::path::Path;

use q7_emulator::platform::{map, Cluster, ClusterConfig};
use q7_loader::dynamic::relocation_name;
use q7_loader::elf::{ElfFile, ElfKind};
use q7_loader::input::{self, InputError, InputKind};
use q7_loader::kernel_table::{self, KernelEntry};
use q7_loader::ktab::KtabTrailer;
use q7_loader::packed::{self, ENTRY_SYMBOL};
use q7_loader::prelink::{self, PrelinkError};
use q7_loader::ucode_lib::{Registry, CUSTOM_OP_OPCODE};
use q7_loader::ucpl::{self, UcplHeader};

use super::model::{
    BuildReport, DeviceReport, ElfReport, EntryReport, ImageReport, KernelTableReport,
    PackedReport, RelocationCount, RelocationReport, Report, SegmentReport, UcodeFunction,
    UcodeLibrary, UcplReport, WindowReport, FORMAT_VERSION,
};
use super::InspectError;
use q7_kernel_build::link::NUM_CPUS;
use q7_kernel_build::metadata::{BuildInfo, BUILD_INFO_FILE};
use q7_run::op::library;
use q7_run::packed::SELECTOR;
use q7_runtime::firmware::{Firmware, FirmwareError};
use q7_runtime::nrtucode::{coretype, Context, NrtError, Source};
use q7_symbols::Symbols;

/// Where op names and symbols come from for one image.
#[derive(Debug, Default)]
struct Names<'a> {
    /// `q7build.json`.
    info: Option<&'a BuildInfo>,
    /// The `ucode_lib.json` library of this image.
    ucode: Option<&'a UcodeLibrary>,
    /// The unstripped image's symbols.
    symbols: Option<Symbols>,
    /// Whether the image's bound kernel table must match `info` (an image of a build
    /// directory; a single image beside one is only not labelled when it does not match).
    check: bool,
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
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sibling = read_sibling_build(dir, &file, &data);
    let names = Names {
        info: sibling.as_ref().map(|s| &s.0),
        ucode: sibling
            .as_ref()
            .and_then(|s| s.1.iter().find(|l| l.library == file)),
        symbols: None,
        check: false,
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

/// `q7build.json` and `ucode_lib.json` beside a single image `file` (its bytes `data`), when
/// they are a consistent build description ([`library::read_build`]) that lists the file as
/// one of its images, and the file is that image ([`library::check_image`]): an image that is
/// not the build's is not labelled with its op names.
fn read_sibling_build(
    dir: &Path,
    file: &str,
    data: &[u8],
) -> Option<(BuildInfo, Vec<UcodeLibrary>)> {
    let (info, registry) = library::read_build(dir).ok()?;
    let core = info.images.iter().position(|f| f == file)?;
    library::check_image(&dir.join(file), core, data, &info).ok()?;
    Some((info, ucode_libraries(&registry)))
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
    if std::fs::symlink_metadata(&info_path).is_err() {
        return Err(InspectError::NotABuild {
            path: dir.to_path_buf(),
        });
    }
    // Both files through the bounded reader, checked with each other before any image is read.
    let (info, registry) = library::read_build(dir)?;
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
        library::check_image(&path, core, &data, &info)?;
        let linked = info.linked.get(core).map(|f| dir.join(f));
        let symbols = match linked
            .as_ref()
            .map(|p| (p, input::read_file(p, InputKind::ElfImage)))
        {
            Some((p, Ok(b))) => {
                library::check_linked(p, core, &b, &info)?;
                Some(Symbols::from_elf_bytes(b)).filter(|s| !s.is_empty())
            }
            _ => None,
        };
        let names = Names {
            info: Some(&info),
            ucode: ucode.iter().find(|l| &l.library == file),
            symbols,
            check: true,
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
    let mut mismatch = None;
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
            Ok(entries) => {
                // A build's image must bind the build's ops (PLATFORM.md "Kernel table").
                if let Some(info) = names.info.filter(|_| names.check) {
                    mismatch = library::check_kernel_table(path, &entries, info).err();
                }
                (
                    Some(
                        entries
                            .iter()
                            .enumerate()
                            .map(|(i, e)| names.entry(i, e))
                            .collect(),
                    ),
                    None,
                )
            }
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
    if let Some(e) = mismatch {
        return Err(e.into());
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_linked_at_a_cores_window_is_prelinked_there() {
        assert_eq!(core_of(0x8400_0020), 0);
        assert_eq!(core_of(0x8460_0020), 3);
        assert_eq!(core_of(0x20), 0, "linked elsewhere: core 0");
    }
}
