//! Snapshot tests of custom-op kernels: build (or open) a library, run one of its ops on
//! tensors on the emulated cluster, and compare a [`Summary`] of the run with a committed
//! snapshot through insta.
//!
//! ```no_run
//! use q7_host::testing::{tensor, Kernel, Run, TestingError};
//!
//! # fn main() -> Result<(), TestingError> {
//! let lib = Kernel::new("affine.cpp")
//!     .op("affine(Tensor x, float a, float b) -> Tensor")
//!     .build("target/affine-build")?;
//! let x = tensor(&[4], &[-1.5f32, 0.0, 0.25, 3.0])?;
//! let summary = Run::new("affine").input(x).scalar(2).scalar(0.5).on(&lib)?;
//! q7_host::assert_summary_snapshot!("affine", summary);
//! # Ok(())
//! # }
//! ```
//!
//! - [`Kernel`] builds C++ sources with the build driver of [`crate::build`] (the same steps
//!   and outputs as `q7emu build`; it needs the Xtensa toolchain, see
//!   [`toolchain_installed`]); [`Library::open`] opens a build directory made earlier.
//! - [`tensor`] makes an input from a slice and a shape, the dtype following the element
//!   type ([`Element`]); [`tensor_from_bytes`] takes any marshallable dtype and raw bytes.
//!   (ndarray is not supported directly: a standard-layout array is `tensor(a.shape(),
//!   a.as_slice().unwrap())` with its shape as `u64`s, and leaving ndarray out keeps its
//!   dependency tree out of every build of the host.)
//! - [`Run`] runs one op through the runner of [`crate::run_op`] and returns its
//!   [`Summary`]; [`Run::op_run`] returns the raw [`OpRun`].
//! - [`Summary`] prints (`Display`) and serialises (serde) the op, the output's dtype and
//!   shape, its values — every one when there are at most [`LISTED_ELEMENTS`], else the
//!   [`DIGEST`] of its bytes, the first and last [`HEAD_TAIL`] values and statistics — and
//!   each core's instructions and cycles on lines of their own, so that a snapshot diff names
//!   a changed cycle count as such. [`Summary::outputs_only`] leaves the counters out.
//!
//! # Where snapshots live
//!
//! [`assert_summary_snapshot!`](crate::assert_summary_snapshot) (the text form) and
//! [`assert_summary_yaml_snapshot!`](crate::assert_summary_yaml_snapshot) (YAML) assert with
//! the settings of [`snapshot_settings!`](crate::snapshot_settings): snapshots go to the
//! [`SNAPSHOT_DIR`] folder of the calling crate's workspace root ([`snapshot_dir`]), named
//! `<test crate and module>__<name>.snap`. Any other insta assertion uses the same folder
//! after `let _dir = q7_host::snapshot_settings!().bind_to_scope();`.
//!
//! `cargo insta review` and `cargo insta test` look for snapshots under package directories
//! only: when the workspace root is not itself a package (a virtual manifest), make the
//! snapshot folder one — this repository's `snapshots/Cargo.toml` is such a package — or give
//! [`snapshot_settings`] another crate's directory.
//!
//! insta's usual rules apply: a mismatch fails the test with a diff; outside CI the new
//! value is written beside the snapshot as `.snap.new` for `cargo insta review`; with `CI`
//! set nothing is written; `INSTA_UPDATE=always` accepts new values in place.
//!
//! # Leaving the counters out
//!
//! `summary.outputs_only()` drops the per-core lines from both forms. The YAML form can
//! instead keep the cores and mask their counts with an insta redaction (insta's
//! `redactions` feature):
//!
//! ```ignore
//! let _dir = q7_host::snapshot_settings!().bind_to_scope();
//! insta::assert_yaml_snapshot!("affine-redacted", summary, {
//!     ".cores[].cycles" => "[cycles]",
//!     ".cores[].instructions" => "[instructions]",
//! });
//! ```
//!
//! (examples/snapshot-test/tests/outputs_only.rs runs both ways.)

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest as _, Sha256};

use crate::build::schema;
use crate::build::toolchain::{default_prefix, Toolchain};
use crate::build::{self, BuildError};
use crate::firmware::CALL_BUDGET;
use crate::run_op::{self, OpRequest, OpRun, RunError};
use crate::tensor::dtype::{Dtype, DTYPES};
use crate::tensor::HostTensor;
use crate::timing_profile::Profile;

pub use crate::run_op::Library;
/// The insta crate the assertion macros expand to.
pub use insta;
pub use q7_emulator::timing::TimingModel;

/// Outputs of at most this many elements are listed whole; larger ones are summarised.
pub const LISTED_ELEMENTS: usize = 64;
/// Elements shown from each end of a summarised output.
pub const HEAD_TAIL: usize = 8;
/// Values per line of a listed output (the text form).
pub const VALUES_PER_LINE: usize = 8;
/// The digest of a summarised output: SHA-256 of its little-endian element bytes (C order),
/// written `sha256:<64 lowercase hex digits>`.
pub const DIGEST: &str = "sha256";
/// The snapshot folder, under the workspace root.
pub const SNAPSHOT_DIR: &str = "snapshots";
/// Set (to anything but empty or `0`), a missing toolchain fails [`toolchain_installed`]
/// instead of skipping.
pub const REQUIRE_TOOLCHAIN_ENV: &str = "Q7_REQUIRE_TOOLCHAIN";

