//! `q7emu run`: an op of a library built by `q7emu build`, on tensors. The build directory's
//! `q7build.json` names the op's arguments and the images; each image is created, prelinked
//! and loaded on its core through the nrtucode path (8 images for a multicore build, 1 on core 0
//! otherwise); the inputs and a zeroed output are placed in HBM and described by ARG_TENSOR
//! descriptors in schema order, the output last (PLATFORM.md "ARG_TENSOR descriptor"); the op
//! is dispatched by its key; the output is read back; the library is unloaded.
//!
//! The output's dtype and shape ([`OutputFrom`]) are the request's; else, for a project's op,
//! what its shape function computes (examples/sdk/BUILD.md "Projects"), either half overridden
//! by the request; else those of the op's first tensor argument — and when the kernel returns
//! anything else, what it returned: the runtime stops it with RETURN_MISMATCH, leaves the
//! returned tensor's dtype and shape in its returned-tensor record (PLATFORM.md), and the op is
//! dispatched a second time with a matching output ([`run_observed`]). An output the request
//! or a shape function gave that the kernel does not return stays a RETURN_MISMATCH.

mod arg_names;
pub mod library;
pub mod outputs;
pub mod report;
mod session;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use q7_emulator::platform::trace_port::Poison;
use q7_emulator::platform::{Cluster, ClusterConfig, ConsoleRing, ConsoleSize, HbmError};
use q7_loader::input::{self, InputError, InputKind};

use library::BuildDirError;
use q7_conventions::exit_code::{Kind, Outcome};
use q7_kernel_build::metadata::{BuildInfo, OpInfo};
use q7_observe::check::Checker;
use q7_observe::trace::{ObserveSpec, Observer, Summary, TraceError};
pub use q7_runtime::console::CoreConsole;
use q7_runtime::firmware::{CoreResult, Firmware, FirmwareError};
use q7_runtime::nrtucode::{coretype, Context, NrtError, Source};
use q7_runtime::progress::{self, Watch};
use q7_runtime::timing_profile::Profile;
use q7_symbols::Symbols;
use q7_tensor::arg_kind::ArgKind;
use q7_tensor::descriptor::{self, ArgDescriptor, DescriptorError, Location, ScalarValue};
use q7_tensor::dtype::Dtype;
use q7_tensor::npy::{NpyError, MAX_NPY_BYTES};
use q7_tensor::{HostTensor, TensorInput};

pub use crate::packed::{CUSTOM_OP_OPCODE, SELECTOR};
pub use session::Session;

/// Host threads running the cores unless told otherwise (`q7emu run --threads`,
/// `q7emu run-packed --threads`, `q7_testing::Run`); results are the same for any count.
pub const DEFAULT_THREADS: usize = 2;

/// A library a build directory holds: its metadata, images and symbols.
#[derive(Debug)]
pub struct Library {
    /// The build directory.
    pub dir: PathBuf,
    /// `q7build.json`.
    pub info: BuildInfo,
    /// Image bytes, by core.
    pub images: Vec<Vec<u8>>,
    /// Function symbols of the unstripped images, by core (empty when absent).
    pub symbols: Vec<Symbols>,
    /// A project's shape executable, checked against its digest (examples/sdk/BUILD.md
    /// "Projects"); `None` for a `--fn`/`--schema` build.
    pub shape: Option<PathBuf>,
    /// The shape executable's answers so far, by request (`build::shape::request`): a shape
    /// function is a function of its arguments' dtypes, shapes and scalars, and asking it
    /// again costs a process (several milliseconds, more than a small op's whole call).
    shape_answers: std::sync::Mutex<std::collections::HashMap<String, (Dtype, Vec<u64>)>>,
}

/// One op invocation.
#[derive(Debug, Clone)]
pub struct OpRequest {
    /// Op name.
    pub op: String,
    /// The op's Tensor arguments, in schema order: in host memory, or `.npy` files streamed
    /// into HBM.
    pub inputs: Vec<TensorInput>,
    /// The op's scalar arguments (Scalar, float, int, bool), in schema order, as given.
    pub scalars: Vec<String>,
    /// The output's dtype and shape, when given.
    pub out_dtype: Option<Dtype>,
    /// See `out_dtype`.
    pub out_shape: Option<Vec<u64>>,
    /// Host threads for the cores.
    pub threads: usize,
    /// Whether the dispatch may run compiled code, tier 2 (docs/jit.md "Switch"); results are
    /// the same either way.
    pub jit: bool,
    /// Cycle budget of the kernel (and of the start symbol) per core.
    pub call_budget: u64,
    /// The timing model of every core.
    pub timing: Profile,
    /// Draw the progress line of a long dispatch on stderr when it is a terminal
    /// ([`q7_runtime::progress`]).
    pub progress: bool,
    /// The size of each core's console ring, printf's buffer (PLATFORM.md "Console"; 0
    /// disables printf, the runtime's error line still reaches the host).
    pub console: ConsoleSize,
    /// Serve the kernel's dispatch to a debugger (the GDB server of `--gdb`, docs/gdb.md).
    pub debugger: Option<Arc<dyn q7_runtime::debugger::Debugger>>,
    /// Fill fresh allocations with a poison word (`--poison`, docs/checked-mode.md "Poison").
    pub poison: Option<Poison>,
}

/// The outcome of a run.
#[derive(Debug)]
pub struct OpRun {
    /// The op's metadata.
    pub op: OpInfo,
    /// The output tensor.
    pub output: HostTensor,
    /// Per core: response and counters of the dispatch.
    pub cores: Vec<CoreResult>,
    /// Per core: what the kernel printed (the console ring).
    pub console: Vec<CoreConsole>,
    /// Host time of the dispatch.
    pub wall: Duration,
    /// The timing model the cores ran with.
    pub timing: Profile,
    /// Where the output's dtype and shape came from.
    pub output_from: OutputFrom,
    /// Which engine ran the dispatch: `tier2` or `interpreter` (docs/jit.md).
    pub engine: &'static str,
    /// What tier 2 did during the dispatch, all cores together.
    pub jit: q7_emulator::jit::JitStats,
}

