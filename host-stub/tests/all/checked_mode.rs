//! docs/checked-mode.md: `q7emu run --check` on the deliberately buggy kernels of
//! `examples/check` (built with the repository's SDK; needs the toolchain, skips or fails as
//! `Q7EMU_REQUIRE_TOOLCHAIN` says) gives exactly each one's findings — kind, cores, tensor
//! argument and elements — and nothing else; the correct kernel gives none; a checked run
//! computes the same output in the same instructions and cycles as a plain one; an error
//! finding exits with `check-failed` (132, docs/exit-codes.md). The correct examples of
//! `examples/kernels` run under `--check` without a finding in `host-stub/tests/all/examples.rs`.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::q7emu;

use q7_tensor::dtype::Dtype;
use q7_tensor::{npy, HostTensor};
use q7_tests::TempDir;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// One finding as the test states it: kind, cores, tensor argument, first and last element.
type Expected = (
    &'static str,
    Vec<u32>,
    Option<&'static str>,
    Option<Vec<Vec<i64>>>,
);

/// `examples/check/<project>`'s build, in `dir`.
fn build(dir: &TempDir, project: &str) -> PathBuf {
    support::build_check_example(dir, project)
}

/// A float32 tensor of `shape` with values in [-1, 1) from a fixed seed, saved in `dir`.
fn input(dir: &TempDir, shape: &[u64]) -> PathBuf {
    let n: u64 = shape.iter().product();
    let mut rng = q7_tests::Rng(q7_tests::seed("checked_mode"));
    let data: Vec<u8> = (0..n)
        .flat_map(|_| {
            let v = rng.next_u32() as f32 / 2f32.powi(31) - 1.0;
            v.to_le_bytes()
        })
        .collect();
    let t = HostTensor {
        dtype: Dtype::from_name("float32").unwrap(),
        shape: shape.to_vec(),
        data,
    };
    let shape_text: Vec<String> = shape.iter().map(u64::to_string).collect();
    let path = dir.join(&format!("x{}.npy", shape_text.join("x")));
    let mut bytes = Vec::new();
    npy::to_writer(&mut bytes, &t).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Runs `op` of `build` on `x` with `extra` flags and `--json`: exit code and report. One
/// host thread: the output of a kernel whose cores race on HBM depends on the order the host
/// runs them in, which one thread makes the same every time.
fn run(build: &Path, op: &str, x: &Path, extra: &[&str]) -> (Option<i32>, Value, String) {
    let o = q7emu()
        .arg("run")
        .arg(build)
        .args(["--op", op, "--threads", "1", "--input"])
        .arg(x)
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    let report: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{op}: not JSON ({e}): {stderr}"));
    (o.status.code(), report, stderr)
}

/// Runs `op` of `build` on `x` with `--check`, its report as text: exit code and stderr.
fn checked_text(build: &Path, op: &str, x: &Path) -> (Option<i32>, String) {
    let o = q7emu()
        .arg("run")
        .arg(build)
        .args(["--op", op, "--input"])
        .arg(x)
        .arg("--check")
        .output()
        .unwrap();
    (o.status.code(), String::from_utf8(o.stderr).unwrap())
}

/// The findings of a report, as the test states them, in the report's order.
fn findings(report: &Value) -> Vec<Expected> {
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    report["check"]["findings"]
        .as_array()
        .expect("a checked run's report has check.findings")
        .iter()
        .map(|f| {
            let cores = f["cores"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_u64().unwrap() as u32)
                .collect();
            let tensor = f["span"]["tensor"].as_str().map(leak);
            let elements = f["span"]["elements"].as_array().map(|pair| {
                pair.iter()
                    .map(|i| {
                        i.as_array()
                            .unwrap()
                            .iter()
                            .map(|v| v.as_i64().unwrap())
                            .collect()
                    })
                    .collect()
            });
            (leak(f["kind"].as_str().unwrap()), cores, tensor, elements)
        })
        .collect()
}

/// Per core: instructions and cycles of a report.
fn counts(report: &Value) -> Vec<(u64, u64)> {
    report["cores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["instructions"].as_u64().unwrap(),
                c["cycles"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn all_cores() -> Vec<u32> {
    (0..8).collect()
}

fn el(first: &[i64], last: &[i64]) -> Option<Vec<Vec<i64>>> {
    Some(vec![first.to_vec(), last.to_vec()])
}

/// The two accessors (element or stream) each multicore example makes are undefined in multicore mode (the
/// public API): one finding per tensor, on every core.
fn two_accessors_on_eight_cores() -> Vec<Expected> {
    vec![
        ("api-misuse", all_cores(), None, None),
        ("api-misuse", all_cores(), None, None),
    ]
}

#[q7_requires::needs(toolchain)]
#[test]
fn each_buggy_kernel_gets_exactly_its_findings_and_the_correct_one_none() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("checked-mode");
    let (x1003, x1024) = (input(&dir, &[1003]), input(&dir, &[1024]));
    let (x16x64, x5x5x5) = (input(&dir, &[16, 64]), input(&dir, &[5, 5, 5]));
    let x8x256 = input(&dir, &[8, 256]);
    let mut cases: Vec<(&str, &str, &PathBuf, Vec<Expected>)> = vec![
        (
            "uneven_split",
            "relu_forward",
            &x1003,
            [
                vec![
                    ("out-of-bounds", vec![7], Some("t_in"), el(&[1003], &[1007])),
                    (
                        "out-of-bounds",
                        vec![7],
                        Some("output"),
                        el(&[1003], &[1007]),
                    ),
                ],
                two_accessors_on_eight_cores(),
            ]
            .concat(),
        ),
        (
            "overlapping_offsets",
            "relu_rows",
            &x16x64,
            [
                (1..=7)
                    .map(|r| {
                        (
                            "write-race",
                            vec![r as u32 - 1, r as u32],
                            Some("output"),
                            el(&[r, 0], &[r, 63]),
                        )
                    })
                    .collect(),
                vec![(
                    "unwritten-output",
                    vec![],
                    Some("output"),
                    el(&[9, 0], &[15, 63]),
                )],
                two_accessors_on_eight_cores(),
            ]
            .concat(),
        ),
        (
            "leaked_tcm",
            "relu_forward",
            &x1024,
            vec![("leak", vec![0], None, None)],
        ),
        (
            "free_after_failed_malloc",
            "relu_forward",
            &x1024,
            vec![
                ("bad-free", vec![0], None, None),
                ("alloc-failed", vec![0], None, None),
            ],
        ),
        (
            "free_null_per_element",
            "relu_forward",
            &x1024,
            vec![("bad-free", vec![0], None, None)],
        ),
        (
            "leaked_hbm_cells",
            "relu_forward",
            &x1024,
            vec![("leak", vec![0], None, None)],
        ),
        (
            "stream_multicore",
            "relu_forward",
            &x1024,
            [
                vec![("write-race", all_cores(), Some("output"), el(&[0], &[1023]))],
                two_accessors_on_eight_cores(),
            ]
            .concat(),
        ),
        (
            "index_3d",
            "scale3d",
            &x5x5x5,
            vec![
                (
                    "out-of-bounds",
                    vec![0],
                    Some("t_in"),
                    el(&[5, 0, 0], &[5, 4, 4]),
                ),
                // Past the end of the tensor the kernel made with torch::zeros (no argument).
                ("out-of-bounds", vec![0], None, None),
            ],
        ),
        (
            "partly_unwritten",
            "relu_forward",
            &x1024,
            vec![(
                "unwritten-output",
                vec![],
                Some("output"),
                el(&[512], &[1023]),
            )],
        ),
        (
            "empty_read",
            "running_sum",
            &x1024,
            vec![("uninitialised-read", vec![0], None, None)],
        ),
        (
            "tcm_accumulate",
            "row_sum",
            &x8x256,
            vec![("uninitialised-read", vec![0], None, None)],
        ),
        (
            "no_dst_tensor",
            "relu_forward",
            &x1024,
            vec![
                ("write-race", all_cores(), Some("output"), el(&[0], &[1023])),
                ("api-misuse", all_cores(), None, None),
            ],
        ),
        (
            "five_streams",
            "four_times",
            &x1024,
            vec![("streams", vec![0], None, None)],
        ),
        (
            "deep_stack",
            "staged_copy",
            &x1024,
            vec![("stack", vec![0], None, None)],
        ),
        ("correct_multicore", "relu_forward", &x1003, vec![]),
        ("shared_sites", "six_times", &x1024, vec![]),
    ];
    for (project, op, x, want) in cases.drain(..) {
        let build = build(&dir, project);
        let (plain_code, plain, _) = run(&build, op, x, &[]);
        assert_eq!(plain_code, Some(0), "{project}: hardware swallows the bug");
        assert!(plain.get("check").is_none(), "{project}: unchecked");
        let (code, checked, stderr) = run(&build, op, x, &["--check"]);
        assert_eq!(findings(&checked), want, "{project}:\n{stderr}");
        sites_are_named_at_the_authors_line(&checked, project);
        // docs/checked-mode.md: alloc-failed, streams and stack are the warnings among these.
        let errors = want
            .iter()
            .filter(|f| !["alloc-failed", "streams", "stack"].contains(&f.0))
            .count();
        let warnings = want.len() - errors;
        // docs/exit-codes.md: 132 when an error was found.
        let want_code = if errors == 0 { 0 } else { 132 };
        assert_eq!(code, Some(want_code), "{project}:\n{stderr}");
        assert_eq!(
            (
                checked["check"]["errors"].as_u64(),
                checked["check"]["warnings"].as_u64()
            ),
            (Some(errors as u64), Some(warnings as u64)),
            "{project}"
        );
        // Checking changes nothing the run computes or counts.
        assert_eq!(counts(&checked), counts(&plain), "{project}");
        assert_eq!(checked["output"], plain["output"], "{project}");
        assert!(
            stderr.ends_with(&format!(
                "q7emu: check: {errors} error(s), {warnings} warning(s) (docs/checked-mode.md)\n"
            )),
            "{project}:\n{stderr}"
        );
    }
}

/// The human form names the core, the function and source line of the access, its
/// disassembly and callers, the tensor argument and the element range.
#[q7_requires::needs(toolchain)]
#[test]
fn a_finding_on_stderr_names_core_line_tensor_and_elements() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("checked-mode-text");
    let build = build(&dir, "partly_unwritten");
    let x = input(&dir, &[1024]);
    let (code, stderr) = checked_text(&build, "relu_forward", &x);
    assert_eq!(code, Some(132));
    assert!(
        stderr.contains(
            "error[unwritten-output]: no core wrote bytes 2048..4096 (elements [512]..[1023]) of \
             `output`, a [1024] tensor (2048 of its 4096 bytes unwritten in 1 ranges)\n"
        ),
        "{stderr}"
    );
    let build = self::build(&dir, "uneven_split");
    let x = input(&dir, &[1003]);
    let (_, stderr) = checked_text(&build, "relu_forward", &x);
    let line = |marker: &str| {
        let src = std::fs::read_to_string(
            Path::new(ROOT).join("examples/check/uneven_split/uneven_split.cpp"),
        )
        .unwrap();
        src.lines().position(|l| l.contains(marker)).unwrap() + 1
    };
    let store = format!("(uneven_split.cpp:{})", line("out[i] ="));
    assert!(
        stderr.contains(
            "error[out-of-bounds]: core 7 wrote bytes 4012..4032 (elements [1003]..[1007]) past \
             the end of `output`, a [1003] tensor (5 times)\n    core 7 at 0x"
        ),
        "{stderr}"
    );
    let site = stderr
        .lines()
        .skip_while(|l| !l.contains("past the end of `output`"))
        .nth(1)
        .unwrap();
    assert!(
        site.contains(" in relu_forward(at::Tensor const&)+0x") && site.contains(&store),
        "{site}"
    );
    assert!(site.contains(": s32i"), "the store's disassembly: {site}");
    let doc = q7_tests::doc::read("docs/checked-mode.md");
    let shown = &q7_tests::doc::fenced(&doc, "text")[0];
    assert!(
        stderr.contains(shown.as_str()),
        "docs/checked-mode.md shows what the run prints:\n{shown}\n{stderr}"
    );
}

/// The write race of `examples/check/stream_multicore` as stderr says it, exactly: the first
/// two cores' sites, each named at the kernel's `out.write(…)` (stream_multicore.cpp:15), with
/// the SDK's frames where the doorbell of its SDMA transfer was written beneath it.
const STREAM_RACE: &str = "\
error[write-race]: cores 0, 1, 2, 3, 4, 5, 6 and 7 each wrote bytes 0..4096 (elements [0]..[1023]) of `output`, a [1024] tensor in one dispatch (28 pairs of cores overlap there) (28 times)
    core 0 in relu_forward(at::Tensor const&)+0x7d (stream_multicore.cpp:15), inside the SDK:
      at 0x840046fa in q7::rt::sdma_push(unsigned int, unsigned long long, unsigned int, unsigned int)+0x6e (sdk/rt/customop/sdma.cpp:26): s32i.n\ta2, a12, 0
        called from 0x84004cf6 in (anonymous namespace)::transfer(at::detail::Stream const*, unsigned long long, unsigned char*, unsigned int)+0x4e (sdk/rt/customop/stream.cpp:50)
        called from 0x84005014 in at::detail::stream_next(at::detail::Stream*)+0x13c (sdk/rt/customop/stream.cpp:192)
      called from 0x84000628 in relu_forward_wrapper()+0x24 (wrapper.cpp:16)
    core 1 in relu_forward(at::Tensor const&)+0x7d (stream_multicore.cpp:15), inside the SDK:
      at 0x842046fa in q7::rt::sdma_push(unsigned int, unsigned long long, unsigned int, unsigned int)+0x6e (sdk/rt/customop/sdma.cpp:26): s32i.n\ta2, a12, 0
        called from 0x84204cf6 in (anonymous namespace)::transfer(at::detail::Stream const*, unsigned long long, unsigned char*, unsigned int)+0x4e (sdk/rt/customop/stream.cpp:50)
        called from 0x84205014 in at::detail::stream_next(at::detail::Stream*)+0x13c (sdk/rt/customop/stream.cpp:192)
      called from 0x84200628 in relu_forward_wrapper()+0x24 (wrapper.cpp:16)
";

/// docs/checked-mode.md "Sites": a finding names the kernel author's line first — the
/// innermost frame outside the SDK — with the SDK frames kept beneath it. Every core of
/// stream_multicore writes all of `output` through its write stream, whose SDMA transfers
/// `out.write(…)` starts on line 15 three calls down in the SDK (`stream_next`, `transfer`,
/// `sdma_push`, which writes the doorbell the race is attributed to): the race is named at
/// stream_multicore.cpp:15, the SDK's frames beneath it innermost first (the doorbell's store
/// with its disassembly), then the kernel's caller. The JSON report says the same with
/// `function`, `sdk_frames` and `backtrace`, `pc` staying the doorbell's store. The document
/// shows this text.
#[q7_requires::needs(toolchain)]
#[test]
fn a_finding_inside_the_sdk_names_the_kernels_line_first_and_the_sdk_frames_beneath() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("checked-mode-sdk-frames");
    let build = build(&dir, "stream_multicore");
    let x = input(&dir, &[1024]);
    let (code, stderr) = checked_text(&build, "relu_forward", &x);
    assert_eq!(code, Some(132));
    let race: String = stderr
        .lines()
        .skip_while(|l| !l.starts_with("error[write-race]"))
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.starts_with(' '))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    assert_eq!(race, STREAM_RACE, "{stderr}");
    let doc = q7_tests::doc::read("docs/checked-mode.md");
    assert!(
        q7_tests::doc::fenced(&doc, "text")
            .iter()
            .any(|b| b == STREAM_RACE),
        "docs/checked-mode.md \"Sites\" shows the race as stderr says it"
    );

    let (_, report, _) = run(&build, "relu_forward", &x, &["--check"]);
    let site = &report["check"]["findings"][0]["sites"][0];
    assert_eq!(
        (
            &site["core"],
            &site["pc"],
            &site["function"],
            &site["disassembly"]
        ),
        (
            &serde_json::json!(0),
            &serde_json::json!(0x8400_46fa_u32),
            &serde_json::json!("relu_forward(at::Tensor const&)+0x7d (stream_multicore.cpp:15)"),
            &serde_json::json!("s32i.n\ta2, a12, 0")
        )
    );
    assert_eq!(
        site["sdk_frames"],
        serde_json::json!([
            "0x840046fa in q7::rt::sdma_push(unsigned int, unsigned long long, unsigned int, \
             unsigned int)+0x6e (sdk/rt/customop/sdma.cpp:26)",
            "0x84004cf6 in (anonymous namespace)::transfer(at::detail::Stream const*, unsigned \
             long long, unsigned char*, unsigned int)+0x4e (sdk/rt/customop/stream.cpp:50)",
            "0x84005014 in at::detail::stream_next(at::detail::Stream*)+0x13c \
             (sdk/rt/customop/stream.cpp:192)",
        ])
    );
    assert_eq!(
        site["backtrace"],
        serde_json::json!(["0x84000628 in relu_forward_wrapper()+0x24 (wrapper.cpp:16)"])
    );
}