/// Why a kernel could not be built, a tensor made or an op run.
#[derive(Debug, thiserror::Error)]
pub enum TestingError {
    /// Values that do not fill the shape.
    #[error("shape {shape:?} holds {want} elements, {got} given")]
    Shape {
        /// The shape.
        shape: Vec<u64>,
        /// Its element count (`more than …` when that overflows a `usize`).
        want: String,
        /// Elements given.
        got: usize,
    },
    /// Bytes that are not a whole number of the dtype's elements for the shape.
    #[error("shape {shape:?} of {dtype} takes {want} bytes, {got} given")]
    Bytes {
        /// The shape.
        shape: Vec<u64>,
        /// The dtype.
        dtype: Dtype,
        /// Bytes the shape takes (`more than …` when that overflows a `usize`).
        want: String,
        /// Bytes given.
        got: usize,
    },
    /// A dtype the marshalling gate refuses.
    #[error("{0} is not a dtype the runtime marshals (PLATFORM.md \"ISA dtype codes\")")]
    Dtype(Dtype),
    /// A kernel without an op.
    #[error("kernel {0} has no op: give one with Kernel::op")]
    NoOp(String),
    /// A kernel without a source.
    #[error("a kernel needs a source file")]
    NoSource,
    /// The build failed.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The run failed.
    #[error(transparent)]
    Run(#[from] RunError),
}

// ---------------------------------------------------------------------------------------------
// Toolchain.

/// Whether the Xtensa toolchain [`Kernel::build`] needs is installed at its default prefix
/// (`$Q7_XTENSA_PREFIX`, else `~/.cache/xtensa-dc233c`). When it is not, prints a notice and
/// returns false, so that a test can skip — or, with [`REQUIRE_TOOLCHAIN_ENV`] set, panics
/// naming the missing tool, so that CI fails instead.
pub fn toolchain_installed() -> bool {
    let Err(e) = Toolchain::find(&default_prefix()) else {
        return true;
    };
    let required =
        std::env::var_os(REQUIRE_TOOLCHAIN_ENV).is_some_and(|v| !v.is_empty() && v != "0");
    assert!(!required, "{REQUIRE_TOOLCHAIN_ENV} is set: {e}");
    eprintln!("NOTICE: skipping: {e} (set {REQUIRE_TOOLCHAIN_ENV}=1 to make this a failure)");
    false
}

// ---------------------------------------------------------------------------------------------
// Building.

/// A library to build from C++ sources, as `q7emu build` does (examples/sdk/BUILD.md).
#[derive(Debug, Clone, Default)]
pub struct Kernel {
    name: Option<String>,
    schemas: Vec<String>,
    options: build::Options,
}

impl Kernel {
    /// A kernel of `source` (a `.cpp`, `.cc`, `.cxx`, `.c` or `.S` file); the library is named
    /// after its stem unless [`Kernel::name`] says otherwise.
    pub fn new(source: impl AsRef<Path>) -> Kernel {
        Kernel::default().source(source)
    }

    /// Another source.
    pub fn source(mut self, source: impl AsRef<Path>) -> Kernel {
        self.options.sources.push(source.as_ref().to_path_buf());
        self
    }

    /// An op, by its schema (`affine(Tensor x, float a) -> Tensor`): the function is the one
    /// the schema names; ops take FunctionIds in the order given.
    pub fn op(mut self, schema: impl Into<String>) -> Kernel {
        self.schemas.push(schema.into());
        self
    }

    /// The library's name (`--name`).
    pub fn name(mut self, name: impl Into<String>) -> Kernel {
        self.name = Some(name.into());
        self
    }

    /// Eight per-core images (`--multicore`).
    pub fn multicore(mut self) -> Kernel {
        self.options.multicore = true;
        self
    }

    /// A compiler flag (`--cflag`).
    pub fn cflag(mut self, flag: impl Into<String>) -> Kernel {
        self.options.cflags.push(flag.into());
        self
    }

    /// An include directory (`-I`).
    pub fn include(mut self, dir: impl AsRef<Path>) -> Kernel {
        self.options.includes.push(dir.as_ref().to_path_buf());
        self
    }

    /// The toolchain prefix (`--toolchain`).
    pub fn toolchain(mut self, prefix: impl AsRef<Path>) -> Kernel {
        self.options.toolchain = Some(prefix.as_ref().to_path_buf());
        self
    }

