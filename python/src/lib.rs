//! `q7emu._q7emu`: the extension module under the Python package `q7emu` (docs/python.md).
//!
//! It is a thin layer over `q7_host`'s Rust API: [`Library`] opens a build directory once and
//! runs its ops through [`q7_run::api::Run`], as `q7emu run` does; [`build`] builds one
//! as `q7emu build --project` does; [`main`] is the `q7emu` command line itself. Tensors cross
//! as `(dtype name, shape, bytes)`, reports as the JSON of `q7emu run --json`: the package's
//! Python code turns them into numpy arrays and dicts, so the extension needs no numpy headers
//! and one stable-ABI wheel serves every CPython from 3.9 on. Errors are raised as the
//! exception classes of `q7emu.errors` (imported once: [`errors`]), with q7emu's own messages.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyAnyMethods, PyByteArray, PyBytes, PyDict};

use q7_conventions::exit_code::{Kind, Outcome};
use q7_run::api::{ApiError, Run};
use q7_run::op::Session;
use q7_tensor::arg_kind::ArgKind;
use q7_tensor::HostTensor;

mod loading;

mod args;

mod errors;
use errors::{
    BadInputError, BuildError, CheckFailedError, KernelFaultError, RunawayError, ShapeFunctionError,
};

/// A run's error as [`error`] raises it, a [`KernelFaultError`] for a core's fault or a
/// [`RunawayError`] for its spent budget carrying the core's facts as attributes
/// (docs/python.md "Errors", python/q7emu/errors.py): `core`, `pc`, `cause`, `address` (or
/// None), `disassembly`, `function` (`name+0xoff (file:line)`, or None without symbols),
/// `backtrace` (the frames as the report lists them, innermost first) and `cycles`.
fn run_error(py: Python<'_>, e: ApiError, lib: &q7_run::op::Library) -> PyErr {
    use q7_run::op::RunError;
    use q7_runtime::firmware::FirmwareError;
    let stop = match &e {
        ApiError::Run(run) => match (&**run, run.kind()) {
            (
                RunError::Device {
                    source: FirmwareError::Fault { report, .. },
                    ..
                },
                kind @ (Kind::Fault | Kind::Runaway),
            ) => Some((report.clone(), kind)),
            _ => None,
        },
        _ => None,
    };
    let Some((report, kind)) = stop else {
        return error(e);
    };
    let symbols = lib.symbols.get(report.core as usize);
    let pcs: Vec<u32> = std::iter::once(report.pc)
        .chain(report.backtrace.iter().skip(1).map(|f| f.pc))
        .collect();
    let frames = q7_symbols::Symbols::frame_lines(symbols, &pcs);
    let fault = || -> PyResult<PyErr> {
        let facts = PyDict::new(py);
        facts.set_item("core", report.core)?;
        facts.set_item("pc", report.pc)?;
        facts.set_item("cause", report.kind.to_string())?;
        facts.set_item("address", report.address)?;
        facts.set_item("disassembly", report.disassembly.clone())?;
        facts.set_item("function", symbols.and_then(|s| s.frame(report.pc, false)))?;
        facts.set_item("backtrace", frames)?;
        facts.set_item("cycles", report.cycles)?;
        let class = match kind {
            Kind::Runaway => py.get_type::<RunawayError>(),
            _ => py.get_type::<KernelFaultError>(),
        };
        let value = class.call((e.to_string(),), Some(&facts))?;
        Ok(PyErr::from_value(value))
    };
    fault().unwrap_or_else(|failed| failed)
}

