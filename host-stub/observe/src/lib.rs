//! # q7-observe — what watches a run
//!
//! The observers of q7-runtime's [`q7_runtime::observer::Observer`] seam, one concern a module:
//!
//! | module | what |
//! |---|---|
//! | [`trace`] | instruction traces and timelines of a run, and the run's observer (docs/tracing.md) |
//! | [`check`] | checked mode: the per-core checker, its findings and their report (docs/checked-mode.md) |
//!
//! Observing never changes what a core computes or a cycle it counts.

pub mod check;
pub mod trace;