    /// The SDK directory (`--sdk`).
    pub fn sdk(mut self, dir: impl AsRef<Path>) -> Kernel {
        self.options.sdk = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Echo every command and show the compiler's output on failure (`--verbose`).
    pub fn verbose(mut self) -> Kernel {
        self.options.verbose = true;
        self
    }

    /// Builds into `build_dir` (created if missing; what is there is overwritten) and opens
    /// the result.
    pub fn build(self, build_dir: impl AsRef<Path>) -> Result<Library, TestingError> {
        let first = self.options.sources.first().ok_or(TestingError::NoSource)?;
        let name = match &self.name {
            Some(n) => n.clone(),
            None => first
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        if self.schemas.is_empty() {
            return Err(TestingError::NoOp(name));
        }
        let fns = self
            .schemas
            .iter()
            .map(|s| schema::parse(s).map(|p| p.name).map_err(BuildError::Schema))
            .collect::<Result<Vec<_>, _>>()?;
        let opts = build::Options {
            name,
            fns,
            schemas: self.schemas,
            build_dir: build_dir.as_ref().to_path_buf(),
            ..self.options
        };
        build::build(&opts)?;
        Ok(Library::open(&opts.build_dir)?)
    }
}

// ---------------------------------------------------------------------------------------------
// Tensors.

mod sealed {
    pub trait Sealed {}
}

/// An element type with a marshallable dtype: `i8`, `u8`, `i16`, `i32`, `i64`, `f32`,
/// `half::f16`, `half::bf16`.
pub trait Element: Copy + sealed::Sealed {
    /// Its ISA dtype code.
    const CODE: u8;
    /// Appends its little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! elements {
    ($($t:ty => $code:expr),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const CODE: u8 = $code;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}

elements!(i8 => 0x2, u8 => 0x3, i16 => 0x4, i32 => 0x6, i64 => 0x7, half::f16 => 0x8,
          half::bf16 => 0xA, f32 => 0xC);

/// The element count of `shape`, when it fits a `usize`.
fn numel(shape: &[u64]) -> Option<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
}

/// A C-ordered tensor of `shape` holding `values`, of `T`'s dtype.
pub fn tensor<T: Element>(shape: &[u64], values: &[T]) -> Result<HostTensor, TestingError> {
    if numel(shape) != Some(values.len()) {
        return Err(TestingError::Shape {
            shape: shape.to_vec(),
            want: numel(shape).map_or(format!("more than {}", usize::MAX), |n| n.to_string()),
            got: values.len(),
        });
    }
    let dtype = DTYPES[usize::from(T::CODE)];
    let mut data = Vec::with_capacity(values.len() * usize::from(dtype.bytes));
    for v in values {
        v.put(&mut data);
    }
    Ok(HostTensor {
        dtype,
        shape: shape.to_vec(),
        data,
    })
}

/// A C-ordered tensor of `shape` and `dtype` whose little-endian element bytes are `data`.
pub fn tensor_from_bytes(
    dtype: Dtype,
    shape: &[u64],
    data: Vec<u8>,
) -> Result<HostTensor, TestingError> {
    if !dtype.marshallable() {
        return Err(TestingError::Dtype(dtype));
    }
    let want = numel(shape).and_then(|n| n.checked_mul(usize::from(dtype.bytes)));
    if want != Some(data.len()) {
        return Err(TestingError::Bytes {
            shape: shape.to_vec(),
            dtype,
            want: want.map_or(format!("more than {}", usize::MAX), |n| n.to_string()),
            got: data.len(),
        });
    }
    Ok(HostTensor {
        dtype,
        shape: shape.to_vec(),
        data,
    })
}

// ---------------------------------------------------------------------------------------------
// Running.

/// One op invocation: its tensors and scalars in schema order, and how to run it.
#[derive(Debug, Clone)]
pub struct Run {
    request: OpRequest,
}

impl Run {
    /// An invocation of op `op`, with no arguments yet, on [`run_op::DEFAULT_THREADS`] host
    /// threads, with the default cycle budget and timing model.
    pub fn new(op: impl Into<String>) -> Run {
        Run {
            request: OpRequest {
                op: op.into(),
                inputs: Vec::new(),
                scalars: Vec::new(),
                out_dtype: None,
                out_shape: None,
                threads: run_op::DEFAULT_THREADS,
                call_budget: CALL_BUDGET,
                timing: Profile::default(),
                progress: false,
            },
        }
    }

    /// The next Tensor argument.
    pub fn input(mut self, t: HostTensor) -> Run {
        self.request.inputs.push(t);
        self
    }

    /// The next scalar argument (Scalar, float, int or bool), as the text `q7emu run --scalar`
    /// takes: `2` is an integer, `0.5` a float, `true` a bool.
    pub fn scalar(mut self, value: impl fmt::Display) -> Run {
        self.request.scalars.push(value.to_string());
        self
    }

    /// The output's dtype (default: the first tensor argument's).
    pub fn output_dtype(mut self, dtype: Dtype) -> Run {
        self.request.out_dtype = Some(dtype);
        self
    }

    /// The output's shape (default: the first tensor argument's).
    pub fn output_shape(mut self, shape: &[u64]) -> Run {
        self.request.out_shape = Some(shape.to_vec());
        self
    }

    /// Host threads for the cores, at least 1 (0 counts as 1; outputs and counts are the same
    /// for any number).
    pub fn threads(mut self, threads: usize) -> Run {
        self.request.threads = threads.max(1);
        self
    }

    /// The cycle budget per core.
    pub fn max_cycles(mut self, cycles: u64) -> Run {
        self.request.call_budget = cycles;
        self
    }

    /// The cores' timing model (emulator/src/timing.rs).
    pub fn timing(mut self, timing: TimingModel) -> Run {
        self.request.timing = Profile {
            source: None,
            model: timing,
        };
        self
    }

    /// Runs on `lib`: the raw outcome.
    pub fn op_run(&self, lib: &Library) -> Result<OpRun, TestingError> {
        Ok(run_op::run(lib, &self.request)?)
    }

    /// Runs on `lib`: the summary.
    pub fn on(&self, lib: &Library) -> Result<Summary, TestingError> {
        self.op_run(lib).map(|r| Summary::of(&r))
    }
}

// ---------------------------------------------------------------------------------------------
// Summaries.

/// One core's counters of the dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CoreCounts {
    /// The core.
    pub core: u32,
    /// Instructions it executed.
    pub instructions: u64,
    /// Cycles it took.
    pub cycles: u64,
}

/// The output's values: all of them, or a digest with samples and statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Values {
    /// At most [`LISTED_ELEMENTS`] elements: each, in C order.
    All {
        /// The elements, as [`element_text`] writes them.
        values: Vec<String>,
    },
    /// More elements.
    Digest(Digest),
}

/// A larger output: [`DIGEST`] of its bytes, samples from each end, statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Digest {
    /// `sha256:` and the hex digest of the output's bytes.
    pub digest: String,
    /// The first [`HEAD_TAIL`] elements.
    pub head: Vec<String>,
    /// The last [`HEAD_TAIL`] elements.
    pub tail: Vec<String>,
    /// The least element (NaNs left out; the first of equal ones); `None` when all are NaN.
    pub min: Option<String>,
    /// The greatest element, likewise.
    pub max: Option<String>,
    /// The mean of the non-NaN elements, summed in C order in f64, in its shortest
    /// round-trip form; `None` when all are NaN.
    pub mean: Option<String>,
    /// NaN elements.
    pub nan: u64,
    /// Infinite elements (either sign).
    pub inf: u64,
    /// Zero elements (either sign).
    pub zero: u64,
}