/// A testing-API error as the Python exception documented for it (docs/python.md
/// "Errors"): build failures [`BuildError`], kernel faults and runtime errors
/// [`KernelFaultError`], a shape function that failed or answered wrong
/// [`ShapeFunctionError`], a spent cycle budget [`RunawayError`], Ctrl-C `KeyboardInterrupt`,
/// checked-mode errors [`CheckFailedError`], anything about the call's own arguments
/// [`BadInputError`] (a `ValueError`).
fn error(e: ApiError) -> PyErr {
    use q7_run::op::RunError;
    let message = e.to_string();
    match &e {
        ApiError::Build(_) | ApiError::NoOp(_) | ApiError::NoSource => BuildError::new_err(message),
        ApiError::Check(_) => CheckFailedError::new_err(message),
        ApiError::Run(run) if matches!(**run, RunError::Shape(_) | RunError::ShapeAnswer(_)) => {
            ShapeFunctionError::new_err(message)
        }
        ApiError::Run(run) => match run.kind() {
            Kind::Fault => KernelFaultError::new_err(message),
            Kind::Runaway => RunawayError::new_err(message),
            Kind::Interrupted => PyKeyboardInterrupt::new_err(message),
            _ => BadInputError::new_err(message),
        },
        ApiError::Shape { .. } | ApiError::Bytes { .. } | ApiError::Dtype(_) => {
            BadInputError::new_err(message)
        }
    }
}

/// One op as [`Library::ops`] gives it: name, schema, and each argument's name and kind.
type OpEntry = (String, String, Vec<(String, String)>);

/// A library built by `q7emu build` (or [`build`]), opened once and kept: every call of one
/// of its ops runs on it without reading or checking the build again.
#[pyclass(module = "q7emu._q7emu", name = "Library", frozen)]
#[derive(Debug)]
struct Library {
    lib: Arc<q7_run::op::Library>,
    /// The library loaded on a cluster of its own, kept between calls (docs/python.md "Calls
    /// per second"); opened by the first call it serves. None when every call is to set a
    /// cluster up afresh (`keep_loaded=False`).
    session: Option<Arc<Mutex<Option<Session>>>>,
}

impl Library {
    fn new(lib: q7_run::op::Library, keep_loaded: bool) -> Library {
        Library {
            lib: Arc::new(lib),
            session: keep_loaded.then(|| Arc::new(Mutex::new(None))),
        }
    }
}

#[pymethods]
impl Library {
    /// Opens build directory `path`, checked as `q7emu run` checks it; with `keep_loaded`
    /// its calls run on the library kept loaded ([`Session`]), else each on a fresh cluster.
    #[new]
    #[pyo3(signature = (path, keep_loaded=true))]
    fn open(py: Python<'_>, path: PathBuf, keep_loaded: bool) -> PyResult<Library> {
        let lib = py
            .detach(|| q7_run::op::Library::open(&path))
            .map_err(|e| error(ApiError::from(e)))?;
        Ok(Library::new(lib, keep_loaded))
    }

