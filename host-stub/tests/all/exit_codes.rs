//! The exit codes of `q7emu` (docs/exit-codes.md, the table of `q7_conventions::exit_code`): the
//! README's table is the code's, and every code comes out of a real command — here for every
//! subcommand but `run-elf`, whose guest statuses, misfit status, fault and runaway
//! `hostile_inputs.rs` runs on crafted programs.

use crate::support;

use std::path::PathBuf;
use std::process::Output;

use q7_conventions::exit_code::{self, Kind, CODES};
use q7_tests::TempDir;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn q7emu(args: &[&str]) -> Output {
    support::q7emu().args(args).output().unwrap()
}

fn path(rel: &str) -> String {
    format!("{ROOT}/{rel}")
}

/// The exit code of `out`, and its stderr.
fn code(out: &Output) -> (Option<i32>, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `out` exited with `kind`'s code, whose number is `number`; its stderr.
fn exits(out: &Output, kind: Kind, number: i32) -> String {
    let (got, err) = code(out);
    assert_eq!(i32::from(kind.row().first), number, "the table's {kind:?}");
    assert_eq!(got, Some(number), "{kind:?}: stderr {err}");
    err
}

#[test]
fn docs_exit_codes_md_is_the_table() {
    let section = q7_tests::doc::read("docs/exit-codes.md");
    assert!(
        section.contains(&exit_code::markdown()),
        "docs/exit-codes.md is not the table of q7_conventions::exit_code; it should read:\n{}",
        exit_code::markdown()
    );
    let rows = q7_tests::doc::table_after(&section, "| code | name |");
    assert_eq!(rows.len(), CODES.len());
    assert_eq!(
        rows[0],
        ["0", "success", "all", "the command did what it was asked"]
    );
}

#[test]
fn success_is_0_and_so_are_help_and_version() {
    exits(
        &q7emu(&["disasm", &path("examples/isa-tour/tour.elf")]),
        Kind::Success,
        0,
    );
    exits(
        &q7emu(&[
            "run-packed",
            "--key",
            "0x185",
            &path("examples/kernels/minimal/minimal.so"),
        ]),
        Kind::Success,
        0,
    );
    let out = q7emu(&["--help"]);
    exits(&out, Kind::Success, 0);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Emulator and tools"));
    exits(&q7emu(&["run", "--help"]), Kind::Success, 0);
    exits(&q7emu(&["--version"]), Kind::Success, 0);
}

#[q7_requires::needs(toolchain)]
#[test]
fn bad_input_is_1_for_every_subcommand() {
    let dir = TempDir::new("exit-bad-input");
    let truncated = dir.join("truncated.so");
    std::fs::write(&truncated, [0x7f, b'E', b'L', b'F', 1, 1, 1, 0]).unwrap();
    let truncated = truncated.display().to_string();
    let missing = dir.join("missing.elf").display().to_string();
    let no_such_file = "No such file or directory (os error 2)";
    let vector_add = path("examples/kernels/vector_add/build");
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec!["disasm", &missing], format!("{missing}: {no_such_file}")),
        (vec!["run-elf", &missing], format!("{missing}: {no_such_file}")),
        (
            vec!["run-packed", "--key", "0x185", &truncated],
            format!(
                "{truncated}: core 0: packed image: truncated ELF file: 8 bytes, an ELF32 header needs 52"
            ),
        ),
        (
            vec![
                "run",
                &vector_add,
                "--op",
                "nope",
            ],
            "library vector_add has no op nope; its ops: vector_add".into(),
        ),
        (
            vec![
                "run",
                &vector_add,
                "--op",
                "vector_add",
            ],
            "op vector_add(Tensor a, Tensor b) -> Tensor takes 2 tensor argument(s), 0 given"
                .into(),
        ),
        (
            vec!["inspect", &truncated],
            format!("{truncated}: truncated ELF file: 8 bytes, an ELF32 header needs 52"),
        ),
        (
            vec![
                "build", "--name", "k", "--fn", "k", "--schema", "k() -> Tensor", "-o", "out",
                "no/such/k.cpp",
            ],
            "Cant find source file no/such/k.cpp".into(),
        ),
    ];
    for (args, want) in cases {
        let err = exits(&q7emu(&args), Kind::BadInput, 1);
        assert_eq!(err, format!("q7emu: error: {want}\n"), "{args:?}");
    }
}

#[test]
fn a_command_line_that_does_not_parse_is_2() {
    for args in [
        &[][..],
        &["frobnicate"],
        &["disasm", "--frobnicate", "x"],
        &["run-elf"],
        &["run-packed", "x.so"],
        &["build", "--name", "k"],
        &["run", "build", "--op", "f", "--threads", "0"],
        &["inspect"],
        &["inspect", "--max-cycles", "many", "x.so"],
    ] {
        let err = exits(&q7emu(args), Kind::Usage, 2);
        assert!(err.contains("--help"), "{args:?}: {err}");
    }
}

