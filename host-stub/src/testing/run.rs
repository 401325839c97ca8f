//! One op invocation: [`Run`] gathers its arguments in schema order and runs it through the
//! runner of [`crate::run_op`] (what `q7emu run` does), returning its [`Summary`] or the raw
//! [`OpRun`].

use std::fmt;

use super::{Library, Summary, TestingError, TimingModel};
use crate::firmware::CALL_BUDGET;
use crate::run_op::{self, OpRequest, OpRun};
use crate::tensor::dtype::Dtype;
use crate::tensor::HostTensor;
use crate::timing_profile::Profile;

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
        self.request.inputs.push(t.into());
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

    /// The output's shape (default: the first tensor argument's). Checked when the op runs,
    /// before anything is allocated: a shape the ARG_TENSOR descriptor describes (at most 8 dims
    /// of at most 65535, or 4 of at most 2³² − 1, whose product fits 64 bits), of at most 1 GiB
    /// (docs/cli.md "`q7emu run`"); anything else is a [`TestingError::Run`] naming the shape.
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
