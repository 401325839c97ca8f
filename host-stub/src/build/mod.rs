//! `q7emu build`: a custom-op library from C++ sources, step by step (examples/sdk/BUILD.md
//! "Steps" describes the flow and every output).
//!
//! 1. check the arguments: as many `--fn` as `--schema`, 1 to [`MAX_OPS`] ops, each function
//!    name a C identifier of at most [`MAX_NAME_LEN`] characters, each schema parsing
//!    ([`schema`]) and naming its function;
//! 2. check that every tool is installed ([`toolchain`]) and every source exists;
//! 3. compile the user sources ([`compile`]), generate and compile `wrapper.cpp`
//!    ([`wrapper`]), compile the SDK runtime ([`sdk`]);
//! 4. link once, or eight times with `--multicore` ([`link`]);
//! 5. unless `-g` is among the user's cflags, strip and pack every image ([`pack`]);
//! 6. write `ucode_lib.json` and `q7build.json` ([`metadata`]).
//!
//! Identical inputs give byte-identical outputs: fixed orders everywhere, no timestamps, and
//! no absolute path in any object (see [`compile`]).

pub mod cli;
pub mod compile;
pub mod link;
pub mod metadata;
pub mod pack;
pub mod schema;
pub mod sdk;
pub mod toolchain;
pub mod wrapper;

use std::path::{Path, PathBuf};

use crate::exit_code::{Kind, Outcome};
use metadata::BuildInfo;
use schema::{Schema, SchemaError};
use toolchain::{run, Tool, ToolError, Toolchain};

/// Longest function name (examples/sdk/BUILD.md "Steps": 32 characters).
pub const MAX_NAME_LEN: usize = 32;
/// Most ops in one library (PLATFORM.md, "Dispatch keys").
pub const MAX_OPS: usize = 10;
/// The wrapper's file name in the build directory.
pub const WRAPPER_FILE: &str = "wrapper.cpp";
/// The helper archive's file name under `BUILD_DIR/sdk/`.
pub const HELPERS_ARCHIVE: &str = "libq7helpers.a";
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
    /// The user's sources.
    pub sources: Vec<PathBuf>,
    /// Toolchain prefix (tools in `PREFIX/bin`); `None`: [`toolchain::default_prefix`].
    pub toolchain: Option<PathBuf>,
    /// SDK directory; `None`: [`sdk::locate`]'s default.
    pub sdk: Option<PathBuf>,
}