    /// The build directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.lib.dir.clone()
    }

    /// The library's name (`q7build.json`).
    #[getter]
    fn name(&self) -> String {
        self.lib.info.library.clone()
    }

    /// The namespace of the library's `NEURON_LIBRARY(ns, m)` block (None for a build
    /// without shape sources).
    #[getter]
    fn namespace(&self) -> Option<String> {
        self.lib.info.namespace.clone()
    }

    /// Whether the ops run on all 8 cores.
    #[getter]
    fn multicore(&self) -> bool {
        self.lib.images.len() > 1
    }

    /// The ops: `(name, schema, [(argument, kind)])`, kind one of `tensor`, `scalar`,
    /// `float`, `int`, `bool`.
    fn ops(&self) -> Vec<OpEntry> {
        self.lib
            .info
            .ops
            .iter()
            .map(|op| {
                let args = op
                    .args
                    .iter()
                    .map(|a| (a.name.clone(), kind_name(a.kind).to_string()))
                    .collect();
                (op.name.clone(), op.schema.clone(), args)
            })
            .collect()
    }

    /// Checks tensor argument `what` of dtype `dtype` and `shape` before its data is copied:
    /// `BadInputError` for a dtype q7emu does not marshal or a tensor over the size limit of a
    /// `.npy` input (PLATFORM.md "Input file limits"), with `q7emu run`'s message.
    #[staticmethod]
    fn check_tensor(what: &str, dtype: &str, shape: Vec<u64>) -> PyResult<()> {
        let dtype = args::dtype_named(&format!("{what}: dtype"), dtype)?;
        q7_run::op::check_tensor_size(what, dtype, &shape).map_err(|e| error(ApiError::from(e)))?;
        Ok(())
    }

    /// Runs op `op` on `tensors` (`(what, dtype name, shape, array)` each, in schema order:
    /// `what` names the argument in errors, `array` is a C-contiguous `numpy.ndarray` of the
    /// tensor's bytes, copied once) and `scalars` (bool, int or float each); every option
    /// checked as `q7emu run` checks its flag ([`args`]). A dict with `output` (`(dtype
    /// name, shape, bytearray)`), `report` (the JSON of `q7emu run --json`), `summary` and
    /// `summary_outputs_only` (the text of a `q7_testing` snapshot, docs/testing.md),
    /// `findings` (checked mode's JSON `check` object, or None), `findings_text` (the
    /// findings as `q7emu run --check` prints them, or None) and `console` (each core's
    /// text). The cores run with the GIL released.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (op, tensors, scalars, *, threads=None, max_cycles=None, check=None, poison=None, out_dtype=None, out_shape=None, timing=None, trace_dir=None, timeline=None, profile=None, jit=None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        op: Bound<'py, PyAny>,
        tensors: Vec<(String, String, Vec<u64>, Bound<'py, PyAny>)>,
        scalars: Vec<Bound<'py, PyAny>>,
        threads: Option<Bound<'py, PyAny>>,
        max_cycles: Option<Bound<'py, PyAny>>,
        check: Option<Bound<'py, PyAny>>,
        poison: Option<Bound<'py, PyAny>>,
        out_dtype: Option<Bound<'py, PyAny>>,
        out_shape: Option<Bound<'py, PyAny>>,
        timing: Option<Bound<'py, PyAny>>,
        trace_dir: Option<Bound<'py, PyAny>>,
        timeline: Option<Bound<'py, PyAny>>,
        profile: Option<Bound<'py, PyAny>>,
        jit: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut run = Run::new(args::op_name(&op)?);
        if let Some(j) = jit {
            run = run.jit(args::flag("jit", &j)?);
        }
        if let Some(t) = threads {
            run = run.threads(args::threads(&t)?);
        }
        if let Some(c) = max_cycles {
            run = run.max_cycles(args::max_cycles(&c)?);
        }
        let check = match check {
            Some(c) => args::flag("check", &c)?,
            None => false,
        };
        if let Some(p) = poison {
            run = run.poison(args::poison(&p)?);
        }
        if let Some(d) = out_dtype {
            run = run.output_dtype(args::out_dtype(&d)?);
        }
        if let Some(s) = out_shape {
            run = run.output_shape(&args::out_shape(&s)?);
        }
        if let Some(t) = timing {
            run = run.timing_profile(args::timing_profile(py, &t)?);
        }
        if let Some(dir) = trace_dir {
            run = run.trace_dir(args::path("trace_dir", &dir)?);
        }
        if let Some(path) = timeline {
            run = run.timeline(args::path("timeline", &path)?);
        }
        let profile = match profile {
            Some(dir) => Some(args::path("profile", &dir)?),
            None => None,
        };
        if let Some(dir) = &profile {
            run = run.profile(dir);
        }
        run = args::with_scalars(run, &scalars)?;
        for (what, dtype, shape, array) in &tensors {
            let dtype = args::dtype_named(&format!("{what}: dtype"), dtype)?;
            // The size is checked before anything is copied.
            let bytes = q7_run::op::check_tensor_size(what, dtype, shape)
                .map_err(|e| error(ApiError::from(e)))?;
            let data = args::array_bytes(py, what, array, bytes)?;
            let t = q7_run::api::tensor_from_bytes(dtype, shape, data).map_err(error)?;
            run = run.input(t);
        }
        drop(tensors);
        let lib = Arc::clone(&self.lib);
        let session = self.session.clone();
        let (outcome, signal) = interruptible(py, move || {
            if check {
                return run.checked(&lib).map(|(r, f)| (r, Some(f)));
            }
            // The loaded library serves one call at a time: a call from another thread while
            // it is busy runs on a fresh cluster (the same outcome).
            let done = match session.as_deref().map(Mutex::try_lock) {
                Some(Ok(mut s)) => run.op_run_in(&lib, &mut s),
                _ => run.op_run(&lib),
            };
            done.map(|r| (r, None))
        });
        // An interrupted run is KeyboardInterrupt with the cores' report (error()); a run that
        // finished before the cores saw the request still raises the signal's exception.
        let (mut op_run, findings) = match (outcome, signal) {
            (Err(e), _) => return Err(run_error(py, e, &self.lib)),
            (Ok(_), Some(signal)) => return Err(signal),
            (Ok(done), None) => done,
        };
        let out = PyDict::new(py);
        out.set_item("report", op_run.json().to_string())?;
        // The summary of a q7_testing snapshot, with and without the per-core counters.
        let summary = q7_testing::Summary::of(&op_run);
        out.set_item("summary", summary.text())?;
        out.set_item("summary_outputs_only", summary.outputs_only().text())?;
        out.set_item(
            "findings",
            findings
                .as_ref()
                .map(|f| q7_observe::check::json(f).to_string()),
        )?;
        out.set_item(
            "findings_text",
            findings.as_deref().map(q7_observe::check::text),
        )?;
        let console: Vec<String> = op_run.console.iter().map(|c| c.text.clone()).collect();
        out.set_item("console", console)?;
        out.set_item("profile", profile)?;
        // The output's bytes go into a bytearray, which numpy then wraps without a copy; the
        // run's own copy is freed first thing after.
        let data = std::mem::take(&mut op_run.output.data);
        let (dtype, shape) = (op_run.output.dtype, op_run.output.shape.clone());
        drop(op_run);
        let bytes = PyByteArray::new(py, &data);
        drop(data);
        out.set_item("output", (dtype.numpy_name(), shape, bytes))?;
        Ok(out)
    }

    /// The output `(dtype name, shape)` a run of op `op` on tensors of these `(dtype name,
    /// shape)`s and `scalars` would have, without running it: its shape function's answer
    /// (else the first tensor's), as `q7emu run` decides it.
    fn output_spec(
        &self,
        py: Python<'_>,
        op: Bound<'_, PyAny>,
        tensors: Vec<(String, Vec<u64>)>,
        scalars: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<(String, Vec<u64>)> {
        let mut run = Run::new(args::op_name(&op)?);
        for (i, (dtype, shape)) in tensors.into_iter().enumerate() {
            let dtype = args::dtype_named(&format!("tensor argument {i}: dtype"), &dtype)?;
            run = run.input(HostTensor {
                dtype,
                shape,
                data: Vec::new(),
            });
        }
        run = args::with_scalars(run, &scalars)?;
        let lib = Arc::clone(&self.lib);
        let (dtype, shape) = py.detach(move || run.output_of(&lib)).map_err(error)?;
        Ok((dtype.numpy_name().to_string(), shape))
    }

    fn __repr__(&self) -> String {
        format!(
            "<q7emu library {:?} at {}>",
            self.lib.info.library,
            self.lib.dir.display()
        )
    }
}

