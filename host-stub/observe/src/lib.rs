//! # q7-observe — what watches a run
//!
//! The observers of q7-runtime's [`q7_runtime::observer::Observer`] seam, one concern a module:
//!
//! | module | what |
//! |---|---|
//! | [`trace`] | instruction traces and timelines of a run, and the run's observer (docs/tracing.md) |
//! | [`check`] | checked mode: the per-core checker, its findings and their report (docs/checked-mode.md) |
//! | [`profile`] | exact cycle profiles: attribution, `profile.json`, folded stacks, reports (docs/profiling.md) |
//!
//! Observing never changes what a core computes or a cycle it counts.

pub mod check;
pub mod profile;
pub mod trace;
