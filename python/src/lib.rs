//! `q7emu._q7emu`: the extension module under the Python package `q7emu` (docs/python.md).
//!
//! It is a thin layer over `q7_host`'s Rust API: [`Library`] opens a build directory once and
//! runs its ops through [`q7_host::testing::Run`], as `q7emu run` does; [`build`] builds one
//! as `q7emu build --project` does; [`main`] is the `q7emu` command line itself. Tensors cross
//! as `(dtype name, shape, bytes)`, reports as the JSON of `q7emu run --json`: the package's
//! Python code turns them into numpy arrays and dicts, so the extension needs no numpy headers
//! and one stable-ABI wheel serves every CPython from 3.9 on. Errors are raised as the
//! exception classes of `q7emu.errors`, with q7emu's own messages.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyAnyMethods, PyBytes, PyDict};

use q7_emulator::platform::trace_port::Poison;
use q7_host::build::schema::ArgKind;
use q7_host::exit_code::{Kind, Outcome};
use q7_host::run_op::Session;
use q7_host::tensor::dtype::Dtype;
use q7_host::tensor::HostTensor;
use q7_host::testing::{self, Kernel, Run, TestingError};
use q7_host::timing_profile::Profile;

/// The exception of `q7emu.errors` named `class`, raised with `message`.
fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    match py.import("q7emu.errors").and_then(|m| m.getattr(class)) {
        Ok(cls) => match cls.call1((message.clone(),)) {
            Ok(e) => PyErr::from_value(e),
            Err(e) => e,
        },
        Err(e) => e,
    }
}

