//! The steps of [`super::build`], one function each, in the order examples/sdk/BUILD.md
//! "Steps" gives them: check the arguments, find the tools, the sources and the SDK, prepare
//! the build directory ([`Ctx`]), then compile, link, pack and write the metadata through it.
//! Each step fails with the [`BuildError`] of its first problem, as `q7emu build` reports it.

use std::path::{Path, PathBuf};

use super::metadata::{self, BuildInfo};
use super::toolchain::{self, run, Tool, ToolError, Toolchain};
use super::{
    base_name, compile, link, ops, pack, sdk, wrapper, BuildError, Op, Options, HELPERS_ARCHIVE,
    WRAPPER_FILE,
};

/// A source to compile: as given (for messages), absolute, and its object.
#[derive(Debug, Clone)]
pub(super) struct Unit {
    given: PathBuf,
    source: PathBuf,
    object: PathBuf,
}

/// Everything one build shares: the options, the tools, the canonical build and SDK
/// directories, the user's sources and how paths are mapped in objects.
pub(super) struct Ctx<'a> {
    opts: &'a Options,
    tools: Toolchain,
    dir: PathBuf,
    sdk: PathBuf,
    units: Vec<Unit>,
    prefix_maps: Vec<String>,
    sdk_include: PathBuf,
    user_includes: Vec<PathBuf>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError {
    let path = path.to_path_buf();
    move |source| BuildError::Io { path, source }
}

fn absolute(p: &Path) -> Result<PathBuf, BuildError> {
    std::path::absolute(p).map_err(io(p))
}

/// The wrapper's object, relative to the build directory.
fn wrapper_object() -> PathBuf {
    Path::new(WRAPPER_FILE).with_extension("o")
}

/// The file name of `p`, as the metadata lists images.
pub(super) fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Step 1, the arguments: the library's base name ([`base_name`]), its ops ([`ops`]), and at
/// least one source.
pub(super) fn check_arguments(opts: &Options) -> Result<(String, Vec<Op>), BuildError> {
    let base = base_name(&opts.name)?;
    let ops = ops(&opts.fns, &opts.schemas)?;
    if opts.sources.is_empty() {
        return Err(BuildError::NoSources);
    }
    Ok((base, ops))
}

/// Step 2, the tools: every one installed under `--toolchain`, else the default prefix.
pub(super) fn find_toolchain(opts: &Options) -> Result<Toolchain, BuildError> {
    let prefix = opts
        .toolchain
        .clone()
        .unwrap_or_else(toolchain::default_prefix);
    Ok(Toolchain::find(&prefix)?)
}

/// Step 2, the sources: each exists and is of a language the build compiles, in the order
/// given, and no two (nor one and the wrapper) would write the same object. The objects are
/// relative to the build directory until [`prepare`] places them there.
pub(super) fn source_units(sources: &[PathBuf]) -> Result<Vec<Unit>, BuildError> {
    let mut units: Vec<Unit> = Vec::new();
    for given in sources {
        if !given.is_file() {
            return Err(BuildError::MissingSource(given.clone()));
        }
        if compile::Lang::of(given).is_none() {
            return Err(BuildError::SourceType(given.clone()));
        }
        let source = std::fs::canonicalize(given).map_err(io(given))?;
        let stem = given
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        units.push(Unit {
            given: given.clone(),
            source,
            object: PathBuf::from(format!("{stem}.o")),
        });
    }
    check_object_names(&units)?;
    Ok(units)
}

/// No two units, nor a unit and the wrapper, compile to the same object.
fn check_object_names(units: &[Unit]) -> Result<(), BuildError> {
    let wrapper_object = wrapper_object();
    for (i, u) in units.iter().enumerate() {
        let clash = units[..i]
            .iter()
            .find(|v| v.object == u.object)
            .map(|v| v.given.clone())
            .or_else(|| (u.object == wrapper_object).then(|| PathBuf::from(WRAPPER_FILE)));
        if let Some(first) = clash {
            return Err(BuildError::ObjectClash {
                object: u.object.display().to_string(),
                first,
                second: u.given.clone(),
            });
        }
    }
    Ok(())
}

