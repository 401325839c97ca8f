//! One op invocation: [`Run`] gathers its arguments in schema order and runs it through the
//! runner of [`crate::op`] (what `q7emu run` does), returning its [`OpRun`] (q7-testing's `Run`
//! adds the summary a snapshot compares).

use super::ApiError;
use crate::op::Library;
use crate::op::{self, OpRequest, OpRun};
use q7_emulator::platform::ConsoleSize;
use q7_emulator::timing::TimingModel;
use q7_observe::check::finding::Finding;
use q7_observe::profile::ProfileSpec;
use q7_observe::trace::{ObserveSpec, TimelineSpec, TraceSpec};
use q7_runtime::firmware::CALL_BUDGET;
use q7_runtime::timing_profile::Profile;
use q7_tensor::dtype::Dtype;
use q7_tensor::HostTensor;
use std::path::Path;

/// One op invocation: its tensors and scalars in schema order, and how to run it.
#[derive(Debug, Clone)]
pub struct Run {
    request: OpRequest,
    observe: ObserveSpec,
}

impl Run {
    /// An invocation of op `op`, with no arguments yet, on [`op::DEFAULT_THREADS`] host
    /// threads, with the default cycle budget and timing model.
    pub fn new(op: impl Into<String>) -> Run {
        Run {
            request: OpRequest {
                op: op.into(),
                inputs: Vec::new(),
                scalars: Vec::new(),
                out_dtype: None,
                out_shape: None,
                threads: op::DEFAULT_THREADS,
                jit: q7_emulator::jit::default_on(),
                call_budget: CALL_BUDGET,
                timing: Profile::default(),
                progress: false,
                console: ConsoleSize::default(),
                debugger: None,
                poison: None,
            },
            observe: ObserveSpec::default(),
        }
    }

    /// The next Tensor argument.
    pub fn input(mut self, t: HostTensor) -> Run {
        self.request.inputs.push(t.into());
        self
    }

    /// The next scalar argument (Scalar, float, int or bool): a Rust number or bool, or text
    /// in the grammar `q7emu run --scalar` takes (docs/cli.md "Scalars",
    /// [`q7_tensor::scalar::parse_scalar`]), checked against the argument's type when the op runs.
    /// A Rust float stays a float (`2.0f64` is the double 2, where the text `"2"` given to a
    /// `Scalar` is the integer 2).
    pub fn scalar(mut self, value: impl ScalarArg) -> Run {
        self.request.scalars.push(value.scalar_text());
        self
    }

    /// The output's dtype (default: the first tensor argument's).
    pub fn output_dtype(mut self, dtype: Dtype) -> Run {
        self.request.out_dtype = Some(dtype);
        self
    }

    /// The output's shape (default: the first tensor argument's). Checked when the op runs,
    /// before anything is allocated: a shape the ARG_TENSOR descriptor describes (at most 8 dims
    /// of at most 65535, or 4 of at most 2³² − 1, whose product fits 64 bits), of at most 1 GiB
    /// (docs/cli.md "`q7emu run`"); anything else is a [`ApiError::Run`] naming the shape.
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

    /// Whether the run may use compiled code, tier 2 (default: on, unless `Q7EMU_JIT=off`);
    /// outputs and counters are the same either way (docs/jit.md).
    pub fn jit(mut self, on: bool) -> Run {
        self.request.jit = on;
        self
    }

    /// The cycle budget per core.
    pub fn max_cycles(mut self, cycles: u64) -> Run {
        self.request.call_budget = cycles;
        self
    }