#[test]
fn a_build_whose_tools_are_missing_or_do_not_run_is_3() {
    let dir = TempDir::new("exit-build");
    let src = dir.join("k.cpp");
    std::fs::write(&src, "").unwrap();
    let build = |prefix: &PathBuf| {
        let out = dir.join("out").display().to_string();
        let args = [
            "build",
            "--name",
            "k",
            "--fn",
            "k",
            "--schema",
            "k() -> Tensor",
            "--toolchain",
            &prefix.display().to_string(),
            "-o",
            &out,
            &src.display().to_string(),
        ]
        .map(str::to_string);
        support::q7emu().args(args).output().unwrap()
    };
    let prefix = support::fake_toolchain(&dir, Some("xtensa-elf-g++"));
    let err = exits(&build(&prefix), Kind::BuildFailed, 3);
    assert!(
        err.starts_with("q7emu: error: Could not find xtensa-elf-g++ in "),
        "{err}"
    );
    let prefix = support::fake_toolchain(&dir, None);
    let err = exits(&build(&prefix), Kind::BuildFailed, 3);
    let gxx = prefix.join("bin/xtensa-elf-g++");
    assert_eq!(
        err,
        format!(
            "q7emu: error: cannot run {}: Permission denied (os error 13)\n",
            gxx.display()
        )
    );
}

#[test]
fn a_kernel_stopped_by_a_runtime_error_is_129() {
    let dir = TempDir::new("exit-fault");
    let ints = dir.join("i32.npy");
    let ones: Vec<u8> = (0..1024).flat_map(|_| 1i32.to_le_bytes()).collect();
    std::fs::write(&ints, q7_tests::npy_1d("<i4", 4, &ones)).unwrap();
    let out = q7emu(&[
        "run",
        &path("examples/kernels/vector_add/build"),
        "--op",
        "vector_add",
        "--input",
        &ints.display().to_string(),
        "--input",
        &path("examples/kernels/vector_add/b.npy"),
    ]);
    let err = exits(&out, Kind::Fault, 129);
    assert_eq!(
        err,
        "q7emu: error: core 0: kernel aborted with runtime error 7 (ABORT): kernel vector_add: \
         an accessor of Float elements on a Int tensor\n"
    );
}

#[test]
fn a_kernel_out_of_cycles_is_130() {
    let dir = TempDir::new("exit-runaway");
    let one = dir.join("one.npy");
    std::fs::write(&one, q7_tests::npy_1d("<f4", 4, &1f32.to_le_bytes())).unwrap();
    let out = q7emu(&[
        "run",
        &path("examples/kernels/relu_tcm/build"),
        "--op",
        "relu_forward",
        "--input",
        &one.display().to_string(),
        "--max-cycles",
        "1000",
    ]);
    let err = exits(&out, Kind::Runaway, 131);
    assert!(err.contains("cycle budget of 1000 exhausted"), "{err}");
    let out = q7emu(&[
        "run-packed",
        "--key",
        "0x185",
        "--max-cycles",
        "10",
        &path("examples/kernels/minimal/minimal.so"),
    ]);
    let err = exits(&out, Kind::Runaway, 131);
    assert!(
        err.contains("faulted while running start symbol")
            && err.contains("cycle budget of 10 exhausted"),
        "{err}"
    );
}

/// `run --check` that finds an error exits 132 after writing the output: the kernel of
/// `examples/check/partly_unwritten` leaves half its output unwritten (needs the toolchain to
/// build it; docs/checked-mode.md).
#[q7_requires::needs(toolchain)]
#[test]
fn a_checked_run_that_finds_an_error_is_132() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("exit-check");
    let build = support::build_check_example(&dir, "partly_unwritten");
    let x = dir.join("x.npy");
    std::fs::write(&x, q7_tests::npy_1d("<f4", 4, &[0; 1024 * 4])).unwrap();
    let y = dir.join("y.npy");
    let run = |check: bool| {
        let mut args = vec![
            "run".to_string(),
            build.display().to_string(),
            "--op".into(),
            "relu_forward".into(),
            "--input".into(),
            x.display().to_string(),
            "--output".into(),
            y.display().to_string(),
        ];
        if check {
            args.push("--check".into());
        }
        q7emu(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    exits(&run(false), Kind::Success, 0);
    std::fs::remove_file(&y).unwrap();
    let err = exits(&run(true), Kind::CheckFailed, 132);
    assert!(err.contains("error[unwritten-output]"), "{err}");
    assert!(y.exists(), "the output is written all the same");
}
