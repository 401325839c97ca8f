//! The `q7emu build` command line.

use std::path::PathBuf;

use q7_kernel_build::{build, project_dir, BuildError, Options};

/// `q7emu build --name NAME --fn FN... --schema SCHEMA... [--multicore] [--cflag F]...
/// [-I DIR]... [--verbose] -o BUILD_DIR SRC...`, or a project's
/// `q7emu build --name NAME --compute SRC... --shape SHAPE... [...] -o BUILD_DIR`
/// (examples/sdk/BUILD.md "Projects"), or a project directory's `q7emu build --project DIR`
/// (examples/sdk/BUILD.md "Project directories").
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Library name; outputs are <base>.so, .stripped.so, .packed.so (or <base>_cpu{i}.*).
    /// With --project: instead of the build script's name or the directory's.
    #[arg(long, required_unless_present = "project")]
    pub name: Option<String>,
    /// A project directory, built as it is: its build.py's custom_op.load(...) call, else its
    /// C++ sources, those with NEURON_LIBRARY the shape sources (flags add to what it says).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["fns", "schemas", "compute", "shape", "sources"])]
    pub project: Option<PathBuf>,
    /// An op's C++ function (repeat; FunctionId = position).
    #[arg(
        long = "fn",
        value_name = "FN",
        required_unless_present_any = ["shape", "project"]
    )]
    pub fns: Vec<String>,
    /// The op's PyTorch schema, e.g. "relu_forward(Tensor t_in) -> Tensor" (repeat, same order).
    #[arg(
        long = "schema",
        value_name = "SCHEMA",
        required_unless_present_any = ["shape", "project"]
    )]
    pub schemas: Vec<String>,
    /// A project's compute sources: the kernels (device C++; one or more, repeatable).
    #[arg(long = "compute", value_name = "SRC", num_args = 1.., requires = "shape", conflicts_with = "sources")]
    pub compute: Vec<PathBuf>,
    /// A project's shape sources (host C++): their NEURON_LIBRARY(ns, m) { m.def("op",
    /// &shape_fn, "kernel_fn"); } registrations are the ops, each output's shape and dtype
    /// what its shape function computes (one or more, repeatable).
    #[arg(long = "shape", value_name = "SHAPE", num_args = 1.., requires = "compute", conflicts_with_all = ["fns", "schemas"])]
    pub shape: Vec<PathBuf>,
    /// Link eight per-core images (2 MiB windows) instead of one single-core image (32 MiB).
    #[arg(long)]
    pub multicore: bool,
    /// Extra compiler flag (repeat), e.g. --cflag=-DSTACK_SIZE=8192; -g keeps the images
    /// unstripped and unpacked.
    #[arg(long = "cflag", value_name = "F", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
    /// Extra include directory (repeat).
    #[arg(short = 'I', value_name = "DIR")]
    pub includes: Vec<PathBuf>,
    /// Echo every command; show the compiler's output when a compilation fails.
    #[arg(long)]
    pub verbose: bool,
    /// Toolchain prefix (tools in PREFIX/bin; default $Q7EMU_XTENSA_PREFIX or
    /// ~/.cache/xtensa-dc233c).
    #[arg(long, value_name = "PREFIX")]
    pub toolchain: Option<PathBuf>,
    /// SDK directory (default $Q7EMU_SDK or the repository's examples/sdk).
    #[arg(long, value_name = "DIR")]
    pub sdk: Option<PathBuf>,
    /// Build directory (created if missing; with --project, default DIR/build).
    #[arg(
        short = 'o',
        value_name = "BUILD_DIR",
        required_unless_present = "project"
    )]
    pub build_dir: Option<PathBuf>,
    /// The op sources (not with --compute).
    #[arg(value_name = "SRC", required_unless_present_any = ["compute", "project"])]
    pub sources: Vec<PathBuf>,
}

/// The directory a project directory builds into when `-o` is not given.
pub const PROJECT_BUILD_DIR: &str = "build";

impl BuildArgs {
    /// The build's options: the flags, or with `--project` what the directory says
    /// ([`project_dir::read`]) with the flags added: `--name` and `-o` replace its name and
    /// build directory, `--multicore` and `--verbose` turn them on, `--cflag` and `-I` come
    /// after its own.
    pub fn options(self) -> Result<Options, BuildError> {
        let a = self;
        let Some(dir) = a.project else {
            return Ok(Options {
                stop: q7_conventions::interrupt::stop_request(),
                name: a.name.expect("clap requires --name without --project"),
                fns: a.fns,
                schemas: a.schemas,
                multicore: a.multicore,
                cflags: a.cflags,
                includes: a.includes,
                verbose: a.verbose,
                build_dir: a.build_dir.expect("clap requires -o without --project"),
                sources: if a.compute.is_empty() {
                    a.sources
                } else {
                    a.compute
                },
                shape: a.shape,
                toolchain: a.toolchain,
                sdk: a.sdk,
            });
        };
        let p = project_dir::read(&dir)?;
        Ok(Options {
            stop: q7_conventions::interrupt::stop_request(),
            name: a.name.unwrap_or(p.name),
            fns: Vec::new(),
            schemas: Vec::new(),
            multicore: a.multicore || p.multicore,
            cflags: p.cflags.into_iter().chain(a.cflags).collect(),
            includes: p.includes.into_iter().chain(a.includes).collect(),
            verbose: a.verbose || p.verbose,
            build_dir: a.build_dir.unwrap_or_else(|| dir.join(PROJECT_BUILD_DIR)),
            sources: p.compute,
            shape: p.shape,
            toolchain: a.toolchain,
            sdk: a.sdk,
        })
    }
}

/// Builds, then prints one line per image written.
pub fn build_and_list(args: BuildArgs) -> Result<(), BuildError> {
    let opts = args.options()?;
    let info = build(&opts)?;
    for image in &info.images {
        println!("{}", opts.build_dir.join(image).display());
    }
    if let Some(shape) = &info.shape {
        println!("{}", opts.build_dir.join(&shape.file).display());
    }
    Ok(())
}

/// Runs `q7emu build` ([`build_and_list`]); a failed step exits with the build-failed code, bad input
/// with the bad-input one.
pub fn run(args: BuildArgs) -> Result<q7_conventions::exit_code::Exit, crate::command::Failure> {
    build_and_list(args)?;
    Ok(q7_conventions::exit_code::Exit::SUCCESS)
}
