//! `q7emu run --trace-dir` (docs/tracing.md "Trace a run", docs/tracing.md "Instruction traces"),
//! on the committed example builds (no toolchain needed, but for `--trace-fn`, which needs a
//! build's unstripped images and builds one when the toolchain is there):
//!
//! - one text and one JSON-lines file per traced core, with the documented header, a `run`
//!   event at the start of every firmware call and a `stop` event at its end;
//! - the events agree with the run's own counters: the start symbol's instructions and cycles
//!   (from the `RUST_LOG` diagnostics) and the dispatch's (from the run report);
//! - the filters keep what they say and nothing else;
//! - a trace is byte-identical for every `--threads`, and tracing changes no output and no
//!   cycle.

use crate::support;

use support::{example, ok, relu_multicore};

use std::path::Path;
use std::process::{Command, Output};

use q7_tests::TempDir;
use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// `q7emu run` of the committed vector_add example with `extra` arguments.
fn vector_add(extra: &[&str]) -> Command {
    let k = example("vector_add");
    let mut cmd = support::q7emu();
    cmd.arg("run")
        .arg(k.join("build"))
        .args(["--op", "vector_add", "--input"])
        .arg(k.join("a.npy"))
        .arg("--input")
        .arg(k.join("b.npy"))
        .args(extra)
        .env_remove("RUST_LOG");
    cmd
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

/// The JSON lines of `path`, each parsed.
fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// The events of `lines` of type `kind`.
fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

/// The events of the `n`-th firmware call (0-based): from its `run` to its `stop`.
fn call(lines: &[Value], n: usize) -> &[Value] {
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i]["type"] == "run")
        .collect();
    let start = starts[n];
    let end = start
        + lines[start..]
            .iter()
            .position(|l| l["type"] == "stop")
            .unwrap();
    &lines[start..=end]
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// `core N: I instructions, C cycles` lines of a run's summary, by core.
fn counters(stdout: &str) -> Vec<(u64, u64)> {
    support::core_counters(stdout)
}

