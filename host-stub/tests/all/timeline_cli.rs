//! `q7emu run --timeline FILE.json` (docs/tracing.md "Trace a run", docs/tracing.md "Timeline"):
//! Chrome trace-event JSON, checked by a strict checker of the format's rules written here
//! (and shown to reject each kind of breach), on the committed example builds:
//!
//! - one named track per core, the kernel's phases in the runtime's order, each core's SDMA
//!   transfers on its queues' tracks with their bytes, each joined to its doorbell by a flow;
//! - timestamps are cycles at the clock of PLATFORM.md "Cores";
//! - the timeline is byte-identical for every `--threads` and changes no cycle;
//! - each core's timeline stops at its cap (`--timeline-max-events`), cut at one cycle, still
//!   valid, said on stderr; without a cap, or with one it fits, it is whole;
//! - a small deterministic timeline (vector_add on 8 elements) is snapshotted in
//!   `snapshots/`; with the toolchain, a build's unstripped image gives function spans.

use crate::support;

use support::{example, ok, relu_multicore};

use support::q7emu;

use std::collections::BTreeMap;
use std::path::Path;

use q7_emulator::platform::map::CLOCK_HZ;
use q7_tests::TempDir;
use serde_json::{json, Value};

/// A document of `events` for the checker's own tests.
fn doc_of(events: Value) -> Value {
    json!({ "traceEvents": events })
}