/// What a run computed, in a stable, readable form for snapshots: `Display` is the text
/// form, `Serialize` the YAML/JSON form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// The op's name.
    pub op: String,
    /// The output's dtype, by its numpy name (`float32`, `bfloat16`, …).
    pub dtype: String,
    /// The output's shape.
    pub shape: Vec<u64>,
    /// Its element count.
    pub elements: u64,
    /// Its values.
    pub output: Values,
    /// Per core, in core order; `None` after [`Summary::outputs_only`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cores: Option<Vec<CoreCounts>>,
}

/// One element, decoded by its dtype.
#[derive(Debug, Clone, Copy)]
enum Value {
    /// INT8 … INT64, UINT8 … UINT64.
    Int(i128),
    F16(half::f16),
    Bf16(half::bf16),
    F32(f32),
    /// A dtype the host has no type for (FP8_*, FP32R, INVALID): the element's bits.
    Bits(u64),
}

/// A value as a number for comparisons.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
enum Number {
    Int(i128),
    Float(f64),
}

/// The elements `t`'s bytes hold: its shape's count, or fewer when its bytes fall short.
fn readable(t: &HostTensor) -> usize {
    let n = usize::try_from(t.numel()).unwrap_or(usize::MAX);
    match usize::from(t.dtype.bytes) {
        0 => n,
        b => n.min(t.data.len() / b),
    }
}

fn value(t: &HostTensor, i: usize) -> Option<Value> {
    let b = usize::from(t.dtype.bytes);
    if i >= readable(t) {
        return None;
    }
    let e = &t.data[i * b..(i + 1) * b];
    let mut le = [0u8; 8];
    le[..b.min(8)].copy_from_slice(&e[..b.min(8)]);
    let bits = u64::from_le_bytes(le);
    Some(match t.dtype.code {
        0x2 => Value::Int(i128::from(e[0] as i8)),
        0x4 => Value::Int(i128::from(bits as u16 as i16)),
        0x6 => Value::Int(i128::from(bits as u32 as i32)),
        0x7 => Value::Int(i128::from(bits as i64)),
        0x3 | 0x5 | 0xD | 0xE => Value::Int(i128::from(bits)),
        0x8 => Value::F16(half::f16::from_bits(bits as u16)),
        0xA => Value::Bf16(half::bf16::from_bits(bits as u16)),
        0xC => Value::F32(f32::from_bits(bits as u32)),
        _ => Value::Bits(bits),
    })
}

impl Value {
    fn number(self) -> Number {
        match self {
            Value::Int(v) => Number::Int(v),
            Value::F16(v) => Number::Float(f64::from(v)),
            Value::Bf16(v) => Number::Float(f64::from(v)),
            Value::F32(v) => Number::Float(f64::from(v)),
            Value::Bits(v) => Number::Int(i128::from(v)),
        }
    }

    fn text(self, bytes: u8) -> String {
        let nan = |bits: u32, digits: usize| format!("NaN(0x{bits:0digits$x})");
        match self {
            Value::Int(v) => v.to_string(),
            Value::F16(v) if v.is_nan() => nan(u32::from(v.to_bits()), 4),
            Value::Bf16(v) if v.is_nan() => nan(u32::from(v.to_bits()), 4),
            Value::F32(v) if v.is_nan() => nan(v.to_bits(), 8),
            Value::F16(v) => format!("{v:?}"),
            Value::Bf16(v) => format!("{v:?}"),
            Value::F32(v) => format!("{v:?}"),
            Value::Bits(_) if bytes == 0 => "0x".to_string(),
            Value::Bits(v) => format!("0x{v:0digits$x}", digits = 2 * usize::from(bytes)),
        }
    }
}