#[test]
fn a_trace_holds_every_instruction_of_the_start_symbol_and_the_ends_of_every_call() {
    let dir = TempDir::new("trace-vector-add");
    let out = dir.join("t");
    let mut cmd = vector_add(&["--trace-dir"]);
    cmd.arg(&out).args(["--trace-cycles", "0..6300"]).env(
        "RUST_LOG",
        "q7_run=debug,q7_runtime=debug,q7_emulator=debug",
    );
    let o = ok(cmd);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["core0.jsonl", "core0.trace"], "one core, two files");

    let lines = jsonl(&out.join("core0.jsonl"));
    assert_eq!(
        lines[0],
        serde_json::json!({
            "type": "header", "format": "q7emu-instruction-trace", "version": 1, "core": 0,
            "image": "vector_add.packed.so", "symbols": false,
            "filter": {"pc": null, "cycles": [0, 6300]}
        })
    );
    let calls: Vec<&str> = of_type(&lines, "run")
        .iter()
        .map(|r| r["what"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["start symbol", "kernel of key 0x85"]);

    // The start symbol ran whole inside the cycles kept: its instructions are those the
    // diagnostics count (the exiting SIMCALL is the stop event), its cycles theirs.
    let err = text(&o.stderr);
    let exited = err
        .lines()
        .find(|l| l.contains("what=\"start symbol\"") && l.contains("core exited"))
        .unwrap_or_else(|| panic!("no start-symbol exit in:\n{err}"));
    let field = |name: &str| -> u64 {
        let at = exited.find(&format!(" {name}=")).unwrap() + name.len() + 2;
        exited[at..].split(' ').next().unwrap().parse().unwrap()
    };
    let start = call(&lines, 0);
    let insns = of_type(start, "insn").len() as u64;
    assert_eq!(insns + 1, field("instructions"));
    assert_eq!(of_type(start, "exception").len(), 0);
    let (run, stop) = (&start[0], start.last().unwrap());
    assert_eq!(
        u64_of(&stop["cycle"]) - u64_of(&run["cycle"]),
        field("cycles")
    );
    assert_eq!(stop["exit"], 0);
    assert_eq!(stop["insn"], "simcall");

    // The kernel's call: its stop is there though no instruction of it is in the window, and
    // its cycles are the dispatch's.
    let kernel = call(&lines, 1);
    let (run, stop) = (&kernel[0], kernel.last().unwrap());
    let dispatch = counters(&text(&o.stdout));
    assert_eq!(
        u64_of(&stop["cycle"]) - u64_of(&run["cycle"]),
        dispatch[0].1
    );
    for l in of_type(&lines, "insn") {
        assert!(u64_of(&l["cycle"]) < 6300, "{l}");
    }

    // The text file has the same events, one line each, after three header lines.
    let t = std::fs::read_to_string(out.join("core0.trace")).unwrap();
    let tl: Vec<&str> = t.lines().collect();
    assert_eq!(
        tl[..3],
        [
            "# q7emu-instruction-trace 1: core 0, image vector_add.packed.so (no symbols)",
            "# kept: pc all, cycles 0..6300",
            "# cycle pc instruction; registers written, ld/st<size> address=value",
        ]
    );
    assert_eq!(tl.len() - 3, lines.len() - 1, "one text line per event");
    assert!(
        tl[3].starts_with("# core 0: start symbol from cycle "),
        "{}",
        tl[3]
    );
    // The trampoline's first instruction: `callx8 a8` writes the return address and PS.CALLINC.
    let first = of_type(&lines, "insn")[0];
    assert_eq!(first["insn"], "callx8 a8");
    assert_eq!(
        first["regs"],
        serde_json::json!({"a8": u64_of(&first["pc"]) + 3, "ps": 0x60000})
    );
    assert!(
        tl[4].ends_with(&format!(
            "callx8 a8                        a8={:#010x} ps=0x00060000",
            u64_of(&first["pc"]) + 3
        )),
        "{}",
        tl[4]
    );
    assert!(
        tl.last().unwrap().ends_with(" ! exit 0"),
        "{}",
        tl.last().unwrap()
    );
}

#[test]
fn loads_and_stores_are_listed_with_address_size_and_value() {
    let dir = TempDir::new("trace-mem");
    let out = dir.join("t");
    let mut cmd = vector_add(&["--trace-cycles", "0..3000", "--trace-dir"]);
    cmd.arg(&out);
    ok(cmd);
    let lines = jsonl(&out.join("core0.jsonl"));
    let insns = of_type(&lines, "insn");
    // `l32r` loads a literal from the image; the register it sets holds what was loaded.
    let l32r = insns
        .iter()
        .find(|l| l["insn"].as_str().unwrap().starts_with("l32r "))
        .unwrap();
    let mem = l32r["mem"].as_array().unwrap();
    assert_eq!(mem.len(), 1);
    assert_eq!(
        (&mem[0]["size"], &mem[0]["write"]),
        (&4.into(), &false.into())
    );
    let reg = l32r["insn"].as_str().unwrap()[5..]
        .split(',')
        .next()
        .unwrap();
    assert_eq!(l32r["regs"][reg], mem[0]["value"], "{l32r}");
    // A store names what it wrote: `s32i.n aT, aS, off` stores aT.
    let store = insns
        .iter()
        .find(|l| {
            l["mem"]
                .as_array()
                .is_some_and(|m| m.iter().any(|a| a["write"] == true))
        })
        .unwrap();
    assert!(
        store["insn"].as_str().unwrap().starts_with('s'),
        "a store instruction: {store}"
    );
}