/// The file of a frame's `(file:line)`, as a site writes it (`name+0xoff (file:line)`).
fn file_of(frame: &str) -> Option<&str> {
    let (_, place) = frame.strip_suffix(')')?.rsplit_once(" (")?;
    let (file, line) = place.rsplit_once(':')?;
    line.bytes().all(|b| b.is_ascii_digit()).then_some(file)
}

/// docs/checked-mode.md "Sites", for every site of a report: where any frame's line is outside
/// the SDK, `function` is the innermost such frame and `sdk_frames` the SDK's inside it.
fn sites_are_named_at_the_authors_line(report: &Value, project: &str) {
    let own = |frame: &str| file_of(frame).is_some_and(|f| !f.starts_with("sdk/"));
    for f in report["check"]["findings"].as_array().unwrap() {
        for site in f["sites"].as_array().unwrap() {
            let strings = |k: &str| -> Vec<String> {
                site[k]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_string())
                    .collect()
            };
            let (inner, callers) = (strings("sdk_frames"), strings("backtrace"));
            let function = site["function"].as_str().unwrap_or("");
            assert!(
                inner.iter().all(|f| !own(f)),
                "{project}: only the SDK's frames beneath the kernel's: {site}"
            );
            if own(function) || inner.is_empty() && !callers.iter().any(|c| own(c)) {
                continue;
            }
            panic!("{project}: a site not named at the kernel author's line: {site}");
        }
    }
}

