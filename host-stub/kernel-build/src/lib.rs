//! # q7-kernel-build — the SDK build driver
//!
//! `q7emu build`: a custom-op library from C++ sources, step by step (examples/sdk/BUILD.md
//! "Steps" describes the flow and every output).
//!
//! 1. check the arguments: as many `--fn` as `--schema`, 1 to [`MAX_OPS`] ops, each function
//!    name a C identifier of at most [`MAX_NAME_LEN`] characters, each schema parsing
//!    ([`schema`]) and naming its function — or a project's registrations read from its shape
//!    sources ([`project`]);
//! 2. check that every tool is installed ([`toolchain`]) and every source exists;
//! 3. for a project (`--shape`, [`project`]), build the shape executable for the host
//!    ([`shape`]); compile the user sources ([`compile`]), generate and compile `wrapper.cpp`
//!    ([`wrapper`]) (for a project, check that each kernel function is defined), compile the
//!    SDK runtime ([`sdk`]);
//! 4. link once, or eight times with `--multicore` ([`link`]);
//! 5. unless `-g` is among the user's cflags, strip and pack every image ([`pack`]);
//! 6. write `ucode_lib.json` and `q7build.json` ([`metadata`]).
//!
//! [`build`] is that list: each step is one function of the private `steps` module (the
//! `q7emu build` command line is q7-host's `commands::build`).
//!
//! Identical inputs give byte-identical outputs: fixed orders everywhere, no timestamps, and
//! no absolute path in any object (see [`compile`]).
//!
//! [`builtin`] builds the builtin SORT/TOPK library through the same steps and stages it as
//! the compiler front end does (examples/builtin/README.md).

pub mod builtin;
pub mod compile;
pub mod deps;
pub mod link;
pub mod metadata;
pub mod pack;
pub mod project;
pub mod project_dir;
pub mod schema;
pub mod sdk;
pub mod shape;
mod steps;
pub mod toolchain;
pub mod wrapper;

use q7_emulator::StopRequest;
use std::path::PathBuf;

use metadata::BuildInfo;
use q7_conventions::exit_code::{Kind, Outcome};
use schema::{Schema, SchemaError};
use toolchain::ToolError;

/// Longest function name (examples/sdk/BUILD.md "Steps": 32 characters).
pub const MAX_NAME_LEN: usize = 32;
/// Most ops in one library (PLATFORM.md, "Dispatch keys").
pub const MAX_OPS: usize = 10;
/// The wrapper's file name in the build directory.
pub const WRAPPER_FILE: &str = "wrapper.cpp";
/// The wrapper's object's file name in the build directory.
pub const WRAPPER_OBJECT: &str = "wrapper.o";
/// The lock file a build holds in its build directory while it runs (examples/sdk/BUILD.md
/// "Steps").
pub const LOCK_FILE: &str = ".q7build.lock";
/// The helper archive's file name under `BUILD_DIR/sdk/`.
pub const HELPERS_ARCHIVE: &str = "libq7helpers.a";
/// The element-wise ops' archive's file name under `BUILD_DIR/sdk/`.
pub const OPS_ARCHIVE: &str = "libq7ops.a";
/// The math library's archive's file name under `BUILD_DIR/sdk/`.
pub const MATH_ARCHIVE: &str = "libq7math.a";
/// The user cflag that skips strip and pack (examples/sdk/BUILD.md "Steps").
pub const DEBUG_FLAG: &str = "-g";