/// Runs `work` on a thread of its own with the GIL released, while this thread waits and
/// looks at Python's signals: a Ctrl-C (SIGINT, whose handler only marks it) raises the
/// process-wide stop request every core looks at ([`q7_conventions::interrupt`]), so the cores stop
/// where they are and the run ends as interrupted; the request is lowered again, leaving the
/// library usable. `work`'s result, and the exception of a signal that came.
fn interruptible<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> (T, Option<PyErr>) {
    let stop = q7_conventions::interrupt::stop_request();
    std::thread::scope(|scope| {
        let (tx, mut rx) = std::sync::mpsc::channel();
        scope.spawn(move || {
            // The receiver waits for this until the scope ends.
            let _ = tx.send(work());
        });
        let mut signalled = None;
        loop {
            let wait = std::time::Duration::from_millis(50);
            // The receiver goes into the GIL-free wait and comes back (it is not Sync).
            let (got, back) = py.detach(move || (rx.recv_timeout(wait), rx));
            rx = back;
            match got {
                Ok(result) => {
                    stop.clear();
                    return (result, signalled);
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if signalled.is_none() {
                        if let Err(e) = py.check_signals() {
                            stop.request();
                            signalled = Some(e);
                        }
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    stop.clear();
                    panic!("the thread running the cores panicked");
                }
            }
        }
    })
}

/// The name of an argument kind, as `q7build.json` writes it.
fn kind_name(kind: ArgKind) -> &'static str {
    match kind {
        ArgKind::Tensor => "tensor",
        ArgKind::Scalar => "scalar",
        ArgKind::Float => "float",
        ArgKind::Int => "int",
        ArgKind::Bool => "bool",
    }
}

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/sdk_files.rs"));
}