#[test]
fn exceptions_are_events_and_count_as_the_runs_exceptions() {
    let dir = TempDir::new("trace-exceptions");
    let out = dir.join("t");
    let mut cmd = vector_add(&[
        "--json",
        "--trace-pc",
        "0x84000000..0x86000000",
        "--trace-dir",
    ]);
    cmd.arg(&out);
    let o = ok(cmd);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let lines = jsonl(&out.join("core0.jsonl"));
    let kernel = call(&lines, 1);
    let exceptions = of_type(kernel, "exception");
    assert_eq!(
        exceptions.len() as u64,
        u64_of(&report["cores"][0]["stats"]["exceptions"])
    );
    let e = exceptions[0];
    assert_eq!(e["vector"], "WindowOverflow8", "{e}");
    assert!(
        e.get("cause").is_none(),
        "a window exception has no EXCCAUSE"
    );
    for l in of_type(&lines, "insn") {
        let pc = u64_of(&l["pc"]);
        assert!((0x8400_0000..0x8600_0000).contains(&pc), "{l}");
    }
    // The kernel's instructions in the window: all but the exiting SIMCALL and the boot-ROM
    // window handlers, which lie below it.
    let kept = of_type(kernel, "insn").len() as u64;
    assert!(kept < u64_of(&report["cores"][0]["instructions"]));
}

#[test]
fn only_the_cores_asked_for_are_traced() {
    let dir = TempDir::new("trace-cores");
    let out = dir.join("t");
    let mut cmd = relu_multicore(&[
        "--trace-cores",
        "3,0",
        "--trace-cycles",
        "0..1",
        "--trace-dir",
    ]);
    cmd.arg(&out);
    ok(cmd);
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["core0.jsonl", "core0.trace", "core3.jsonl", "core3.trace"]
    );
    let lines = jsonl(&out.join("core3.jsonl"));
    assert_eq!(lines[0]["core"], 3);
    assert_eq!(lines[0]["image"], "relu_multicore_cpu3.packed.so");
    assert_eq!(of_type(&lines, "insn").len(), 0, "no cycle kept");
    assert_eq!(of_type(&lines, "run").len(), 2);
    assert_eq!(of_type(&lines, "stop").len(), 2);
}

#[test]
fn a_faulting_call_ends_its_trace_with_the_fault() {
    let dir = TempDir::new("trace-fault");
    let out = dir.join("t");
    let mut cmd = relu_multicore(&[
        "--max-cycles",
        "100000",
        "--trace-cores",
        "5",
        "--trace-cycles",
        "0..1",
        "--trace-dir",
    ]);
    cmd.arg(&out);
    let o = cmd.output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(131),
        "runaway (README.md \"Exit codes\")"
    );
    let lines = jsonl(&out.join("core5.jsonl"));
    let kernel = call(&lines, 1);
    let (run, stop) = (&kernel[0], kernel.last().unwrap());
    let runaway = q7_emulator::fault::FaultKind::BudgetExhausted { max_cycles: 100000 }.to_string();
    assert!(runaway.starts_with("cycle budget of 100000 exhausted (runaway kernel?"));
    assert_eq!(stop["fault"], runaway.as_str());
    assert!(stop.get("exit").is_none());
    assert!(u64_of(&stop["cycle"]) - u64_of(&run["cycle"]) >= 100_000);
    let t = std::fs::read_to_string(out.join("core5.trace")).unwrap();
    assert!(
        t.lines()
            .last()
            .unwrap()
            .ends_with(&format!(" ! stopped: {runaway}")),
        "{}",
        t.lines().last().unwrap()
    );
}

/// Every file of `dir`, by name, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_trace_of_eight_cores_is_byte_identical_for_1_2_and_8_threads() {
    let dir = TempDir::new("trace-threads");
    let run = |threads: &str| {
        let out = dir.join(&format!("t{threads}"));
        let mut cmd = relu_multicore(&[
            "--threads",
            threads,
            "--trace-cycles",
            "0..40000",
            "--trace-dir",
        ]);
        cmd.arg(&out);
        let o = ok(cmd);
        (files(&out), counters(&text(&o.stdout)))
    };
    let one = run("1");
    assert_eq!(one.0.len(), 16, "two files per core");
    for (name, bytes) in &one.0 {
        let lines = bytes.iter().filter(|&&b| b == b'\n').count();
        assert!(lines > 1000, "{name}: {lines} lines");
    }
    assert_ne!(one.0[0].1, one.0[2].1, "core 0 and core 1 differ");
    for threads in ["2", "8"] {
        let other = run(threads);
        assert_eq!(other.1, one.1, "counters, --threads {threads}");
        for (a, b) in one.0.iter().zip(&other.0) {
            assert_eq!(a.0, b.0);
            assert!(
                a.1 == b.1,
                "{} differs between --threads 1 and {threads}",
                a.0
            );
        }
    }
}