/// What to build.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Library name; an extension is dropped (`relu.so` → `relu`).
    pub name: String,
    /// The ops' function names, FunctionId order.
    pub fns: Vec<String>,
    /// The ops' schemas, paired with `fns` in order.
    pub schemas: Vec<String>,
    /// Eight per-core images instead of one single-core image.
    pub multicore: bool,
    /// Extra compiler flags (user sources and wrapper).
    pub cflags: Vec<String>,
    /// Extra include directories (user sources).
    pub includes: Vec<PathBuf>,
    /// Echo every command, and show the compiler's output when a compile fails.
    pub verbose: bool,
    /// Where every output goes (created if missing).
    pub build_dir: PathBuf,
    /// The user's sources: the compute sources of a project.
    pub sources: Vec<PathBuf>,
    /// A project's shape sources (`--shape`, examples/sdk/BUILD.md "Projects"): when given,
    /// the ops are the registrations of their `NEURON_LIBRARY` block ([`project::read`]) and
    /// `fns` and `schemas` are empty; the shape executable is built from them ([`shape`]).
    pub shape: Vec<PathBuf>,
    /// Toolchain prefix (tools in `PREFIX/bin`); `None`: [`toolchain::default_prefix`].
    pub toolchain: Option<PathBuf>,
    /// SDK directory; `None`: [`sdk::locate`]'s default.
    pub sdk: Option<PathBuf>,
    /// The request that stops the build (the command line passes its Ctrl-C's,
    /// `q7_conventions::interrupt::stop_request`): raised, a build waiting for the build
    /// directory's lock stops, and a step that failed because its tool was killed is reported
    /// as [`BuildError::Interrupted`]. The default is never raised.
    pub stop: StopRequest,
}

/// One op of the library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// The op's name (`--fn`, or the first argument of a project's `m.def`).
    pub name: String,
    /// The C++ function of the user's sources the op calls: `name` itself, or the third
    /// argument of a project's `m.def`.
    pub kernel: String,
    /// The project's shape function computing the op's output, if the op is a project's.
    pub shape_fn: Option<String>,
    /// Its FunctionId: the index in `--fn` order.
    pub function_id: u32,
    /// Its parsed schema.
    pub schema: Schema,
    /// The schema as given.
    pub schema_text: String,
}

impl Op {
    /// The schema in one canonical spelling, e.g. `relu(Tensor x, int k) -> Tensor`.
    pub fn canonical_schema(&self) -> String {
        let args: Vec<String> = self
            .schema
            .args
            .iter()
            .map(|a| format!("{} {}", a.kind.spellings()[0], a.name))
            .collect();
        format!("{}({}) -> Tensor", self.schema.name, args.join(", "))
    }
}

