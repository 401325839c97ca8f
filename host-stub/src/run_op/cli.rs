//! The `q7emu run` command line.

use std::path::PathBuf;

use super::{run, Library, OpRequest, RunError};
use crate::number::{parse_threads, parse_u64};
use crate::tensor::dtype::Dtype;
use crate::tensor::npy::{self, NpyError};
use crate::timing_profile::{Profile, ProfileError};

/// `q7emu run BUILD_DIR --op NAME --input FILE.npy... [--scalar V]... [--output FILE.npy]
/// [--out-shape D0,D1,...] [--out-dtype DTYPE] [--threads N] [--max-cycles N]
/// [--timing FILE] [--json]`
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The build directory (`q7emu build -o`).
    #[arg(value_name = "BUILD_DIR")]
    pub build_dir: PathBuf,
    /// The op to run.
    #[arg(long)]
    pub op: String,
    /// A tensor argument (repeat, in schema order).
    #[arg(long = "input", value_name = "FILE.npy")]
    pub inputs: Vec<PathBuf>,
    /// A scalar argument (repeat, in schema order): an integer, a float, or true/false.
    #[arg(long = "scalar", value_name = "V", allow_hyphen_values = true)]
    pub scalars: Vec<String>,
    /// Write the output tensor here.
    #[arg(long, value_name = "FILE.npy")]
    pub output: Option<PathBuf>,
    /// The output's shape (default: the first tensor argument's).
    #[arg(long, value_name = "D0,D1,...", value_delimiter = ',', value_parser = parse_u64)]
    pub out_shape: Option<Vec<u64>>,
    /// The output's dtype, a numpy name: float32, float16, bfloat16, int8, uint8, int16,
    /// int32, int64 (default: the first tensor argument's).
    #[arg(long, value_name = "DTYPE", value_parser = parse_dtype)]
    pub out_dtype: Option<Dtype>,
    /// Host threads running the cores, at least 1 (results and cycle counts are identical for
    /// any count).
    #[arg(long, default_value_t = super::DEFAULT_THREADS, value_parser = parse_threads)]
    pub threads: usize,
    /// Cycle budget per core before the kernel counts as runaway.
    #[arg(long, default_value_t = crate::firmware::CALL_BUDGET, value_parser = parse_u64)]
    pub max_cycles: u64,
    /// A timing profile (.json or .toml) laid over the default timing model.
    #[arg(long, value_name = "FILE")]
    pub timing: Option<PathBuf>,
    /// Print the run report as JSON on stdout instead of the summary (and draw no progress
    /// line).
    #[arg(long)]
    pub json: bool,
}

fn parse_dtype(s: &str) -> Result<Dtype, String> {
    Dtype::from_name(s).ok_or_else(|| {
        format!("{s:?}: not a supported dtype (float32, float16, bfloat16, int8, uint8, int16, int32, int64)")
    })
}

/// Why `q7emu run` failed.
#[derive(Debug, thiserror::Error)]
pub enum RunCliError {
    /// An input or the output file.
    #[error(transparent)]
    Npy(#[from] NpyError),
    /// The run.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The timing profile.
    #[error(transparent)]
    Timing(#[from] ProfileError),
}

impl RunCliError {
    /// The exit code it ends `q7emu run` with ([`crate::exit_code`]).
    pub fn exit(&self) -> crate::exit_code::Exit {
        match self {
            RunCliError::Npy(_) | RunCliError::Timing(_) => {
                crate::exit_code::Exit::of(crate::exit_code::Kind::BadInput)
            }
            RunCliError::Run(e) => e.exit(),
        }
    }
}

/// Runs the command; the text to print on stdout.
pub fn main(a: RunArgs) -> Result<String, RunCliError> {
    let timing = match &a.timing {
        Some(path) => Profile::load(path)?,
        None => Profile::default(),
    };
    let lib = Library::open(&a.build_dir)?;
    lib.op(&a.op)?;
    let inputs = a
        .inputs
        .iter()
        .map(|p| npy::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let result = run(
        &lib,
        &OpRequest {
            op: a.op,
            inputs,
            scalars: a.scalars,
            out_dtype: a.out_dtype,
            out_shape: a.out_shape,
            threads: a.threads,
            call_budget: a.max_cycles,
            timing,
            progress: !a.json,
        },
    )?;
    if let Some(path) = &a.output {
        npy::write(path, &result.output)?;
    }
    Ok(if a.json {
        serde_json::to_string_pretty(&result.json()).expect("JSON values serialize") + "\n"
    } else {
        result.text()
    })
}