#[test]
fn the_checker_rejects_each_kind_of_breach() {
    let named = json!([
        {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "p"}},
        {"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "t"}},
    ]);
    let with = |more: Value| {
        let mut v = named.as_array().unwrap().clone();
        v.extend(more.as_array().unwrap().iter().cloned());
        doc_of(Value::Array(v))
    };
    let good = with(json!([
        {"name": "a", "cat": "c", "ph": "B", "ts": 1.0, "pid": 0, "tid": 0},
        {"name": "x", "cat": "c", "ph": "s", "ts": 1.5, "pid": 0, "tid": 0, "id": 1},
        {"name": "a", "cat": "c", "ph": "E", "ts": 2.0, "pid": 0, "tid": 0},
        {"name": "x", "cat": "c", "ph": "f", "ts": 3.0, "pid": 0, "tid": 0, "id": 1, "bp": "e"},
        {"name": "k", "cat": "c", "ph": "X", "ts": 3.0, "dur": 1.0, "pid": 0, "tid": 0},
    ]));
    assert_eq!(support::timeline::breaches(&good), Vec::<String>::new());
    let cases: [(Value, &str); 10] = [
        (json!({"events": []}), "no traceEvents array"),
        (
            with(json!([{"name": "a", "ph": "B", "ts": 1.0, "pid": 0, "tid": 0}])),
            "B \"a\" never ends",
        ),
        (
            with(json!([{"ph": "E", "ts": 1.0, "pid": 0, "tid": 0}])),
            "E without a B",
        ),
        (
            with(json!([
                {"name": "a", "ph": "B", "ts": 2.0, "pid": 0, "tid": 0},
                {"name": "a", "ph": "E", "ts": 1.0, "pid": 0, "tid": 0},
            ])),
            "timestamp goes back",
        ),
        (
            with(json!([
                {"name": "a", "ph": "B", "ts": 1.0, "pid": 0, "tid": 0},
                {"name": "b", "ph": "B", "ts": 1.0, "pid": 0, "tid": 0},
                {"name": "a", "ph": "E", "ts": 2.0, "pid": 0, "tid": 0},
                {"name": "b", "ph": "E", "ts": 2.0, "pid": 0, "tid": 0},
            ])),
            "E ends \"b\"",
        ),
        (
            with(
                json!([{"name": "x", "cat": "c", "ph": "s", "ts": 1.0, "pid": 0, "tid": 0, "id": 7}]),
            ),
            "flow c/x/7 has 0 ends",
        ),
        (
            doc_of(json!([{"name": "i", "ph": "i", "s": "t", "ts": 1.0, "pid": 0, "tid": 3}])),
            "track (0, 3) has no thread_name",
        ),
        (
            with(json!([{"name": "k", "ph": "X", "ts": 1.0, "pid": 0, "tid": 0}])),
            "needs dur >= 0",
        ),
        (
            with(json!([{"name": "i", "ph": "i", "ts": 1.0, "pid": 0, "tid": 0}])),
            "needs s of t, p or g",
        ),
        (
            with(json!([{"name": "n", "ph": "n", "ts": 1.0, "pid": 0, "tid": 0, "colour": 1}])),
            "unknown key colour",
        ),
    ];
    for (doc, want) in cases {
        let got = support::timeline::breaches(&doc);
        assert!(
            got.iter().any(|b| b.contains(want)),
            "{want:?} not among {got:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Timelines of runs.

fn read(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn events(doc: &Value) -> &[Value] {
    doc["traceEvents"].as_array().unwrap()
}

/// The `thread_name` of each track.
fn track_names(doc: &Value) -> BTreeMap<u64, String> {
    events(doc)
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            (
                e["tid"].as_u64().unwrap(),
                e["args"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `core N: I instructions, C cycles` of a run's summary, by core.
fn counters(stdout: &[u8]) -> Vec<(u64, u64)> {
    support::core_counters(&String::from_utf8_lossy(stdout))
}

#[test]
fn the_eight_core_relu_has_a_valid_timeline_with_one_track_per_core_and_its_phases() {
    let dir = TempDir::new("timeline-relu");
    let path = dir.join("t.json");
    let mut cmd = relu_multicore(&["--timeline"]);
    cmd.arg(&path);
    let o = ok(cmd);
    let doc = read(&path);
    assert_eq!(support::timeline::breaches(&doc), Vec::<String>::new());
    assert_eq!(
        doc["otherData"],
        json!({"format": "q7emu-timeline", "version": 1, "clock_hz": CLOCK_HZ, "cores": 8})
    );
    let names = track_names(&doc);
    for core in 0..8u64 {
        assert_eq!(
            names[&core],
            format!("core {core} (relu_multicore_cpu{core}.packed.so)")
        );
        assert_eq!(names[&(200 + 2 * core)], format!("core {core} SDMA M2S"));
        assert_eq!(
            names[&(200 + 2 * core + 1)],
            format!("core {core} SDMA S2M")
        );
    }
    assert!(
        !names.keys().any(|t| (100..200).contains(t)),
        "no function tracks without symbols"
    );
    let dispatch = counters(&o.stdout);
    for core in 0..8u64 {
        let on = |tid: u64| -> Vec<&Value> {
            events(&doc)
                .iter()
                .filter(|e| e["tid"] == tid && e["ph"] != "M")
                .collect()
        };
        let track = on(core);
        let begins: Vec<&str> = track
            .iter()
            .filter(|e| e["ph"] == "B")
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            begins,
            [
                "image pull",
                "start symbol",
                "kernel of key 0x85",
                "setup",
                "marshal",
                "compute",
                "return",
                "cleanup"
            ],
            "core {core}"
        );
        // The kernel's span is the dispatch's cycles, at the clock.
        let kernel: Vec<&&Value> = track
            .iter()
            .filter(|e| e["name"] == "kernel of key 0x85")
            .collect();
        let cycles = u64_of(&kernel[1]["args"]["cycle"]) - u64_of(&kernel[0]["args"]["cycle"]);
        assert_eq!(cycles, dispatch[core as usize].1, "core {core}");
        let ts = |e: &Value| e["ts"].as_f64().unwrap();
        // (serde_json reads a float back to within an ulp; a cycle is 1/1400 µs)
        let want = u64_of(&kernel[1]["args"]["cycle"]) as f64 * 1e6 / CLOCK_HZ as f64;
        assert!((ts(kernel[1]) - want).abs() < 1e-6, "{} µs", ts(kernel[1]));
        // Its eighth of the 512 KiB input in and out, in 4 KiB transfers, each joined to the
        // doorbell that queued it.
        for (q, name) in [(0u64, "M2S 4096 B"), (1, "S2M 4096 B")] {
            let sdma = on(200 + 2 * core + q);
            let xs: Vec<&&Value> = sdma.iter().filter(|e| e["ph"] == "X").collect();
            assert_eq!(xs.len(), 16, "core {core} queue {q}");
            let bytes: u64 = xs.iter().map(|x| u64_of(&x["args"]["bytes"])).sum();
            assert_eq!(bytes, 65536);
            assert!(xs.iter().all(|x| x["name"] == name));
            assert_eq!(sdma.iter().filter(|e| e["ph"] == "f").count(), 16);
        }
        let stack: Vec<&str> = track
            .iter()
            .filter(|e| e["cat"] == "stack")
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(stack, ["stack in place", "stack return"], "core {core}");
        let tcm: Vec<&str> = track
            .iter()
            .filter(|e| e["cat"] == "alloc" && e["ph"] == "i" && e["args"]["heap"] == "TCM pool")
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            tcm,
            ["ALLOC TCM pool 4096 B", "FREE TCM pool 4096 B"],
            "core {core}"
        );
    }
    let err = String::from_utf8(o.stderr).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    assert_eq!(
        err,
        format!(
            "q7emu: timeline {}: {} events, {size} bytes\n",
            path.display(),
            events(&doc).len()
        )
    );
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn a_timeline_is_byte_identical_for_1_2_and_8_threads_and_changes_no_cycle() {
    let dir = TempDir::new("timeline-threads");
    let run = |threads: &str| {
        let path = dir.join(&format!("t{threads}.json"));
        let out = dir.join(&format!("o{threads}.npy"));
        let mut cmd = relu_multicore(&["--threads", threads, "--json", "--timeline"]);
        cmd.arg(&path).arg("--output").arg(&out);
        let o = ok(cmd);
        let report: Value = serde_json::from_slice(&o.stdout).unwrap();
        let cores: Vec<Value> = report["cores"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| json!([c["instructions"], c["cycles"], c["stats"]]))
            .collect();
        (
            std::fs::read(&path).unwrap(),
            cores,
            std::fs::read(&out).unwrap(),
        )
    };
    let one = run("1");
    for threads in ["2", "8"] {
        let other = run(threads);
        assert!(one.0 == other.0, "timeline differs for --threads {threads}");
        assert_eq!(one.1, other.1);
    }
    let plain = dir.join("plain.npy");
    let mut cmd = relu_multicore(&["--threads", "1", "--json", "--output"]);
    cmd.arg(&plain);
    let o = ok(cmd);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let cores: Vec<Value> = report["cores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!([c["instructions"], c["cycles"], c["stats"]]))
        .collect();
    assert_eq!(cores, one.1, "the timeline changes no cycle");
    assert_eq!(std::fs::read(&plain).unwrap(), one.2);
}

/// The cores' instructions, cycles and stats in a `--json` report.
fn core_reports(stdout: &[u8]) -> Vec<Value> {
    let report: Value = serde_json::from_slice(stdout).unwrap();
    report["cores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!([c["instructions"], c["cycles"], c["stats"]]))
        .collect()
}

#[test]
fn a_cores_timeline_stops_at_its_cap_valid_cut_at_one_cycle_and_said_on_stderr() {
    let dir = TempDir::new("timeline-cap");
    let path = dir.join("t.json");
    let mut cmd = relu_multicore(&["--json", "--timeline-max-events", "100", "--timeline"]);
    cmd.arg(&path);
    let o = ok(cmd);
    let plain = ok(relu_multicore(&["--json"]));
    assert_eq!(
        core_reports(&o.stdout),
        core_reports(&plain.stdout),
        "the cap changes no cycle"
    );
    let doc = read(&path);
    assert_eq!(support::timeline::breaches(&doc), Vec::<String>::new());
    // Each core's kernel is 140 events (docs/tracing.md "Size"): 100 kept, 40 left out, 1217
    // less 8 × 40, plus per core the instant and the end of the phase open at the cut.
    assert_eq!(events(&doc).len(), 1217 - 8 * 40 + 8 * 2);
    let mut notes = String::new();
    for core in 0..8u64 {
        let cuts: Vec<&Value> = events(&doc)
            .iter()
            .filter(|e| e["tid"] == core && e["cat"] == "timeline")
            .collect();
        assert_eq!(cuts.len(), 1, "core {core}");
        let cut = cuts[0];
        assert_eq!(
            (&cut["name"], &cut["ph"]),
            (&json!("timeline truncated"), &json!("i"))
        );
        let cycle = u64_of(&cut["args"]["cycle"]);
        assert_eq!(
            cut["args"],
            json!({"cap": 100, "dropped": 40, "cycle": cycle})
        );
        // What is kept: the core's records before the cut (not the firmware's calls, the
        // instant, nor the ends of spans closing with the call) and their transfers.
        let ts = cut["ts"].as_f64().unwrap();
        let kept = events(&doc)
            .iter()
            .filter(|e| e["ph"] != "M")
            .filter(|e| {
                (e["tid"] == core
                    && e["cat"] != "firmware"
                    && e["cat"] != "timeline"
                    && e["ts"].as_f64().unwrap() < ts)
                    || e["tid"] == 200 + 2 * core
                    || e["tid"] == 201 + 2 * core
            })
            .count();
        assert_eq!(kept, 100, "core {core}");
        let closing: Vec<&str> = events(&doc)
            .iter()
            .filter(|e| e["tid"] == core && e["cat"] == "phase" && e["ts"].as_f64().unwrap() > ts)
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            closing,
            ["compute"],
            "core {core}: the phase open at the cut"
        );
        notes.push_str(&format!(
            "q7emu: timeline of core {core} truncated at cycle {cycle}: it reached the cap of \
             100 events (40 more left out; --timeline-max-events N or none)\n"
        ));
    }
    let size = std::fs::metadata(&path).unwrap().len();
    notes.push_str(&format!(
        "q7emu: timeline {}: {} events, {size} bytes\n",
        path.display(),
        events(&doc).len()
    ));
    assert_eq!(String::from_utf8(o.stderr).unwrap(), notes);

    // The same on one thread: the cap is each core's own.
    let one = dir.join("one.json");
    let mut cmd = relu_multicore(&[
        "--threads",
        "1",
        "--timeline-max-events",
        "100",
        "--timeline",
    ]);
    cmd.arg(&one);
    ok(cmd);
    assert!(std::fs::read(&one).unwrap() == std::fs::read(&path).unwrap());

    // No cap, a cap it fits, and the default: the whole timeline, the same bytes.
    let whole = |extra: &[&str]| {
        let path = dir.join("whole.json");
        let mut cmd = relu_multicore(&["--timeline"]);
        cmd.arg(&path).args(extra);
        let o = ok(cmd);
        assert!(!String::from_utf8_lossy(&o.stderr).contains("truncated"));
        std::fs::read(&path).unwrap()
    };
    let default = whole(&[]);
    let doc: Value = serde_json::from_slice(&default).unwrap();
    assert_eq!(events(&doc).len(), 1217);
    assert!(whole(&["--timeline-max-events", "none"]) == default);
    assert!(whole(&["--timeline-max-events", "140"]) == default);
}

#[test]
fn a_bad_cap_is_refused_naming_the_flag() {
    let dir = TempDir::new("timeline-bad-cap");
    let path = dir.join("t.json");
    let cases = [
        ("99", "error: invalid value '99' for '--timeline-max-events <N|none>': 99 events: a timeline cap is at least 100 events per core, or `none` for no cap"),
        ("lots", "error: invalid value 'lots' for '--timeline-max-events <N|none>': \"lots\": invalid digit found in string (expected a 64-bit number, decimal or 0x-hex)"),
    ];
    for (cap, message) in cases {
        let mut cmd = relu_multicore(&["--timeline-max-events", cap, "--timeline"]);
        cmd.arg(&path);
        let o = cmd.output().unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(2), "{cap}: {err}");
        assert!(err.contains(message), "{cap}: {err}");
        assert!(!path.exists(), "nothing ran");
    }
    let o = relu_multicore(&["--timeline-max-events", "1000"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "the cap needs --timeline");
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("the following required arguments were not provided:\n  --timeline <FILE.json>"));
}

#[test]
fn a_faulting_run_still_writes_a_valid_timeline_naming_the_fault() {
    let dir = TempDir::new("timeline-fault");
    let path = dir.join("t.json");
    let mut cmd = relu_multicore(&["--max-cycles", "100000", "--timeline"]);
    cmd.arg(&path);
    let o = cmd.output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(131),
        "runaway (README.md \"Exit codes\")"
    );
    let doc = read(&path);
    assert_eq!(support::timeline::breaches(&doc), Vec::<String>::new());
    for core in 0..8u64 {
        let stops: Vec<&Value> = events(&doc)
            .iter()
            .filter(|e| e["tid"] == core && e["cat"] == "fault")
            .collect();
        assert_eq!(stops.len(), 1, "core {core}");
        assert_eq!(
            stops[0]["name"],
            format!(
                "stopped: {}",
                q7_emulator::fault::FaultKind::BudgetExhausted { max_cycles: 100000 }
            )
        );
    }
}

#[test]
fn a_timeline_that_cannot_be_written_is_refused_before_the_run() {
    let dir = TempDir::new("timeline-refused");
    let path = dir.join("no-such-dir/t.json");
    let mut cmd = relu_multicore(&["--timeline"]);
    cmd.arg(&path);
    let o = cmd.output().unwrap();
    assert_eq!(o.status.code(), Some(1), "bad input");
    assert_eq!(o.stdout, b"", "nothing ran");
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!(
            "q7emu: error: {}: No such file or directory (os error 2)\n",
            path.display()
        )
    );
}

/// A 1-D float32 `.npy` of `values`.
fn npy(values: &[f32]) -> Vec<u8> {
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    q7_tests::npy_1d("<f4", 4, &data)
}

#[test]
fn vector_add_on_eight_elements_has_the_timeline_of_the_snapshot() {
    let dir = TempDir::new("timeline-snapshot");
    let (a, b, path) = (dir.join("a.npy"), dir.join("b.npy"), dir.join("t.json"));
    std::fs::write(&a, npy(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])).unwrap();
    std::fs::write(&b, npy(&[0.5; 8])).unwrap();
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(example("vector_add").join("build"))
        .args(["--op", "vector_add", "--input"])
        .arg(&a)
        .arg("--input")
        .arg(&b)
        .arg("--timeline")
        .arg(&path);
    let o = ok(cmd);
    assert!(String::from_utf8_lossy(&o.stdout).contains("[1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5]"));
    let doc = read(&path);
    assert_eq!(support::timeline::breaches(&doc), Vec::<String>::new());
    let names = track_names(&doc);
    assert_eq!(names[&0], "core 0 (vector_add.packed.so)");
    assert_eq!(
        names.keys().filter(|t| **t < 100).count(),
        1,
        "one core track for a single-core library"
    );
    let phases: Vec<&str> = events(&doc)
        .iter()
        .filter(|e| e["cat"] == "phase" && e["ph"] == "B")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["setup", "marshal", "compute", "return", "cleanup"]);
    q7_testing::snapshot_settings!().bind(|| {
        insta::assert_json_snapshot!("vector_add_8", doc);
    });
}

#[q7_requires::needs(toolchain)]
#[test]
fn an_unstripped_image_gives_function_spans_of_its_calls_and_returns() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("timeline-fn");
    let build = support::build_k(&dir, support::ADD_ONE_KERNEL, "build", &[]);
    let (input, path) = (dir.join("x.npy"), dir.join("t.json"));
    std::fs::write(&input, npy(&[1.0, 2.0, 3.0, 4.0])).unwrap();
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(&build)
        .args(["--op", "k", "--input"])
        .arg(&input)
        .arg("--timeline")
        .arg(&path);
    ok(cmd);
    let doc = read(&path);
    assert_eq!(support::timeline::breaches(&doc), Vec::<String>::new());
    assert_eq!(track_names(&doc)[&100], "core 0 functions");
    let spans: Vec<(&str, &str)> = events(&doc)
        .iter()
        .filter(|e| e["tid"] == 100 && e["ph"] != "M")
        .map(|e| (e["ph"].as_str().unwrap(), e["name"].as_str().unwrap()))
        .collect();
    // The start symbol's chain, then the launcher's: the kernel runs inside its wrapper.
    assert_eq!(spans[..2], [("B", "_start"), ("B", "entry_func")]);
    let depth_of = |name: &str| -> Vec<String> {
        let mut stack: Vec<&str> = Vec::new();
        for (ph, n) in &spans {
            if *ph == "B" {
                stack.push(n);
                if *n == name {
                    return stack.iter().map(|s| s.to_string()).collect();
                }
            } else {
                stack.pop();
            }
        }
        panic!("no span {name}");
    };
    let chain = depth_of("k(at::Tensor const&)");
    assert_eq!(
        chain[..2],
        [
            "k_stack_switch()".to_string(),
            "switch_stack_or_call_wrapper(unsigned int, unsigned int)".to_string()
        ]
    );
    assert!(chain.contains(&"k_wrapper()".to_string()), "{chain:?}");
    assert_eq!(chain.last().unwrap(), "k(at::Tensor const&)");
    // Every element access of the accessor goes through the runtime's translate path.
    let misses = spans
        .iter()
        .filter(|s| *s == &("B", "q7_translate_miss"))
        .count();
    assert!(misses >= 8, "{misses}");
    assert!(
        events(&doc).iter().any(|e| e["cat"] == "translate"),
        "the runtime programs a dynamic window"
    );

    // Capped, the spans open at the cut end there: the file stays valid.
    let capped = dir.join("capped.json");
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(&build)
        .args(["--op", "k", "--input"])
        .arg(&input)
        .args(["--timeline-max-events", "100", "--timeline"])
        .arg(&capped);
    let o = ok(cmd);
    let doc = read(&capped);
    assert_eq!(support::timeline::breaches(&doc), Vec::<String>::new());
    let cut = events(&doc)
        .iter()
        .find(|e| e["cat"] == "timeline")
        .expect("cut");
    let ts = |e: &Value| e["ts"].as_f64().unwrap();
    let functions: Vec<&Value> = events(&doc)
        .iter()
        .filter(|e| e["tid"] == 100 && e["ph"] != "M")
        .collect();
    assert!(functions.iter().all(|e| ts(e) <= ts(cut)));
    let last = functions.last().unwrap();
    assert_eq!((&last["ph"], ts(last)), (&json!("E"), ts(cut)));
    assert!(String::from_utf8(o.stderr).unwrap().starts_with(&format!(
        "q7emu: timeline of core 0 truncated at cycle {}: it reached the cap of 100 events (",
        cut["args"]["cycle"]
    )));
}
