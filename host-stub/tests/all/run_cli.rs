//! `q7emu run` refuses bad requests naming what and where, and reports a kernel's runtime
//! errors with the runtime's own line (PLATFORM.md "Runtime errors"), on the committed example
//! builds (no toolchain needed): output shapes checked before anything is allocated, build
//! directories whose files are not what a build writes, images of another library, `.npy`
//! headers that lie (docs/cli.md "`q7emu run`"); and reports what a kernel printed in every
//! outcome (docs/run-report.md "The console", with a kernel built here: needs the toolchain,
//! skips or fails as `Q7EMU_REQUIRE_TOOLCHAIN` says).

use crate::support;

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

/// The arguments of `q7emu run` of the committed vector_add's op on its inputs, from build
/// directory `build`.
fn vector_add_args(build: &str) -> Vec<String> {
    [
        build,
        "--op",
        "vector_add",
        "--input",
        &example("vector_add/a.npy"),
        "--input",
        &example("vector_add/b.npy"),
    ]
    .map(String::from)
    .to_vec()
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
    // A kernel that only runs long is told how to give it more (docs/cli.md "Timing").
    assert!(
        err.contains("needs a larger budget: --max-cycles, max_cycles= in Python"),
        "{err}"
    );
}

/// A call's budget counts that call's own cycles (docs/cli.md "Timing"): a runaway stops when
/// the call has spent exactly its budget, so the cycle count its report shows (the core's since
/// the load, the start symbols' included) is the budget plus the same start-up cycles for any
/// budget.
#[test]
fn a_budget_counts_the_calls_own_cycles_and_the_report_the_cores_since_the_load() {
    let reported = |budget: u64| -> u64 {
        let (ok, err) = q7emu_run(&[
            &example("relu_tcm/build"),
            "--op",
            "relu_forward",
            "--input",
            &example("relu_multicore/input.npy"),
            "--max-cycles",
            &budget.to_string(),
        ]);
        assert!(
            !ok && err.contains(&format!("cycle budget of {budget} exhausted")),
            "{err}"
        );
        let line = err
            .lines()
            .find(|l| l.trim_start().starts_with("ps "))
            .expect(&err);
        let (_, cycles) = line.rsplit_once(" cycles ").expect(line);
        cycles.trim().parse().expect(line)
    };
    let (a, b) = (reported(100_000), reported(200_000));
    assert!(a > 100_000 && a - 100_000 < 10_000, "{a}");
    assert_eq!(
        b - 200_000,
        a - 100_000,
        "the same start-up cycles before either call"
    );
}