/// Where a run's output dtype and shape came from (docs/cli.md "`q7emu run`").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputFrom {
    /// The request (`--out-dtype` and `--out-shape`).
    Request,
    /// The op's shape function, named (a project's build, examples/sdk/BUILD.md "Projects");
    /// a request's `--out-dtype` or `--out-shape` overrides its half.
    ShapeFunction(String),
    /// The default of an op without a shape function whose request says nothing of the
    /// output: the first tensor argument's dtype and shape (float32 `[]` for an op without
    /// one), which the kernel returned.
    Default,
    /// What the kernel returned, when that was not the default: the runtime's returned-tensor
    /// record (PLATFORM.md "Returned-tensor record") after the first dispatch stopped with
    /// RETURN_MISMATCH, and the op dispatched a second time with an output of that dtype and
    /// shape. The run's counters are the second dispatch's.
    KernelReturn,
}

impl OutputFrom {
    /// The run report's name of it (`output.from` of the JSON): `request`, `shape_function`,
    /// `default` or `kernel_return`.
    pub fn name(&self) -> &'static str {
        match self {
            OutputFrom::Request => "request",
            OutputFrom::ShapeFunction(_) => "shape_function",
            OutputFrom::Default => "default",
            OutputFrom::KernelReturn => "kernel_return",
        }
    }

    /// The shape function's C++ name, when the output came from one.
    pub fn shape_function(&self) -> Option<&str> {
        match self {
            OutputFrom::ShapeFunction(f) => Some(f),
            _ => None,
        }
    }
}

/// Most shape-executable answers a [`Library`] keeps (all are forgotten when it is full).
pub const SHAPE_ANSWERS: usize = 1024;

/// Where the runtime leaves its returned-tensor record in each core's DataRAM (PLATFORM.md
/// "Returned-tensor record"; `Q7_RETURNED_ADDR` of the SDK header `q7/customop_abi.h`).
pub const RETURNED_ADDR: u32 = 0x0008_1000;
/// The record's first word (`Q7_RETURNED_MAGIC`, "RETN").
pub const RETURNED_MAGIC: u32 = 0x4E54_4552;
/// The record's size: magic, dtype, rank, reserved, 8 dims of 64 bits.
pub const RETURNED_BYTES: usize = 0x48;

/// What a kernel returned, from the runtime's returned-tensor record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Returned {
    /// Its dtype.
    pub dtype: Dtype,
    /// Its shape.
    pub shape: Vec<u64>,
}

impl Returned {
    /// The record in `bytes` ([`RETURNED_BYTES`] of DataRAM at [`RETURNED_ADDR`]), if it is
    /// one with a dtype a tensor can have and a rank of at most 8 non-negative dims.
    pub fn parse(bytes: &[u8]) -> Option<Returned> {
        let word = |at: usize| u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?).into();
        let magic: Option<u32> = word(0);
        if magic != Some(RETURNED_MAGIC) {
            return None;
        }
        let dtype = Dtype::from_code(*bytes.get(4)?).filter(Dtype::marshallable)?;
        let rank = usize::from(*bytes.get(5)?);
        if rank > 8 {
            return None;
        }
        let shape = (0..rank)
            .map(|i| {
                let at = 8 + 8 * i;
                let d = i64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?);
                u64::try_from(d).ok()
            })
            .collect::<Option<Vec<u64>>>()?;
        Some(Returned { dtype, shape })
    }

    /// The record core `core` of `cluster` holds after a RETURN_MISMATCH, if any.
    fn of(cluster: &Cluster, core: u32) -> Option<Returned> {
        let c = cluster.cores.get(core as usize)?;
        let bytes = c.bus.read_bytes(RETURNED_ADDR, RETURNED_BYTES).ok()?;
        Returned::parse(&bytes)
    }
}

