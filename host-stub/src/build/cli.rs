//! The `q7emu build` command line.

use std::path::PathBuf;

use super::{build, BuildError, Options};

/// `q7emu build --name NAME --fn FN... --schema SCHEMA... [--multicore] [--cflag F]...
/// [-I DIR]... [--verbose] -o BUILD_DIR SRC...`
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Library name; outputs are <base>.so, .stripped.so, .packed.so (or <base>_cpu{i}.*).
    #[arg(long)]
    pub name: String,
    /// An op's C++ function (repeat; FunctionId = position).
    #[arg(long = "fn", value_name = "FN", required = true)]
    pub fns: Vec<String>,
    /// The op's PyTorch schema, e.g. "relu_forward(Tensor t_in) -> Tensor" (repeat, same order).
    #[arg(long = "schema", value_name = "SCHEMA", required = true)]
    pub schemas: Vec<String>,
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
    /// Toolchain prefix (tools in PREFIX/bin; default $Q7_XTENSA_PREFIX or
    /// ~/.cache/xtensa-dc233c).
    #[arg(long, value_name = "PREFIX")]
    pub toolchain: Option<PathBuf>,
    /// SDK directory (default $Q7_SDK or the repository's examples/sdk).
    #[arg(long, value_name = "DIR")]
    pub sdk: Option<PathBuf>,
    /// Build directory (created if missing).
    #[arg(short = 'o', value_name = "BUILD_DIR")]
    pub build_dir: PathBuf,
    /// The op sources.
    #[arg(value_name = "SRC", required = true)]
    pub sources: Vec<PathBuf>,
}

impl From<BuildArgs> for Options {
    fn from(a: BuildArgs) -> Options {
        Options {
            name: a.name,
            fns: a.fns,
            schemas: a.schemas,
            multicore: a.multicore,
            cflags: a.cflags,
            includes: a.includes,
            verbose: a.verbose,
            build_dir: a.build_dir,
            sources: a.sources,
            toolchain: a.toolchain,
            sdk: a.sdk,
        }
    }
}

/// Builds, then prints one line per image written.
pub fn build_and_list(args: BuildArgs) -> Result<(), BuildError> {
    let opts = Options::from(args);
    let info = build(&opts)?;
    for image in &info.images {
        println!("{}", opts.build_dir.join(image).display());
    }
    Ok(())
}

/// Runs `q7emu build` ([`build_and_list`]); a failed step exits with the build-failed code, bad input
/// with the bad-input one.
pub fn run(args: BuildArgs) -> Result<crate::exit_code::Exit, crate::command::Failure> {
    build_and_list(args)?;
    Ok(crate::exit_code::Exit::SUCCESS)
}
