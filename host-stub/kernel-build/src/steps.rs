//! The steps of [`super::build`], one function each, in the order examples/sdk/BUILD.md
//! "Steps" gives them: check the arguments, find the tools, the sources and the SDK, prepare
//! the build directory ([`Ctx`]: its lock and a private work directory in it), then compile,
//! link, pack and write the metadata into the work directory, and install the outputs into the
//! build directory. Each step fails with the [`BuildError`] of its first problem, as
//! `q7emu build` reports it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::metadata::{self, BuildInfo};
use super::project::{self, Project};
use super::toolchain::{self, run, Tool, ToolError, Toolchain};
use super::{
    base_name, compile, deps, link, ops, pack, project_ops, sdk, shape, wrapper, BuildError, Op,
    Options, LOCK_FILE, WRAPPER_FILE, WRAPPER_OBJECT,
};

/// The prefix of a build's private work directory inside the build directory.
pub(super) const WORK_PREFIX: &str = ".q7build-";

/// A source to compile: as given (for messages), absolute, and its object.
#[derive(Debug, Clone)]
pub(super) struct Unit {
    given: PathBuf,
    source: PathBuf,
    object: PathBuf,
}

/// Everything one build shares: the options, the tools, the canonical build directory and its
/// lock, the private work directory every step writes in, the SDK directory, the user's
/// sources and how paths are mapped in objects.
pub(super) struct Ctx<'a> {
    opts: &'a Options,
    tools: Toolchain,
    dir: PathBuf,
    /// The work directory, `<dir>/.q7build-XXXXXX`: removed, with whatever is left in it, when
    /// the build ends, or when a second Ctrl-C ends the process.
    work: q7_conventions::output::TemporaryDir,
    /// The build directory's lock, held until the build ends.
    _lock: File,
    sdk: PathBuf,
    units: Vec<Unit>,
    /// A project's shape sources, their objects under `shape/` of the work directory.
    shape_units: Vec<Unit>,
    prefix_maps: Vec<String>,
    sdk_include: PathBuf,
    user_includes: Vec<PathBuf>,
    /// The files the compilations so far read ([`super::deps`]).
    inputs: std::cell::RefCell<deps::Inputs>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError {
    let path = path.to_path_buf();
    move |source| BuildError::Io { path, source }
}

fn absolute(p: &Path) -> Result<PathBuf, BuildError> {
    std::path::absolute(p).map_err(io(p))
}

/// The file name of `p`, as the metadata lists images.
pub(super) fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Step 1, the arguments: the library's base name ([`base_name`]), its ops ([`ops`], or a
/// project's registrations read from its shape sources, [`project::read`], [`project_ops`]),
/// and at least one source.
pub(super) fn check_arguments(
    opts: &Options,
) -> Result<(String, Vec<Op>, Option<Project>), BuildError> {
    let base = base_name(&opts.name)?;
    if opts.shape.is_empty() {
        let ops = ops(&opts.fns, &opts.schemas)?;
        if opts.sources.is_empty() {
            return Err(BuildError::NoSources);
        }
        return Ok((base, ops, None));
    }
    if !opts.fns.is_empty() || !opts.schemas.is_empty() {
        return Err(BuildError::ProjectAndSchemas);
    }
    if base == project::RESERVED_NAME {
        return Err(BuildError::ReservedLibrary(opts.name.clone()));
    }
    if opts.sources.is_empty() {
        return Err(BuildError::NoSources);
    }
    for s in &opts.shape {
        check_source(s)?;
        if compile::Lang::of(s) != Some(compile::Lang::Cxx) {
            return Err(BuildError::ShapeSourceType(s.clone()));
        }
    }
    let project = project::read(&opts.shape)?;
    let ops = project_ops(&project)?;
    Ok((base, ops, Some(project)))
}

/// Step 2, a project's shape sources: their units, objects under `shape/`, no two alike.
pub(super) fn shape_units(shape: &[PathBuf]) -> Result<Vec<Unit>, BuildError> {
    let mut units: Vec<Unit> = Vec::new();
    for given in shape {
        let source = std::fs::canonicalize(given).map_err(io(given))?;
        let stem = given
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let object = PathBuf::from(format!("{SHAPE_DIR}/{stem}.o"));
        if let Some(first) = units.iter().find(|u| u.object == object) {
            return Err(BuildError::ObjectClash {
                object: object.display().to_string(),
                first: first.given.clone(),
                second: given.clone(),
            });
        }
        units.push(Unit {
            given: given.clone(),
            source,
            object,
        });
    }
    Ok(units)
}