#[test]
fn tracing_changes_no_output_and_no_cycle() {
    let dir = TempDir::new("trace-cycles");
    let plain = dir.join("plain.npy");
    let traced = dir.join("traced.npy");
    let mut a = relu_multicore(&["--json", "--output"]);
    a.arg(&plain);
    let mut b = relu_multicore(&["--json", "--trace-cycles", "0..1", "--output"]);
    b.arg(&traced).arg("--trace-dir").arg(dir.join("t"));
    let (a, b) = (ok(a), ok(b));
    let counters = |o: &Output| -> Vec<Value> {
        let r: Value = serde_json::from_slice(&o.stdout).unwrap();
        r["cores"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| serde_json::json!([c["instructions"], c["cycles"], c["stats"]]))
            .collect()
    };
    assert_eq!(counters(&a), counters(&b));
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&traced).unwrap()
    );
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(example("relu_multicore").join("expected.npy")).unwrap()
    );
}

#[test]
fn the_notes_on_stderr_name_the_directory_and_the_sizes() {
    let dir = TempDir::new("trace-notes");
    let out = dir.join("t");
    let mut cmd = vector_add(&["--trace-cycles", "0..2000", "--trace-dir"]);
    cmd.arg(&out);
    let o = ok(cmd);
    let files = files(&out);
    let (json, trace) = (&files[0].1, &files[1].1);
    let events = jsonl(&out.join("core0.jsonl"))
        .iter()
        .filter(|l| l["type"] == "insn" || l["type"] == "exception")
        .count();
    assert_eq!(
        text(&o.stderr),
        format!(
            "q7emu: trace of 1 core(s) in {}: {events} events, {} bytes of text, {} bytes of JSON lines\n",
            out.display(),
            trace.len(),
            json.len()
        )
    );
}

