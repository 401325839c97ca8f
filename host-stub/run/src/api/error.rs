//! Why a kernel could not be built, a tensor made or an op run: the one error of the API
//! (docs/testing.md, docs/python.md).

use crate::op::RunError;
use q7_kernel_build::BuildError;
use q7_tensor::dtype::Dtype;

/// Why a kernel could not be built, a tensor made or an op run.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
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
    /// The build failed (boxed, as is a run's error, so that a `Result` of the testing API
    /// stays small).
    #[error(transparent)]
    Build(Box<BuildError>),
    /// The run failed.
    #[error(transparent)]
    Run(Box<RunError>),
    /// A checked run ([`super::Run::check`]) found an error-class bug: the findings as
    /// `q7emu run --check` prints them (docs/checked-mode.md).
    #[error("checked mode found bugs:\n{0}")]
    Check(String),
}

impl From<BuildError> for ApiError {
    fn from(e: BuildError) -> ApiError {
        ApiError::Build(Box::new(e))
    }
}

impl From<RunError> for ApiError {
    fn from(e: RunError) -> ApiError {
        ApiError::Run(Box::new(e))
    }
}