/// The default budget is a bare-metal run's, 10^10 cycles (about 7 s of the 1.4 GHz core), as
/// docs/cli.md "Timing" and every subcommand's help state: a correct kernel of a few seconds on
/// the device (an RWKV-5 forward at (1, 64, 4, 64) takes 3.1 × 10^9) is never stopped by it.
#[test]
fn the_default_cycle_budget_is_ten_to_the_tenth_cycles_as_documented() {
    assert_eq!(q7_runtime::firmware::CALL_BUDGET, 10_000_000_000);
    assert_eq!(
        q7_runtime::firmware::CALL_BUDGET,
        q7_emulator::baremetal::DEFAULT_MAX_CYCLES
    );
    let doc = include_str!("../../../docs/cli.md");
    assert!(doc.contains("by default 10¹⁰\ncycles a call, about 7 s of the 1.4 GHz core"));
    assert!(!doc.contains("[default: 2000000000]"));
    assert_eq!(doc.matches("[default: 10000000000]").count(), 4);
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

#[q7_requires::needs(toolchain)]
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

    // --console-bytes sizes the ring: 64 KiB holds it all; 0 holds nothing (printf disabled),
    // and the summary says how much was lost.
    let stdout = |extra: &[&str]| {
        let o = run(0.0, extra).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    assert!(stdout(&["--console-bytes", "65536"]).ends_with(&format!("console of core 0:\n{all}")));
    assert!(stdout(&["--console-bytes", "0"]).ends_with(&format!(
        "console of core 0:\n… {} bytes dropped\n",
        all.len()
    )));

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

#[test]
fn a_console_ring_is_0_or_a_power_of_two_up_to_128_kib() {
    for bytes in ["3000", "262144"] {
        let (ok, err) = q7emu_run(&[
            &example("relu_tcm/build"),
            "--op",
            "relu_forward",
            "--console-bytes",
            bytes,
        ]);
        assert!(!ok);
        assert!(
            err.contains(&format!(
                "error: invalid value '{bytes}' for '--console-bytes <BYTES>': console ring of \
                 {bytes} bytes: must be 0 (printf disabled) or a power of two up to 131072 bytes"
            )),
            "{err}"
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
    use q7_tensor::arg_kind::ArgKind;
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
                (name, q7_tensor::scalar::accepted_forms(k).to_string())
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
    let args = vector_add_args(&build.display().to_string());
    fails_with(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        &format!(
            "{}: ops[0].args: lists (), but ops[0].schema declares (Tensor a, Tensor b)",
            info.display()
        ),
    );
}

/// A copy of the committed example build `name` in `dir/<as_name>`; its path.
fn copy_build(dir: &TempDir, name: &str, as_name: &str) -> PathBuf {
    let to = dir.join(as_name);
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(root().join("examples/kernels").join(name).join("build")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    to
}

/// Rewrites the JSON file `path` with `change`.
fn edit_json(path: &Path, change: impl FnOnce(&mut serde_json::Value)) {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    change(&mut v);
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

/// `q7emu ARGS`: the exit code and stderr.
fn q7emu_status(args: &[&str]) -> (Option<i32>, String) {
    let out = support::q7emu().args(args).output().unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn an_output_shape_is_checked_before_anything_is_allocated() {
    // PLATFORM.md "ARG_TENSOR descriptor": 8 dims of <= 65535, or 4 of <= 2^32 - 1, whose
    // product is num_elem (a u64); docs/cli.md: an output is at most 1 GiB.
    let relu = example("relu_tcm/build");
    let input = example("relu_multicore/input.npy");
    for (shape, want) in [
        (
            "65536,65536,65536,65536",
            "output: shape [65536, 65536, 65536, 65536] cannot be described: the product of its \
             dims is over 2^64 - 1, more than num_elem holds",
        ),
        (
            "4294967295,4294967295",
            "output: shape [4294967295, 4294967295] of float32: more than 2^64 - 1 \
             bytes, over the 1073741824-byte limit of a tensor (that of a .npy input, \
             PLATFORM.md \"Input file limits\")",
        ),
        (
            "1000000000",
            "output: shape [1000000000] of float32: 4000000000 bytes, over the 1073741824-byte \
             limit of a tensor (that of a .npy input, PLATFORM.md \"Input file limits\")",
        ),
        (
            "2,2,2,2,70000",
            "output: shape [2, 2, 2, 2, 70000] cannot be described: at most 8 dims of <= 65535 \
             each, or at most 4 dims of <= 4294967295 each",
        ),
        (
            "1,1,1,1,1,1,1,1,1",
            "output: shape [1, 1, 1, 1, 1, 1, 1, 1, 1] cannot be described: at most 8 dims of \
             <= 65535 each, or at most 4 dims of <= 4294967295 each",
        ),
    ] {
        let (code, err) = q7emu_status(&[
            "run",
            &relu,
            "--op",
            "relu_forward",
            "--input",
            &input,
            "--out-shape",
            shape,
        ]);
        assert_eq!(code, Some(1), "{shape}: {err}");
        assert_eq!(err, format!("q7emu: error: {want}\n"), "{shape}");
    }
    // The testing API's output_shape goes through the same check.
    let lib = q7_testing::Library::open(&root().join("examples/kernels/relu_tcm/build")).unwrap();
    let x = q7_testing::tensor(&[2], &[1.0f32, -1.0]).unwrap();
    let e = q7_testing::Run::new("relu_forward")
        .input(x)
        .output_shape(&[1 << 20, 1 << 20])
        .on(&lib)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "output: shape [1048576, 1048576] of float32: 4398046511104 bytes, over the \
         1073741824-byte limit of a tensor (that of a .npy input, PLATFORM.md \"Input file \
         limits\")"
    );
}

#[test]
fn an_input_the_descriptor_cannot_describe_is_refused_before_it_is_read() {
    // Nine dims: the descriptor holds eight (PLATFORM.md "ARG_TENSOR descriptor").
    let dir = TempDir::new("run-cli-nine-dims");
    let h = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 2), }";
    let mut f = b"\x93NUMPY\x01\x00".to_vec();
    f.extend_from_slice(&(h.len() as u16).to_le_bytes());
    f.extend_from_slice(h.as_bytes());
    f.extend_from_slice(&[0; 8]);
    let path = scratch(&dir, "nine.npy", &f);
    fails_with(
        &[
            &example("relu_tcm/build"),
            "--op",
            "relu_forward",
            "--input",
            &path,
            "--out-shape",
            "2",
        ],
        "input 0 (t_in): shape [1, 1, 1, 1, 1, 1, 1, 1, 2] cannot be described: at most 8 dims \
         of <= 65535 each, or at most 4 dims of <= 4294967295 each",
    );
}

#[test]
fn a_tensor_whose_data_is_not_its_shapes_size_is_refused() {
    let lib = q7_testing::Library::open(&root().join("examples/kernels/relu_tcm/build")).unwrap();
    let t = q7_tensor::HostTensor {
        dtype: q7_tensor::dtype::Dtype::from_name("float32").unwrap(),
        shape: vec![4],
        data: vec![0; 12],
    };
    let e = q7_testing::Run::new("relu_forward")
        .input(t)
        .on(&lib)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "input 0 (t_in): shape [4] of float32 takes 16 bytes, its data has 12"
    );
}

#[test]
fn build_files_are_read_within_their_bounds_and_special_files_are_refused() {
    // PLATFORM.md "Input file limits": q7build.json and ucode_lib.json, 1 MiB each.
    let dir = TempDir::new("run-cli-build-files");
    for (file, kind) in [
        ("q7build.json", "build descriptions (q7build.json)"),
        ("ucode_lib.json", "library registries (ucode_lib.json)"),
    ] {
        let build = copy_build(&dir, "vector_add", &format!("big-{file}"));
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(build.join(file))
            .unwrap();
        // Sparse: the size alone decides.
        f.set_len((1 << 20) + 1).unwrap();
        let path = build.join(file).display().to_string();
        let want = format!(
            "q7emu: error: {path}: 1048577 bytes, over the 1048576-byte limit for {kind}\n"
        );
        for cmd in ["run", "inspect"] {
            let mut args = vec![cmd, build.to_str().unwrap()];
            if cmd == "run" {
                args.extend(["--op", "vector_add"]);
            }
            let (code, err) = q7emu_status(&args);
            assert_eq!(
                (code, err.as_str()),
                (Some(1), want.as_str()),
                "{cmd} {file}"
            );
        }
        // A FIFO would block a reader forever: it is refused before it is opened.
        let fifo = copy_build(&dir, "vector_add", &format!("fifo-{file}"));
        std::fs::remove_file(fifo.join(file)).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(fifo.join(file))
            .status()
            .unwrap();
        assert!(made.success());
        let want = format!(
            "q7emu: error: {}: not a regular file (a FIFO)\n",
            fifo.join(file).display()
        );
        for cmd in ["run", "inspect"] {
            let mut args = vec![cmd, fifo.to_str().unwrap()];
            if cmd == "run" {
                args.extend(["--op", "vector_add"]);
            }
            let (code, err) = q7emu_status(&args);
            assert_eq!(
                (code, err.as_str()),
                (Some(1), want.as_str()),
                "{cmd} {file}"
            );
        }
        let e = q7_testing::Library::open(&fifo).unwrap_err();
        assert_eq!(format!("q7emu: error: {e}\n"), want);
    }
}

#[test]
fn an_inconsistent_build_description_is_refused_naming_the_field() {
    let dir = TempDir::new("run-cli-consistency");
    type Change = fn(&mut serde_json::Value);
    let cases: [(&str, Change, &str); 7] = [
        (
            "q7build.json",
            |v| v["cpu_count"] = 8.into(),
            "cpu_count: is 8, but a single-core build's is 1",
        ),
        (
            "q7build.json",
            |v| v["ops"][0]["key"] = 0x185.into(),
            "ops[0].key: is 0x185, but FunctionId 0's dispatch key is 0x85 (FunctionId << 8 | \
             0x85, PLATFORM.md \"Dispatch keys\")",
        ),
        (
            "q7build.json",
            |v| v["ops"][0]["schema"] = "vector_add(Tensor a) -> Tensor".into(),
            "ops[0].args: lists (Tensor a, Tensor b), but ops[0].schema declares (Tensor a)",
        ),
        (
            "q7build.json",
            |v| v["images"][0] = "../vector_add.packed.so".into(),
            "images[0]: \"../vector_add.packed.so\" is not a file inside the build directory (a \
             relative path without \"..\" or \".\")",
        ),
        (
            "q7build.json",
            |v| {
                let op = v["ops"][0].clone();
                v["ops"] = serde_json::Value::Array(vec![op; 11]);
            },
            "ops: 11 ops; a library has 1 to 10 (PLATFORM.md \"Dispatch keys\")",
        ),
        (
            "ucode_lib.json",
            |v| v["ucode_lib"][0]["total_cpus"] = 8.into(),
            "ucode_lib[0].total_cpus: is 8, but q7build.json's cpu_count is 1",
        ),
        (
            "ucode_lib.json",
            |v| v["ucode_lib"][0]["functions"][0]["name"] = "add".into(),
            "ucode_lib[0].functions: lists add (sub_opcode 0), but q7build.json's ops are \
             vector_add (sub_opcode 0)",
        ),
    ];
    for (n, (file, change, want)) in cases.into_iter().enumerate() {
        let build = copy_build(&dir, "vector_add", &format!("case{n}"));
        edit_json(&build.join(file), change);
        let want = format!("q7emu: error: {}: {want}\n", build.join(file).display());
        for cmd in ["run", "inspect"] {
            let mut args = vec![cmd, build.to_str().unwrap()];
            if cmd == "run" {
                args.extend(["--op", "vector_add"]);
            }
            let (code, err) = q7emu_status(&args);
            assert_eq!(
                (code, err.as_str()),
                (Some(1), want.as_str()),
                "{cmd} case {n}"
            );
        }
    }
}

#[test]
fn the_first_file_not_the_builds_in_the_order_q7build_json_lists_them_is_the_one_refused() {
    // A library's images and unstripped images are read and checked two at a time; the
    // refusal reported is the first in q7build.json's order, images before unstripped
    // images, whichever thread got there first.
    let dir = TempDir::new("run-cli-refusal-order");
    let build = copy_build(&dir, "relu_multicore", "two-wrong");
    let image = |core: usize| build.join(format!("relu_multicore_cpu{core}.packed.so"));
    let run = || {
        let b = build.to_str().unwrap().to_string();
        let input = example("relu_multicore/input.npy");
        q7emu_status(&["run", &b, "--op", "relu_forward", "--input", &input])
    };
    let refused = |err: &str| {
        let rest = err.strip_prefix("q7emu: error: ").unwrap_or(err);
        let (path, why) = rest.split_once(": not the image").unwrap_or((rest, ""));
        let field = why.split("q7build.json's ").nth(1).unwrap_or("");
        (
            path.to_string(),
            field.split(' ').next().unwrap_or("").to_string(),
        )
    };
    // An unstripped image that is not the build's (the committed build has none, which is
    // no error: the core has no symbols).
    std::fs::write(build.join("relu_multicore_cpu0.so"), b"not this build's").unwrap();
    let (code, err) = run();
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        refused(&err),
        (
            build.join("relu_multicore_cpu0.so").display().to_string(),
            "linked_sha256[0]".to_string()
        )
    );
    // Images 6 and 2 swapped for others: image 2 is named, before image 6 and the
    // unstripped image 0.
    std::fs::copy(image(7), image(6)).unwrap();
    std::fs::copy(image(3), image(2)).unwrap();
    for _ in 0..3 {
        let (code, err) = run();
        assert_eq!(code, Some(1), "{err}");
        assert_eq!(
            refused(&err),
            (
                image(2).display().to_string(),
                "image_sha256[2]".to_string()
            )
        );
    }
}

#[test]
fn an_image_that_is_not_the_builds_is_refused_by_its_digest_or_its_op_names() {
    let dir = TempDir::new("run-cli-swapped");
    // scaled_transpose's image where vector_add's should be: both bind key 0x85, but it holds
    // no op named vector_add.
    let build = copy_build(&dir, "vector_add", "swapped");
    std::fs::copy(
        root().join("examples/kernels/scaled_transpose/build/scaled_transpose.packed.so"),
        build.join("vector_add.packed.so"),
    )
    .unwrap();
    let image = build.join("vector_add.packed.so").display().to_string();
    let sha256 =
        |p: &std::path::Path| q7_kernel_build::metadata::sha256_hex(&std::fs::read(p).unwrap());
    // examples/sdk/BUILD.md: q7build.json records the SHA-256 of each image.
    let want = format!(
        "q7emu: error: {image}: not the image q7build.json describes: its SHA-256 is {}, but \
         q7build.json's image_sha256[0] is {}: the file changed since the build wrote it; \
         rebuild the library with `q7emu build`\n",
        sha256(&build.join("vector_add.packed.so")),
        sha256(&root().join("examples/kernels/vector_add/build/vector_add.packed.so")),
    );
    let run = |build: &std::path::Path| {
        let args = vector_add_args(build.to_str().unwrap());
        let mut all = vec!["run"];
        all.extend(args.iter().map(String::as_str));
        q7emu_status(&all)
    };
    let (code, err) = run(&build);
    assert_eq!((code, err.as_str()), (Some(1), want.as_str()));
    let (code, err) = q7emu_status(&["inspect", build.to_str().unwrap()]);
    assert_eq!((code, err.as_str()), (Some(1), want.as_str()));
    // A build written without digests (by an earlier q7emu) is checked by the op names its
    // images hold.
    edit_json(&build.join("q7build.json"), |v| {
        v.as_object_mut().unwrap().remove("image_sha256");
    });
    let want = format!(
        "q7emu: error: {image}: not the image q7build.json describes: q7build.json's op \
         vector_add (key 0x85) is not in it: the image holds no string \"vector_add\" for \
         get_func_name to return, so it is another library's; rebuild the library with `q7emu \
         build`\n"
    );
    let (code, err) = run(&build);
    assert_eq!((code, err.as_str()), (Some(1), want.as_str()));
    let (code, err) = q7emu_status(&["inspect", build.to_str().unwrap()]);
    assert_eq!((code, err.as_str()), (Some(1), want.as_str()));
    // Inspected alone, the image is shown without the build's op names.
    let out = support::q7emu().args(["inspect", &image]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    let entry = text
        .lines()
        .find(|l| l.trim_start().starts_with("0  0x0085"))
        .unwrap_or_else(|| panic!("no kernel table entry in:\n{text}"));
    assert_eq!(
        entry.split_whitespace().collect::<Vec<_>>()[3..],
        ["-", "-"],
        "no op name for entry 0: {entry}"
    );

    // relu_element's two-op image under a description of its first op alone: the names are
    // there, but the kernel table its start symbol fills binds a second key.
    let one_op = copy_build(&dir, "relu_element", "one-op");
    // (The digests match: the image is the build's own, its description is not.)
    edit_json(&one_op.join("q7build.json"), |v| {
        let first = v["ops"][0].clone();
        v["ops"] = serde_json::Value::Array(vec![first]);
    });
    edit_json(&one_op.join("ucode_lib.json"), |v| {
        let first = v["ucode_lib"][0]["functions"][0].clone();
        v["ucode_lib"][0]["functions"] = serde_json::Value::Array(vec![first]);
    });
    let want = format!(
        "q7emu: error: {}: not the image q7build.json describes: its kernel table binds key(s) \
         0x85, 0x185 (2 entries), but q7build.json's ops are relu_forward (key 0x85); rebuild \
         the library with `q7emu build`\n",
        one_op.join("relu_element.packed.so").display()
    );
    let (code, err) = q7emu_status(&[
        "run",
        one_op.to_str().unwrap(),
        "--op",
        "relu_forward",
        "--input",
        &example("relu_element/x.npy"),
    ]);
    assert_eq!((code, err.as_str()), (Some(1), want.as_str()));
    let (code, err) = q7emu_status(&["inspect", one_op.to_str().unwrap()]);
    assert_eq!((code, err.as_str()), (Some(1), want.as_str()));
}

#[test]
fn npy_header_errors_name_the_file_the_offset_and_what_was_expected() {
    let dir = TempDir::new("run-cli-npy-headers");
    let good = npy("<f4", 4, 4, 0);
    // A header length that lies: the file ends inside the "header".
    let mut lying = good.clone();
    lying[8..10].copy_from_slice(&5000u16.to_le_bytes());
    // A header nested thousands deep: the message stays short.
    let deep = format!("{}{}", "[".repeat(4000), "]".repeat(4000));
    let mut nested = b"\x93NUMPY\x01\x00".to_vec();
    nested.extend_from_slice(&(deep.len() as u16).to_le_bytes());
    nested.extend_from_slice(deep.as_bytes());
    // The data shorter than the header's shape.
    let short = &good[..good.len() - 2];
    for (name, bytes, want) in [
        (
            "lying.npy",
            &lying[..],
            "malformed .npy header at byte offset 144: the file ends inside the header: its \
             length says 5000 bytes from byte offset 10, the file has 134",
        ),
        (
            "nested.npy",
            &nested[..],
            "malformed .npy header at byte offset 26: values nested more than 16 deep",
        ),
        (
            "short.npy",
            short,
            "malformed .npy: the data of shape [4] of <f4 takes 16 bytes from byte offset 128 to \
             144, but the file ends at byte offset 142, 2 bytes short",
        ),
    ] {
        let path = scratch(&dir, name, bytes);
        fails_with(
            &[
                &example("relu_tcm/build"),
                "--op",
                "relu_forward",
                "--input",
                &path,
            ],
            &format!("{path}: {want}"),
        );
    }
}