#[test]
fn a_cores_trace_stops_at_its_cap_with_a_notice_in_both_files_and_on_stderr() {
    // docs/tracing.md "Size cap": the whole trace of vector_add's core 0 is some 73 MB; a cap of
    // 100,000 bytes keeps its start and ends both files with the notice.
    let dir = TempDir::new("trace-cap");
    let out = dir.join("t");
    let plain = ok(vector_add(&[]));
    let mut cmd = vector_add(&["--trace-max-bytes", "100000", "--trace-dir"]);
    cmd.arg(&out);
    let o = ok(cmd);
    assert_eq!(
        counters(&text(&o.stdout)),
        counters(&text(&plain.stdout)),
        "the run itself is unchanged"
    );
    let files = files(&out);
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    assert!(bytes <= 100_000, "{bytes} bytes over the cap");
    assert!(bytes > 100_000 - 1000, "{bytes}: filled up to the cap");

    let lines = jsonl(&out.join("core0.jsonl"));
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "truncated");
    assert_eq!(last["cap"], 100_000);
    let cycle = u64_of(&last["cycle"]);
    let t = text(&std::fs::read(out.join("core0.trace")).unwrap());
    assert_eq!(
        t.lines().last().unwrap(),
        format!(
            "# truncated at cycle {cycle}: core 0's trace reached its cap of 100000 bytes \
             (--trace-max-bytes); nothing more of core 0 is traced"
        )
    );
    // `bytes` is what the two files held before the notice.
    let notice =
        t.lines().last().unwrap().len() + 1 + serde_json::to_string(last).unwrap().len() + 1;
    assert_eq!(u64_of(&last["bytes"]) as usize, bytes - notice);
    assert_eq!(of_type(&lines, "stop").len(), 0, "nothing after the notice");
    let last_insn = of_type(&lines, "insn")
        .last()
        .map(|l| u64_of(&l["cycle"]))
        .unwrap();
    assert!(last_insn < cycle);

    let err = text(&o.stderr);
    let events = of_type(&lines, "insn").len() + of_type(&lines, "exception").len();
    assert_eq!(
        err,
        format!(
            "q7emu: trace of core 0 truncated at cycle {cycle}: its two files reached the cap of \
             100000 bytes (--trace-max-bytes BYTES or none; --trace-cores, --trace-pc, \
             --trace-fn and --trace-cycles narrow a trace)\n\
             q7emu: trace of 1 core(s) in {}: {events} events, {} bytes of text, {} bytes of JSON lines\n",
            out.display(),
            files[1].1.len(),
            files[0].1.len(),
        )
    );

    // A trace that fits is refused nothing and has no notice: `none` and a cap above its size.
    for cap in ["none", "0x100000"] {
        let mut cmd = vector_add(&[
            "--trace-cycles",
            "0..2000",
            "--trace-max-bytes",
            cap,
            "--trace-dir",
        ]);
        cmd.arg(&out);
        ok(cmd);
        let lines = jsonl(&out.join("core0.jsonl"));
        assert_eq!(lines.last().unwrap()["type"], "stop", "{cap}");
        assert_eq!(of_type(&lines, "truncated").len(), 0, "{cap}");
    }
}