/// A run's error as [`error`] raises it, a `KernelFault` for a core's fault carrying the
/// fault's facts as attributes (docs/python.md "Errors"): `core`, `pc`, `cause`, `address`
/// (or None), `disassembly`, `function` (`name+0xoff (file:line)`, or None without symbols),
/// `backtrace` (the frames as the report lists them, innermost first) and `cycles`.
fn run_error(py: Python<'_>, e: TestingError, lib: &testing::Library) -> PyErr {
    use q7_host::firmware::FirmwareError;
    use q7_host::run_op::RunError;
    let report = match &e {
        TestingError::Run(run) => match &**run {
            RunError::Device {
                source: FirmwareError::Fault { report, .. },
                ..
            } => Some(report.clone()),
            _ => None,
        },
        _ => None,
    };
    let err = error(py, e);
    let Some(report) = report else {
        return err;
    };
    let symbols = lib.symbols.get(report.core as usize);
    let pcs: Vec<u32> = std::iter::once(report.pc)
        .chain(report.backtrace.iter().skip(1).map(|f| f.pc))
        .collect();
    let frames = q7_host::symbolize::Symbols::frame_lines(symbols, &pcs);
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("core", report.core)?;
        value.setattr("pc", report.pc)?;
        value.setattr("cause", report.kind.to_string())?;
        value.setattr("address", report.address)?;
        value.setattr("disassembly", report.disassembly.clone())?;
        value.setattr("function", symbols.and_then(|s| s.frame(report.pc, false)))?;
        value.setattr("backtrace", frames)?;
        value.setattr("cycles", report.cycles)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// A testing-API error as the Python exception documented for it (docs/python.md
/// "Errors"): build failures `BuildError`, kernel faults and runtime errors `KernelFault`, a
/// spent cycle budget `Runaway`, Ctrl-C `KeyboardInterrupt`, checked-mode errors
/// `CheckFailed`, anything about the call's own arguments `BadInput` (a `ValueError`).
fn error(py: Python<'_>, e: TestingError) -> PyErr {
    let message = e.to_string();
    let class = match &e {
        TestingError::Build(_) | TestingError::NoOp(_) | TestingError::NoSource => "BuildError",
        TestingError::Check(_) => "CheckFailed",
        TestingError::Run(run) => match run.kind() {
            Kind::Fault => "KernelFault",
            Kind::Runaway => "Runaway",
            Kind::Interrupted => return PyKeyboardInterrupt::new_err(message),
            _ => "BadInput",
        },
        TestingError::Shape { .. } | TestingError::Bytes { .. } | TestingError::Dtype(_) => {
            "BadInput"
        }
    };
    raise(py, class, message)
}

/// A scalar argument: Python's `bool`, `int` or `float` (tried in that order: a `bool` is
/// an `int` to Python).
#[derive(Debug, FromPyObject)]
enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

/// One op as [`Library::ops`] gives it: name, schema, and each argument's name and kind.
type OpEntry = (String, String, Vec<(String, String)>);

/// A library built by `q7emu build` (or [`build`]), opened once and kept: every call of one
/// of its ops runs on it without reading or checking the build again.
#[pyclass(module = "q7emu._q7emu", name = "Library", frozen)]
#[derive(Debug)]
struct Library {
    lib: Arc<testing::Library>,
    /// The library loaded on a cluster of its own, kept between calls (docs/python.md "Calls
    /// per second"); opened by the first call it serves. None when every call is to set a
    /// cluster up afresh (`keep_loaded=False`).
    session: Option<Arc<Mutex<Option<Session>>>>,
}

impl Library {
    fn new(lib: testing::Library, keep_loaded: bool) -> Library {
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
            .detach(|| testing::Library::open(&path))
            .map_err(|e| error(py, TestingError::from(e)))?;
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

    /// Runs op `op` on `tensors` (`(dtype name, shape, bytes)` each, in schema order) and
    /// `scalars`: a dict with `output` (`(dtype name, shape, bytes)`), `report` (the JSON of
    /// `q7emu run --json`), `summary` and `summary_outputs_only` (the text of a
    /// `q7_host::testing` snapshot, docs/testing.md), `findings` (checked mode's JSON `check`
    /// object, or None) and `console` (each core's text). The cores run with the GIL released.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (op, tensors, scalars, *, threads=2, max_cycles=None, check=false, poison=None, out_dtype=None, out_shape=None, timing=None, trace_dir=None, timeline=None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        op: String,
        tensors: Vec<(String, Vec<u64>, Bound<'py, PyBytes>)>,
        scalars: Vec<Scalar>,
        threads: usize,
        max_cycles: Option<u64>,
        check: bool,
        poison: Option<String>,
        out_dtype: Option<String>,
        out_shape: Option<Vec<u64>>,
        timing: Option<Bound<'py, PyAny>>,
        trace_dir: Option<PathBuf>,
        timeline: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut run = Run::new(op).threads(threads);
        if let Some(t) = timing {
            run = run.timing_profile(timing_profile(py, &t)?);
        }
        if let Some(dir) = trace_dir {
            run = run.trace_dir(dir);
        }
        if let Some(path) = timeline {
            run = run.timeline(path);
        }
        for (dtype, shape, bytes) in tensors {
            let dtype = dtype_named(py, &dtype)?;
            let t = testing::tensor_from_bytes(dtype, &shape, bytes.as_bytes().to_vec())
                .map_err(|e| error(py, e))?;
            run = run.input(t);
        }
        run = with_scalars(run, scalars);
        if let Some(c) = max_cycles {
            run = run.max_cycles(c);
        }
        if let Some(p) = poison {
            run = run.poison(match p.as_str() {
                "nan" => Poison::Nan,
                "pattern" => Poison::Pattern,
                _ => {
                    return Err(raise(
                        py,
                        "BadInput",
                        format!("poison {p:?}: the poison is \"nan\" or \"pattern\""),
                    ))
                }
            });
        }
        if let Some(d) = out_dtype {
            run = run.output_dtype(dtype_named(py, &d)?);
        }
        if let Some(s) = out_shape {
            run = run.output_shape(&s);
        }
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
        let (op_run, findings) = match (outcome, signal) {
            (Err(e), _) => return Err(run_error(py, e, &self.lib)),
            (Ok(_), Some(signal)) => return Err(signal),
            (Ok(done), None) => done,
        };
        let out = PyDict::new(py);
        let HostTensor { dtype, shape, data } = &op_run.output;
        out.set_item(
            "output",
            (dtype.numpy_name(), shape.clone(), PyBytes::new(py, data)),
        )?;
        out.set_item("report", op_run.json().to_string())?;
        // The summary of a q7_host::testing snapshot, with and without the per-core counters.
        let summary = testing::Summary::of(&op_run);
        out.set_item("summary", summary.text())?;
        out.set_item("summary_outputs_only", summary.outputs_only().text())?;
        out.set_item(
            "findings",
            findings.map(|f| q7_host::check::json(&f).to_string()),
        )?;
        let console: Vec<String> = op_run.console.iter().map(|c| c.text.clone()).collect();
        out.set_item("console", console)?;
        Ok(out)
    }

    /// The output `(dtype name, shape)` a run of op `op` on tensors of these `(dtype name,
    /// shape)`s and `scalars` would have, without running it: its shape function's answer
    /// (else the first tensor's), as `q7emu run` decides it.
    fn output_spec(
        &self,
        py: Python<'_>,
        op: String,
        tensors: Vec<(String, Vec<u64>)>,
        scalars: Vec<Scalar>,
    ) -> PyResult<(String, Vec<u64>)> {
        let mut run = Run::new(op);
        for (dtype, shape) in tensors {
            let dtype = dtype_named(py, &dtype)?;
            run = run.input(HostTensor {
                dtype,
                shape,
                data: Vec::new(),
            });
        }
        run = with_scalars(run, scalars);
        let lib = Arc::clone(&self.lib);
        let (dtype, shape) = py
            .detach(move || run.output_of(&lib))
            .map_err(|e| error(py, e))?;
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
/// process-wide stop request every core looks at ([`q7_host::interrupt`]), so the cores stop
/// where they are and the run ends as interrupted; the request is lowered again, leaving the
/// library usable. `work`'s result, and the exception of a signal that came.
fn interruptible<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> (T, Option<PyErr>) {
    let stop = q7_host::interrupt::stop_request();
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

/// `run` with `scalars` as its next scalar arguments.
fn with_scalars(mut run: Run, scalars: Vec<Scalar>) -> Run {
    for s in scalars {
        run = match s {
            Scalar::Bool(b) => run.scalar(b),
            Scalar::Int(i) => run.scalar(i),
            Scalar::Float(f) => run.scalar(f),
        };
    }
    run
}

/// The timing profile `timing` names: a `.json` or `.toml` file (a path), or a dict of
/// timing-model fields (docs/timing.md), as `q7emu run --timing` takes them; `BadInput` when
/// it is neither or the profile is refused.
fn timing_profile(py: Python<'_>, timing: &Bound<'_, PyAny>) -> PyResult<Profile> {
    let bad = |e: String| raise(py, "BadInput", e);
    if let Ok(path) = timing.extract::<PathBuf>() {
        return Profile::load(&path).map_err(|e| bad(e.to_string()));
    }
    if timing.is_instance_of::<PyDict>() {
        let text: String = py
            .import("json")?
            .call_method1("dumps", (timing,))?
            .extract()?;
        return Profile::parse(std::path::Path::new("timing.json"), text.into_bytes())
            .map_err(|e| bad(format!("timing (a dict): {e}")));
    }
    Err(bad(format!(
        "timing: a profile file's path or a dict of timing-model fields, not {}",
        timing.get_type().name()?
    )))
}

/// The dtype of numpy name `name`, or `BadInput`.
fn dtype_named(py: Python<'_>, name: &str) -> PyResult<Dtype> {
    Dtype::from_name(name).ok_or_else(|| {
        raise(
            py,
            "BadInput",
            format!("dtype {name}: not one q7emu marshals (float32, float16, bfloat16, int8, uint8, int16, int32, int64)"),
        )
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

/// Builds a library as `q7emu build --project` does, from `compute_srcs` and the
/// `NEURON_LIBRARY` block of `shape_srcs`, into `build_directory`, and opens it.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (name, compute_srcs, shape_srcs, build_directory, multicore=false, extra_cflags=Vec::new(), extra_include_paths=Vec::new(), verbose=false))]
fn build(
    py: Python<'_>,
    name: String,
    compute_srcs: Vec<PathBuf>,
    shape_srcs: Vec<PathBuf>,
    build_directory: PathBuf,
    multicore: bool,
    extra_cflags: Vec<String>,
    extra_include_paths: Vec<PathBuf>,
    verbose: bool,
) -> PyResult<Library> {
    let Some(first) = compute_srcs.first() else {
        return Err(raise(
            py,
            "BuildError",
            "compute_srcs is empty: a library needs a source file".to_string(),
        ));
    };
    let mut k = Kernel::new(first).name(name);
    for s in &compute_srcs[1..] {
        k = k.source(s);
    }
    for s in &shape_srcs {
        k = k.shape(s);
    }
    if multicore {
        k = k.multicore();
    }
    for f in extra_cflags {
        k = k.cflag(f);
    }
    for i in &extra_include_paths {
        k = k.include(i);
    }
    if verbose {
        k = k.verbose();
    }
    let lib = py
        .detach(move || k.build(&build_directory))
        .map_err(|e| error(py, e))?;
    Ok(Library::new(lib, true))
}

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/sdk_files.rs"));
}

/// The SDK directory builds compile against: `$Q7_SDK`, else the default ([`set_sdk_dir`];
/// examples/sdk/BUILD.md).
#[pyfunction]
fn sdk_dir() -> PathBuf {
    q7_host::build::sdk::locate(None)
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
    q7_host::build::sdk::set_default_dir(dir)
}

/// Runs the `q7emu` command line with `argv` (program name first): its exit code.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(move || q7_host::cli::main(argv.into_iter().map(Into::into)))
}

#[pymodule]
fn _q7emu(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Library>()?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(sdk_dir, m)?)?;
    m.add_function(wrap_pyfunction!(sdk_files, m)?)?;
    m.add_function(wrap_pyfunction!(set_sdk_dir, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
