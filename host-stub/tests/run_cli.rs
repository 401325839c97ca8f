//! `q7emu run` refuses bad requests naming what and where, and reports a kernel's runtime
//! errors with the runtime's own line (PLATFORM.md "Runtime errors"), on the committed example
//! builds (no toolchain needed); and reports what a kernel printed in every outcome
//! (docs/run-report.md "The console", with a kernel built here: needs the toolchain, skips or
//! fails as `Q7_REQUIRE_TOOLCHAIN` says).

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
    assert!(
        err.starts_with(&format!("q7emu: error: {bad}: malformed .npy: ")),
        "{err}"
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

/// A kernel that prints 200 numbered lines and then a terminal-title sequence (more than the
/// 4 KiB console ring holds), then by its input's first element returns (0), stores to
/// unmapped memory (1) or spins until its cycle budget runs out (2).
const PRINTING_KERNEL: &str = "\
#include <torch/torch.h>
#include <stdio.h>

torch::Tensor k(const torch::Tensor &x)
{
\tauto in = x.accessor<float, 1>();
\tfloat mode = in[0];
\tfor (int i = 0; i < 200; i++)
\t\tprintf(\"line %03d of what the kernel printed\\n\", i);
\tprintf(\"\\x1b]0;pwned\\x07\\n\");
\tif (mode == 1.0f)
\t\t*(volatile int *)0x10000000 = 7;
\tvolatile int spin = mode == 2.0f;
\twhile (spin)
\t\t;
\treturn x;
}
";

/// Everything [`PRINTING_KERNEL`] prints.
fn printed() -> String {
    let mut s: String = (0..200)
        .map(|i| format!("line {i:03} of what the kernel printed\n"))
        .collect();
    s.push_str("\x1b]0;pwned\x07\n");
    s
}

#[test]
fn a_kernels_console_is_in_every_report_marked_where_bytes_were_dropped_and_escaped_on_a_terminal()
{
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("run-console");
    let build = support::build_k(&dir, PRINTING_KERNEL, "build", &[]);
    let input = |mode: f32| {
        let p = dir.join(&format!("mode{mode}.npy"));
        std::fs::write(
            &p,
            q7_tests::npy_1d("<f4", 4, &[mode.to_le_bytes(); 4].concat()),
        )
        .unwrap();
        p
    };
    let run = |mode: f32, extra: &[&str]| {
        let mut cmd = support::q7emu();
        cmd.arg("run")
            .arg(&build)
            .args(["--op", "k", "--input"])
            .arg(input(mode))
            .args(extra);
        cmd
    };
    // The 4 KiB ring (PLATFORM.md "Console") keeps the newest 4096 bytes.
    let all = printed();
    let dropped = all.len() - 4096;
    let kept = &all[dropped..];
    let shown = format!("console of core 0:\n… {dropped} bytes dropped\n{kept}");

    // Success: the summary ends with the console, exact in a pipe; the JSON report has the
    // bytes the ring holds and how many it dropped.
    let o = run(0.0, &[]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8(o.stdout).unwrap().ends_with(&shown));
    let o = run(0.0, &["--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["cores"][0]["console"], kept);
    assert_eq!(doc["cores"][0]["console_dropped"], dropped);

    // A fault and a runaway: the error report ends with the console, with --json too.
    for (mode, extra, code) in [
        (1.0, vec![], 129),
        (1.0, vec!["--json"], 129),
        (2.0, vec!["--max-cycles", "0x800000"], 131),
    ] {
        let o = run(mode, &extra).output().unwrap();
        assert_eq!(o.status.code(), Some(code), "mode {mode} {extra:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(
            err.starts_with("q7emu: error: core 0 faulted while running kernel:\n"),
            "{err}"
        );
        assert!(
            err.ends_with(&format!("{shown}\n")),
            "mode {mode} {extra:?}: {err}"
        );
        assert!(o.stdout.is_empty());
    }

    // On a terminal the title sequence is shown, not obeyed: in the summary and in an error.
    for (mode, code) in [(0.0, 0), (1.0, 129)] {
        let (status, out) = support::on_terminal(run(mode, &[]));
        assert_eq!(status, Some(code));
        let out = String::from_utf8(out).unwrap();
        assert!(!out.contains('\x1b'), "mode {mode}: {out:?}");
        assert!(
            out.contains("line 199 of what the kernel printed\n\\x1b]0;pwned\\x07\n"),
            "mode {mode}: {out:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Scalars (docs/cli.md "Scalars").

/// `q7emu run` of the committed scaled_transpose build, `(Tensor x, Scalar scale, int bias)`,
/// with `scalars` (as its README runs it): success and stderr.
fn scaled_transpose(scalars: &[&str]) -> (bool, String) {
    let x = example("scaled_transpose/x.npy");
    let mut args = vec![
        example("scaled_transpose/build"),
        "--op".into(),
        "scaled_transpose".into(),
        "--input".into(),
        x,
    ];
    for s in scalars {
        args.extend(["--scalar".to_string(), s.to_string()]);
    }
    args.extend(["--out-shape".to_string(), "40,24".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    q7emu_run(&args)
}

#[test]
fn docs_cli_md_scalars_table_is_the_grammar_of_each_type() {
    use q7_host::build::schema::ArgKind;
    let doc = q7_tests::doc::read("docs/cli.md");
    let rows = q7_tests::doc::table_after(&doc, "**Scalars.**");
    let ours: Vec<(String, String)> =
        [ArgKind::Int, ArgKind::Float, ArgKind::Bool, ArgKind::Scalar]
            .into_iter()
            .map(|k| {
                let spelled: Vec<String> = k.spellings().iter().map(|s| format!("`{s}`")).collect();
                let name = match spelled.as_slice() {
                    [one] => one.clone(),
                    [first, rest @ ..] => format!("{first} ({})", rest.join(", ")),
                    [] => unreachable!(),
                };
                (name, q7_host::number::accepted_forms(k).to_string())
            })
            .collect();
    let theirs: Vec<(String, String)> = rows.iter().map(|r| (r[0].clone(), r[1].clone())).collect();
    assert_eq!(theirs, ours);
}

#[test]
fn a_scalar_out_of_its_type_is_refused_as_docs_cli_md_quotes() {
    let (ok, err) = scaled_transpose(&["1e400", "1"]);
    assert!(!ok);
    let doc = q7_tests::doc::read("docs/cli.md");
    let quoted = q7_tests::doc::fenced(q7_tests::doc::section(&doc, "## Conventions"), "text");
    assert!(quoted.contains(&err), "docs/cli.md quotes {err:?}");
    let (ok, err) = scaled_transpose(&["2", "0.5"]);
    assert!(!ok);
    assert_eq!(
        err.trim_end(),
        "q7emu: error: op scaled_transpose(Tensor x, Scalar scale, int bias) -> Tensor: argument \
         bias (int) cannot be \"0.5\": not an integer: an int is an integer, decimal or 0x hex \
         with an optional sign (-3, 0x10, -0x10), from -9223372036854775808 to \
         9223372036854775807"
    );
}

#[test]
fn hex_integers_and_booleans_are_scalars_where_the_type_takes_them() {
    // README.md: every numeric value takes 0x hex; a Scalar takes true (the int64 1).
    let (ok, err) = scaled_transpose(&["true", "0x10"]);
    assert!(ok, "{err}");
    let (ok, err) = scaled_transpose(&["0x2", "-0x10"]);
    assert!(ok, "{err}");
}

/// A `q7build.json` whose op lists other arguments than its schema declares is refused naming
/// both, rather than counted by one and named by the other ("takes 0 tensor argument(s)" for
/// an op whose schema has two).
#[test]
fn an_ops_args_that_differ_from_its_schema_are_refused_naming_both() {
    let dir = TempDir::new("run-op-args");
    let build = dir.join("build");
    std::fs::create_dir_all(&build).unwrap();
    for f in std::fs::read_dir(example("vector_add/build")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, build.join(f.file_name().unwrap())).unwrap();
    }
    let info = build.join("q7build.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&info).unwrap()).unwrap();
    json["ops"][0]["args"] = serde_json::json!([]);
    std::fs::write(&info, json.to_string()).unwrap();
    fails_with(
        &[
            &build.display().to_string(),
            "--op",
            "vector_add",
            "--input",
            &example("vector_add/a.npy"),
            "--input",
            &example("vector_add/b.npy"),
        ],
        &format!(
            "{}: op \"vector_add\": `args` lists no arguments but its `schema` \
             \"vector_add(Tensor a, Tensor b) -> Tensor\" declares Tensor a, Tensor b",
            info.display()
        ),
    );
}