/// Where a project's shape objects go in the work directory (the SDK's shape main in its
/// `main/`).
pub(super) const SHAPE_DIR: &str = "shape";

/// Step 2, the tools: every one installed under `--toolchain`, else the default prefix.
pub(super) fn find_toolchain(opts: &Options) -> Result<Toolchain, BuildError> {
    let prefix = opts
        .toolchain
        .clone()
        .unwrap_or_else(toolchain::default_prefix);
    Ok(Toolchain::find(&prefix)?)
}

/// What a file of type `t` is, for a message: "a character device", "a FIFO", …
fn file_kind(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// A source exists and is a regular file (a symbolic link to one included).
fn check_source(given: &Path) -> Result<(), BuildError> {
    match std::fs::metadata(given) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(BuildError::MissingSource(given.to_path_buf()))
        }
        Err(source) => Err(BuildError::Io {
            path: given.to_path_buf(),
            source,
        }),
        Ok(m) if m.is_dir() => Err(BuildError::SourceIsDirectory(given.to_path_buf())),
        Ok(m) if !m.is_file() => Err(BuildError::SourceNotFile {
            path: given.to_path_buf(),
            what: file_kind(m.file_type()),
        }),
        Ok(_) => Ok(()),
    }
}

/// Step 2, the sources: each exists, is a regular file and is of a language the build
/// compiles, in the order given, and no two (nor one and the wrapper generated in
/// `build_dir`) would write the same object. The objects are relative to the build directory
/// until [`prepare`] places them in the work directory.
pub(super) fn source_units(sources: &[PathBuf], build_dir: &Path) -> Result<Vec<Unit>, BuildError> {
    let mut units: Vec<Unit> = Vec::new();
    for given in sources {
        check_source(given)?;
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
    check_object_names(&units, build_dir)?;
    Ok(units)
}

/// No two units, nor a unit and the wrapper generated in `build_dir`, compile to the same
/// object.
fn check_object_names(units: &[Unit], build_dir: &Path) -> Result<(), BuildError> {
    for (i, u) in units.iter().enumerate() {
        if u.object == Path::new(WRAPPER_OBJECT) {
            return Err(BuildError::WrapperClash {
                source_file: u.given.clone(),
                wrapper: build_dir.join(WRAPPER_FILE),
            });
        }
        if let Some(first) = units[..i].iter().find(|v| v.object == u.object) {
            return Err(BuildError::ObjectClash {
                object: u.object.display().to_string(),
                first: first.given.clone(),
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

/// How often a build waiting for the build directory's lock tries again (and looks for Ctrl-C).
const LOCK_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// The build directory's lock ([`LOCK_FILE`] in `dir`), held: when another build holds it,
/// says so on stderr and waits for it to end, or for `stop` ([`BuildError::Interrupted`]).
fn lock(dir: &Path, stop: &q7_emulator::StopRequest) -> Result<File, BuildError> {
    let path = dir.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io(&path))?;
    let failed = |source| BuildError::Lock {
        path: path.clone(),
        source,
    };
    let mut told = false;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) => {
                if !told {
                    eprintln!(
                        "q7emu: waiting for another build into {} to end (it holds {})",
                        dir.display(),
                        path.display()
                    );
                    told = true;
                }
                if stop.is_requested() {
                    return Err(BuildError::Interrupted);
                }
                std::thread::sleep(LOCK_POLL);
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(failed(e)),
        }
    }
}

/// Step 2, the build directory: created if missing and locked ([`LOCK_FILE`]: another build
/// into it is waited for), a private work directory made in it ([`WORK_PREFIX`]), the units'
/// objects placed there, the user's include directories made absolute, and the prefix maps that
/// keep absolute paths out of the objects ([`compile::prefix_maps`]; the work directory maps
/// as the build directory does, so the objects are those a build in place would make).
pub(super) fn prepare(
    opts: &Options,
    tools: Toolchain,
    sdk_dir: PathBuf,
    mut units: Vec<Unit>,
    mut shape_units: Vec<Unit>,
) -> Result<Ctx<'_>, BuildError> {
    std::fs::create_dir_all(&opts.build_dir).map_err(io(&opts.build_dir))?;
    let dir = std::fs::canonicalize(&opts.build_dir).map_err(io(&opts.build_dir))?;
    let lock = lock(&dir, &opts.stop)?;
    let work = q7_conventions::output::TemporaryDir::new_in(&dir, WORK_PREFIX).map_err(io(&dir))?;
    for u in units.iter_mut().chain(shape_units.iter_mut()) {
        u.object = work.path().join(&u.object);
    }
    let user_includes = opts
        .includes
        .iter()
        .map(|i| absolute(i))
        .collect::<Result<Vec<_>, _>>()?;
    let mut read_dirs: Vec<PathBuf> = units
        .iter()
        .chain(&shape_units)
        .filter_map(|u| u.source.parent().map(Path::to_path_buf))
        .collect();
    read_dirs.extend(user_includes.iter().cloned());
    read_dirs.push(dir.clone());
    Ok(Ctx {
        opts,
        tools,
        prefix_maps: compile::prefix_maps(&read_dirs, work.path(), &sdk_dir),
        sdk_include: sdk_dir.join("include"),
        sdk: sdk_dir,
        dir,
        work,
        _lock: lock,
        units,
        shape_units,
        user_includes,
        inputs: Default::default(),
    })
}

impl Ctx<'_> {
    /// The work directory.
    fn work(&self) -> &Path {
        self.work.path()
    }

    /// Where `p`, a path in the work directory, is installed in the build directory (for
    /// messages); other paths as they are.
    fn shown(&self, p: &Path) -> PathBuf {
        match p.strip_prefix(self.work()) {
            Ok(rel) => self.dir.join(rel),
            Err(_) => p.to_path_buf(),
        }
    }

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
            Ok(_) => self.note_inputs(&unit.object),
            Err(ToolError::Failed { output, .. }) => Err(BuildError::Compile {
                source_file: unit.given.clone(),
                output,
                verbose: self.opts.verbose,
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// Adds what the compilation writing `object` read (its dependency file, [`deps`]) to the
    /// build's inputs, and removes the dependency file: it is not an output.
    fn note_inputs(&self, object: &Path) -> Result<(), BuildError> {
        let depfile = deps::depfile(object);
        let text = std::fs::read_to_string(&depfile).map_err(io(&depfile))?;
        self.inputs.borrow_mut().add(&text, &self.dir, self.work());
        std::fs::remove_file(&depfile).map_err(io(&depfile))
    }

    /// Every file the build's compilations read, outside its work directory: absolute, in
    /// path order ([`deps::Inputs`]).
    pub(super) fn inputs(&self) -> Vec<PathBuf> {
        self.inputs.take().into_vec()
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
    /// work directory and compiled with the user's flags and the SDK's includes: its object. A
    /// failure names it "the generated wrapper.cpp" (the work directory goes with the build).
    pub(super) fn compile_wrapper(
        &self,
        base: &str,
        ops: &[Op],
        cpu_count: u32,
    ) -> Result<PathBuf, BuildError> {
        let wrapper_path = self.work().join(WRAPPER_FILE);
        std::fs::write(&wrapper_path, wrapper::generate(base, ops, cpu_count))
            .map_err(io(&wrapper_path))?;
        let wrapper_unit = Unit {
            given: PathBuf::from(format!("the generated {WRAPPER_FILE}")),
            source: wrapper_path,
            object: self.work().join(WRAPPER_OBJECT),
        };
        self.compile(&wrapper_unit, &self.opts.cflags, &self.all_includes(false))?;
        Ok(wrapper_unit.object)
    }

    /// Step 3, the SDK runtime, part by part ([`sdk::Part::ALL`]) into `sdk/<part>/` of the
    /// work directory: the custom-op runtime's objects, and the archives to link, in link
    /// order (the element-wise ops', the math library's and the helper routines',
    /// [`sdk::Part::archive`]).
    pub(super) fn compile_sdk(&self) -> Result<(Vec<PathBuf>, Vec<PathBuf>), BuildError> {
        let (mut objects, mut archives) = (Vec::new(), Vec::new());
        for part in sdk::Part::ALL {
            let part_objects = self.compile_sdk_part(part)?;
            if part_objects.is_empty() {
                continue;
            }
            match part.archive() {
                None => objects.extend(part_objects),
                Some(name) => archives.push(self.archive(part, name, &part_objects)?),
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
        let obj_dir = self.work().join("sdk").join(part.name());
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

    /// The objects of `part` archived, afresh (the work directory has none before) and
    /// deterministically, as `sdk/<name>` of the work directory: the archive.
    fn archive(
        &self,
        part: sdk::Part,
        name: &str,
        objects: &[PathBuf],
    ) -> Result<PathBuf, BuildError> {
        let archive = self.work().join("sdk").join(name);
        let mut ar = self.tools.command(Tool::Ar);
        ar.current_dir(self.work())
            .arg("rcsD")
            .arg(&archive)
            .args(objects);
        run(&mut ar, self.opts.verbose).map_err(|source| BuildError::Archive {
            part: part.name(),
            source,
        })?;
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
            let out = self.work().join(&t.so_name);
            let mut cmd = link::command(
                &self.tools,
                &script,
                t,
                objects,
                archives,
                &out,
                self.work(),
            );
            run(&mut cmd, self.opts.verbose).map_err(|e| match e {
                ToolError::Failed { output, .. } => BuildError::Link {
                    image: self.shown(&out),
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
                let p = pack::pack(&self.tools, so, self.opts.verbose)
                    .map_err(|e| e.shown_as(|p| self.shown(p)))?;
                images.push(file_name(&p.packed));
            } else {
                images.push(file_name(so));
            }
        }
        Ok(images)
    }

    /// Step 3, a project's kernels: each op's kernel function, as the compiled wrapper calls
    /// it (the undefined symbol of `wrapper` whose demangled name is the kernel's, so the C++
    /// compiler's own mangling of the signature the wrapper declares), must be defined by one of
    /// the compute sources' `objects`; else [`BuildError::KernelMissing`] names the registration,
    /// the signature and the functions of that name the compute sources do define.
    pub(super) fn check_kernels(
        &self,
        project: &Project,
        ops: &[Op],
        objects: &[PathBuf],
        wrapper: &Path,
    ) -> Result<(), BuildError> {
        let symbols = |p: &Path| -> Result<Vec<q7_loader::elf::Symbol>, BuildError> {
            let bytes = std::fs::read(p).map_err(io(p))?;
            let elf = q7_loader::elf::ElfFile::parse(&bytes).map_err(|e| BuildError::Io {
                path: p.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
            })?;
            Ok(elf.symbols)
        };
        let called = symbols(wrapper)?;
        let mut defined = Vec::new();
        for o in objects {
            defined.extend(
                symbols(o)?
                    .into_iter()
                    .filter(|s| s.global && s.section != 0),
            );
        }
        for (op, reg) in ops.iter().zip(&project.ops) {
            let prefix = format!("{}(", op.kernel);
            let demangled = |s: &q7_loader::elf::Symbol| q7_symbols::demangle(&s.name);
            let Some(want) = called
                .iter()
                .find(|s| s.section == 0 && demangled(s).starts_with(&prefix))
            else {
                continue;
            };
            if defined.iter().any(|s| s.name == want.name) {
                continue;
            }
            let found: Vec<String> = defined
                .iter()
                .map(demangled)
                .filter(|d| d.starts_with(&prefix) || *d == op.kernel)
                .collect();
            return Err(BuildError::KernelMissing(Box::new(super::KernelMissing {
                at: reg.at.clone(),
                op: op.name.clone(),
                shape_fn: reg.shape_fn.clone(),
                kernel: op.kernel.clone(),
                signature: demangled(want),
                sources: self.units.iter().map(|u| u.given.clone()).collect(),
                found,
            })));
        }
        Ok(())
    }

    /// Step 3, first: a project's shape executable ([`shape`]): each shape source compiled for the
    /// host with [`shape::HOST_CXX`] (`host_cxx`), then linked with the SDK's shape main as
    /// `<base>.shape` in the work directory; its registrations (`--list`) must be `project`'s.
    /// The executable's file name.
    pub(super) fn build_shape(
        &self,
        base: &str,
        host_cxx: &Path,
        project: &Project,
    ) -> Result<String, BuildError> {
        let shape_dir = self.work().join(SHAPE_DIR);
        let main_dir = shape_dir.join("main");
        std::fs::create_dir_all(&main_dir).map_err(io(&main_dir))?;
        let main = Unit {
            given: self.sdk.join(shape::MAIN_SOURCE),
            source: self.sdk.join(shape::MAIN_SOURCE),
            object: main_dir.join("shape_main.o"),
        };
        let mut objects = Vec::new();
        for u in self.shape_units.iter().chain(std::iter::once(&main)) {
            let mut cmd = Command::new(host_cxx);
            cmd.current_dir(&self.dir)
                .args(["-x", "c++", "-c"])
                .args(shape::COMPILE_FLAGS)
                .args(self.opts.cflags.iter().filter(|f| is_define(f)))
                .arg(format!(
                    "-I{}",
                    self.sdk.join(shape::HOST_INCLUDE).display()
                ));
            for i in &self.user_includes {
                cmd.arg(format!("-I{}", i.display()));
            }
            cmd.arg("-idirafter")
                .arg(&self.sdk_include)
                .args(&self.prefix_maps)
                .args(deps::flags(&deps::depfile(&u.object)))
                .arg("-o")
                .arg(&u.object)
                .arg(&u.source);
            match run(&mut cmd, self.opts.verbose) {
                Ok(_) => {}
                Err(ToolError::Failed { output, .. }) => {
                    return Err(BuildError::Compile {
                        source_file: u.given.clone(),
                        output,
                        verbose: self.opts.verbose,
                    })
                }
                Err(e) => return Err(e.into()),
            }
            self.note_inputs(&u.object)?;
            objects.push(u.object.clone());
        }
        let name = format!("{base}.{}", shape::EXTENSION);
        let exe = self.work().join(&name);
        let mut cmd = Command::new(host_cxx);
        cmd.current_dir(self.work())
            .args(shape::LINK_FLAGS)
            .arg("-o")
            .arg(&exe)
            .args(&objects);
        run(&mut cmd, self.opts.verbose).map_err(|e| match e {
            ToolError::Failed { output, .. } => BuildError::Link {
                image: self.shown(&exe),
                output,
            },
            other => other.into(),
        })?;
        let listing = shape::list(&exe).map_err(|e| match e {
            // Messages name the executable where it is installed.
            shape::ShapeError::Failed {
                what, how, stderr, ..
            } => shape::ShapeError::Failed {
                exe: self.shown(&exe),
                what,
                how,
                stderr,
            },
            other => other,
        })?;
        let read = shape::Listing {
            namespace: project.namespace.clone(),
            ops: project
                .ops
                .iter()
                .map(|r| shape::ListedOp {
                    name: r.op.clone(),
                    kernel: r.kernel.clone(),
                    args: r.args.iter().map(|a| a.kind).collect(),
                })
                .collect(),
        };
        if listing != read {
            return Err(shape::ShapeError::Registrations {
                exe: self.shown(&exe),
                compiled: listing.describe(),
                read: read.describe(),
            }
            .into());
        }
        Ok(name)
    }

    /// The SHA-256 of each of `files` of the work directory ([`metadata::sha256_hex`]), for
    /// `q7build.json`.
    pub(super) fn digests(&self, files: &[String]) -> Result<Vec<String>, BuildError> {
        files
            .iter()
            .map(|f| {
                let path = self.work().join(f);
                let bytes = std::fs::read(&path).map_err(io(&path))?;
                Ok(metadata::sha256_hex(&bytes))
            })
            .collect()
    }

    /// Step 6, the metadata: `ucode_lib.json` (the registry of `info`'s images and `ops`,
    /// [`metadata::registry`]), then `q7build.json` (`info`), in the work directory.
    pub(super) fn write_metadata(&self, info: &BuildInfo, ops: &[Op]) -> Result<(), BuildError> {
        let registry = metadata::registry(&info.images, ops)?;
        let ucode = self.work().join(metadata::UCODE_LIB_FILE);
        let text = registry.to_json().unwrap_or_default();
        std::fs::write(&ucode, text).map_err(io(&ucode))?;
        let info_path = self.work().join(metadata::BUILD_INFO_FILE);
        std::fs::write(&info_path, info.to_json()).map_err(io(&info_path))?;
        Ok(())
    }

    /// The last step: every file the build made, renamed from the work directory to the same
    /// place in the build directory (directories created as needed; a file of the same name
    /// replaced, as a rebuild replaces its outputs), `ucode_lib.json` and then `q7build.json`
    /// last, so that the metadata never names an image not yet in place. Nothing else in the
    /// build directory is touched.
    pub(super) fn install(&self) -> Result<(), BuildError> {
        let mut files = Vec::new();
        walk_files(self.work(), Path::new(""), &mut files).map_err(io(self.work()))?;
        let last = |rel: &PathBuf| match rel.to_str() {
            Some(metadata::UCODE_LIB_FILE) => 1,
            Some(metadata::BUILD_INFO_FILE) => 2,
            _ => 0,
        };
        files.sort_by_key(|rel| (last(rel), rel.clone()));
        for rel in files {
            let to = self.dir.join(&rel);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            std::fs::rename(self.work().join(&rel), &to).map_err(io(&to))?;
        }
        Ok(())
    }
}

/// Whether user cflag `f` defines or undefines a macro (`-DX`, `-UX`): the only cflags the
/// host compile of the shape sources takes (examples/sdk/BUILD.md "Projects").
fn is_define(f: &str) -> bool {
    f.starts_with("-D") || f.starts_with("-U")
}

/// The files below `root`/`rel`, relative to `root`, into `out`.
fn walk_files(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(root.join(rel))? {
        let entry = entry?;
        let rel = rel.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            walk_files(root, &rel, out)?;
        } else {
            out.push(rel);
        }
    }
    Ok(())
}