/// Step 2, the SDK: `--sdk`, else [`sdk::locate`]'s default, canonical, with its `include/`
/// directory and linker script.
pub(super) fn locate_sdk(flag: Option<&Path>) -> Result<PathBuf, BuildError> {
    let sdk_dir = sdk::locate(flag);
    let sdk_dir = std::fs::canonicalize(&sdk_dir).map_err(|_| BuildError::Sdk {
        dir: sdk_dir.clone(),
        what: "the directory".into(),
    })?;
    for (what, p) in [
        ("include/", sdk_dir.join("include")),
        (link::SCRIPT, sdk_dir.join(link::SCRIPT)),
    ] {
        if !p.exists() {
            return Err(BuildError::Sdk {
                dir: sdk_dir.clone(),
                what: what.to_string(),
            });
        }
    }
    Ok(sdk_dir)
}

/// Step 2, the build directory: created if missing, the units' objects placed in it, the user's
/// include directories made absolute, and the prefix maps that keep absolute paths out of the
/// objects ([`compile::prefix_maps`]).
pub(super) fn prepare(
    opts: &Options,
    tools: Toolchain,
    sdk_dir: PathBuf,
    mut units: Vec<Unit>,
) -> Result<Ctx<'_>, BuildError> {
    std::fs::create_dir_all(&opts.build_dir).map_err(io(&opts.build_dir))?;
    let dir = std::fs::canonicalize(&opts.build_dir).map_err(io(&opts.build_dir))?;
    for u in &mut units {
        u.object = dir.join(&u.object);
    }
    let user_includes = opts
        .includes
        .iter()
        .map(|i| absolute(i))
        .collect::<Result<Vec<_>, _>>()?;
    let mut read_dirs: Vec<PathBuf> = units
        .iter()
        .filter_map(|u| u.source.parent().map(Path::to_path_buf))
        .collect();
    read_dirs.extend(user_includes.iter().cloned());
    Ok(Ctx {
        opts,
        tools,
        prefix_maps: compile::prefix_maps(&read_dirs, &dir, &sdk_dir),
        sdk_include: sdk_dir.join("include"),
        sdk: sdk_dir,
        dir,
        units,
        user_includes,
    })
}

