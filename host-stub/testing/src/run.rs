//! One op invocation for a snapshot test: [`Run`] is q7-run's [`q7_run::api::Run`] (its
//! arguments, options and raw runs, reached through `Deref`) with [`Run::on`], the [`Summary`]
//! a snapshot compares. Its builder methods are q7-run's, each returning this `Run`.

use std::ops::Deref;
use std::path::Path;

use q7_emulator::platform::trace_port::Poison;
use q7_emulator::platform::ConsoleSize;
use q7_emulator::timing::TimingModel;
use q7_run::api::ScalarArg;
use q7_run::op::Library;
use q7_runtime::timing_profile::Profile;
use q7_tensor::dtype::Dtype;
use q7_tensor::HostTensor;

use super::{Summary, TestingError};

/// One op invocation: its tensors and scalars in schema order, and how to run it.
#[derive(Debug, Clone)]
pub struct Run(q7_run::api::Run);

impl Deref for Run {
    type Target = q7_run::api::Run;

    fn deref(&self) -> &q7_run::api::Run {
        &self.0
    }
}

/// Each builder method of [`q7_run::api::Run`], returning this crate's [`Run`].
macro_rules! builder {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        impl Run {
            $(
                #[doc = concat!("[`q7_run::api::Run::", stringify!($name), "`].")]
                pub fn $name(self, $($arg: $ty),*) -> Run {
                    Run(self.0.$name($($arg),*))
                }
            )*
        }
    };
}

builder! {
    input(t: HostTensor);
    scalar(value: impl ScalarArg);
    output_dtype(dtype: Dtype);
    output_shape(shape: &[u64]);
    threads(threads: usize);
    jit(on: bool);
    max_cycles(cycles: u64);
    console(size: ConsoleSize);
    timing(timing: TimingModel);
    timing_profile(profile: Profile);
    check();
    trace_dir(dir: impl AsRef<Path>);
    timeline(path: impl AsRef<Path>);
    poison(poison: Poison);
}

impl Run {
    /// An invocation of op `op` ([`q7_run::api::Run::new`]).
    pub fn new(op: impl Into<String>) -> Run {
        Run(q7_run::api::Run::new(op))
    }

    /// Runs on `lib`: the summary.
    pub fn on(&self, lib: &Library) -> Result<Summary, TestingError> {
        self.op_run(lib).map(|r| Summary::of(&r))
    }

    /// The run of q7-run's API this is.
    pub fn into_inner(self) -> q7_run::api::Run {
        self.0
    }
}