/// Why a build fails.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// A tool is missing or failed to start.
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// A source does not exist (the seed's text).
    #[error("Cant find source file {}", .0.display())]
    MissingSource(PathBuf),
    /// A source that is a directory.
    #[error("{}: is a directory, not a source file", .0.display())]
    SourceIsDirectory(PathBuf),
    /// A source that is a device, FIFO or socket.
    #[error("{}: is {what}, not a source file (a source is a regular .c, .cc, .cpp, .cxx or .S file)", .path.display())]
    SourceNotFile {
        /// The source as given.
        path: PathBuf,
        /// What it is instead: "a character device", "a FIFO", …
        what: &'static str,
    },
    /// A shape source that is not C++.
    #[error("{}: a shape source is C++ (.cpp, .cc or .cxx)", .0.display())]
    ShapeSourceType(PathBuf),
    /// A source of an unknown language.
    #[error("{}: not a source the build compiles (.c, .cc, .cpp, .cxx or .S)", .0.display())]
    SourceType(PathBuf),
    /// No sources.
    #[error("no source files given")]
    NoSources,
    /// A source would write the object of the generated wrapper.
    #[error("{} would compile to {WRAPPER_OBJECT}, the object of the wrapper the build generates ({}): rename the source", .source_file.display(), .wrapper.display())]
    WrapperClash {
        /// The source as given.
        source_file: PathBuf,
        /// The generated wrapper's path in the build directory.
        wrapper: PathBuf,
    },
    /// Two sources would write the same object.
    #[error("{} and {} would both compile to {object}: rename one", .first.display(), .second.display())]
    ObjectClash {
        /// The object's file name.
        object: String,
        /// The first source.
        first: PathBuf,
        /// The second source.
        second: PathBuf,
    },
    /// `--fn` and `--schema` counts differ.
    #[error("--fn is given {fns} times but --schema {schemas} times: each function needs its schema, in the same order")]
    CountMismatch {
        /// `--fn` count.
        fns: usize,
        /// `--schema` count.
        schemas: usize,
    },
    /// No op, or more than [`MAX_OPS`].
    #[error("a library has 1 to {MAX_OPS} ops, got {0}")]
    OpCount(usize),
    /// A function name over [`MAX_NAME_LEN`] characters.
    #[error("function name {name:?} is {len} characters long: the limit is {MAX_NAME_LEN}")]
    NameTooLong {
        /// The name.
        name: String,
        /// Its length in characters.
        len: usize,
    },
    /// A function name that is not a C identifier.
    #[error("function name {0:?} is not a C identifier")]
    BadName(String),
    /// A function name the wrapper cannot declare or would clash with.
    #[error("function name {name:?} is {why}: rename the function")]
    ReservedName {
        /// The name.
        name: String,
        /// Why it cannot be used.
        why: String,
    },
    /// The same function twice.
    #[error("function {0:?} is given twice")]
    DuplicateOp(String),
    /// A schema that does not parse.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// A schema naming another function than its `--fn`.
    #[error("schema {schema:?} is for {schema_name:?}, but its --fn is {function:?}")]
    SchemaName {
        /// The schema.
        schema: String,
        /// The name it gives.
        schema_name: String,
        /// The `--fn` paired with it.
        function: String,
    },
    /// A library name that cannot name files.
    #[error("library name {0:?} must be letters, digits, '_', '-' or '.'")]
    LibraryName(String),
    /// A library name whose base name (without its extension) cannot name the library's files.
    #[error("library name {name:?} leaves the base name {base:?} (the name without its extension), which cannot name the library's files: it must start with a letter, digit, '_' or '-'")]
    LibraryBase {
        /// The name as given.
        name: String,
        /// Its base name.
        base: String,
    },
    /// The library name derived from a source cannot name the library's files.
    #[error("the library name {derived:?} derived from the source {} cannot name the library's files: give one (Kernel::name)", .source_file.display())]
    DerivedName {
        /// The source it was derived from.
        source_file: PathBuf,
        /// The derived name.
        derived: String,
    },
    /// The SDK directory lacks something.
    #[error("SDK {}: {what} not found (set --sdk or $Q7EMU_SDK)", .dir.display())]
    Sdk {
        /// The SDK directory.
        dir: PathBuf,
        /// What is missing.
        what: String,
    },
    /// A compilation failed (the seed's text), with the compiler's first error lines, or its
    /// whole output with `--verbose` ([`compile::excerpt`]).
    #[error("Error compiling {}:\n{}", .source_file.display(), compile::excerpt(.output, *.verbose))]
    Compile {
        /// The source as given.
        source_file: PathBuf,
        /// The compiler's output.
        output: String,
        /// Whether the whole output is shown.
        verbose: bool,
    },
    /// Ctrl-C stopped the build (the build directory is as it was).
    #[error("interrupted (Ctrl-C): the build stopped and installed nothing")]
    Interrupted,
    /// Another build holds the build directory's lock and it cannot be waited for.
    #[error("{}: cannot lock the build directory: {source}", .path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A link failed.
    #[error("Error linking {}:\n{output}", .image.display())]
    Link {
        /// The image.
        image: PathBuf,
        /// The linker's output.
        output: String,
    },
    /// Archiving a part of the SDK runtime failed.
    #[error("Error archiving the SDK {part}: {source}")]
    Archive {
        /// The part's name (`ops`, `math`, `helpers`).
        part: &'static str,
        /// The archiver's failure.
        source: ToolError,
    },
    /// Packing failed.
    #[error(transparent)]
    Pack(#[from] pack::PackError),
    /// The registry refused the library set.
    #[error(transparent)]
    Registry(#[from] q7_loader::ucode_lib::RegistryError),
    /// A project's shape sources cannot be read as its registrations.
    #[error(transparent)]
    Project(Box<project::ProjectError>),
    /// A project directory that cannot be read as one.
    #[error(transparent)]
    ProjectDir(#[from] project_dir::ProjectDirError),
    /// `--shape` and `--fn`/`--schema` together.
    #[error("--shape reads the ops from the NEURON_LIBRARY registrations of the shape sources: give no --fn or --schema with it")]
    ProjectAndSchemas,
    /// A project library named [`project::RESERVED_NAME`].
    #[error("library name {0:?} is reserved for torch-neuronx's own ops: rename the library")]
    ReservedLibrary(String),
    /// A kernel function name the wrapper cannot call.
    #[error("{at}: m.def({op:?}, …, {kernel:?}): the kernel function name {why}")]
    KernelName {
        /// The registration.
        at: project::Loc,
        /// The op.
        op: String,
        /// The kernel name.
        kernel: String,
        /// Why it cannot be used.
        why: String,
    },
    /// The kernel function a registration names is not defined in the compute sources.
    #[error(transparent)]
    KernelMissing(Box<KernelMissing>),
    /// The shape executable's build or its registrations went wrong.
    #[error(transparent)]
    Shape(#[from] shape::ShapeError),
    /// A file or directory could not be used.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl From<project::ProjectError> for BuildError {
    fn from(e: project::ProjectError) -> BuildError {
        BuildError::Project(Box::new(e))
    }
}

/// The kernel function a project's registration names is not defined in the compute sources.
#[derive(Debug, thiserror::Error)]
#[error("{at}: m.def({op:?}, &{shape_fn}, {kernel:?}): the kernel function {signature} is not defined in the compute sources {}{}", list(.sources), found_instead(.found))]
pub struct KernelMissing {
    /// The registration.
    pub at: project::Loc,
    /// The op.
    pub op: String,
    /// Its shape function.
    pub shape_fn: String,
    /// The kernel function's name.
    pub kernel: String,
    /// The C++ signature the wrapper calls, e.g. `relu_forward(at::Tensor const&)`.
    pub signature: String,
    /// The compute sources.
    pub sources: Vec<PathBuf>,
    /// Functions of that name the compute sources do define, with their signatures.
    pub found: Vec<String>,
}

impl Outcome for BuildError {
    /// The outcome it ends `q7emu build` with ([`q7_conventions::exit_code`]): a tool missing or
    /// failing is a failed build; arguments, sources, the SDK directory and files are bad
    /// input; Ctrl-C is an interruption.
    fn kind(&self) -> Kind {
        match self {
            BuildError::Interrupted => Kind::Interrupted,
            BuildError::Tool(_)
            | BuildError::Shape(_)
            | BuildError::Compile { .. }
            | BuildError::Link { .. }
            | BuildError::Archive { .. }
            | BuildError::Pack(_) => Kind::BuildFailed,
            _ => Kind::BadInput,
        }
    }
}

fn list(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn found_instead(found: &[String]) -> String {
    if found.is_empty() {
        String::new()
    } else {
        format!(
            " (they define {}: the kernel takes the op's arguments as const torch::Tensor&, \
             const torch::Scalar&, double, int64_t and bool, examples/sdk/BUILD.md \"Projects\")",
            found.join(", ")
        )
    }
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `c` may be in a library name.
fn library_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// The library's base name: `name` without its extension (examples/sdk/BUILD.md "Steps").
/// The name is letters, digits, `_`, `-` and `.`; the base name starts with a letter, digit,
/// `_` or `-` (so neither `.`, `..` nor a hidden file).
pub fn base_name(name: &str) -> Result<String, BuildError> {
    if name.is_empty() || !name.chars().all(library_char) {
        return Err(BuildError::LibraryName(name.to_string()));
    }
    let base = match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    };
    if base.is_empty() || base.starts_with('.') {
        return Err(BuildError::LibraryBase {
            name: name.to_string(),
            base: base.to_string(),
        });
    }
    Ok(base.to_string())
}

/// The library name of a kernel whose first source is `source`, when none is given (the
/// testing API's `Kernel`, docs/testing.md): the source's stem with each character a library
/// name cannot hold made `_` (`my kernel.cpp` → `my_kernel`, examples/sdk/BUILD.md "Steps"); a
/// [`BuildError::DerivedName`] naming the source when even that cannot name the library.
pub fn library_name_from(source: &std::path::Path) -> Result<String, BuildError> {
    let stem = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let derived: String = stem
        .chars()
        .map(|c| if library_char(c) { c } else { '_' })
        .collect();
    match base_name(&derived) {
        Ok(_) => Ok(derived),
        Err(_) => Err(BuildError::DerivedName {
            source_file: source.to_path_buf(),
            derived,
        }),
    }
}

/// The ops of `fns` paired with `schemas`, checked (step 1).
pub fn ops(fns: &[String], schemas: &[String]) -> Result<Vec<Op>, BuildError> {
    if fns.len() != schemas.len() {
        return Err(BuildError::CountMismatch {
            fns: fns.len(),
            schemas: schemas.len(),
        });
    }
    let entries: Vec<OpEntry> = fns
        .iter()
        .zip(schemas)
        .map(|(f, s)| OpEntry {
            name: f.clone(),
            kernel: f.clone(),
            schema: s.clone(),
            registration: None,
        })
        .collect();
    checked_ops(&entries)
}

/// The ops of a project's registrations, checked as [`ops`] checks `--fn`/`--schema` ones, and
/// each kernel function name as a function name the wrapper calls (step 1).
pub fn project_ops(project: &project::Project) -> Result<Vec<Op>, BuildError> {
    let entries: Vec<OpEntry> = project
        .ops
        .iter()
        .map(|r| OpEntry {
            name: r.op.clone(),
            kernel: r.kernel.clone(),
            schema: r.schema(),
            registration: Some(r),
        })
        .collect();
    checked_ops(&entries)
}

/// One op before it is checked.
struct OpEntry<'a> {
    name: String,
    kernel: String,
    schema: String,
    registration: Option<&'a project::Registration>,
}

fn checked_ops(entries: &[OpEntry]) -> Result<Vec<Op>, BuildError> {
    if entries.is_empty() || entries.len() > MAX_OPS {
        return Err(BuildError::OpCount(entries.len()));
    }
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    let mut ops: Vec<Op> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let name = &e.name;
        let len = name.chars().count();
        if len > MAX_NAME_LEN {
            return Err(BuildError::NameTooLong {
                name: name.clone(),
                len,
            });
        }
        if !is_identifier(name) {
            return Err(BuildError::BadName(name.clone()));
        }
        if let Some(why) = schema::cxx_reserved(name)
            .map(str::to_string)
            .or_else(|| wrapper::clash(name, &names))
        {
            return Err(BuildError::ReservedName {
                name: name.clone(),
                why,
            });
        }
        if let Some(r) = e.registration {
            let why = if !is_identifier(&e.kernel) {
                Some("is not a C identifier".to_string())
            } else {
                schema::cxx_reserved(&e.kernel)
                    .map(|w| format!("is {w}"))
                    .or_else(|| wrapper::clash(&e.kernel, &names).map(|w| format!("is {w}")))
            };
            if let Some(why) = why {
                return Err(BuildError::KernelName {
                    at: r.at.clone(),
                    op: name.clone(),
                    kernel: e.kernel.clone(),
                    why: format!("{why}: rename the kernel function"),
                });
            }
        }
        if ops.iter().any(|o| &o.name == name) {
            return Err(BuildError::DuplicateOp(name.clone()));
        }
        let schema = schema::parse(&e.schema)?;
        if &schema.name != name {
            return Err(BuildError::SchemaName {
                schema: e.schema.clone(),
                schema_name: schema.name,
                function: name.clone(),
            });
        }
        ops.push(Op {
            name: name.clone(),
            kernel: e.kernel.clone(),
            shape_fn: e.registration.map(|r| r.shape_fn.clone()),
            function_id: i as u32,
            schema,
            schema_text: e.schema.clone(),
        });
    }
    Ok(ops)
}

/// Builds the library `opts` describes, one step after the other (examples/sdk/BUILD.md
/// "Steps"); its `q7build.json` contents on success. The build runs in a private directory of
/// its own inside the build directory, holding the build directory's lock ([`LOCK_FILE`]); its
/// outputs are renamed into the build directory once every step has succeeded. The first step
/// that fails ends the build with its error and leaves the build directory as it was (but for
/// the lock file).
pub fn build(opts: &Options) -> Result<BuildInfo, BuildError> {
    build_with_inputs(opts).map(|(info, _)| info)
}

/// [`build`], and every file the build's compilations read ([`deps`]: sources, headers
/// wherever they were found, the SDK's runtime sources; absolute, in path order) — what decides
/// whether the build is still up to date.
pub fn build_with_inputs(opts: &Options) -> Result<(BuildInfo, Vec<PathBuf>), BuildError> {
    // A tool killed by Ctrl-C fails its step: the build reports the interruption instead.
    build_steps(opts).map_err(|e| {
        if opts.stop.is_requested() {
            BuildError::Interrupted
        } else {
            e
        }
    })
}

fn build_steps(opts: &Options) -> Result<(BuildInfo, Vec<PathBuf>), BuildError> {
    // 1. arguments (a project's registrations read from its shape sources)
    let (base, ops, project) = steps::check_arguments(opts)?;
    // 2. tools, sources, SDK, build directory
    let tools = steps::find_toolchain(opts)?;
    let host_cxx = match project {
        Some(_) => Some(shape::find_compiler()?),
        None => None,
    };
    let units = steps::source_units(&opts.sources, &opts.build_dir)?;
    let shape_units = steps::shape_units(&opts.shape)?;
    let sdk_dir = steps::locate_sdk(opts.sdk.as_deref())?;
    let ctx = steps::prepare(opts, tools, sdk_dir, units, shape_units)?;
    // 3. a project's shape executable first (the host compiler is quick, and a shape error
    // shows before the device build), then the device compile: user sources, wrapper (a
    // project's kernels checked), SDK runtime
    let shape = match (&project, &host_cxx) {
        (Some(p), Some(cxx)) => {
            let file = ctx.build_shape(&base, cxx, p)?;
            let sha256 = ctx.digests(std::slice::from_ref(&file))?.remove(0);
            Some(metadata::ShapeInfo { file, sha256 })
        }
        _ => None,
    };
    let cpu_count = if opts.multicore { link::NUM_CPUS } else { 1 };
    let mut objects = ctx.compile_sources()?;
    let wrapper = ctx.compile_wrapper(&base, &ops, cpu_count)?;
    if let Some(p) = &project {
        ctx.check_kernels(p, &ops, &objects, &wrapper)?;
    }
    objects.push(wrapper);
    let (runtime, archives) = ctx.compile_sdk()?;
    objects.extend(runtime);
    // 4. link
    let linked = ctx.link(&base, &objects, &archives)?;
    // 5. strip and pack, unless the user asked for debug information
    let packed = !opts.cflags.iter().any(|f| f == DEBUG_FLAG);
    let images = ctx.pack(&linked, packed)?;
    // 6. metadata
    let linked: Vec<String> = linked.iter().map(|p| steps::file_name(p)).collect();
    let info = BuildInfo {
        library: base,
        namespace: project.as_ref().map(|p| p.namespace.clone()),
        multicore: opts.multicore,
        cpu_count,
        packed,
        ops: metadata::op_infos(&ops),
        image_sha256: ctx.digests(&images)?,
        linked_sha256: ctx.digests(&linked)?,
        images,
        linked,
        shape,
    };
    ctx.write_metadata(&info, &ops)?;
    // Every output into the build directory, the metadata last.
    ctx.install()?;
    Ok((info, ctx.inputs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ops_take_function_ids_in_fn_order() {
        let ops = ops(
            &strings(&["relu_forward", "relu_backward"]),
            &strings(&[
                "relu_forward(Tensor t_in) -> Tensor",
                "relu_backward(Tensor t_grad, Tensor t_out) -> Tensor",
            ]),
        )
        .unwrap();
        assert_eq!(ops[0].function_id, 0);
        assert_eq!(ops[1].function_id, 1);
        assert_eq!(
            ops[1].canonical_schema(),
            "relu_backward(Tensor t_grad, Tensor t_out) -> Tensor"
        );
    }

    #[test]
    fn the_name_limit_is_32_characters() {
        let ok = "a".repeat(32);
        let long = "a".repeat(33);
        assert!(ops(std::slice::from_ref(&ok), &[format!("{ok}() -> Tensor")]).is_ok());
        assert!(matches!(
            ops(
                std::slice::from_ref(&long),
                &[format!("{long}() -> Tensor")]
            ),
            Err(BuildError::NameTooLong { len: 33, .. })
        ));
    }

    #[test]
    fn argument_errors_are_specific() {
        assert!(matches!(
            ops(&strings(&["f", "g"]), &strings(&["f() -> Tensor"])),
            Err(BuildError::CountMismatch { fns: 2, schemas: 1 })
        ));
        assert!(matches!(ops(&[], &[]), Err(BuildError::OpCount(0))));
        let eleven: Vec<String> = (0..11).map(|i| format!("f{i}")).collect();
        let schemas: Vec<String> = eleven.iter().map(|f| format!("{f}() -> Tensor")).collect();
        assert!(matches!(
            ops(&eleven, &schemas),
            Err(BuildError::OpCount(11))
        ));
        assert!(matches!(
            ops(&strings(&["9f"]), &strings(&["f() -> Tensor"])),
            Err(BuildError::BadName(_))
        ));
        assert!(matches!(
            ops(
                &strings(&["f", "f"]),
                &strings(&["f() -> Tensor", "f() -> Tensor"])
            ),
            Err(BuildError::DuplicateOp(_))
        ));
        assert!(matches!(
            ops(&strings(&["f"]), &strings(&["g() -> Tensor"])),
            Err(BuildError::SchemaName { .. })
        ));
    }

    #[test]
    fn base_name_drops_the_extension() {
        assert_eq!(base_name("relu").unwrap(), "relu");
        assert_eq!(base_name("relu.so").unwrap(), "relu");
        assert_eq!(base_name("lib.relu.so").unwrap(), "lib.relu");
        assert_eq!(base_name("-x").unwrap(), "-x");
        assert!(base_name("a/b").is_err());
        assert!(base_name("").is_err());
    }

    #[test]
    fn a_name_that_leaves_no_file_name_is_refused_after_the_extension_goes() {
        for name in ["../x", "a/b", "x y", "k\u{e9}"] {
            assert_eq!(
                base_name(name).unwrap_err().to_string(),
                format!("library name {name:?} must be letters, digits, '_', '-' or '.'")
            );
        }
        for (name, base) in [
            (".", "."),
            ("..", "."),
            ("...", ".."),
            (".so", ".so"),
            ("..so", "."),
        ] {
            assert_eq!(
                base_name(name).unwrap_err().to_string(),
                format!(
                    "library name {name:?} leaves the base name {base:?} (the name without its \
                     extension), which cannot name the library's files: it must start with a \
                     letter, digit, '_' or '-'"
                ),
            );
        }
    }

    #[test]
    fn a_library_name_derived_from_a_source_keeps_what_names_files() {
        use std::path::Path;
        assert_eq!(
            library_name_from(Path::new("src/my kernel.cpp")).unwrap(),
            "my_kernel"
        );
        assert_eq!(library_name_from(Path::new("k\u{e9}.cpp")).unwrap(), "k_");
        assert_eq!(library_name_from(Path::new("relu.cpp")).unwrap(), "relu");
        assert_eq!(
            library_name_from(Path::new("d/..cpp"))
                .unwrap_err()
                .to_string(),
            "the library name \".\" derived from the source d/..cpp cannot name the library's \
             files: give one (Kernel::name)"
        );
    }

    #[test]
    fn function_names_cxx_or_the_wrapper_cannot_take_are_refused() {
        let refused = |f: &str| {
            ops(&strings(&[f]), &[format!("{f}() -> Tensor")])
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            refused("delete"),
            "function name \"delete\" is a C++ keyword: rename the function"
        );
        assert_eq!(
            refused("output"),
            "function name \"output\" is the name of a local of the generated wrapper: rename \
             the function"
        );
        assert_eq!(
            refused("get_func_cnt"),
            "function name \"get_func_cnt\" is a function the generated wrapper defines: rename \
             the function"
        );
        let two = ops(
            &strings(&["f", "f_wrapper"]),
            &strings(&["f() -> Tensor", "f_wrapper() -> Tensor"]),
        );
        assert_eq!(
            two.unwrap_err().to_string(),
            "function name \"f_wrapper\" is the wrapper the generated wrapper.cpp defines for op \
             \"f\": rename the function"
        );
    }

    #[test]
    fn compile_errors_show_the_compilers_first_lines() {
        let output: String = (1..=30)
            .map(|i| format!("k.cpp:{i}: error: e{i}\n"))
            .collect();
        let quiet = BuildError::Compile {
            source_file: "k.cpp".into(),
            output: output.clone(),
            verbose: false,
        };
        let want: String = (1..=compile::EXCERPT_LINES)
            .map(|i| format!("k.cpp:{i}: error: e{i}\n"))
            .collect();
        assert_eq!(
            quiet.to_string(),
            format!(
                "Error compiling k.cpp:\n{want}… 20 more lines (run with --verbose to see the \
                 compiler's whole output)"
            )
        );
        let loud = BuildError::Compile {
            source_file: "k.cpp".into(),
            output: output.clone(),
            verbose: true,
        };
        assert_eq!(
            loud.to_string(),
            format!("Error compiling k.cpp:\n{}", output.trim_end())
        );
    }
}
