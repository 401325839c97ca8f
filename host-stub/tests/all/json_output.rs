//! One convention for the JSON reports of every subcommand (docs/cli.md "Conventions"): `--json` prints the document on stdout instead of the text, `--json-file FILE`
//! writes the same document to FILE and leaves the text on stdout; `run-elf`, whose stdout is
//! the program's, has `--json-file` only (and its former `--stats-json`). Run on committed
//! images, no toolchain needed.

use crate::support;

use std::process::Output;

use q7_tests::TempDir;
use serde_json::Value;
use support::q7emu;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn run(args: &[&str]) -> Output {
    q7emu().current_dir(ROOT).args(args).output().unwrap()
}

fn stdout_of(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// A report without the host's wall time and speed, which differ from run to run, and tier 2's
/// compile time.
fn without_wall(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("wall_seconds");
        o.remove("mips");
        o.remove("jit");
    }
    v
}

const VECTOR_ADD: [&str; 8] = [
    "run",
    "examples/kernels/vector_add/build",
    "--op",
    "vector_add",
    "--input",
    "examples/kernels/vector_add/a.npy",
    "--input",
    "examples/kernels/vector_add/b.npy",
];

const MINIMAL: [&str; 6] = [
    "run-packed",
    "--key",
    "0x185",
    "--arg",
    "10",
    "examples/kernels/minimal/minimal.so",
];

#[test]
fn json_file_holds_the_document_json_prints_and_the_text_stays_on_stdout() {
    let dir = TempDir::new("json-output");
    for (what, args) in [
        ("run", &VECTOR_ADD[..]),
        ("run-packed", &MINIMAL[..]),
        (
            "inspect",
            &["inspect", "examples/kernels/relu_tcm/build"][..],
        ),
    ] {
        let file = dir.join(&format!("{what}.json"));
        let printed = stdout_of(&run(&[args, &["--json"]].concat()));
        let mut with_file = args.to_vec();
        let path = file.display().to_string();
        with_file.extend(["--json-file", &path]);
        let text = stdout_of(&run(&with_file));
        assert_eq!(
            text,
            stdout_of(&run(args)).replace_wall(&text),
            "{what}: the text"
        );
        let written = std::fs::read_to_string(&file).unwrap();
        let (a, b): (Value, Value) = (
            serde_json::from_str(&printed).unwrap(),
            serde_json::from_str(&written).unwrap(),
        );
        assert_eq!(without_wall(a), without_wall(b), "{what}: one document");
        assert!(
            !text.trim_start().starts_with('{'),
            "{what}: text, not JSON"
        );
    }
}

/// The text of a run with the wall-time line of `other` (the host's time differs per run).
trait ReplaceWall {
    fn replace_wall(&self, other: &str) -> String;
}

impl ReplaceWall for String {
    fn replace_wall(&self, other: &str) -> String {
        let wall = |t: &str| {
            t.lines()
                .find(|l| l.starts_with("wall "))
                .map(str::to_string)
        };
        match (wall(self), wall(other)) {
            (Some(mine), Some(theirs)) => self.replace(&mine, &theirs),
            _ => self.clone(),
        }
    }
}

#[test]
fn run_elf_writes_its_report_to_a_file_under_either_name() {
    let dir = TempDir::new("json-run-elf");
    let tour = "examples/isa-tour/tour.elf";
    let mut docs = Vec::new();
    for flag in ["--json-file", "--stats-json"] {
        let file = dir.join(&format!("{flag}.json"));
        let out = run(&["run-elf", flag, &file.display().to_string(), tour]);
        assert!(out.status.code().is_some(), "{out:?}");
        docs.push(serde_json::from_str::<Value>(&std::fs::read_to_string(&file).unwrap()).unwrap());
    }
    assert_eq!(docs[0], docs[1]);
    // The tour is not a program that runs (it stops on its first ENTRY): its report names
    // the fault.
    assert_eq!(docs[0]["profile"], "ncore2gp");
    assert!(docs[0]["fault"].is_object(), "{}", docs[0]);
    let out = run(&["run-elf", "--json", tour]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "no --json: stdout is the program's"
    );
}

#[test]
fn json_and_json_file_together_are_a_usage_error() {
    let mut args = VECTOR_ADD.to_vec();
    args.extend(["--json", "--json-file", "x.json"]);
    let out = run(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--json-file"));
}

#[test]
fn a_report_file_that_cannot_be_written_is_refused_before_the_run() {
    let dir = TempDir::new("json-missing-dir");
    let file = dir.join("no/such/dir/r.json").display().to_string();
    let mut args = VECTOR_ADD.to_vec();
    args.extend(["--json-file", &file]);
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1), "bad input");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with(&format!("q7emu: error: {file}: ")), "{err}");
    assert!(out.stdout.is_empty(), "nothing ran");
}

#[test]
fn a_failed_run_leaves_an_existing_report_file_untouched_or_replaced_whole() {
    // A run that fails writes the whole document naming the error (run-packed), or nothing
    // (run): never half a document over the user's file.
    let dir = TempDir::new("json-failed");
    let file = dir.join("r.json");
    std::fs::write(&file, "the user's file").unwrap();
    let mut args = VECTOR_ADD.to_vec();
    let path = file.display().to_string();
    args.extend(["--max-cycles", "1000", "--json-file", &path]);
    let out = run(&args);
    assert_eq!(out.status.code(), Some(131), "runaway");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "the user's file");
    let out = run(&[
        "run-packed",
        "--key",
        "0x186",
        "--json-file",
        &path,
        "examples/kernels/minimal/minimal.so",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(doc["error"].as_str().unwrap().contains("0x186"), "{doc}");
    let names: Vec<_> = std::fs::read_dir(dir.join(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["r.json"], "no temporary file left behind");
}