#[test]
fn trace_flags_are_refused_naming_the_problem() {
    let dir = TempDir::new("trace-refused");
    let out = dir.join("t");
    let cases: [(Vec<&str>, i32, &str); 7] = [
        (
            vec!["--trace-fn", "vector_add"],
            1,
            "q7emu: error: --trace-fn vector_add: the build directory has no unstripped images to resolve it",
        ),
        (
            vec!["--trace-cores", "1"],
            1,
            "q7emu: error: --trace-cores 1: the library runs on core(s) 0..0",
        ),
        (
            vec!["--trace-pc", "0x200..0x100"],
            2,
            "\"0x200..0x100\": the range is empty (LO must be below HI)",
        ),
        (
            vec!["--trace-pc", "0..4", "--trace-fn", "f"],
            2,
            "the argument '--trace-pc <LO..HI>' cannot be used with '--trace-fn <NAME>'",
        ),
        (
            vec!["--trace-cycles", "x..9"],
            2,
            "\"x\": invalid digit found in string (expected a 64-bit number, decimal or 0x-hex)",
        ),
        (
            vec!["--trace-max-bytes", "0"],
            2,
            "error: invalid value '0' for '--trace-max-bytes <BYTES|none>': 0 bytes: a trace cap is at least 4096 bytes (the header lines and the notice of a truncated trace must fit), or `none` for no cap",
        ),
        (
            vec!["--trace-max-bytes", "1G"],
            2,
            "error: invalid value '1G' for '--trace-max-bytes <BYTES|none>': \"1G\": invalid digit found in string (expected a 64-bit number, decimal or 0x-hex)",
        ),
    ];
    for (args, code, message) in cases {
        let mut cmd = vector_add(&args);
        cmd.arg("--trace-dir").arg(&out);
        let o = cmd.output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    let o = vector_add(&["--trace-cycles", "0..9"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "a filter needs --trace-dir");
    assert!(
        text(&o.stderr)
            .contains("the following required arguments were not provided:\n  --trace-dir <DIR>"),
        "{}",
        text(&o.stderr)
    );
}

/// The names of what `dir` holds.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn an_output_on_a_trace_file_or_the_trace_directory_and_empty_paths_are_refused_before_the_run() {
    // docs/tracing.md "Where the files go": the timeline and `--output` are compared with the
    // trace files the run will write, by resolved path, though the directory is not there yet;
    // no file may take the place of the trace directory; an empty --trace-dir or --timeline
    // names nothing. Each is refused before anything is written, naming both flags.
    let dir = TempDir::new("trace-clash");
    let t = dir.join("t");
    let show = |p: &Path| p.display().to_string();
    let (t_s, x_s) = (show(&t), show(&t.join("x")));
    let (core0, jsonl) = (show(&t.join("core0.trace")), show(&t.join("core0.jsonl")));
    let through_dots = show(&t.join("sub/../core0.trace"));
    let same = "are the same file: each output needs a file of its own";
    let in_place =
        "a file cannot take the place of the directory the other writes in; write it elsewhere";
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--trace-dir", &t_s, "--timeline", &core0],
            format!("--timeline {core0} and --trace-dir {core0} {same}"),
        ),
        (
            vec!["--trace-dir", &t_s, "--timeline", &through_dots],
            format!("--timeline {through_dots} and --trace-dir {core0} {same}"),
        ),
        (
            vec!["--trace-dir", &t_s, "--output", &jsonl],
            format!("--output {jsonl} and --trace-dir {jsonl} {same}"),
        ),
        (
            vec!["--trace-dir", &t_s, "--timeline", &t_s],
            format!("--timeline {t_s} is --trace-dir {t_s}, or a directory above it: {in_place}"),
        ),
        (
            vec!["--trace-dir", &x_s, "--output", &t_s],
            format!("--output {t_s} is --trace-dir {x_s}, or a directory above it: {in_place}"),
        ),
        (
            vec!["--trace-dir", ""],
            "--trace-dir \"\": an empty path names no directory".to_string(),
        ),
        (
            vec!["--timeline", ""],
            "--timeline \"\": an empty path names no file".to_string(),
        ),
    ];
    let here = dir.join("");
    for (extra, want) in cases {
        let mut cmd = vector_add(&extra);
        let o = cmd.current_dir(&here).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(1),
            "{extra:?}: bad input (docs/exit-codes.md)"
        );
        assert_eq!(
            text(&o.stderr),
            format!("q7emu: error: {want}\n"),
            "{extra:?}"
        );
        assert!(
            entries(&here).is_empty(),
            "{extra:?}: nothing written: {:?}",
            entries(&here)
        );
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn trace_fn_keeps_the_instructions_of_one_function_named_from_the_symbols() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("trace-fn");
    let build = support::build_k(&dir, support::ADD_ONE_KERNEL, "build", &[]);
    let out = dir.join("t");
    let mut cmd = support::q7emu();
    cmd.arg("run")
        .arg(&build)
        .args(["--op", "k", "--input"])
        .arg(example("vector_add").join("a.npy"))
        .args(["--trace-fn", "k", "--trace-dir"])
        .arg(&out)
        .env_remove("RUST_LOG");
    ok(cmd);
    let lines = jsonl(&out.join("core0.jsonl"));
    assert_eq!(lines[0]["symbols"], true);
    let [lo, hi] = [0, 1].map(|i| u64_of(&lines[0]["filter"]["pc"][i]));
    assert!(lo < hi);
    let insns = of_type(&lines, "insn");
    assert!(
        insns.len() > 1024,
        "a loop over 1024 elements: {}",
        insns.len()
    );
    for l in &insns {
        let func = l["func"].as_str().unwrap();
        assert!(
            func == "k(at::Tensor const&)" || func.starts_with("k(at::Tensor const&)+0x"),
            "{l}"
        );
        assert!((lo..hi).contains(&u64_of(&l["pc"])), "{l}");
    }
    assert_eq!(insns[0]["func"], "k(at::Tensor const&)", "its entry first");
    assert!(insns[0]["insn"].as_str().unwrap().starts_with("entry a1, "));

    let mut bad = support::q7emu();
    bad.arg("run")
        .arg(&build)
        .args(["--op", "k", "--input"])
        .arg(example("vector_add").join("a.npy"))
        .args(["--trace-fn", "no_such_function", "--trace-dir"])
        .arg(&out);
    let o = bad.output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr)
        .contains("--trace-fn no_such_function: core 0's image has no function of that name"));
}