    /// The size of each core's console ring, printf's buffer (PLATFORM.md "Console"): 0
    /// disables printf; by default 4 KiB.
    pub fn console(mut self, size: ConsoleSize) -> Run {
        self.request.console = size;
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

    /// The cores' timing profile: a model and the file it came from, as `q7emu run
    /// --timing FILE` loads it ([`Profile::load`], docs/timing.md).
    pub fn timing_profile(mut self, profile: Profile) -> Run {
        self.request.timing = profile;
        self
    }

    /// Checked mode (`q7emu run --check`, docs/checked-mode.md): [`Run::op_run`] (and
    /// q7-testing's `Run::on`) fail with [`ApiError::Check`] when checking finds an error-class bug;
    /// [`Run::checked`] returns the findings whatever they are.
    pub fn check(mut self) -> Run {
        self.observe.check = true;
        self
    }

    /// Write an instruction trace of every core the library runs on into `dir`, as `q7emu
    /// run --trace-dir` does (docs/tracing.md), with the default cap.
    pub fn trace_dir(mut self, dir: impl AsRef<Path>) -> Run {
        self.observe.trace = Some(TraceSpec {
            dir: dir.as_ref().to_path_buf(),
            cores: None,
            pc: None,
            cycles: None,
            max_bytes: Default::default(),
        });
        self
    }

    /// Write the run's timeline (Chrome trace-event JSON) to `path`, as `q7emu run
    /// --timeline` does (docs/tracing.md), with the default cap.
    pub fn timeline(mut self, path: impl AsRef<Path>) -> Run {
        self.observe.timeline = Some(TimelineSpec {
            path: path.as_ref().to_path_buf(),
            max_events: Default::default(),
        });
        self
    }

    /// Write an exact cycle profile of the run into `dir`, as `q7emu run --profile` does
    /// (docs/profiling.md); [`Run::profiled`] also returns it.
    pub fn profile(mut self, dir: impl AsRef<Path>) -> Run {
        self.observe.profile = Some(ProfileSpec {
            dir: dir.as_ref().to_path_buf(),
        });
        self
    }

    /// Runs on `lib` with its profile written into `dir` (docs/profiling.md): the raw
    /// outcome and the profile. Checked mode's errors fail the run as in [`Run::op_run`].
    pub fn profiled(
        &self,
        lib: &Library,
        dir: impl AsRef<Path>,
    ) -> Result<(OpRun, q7_observe::profile::model::Profile), ApiError> {
        let run = self.clone().profile(dir);
        let (out, summary) = op::run_observed(lib, &run.request, &run.observe)?;
        if let Some(findings) = &summary.check {
            if q7_observe::check::failed(findings) {
                return Err(ApiError::Check(q7_observe::check::text(findings)));
            }
        }
        let profile = summary
            .profile
            .expect("a profiled run's summary holds its profile")
            .profile;
        Ok((out, profile))
    }

    /// Fill each allocation the kernel makes (HBM heap, DATARAM heap, TCM pool) with
    /// `poison`'s word before it sees it, so that a read of memory nothing wrote shows in the
    /// output (docs/checked-mode.md "Poison").
    pub fn poison(mut self, poison: q7_emulator::platform::trace_port::Poison) -> Run {
        self.request.poison = Some(poison);
        self
    }

    /// Runs on `lib` in checked mode (docs/checked-mode.md): the raw outcome and every finding.
    pub fn checked(&self, lib: &Library) -> Result<(OpRun, Vec<Finding>), ApiError> {
        let spec = ObserveSpec {
            check: true,
            ..self.observe.clone()
        };
        let (run, summary) = op::run_observed(lib, &self.request, &spec)?;
        Ok((run, summary.check.unwrap_or_default()))
    }

    /// Runs on `lib`: the raw outcome (traces and timeline written when asked for).
    pub fn op_run(&self, lib: &Library) -> Result<OpRun, ApiError> {
        if !self.observe.check {
            let (run, _) = op::run_observed(lib, &self.request, &self.observe)?;
            return Ok(run);
        }
        let (run, findings) = self.checked(lib)?;
        if q7_observe::check::failed(&findings) {
            return Err(ApiError::Check(q7_observe::check::text(&findings)));
        }
        Ok(run)
    }

    /// The output dtype and shape the run would have on `lib` (the request's, the op's shape
    /// function's, or the first tensor's), without running it ([`op::output_of`]): the
    /// inputs' data is not looked at.
    pub fn output_of(&self, lib: &Library) -> Result<(Dtype, Vec<u64>), ApiError> {
        let (dtype, shape, _) = op::output_of(lib, &self.request)?;
        Ok((dtype, shape))
    }

    /// Runs on `lib` in `session`, the library kept loaded between calls
    /// ([`op::Session`]): the outcome of [`Run::op_run`], without setting the cluster up
    /// and loading the library again. The session is opened when there is none or it was set
    /// up for another timing model or console size; a checked, traced, timelined or poisoned
    /// run runs on a fresh cluster instead, as [`Run::op_run`].
    pub fn op_run_in(
        &self,
        lib: &Library,
        session: &mut Option<op::Session>,
    ) -> Result<OpRun, ApiError> {
        if self.observe.any() || self.request.poison.is_some() {
            return self.op_run(lib);
        }
        if !session.as_ref().is_some_and(|s| s.serves(&self.request)) {
            *session = Some(op::Session::open(lib, &self.request)?);
        }
        let s = session.as_mut().expect("opened above");
        Ok(s.run(lib, &self.request)?)
    }
}

/// A value [`Run::scalar`] takes: its text in the scalar grammar (docs/cli.md "Scalars").
pub trait ScalarArg {
    /// The value as `q7emu run --scalar` would be given it.
    fn scalar_text(&self) -> String;
}

macro_rules! integer_scalars {
    ($($t:ty)*) => {$(
        impl ScalarArg for $t {
            fn scalar_text(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

integer_scalars!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool str String);

impl ScalarArg for f64 {
    /// Rust's `Debug` form, which keeps a float one (`2.0`, `1e300`, `inf`, `NaN`).
    fn scalar_text(&self) -> String {
        format!("{self:?}")
    }
}

impl ScalarArg for f32 {
    /// Rust's `Debug` form of the `f32` (`0.1`, not the `f64` nearest to it).
    fn scalar_text(&self) -> String {
        format!("{self:?}")
    }
}

impl<T: ScalarArg + ?Sized> ScalarArg for &T {
    fn scalar_text(&self) -> String {
        (**self).scalar_text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use q7_tensor::arg_kind::ArgKind;
    use q7_tensor::descriptor::ScalarValue;
    use q7_tensor::scalar::parse_scalar;

    #[test]
    fn rust_values_keep_their_type_in_the_scalar_grammar() {
        let read = |v: &dyn ScalarArg| parse_scalar(ArgKind::Scalar, &v.scalar_text()).unwrap();
        assert_eq!(read(&2), ScalarValue::Int(2));
        assert_eq!(read(&2.0f64), ScalarValue::Double(2.0));
        assert_eq!(read(&1e300f64), ScalarValue::Double(1e300));
        assert_eq!(
            read(&f64::NEG_INFINITY),
            ScalarValue::Double(f64::NEG_INFINITY)
        );
        assert!(matches!(read(&f64::NAN), ScalarValue::Double(v) if v.is_nan()));
        assert_eq!(read(&0.1f32), ScalarValue::Double(0.1));
        assert_eq!(read(&true), ScalarValue::Int(1));
        assert_eq!(read(&"0x10"), ScalarValue::Int(16));
        assert_eq!(read(&String::from("0.5")), ScalarValue::Double(0.5));
        assert!(
            parse_scalar(ArgKind::Scalar, &u64::MAX.scalar_text()).is_err(),
            "past int64"
        );
    }
}