/// Element `i` of `t` as a summary writes it, if its bytes hold one: integers exactly;
/// floats in their shortest round-trip form (Rust's `{:?}`: `1.0`, `-0.0`, `1e-40`, `inf`,
/// `-inf`; float16 and bfloat16 through their exact float32 value), a NaN as `NaN(0x…)` with
/// its bits; an element of a dtype the host has no type for as its bits in hex.
pub fn element_text(t: &HostTensor, i: usize) -> Option<String> {
    value(t, i).map(|v| v.text(t.dtype.bytes))
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("{DIGEST}:{hex}")
}

impl Digest {
    fn of(t: &HostTensor) -> Digest {
        let n = readable(t);
        let text =
            |r: std::ops::Range<usize>| r.filter_map(|i| element_text(t, i)).collect::<Vec<_>>();
        let (mut min, mut max) = (None::<(Value, Number)>, None::<(Value, Number)>);
        let (mut sum, mut counted) = (0f64, 0u64);
        let (mut nan, mut inf, mut zero) = (0, 0, 0);
        for v in (0..n).filter_map(|i| value(t, i)) {
            let num = v.number();
            let x = match num {
                Number::Int(i) => i as f64,
                Number::Float(f) => f,
            };
            if x.is_nan() {
                nan += 1;
                continue;
            }
            inf += u64::from(x.is_infinite());
            zero += u64::from(x == 0.0);
            sum += x;
            counted += 1;
            if !matches!(min, Some((_, m)) if m <= num) {
                min = Some((v, num));
            }
            if !matches!(max, Some((_, m)) if m >= num) {
                max = Some((v, num));
            }
        }
        let bytes = t.dtype.bytes;
        Digest {
            digest: digest(&t.data),
            head: text(0..HEAD_TAIL.min(n)),
            tail: text(n.saturating_sub(HEAD_TAIL)..n),
            min: min.map(|(v, _)| v.text(bytes)),
            max: max.map(|(v, _)| v.text(bytes)),
            mean: (counted > 0).then(|| format!("{:?}", sum / counted as f64)),
            nan,
            inf,
            zero,
        }
    }
}

impl Summary {
    /// The summary of op `op`'s `output`, with the per-core `cores` counters.
    /// (A tensor whose bytes fall short of its shape is summarised over the elements they
    /// hold; the runner's outputs always fill theirs.)
    pub fn new(op: impl Into<String>, output: &HostTensor, cores: Vec<CoreCounts>) -> Summary {
        let n = readable(output);
        let values = if n <= LISTED_ELEMENTS {
            Values::All {
                values: (0..n).filter_map(|i| element_text(output, i)).collect(),
            }
        } else {
            Values::Digest(Digest::of(output))
        };
        Summary {
            op: op.into(),
            dtype: output.dtype.numpy_name().to_string(),
            shape: output.shape.clone(),
            elements: output.numel(),
            output: values,
            cores: Some(cores),
        }
    }

    /// The summary of a run.
    pub fn of(run: &OpRun) -> Summary {
        let cores = run
            .cores
            .iter()
            .map(|c| CoreCounts {
                core: c.core,
                instructions: c.stats.instructions,
                cycles: c.stats.cycles,
            })
            .collect();
        Summary::new(run.op.name.clone(), &run.output, cores)
    }

    /// The same summary without the per-core counters: for a snapshot of what the kernel
    /// computes, whatever it costs.
    pub fn outputs_only(mut self) -> Summary {
        self.cores = None;
        self
    }

    /// The text form (what `Display` writes).
    pub fn text(&self) -> String {
        self.to_string()
    }
}

impl From<&OpRun> for Summary {
    fn from(run: &OpRun) -> Summary {
        Summary::of(run)
    }
}

fn or_none(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("none")
}