/// docs/tracing.md "Filters": a function of an anonymous namespace, demangled
/// `(anonymous namespace)::add_one(float)`, is found by its name with or without the
/// qualifier and the parameter list — the parentheses of the qualifier are not its list.
#[q7_requires::needs(toolchain)]
#[test]
fn trace_fn_finds_a_function_of_an_anonymous_namespace() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let source = "\
#include <torch/torch.h>

namespace {
__attribute__((noinline)) float add_one(float v) { return v + 1.0f; }
}

torch::Tensor k(const torch::Tensor &x)
{
\ttorch::Tensor y = torch::empty_like(x);
\tauto in = x.accessor<float, 1>();
\tauto out = y.accessor<float, 1>();
\tfor (int64_t i = 0; i < x.size(0); i++)
\t\tout[i] = add_one(in[i]);
\treturn y;
}
";
    let dir = TempDir::new("trace-fn-anonymous");
    let build = support::build_k(&dir, source, "build", &[]);
    for (i, name) in [
        "add_one",
        "(anonymous namespace)::add_one",
        "(anonymous namespace)::add_one(float)",
        "add_one(float)",
    ]
    .into_iter()
    .enumerate()
    {
        let out = dir.join(&format!("t{i}"));
        let mut cmd = support::q7emu();
        cmd.arg("run")
            .arg(&build)
            .args(["--op", "k", "--input"])
            .arg(example("vector_add").join("a.npy"))
            .args(["--trace-fn", name, "--trace-dir"])
            .arg(&out);
        ok(cmd);
        let lines = jsonl(&out.join("core0.jsonl"));
        let insns = of_type(&lines, "insn");
        assert!(insns.len() >= 1024, "{name}: one call per element");
        assert_eq!(
            insns[0]["func"], "(anonymous namespace)::add_one(float)",
            "{name}"
        );
    }
}

/// The trace command of docs/tracing.md "Trace a run", run as written from a directory that
/// has the repository's examples (so that what it writes lands there): it writes the traces of
/// cores 0 and 3 and a timeline that keeps the trace-event rules.
#[test]
fn the_docs_trace_command_runs_as_written() {
    let doc = q7_tests::doc::read("docs/tracing.md");
    let commands =
        q7_tests::doc::q7emu_commands(q7_tests::doc::section(&doc, "## Trace a run"), "run");
    assert_eq!(commands.len(), 1, "one q7emu run in \"Trace a run\"");
    let args = &commands[0];
    let dir = TempDir::new("trace-doc");
    let root = dir.join("");
    std::os::unix::fs::symlink(Path::new(ROOT).join("examples"), root.join("examples")).unwrap();
    let mut cmd = support::q7emu();
    cmd.current_dir(&root).env_remove("RUST_LOG").args(args);
    ok(cmd);
    let value = |flag: &str| {
        let at = args
            .iter()
            .position(|a| a == flag)
            .unwrap_or_else(|| panic!("{flag}"));
        root.join(&args[at + 1])
    };
    let out = value("--trace-dir");
    let names: Vec<(String, usize)> = files(&out).into_iter().map(|(n, b)| (n, b.len())).collect();
    assert_eq!(
        names.iter().map(|n| n.0.as_str()).collect::<Vec<_>>(),
        ["core0.jsonl", "core0.trace", "core3.jsonl", "core3.trace"]
    );
    let timeline: Value =
        serde_json::from_slice(&std::fs::read(value("--timeline")).unwrap()).unwrap();
    assert_eq!(support::timeline::breaches(&timeline), Vec::<String>::new());
    for l in of_type(&jsonl(&out.join("core3.jsonl")), "insn") {
        assert!(u64_of(&l["cycle"]) < 100_000, "{l}");
    }
}
