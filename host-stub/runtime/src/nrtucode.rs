//! The nrtucode-style host API (PLATFORM.md "Host flow", stages 5–7 and unload): a context over the emulated
//! device, loadable libraries created from packed images (selector resolution, coretype switch,
//! host prelink, a 16 MiB device buffer written as `[UCPL header][code][data]`), their 0x1095
//! load/unload sequences, the opcode → library resolver, and destroy.
//!
//! Our choices where the seed is silent: `arg3` is the target core (its image window is the
//! prelink base); the staged buffer lives in HBM and the record's device address is its HBM
//! address.

use q7_loader::load_record::LoadRecord;
use q7_loader::packed;
use q7_loader::prelink::{self, PrelinkError, EXTISA_CAP};
use q7_loader::ucpl;

use crate::firmware::Firmware;

/// The environment variable that selects the CPTC-decode superset library (selector 3).
pub const CPTC_ENV: &str = "NRT_UCODE_UNSTABLE_LIBRARY_FLAG_CPTC_DECODE";
/// Size of the device buffer a library is staged in (PLATFORM.md "Device buffer": 16 MiB).
pub const DEVICE_BUFFER: u64 = 16 << 20;

/// Core types (PLATFORM.md "Core types").
pub mod coretype {
    /// SUNDA: host-only.
    pub const SUNDA: u32 = 6;
    /// CAYMAN.
    pub const CAYMAN: u32 = 13;
    /// MARIANA.
    pub const MARIANA: u32 = 21;
    /// MARIANA_PLUS.
    pub const MARIANA_PLUS: u32 = 29;
    /// Internal-only core type.
    pub const INTERNAL: u32 = 37;
}

