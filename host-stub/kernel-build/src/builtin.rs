//! The builtin custom-op library: SORT and TOPK (examples/builtin/README.md), built with the
//! project's SDK as the eight images `libbuiltincustomop_cpu0` … `_cpu7` and staged in a
//! custom-op data directory as the compiler front end stages it (PLATFORM.md "NEFF bundle").
//!
//! * [`build`] is the internal build path: `q7emu build`'s steps ([`crate::build`],
//!   examples/sdk/BUILD.md) with the library name [`LIBRARY`], `--multicore`, the ops of
//!   [`OPS`]; then the build directory's `ucode_lib.json` is rewritten with `is_builtin` true
//!   ([`registry`]), and the stripped images are copied into the data directory under the
//!   staged names ([`q7_loader::neff::builtin_names`]). `q7emu build` itself has no way to
//!   set `is_builtin`: it writes false for every user library (examples/sdk/BUILD.md "Outputs").
//! * [`stage`] reads a data directory through the loader's [`q7_loader::neff::stage_builtins`]
//!   (the directory must exist; each image is staged when it is a file) and registers each
//!   staged image with `cpu_id` its core, `total_cpus` 8 and `is_builtin` true; [`bundle`]
//!   writes those as the NEFF-style bundle ([`q7_loader::neff::write_bundle`]).
//!
//! The build directory is an ordinary one: `q7emu run` runs its ops like any library's.

use std::path::{Path, PathBuf};

use q7_loader::neff::{self, NeffError};
use q7_loader::ucode_lib::{Registry, RegistryError};

use crate::metadata::{BuildInfo, UCODE_LIB_FILE, ULIB_TO_ISA_VERSION, ULIB_TO_UCODE_VERSION};
use crate::{BuildError, Options};

/// The builtin library's base name: its images are `libbuiltincustomop_cpu{i}.*`
/// (PLATFORM.md "NEFF bundle").
pub const LIBRARY: &str = "libbuiltincustomop";
/// The cores of the builtin library set: one image per core.
pub const TOTAL_CPUS: u8 = 8;

/// The builtin ops, FunctionId order: (function, schema) (examples/builtin/README.md "Ops").
pub const OPS: [(&str, &str); 4] = [
    (
        "sort_values",
        "sort_values(Tensor x, bool descending) -> Tensor",
    ),
    (
        "sort_indices",
        "sort_indices(Tensor x, bool descending) -> Tensor",
    ),
    (
        "topk_values",
        "topk_values(Tensor x, int k, bool largest) -> Tensor",
    ),
    (
        "topk_indices",
        "topk_indices(Tensor x, int k, bool largest) -> Tensor",
    ),
];

/// Why the builtin library could not be built or staged.
#[derive(Debug, thiserror::Error)]
pub enum BuiltinError {
    /// A step of the build failed.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The registry refused the library set.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The data directory is missing, or the bundle could not be written.
    #[error(transparent)]
    Neff(#[from] NeffError),
    /// A build produced an image that is not a builtin image's name.
    #[error(
        "the build wrote {found} for core {cpu}, but the staged builtin image is named {want}"
    )]
    ImageName {
        /// The core.
        cpu: usize,
        /// The image the build wrote.
        found: String,
        /// The name staging looks for.
        want: String,
    },
    /// A file or directory could not be used.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuiltinError {
    let path = path.to_path_buf();
    move |source| BuiltinError::Io { path, source }
}

/// The registry of the builtin images `libraries` given with their cores: each with `cpu_id`
/// its core, `total_cpus` [`TOTAL_CPUS`], `is_builtin` true, the version strings of every build
/// (examples/sdk/BUILD.md "Outputs") and every op of [`OPS`], `sub_opcode` its FunctionId.
pub fn registry<S: AsRef<str>>(libraries: &[(u8, S)]) -> Result<Registry, RegistryError> {
    let mut r = Registry::default();
    for (cpu, name) in libraries {
        r.add_lib_file(
            name.as_ref(),
            ULIB_TO_UCODE_VERSION,
            ULIB_TO_ISA_VERSION,
            true,
            *cpu,
            TOTAL_CPUS,
        )?;
    }
    for (function, _) in OPS {
        let id = r.allocate_function_id()?;
        for (_, name) in libraries {
            r.add_function(name.as_ref(), function, id)?;
        }
    }
    Ok(r)
}

