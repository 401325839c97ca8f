//! `q7emu run` refuses bad requests naming what and where, and reports a kernel's runtime
//! errors with the runtime's own line (PLATFORM.md "Runtime errors"), on the committed example
//! builds (no toolchain needed).

mod support;

use std::path::{Path, PathBuf};

use q7_tests::TempDir;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn example(rel: &str) -> String {
    root()
        .join("examples/kernels")
        .join(rel)
        .display()
        .to_string()
}

/// Runs `q7emu run ARGS`; exit success and stderr.
fn q7emu_run(args: &[&str]) -> (bool, String) {
    let out = support::q7emu().arg("run").args(args).output().unwrap();
    (out.status.success(), String::from_utf8(out.stderr).unwrap())
}

fn fails_with(args: &[&str], want: &str) {
    let (ok, err) = q7emu_run(args);
    assert!(!ok, "q7emu run {args:?} succeeded");
    assert_eq!(err.trim_end(), format!("q7emu: error: {want}"), "{args:?}");
}

/// `bytes` written to `name` in `dir`; its path.
fn scratch(dir: &TempDir, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

/// A C-ordered 1-D `.npy` of `n` little-endian elements of `descr`, all bytes `fill`.
fn npy(descr: &str, n: usize, size: usize, fill: u8) -> Vec<u8> {
    q7_tests::npy_1d(descr, size, &vec![fill; n * size])
}

#[test]
fn an_unknown_op_lists_the_librarys_ops() {
    fails_with(
        &[&example("vector_add/build"), "--op", "nope"],
        "library vector_add has no op nope; its ops: vector_add",
    );
}

#[test]
fn the_tensor_count_must_match_the_schema() {
    fails_with(
        &[
            &example("vector_add/build"),
            "--op",
            "vector_add",
            "--input",
            &example("vector_add/a.npy"),
        ],
        "op vector_add(Tensor a, Tensor b) -> Tensor takes 2 tensor argument(s), 1 given",
    );
}

#[test]
fn a_malformed_npy_is_named() {
    let dir = TempDir::new("run-cli");
    let bad = scratch(&dir, "bad.npy", b"garbage");
    let (ok, err) = q7emu_run(&[
        &example("relu_tcm/build"),
        "--op",
        "relu_forward",
        "--input",
        &bad,
    ]);
    assert!(!ok);
    assert_eq!(
        err.trim_end(),
        format!(
            "q7emu: error: {bad}: malformed .npy header at byte offset 0: expected the magic \
             string \"\\x93NUMPY\" that starts a .npy file, found \"garbage\""
        )
    );
}

#[test]
fn a_tensor_of_the_wrong_dtype_stops_the_kernel_with_the_runtimes_message() {
    let dir = TempDir::new("run-cli");
    let ints = scratch(&dir, "i32.npy", &npy("<i4", 1024, 4, 1));
    fails_with(
        &[
            &example("vector_add/build"),
            "--op",
            "vector_add",
            "--input",
            &ints,
            "--input",
            &example("vector_add/b.npy"),
        ],
        "core 0: kernel aborted with runtime error 7 (ABORT): kernel vector_add: an accessor of \
         Float elements on a Int tensor",
    );
}

#[test]
fn a_returned_tensor_unlike_the_output_is_a_named_mismatch() {
    let dir = TempDir::new("run-cli");
    let short = scratch(&dir, "short.npy", &npy("<f4", 3, 4, 0));
    fails_with(
        &[
            &example("relu_tcm/build"),
            "--op",
            "relu_forward",
            "--input",
            &short,
            "--out-shape",
            "5",
        ],
        "core 0: kernel aborted with runtime error 4 (RETURN_MISMATCH): kernel relu_forward: \
         returned a tensor whose dim 0 is 3 but the output's is 5",
    );
}

#[test]
fn a_runaway_kernel_is_stopped_by_its_cycle_budget() {
    let dir = TempDir::new("run-cli");
    let (ok, err) = q7emu_run(&[
        &example("relu_tcm/build"),
        "--op",
        "relu_forward",
        "--input",
        &scratch(&dir, "one.npy", &npy("<f4", 1, 4, 0)),
        "--max-cycles",
        "1000",
    ]);
    assert!(!ok);
    assert!(
        err.contains("core 0 stopped at pc ") && err.contains("cycle budget of 1000 exhausted"),
        "{err}"
    );
}
