//! # q7-testing — snapshot tests of custom-op kernels
//!
//! Snapshot tests of custom-op kernels: build (or open) a library, run one of its ops on
//! tensors on the emulated cluster, and compare a [`Summary`] of the run with a committed
//! snapshot through insta. Building, inputs and runs are q7-run's API ([`q7_run::api`], which
//! the Python package calls too), re-exported here; this crate adds the summaries and their
//! snapshots.
//!
//! ```no_run
//! use q7_testing::{tensor, Kernel, Run, TestingError};
//!
//! # fn main() -> Result<(), TestingError> {
//! let lib = Kernel::new("affine.cpp")
//!     .op("affine(Tensor x, float a, float b) -> Tensor")
//!     .build("target/affine-build")?;
//! let x = tensor(&[4], &[-1.5f32, 0.0, 0.25, 3.0])?;
//! let summary = Run::new("affine").input(x).scalar(2).scalar(0.5).on(&lib)?;
//! q7_testing::assert_summary_snapshot!("affine", summary);
//! # Ok(())
//! # }
//! ```
//!
//! - [`Kernel`] builds C++ sources with the build driver of [`q7_kernel_build`] (the same steps
//!   and outputs as `q7emu build`; it needs the Xtensa toolchain, see
//!   [`toolchain_installed`]); [`Library::open`] opens a build directory made earlier,
//!   checked as `q7emu run` checks it (docs/cli.md "`q7emu run`").
//! - [`tensor`] makes an input from a slice and a shape, the dtype following the element
//!   type ([`Element`]); [`tensor_from_bytes`] takes any marshallable dtype and raw bytes.
//!   (ndarray is not supported directly: a standard-layout array is `tensor(a.shape(),
//!   a.as_slice().unwrap())` with its shape as `u64`s, and leaving ndarray out keeps its
//!   dependency tree out of every build of the host.)
//! - [`Run`] runs one op through the runner of [`q7_run::op`] and returns its
//!   [`Summary`]; [`Run::op_run`](q7_run::api::Run::op_run) returns the raw [`OpRun`](q7_run::op::OpRun).
//! - [`Summary`] prints (`Display`) and serialises (serde) the op, the output's dtype and
//!   shape, its values — every one when there are at most [`LISTED_ELEMENTS`], else the
//!   [`DIGEST`] of its bytes, the first and last [`HEAD_TAIL`] values and statistics — and
//!   each core's instructions and cycles on lines of their own, so that a snapshot diff names
//!   a changed cycle count as such. [`Summary::outputs_only`] leaves the counters out.
//!
//! # Where snapshots live
//!
//! [`assert_summary_snapshot!`](crate::assert_summary_snapshot) (the text form) and
//! [`assert_summary_yaml_snapshot!`](crate::assert_summary_yaml_snapshot) (YAML) assert with
//! the settings of [`snapshot_settings!`](crate::snapshot_settings!): snapshots go to the
//! [`SNAPSHOT_DIR`] folder of the calling crate's workspace root ([`snapshot_dir`]), named
//! `<test crate and module>__<name>.snap`. Any other insta assertion uses the same folder
//! after `let _dir = q7_testing::snapshot_settings!().bind_to_scope();`.
//!
//! `cargo insta review` and `cargo insta test` look for snapshots under package directories
//! only: when the workspace root is not itself a package (a virtual manifest), make the
//! snapshot folder one — this repository's `snapshots/Cargo.toml` is such a package — or give
//! [`snapshot_settings`](crate::snapshot_settings()) another crate's directory.
//!
//! insta's usual rules apply: a mismatch fails the test with a diff; outside CI the new
//! value is written beside the snapshot as `.snap.new` for `cargo insta review`; with `CI`
//! set nothing is written; `INSTA_UPDATE=always` accepts new values in place.
//!
//! # Leaving the counters out
//!
//! `summary.outputs_only()` drops the per-core lines from both forms. The YAML form can
//! instead keep the cores and mask their counts with an insta redaction (insta's
//! `redactions` feature):
//!
//! ```ignore
//! let _dir = q7_testing::snapshot_settings!().bind_to_scope();
//! insta::assert_yaml_snapshot!("affine-redacted", summary, {
//!     ".cores[].cycles" => "[cycles]",
//!     ".cores[].instructions" => "[instructions]",
//! });
//! ```
//!
//! (examples/snapshot-test/tests/outputs_only.rs runs both ways.)
//!
//! # Modules
//!
//! | module | what |
//! |---|---|
//! | `run` | [`Run`], one op invocation on a [`Library`], and its summary ([`Run::on`]) |
//! | `element` | [`element_text`], how one output element reads and prints |
//! | `summary` | [`Summary`], what a run computed, in its text and serialised forms |
//! | `snapshot` | [`snapshot_dir`], [`snapshot_settings`](crate::snapshot_settings()) and the assertion macros |

mod element;
mod run;
mod snapshot;
mod summary;

pub use element::element_text;
pub use q7_run::api::{
    tensor, tensor_from_bytes, toolchain_installed, ApiError as TestingError, Element, Kernel,
    ScalarArg,
};
pub use run::Run;
pub use snapshot::{snapshot_dir, snapshot_settings, SNAPSHOT_DIR};
pub use summary::{
    digest, CoreCounts, Digest, Summary, Values, DIGEST, HEAD_TAIL, LISTED_ELEMENTS,
    VALUES_PER_LINE,
};

/// The insta crate the assertion macros expand to.
pub use insta;
pub use q7_emulator::platform::ConsoleSize;
pub use q7_emulator::timing::TimingModel;
pub use q7_run::op::Library;