/// docs/checked-mode.md "How it sees": an instruction of the kernel bound to the tensor it
/// first reached is out of bounds past its end even where it lands inside the next tensor
/// (index_3d's sixth plane: all 25 reads, though 22 land inside `output`), and past the end of
/// a tensor the kernel made even in the next heap block's header (all 25 writes).
#[q7_requires::needs(toolchain)]
#[test]
fn an_index_past_the_end_is_out_of_bounds_of_its_own_tensor_wherever_it_lands() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("checked-mode-bound");
    let build = build(&dir, "index_3d");
    let x = input(&dir, &[5, 5, 5]);
    let (code, stderr) = checked_text(&build, "scale3d", &x);
    assert_eq!(code, Some(132));
    for want in [
        "error[out-of-bounds]: core 0 read bytes 500..600 (elements [5][0][0]..[5][4][4]) past \
         the end of `t_in`, a [5, 5, 5] tensor, and on inside `output` (25 times)\n",
        "error[out-of-bounds]: core 0 wrote bytes 500..600 past the end of the 500-byte HBM \
         allocation at 0x",
        " (a tensor the kernel made, or neuron_hbm_allocate) (25 times)\n",
    ] {
        assert!(stderr.contains(want), "{want}\n{stderr}");
    }
}

/// The 32-bit words of the .npy file at `path`.
fn words(path: &Path) -> Vec<u32> {
    npy::read(path)
        .unwrap()
        .data
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Runs `op` of `build` on `x` with `extra` flags (exit code 0 expected): the output's words.
fn output_words(dir: &TempDir, build: &Path, op: &str, x: &Path, extra: &[&str]) -> Vec<u32> {
    let out = dir.join("y.npy");
    let o = q7emu()
        .arg("run")
        .arg(build)
        .args(["--op", op, "--input"])
        .arg(x)
        .arg("--output")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    words(&out)
}

/// docs/checked-mode.md "Poison": `--poison nan` fills the tensor `empty_like` made with
/// 0x7FC07FC0 before the kernel reads it, so the sum it returns is NaN everywhere (on a plain
/// run, fresh HBM reads as zero and the bug hides); `--poison pattern` with 0xDEADBEEF.
#[q7_requires::needs(toolchain)]
#[test]
fn poison_makes_a_read_of_an_empty_tensor_show_in_the_output() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("checked-mode-poison");
    let build = build(&dir, "empty_read");
    let x = input(&dir, &[1024]);
    let output = |extra: &[&str]| output_words(&dir, &build, "running_sum", &x, extra);
    let plain = output(&[]);
    let input = words(&x);
    assert_eq!(plain, input, "0 + x: the bug hides on a plain run");
    let nan = output(&["--poison", "nan"]);
    assert!(
        nan.iter().all(|&v| f32::from_bits(v).is_nan()),
        "every element NaN: {:x?}",
        &nan[..4]
    );
    let pattern = output(&["--poison", "pattern"]);
    let want = |v: u32| (f32::from_bits(0xDEAD_BEEF) + f32::from_bits(v)).to_bits();
    assert_eq!(
        pattern[..4],
        input[..4].iter().map(|&v| want(v)).collect::<Vec<_>>()[..]
    );
}