/// One op of the library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// The user's function (`--fn`).
    pub name: String,
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
    /// A source of an unknown language.
    #[error("{}: not a source the build compiles (.c, .cc, .cpp, .cxx or .S)", .0.display())]
    SourceType(PathBuf),
    /// No sources.
    #[error("no source files given")]
    NoSources,
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
    /// The SDK directory lacks something.
    #[error("SDK {}: {what} not found (set --sdk or $Q7_SDK)", .dir.display())]
    Sdk {
        /// The SDK directory.
        dir: PathBuf,
        /// What is missing.
        what: String,
    },
    /// A compilation failed (the seed's text; the compiler's output with `--verbose`).
    #[error("Error compiling {}{}", .source_file.display(), match .output {
        Some(o) => format!(":\n{o}"),
        None => " (run with --verbose to see the compiler's output)".to_string(),
    })]
    Compile {
        /// The source as given.
        source_file: PathBuf,
        /// The compiler's output, when verbose.
        output: Option<String>,
    },
    /// A link failed.
    #[error("Error linking {}:\n{output}", .image.display())]
    Link {
        /// The image.
        image: PathBuf,
        /// The linker's output.
        output: String,
    },
    /// Archiving the helpers failed.
    #[error("Error archiving the SDK helpers: {0}")]
    Archive(ToolError),
    /// Packing failed.
    #[error(transparent)]
    Pack(#[from] pack::PackError),
    /// The registry refused the library set.
    #[error(transparent)]
    Registry(#[from] q7_loader::ucode_lib::RegistryError),
    /// A file or directory could not be used.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Outcome for BuildError {
    /// The outcome it ends `q7emu build` with ([`crate::exit_code`]): a tool missing or
    /// failing is a failed build; arguments, sources, the SDK directory and files are bad
    /// input.
    fn kind(&self) -> Kind {
        match self {
            BuildError::Tool(_)
            | BuildError::Compile { .. }
            | BuildError::Link { .. }
            | BuildError::Archive(_)
            | BuildError::Pack(_) => Kind::BuildFailed,
            _ => Kind::BadInput,
        }
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError {
    let path = path.to_path_buf();
    move |source| BuildError::Io { path, source }
}

fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The library's base name: `name` without its extension (examples/sdk/BUILD.md "Steps").
pub fn base_name(name: &str) -> Result<String, BuildError> {
    let base = match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    };
    let ok = !base.is_empty()
        && base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !ok {
        return Err(BuildError::LibraryName(name.to_string()));
    }
    Ok(base.to_string())
}

/// The ops of `fns` paired with `schemas`, checked (step 1).
pub fn ops(fns: &[String], schemas: &[String]) -> Result<Vec<Op>, BuildError> {
    if fns.len() != schemas.len() {
        return Err(BuildError::CountMismatch {
            fns: fns.len(),
            schemas: schemas.len(),
        });
    }
    if fns.is_empty() || fns.len() > MAX_OPS {
        return Err(BuildError::OpCount(fns.len()));
    }
    let mut ops: Vec<Op> = Vec::new();
    for (i, (name, text)) in fns.iter().zip(schemas).enumerate() {
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
        if ops.iter().any(|o| &o.name == name) {
            return Err(BuildError::DuplicateOp(name.clone()));
        }
        let schema = schema::parse(text)?;
        if &schema.name != name {
            return Err(BuildError::SchemaName {
                schema: text.clone(),
                schema_name: schema.name,
                function: name.clone(),
            });
        }
        ops.push(Op {
            name: name.clone(),
            function_id: i as u32,
            schema,
            schema_text: text.clone(),
        });
    }
    Ok(ops)
}

/// A source to compile: as given (for messages), absolute, and its object.
#[derive(Debug, Clone)]
struct Unit {
    given: PathBuf,
    source: PathBuf,
    object: PathBuf,
}

/// Everything one build shares.
struct Ctx<'a> {
    opts: &'a Options,
    tools: Toolchain,
    dir: PathBuf,
    sdk: PathBuf,
    prefix_maps: Vec<String>,
    sdk_include: PathBuf,
    user_includes: Vec<PathBuf>,
}

impl Ctx<'_> {
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

    fn all_includes(&self, user: bool) -> Vec<PathBuf> {
        let mut v = vec![self.sdk_include.clone()];
        if user {
            v.extend(self.user_includes.iter().cloned());
        }
        v
    }
}

fn absolute(p: &Path) -> Result<PathBuf, BuildError> {
    std::path::absolute(p).map_err(io(p))
}

