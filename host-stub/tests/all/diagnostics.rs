//! Diagnostics on stderr (docs/tracing.md "Trace a run"): `RUST_LOG` selects them through
//! tracing-subscriber's `EnvFilter`; without it `q7emu` prints nothing of them. Spans name the
//! library load, each firmware record, the dispatch and each core's run; faults are warnings.
//! Runs the committed vector_add build (no toolchain needed).

use crate::support;

use std::process::Output;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// `q7emu run` of the committed vector_add example with `RUST_LOG` = `log` (unset for `None`)
/// and the extra arguments.
fn vector_add(log: Option<&str>, extra: &[&str]) -> Output {
    let k = format!("{ROOT}/examples/kernels/vector_add");
    let mut cmd = support::q7emu();
    cmd.arg("run")
        .arg(format!("{k}/build"))
        .args(["--op", "vector_add", "--input"])
        .arg(format!("{k}/a.npy"))
        .arg("--input")
        .arg(format!("{k}/b.npy"))
        .args(extra)
        .env_remove("RUST_LOG");
    if let Some(log) = log {
        cmd.env("RUST_LOG", log);
    }
    cmd.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The line of `text` containing every one of `parts`.
fn line_with<'a>(text: &'a str, parts: &[&str]) -> &'a str {
    text.lines()
        .find(|l| parts.iter().all(|p| l.contains(p)))
        .unwrap_or_else(|| panic!("no line with all of {parts:?} in:\n{text}"))
}

#[test]
fn without_rust_log_nothing_is_printed_on_stderr() {
    let o = vector_add(None, &[]);
    assert!(o.status.success());
    assert_eq!(stderr(&o), "");
}

#[test]
fn debug_names_the_load_the_dispatch_and_each_core_run_with_its_counters() {
    let o = vector_add(Some("q7_run=debug,q7_runtime=debug,q7_emulator=debug"), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    line_with(
        &err,
        &[
            "DEBUG library{dir=",
            "q7_run::op: library opened library=\"vector_add\" images=1 packed=true unstripped=0",
        ],
    );
    line_with(
        &err,
        &[
            "create{core=0 name=\"vector_add\" selector=1 coretype=13}",
            "q7_runtime::nrtucode: prelinked window=0x84000000",
        ],
    );
    line_with(
        &err,
        &[
            "record{core=0 direction=Load selector=1}:call{core=0 what=\"start symbol\"",
            &format!(
                "core{{core=0 budget={}}}: q7_emulator::platform::cluster: core exited",
                q7_runtime::firmware::CALL_BUDGET
            ),
            "status=0",
        ],
    );
    // The dispatch's counters are those `q7emu run` prints for core 0.
    let stdout = String::from_utf8(o.stdout).unwrap();
    let (insns, cycles) = support::core_counters(&stdout)[0];
    line_with(
        &err,
        &[
            " INFO run{library=\"vector_add\" op=\"vector_add\"}:dispatch{key=0x85 opcode=133 sub_opcode=0 args=3 threads=2}: ",
            &format!("q7_runtime::firmware: dispatch done cores=1 instructions={insns} max_cycles={cycles}"),
        ],
    );
    line_with(
        &err,
        &[
            "dispatch{key=0x85",
            &format!(
                "}}:core{{core=0 budget={}}}: q7_emulator::platform::cluster: core exited",
                q7_runtime::firmware::CALL_BUDGET
            ),
            &format!("instructions={insns} cycles={cycles} status=0"),
        ],
    );
}

#[test]
fn the_filter_selects_by_level_and_module() {
    let o = vector_add(Some("q7_runtime=info"), &[]);
    let err = stderr(&o);
    assert!(err.contains("q7_runtime::firmware: dispatch done"), "{err}");
    assert!(!err.contains("DEBUG"), "info and above only: {err}");
    assert!(
        !err.contains("q7_emulator"),
        "q7_emulator is not selected: {err}"
    );
}

#[test]
fn a_fault_is_a_warning_naming_the_core_and_the_cause() {
    let o = vector_add(Some("warn"), &["--max-cycles", "1000"]);
    assert_eq!(
        o.status.code(),
        Some(131),
        "runaway (README.md \"Exit codes\")"
    );
    let err = stderr(&o);
    line_with(
        &err,
        &[
            " WARN ",
            "q7_runtime::firmware: core faulted core=0 what=\"start symbol\" pc=0x",
            &format!(
                "fault={}",
                q7_emulator::fault::FaultKind::BudgetExhausted { max_cycles: 1000 }
            ),
        ],
    );
    line_with(
        &err,
        &["q7_runtime::firmware: record failed error=\"core 0 faulted while running start symbol:\""],
    );
}

#[test]
fn a_rust_log_that_does_not_parse_is_named_and_ignored() {
    let o = vector_add(Some("q7_runtime=loud"), &[]);
    assert!(o.status.success());
    let err = stderr(&o);
    assert!(
        err.starts_with("q7emu: warning: RUST_LOG ignored: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "nothing else: {err}");
}