/// Why a run failed, naming what and where.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The timing model is outside its bounds.
    #[error("timing model: {0}")]
    Timing(#[from] q7_emulator::TimingError),
    /// The build directory's `q7build.json`, `ucode_lib.json` or an image is refused.
    #[error(transparent)]
    Build(#[from] BuildDirError),
    /// An image file cannot be read within its bound.
    #[error(transparent)]
    Input(InputError),
    /// A `.npy` input could not be streamed into HBM (it changed since it was opened).
    #[error(transparent)]
    Npy(#[from] NpyError),
    /// A tensor in host memory whose data is not its shape's size.
    #[error("{what}: shape {shape:?} of {dtype} takes {want} bytes, its data has {got}")]
    TensorData {
        /// "input N (name)".
        what: String,
        /// The shape.
        shape: Vec<u64>,
        /// The dtype's numpy name.
        dtype: &'static str,
        /// Bytes the shape takes.
        want: String,
        /// Bytes of data.
        got: usize,
    },
    /// A tensor argument in host memory larger than a tensor may be ([`check_tensor_size`]).
    #[error("{what}: shape {shape:?} of {dtype}: {why}")]
    TensorSize {
        /// What names the argument ("input N (name)", or the caller's own words).
        what: String,
        /// The shape.
        shape: Vec<u64>,
        /// The dtype's numpy name.
        dtype: &'static str,
        /// Its size and the limit.
        why: String,
    },
    /// A file of the run is refused ([`outputs::check`]).
    #[error(transparent)]
    Outputs(#[from] outputs::OutputError),
    /// The output cannot be made as requested: it cannot be described, or it is larger than a
    /// tensor may be.
    #[error("output: shape {shape:?} of {dtype}: {why}")]
    Output {
        /// The requested (or first input's) shape.
        shape: Vec<u64>,
        /// The dtype's numpy name.
        dtype: &'static str,
        /// Why.
        why: String,
    },
    /// The op is not in the library.
    #[error("library {library} has no op {op}; its ops: {}", ops.join(", "))]
    UnknownOp {
        /// Requested op.
        op: String,
        /// Library.
        library: String,
        /// Its ops.
        ops: Vec<String>,
    },
    /// Wrong number of tensors or scalars for the schema.
    #[error("op {schema} takes {want} {what} argument(s), {got} given")]
    ArgCount {
        /// The op's schema.
        schema: String,
        /// "tensor" or "scalar".
        what: &'static str,
        /// Expected.
        want: usize,
        /// Given.
        got: usize,
    },
    /// A scalar its argument's type does not take (docs/cli.md "Scalars").
    #[error("op {schema}: argument {name} ({}) cannot be {value:?}: {source}", source.kind.spellings()[0])]
    Scalar {
        /// The op's schema.
        schema: String,
        /// Argument name.
        name: String,
        /// The value given.
        value: String,
        /// Why, and the forms the type takes.
        source: q7_tensor::scalar::ScalarError,
    },
    /// The shape executable could not say what the output is.
    #[error(transparent)]
    Shape(#[from] q7_kernel_build::shape::ShapeError),
    /// The shape function's answer is no output a run can make: a shape the descriptor cannot
    /// describe (more dims than it holds), or over the size limit of a tensor (the
    /// [`RunError::Descriptor`] or [`RunError::Output`] saying so).
    #[error(transparent)]
    ShapeAnswer(Box<RunError>),
    /// A tensor cannot be described.
    #[error("{what}: {source}")]
    Descriptor {
        /// "input N" or "output".
        what: String,
        /// Why.
        source: DescriptorError,
    },
    /// The tensors are larger than the HBM a run leaves them.
    #[error("the tensors take {} bytes (inputs {inputs}, output {output}), more than the {room} bytes of HBM a run leaves them (PLATFORM.md \"HBM\")", inputs + output)]
    HbmRoom {
        /// Bytes of the inputs.
        inputs: u64,
        /// Bytes of the output.
        output: u64,
        /// Bytes of HBM for tensors.
        room: u64,
    },
    /// HBM could not hold a tensor.
    #[error("{what}: {source}")]
    Hbm {
        /// What was being placed.
        what: String,
        /// Why.
        source: HbmError,
    },
    /// Host-side API failure (image, prelink).
    #[error("{image}: {source}")]
    Host {
        /// The image.
        image: String,
        /// Why.
        source: NrtError,
    },
    /// A trace or the timeline could not be set up or written.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// Device-side failure: a fault, runaway, abort or firmware refusal.
    #[error("{}", q7_runtime::firmware::failure_text(source, symbols, console))]
    Device {
        /// Why.
        source: FirmwareError,
        /// The backtrace symbolised from the unstripped image, when there is one.
        symbols: String,
        /// What each core the failure names printed (its console ring).
        console: Box<[CoreConsole]>,
        /// What the kernel returned, when the runtime stopped it with RETURN_MISMATCH and left
        /// its returned-tensor record.
        returned: Option<Box<Returned>>,
    },
}

impl Outcome for RunError {
    /// The outcome it ends `q7emu run` with ([`q7_conventions::exit_code`]): the device's; a fault
    /// for a shape function that crashed or did not answer; else bad input.
    fn kind(&self) -> Kind {
        use q7_kernel_build::shape::ShapeError;
        match self {
            RunError::Device { source, .. } => source.kind(),
            // The user's shape function crashed or hung, as a kernel faults.
            RunError::Shape(ShapeError::Failed { .. } | ShapeError::Timeout { .. }) => Kind::Fault,
            _ => Kind::BadInput,
        }
    }
}

/// A library image of the build directory, read with the packed-library bound
/// (PLATFORM.md "Input file limits").
fn read_bounded(path: &Path) -> Result<Vec<u8>, RunError> {
    input::read_file(path, InputKind::PackedLibrary).map_err(RunError::Input)
}

/// `f` of each of `items`, in their order, worked out by this thread and one more taking the
/// next item in turn. A library's files are read and hashed so: the published GIoU kernel's
/// sixteen (3.7 MB) took 5.5 ms one by one, a run's longest serial step before its cores
/// start (docs/jit.md "Where the time goes"). Threads are made per call, never a pool's,
/// so a process forked after a call calls again on threads of its own.
fn on_two_threads<I: Sync, T: Send>(items: &[I], f: impl Fn(&I) -> T + Sync) -> Vec<T> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let (mut mine, theirs) = std::thread::scope(|s| {
        let helper = s.spawn(work);
        let mine = work();
        (mine, helper.join())
    });
    mine.extend(theirs.unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
    mine.sort_unstable_by_key(|&(i, _)| i);
    mine.into_iter().map(|(_, t)| t).collect()
}

impl Library {
    /// Opens build directory `dir`: reads and checks `q7build.json` and `ucode_lib.json`
    /// ([`library::read_build`]), reads each image within its bound and checks that it is the
    /// one the build made ([`library::check_image`], [`library::check_linked`]); each image's kernel table is checked
    /// once its start symbol has filled it, when the library is loaded for a run
    /// ([`library::check_kernel_table`]).
    pub fn open(dir: &Path) -> Result<Library, RunError> {
        let _span = tracing::info_span!("library", dir = %dir.display()).entered();
        let (info, _registry) = library::read_build(dir)?;
        // Every image and unstripped image is read and its digest checked, two at a time
        // ([`on_two_threads`]); the first refusal in the order they are listed, the images
        // first, is the one reported.
        let files: Vec<(bool, usize, PathBuf)> = (info.images.iter().enumerate())
            .map(|(core, f)| (false, core, dir.join(f)))
            .chain((info.linked.iter().enumerate()).map(|(core, f)| (true, core, dir.join(f))))
            .collect();
        let read = on_two_threads(&files, |(linked, core, path)| match read_bounded(path) {
            Ok(b) if *linked => library::check_linked(path, *core, &b, &info)
                .map(|()| Some(b))
                .map_err(RunError::from),
            Ok(b) => library::check_image(path, *core, &b, &info)
                .map(|()| Some(b))
                .map_err(RunError::from),
            // An unstripped image that is missing leaves its core without symbols.
            Err(_) if *linked => Ok(None),
            Err(e) => Err(e),
        });
        let mut read = read.into_iter();
        let images = (read.by_ref().take(info.images.len()))
            .map(|r| r.map(|b| b.expect("an image is read or refused")))
            .collect::<Result<Vec<_>, _>>()?;
        let linked = read.collect::<Result<Vec<_>, _>>()?;
        let unstripped = linked.iter().flatten().count();
        // Read when a fault report or an observer first asks.
        let symbols = (linked.into_iter())
            .map(|b| b.map_or_else(Symbols::default, Symbols::from_elf_bytes))
            .collect();
        // The shape executable: the build's own (its digest), read within the packed-library
        // bound like an image.
        let shape = match &info.shape {
            Some(s) => {
                let path = dir.join(&s.file);
                let bytes = read_bounded(&path)?;
                library::check_shape_executable(&path, &bytes, &s.sha256)?;
                Some(path)
            }
            None => None,
        };
        tracing::debug!(
            library = info.library,
            images = images.len(),
            packed = info.packed,
            unstripped,
            "library opened"
        );
        Ok(Library {
            dir: dir.to_path_buf(),
            info,
            images,
            symbols,
            shape,
            shape_answers: Default::default(),
        })
    }

    /// The op named `name`: by its name, or for a project's library (one with a namespace) as
    /// `ns::op` (`torch.ops.ns.op`).
    pub fn op(&self, name: &str) -> Result<&OpInfo, RunError> {
        let bare = match (name.split_once("::"), &self.info.namespace) {
            (Some((ns, op)), Some(own)) if ns == own => Some(op),
            (Some(_), _) => None,
            (None, _) => Some(name),
        };
        bare.and_then(|b| self.info.ops.iter().find(|o| o.name == b))
            .ok_or_else(|| RunError::UnknownOp {
                op: name.to_string(),
                library: self.info.library.clone(),
                ops: self
                    .info
                    .ops
                    .iter()
                    .map(|o| match &self.info.namespace {
                        Some(ns) => format!("{} ({ns}::{})", o.name, o.name),
                        None => o.name.clone(),
                    })
                    .collect(),
            })
    }

    /// The backtrace of each stopped core, symbolised ([`Symbols::report_backtrace`]); empty
    /// when the images have no symbols.
    fn symbolise(&self, e: &FirmwareError) -> String {
        let reports: Vec<&q7_emulator::FaultReport> = match e {
            FirmwareError::Fault { report, .. }
            | FirmwareError::Aborted {
                report: Some(report),
                ..
            }
            | FirmwareError::Incomplete {
                report: Some(report),
                ..
            } => vec![report],
            FirmwareError::Interrupted { reports, .. } => reports.iter().collect(),
            _ => return String::new(),
        };
        let mut out = String::new();
        for r in reports {
            let image = if self.info.multicore {
                r.core as usize
            } else {
                0
            };
            if let Some(syms) = self.symbols.get(image) {
                let source = format!("core {}, from the unstripped image", r.core);
                out.push_str(&syms.report_backtrace(r, &source));
            }
        }
        out
    }
}

/// The descriptor of scalar `value` for argument `name` of kind `kind`, read by the scalar
/// grammar ([`q7_tensor::scalar::parse_scalar`]).
fn scalar(op: &OpInfo, name: &str, kind: ArgKind, value: &str) -> Result<ScalarValue, RunError> {
    q7_tensor::scalar::parse_scalar(kind, value).map_err(|source| RunError::Scalar {
        schema: op.schema.clone(),
        name: name.to_string(),
        value: value.to_string(),
        source,
    })
}

/// Bytes of the output of `dtype` and `shape`: a shape the descriptor can describe
/// ([`descriptor::describe_shape`]) of at most [`MAX_NPY_BYTES`], the bound of a tensor q7emu
/// reads (so that it can read back every output it writes) and of the host memory it takes.
fn output_bytes(what: &str, dtype: Dtype, shape: &[u64]) -> Result<u64, RunError> {
    let (_, n) = descriptor::describe_shape(shape).map_err(|source| RunError::Descriptor {
        what: what.to_string(),
        source,
    })?;
    within_limit(n.checked_mul(u64::from(dtype.bytes))).map_err(|why| RunError::Output {
        shape: shape.to_vec(),
        dtype: dtype.numpy_name(),
        why,
    })
}

/// `bytes` (None: past 2^64 - 1) when at most [`MAX_NPY_BYTES`], the limit of a tensor; else
/// why not.
fn within_limit(bytes: Option<u64>) -> Result<u64, String> {
    match bytes {
        Some(b) if b <= MAX_NPY_BYTES => Ok(b),
        _ => Err(format!(
            "{} bytes, over the {MAX_NPY_BYTES}-byte limit of a tensor (that of a .npy input, \
             PLATFORM.md \"Input file limits\")",
            bytes.map_or_else(|| "more than 2^64 - 1".to_string(), |b| b.to_string())
        )),
    }
}

/// Bytes of a tensor argument of `dtype` and `shape` (`what`) in host memory: at most
/// [`MAX_NPY_BYTES`], the limit of a `.npy` input, so that an argument handed over in memory
/// (the Python package's, checked before its data is copied) is held to what `q7emu run`
/// holds a file to; [`RunError::TensorSize`] otherwise.
pub fn check_tensor_size(what: &str, dtype: Dtype, shape: &[u64]) -> Result<u64, RunError> {
    let bytes = shape
        .iter()
        .try_fold(u64::from(dtype.bytes), |a, &d| a.checked_mul(d));
    within_limit(bytes).map_err(|why| RunError::TensorSize {
        what: what.to_string(),
        shape: shape.to_vec(),
        dtype: dtype.numpy_name(),
        why,
    })
}

/// Bytes of input `t` (`what`): its shape's size, which a tensor in host memory's data must
/// have.
fn input_bytes(what: &str, t: &TensorInput) -> Result<u64, RunError> {
    match t {
        TensorInput::Npy(f) => Ok(f.data_bytes),
        TensorInput::Host(h) => {
            check_tensor_size(what, h.dtype, &h.shape)?;
            let want = h
                .shape
                .iter()
                .try_fold(u64::from(h.dtype.bytes), |a, &d| a.checked_mul(d));
            if want != Some(h.data.len() as u64) {
                return Err(RunError::TensorData {
                    what: what.to_string(),
                    shape: h.shape.clone(),
                    dtype: h.dtype.numpy_name(),
                    want: want.map_or_else(|| "more than 2^64 - 1".into(), |b| b.to_string()),
                    got: h.data.len(),
                });
            }
            Ok(h.data.len() as u64)
        }
    }
}

/// Checks that tensors of `inputs` and `output` bytes fit the HBM a run on `config`'s cluster
/// leaves them: its size less the image scratch and, per image, its staging buffer and its
/// runtime heap (PLATFORM.md "HBM").
fn check_hbm_room(
    config: &ClusterConfig,
    images: usize,
    inputs: u64,
    output: u64,
) -> Result<(), RunError> {
    let taken = q7_emulator::platform::map::HBM_SCRATCH.1
        + images as u64
            * (q7_runtime::nrtucode::DEVICE_BUFFER + u64::from(q7_runtime::firmware::HEAP_BYTES));
    let room = config.hbm_bytes.saturating_sub(taken);
    let total = inputs.saturating_add(output);
    if total > room {
        return Err(RunError::HbmRoom {
            inputs,
            output,
            room,
        });
    }
    Ok(())
}

/// Runs `req` on library `lib`, on a fresh cluster whose cores follow `req.timing` (the output
/// as [`run_observed`] says).
pub fn run(lib: &Library, req: &OpRequest) -> Result<OpRun, RunError> {
    run_observed(lib, req, &ObserveSpec::default()).map(|(run, _)| run)
}

/// [`run`], observed as `spec` asks (docs/tracing.md): traces and timeline are written
/// whether the run succeeds or fails (a failed run's error wins over one writing them). Their
/// paths are checked first ([`outputs::check`]): an empty one, or a timeline that is a trace
/// file or the trace directory, or either of them a file of the build, is refused.
///
/// An op without a shape function whose request gives neither the output's dtype nor its
/// shape runs with the default output ([`OutputFrom::Default`]); when its kernel returns
/// something else, the runtime stops it with RETURN_MISMATCH and leaves what it returned in its
/// returned-tensor record (PLATFORM.md), and the op is dispatched once more, on a fresh
/// cluster, with an output of that dtype and shape ([`OutputFrom::KernelReturn`]): the run's
/// counters, traces and timeline are the second dispatch's.
pub fn run_observed(
    lib: &Library,
    req: &OpRequest,
    spec: &ObserveSpec,
) -> Result<(OpRun, Summary), RunError> {
    if spec.trace.is_some() || spec.timeline.is_some() || spec.profile.is_some() {
        outputs::check(lib, spec, &[], &[])?;
    }
    with_kernel_return(
        lib,
        req,
        |r| run_observed_once(lib, r, spec),
        |(run, _)| run,
    )
}

/// Runs `req` with `once`; when the op has no shape function, the request says nothing of the
/// output and the kernel returned something else than the default, runs it `once` more with
/// an output of what the kernel returned ([`run_observed`]).
fn with_kernel_return<T>(
    lib: &Library,
    req: &OpRequest,
    mut once: impl FnMut(&OpRequest) -> Result<T, RunError>,
    run_of: impl Fn(&mut T) -> &mut OpRun,
) -> Result<T, RunError> {
    let first = once(req);
    let unspecified = req.out_dtype.is_none()
        && req.out_shape.is_none()
        && lib
            .op(&req.op)
            .is_ok_and(|op| op.shape_fn.is_none() || lib.shape.is_none());
    match first {
        Err(RunError::Device {
            returned: Some(r), ..
        }) if unspecified => {
            tracing::info!(
                dtype = r.dtype.numpy_name(),
                shape = ?r.shape,
                "the kernel returned another output than the default: dispatching again"
            );
            let again = OpRequest {
                out_dtype: Some(r.dtype),
                out_shape: Some(r.shape.clone()),
                ..req.clone()
            };
            let mut done = once(&again)?;
            run_of(&mut done).output_from = OutputFrom::KernelReturn;
            Ok(done)
        }
        other => other,
    }
}

fn run_observed_once(
    lib: &Library,
    req: &OpRequest,
    spec: &ObserveSpec,
) -> Result<(OpRun, Summary), RunError> {
    req.timing.model.check()?;
    let observer = if spec.any() {
        let images = lib.info.images.clone();
        Some(Arc::new(Observer::new(
            spec,
            lib.symbols.clone(),
            images,
            lib.info.multicore,
        )?))
    } else {
        None
    };
    let result = run_with(lib, req, observer.clone());
    let summary = match observer.map(|o| o.close()) {
        None => Ok(Summary::default()),
        Some(Ok(s)) => {
            // A run that fails reports its error, not its summary: what checking found before
            // the failure (often its cause) goes to stderr first, as the caps' notes do — but
            // not what only a finished kernel can be held to (unwritten output, leaks).
            if let (Err(_), Some(findings)) = (&result, &s.check) {
                let before = q7_observe::check::before_failure(findings);
                if !before.is_empty() {
                    eprint!(
                        "{}",
                        q7_conventions::terminal::for_stderr(&q7_observe::check::text(&before))
                    );
                }
            }
            Ok(s)
        }
        Some(Err(e)) if result.is_err() => {
            tracing::warn!(error = %e, "writing the observations of a failed run");
            Ok(Summary::default())
        }
        Some(Err(e)) => Err(e),
    };
    let run = result?;
    let mut summary = summary?;
    if let Some(findings) = &mut summary.check {
        findings.extend(q7_observe::check::stack_findings(&run.cores));
    }
    Ok((run, summary))
}

fn run_with(
    lib: &Library,
    req: &OpRequest,
    observer: Option<Arc<Observer>>,
) -> Result<OpRun, RunError> {
    let _span = tracing::info_span!("run", library = lib.info.library, op = req.op).entered();
    let plan = Plan::of(lib, req)?;
    let checker = observer.as_deref().and_then(Observer::checker);
    let (mut ctx, handles) = load(lib, req, &plan.op, observer.clone())?;
    dispatch(lib, req, plan, &mut ctx, handles, checker)
}

/// What a run of a request is, worked out before anything is allocated: the op, the inputs'
/// sizes, the output's dtype, shape and size and where they came from.
struct Plan {
    op: OpInfo,
    in_bytes: Vec<u64>,
    out_dtype: Dtype,
    out_shape: Vec<u64>,
    output_from: OutputFrom,
    out_bytes: u64,
}

impl Plan {
    /// `req` on `lib`, every count and size checked (the inputs' before a shape function sees
    /// them), and the tensors' room in HBM.
    fn of(lib: &Library, req: &OpRequest) -> Result<Plan, RunError> {
        let op = lib.op(&req.op)?.clone();
        check_arg_counts(&op, req)?;
        let mut in_bytes = Vec::new();
        for (a, t) in op
            .args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.kind == ArgKind::Tensor)
            .zip(&req.inputs)
        {
            let what = format!("input {} ({})", a.0, a.1.name);
            descriptor::describe_shape(t.shape()).map_err(|source| RunError::Descriptor {
                what: what.clone(),
                source,
            })?;
            in_bytes.push(input_bytes(&what, t)?);
        }
        let (out_dtype, out_shape, output_from) = output_spec(lib, &op, req)?;
        let out_what = match (&output_from, &req.out_shape) {
            (OutputFrom::ShapeFunction(f), None) => format!("output (from shape function {f})"),
            _ => "output".to_string(),
        };
        let out_bytes = output_bytes(&out_what, out_dtype, &out_shape)?;
        check_hbm_room(
            &cluster_config(lib, req),
            lib.images.len(),
            in_bytes.iter().sum(),
            out_bytes,
        )?;
        Ok(Plan {
            op,
            in_bytes,
            out_dtype,
            out_shape,
            output_from,
            out_bytes,
        })
    }
}

/// The cluster a run of `req` on `lib` needs. Only the cores the library runs on are made:
/// core 0 alone for a single-core library (the others would only be set up and never run).
fn cluster_config(lib: &Library, req: &OpRequest) -> ClusterConfig {
    ClusterConfig {
        timing: req.timing.model.clone(),
        cores: lib.images.len() as u32,
        ..ClusterConfig::default()
    }
}

/// A device failure of a run of `op` as the [`RunError`] that reports it: symbolised, with
/// the failing cores' consoles and, for RETURN_MISMATCH, what the kernel returned.
fn device_error(lib: &Library, op: &OpInfo, cluster: &Cluster, source: FirmwareError) -> RunError {
    RunError::Device {
        symbols: lib.symbolise(&source),
        console: q7_runtime::firmware::failure_consoles(cluster, &source),
        returned: match &source {
            FirmwareError::Aborted { core, name, .. } if *name == "RETURN_MISMATCH" => {
                Returned::of(cluster, *core).map(Box::new)
            }
            _ => None,
        },
        source: arg_names::name_arguments(source, &op.args),
    }
}

/// The libraries a [`load`] created, by core: what a dispatch unloads and destroys after it.
type Handles = Vec<(u32, q7_runtime::nrtucode::Library)>;

/// A fresh cluster for `req` with `lib` loaded: each image created, prelinked and loaded on its
/// core through the nrtucode path, its kernel table checked against the build.
fn load(
    lib: &Library,
    req: &OpRequest,
    op: &OpInfo,
    observer: Option<Arc<Observer>>,
) -> Result<(Context, Handles), RunError> {
    let config = cluster_config(lib, req);
    let mut device = Firmware::new(Cluster::new(&config).map_err(|source| RunError::Hbm {
        what: "cluster".into(),
        source,
    })?);
    for core in &mut device.cluster.cores {
        core.bus.console = ConsoleRing::sized(req.console);
        core.bus.trace.poison = req.poison;
    }
    device.single_core = !lib.info.multicore;
    device.call_budget = req.call_budget;
    if let Some(o) = &observer {
        o.attach(&mut device.cluster.cores);
    }
    device.observer = observer.map(|o| o as Arc<dyn q7_runtime::observer::Observer>);
    device.debugger = req.debugger.clone();
    let mut ctx = Context::new(device);
    let device_err = |cluster: &Cluster, source| device_error(lib, op, cluster, source);

    // Create and load one library instance per core.
    let mut loaded = Vec::new();
    for (core, (bytes, file)) in lib.images.iter().zip(&lib.info.images).enumerate() {
        let source = if lib.info.packed {
            Source::CustomOp(bytes)
        } else {
            Source::CustomOpImage(bytes)
        };
        let name = file.trim_end_matches(".so").trim_end_matches(".packed");
        let mut l = ctx
            .create(coretype::CAYMAN, core as u32, Some(SELECTOR), name, source)
            .map_err(|source| RunError::Host {
                image: file.clone(),
                source,
            })?;
        for record in ctx.load_sequence(&mut l, None) {
            ctx.device
                .process(core as u32, &record)
                .map_err(|e| device_err(&ctx.device.cluster, e))?;
        }
        // The table its start symbol filled must be this build's (PLATFORM.md "Kernel table").
        let table = ctx
            .device
            .kernel_table(SELECTOR, core as u32)
            .unwrap_or_default();
        library::check_kernel_table(&lib.dir.join(file), table, &lib.info)?;
        loaded.push((core as u32, l));
    }
    Ok((ctx, loaded))
}

/// Runs `plan` on the loaded cluster of `ctx`: the tensors placed in HBM, the op dispatched,
/// the output read back, the libraries of `handles` unloaded and destroyed; `checker` (checked
/// mode's, of the observer `ctx` was loaded with) told where the tensors are.
fn dispatch(
    lib: &Library,
    req: &OpRequest,
    plan: Plan,
    ctx: &mut Context,
    loaded: Handles,
    checker: Option<&Checker>,
) -> Result<OpRun, RunError> {
    let Plan {
        op,
        in_bytes,
        out_dtype,
        out_shape,
        output_from,
        out_bytes,
    } = plan;
    let device_err = |cluster: &Cluster, source| device_error(lib, &op, cluster, source);

    // Place the tensors and describe the arguments in schema order, the output last. A `.npy`
    // input goes from its file into HBM a chunk at a time; the output is zeroed without taking
    // memory (`Hbm::zero`): its pages are resident only once the kernel writes them.
    let hbm = ctx.device.cluster.hbm.clone();
    let describe = |what: String, dtype: Dtype, addr: u64, shape: &[u64], output: bool| {
        ArgDescriptor::Tensor {
            location: Location::Hbm,
            dtype,
            addr,
            shape: shape.to_vec(),
            output,
        }
        .encode()
        .map_err(|source| RunError::Descriptor { what, source })
    };
    let alloc = |what: &str, bytes: u64| {
        hbm.alloc(bytes.max(1), 64).map_err(|source| RunError::Hbm {
            what: what.to_string(),
            source,
        })
    };
    let (mut inputs, mut scalars) = (req.inputs.iter().zip(&in_bytes), req.scalars.iter());
    let mut descriptors = Vec::new();
    let mut placed = Vec::new();
    let mut checked = Vec::new();
    for (i, a) in op.args.iter().enumerate() {
        let d = if a.kind == ArgKind::Tensor {
            let what = format!("input {i} ({})", a.name);
            let (t, &bytes) = inputs.next().expect("counted above");
            let addr = alloc(&what, bytes)?;
            placed.push((addr, bytes));
            checked.push(q7_observe::check::TensorInfo {
                name: a.name.clone(),
                addr,
                bytes,
                element: u64::from(t.dtype().bytes),
                shape: t.shape().to_vec(),
                output: false,
            });
            let hbm_err = |source| RunError::Hbm {
                what: what.clone(),
                source,
            };
            match t {
                TensorInput::Host(h) => hbm.write(addr, &h.data).map_err(hbm_err)?,
                TensorInput::Npy(f) => {
                    f.stream(|at, chunk| hbm.write(addr + at, chunk).map_err(hbm_err))?
                }
            }
            describe(what, t.dtype(), addr, t.shape(), false)?
        } else {
            let v = scalar(&op, &a.name, a.kind, scalars.next().expect("counted above"))?;
            ArgDescriptor::Scalar(v)
                .encode()
                .expect("scalars always encode")
        };
        descriptors.push(d);
    }
    let out_addr = alloc("output", out_bytes)?;
    // Zeroed, or under --poison filled with the poison word like every fresh allocation, so
    // that output bytes no core writes show (docs/checked-mode.md "Poison").
    match req.poison {
        None => hbm.zero(out_addr, out_bytes),
        Some(p) => fill(&hbm, out_addr, out_bytes, p.word()),
    }
    .map_err(|source| RunError::Hbm {
        what: "output".into(),
        source,
    })?;
    descriptors.push(describe(
        "output".into(),
        out_dtype,
        out_addr,
        &out_shape,
        true,
    )?);
    tracing::debug!(
        tensors = req.inputs.len(),
        scalars = req.scalars.len(),
        output = format_args!("{out_addr:#x}"),
        "arguments placed in HBM"
    );

    if let Some(c) = checker {
        checked.push(q7_observe::check::TensorInfo {
            name: "output".into(),
            addr: out_addr,
            bytes: out_bytes,
            element: u64::from(out_dtype.bytes),
            shape: out_shape.clone(),
            output: true,
        });
        c.set_tensors(checked);
    }
    ctx.device.cluster.set_jit(req.jit);
    let jit_before = ctx.device.cluster.jit_stats();
    let engine = q7_emulator::jit::engine(
        ctx.device.observer.is_none() && ctx.device.cluster.cores.iter().any(|c| c.jit_enabled()),
    );
    let watch = Watch::attach(&mut ctx.device.cluster, loaded.iter().map(|(c, _)| *c));
    let target = progress::stderr_target(req.progress);
    let start = Instant::now();
    let cores = progress::while_running(&watch, target, progress::show_after(), "", || {
        ctx.device.dispatch(
            op.key,
            CUSTOM_OP_OPCODE,
            op.function_id,
            &descriptors,
            req.threads,
        )
    })
    .map_err(|e| device_err(&ctx.device.cluster, e))?;
    let wall = start.elapsed();
    let jit = ctx.device.cluster.jit_stats().since(&jit_before);
    // The inputs are done with: their HBM pages go back before the output is read out, so the
    // run holds at most the tensors once over (PLATFORM.md "Input file limits").
    for &(addr, bytes) in &placed {
        hbm.zero(addr, bytes).map_err(|source| RunError::Hbm {
            what: "input".into(),
            source,
        })?;
    }
    let mut output = HostTensor {
        dtype: out_dtype,
        shape: out_shape,
        data: vec![0; out_bytes as usize],
    };
    hbm.read(out_addr, &mut output.data)
        .map_err(|source| RunError::Hbm {
            what: "output".into(),
            source,
        })?;
    let console = cores
        .iter()
        .map(|r| CoreConsole::of(&ctx.device.cluster, r.core))
        .collect();
    for (core, mut l) in loaded {
        for record in ctx.unload_sequence(&mut l) {
            ctx.device
                .process(core, &record)
                .map_err(|e| device_err(&ctx.device.cluster, e))?;
        }
        ctx.destroy(l).map_err(|source| RunError::Host {
            image: lib.info.images[core as usize].clone(),
            source,
        })?;
    }
    Ok(OpRun {
        op,
        output,
        cores,
        console,
        wall,
        timing: req.timing.clone(),
        output_from,
        engine,
        jit,
    })
}

/// Whether `req` gives `op` as many tensors and scalars as its schema takes.
fn check_arg_counts(op: &OpInfo, req: &OpRequest) -> Result<(), RunError> {
    // `args` and `schema` agree: Library::open checked them (run_op/library.rs).
    let tensors = op.args.iter().filter(|a| a.kind == ArgKind::Tensor).count();
    let count = |what, want, got| RunError::ArgCount {
        schema: op.schema.clone(),
        what,
        want,
        got,
    };
    if req.inputs.len() != tensors {
        return Err(count("tensor", tensors, req.inputs.len()));
    }
    if req.scalars.len() != op.args.len() - tensors {
        return Err(count("scalar", op.args.len() - tensors, req.scalars.len()));
    }
    Ok(())
}

/// The output dtype and shape a run of `req` on `lib` would have, and where they come from,
/// without running it: what `q7emu run` decides before placing the tensors (the shape
/// function asked when the op has one). Only the inputs' dtypes and shapes are looked at, so
/// `req`'s tensors may hold no data (a meta tensor's description). An output a run would
/// refuse (a shape the descriptor cannot describe, over the tensor limit) is refused here too:
/// [`RunError::ShapeAnswer`] when the shape function gave it.
pub fn output_of(
    lib: &Library,
    req: &OpRequest,
) -> Result<(Dtype, Vec<u64>, OutputFrom), RunError> {
    let op = lib.op(&req.op)?;
    check_arg_counts(op, req)?;
    let (dtype, shape, from) = output_spec(lib, op, req)?;
    // What a run would refuse before it ran.
    output_bytes("output", dtype, &shape)?;
    Ok((dtype, shape, from))
}

/// The output's dtype and shape, and where they come from ([`OutputFrom`]): the request's when
/// it gives both; else the op's shape function's, run in the build's shape executable
/// ([`q7_kernel_build::shape::query`]) on the inputs' dtypes and shapes and the scalars, either
/// half overridden by the request; else the first tensor argument's.
fn output_spec(
    lib: &Library,
    op: &OpInfo,
    req: &OpRequest,
) -> Result<(Dtype, Vec<u64>, OutputFrom), RunError> {
    if let (Some(d), Some(s)) = (req.out_dtype, &req.out_shape) {
        return Ok((d, s.clone(), OutputFrom::Request));
    }
    if let (Some(f), Some(exe)) = (&op.shape_fn, &lib.shape) {
        use q7_kernel_build::shape::{query, ShapeArg};
        let (mut inputs, mut scalars) = (req.inputs.iter(), req.scalars.iter());
        let mut args = Vec::new();
        for a in &op.args {
            args.push(if a.kind == ArgKind::Tensor {
                let t = inputs.next().expect("counted");
                ShapeArg::Tensor(t.dtype(), t.shape().to_vec())
            } else {
                let v = scalar(op, &a.name, a.kind, scalars.next().expect("counted"))?;
                ShapeArg::Scalar(a.kind, v)
            });
        }
        let key = q7_kernel_build::shape::request(&op.name, &args);
        let answers = || lib.shape_answers.lock().unwrap_or_else(|p| p.into_inner());
        let known = answers().get(&key).cloned();
        let (d, s) = match known {
            Some(answer) => answer,
            None => {
                let what = format!("op {}, shape function {f}", op.name);
                let answer = query(exe, &op.name, &args, &what)?;
                let mut known = answers();
                if known.len() >= SHAPE_ANSWERS {
                    known.clear();
                }
                known.insert(key, answer.clone());
                answer
            }
        };
        let (dtype, shape) = (
            req.out_dtype.unwrap_or(d),
            req.out_shape.clone().unwrap_or(s),
        );
        if req.out_shape.is_none() {
            let what = format!("output (from shape function {f})");
            output_bytes(&what, dtype, &shape).map_err(|e| RunError::ShapeAnswer(Box::new(e)))?;
        }
        return Ok((dtype, shape, OutputFrom::ShapeFunction(f.clone())));
    }
    let (dtype, shape) = match req.inputs.first() {
        Some(first) => (first.dtype(), first.shape().to_vec()),
        None => (Dtype::from_name("float32").expect("a dtype"), Vec::new()),
    };
    Ok((
        req.out_dtype.unwrap_or(dtype),
        req.out_shape.clone().unwrap_or(shape),
        OutputFrom::Default,
    ))
}

/// Fills `[addr, addr + len)` of HBM with `word`, little-endian, over and over.
fn fill(
    hbm: &q7_emulator::platform::hbm::Hbm,
    addr: u64,
    len: u64,
    word: u32,
) -> Result<(), HbmError> {
    const CHUNK: u64 = 64 * 1024;
    let bytes: Vec<u8> = word
        .to_le_bytes()
        .into_iter()
        .cycle()
        .take(CHUNK as usize)
        .collect();
    let mut at = 0;
    while at < len {
        let n = (len - at).min(CHUNK);
        hbm.write(addr + at, &bytes[..n as usize])?;
        at += n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_returned_record_is_the_sdk_headers() {
        let header = std::fs::read_to_string(
            q7_kernel_build::sdk::default_dir().join("include/q7/customop_abi.h"),
        )
        .unwrap();
        let define = |name: &str| -> String {
            header
                .lines()
                .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
                .unwrap_or_else(|| panic!("no {name}"))
                .split_whitespace()
                .next()
                .unwrap()
                .to_string()
        };
        assert_eq!(define("Q7_RETURNED_ADDR"), "Q7_BOUNCE_ADDR");
        assert_eq!(define("Q7_BOUNCE_ADDR"), format!("0x{RETURNED_ADDR:08X}u"));
        assert_eq!(
            define("Q7_RETURNED_MAGIC"),
            format!("0x{RETURNED_MAGIC:08X}u")
        );
        assert_eq!(&RETURNED_MAGIC.to_le_bytes(), b"RETN");
    }

    fn record(magic: u32, dtype: u8, dims: &[i64]) -> Vec<u8> {
        let mut b = magic.to_le_bytes().to_vec();
        b.extend([dtype, dims.len() as u8, 0, 0]);
        for i in 0..8 {
            b.extend(dims.get(i).copied().unwrap_or(0).to_le_bytes());
        }
        assert_eq!(b.len(), RETURNED_BYTES);
        b
    }

    #[test]
    fn returned_records_give_a_dtype_and_shape_or_nothing() {
        assert_eq!(
            Returned::parse(&record(RETURNED_MAGIC, 0x6, &[6, 2])),
            Some(Returned {
                dtype: Dtype::from_name("int32").unwrap(),
                shape: vec![6, 2]
            })
        );
        assert_eq!(
            Returned::parse(&record(RETURNED_MAGIC, 0xC, &[])).map(|r| r.shape),
            Some(vec![])
        );
        assert_eq!(Returned::parse(&record(0, 0x6, &[6])), None, "no record");
        assert_eq!(
            Returned::parse(&record(RETURNED_MAGIC, 0xF, &[])),
            None,
            "an undefined tensor"
        );
        assert_eq!(Returned::parse(&record(RETURNED_MAGIC, 0x6, &[-1])), None);
        let mut nine = record(RETURNED_MAGIC, 0x6, &[1]);
        nine[5] = 9;
        assert_eq!(Returned::parse(&nine), None);
    }
}
