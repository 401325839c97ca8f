//! The library/run API that the Python package and Rust tests call (docs/testing.md,
//! docs/python.md): build a library ([`Kernel`]) or open one ([`crate::op::Library::open`]),
//! make its inputs ([`tensor`], [`tensor_from_bytes`]) and run an op on it ([`Run`]), kept
//! loaded between calls or observed as asked; every failure one [`ApiError`].
//!
//! | module | what |
//! |---|---|
//! | `kernel` | [`Kernel`], building a library as `q7emu build` does, and [`toolchain_installed`] |
//! | `tensors` | [`tensor`] and [`tensor_from_bytes`], the inputs of a run, typed by [`Element`] |
//! | `run` | [`Run`], one op invocation on a library |
//! | `error` | [`ApiError`], why a kernel could not be built, a tensor made or an op run |

mod error;
mod kernel;
mod run;
mod tensors;

pub use error::ApiError;
pub use kernel::{toolchain_installed, Kernel};
pub use run::{Run, ScalarArg};
pub use tensors::{tensor, tensor_from_bytes, Element};
