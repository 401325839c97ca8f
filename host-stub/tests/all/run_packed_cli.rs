//! `q7emu run-packed` on the committed example image (no toolchain needed): the kernel of
//! `examples/kernels/minimal` answers `100000·registered + arg·scale[prid & 3] + 1000·prid + calls`
//! with scale = {3, 5, 7, 11}, so every core's response is known exactly.

use crate::support;

use support::{q7emu, success};

use q7_tests::TempDir;

const IMAGE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../examples/kernels/minimal/minimal.so"
);

/// `q7emu run-packed ARGS... minimal.so`, which must succeed; its stdout.
fn run_minimal(args: &[&str]) -> String {
    success(
        q7emu()
            .arg("run-packed")
            .args(args)
            .arg(IMAGE)
            .output()
            .unwrap(),
        "q7emu run-packed",
    )
}

fn expected(prid: u32, arg: u32, calls: u32) -> u32 {
    let scale = [3, 5, 7, 11];
    100_000 + arg * scale[(prid & 3) as usize] + 1000 * prid + calls
}

#[test]
fn eight_cores_answer_per_core_over_repeated_dispatches() {
    let dir = TempDir::new("run-packed-cli");
    let json = dir.join("run.json");
    let json_arg = json.display().to_string();
    let text = run_minimal(&[
        "--key",
        "0x185",
        "--arg",
        "10",
        "--dispatches",
        "2",
        "--json-file",
        &json_arg,
    ]);
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("library minimal: 8 core(s), key 0x185, prelinked "));
    assert!(text
        .lines()
        .next()
        .unwrap()
        .ends_with(" bytes per core, engine tier2"));
    for dispatch in 0..2 {
        for core in 0..8 {
            let want = expected(core, 10, dispatch + 1);
            let line = lines.next().unwrap();
            assert!(
                line.starts_with(&format!(
                    "dispatch {dispatch} core {core}: response {want:#010x} ({want}), "
                )),
                "{line}"
            );
        }
    }
    // Last, the engine's line: what tier 2 ran and compiled (docs/jit.md "Switch").
    assert!(lines.next().unwrap().starts_with("engine tier2: "));
    assert_eq!(lines.next(), None);

    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(j["key"], 0x185);
    assert_eq!(j["engine"], "tier2");
    assert!(j["jit"]["blocks"].is_u64());
    assert_eq!(j["prelinked_sizes"].as_array().unwrap().len(), 8);
    let d1 = j["dispatches"][1].as_array().unwrap();
    assert_eq!(d1.len(), 8);
    for (core, r) in d1.iter().enumerate() {
        assert_eq!(r["core"], core);
        assert_eq!(r["response"], expected(core as u32, 10, 2));
        assert!(
            r["stats"]["cycles"].as_u64().unwrap() >= r["stats"]["instructions"].as_u64().unwrap()
        );
    }
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    // Everything but the engine's last line, whose compile time is the host's.
    let run = |threads: &str| {
        let text = run_minimal(&["--key", "0x185", "--arg", "7", "--threads", threads]);
        let (guest, engine) = text.trim_end().rsplit_once('\n').unwrap();
        assert!(engine.starts_with("engine tier2: "), "{engine}");
        guest.to_string()
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    assert_eq!(one, run("8"));
}

#[test]
fn jit_off_names_the_interpreter_and_counts_the_same() {
    // docs/jit.md "Switch": `--jit off` runs the interpreter alone; the report says which
    // engine ran, and every response and counter is the same.
    let run = |jit: &str| run_minimal(&["--key", "0x185", "--arg", "7", "--jit", jit]);
    let (on, off) = (run("on"), run("off"));
    let (on_guest, on_engine) = on.trim_end().rsplit_once('\n').unwrap();
    let (off_guest, off_engine) = off.trim_end().rsplit_once('\n').unwrap();
    assert!(on_engine.starts_with("engine tier2: "), "{on_engine}");
    assert_eq!(off_engine, "engine interpreter");
    assert_eq!(
        on_guest.replace("engine tier2", "engine interpreter"),
        off_guest
    );
}