/// API errors; `code()` gives the numeric status.
#[derive(Debug, thiserror::Error)]
pub enum NrtError {
    /// Core type not supported here (status 8).
    #[error("unsupported core type {0} (status 8)")]
    CoreType(u32),
    /// The packed image does not yield a device image.
    #[error(transparent)]
    Packed(#[from] packed::PackedError),
    /// Prelink failed (including the size caps).
    #[error(transparent)]
    Prelink(#[from] PrelinkError),
    /// No HBM for the device buffer.
    #[error("device buffer: {0}")]
    Hbm(#[from] q7_emulator::platform::HbmError),
    /// Destroy while the library is still loaded on the device.
    #[error("library {0}: destroy before its unload sequence ran")]
    DestroyWhileLoaded(String),
    /// Target core outside the cluster.
    #[error("target core {core} out of range (the cluster has {cores})")]
    Core {
        /// Requested core.
        core: u32,
        /// Cluster size.
        cores: usize,
    },
}

impl NrtError {
    /// The numeric status.
    pub fn code(&self) -> u32 {
        match self {
            NrtError::CoreType(_) => 8,
            _ => 1,
        }
    }
}

/// The context: the emulated device (firmware over a cluster) and the log.
#[derive(Debug)]
pub struct Context {
    /// The device.
    pub device: Firmware,
    /// Warnings and notes, in order.
    pub log: Vec<String>,
    /// Allow the internal core type 37.
    pub internal: bool,
}

/// Where the library image comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A custom-op packed load-lib, bounded by its image window (2 MiB, 32 MiB single-core).
    CustomOp(&'a [u8]),
    /// A custom-op device image as linked, not packed (a `-g` build keeps only these), bounded
    /// like [`Source::CustomOp`].
    CustomOpImage(&'a [u8]),
    /// An EXTISA library, bounded by the 64 KiB device buffer cap (PLATFORM.md "Image size limits").
    ExtIsa(&'a [u8]),
}

/// One `write_memhandle` call: what, where, how much.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemWrite {
    /// "header", "code" or "data".
    pub part: &'static str,
    /// HBM address.
    pub addr: u64,
    /// Bytes.
    pub len: usize,
}

/// A loadable library.
#[derive(Debug, Clone)]
pub struct Library {
    /// Name (for logs).
    pub name: String,
    /// Library selector.
    pub selector: u32,
    /// Target core.
    pub core: u32,
    /// The staging buffer in HBM (None for host-only core types).
    pub device_addr: Option<u64>,
    /// Prelinked (UCPL) image size.
    pub prelinked_size: u32,
    /// The memhandle writes, in order.
    pub writes: Vec<MemWrite>,
    loaded: bool,
}

impl Library {
    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Prelinked size in bytes.
    pub fn size(&self) -> u32 {
        self.prelinked_size
    }
}

/// The selector: a caller value wins; else the CPTC environment variable selects 3; else 0.
pub fn resolve_selector(caller: Option<u32>) -> u32 {
    caller.unwrap_or_else(|| {
        if std::env::var_os(CPTC_ENV).is_some() {
            3
        } else {
            0
        }
    })
}

impl Context {
    /// A context over `device`.
    pub fn new(device: Firmware) -> Self {
        Context {
            device,
            log: Vec::new(),
            internal: false,
        }
    }

    /// Creates a loadable library for `coretype` on core `arg3` from `source`, with the caller's
    /// selector if any: prelinks for the core's image window and stages `[header][code][data]`
    /// into a 16 MiB device buffer.
    pub fn create(
        &mut self,
        coretype: u32,
        arg3: u32,
        library: Option<u32>,
        name: &str,
        source: Source<'_>,
    ) -> Result<Library, NrtError> {
        let selector = resolve_selector(library);
        let _span = tracing::info_span!("create", core = arg3, name, selector, coretype).entered();
        let cores = self.device.cluster.cores.len();
        if arg3 as usize >= cores {
            return Err(NrtError::Core { core: arg3, cores });
        }
        let stage = match coretype {
            coretype::CAYMAN | coretype::MARIANA | coretype::MARIANA_PLUS => true,
            coretype::SUNDA => false,
            coretype::INTERNAL if self.internal => true,
            other => return Err(NrtError::CoreType(other)),
        };
        let (base, window) = self.device.image_window(arg3);
        let usable = u64::from(window - q7_layout::TRAMPOLINE_SIZE);
        let (image, cap, cap_name) = match source {
            Source::CustomOp(b) => (packed::device_image(b)?, usable, "the image window"),
            Source::CustomOpImage(b) => (b, usable, "the image window"),
            Source::ExtIsa(b) => (
                packed::device_image(b)?,
                u64::from(EXTISA_CAP),
                "the device buffer",
            ),
        };
        let pre = prelink::prelink(image, base)
            .inspect_err(|e| tracing::warn!(error = %e, "prelink failed"))?;
        pre.check_size(cap, cap_name)
            .inspect_err(|e| tracing::warn!(error = %e, "prelinked image too large"))?;
        let ucpl_image = pre.ucpl();
        tracing::debug!(
            window = format_args!("{base:#010x}"),
            prelinked = ucpl_image.len(),
            "prelinked"
        );
        let mut lib = Library {
            name: name.to_string(),
            selector,
            core: arg3,
            device_addr: None,
            prelinked_size: ucpl_image.len() as u32,
            writes: Vec::new(),
            loaded: false,
        };
        if stage {
            let hbm = self.device.cluster.hbm.clone();
            let addr = hbm.alloc(DEVICE_BUFFER, 4096)?;
            let code_end = ucpl::SIZE + pre.code.bytes.len();
            for (part, range) in [
                ("header", 0..ucpl::SIZE),
                ("code", ucpl::SIZE..code_end),
                ("data", code_end..ucpl_image.len()),
            ] {
                hbm.write(addr + range.start as u64, &ucpl_image[range.clone()])
                    .map_err(NrtError::Hbm)?;
                lib.writes.push(MemWrite {
                    part,
                    addr: addr + range.start as u64,
                    len: range.len(),
                });
            }
            lib.device_addr = Some(addr);
            tracing::debug!(staged = format_args!("{addr:#x}"), "staged in HBM");
        }
        Ok(lib)
    }

    /// The load sequence (direction 1): one 0x40-byte 0x1095 record for the library's core; for
    /// another target core (cross-context), eight identical records and a warning.
    pub fn load_sequence(
        &mut self,
        lib: &mut Library,
        target_core: Option<u32>,
    ) -> Vec<[u8; 0x40]> {
        let rec = LoadRecord::load(
            lib.device_addr.unwrap_or(0),
            lib.selector,
            lib.prelinked_size,
        )
        .encode();
        lib.loaded = true;
        match target_core {
            Some(t) if t != lib.core => {
                self.log.push(format!(
                    "warning: library {} built for core {} loaded from context {t}: emitting 8 records",
                    lib.name, lib.core
                ));
                vec![rec; 8]
            }
            _ => vec![rec],
        }
    }

    /// The unload sequence (direction 2): one record naming only the selector.
    pub fn unload_sequence(&mut self, lib: &mut Library) -> Vec<[u8; 0x40]> {
        lib.loaded = false;
        vec![LoadRecord::unload(lib.selector).encode()]
    }

    /// Frees the library's device buffer; its unload sequence must have run first.
    pub fn destroy(&mut self, lib: Library) -> Result<(), NrtError> {
        if lib.loaded {
            return Err(NrtError::DestroyWhileLoaded(lib.name));
        }
        if let Some(addr) = lib.device_addr {
            self.device.cluster.hbm.free(addr)?;
        }
        Ok(())
    }
}

/// The opcode → library resolver (PLATFORM.md "Opcode → library resolver"): content-blind; SUNDA → 0; CAYMAN, MARIANA,
/// MARIANA_PLUS → 3 with the CPTC environment variable, else 0.
pub fn libraries_from_opcodes(coretype: u32, opcodes: &[u8]) -> Result<Vec<u32>, NrtError> {
    let _ = opcodes;
    match coretype {
        coretype::SUNDA => Ok(vec![0]),
        coretype::CAYMAN | coretype::MARIANA | coretype::MARIANA_PLUS => {
            Ok(vec![resolve_selector(None)])
        }
        other => Err(NrtError::CoreType(other)),
    }
}