/// What [`build`] builds from where.
#[derive(Debug, Clone, Default)]
pub struct BuiltinOptions {
    /// The sources (examples/builtin/sort.cpp).
    pub sources: Vec<PathBuf>,
    /// The build directory (as `q7emu build -o`).
    pub build_dir: PathBuf,
    /// The custom-op data directory the stripped images are staged in (created if missing).
    pub data_dir: PathBuf,
    /// Toolchain prefix, as `q7emu build --toolchain`.
    pub toolchain: Option<PathBuf>,
    /// SDK directory, as `q7emu build --sdk`.
    pub sdk: Option<PathBuf>,
}

/// Builds the builtin library (the module's doc says how); its `q7build.json` contents.
pub fn build(opts: &BuiltinOptions) -> Result<BuildInfo, BuiltinError> {
    let options = Options {
        name: LIBRARY.to_string(),
        fns: OPS.iter().map(|(f, _)| f.to_string()).collect(),
        schemas: OPS.iter().map(|(_, s)| s.to_string()).collect(),
        multicore: true,
        build_dir: opts.build_dir.clone(),
        sources: opts.sources.clone(),
        toolchain: opts.toolchain.clone(),
        sdk: opts.sdk.clone(),
        ..Options::default()
    };
    let info = crate::build(&options)?;
    // The registry, as the build wrote it but builtin; written whole, then renamed over.
    let libraries: Vec<(u8, &String)> = info
        .images
        .iter()
        .enumerate()
        .map(|(cpu, image)| (cpu as u8, image))
        .collect();
    let text = registry(&libraries)?
        .to_json()
        .expect("eight libraries give a registry");
    let path = opts.build_dir.join(UCODE_LIB_FILE);
    let partial = opts.build_dir.join(format!(".{UCODE_LIB_FILE}.partial"));
    std::fs::write(&partial, text).map_err(io(&partial))?;
    std::fs::rename(&partial, &path).map_err(io(&path))?;
    // The stripped images, under the names staging looks for.
    std::fs::create_dir_all(&opts.data_dir).map_err(io(&opts.data_dir))?;
    for (cpu, want) in neff::builtin_names().enumerate() {
        let found = format!("{LIBRARY}_cpu{cpu}.stripped.so");
        if found != want {
            return Err(BuiltinError::ImageName { cpu, found, want });
        }
        let from = opts.build_dir.join(&found);
        let to = opts.data_dir.join(&want);
        std::fs::copy(&from, &to).map_err(io(&from))?;
    }
    Ok(info)
}

/// One staged builtin image: its core, file name and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Staged {
    /// The core it runs on.
    pub cpu: u8,
    /// Its file name in the data directory.
    pub file_name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Stages the builtin images of data directory `dir` ([`neff::stage_builtins`]: the
/// directory must exist, "Custom op data directory not found" otherwise; each image that is a
/// file is staged), with their registry ([`registry`]).
pub fn stage(dir: &Path) -> Result<(Registry, Vec<Staged>), BuiltinError> {
    let mut staged = Vec::new();
    for (cpu, path) in neff::stage_builtins(dir)? {
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        staged.push(Staged {
            cpu,
            file_name,
            bytes,
        });
    }
    let libraries: Vec<(u8, &String)> = staged.iter().map(|s| (s.cpu, &s.file_name)).collect();
    Ok((registry(&libraries)?, staged))
}

/// Writes the NEFF-style bundle of the builtin images staged from `dir` ([`stage`],
/// [`neff::write_bundle`]): `def.json`, each image, `ucode_lib.json`.
pub fn bundle(dir: &Path, out: impl std::io::Write) -> Result<(), BuiltinError> {
    let (registry, staged) = stage(dir)?;
    let binaries: Vec<(&str, &[u8])> = staged
        .iter()
        .map(|s| (s.file_name.as_str(), s.bytes.as_slice()))
        .collect();
    neff::write_bundle(&registry, &binaries, out)?;
    Ok(())
}