impl fmt::Display for Summary {
    /// One fact per line:
    ///
    /// ```text
    /// op: affine
    /// output: float32 [4], 4 elements
    /// values:
    ///   [0..4] -2.5, 0.5, 1.0, 6.5
    /// core 0 instructions: 1234
    /// core 0 cycles: 5678
    /// ```
    ///
    /// A larger output has `digest:`, `head:`, `tail:`, `min:`, `max:`, `mean:`, `nan:`,
    /// `inf:` and `zero:` lines instead of `values:`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "op: {}", self.op)?;
        writeln!(
            f,
            "output: {} {:?}, {} elements",
            self.dtype, self.shape, self.elements
        )?;
        match &self.output {
            Values::All { values } => {
                writeln!(f, "values:")?;
                for (k, line) in values.chunks(VALUES_PER_LINE).enumerate() {
                    let start = k * VALUES_PER_LINE;
                    writeln!(f, "  [{start}..{}] {}", start + line.len(), line.join(", "))?;
                }
            }
            Values::Digest(d) => {
                writeln!(f, "digest: {}", d.digest)?;
                writeln!(f, "head: {}", d.head.join(", "))?;
                writeln!(f, "tail: {}", d.tail.join(", "))?;
                writeln!(f, "min: {}", or_none(&d.min))?;
                writeln!(f, "max: {}", or_none(&d.max))?;
                writeln!(f, "mean: {}", or_none(&d.mean))?;
                writeln!(f, "nan: {}", d.nan)?;
                writeln!(f, "inf: {}", d.inf)?;
                writeln!(f, "zero: {}", d.zero)?;
            }
        }
        for c in self.cores.iter().flatten() {
            writeln!(f, "core {} instructions: {}", c.core, c.instructions)?;
            writeln!(f, "core {} cycles: {}", c.core, c.cycles)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Snapshot settings.

/// The snapshot folder of the crate at `manifest_dir`: [`SNAPSHOT_DIR`] under the nearest
/// directory, `manifest_dir` included, whose `Cargo.toml` has a `[workspace]` table, else
/// under `manifest_dir`.
pub fn snapshot_dir(manifest_dir: impl AsRef<Path>) -> PathBuf {
    let manifest_dir = manifest_dir.as_ref();
    let is_workspace = |dir: &Path| {
        std::fs::read_to_string(dir.join("Cargo.toml"))
            .is_ok_and(|t| t.lines().any(|l| l.trim() == "[workspace]"))
    };
    manifest_dir
        .ancestors()
        .find(|d| is_workspace(d))
        .unwrap_or(manifest_dir)
        .join(SNAPSHOT_DIR)
}

/// insta settings for the crate at `manifest_dir`: the current settings with snapshots in
/// [`snapshot_dir`] and no expression in their headers.
/// [`snapshot_settings!`](crate::snapshot_settings) calls it with the calling crate's
/// directory.
pub fn snapshot_settings(manifest_dir: impl AsRef<Path>) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(snapshot_dir(manifest_dir));
    s.set_omit_expression(true);
    s
}

/// The insta settings that put the calling crate's snapshots in its workspace's
/// `snapshots/` folder ([`testing::snapshot_settings`](crate::testing::snapshot_settings)):
/// `let _dir = q7_host::snapshot_settings!().bind_to_scope();` before any insta assertion.
#[macro_export]
macro_rules! snapshot_settings {
    () => {
        $crate::testing::snapshot_settings(env!("CARGO_MANIFEST_DIR"))
    };
}

/// Asserts a [`Summary`](crate::testing::Summary)'s text form against its snapshot in the
/// workspace's `snapshots/` folder: `assert_summary_snapshot!(summary)` names the snapshot
/// after the test function, `assert_summary_snapshot!("name", summary)` names it.
#[macro_export]
macro_rules! assert_summary_snapshot {
    ($name:expr, $summary:expr $(,)?) => {{
        let text = $crate::testing::Summary::text(&$summary);
        $crate::snapshot_settings!().bind(|| {
            $crate::testing::insta::assert_snapshot!($name, text);
        })
    }};
    ($summary:expr $(,)?) => {{
        let text = $crate::testing::Summary::text(&$summary);
        $crate::snapshot_settings!().bind(|| {
            $crate::testing::insta::assert_snapshot!(text);
        })
    }};
}

/// As [`assert_summary_snapshot!`](crate::assert_summary_snapshot), with the YAML form.
#[macro_export]
macro_rules! assert_summary_yaml_snapshot {
    ($name:expr, $summary:expr $(,)?) => {{
        let summary: &$crate::testing::Summary = &$summary;
        $crate::snapshot_settings!().bind(|| {
            $crate::testing::insta::assert_yaml_snapshot!($name, summary);
        })
    }};
    ($summary:expr $(,)?) => {{
        let summary: &$crate::testing::Summary = &$summary;
        $crate::snapshot_settings!().bind(|| {
            $crate::testing::insta::assert_yaml_snapshot!(summary);
        })
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts() -> Vec<CoreCounts> {
        vec![CoreCounts {
            core: 0,
            instructions: 1234,
            cycles: 5678,
        }]
    }

    #[test]
    fn small_outputs_list_every_value_eight_to_a_line_then_the_cores() {
        let t = tensor(&[2, 5], &[-3i32, -2, -1, 0, 1, 2, 3, 4, 5, 2147483647]).unwrap();
        let s = Summary::new("f", &t, counts());
        assert_eq!(
            s.text(),
            "op: f\n\
             output: int32 [2, 5], 10 elements\n\
             values:\n  \
             [0..8] -3, -2, -1, 0, 1, 2, 3, 4\n  \
             [8..10] 5, 2147483647\n\
             core 0 instructions: 1234\n\
             core 0 cycles: 5678\n"
        );
        assert_eq!(
            s.clone().outputs_only().text(),
            "op: f\noutput: int32 [2, 5], 10 elements\nvalues:\n  \
             [0..8] -3, -2, -1, 0, 1, 2, 3, 4\n  [8..10] 5, 2147483647\n",
            "outputs only: no core lines"
        );
    }

    #[test]
    fn the_listing_limit_is_64_elements() {
        let at = tensor(&[64], &[0u8; 64]).unwrap();
        let over = tensor(&[65], &[0u8; 65]).unwrap();
        assert!(matches!(
            Summary::new("f", &at, vec![]).output,
            Values::All { values } if values.len() == 64
        ));
        assert!(matches!(
            Summary::new("f", &over, vec![]).output,
            Values::Digest(_)
        ));
    }

    #[test]
    fn floats_print_in_shortest_round_trip_form_and_nans_with_their_bits() {
        let f = tensor(
            &[7],
            &[
                0.1f32,
                -0.0,
                1.0,
                1e-40,
                3e38,
                f32::NEG_INFINITY,
                f32::from_bits(0xffc0_1234),
            ],
        )
        .unwrap();
        let texts: Vec<String> = (0..7).map(|i| element_text(&f, i).unwrap()).collect();
        assert_eq!(
            texts,
            [
                "0.1",
                "-0.0",
                "1.0",
                "1e-40",
                "3e38",
                "-inf",
                "NaN(0xffc01234)"
            ]
        );
        for (i, t) in texts[..6].iter().enumerate() {
            let back: f32 = t.parse().unwrap();
            assert_eq!(
                back.to_bits(),
                f32::from_le_bytes(f.data[i * 4..i * 4 + 4].try_into().unwrap()).to_bits(),
                "{t} reads back"
            );
        }
        let h = tensor(
            &[3],
            &[
                half::f16::from_f32(0.1),
                half::f16::from_bits(0x7e01),
                half::f16::from_f32(-2.0),
            ],
        )
        .unwrap();
        let texts: Vec<String> = (0..3).map(|i| element_text(&h, i).unwrap()).collect();
        assert_eq!(
            texts,
            ["0.099975586", "NaN(0x7e01)", "-2.0"],
            "float16 through its exact float32 value"
        );
        let b = tensor(
            &[2],
            &[half::bf16::from_f32(1.5), half::bf16::from_bits(0x7fc0)],
        )
        .unwrap();
        assert_eq!(element_text(&b, 0).unwrap(), "1.5");
        assert_eq!(element_text(&b, 1).unwrap(), "NaN(0x7fc0)");
        let i = tensor(&[2], &[i64::MIN, -1i64]).unwrap();
        assert_eq!(element_text(&i, 0).unwrap(), "-9223372036854775808");
        let u = tensor(&[1], &[255u8]).unwrap();
        assert_eq!(element_text(&u, 0).unwrap(), "255");
        let c = tensor(&[1], &[-128i8]).unwrap();
        assert_eq!(element_text(&c, 0).unwrap(), "-128");
    }

    #[test]
    fn large_outputs_give_a_sha256_digest_head_tail_and_statistics() {
        // (i - 50) / 4 for i < 100: -12.5 ... 12.25, one zero, mean -0.125; the digest is
        // SHA-256 of the 400 little-endian bytes (computed independently).
        let v: Vec<f32> = (0..100).map(|i| (i - 50) as f32 * 0.25).collect();
        let t = tensor(&[10, 10], &v).unwrap();
        let s = Summary::new("ramp", &t, counts());
        assert_eq!(
            s.text(),
            "op: ramp\n\
             output: float32 [10, 10], 100 elements\n\
             digest: sha256:810a95cd4a59e78dbdd8429e75cd08a7b24c32c266b2232feba83d0655db6ea0\n\
             head: -12.5, -12.25, -12.0, -11.75, -11.5, -11.25, -11.0, -10.75\n\
             tail: 10.5, 10.75, 11.0, 11.25, 11.5, 11.75, 12.0, 12.25\n\
             min: -12.5\n\
             max: 12.25\n\
             mean: -0.125\n\
             nan: 0\n\
             inf: 0\n\
             zero: 1\n\
             core 0 instructions: 1234\n\
             core 0 cycles: 5678\n"
        );
    }

    #[test]
    fn statistics_leave_nans_out_and_say_none_when_nothing_is_left() {
        let nans = tensor(&[65], &[f32::from_bits(0x7fc0_0000); 65]).unwrap();
        let Values::Digest(d) = Summary::new("f", &nans, vec![]).output else {
            panic!("65 elements are summarised");
        };
        assert_eq!(
            d.digest,
            "sha256:c73131523b0b2866bf3d2be64db5721472f73d33384f06d1a2628657c80a54c3"
        );
        assert_eq!((d.min, d.max, d.mean), (None, None, None));
        assert_eq!((d.nan, d.inf, d.zero), (65, 0, 0));
        // int16: the extremes exactly; mean (-32768 + 1 + … + 63 + 32767) / 65 = 31.
        let mut v: Vec<i16> = (0..65).collect();
        v[0] = i16::MIN;
        v[64] = i16::MAX;
        let Values::Digest(d) = Summary::new("f", &tensor(&[65], &v).unwrap(), vec![]).output
        else {
            panic!("65 elements are summarised");
        };
        assert_eq!(d.min.as_deref(), Some("-32768"));
        assert_eq!(d.max.as_deref(), Some("32767"));
        assert_eq!(d.mean.as_deref(), Some("31.0"));
        assert_eq!((d.nan, d.inf, d.zero), (0, 0, 0));
        // Both infinities: counted, the extremes, and a NaN mean.
        let mut v = vec![1.0f32; 70];
        v[3] = f32::INFINITY;
        v[4] = f32::NEG_INFINITY;
        v[5] = 0.0;
        v[6] = -0.0;
        let Values::Digest(d) = Summary::new("f", &tensor(&[70], &v).unwrap(), vec![]).output
        else {
            panic!("70 elements are summarised");
        };
        assert_eq!(
            (d.min.as_deref(), d.max.as_deref()),
            (Some("-inf"), Some("inf"))
        );
        assert_eq!(d.mean.as_deref(), Some("NaN"));
        assert_eq!((d.nan, d.inf, d.zero), (0, 2, 2));
    }

    #[test]
    fn the_serialised_form_has_the_same_facts_and_drops_cores_when_outputs_only() {
        let t = tensor(&[2], &[0.5f32, -1.0]).unwrap();
        let s = Summary::new("f", &t, counts());
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            serde_json::json!({
                "op": "f",
                "dtype": "float32",
                "shape": [2],
                "elements": 2,
                "output": { "values": ["0.5", "-1.0"] },
                "cores": [{ "core": 0, "instructions": 1234, "cycles": 5678 }],
            })
        );
        let json = serde_json::to_value(s.outputs_only()).unwrap();
        assert_eq!(json.get("cores"), None);
        let big = tensor(&[65], &[0u8; 65]).unwrap();
        let json = serde_json::to_value(Summary::new("g", &big, vec![])).unwrap();
        let keys: Vec<&String> = json["output"].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["digest", "head", "inf", "max", "mean", "min", "nan", "tail", "zero"],
            "the digest form's fields (serde_json sorts them)"
        );
    }

    #[test]
    fn digests_are_sha256_of_the_bytes() {
        assert_eq!(
            digest(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn tensors_must_fill_their_shape() {
        assert_eq!(
            tensor(&[2, 3], &[1.0f32; 5]).unwrap_err().to_string(),
            "shape [2, 3] holds 6 elements, 5 given"
        );
        assert_eq!(
            tensor(&[u64::MAX, 2], &[1u8]).unwrap_err().to_string(),
            "shape [18446744073709551615, 2] holds more than 18446744073709551615 elements, 1 given"
        );
        let f32_ = Dtype::from_name("float32").unwrap();
        assert_eq!(
            tensor_from_bytes(f32_, &[2], vec![0; 7])
                .unwrap_err()
                .to_string(),
            "shape [2] of FP32 (code 0xc) takes 8 bytes, 7 given"
        );
        assert_eq!(
            tensor_from_bytes(DTYPES[0xB], &[1], vec![0; 4])
                .unwrap_err()
                .to_string(),
            "FP32R (code 0xb) is not a dtype the runtime marshals (PLATFORM.md \"ISA dtype codes\")"
        );
        let t = tensor(&[2], &[1.5f32, 2.0]).unwrap();
        assert_eq!(tensor_from_bytes(f32_, &[2], t.data.clone()).unwrap(), t);
    }

    #[test]
    fn every_dtype_and_short_data_summarise_without_failing() {
        let raw = |code: usize, shape: Vec<u64>, data: Vec<u8>| HostTensor {
            dtype: DTYPES[code],
            shape,
            data,
        };
        let texts = |t: &HostTensor| match Summary::new("f", t, vec![]).output {
            Values::All { values } => values,
            Values::Digest(_) => panic!("few elements are listed"),
        };
        assert_eq!(
            texts(&raw(0x5, vec![3], vec![0x01, 0x00, 0xff, 0xff, 0x34, 0x12])),
            ["1", "65535", "4660"],
            "UINT16, unsigned"
        );
        assert_eq!(
            texts(&raw(0xE, vec![1], vec![0xff; 8])),
            ["18446744073709551615"],
            "UINT64, exactly"
        );
        assert_eq!(
            texts(&raw(0x1, vec![2], vec![0x3c, 0x80])),
            ["0x3c", "0x80"],
            "FP8_EXP4: the host has no type, so its bits"
        );
        let short = raw(0xC, vec![3], 1.5f32.to_le_bytes().repeat(2));
        assert_eq!(texts(&short), ["1.5", "1.5"], "what the bytes hold");
        assert_eq!(element_text(&short, 2), None);
        assert_eq!(
            Summary::new("f", &short, vec![]).elements,
            3,
            "what the shape says"
        );
        assert_eq!(
            texts(&raw(0xF, vec![2], vec![])),
            ["0x", "0x"],
            "INVALID: 0 bytes each"
        );
    }

    #[test]
    fn kernels_need_a_source_and_an_op_with_a_schema() {
        let dir = std::env::temp_dir().join("q7-testing-unbuilt");
        assert_eq!(
            Kernel::new("k.cpp").build(&dir).unwrap_err().to_string(),
            "kernel k has no op: give one with Kernel::op"
        );
        assert_eq!(
            Kernel::default()
                .op("f() -> Tensor")
                .build(&dir)
                .unwrap_err()
                .to_string(),
            "a kernel needs a source file"
        );
        assert!(matches!(
            Kernel::new("k.cpp").op("f(Tensor x -> Tensor").build(&dir),
            Err(TestingError::Build(BuildError::Schema(_)))
        ));
        assert!(!dir.exists(), "nothing is built before the arguments check");
    }

    #[test]
    fn snapshots_go_to_the_workspace_roots_snapshots_folder() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let root = manifest.parent().unwrap();
        assert_eq!(snapshot_dir(manifest), root.join("snapshots"));
        assert_eq!(snapshot_dir(root), root.join("snapshots"));
        // Outside any workspace: the crate's own folder.
        let lone = std::env::temp_dir().join("q7-testing-lone-crate");
        std::fs::create_dir_all(&lone).unwrap();
        std::fs::write(lone.join("Cargo.toml"), "[package]\nname = \"lone\"\n").unwrap();
        assert_eq!(snapshot_dir(&lone), lone.join("snapshots"));
        std::fs::remove_dir_all(&lone).unwrap();
    }
}