/// docs/checked-mode.md "Poison": the output the host places is poisoned too, so the half of
/// `get_dst_tensor()` partly_unwritten never writes is 0x7FC07FC0 in the output file (zeros on
/// a plain run), and the half it writes is the ReLU.
#[q7_requires::needs(toolchain)]
#[test]
fn poison_makes_unwritten_output_show_in_the_output_file() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("checked-mode-poison-output");
    let build = build(&dir, "partly_unwritten");
    let x = input(&dir, &[1024]);
    let output = |extra: &[&str]| output_words(&dir, &build, "relu_forward", &x, extra);
    let relu: Vec<u32> = words(&x)
        .into_iter()
        .map(|v| f32::from_bits(v).max(0.0).to_bits())
        .collect();
    let plain = output(&[]);
    assert_eq!(plain[..512], relu[..512]);
    assert!(plain[512..].iter().all(|&v| v == 0), "fresh HBM is zero");
    let poisoned = output(&["--poison", "nan"]);
    assert_eq!(poisoned[..512], relu[..512]);
    assert!(
        poisoned[512..].iter().all(|&v| v == 0x7FC0_7FC0),
        "{:x?}",
        &poisoned[512..516]
    );
}

/// docs/checked-mode.md "Findings" is `q7_observe::check::finding::KINDS`, row for row.
#[test]
fn the_docs_findings_table_is_the_kinds_table() {
    let doc = std::fs::read_to_string(Path::new(ROOT).join("docs/checked-mode.md")).unwrap();
    let rows: Vec<String> = doc
        .lines()
        .skip_while(|l| !l.starts_with("| kind | class | meaning |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(str::to_string)
        .collect();
    let want: Vec<String> = q7_observe::check::finding::KINDS
        .iter()
        .map(|k| {
            let class = match k.class {
                q7_observe::check::finding::Class::Error => "error",
                q7_observe::check::finding::Class::Warning => "warning",
            };
            format!("| `{}` | {class} | {} |", k.name, k.meaning)
        })
        .collect();
    assert_eq!(rows, want);
}

/// docs/checked-mode.md "The JSON report" states the occurrences a finding keeps as
/// `q7_observe::check::finding::SAMPLES` is.
#[test]
fn the_docs_json_table_states_the_samples_kept() {
    use q7_observe::check::finding::SAMPLES;
    let doc = std::fs::read_to_string(Path::new(ROOT).join("docs/checked-mode.md")).unwrap();
    let row = doc
        .lines()
        .find(|l| l.starts_with("| `samples` |"))
        .expect("a row for samples");
    assert!(
        row.contains(&format!(
            "the first {SAMPLES} occurrences (`q7_observe::check::finding::SAMPLES`)"
        )),
        "{row}"
    );
}

/// docs/checked-mode.md: with `--timeline`, each finding's site is an instant of category
/// `check` on its core's track, at the cycle it happened, named `error[kind]`.
#[q7_requires::needs(toolchain)]
#[test]
fn findings_are_instants_on_the_timeline() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("checked-mode-timeline");
    let build = build(&dir, "leaked_tcm");
    let x = input(&dir, &[1024]);
    let tl = dir.join("tl.json");
    let (code, report, stderr) = run(
        &build,
        "relu_forward",
        &x,
        &["--check", "--timeline", tl.to_str().unwrap()],
    );
    assert_eq!(code, Some(132), "{stderr}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&tl).unwrap()).unwrap();
    let checks: Vec<&Value> = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "check")
        .collect();
    assert_eq!(checks.len(), 1, "{checks:?}");
    let site = &report["check"]["findings"][0]["sites"][0];
    assert_eq!(
        (
            checks[0]["name"].as_str(),
            checks[0]["ph"].as_str(),
            checks[0]["tid"].as_u64(),
            &checks[0]["args"]["cycle"],
        ),
        (Some("error[leak]"), Some("i"), Some(0), &site["cycle"])
    );
}

/// docs/checked-mode.md, through the Rust API (`testing::Run::checked`, `Run::check`): a store
/// through the nullptr a failed `tcm_malloc` returned lands in IRAM, where the vectors live, and
/// is an out-of-bounds error naming IRAM; `Run::check` fails the run with the findings' text.
#[q7_requires::needs(toolchain)]
#[test]
fn a_store_through_a_null_pointer_is_found_from_the_rust_api() {
    use q7_testing::{tensor, Kernel, Run, TestingError};
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("checked-mode-null");
    let src = dir.join("k.cpp");
    std::fs::write(
        &src,
        "#include <torch/torch.h>\n#include <neuron/neuron-utils.hpp>\n\
         torch::Tensor k(const torch::Tensor &x)\n{\n\
         \tfloat *buf = (float *)torch::neuron::tcm_malloc(1 << 20);\n\
         \tbuf[3] = 1.0f; // NULL\n\
         \treturn x;\n}\n",
    )
    .unwrap();
    let lib = Kernel::new(&src)
        .op("k(Tensor x) -> Tensor")
        .toolchain(q7_tests::toolchain_prefix())
        .build(dir.join("b"))
        .unwrap();
    let run = Run::new("k").input(tensor(&[4], &[1.0f32, 2.0, 3.0, 4.0]).unwrap());
    let (_, findings) = run.checked(&lib).unwrap();
    let kinds: Vec<(&str, &str)> = findings
        .iter()
        .map(|f| (f.kind.info().name, f.message.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (
                "out-of-bounds",
                "wrote IRAM at 0xc..0x10, where the exception vectors and the boot ROM live: a \
                 store through a null pointer (a failed tcm_malloc?) or a wild one"
            ),
            (
                "alloc-failed",
                "asked tcm_malloc for 1048576 bytes, more than the TCM pool had free: it \
                 returned nullptr"
            ),
        ]
    );
    assert!(
        findings[0].sites[0]
            .function
            .as_deref()
            .is_some_and(|f| f.starts_with("k(at::Tensor const&)") && f.contains("k.cpp:6")),
        "{:?}",
        findings[0].sites[0]
    );
    match run.check().op_run(&lib) {
        Err(TestingError::Check(text)) => assert!(text.contains("error[out-of-bounds]"), "{text}"),
        other => panic!("{other:?}"),
    }
}

/// A finding's `(file:line)` is the line the kernel's author wrote, also where the instruction
/// is SDK code the compiler inlined into the kernel (an accessor's `operator[]`, whose own
/// line is in `sdk/include/ATen/core/TensorAccessor.h`): every instruction of index_3d's
/// `scale3d` symbolises to `index_3d.cpp`, though the toolchain's `addr2line -i` puts some of
/// them innermost in the SDK's header.
#[q7_requires::needs(toolchain)]
#[test]
fn sdk_code_inlined_into_a_kernel_is_reported_at_the_kernels_line() {
    let Some(addr2line) = q7_tests::tool("addr2line") else {
        return;
    };
    let dir = TempDir::new("checked-mode-inlined");
    let build = build(&dir, "index_3d");
    let image = build.join("index_3d.so");
    let symbols = q7_symbols::Symbols::from_elf(&std::fs::read(&image).unwrap());
    let found = symbols.find("scale3d");
    let [(start, end, _)] = found[..] else {
        panic!("one scale3d: {found:?}");
    };
    let pcs: Vec<u32> = (start..end).collect();
    for &pc in &pcs {
        if let Some(line) = symbols.line(pc) {
            assert_eq!(line.file, "index_3d.cpp", "{pc:#x}: {line}");
        }
    }
    let addresses: String = pcs.iter().map(|pc| format!("{pc:#x}\n")).collect();
    let mut child = std::process::Command::new(addr2line)
        .arg("-e")
        .arg(&image)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(addresses.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let innermost = String::from_utf8_lossy(&out.stdout);
    assert!(
        innermost.lines().any(|l| l.contains("TensorAccessor.h:")),
        "the premise: some instruction is innermost in the SDK's header"
    );
}

/// `value` without its `cycle` fields, at any depth.
fn without_cycles(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "cycle")
                .map(|(k, v)| (k.clone(), without_cycles(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_cycles).collect()),
        other => other.clone(),
    }
}

/// The `check` object of a report as the JSON report writes it: its bytes.
fn check_bytes(report: &Value) -> usize {
    serde_json::to_string(&report["check"]).unwrap().len()
}

/// docs/checked-mode.md "The JSON report": a finding that repeats is grouped as it happens into
/// one finding of its site with the exact count, its first and last occurrence and the first
/// `SAMPLES` occurrences — the same report, but for the count, whether it happened 10 times
/// or 100000: `free_null_per_element` calls `tcm_free(nullptr)` once per element, and
/// `leaked_hbm_cells` leaks one 4-byte `neuron_hbm_allocate` per element, each a 64-byte block
/// of the HBM heap (a 16-byte header and a 64-byte-aligned payload,
/// `examples/sdk/rt/customop/heap.h`). The stderr heading says how many times, above the
/// kernel's line that called the runtime (docs/checked-mode.md "Sites").
#[q7_requires::needs(toolchain)]
#[test]
fn a_repeated_finding_is_one_finding_with_its_exact_count_and_a_bounded_report() {
    use q7_observe::check::finding::SAMPLES;
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("checked-mode-repeats");
    let (few, many) = (10u64, 100_000u64);
    let (x_few, x_many) = (input(&dir, &[few]), input(&dir, &[many]));
    // A bound no per-occurrence record fits under: 100000 occurrences of even one byte each
    // would not.
    const BOUND: usize = 4096;
    for (project, kind) in [
        ("free_null_per_element", "bad-free"),
        ("leaked_hbm_cells", "leak"),
    ] {
        let build = build(&dir, project);
        let mut reports = Vec::new();
        for (n, x) in [(few, &x_few), (many, &x_many)] {
            let (code, report, stderr) = run(&build, "relu_forward", x, &["--check"]);
            assert_eq!(code, Some(132), "{project}: {stderr}");
            assert_eq!(
                findings(&report),
                [(kind, vec![0], None, None)],
                "{project}, {n} elements: one grouped finding\n{stderr}"
            );
            let f = &report["check"]["findings"][0];
            assert_eq!(f["count"], n, "{project}: one occurrence per element");
            assert!(
                stderr.contains(&format!(
                    " ({n} times)\n    core 0 in relu_forward(at::Tensor const&)+0x"
                )),
                "{project}: {stderr}"
            );
            let samples = f["samples"].as_array().unwrap();
            assert_eq!(samples.len(), SAMPLES, "{project}");
            assert_eq!(
                samples[0], f["first"],
                "{project}: the first sample is the first"
            );
            let cycles: Vec<u64> = samples
                .iter()
                .chain([&f["last"]])
                .map(|s| s["cycle"].as_u64().unwrap())
                .collect();
            assert!(
                cycles.windows(2).all(|w| w[0] < w[1]),
                "{project}: samples in order, the last after them: {cycles:?}"
            );
            let size = check_bytes(&report);
            assert!(size < BOUND, "{project}, {n} elements: {size} bytes");
            reports.push(report);
        }
        let (f_few, f_many) = (
            &reports[0]["check"]["findings"][0],
            &reports[1]["check"]["findings"][0],
        );
        match kind {
            "bad-free" => {
                let message = "called tcm_free(nullptr): undefined in the API, which frees only \
                               what tcm_malloc returned";
                for f in [f_few, f_many] {
                    assert_eq!(f["message"], message);
                    assert_eq!(f["bytes"], Value::Null, "bytes are a leak's");
                    assert_eq!(f["last"]["detail"], Value::Null, "every call is alike");
                }
            }
            _ => {
                let first = &f_few["first"]["detail"];
                let start = first
                    .as_str()
                    .and_then(|d| d.strip_prefix("4 bytes at 0x"))
                    .map(|h| u64::from_str_radix(h, 16).unwrap())
                    .unwrap_or_else(|| panic!("{first}"));
                for (f, n) in [(f_few, few), (f_many, many)] {
                    assert_eq!(
                        f["message"],
                        format!(
                            "did not free 4 bytes of the HBM at {start:#x} it allocated before \
                             the kernel returned, nor {} more it allocated here, {} bytes in all",
                            n - 1,
                            4 * n
                        )
                    );
                    assert_eq!(f["bytes"], 4 * n, "{n} cells of 4 bytes");
                    assert_eq!(
                        f["last"]["detail"],
                        format!("4 bytes at {:#x}", start + 64 * (n - 1)),
                        "one 64-byte block per cell"
                    );
                }
            }
        }
        // The same report but for the count (and what depends on it) and the cycles.
        let same = |f: &Value| {
            let mut f = without_cycles(f);
            for k in ["count", "bytes", "message", "last"] {
                f.as_object_mut().unwrap().remove(k);
            }
            f
        };
        assert_eq!(same(f_few), same(f_many), "{project}");
    }
}