/// Whether a test that builds kernels runs, by the workspace's one rule
/// (`q7_environment::requirement::rule`): `None` when the toolchain is installed, else the notice
/// to skip with; raises `RuntimeError` when `$Q7EMU_REQUIRE_TOOLCHAIN` makes its absence a
/// failure (python/tests/conftest.py).
#[pyfunction]
fn toolchain_skip_reason() -> PyResult<Option<String>> {
    q7_environment::requirement::Requirement::Toolchain
        .outcome()
        .map_err(pyo3::exceptions::PyRuntimeError::new_err)
}

/// The tables of `q7emu profile report` for the profile in `dir` (docs/profiling.md
/// "Reading a profile"): with `text`, as the command prints them; else as JSON, one object per
/// table (`core`, null for the cluster; `cycles`, `instructions`, `dispatches`; `rows`), each
/// row one of `function` (with `lines`, the line as `file:line (function)`), `self`,
/// `inclusive` (count objects as profile.json holds them) and `calls`. A directory that holds
/// no profile is `BadInputError` naming the file.
#[pyfunction]
#[pyo3(signature = (dir, *, top=20, inclusive=false, core=None, lines=false, text=false))]
fn profile_tables(
    dir: PathBuf,
    top: usize,
    inclusive: bool,
    core: Option<u32>,
    lines: bool,
    text: bool,
) -> PyResult<String> {
    use q7_observe::profile::report::{render, tables, Options, Order};
    let profile =
        q7_observe::profile::model::Profile::load(&dir).map_err(|e| args::bad(e.to_string()))?;
    let options = Options {
        top,
        order: if inclusive {
            Order::Inclusive
        } else {
            Order::Own
        },
        core,
        lines,
    };
    if text {
        return Ok(render(&profile, &options));
    }
    let out: Vec<serde_json::Value> = tables(&profile, &options)
        .into_iter()
        .map(|t| {
            serde_json::json!({
                "core": t.core,
                "cycles": t.total.cycles,
                "instructions": t.total.instructions,
                "dispatches": t.calls,
                "rows": t.rows.iter().map(|r| serde_json::json!({
                    "function": r.function,
                    "self": r.own,
                    "inclusive": r.inclusive,
                    "calls": r.calls,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(serde_json::Value::from(out).to_string())
}

/// The SDK directory builds compile against: `$Q7EMU_SDK` (or `$Q7_SDK`), else the default
/// ([`set_sdk_dir`]; examples/sdk/BUILD.md).
#[pyfunction]
fn sdk_dir() -> PathBuf {
    q7_kernel_build::sdk::locate(None)
}

/// The SDK the extension carries (python/build.rs): `(path under the SDK, contents)` of each
/// file, and a digest of them all.
#[pyfunction]
fn sdk_files(py: Python<'_>) -> (Vec<(&'static str, Bound<'_, PyBytes>)>, &'static str) {
    let files = embedded::SDK_FILES
        .iter()
        .map(|(path, bytes)| (*path, PyBytes::new(py, bytes)))
        .collect();
    (files, embedded::SDK_DIGEST)
}

/// Makes `dir` the default SDK of this process's builds (`q7emu/_sdk.py` writes the carried
/// SDK there); false when another was set first.
#[pyfunction]
fn set_sdk_dir(dir: PathBuf) -> bool {
    q7_kernel_build::sdk::set_default_dir(dir)
}

/// Runs the `q7emu` command line with `argv` (program name first): its exit code.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(move || q7_host::cli::main(argv.into_iter().map(Into::into)))
}

#[pymodule]
fn _q7emu(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Library>()?;
    loading::register(m)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(sdk_dir, m)?)?;
    m.add_function(wrap_pyfunction!(toolchain_skip_reason, m)?)?;
    m.add_function(wrap_pyfunction!(sdk_files, m)?)?;
    m.add_function(wrap_pyfunction!(set_sdk_dir, m)?)?;
    m.add_function(wrap_pyfunction!(profile_tables, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