#[test]
fn a_single_core_library_runs_on_core_0_alone() {
    let text = run_minimal(&["--cores", "1", "--key", "0x185", "--arg", "2"]);
    let want = expected(0, 2, 1);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.contains(&format!(
        "dispatch 0 core 0: response {want:#010x} ({want})"
    )));
}

#[test]
fn misuse_and_bad_files_are_errors_naming_the_cause() {
    let dir = TempDir::new("run-packed-bad");
    let truncated = dir.join("truncated.so");
    std::fs::write(&truncated, &std::fs::read(IMAGE).unwrap()[..40]).unwrap();
    let tour = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/isa-tour/tour.elf");
    let cases: [(Vec<String>, &str); 5] = [
        (
            vec!["--key".into(), "0x186".into(), IMAGE.into()],
            "dispatch of key 0x186 (spec 0x1, opcode 0x86): no loaded library binds it",
        ),
        (
            vec![
                "--key".into(),
                "0x185".into(),
                "--cores".into(),
                "3".into(),
                IMAGE.into(),
            ],
            "--cores 3: a library runs on 1 core or on all 8",
        ),
        (
            vec!["--key".into(), "0x185".into(), tour.into()],
            "core 0: packed image is Executable, expected a relocatable object (ET_REL)",
        ),
        (
            vec![
                "--key".into(),
                "0x185".into(),
                truncated.display().to_string(),
            ],
            "core 0: packed image: truncated ELF file: 40 bytes, an ELF32 header needs 52",
        ),
        (
            vec![
                "--key".into(),
                "0x185".into(),
                "--arg".into(),
                "1,2,3,4,5,6,7,8,9,10,11,12,13".into(),
                IMAGE.into(),
            ],
            "argument 0: 13 words, an ARG_TENSOR descriptor holds 12",
        ),
    ];
    for (args, want) in cases {
        let out = q7emu().arg("run-packed").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("q7emu: error: "), "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn the_minimal_examples_readme_command_runs_and_prints_every_core() {
    let readme = q7_tests::doc::read("examples/kernels/minimal/README.md");
    let commands: Vec<Vec<String>> = q7_tests::doc::shell_commands(&readme)
        .into_iter()
        .filter_map(|w| {
            w.strip_prefix(
                &["cargo", "run", "--release", "-p", "q7-host", "--"].map(String::from)[..],
            )
            .map(<[String]>::to_vec)
        })
        .collect();
    assert_eq!(commands.len(), 1, "the README has one run-packed command");
    let out = q7emu()
        .current_dir(q7_tests::doc::root())
        .args(&commands[0])
        .output()
        .unwrap();
    let text = success(out, "q7emu run-packed");
    assert_eq!(
        text.lines().count(),
        10,
        "a header, one line per core and the engine's:\n{text}"
    );
}

#[test]
fn ctrl_c_stops_every_core_of_a_dispatch_and_reports_where_each_was() {
    use q7_conventions::exit_code::{Exit, Kind};
    let child = q7emu()
        .args(["run-packed", "--key", "0x185", "--arg", "10"])
        .args(["--dispatches", "4294967295"])
        .arg(IMAGE)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = support::interrupt_after(child, std::time::Duration::from_millis(700));
    let err = String::from_utf8_lossy(&out.stderr);
    let interrupted = i32::from(Exit::of(Kind::Interrupted).code());
    assert_eq!(out.status.code(), Some(interrupted), "{err}");
    assert!(
        err.contains("interrupted (Ctrl-C) while running kernel on "),
        "{err}"
    );
    // Every core is either reported where it stopped or named as finished.
    for prid in 0..8 {
        let reported = err.contains(&format!("core {prid} stopped at pc 0x"));
        let finished = err
            .split_once("(core(s) ")
            .and_then(|(_, rest)| rest.split_once(" had finished)"))
            .is_some_and(|(list, _)| list.split(", ").any(|w| w == prid.to_string()));
        assert!(reported || finished, "core {prid}: {err}");
    }
    assert!(err.contains(": interrupted (Ctrl-C)\n"), "{err}");
}