impl Ctx<'_> {
    /// Compiles one unit with `cflags` and `includes`; a failure names the source as given.
    fn compile(
        &self,
        unit: &Unit,
        cflags: &[String],
        includes: &[PathBuf],
    ) -> Result<(), BuildError> {
        let mut cmd = compile::command(
            &self.tools,
            &compile::Compilation {
                source: &unit.source,
                object: &unit.object,
                cflags,
                includes,
                prefix_maps: &self.prefix_maps,
                cwd: &self.dir,
            },
        )
        .ok_or_else(|| BuildError::SourceType(unit.given.clone()))?;
        match run(&mut cmd, self.opts.verbose) {
            Ok(_) => Ok(()),
            Err(ToolError::Failed { output, .. }) => Err(BuildError::Compile {
                source_file: unit.given.clone(),
                output: self.opts.verbose.then_some(output),
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// The SDK's include directory, then the user's when `user`.
    fn all_includes(&self, user: bool) -> Vec<PathBuf> {
        let mut v = vec![self.sdk_include.clone()];
        if user {
            v.extend(self.user_includes.iter().cloned());
        }
        v
    }

    /// Step 3, the user's sources, in the order given, with the user's flags and includes:
    /// their objects.
    pub(super) fn compile_sources(&self) -> Result<Vec<PathBuf>, BuildError> {
        let mut objects = Vec::new();
        for u in &self.units {
            self.compile(u, &self.opts.cflags, &self.all_includes(true))?;
            objects.push(u.object.clone());
        }
        Ok(objects)
    }

    /// Step 3, the wrapper: `wrapper.cpp` generated for `ops` ([`wrapper::generate`]) into the
    /// build directory and compiled with the user's flags and the SDK's includes: its object.
    pub(super) fn compile_wrapper(
        &self,
        base: &str,
        ops: &[Op],
        cpu_count: u32,
    ) -> Result<PathBuf, BuildError> {
        let wrapper_path = self.dir.join(WRAPPER_FILE);
        std::fs::write(&wrapper_path, wrapper::generate(base, ops, cpu_count))
            .map_err(io(&wrapper_path))?;
        let wrapper_unit = Unit {
            given: wrapper_path.clone(),
            source: wrapper_path,
            object: self.dir.join(wrapper_object()),
        };
        self.compile(&wrapper_unit, &self.opts.cflags, &self.all_includes(false))?;
        Ok(wrapper_unit.object)
    }

    /// Step 3, the SDK runtime, part by part ([`sdk::Part::ALL`]) into `BUILD_DIR/sdk/<part>/`:
    /// the custom-op runtime's objects, and the helper routines archived as
    /// [`HELPERS_ARCHIVE`] (the archives to link).
    pub(super) fn compile_sdk(&self) -> Result<(Vec<PathBuf>, Vec<PathBuf>), BuildError> {
        let (mut objects, mut archives) = (Vec::new(), Vec::new());
        for part in sdk::Part::ALL {
            let part_objects = self.compile_sdk_part(part)?;
            if part_objects.is_empty() {
                continue;
            }
            match part {
                sdk::Part::Customop => objects.extend(part_objects),
                sdk::Part::Helpers => archives.push(self.archive_helpers(&part_objects)?),
            }
        }
        Ok((objects, archives))
    }

    /// The sources of SDK `part`, compiled without the user's flags or includes: their
    /// objects, none when the part has no source.
    fn compile_sdk_part(&self, part: sdk::Part) -> Result<Vec<PathBuf>, BuildError> {
        let rel_sources = sdk::sources(&self.sdk, part).map_err(io(&self.sdk.join(part.dir())))?;
        if rel_sources.is_empty() {
            return Ok(Vec::new());
        }
        let obj_dir = self.dir.join("sdk").join(part.name());
        std::fs::create_dir_all(&obj_dir).map_err(io(&obj_dir))?;
        let mut part_objects = Vec::new();
        for rel in &rel_sources {
            let source = self.sdk.join(part.dir()).join(rel);
            let unit = Unit {
                given: source.clone(),
                source,
                object: obj_dir.join(sdk::object_name(rel)),
            };
            self.compile(&unit, &[], &self.all_includes(false))?;
            part_objects.push(unit.object);
        }
        Ok(part_objects)
    }

    /// `objects` archived, afresh and deterministically, as `BUILD_DIR/sdk/`
    /// [`HELPERS_ARCHIVE`]: the archive.
    fn archive_helpers(&self, objects: &[PathBuf]) -> Result<PathBuf, BuildError> {
        let archive = self.dir.join("sdk").join(HELPERS_ARCHIVE);
        if archive.exists() {
            std::fs::remove_file(&archive).map_err(io(&archive))?;
        }
        let mut ar = self.tools.command(Tool::Ar);
        ar.current_dir(&self.dir)
            .arg("rcsD")
            .arg(&archive)
            .args(objects);
        run(&mut ar, self.opts.verbose).map_err(BuildError::Archive)?;
        Ok(archive)
    }

    /// Step 4, linking: one image, or one per core with `--multicore` ([`link::targets`]),
    /// against the SDK's linker script: the linked images.
    pub(super) fn link(
        &self,
        base: &str,
        objects: &[PathBuf],
        archives: &[PathBuf],
    ) -> Result<Vec<PathBuf>, BuildError> {
        let script = self.sdk.join(link::SCRIPT);
        let mut linked = Vec::new();
        for t in &link::targets(base, self.opts.multicore) {
            let out = self.dir.join(&t.so_name);
            let mut cmd =
                link::command(&self.tools, &script, t, objects, archives, &out, &self.dir);
            run(&mut cmd, self.opts.verbose).map_err(|e| match e {
                ToolError::Failed { output, .. } => BuildError::Link {
                    image: out.clone(),
                    output,
                },
                other => other.into(),
            })?;
            linked.push(out);
        }
        Ok(linked)
    }

    /// Step 5, with `packed`: every linked image stripped and packed ([`pack::pack`]). The
    /// file names of the images to load: the packed ones, or the linked ones without `packed`.
    pub(super) fn pack(&self, linked: &[PathBuf], packed: bool) -> Result<Vec<String>, BuildError> {
        let mut images = Vec::new();
        for so in linked {
            if packed {
                let p = pack::pack(&self.tools, so, self.opts.verbose)?;
                images.push(file_name(&p.packed));
            } else {
                images.push(file_name(so));
            }
        }
        Ok(images)
    }

    /// Step 6, the metadata: `ucode_lib.json` (the registry of `info`'s images and `ops`,
    /// [`metadata::registry`]), then `q7build.json` (`info`), in the build directory.
    pub(super) fn write_metadata(&self, info: &BuildInfo, ops: &[Op]) -> Result<(), BuildError> {
        let registry = metadata::registry(&info.images, ops)?;
        let ucode = self.dir.join(metadata::UCODE_LIB_FILE);
        let text = registry.to_json().unwrap_or_default();
        std::fs::write(&ucode, text).map_err(io(&ucode))?;
        let info_path = self.dir.join(metadata::BUILD_INFO_FILE);
        std::fs::write(&info_path, info.to_json()).map_err(io(&info_path))?;
        Ok(())
    }
}