/// Builds the library `opts` describes; its `q7build.json` contents on success.
pub fn build(opts: &Options) -> Result<BuildInfo, BuildError> {
    // 1. arguments
    let base = base_name(&opts.name)?;
    let ops = ops(&opts.fns, &opts.schemas)?;
    if opts.sources.is_empty() {
        return Err(BuildError::NoSources);
    }
    // 2. tools, sources, SDK
    let prefix = opts
        .toolchain
        .clone()
        .unwrap_or_else(toolchain::default_prefix);
    let tools = Toolchain::find(&prefix)?;
    let mut units: Vec<Unit> = Vec::new();
    for given in &opts.sources {
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
    let wrapper_object = Path::new(WRAPPER_FILE).with_extension("o");
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
    let sdk_dir = sdk::locate(opts.sdk.as_deref());
    let sdk_dir = std::fs::canonicalize(&sdk_dir).map_err(|_| BuildError::Sdk {
        dir: sdk_dir.clone(),
        what: "the directory".into(),
    })?;
    let script = sdk_dir.join(link::SCRIPT);
    for (what, p) in [
        ("include/", sdk_dir.join("include")),
        (link::SCRIPT, script.clone()),
    ] {
        if !p.exists() {
            return Err(BuildError::Sdk {
                dir: sdk_dir.clone(),
                what: what.to_string(),
            });
        }
    }
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
    let ctx = Ctx {
        opts,
        tools,
        prefix_maps: compile::prefix_maps(&read_dirs, &dir, &sdk_dir),
        sdk_include: sdk_dir.join("include"),
        sdk: sdk_dir,
        dir,
        user_includes,
    };

    // 3. compile: user sources, wrapper, SDK runtime
    let mut objects = Vec::new();
    for u in &units {
        ctx.compile(u, &opts.cflags, &ctx.all_includes(true))?;
        objects.push(u.object.clone());
    }
    let cpu_count = if opts.multicore { link::NUM_CPUS } else { 1 };
    let wrapper_path = ctx.dir.join(WRAPPER_FILE);
    std::fs::write(&wrapper_path, wrapper::generate(&base, &ops, cpu_count))
        .map_err(io(&wrapper_path))?;
    let wrapper_unit = Unit {
        given: wrapper_path.clone(),
        source: wrapper_path.clone(),
        object: ctx.dir.join(&wrapper_object),
    };
    ctx.compile(&wrapper_unit, &opts.cflags, &ctx.all_includes(false))?;
    objects.push(wrapper_unit.object.clone());
    let mut archives = Vec::new();
    for part in sdk::Part::ALL {
        let rel_sources = sdk::sources(&ctx.sdk, part).map_err(io(&ctx.sdk.join(part.dir())))?;
        if rel_sources.is_empty() {
            continue;
        }
        let obj_dir = ctx.dir.join("sdk").join(part.name());
        std::fs::create_dir_all(&obj_dir).map_err(io(&obj_dir))?;
        let mut part_objects = Vec::new();
        for rel in &rel_sources {
            let source = ctx.sdk.join(part.dir()).join(rel);
            let unit = Unit {
                given: source.clone(),
                source,
                object: obj_dir.join(sdk::object_name(rel)),
            };
            ctx.compile(&unit, &[], &ctx.all_includes(false))?;
            part_objects.push(unit.object);
        }
        match part {
            sdk::Part::Customop => objects.extend(part_objects),
            sdk::Part::Helpers => {
                let archive = ctx.dir.join("sdk").join(HELPERS_ARCHIVE);
                if archive.exists() {
                    std::fs::remove_file(&archive).map_err(io(&archive))?;
                }
                let mut ar = ctx.tools.command(Tool::Ar);
                ar.current_dir(&ctx.dir)
                    .arg("rcsD")
                    .arg(&archive)
                    .args(&part_objects);
                run(&mut ar, opts.verbose).map_err(BuildError::Archive)?;
                archives.push(archive);
            }
        }
    }

    // 4. link
    let targets = link::targets(&base, opts.multicore);
    let mut linked = Vec::new();
    for t in &targets {
        let out = ctx.dir.join(&t.so_name);
        let mut cmd = link::command(&ctx.tools, &script, t, &objects, &archives, &out, &ctx.dir);
        run(&mut cmd, opts.verbose).map_err(|e| match e {
            ToolError::Failed { output, .. } => BuildError::Link {
                image: out.clone(),
                output,
            },
            other => other.into(),
        })?;
        linked.push(out);
    }

    // 5. strip and pack, unless the user asked for debug information
    let packed = !opts.cflags.iter().any(|f| f == DEBUG_FLAG);
    let mut images = Vec::new();
    for so in &linked {
        if packed {
            let p = pack::pack(&ctx.tools, so, opts.verbose)?;
            images.push(file_name(&p.packed));
        } else {
            images.push(file_name(so));
        }
    }

    // 6. metadata
    let registry = metadata::registry(&images, &ops)?;
    let ucode = ctx.dir.join(metadata::UCODE_LIB_FILE);
    let text = registry.to_json().unwrap_or_default();
    std::fs::write(&ucode, text).map_err(io(&ucode))?;
    let info = BuildInfo {
        library: base,
        multicore: opts.multicore,
        cpu_count,
        packed,
        ops: metadata::op_infos(&ops),
        images,
        linked: linked.iter().map(|p| file_name(p)).collect(),
    };
    let info_path = ctx.dir.join(metadata::BUILD_INFO_FILE);
    std::fs::write(&info_path, info.to_json()).map_err(io(&info_path))?;
    Ok(info)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
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
        assert!(base_name("a/b").is_err());
        assert!(base_name("").is_err());
    }

    #[test]
    fn compile_errors_hint_at_verbose() {
        let quiet = BuildError::Compile {
            source_file: "k.cpp".into(),
            output: None,
        };
        assert_eq!(
            quiet.to_string(),
            "Error compiling k.cpp (run with --verbose to see the compiler's output)"
        );
        let loud = BuildError::Compile {
            source_file: "k.cpp".into(),
            output: Some("k.cpp:1: error: x".into()),
        };
        assert_eq!(
            loud.to_string(),
            "Error compiling k.cpp:\nk.cpp:1: error: x"
        );
    }
}
