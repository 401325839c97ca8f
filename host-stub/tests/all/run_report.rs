//! The `q7emu run` report (docs/run-report.md) on the committed builds of
//! `examples/kernels` (no toolchain needed): every per-core counter of the 8-core ReLU, the
//! identities that tie the counters together, the bytes the kernel's DMA moves, its stack depth
//! against the firmware's limit; timing profiles (`--timing`, docs/timing.md) in
//! JSON and TOML for `run`, `run-packed` and `run-elf`; and the progress line, drawn on a
//! terminal only.

use crate::support;

use support::{q7emu, success};

use std::path::Path;
use std::process::{Command, Stdio};

use q7_emulator::TimingModel;
use q7_runtime::firmware::{CALL_SP, STACK_LIMIT};
use q7_runtime::timing_profile::Profile;
use q7_tests::TempDir;
use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The committed 8-core ReLU on its committed input, as the README's main job runs it.
fn relu_multicore() -> Vec<String> {
    [
        "run",
        "examples/kernels/relu_multicore/build",
        "--op",
        "relu_forward",
        "--input",
        "examples/kernels/relu_multicore/input.npy",
    ]
    .map(String::from)
    .to_vec()
}

/// `q7emu ARGS... --json` from the repository root: the report.
fn json_report(args: &[String]) -> Value {
    let out = q7emu()
        .current_dir(ROOT)
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    serde_json::from_str(&success(out, &args.join(" "))).unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("{v} is not an unsigned integer"))
}

/// The stall categories of a core's report (its JSON keys), in the order of `Stalls::list`:
/// each label with dashes for underscores.
static STALLS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    q7_emulator::Stalls::default()
        .list()
        .iter()
        .map(|(label, _)| label.replace('-', "_"))
        .collect()
});

fn stalls(core: &Value) -> Vec<u64> {
    STALLS
        .iter()
        .map(|s| u(&core["stats"]["stalls"][s]))
        .collect()
}

/// Every counter of every core of the 8-core ReLU with the default timing, each from the
/// report's one source: the identities between them hold here, and their values are the
/// snapshot `snapshots/all__run_report__relu_multicore-counters.snap` (the one place the golden
/// counters live; docs/run-report.md and README.md show the text a run prints, checked against
/// a run by host-stub/tests/all/examples.rs).
#[test]
fn the_8_core_relu_reports_every_counter_of_every_core() {
    let r = json_report(&relu_multicore());
    let cores = r["cores"].as_array().unwrap();
    assert_eq!(cores.len(), 8);
    for (n, core) in cores.iter().enumerate() {
        assert_eq!(u(&core["core"]), n as u64);
        assert_eq!(
            core["response"], 0,
            "TPB_WRITE_RESPONSE of customop_cleanup"
        );
        let (insns, cycles) = (u(&core["instructions"]), u(&core["cycles"]));
        let ipc = core["ipc"].as_f64().unwrap();
        assert!(
            (ipc - insns as f64 / cycles as f64).abs() < 1e-12,
            "IPC {ipc}"
        );
        assert_eq!(u(&core["stall_cycles"]), stalls(core).iter().sum::<u64>());
        // SRAM accesses and I-cache refills cost `sram_latency`, 0 by default; no HBM access
        // goes through a window; ReLU does not multiply, nor print.
        let by_name: Vec<(&str, u64)> = STALLS
            .iter()
            .map(String::as_str)
            .zip(stalls(core))
            .collect();
        for zero in ["multiply", "hbm", "sram", "fetch", "host_io"] {
            assert!(by_name.contains(&(zero, 0)), "core {n}: {by_name:?}");
        }
        assert_eq!(
            (
                core["windows"]["hbm_accesses"].clone(),
                core["windows"]["maps"].clone()
            ),
            (Value::from(0), Value::from(0)),
            "core {n}: the input and output are reached by DMA, so no window is mapped and \
             every data access through a window is one of the image's SRAM"
        );
    }
    let total: u64 = cores.iter().map(|c| u(&c["instructions"])).sum();
    assert_eq!(u(&r["instructions"]), total);
    assert_eq!(r["timing"]["source"], Value::Null);
    assert_eq!(
        r["timing"]["model"],
        serde_json::to_value(TimingModel::default()).unwrap()
    );
    assert!(r["mips"].as_f64().unwrap() > 0.0);

    let counters: Vec<Value> = cores
        .iter()
        .map(|c| {
            serde_json::json!({
                "core": c["core"],
                "instructions": c["instructions"],
                "cycles": c["cycles"],
                "exceptions": c["exceptions"],
                "stalls": c["stats"]["stalls"],
                "sdma": c["sdma"],
                "windows": c["windows"],
                "icache": c["icache"],
                "stack": c["stack"],
            })
        })
        .collect();
    q7_testing::snapshot_settings!().bind(|| {
        insta::assert_json_snapshot!("relu_multicore-counters", counters);
    });
}

/// `cycles − stall cycles = issue × (instructions + exceptions − 1)` for `core` of a dispatch:
/// every cycle is a stall of one category or the issue cycle of a completed instruction or of
/// an exception entry, but for the semihosting exit of the firmware's trampoline, which counts
/// as an instruction and stops the core before its cycle.
fn assert_issue_identity(core: &Value, issue: u64) {
    let s = &core["stats"];
    let (cycles, insns, exceptions) = (u(&s["cycles"]), u(&s["instructions"]), u(&s["exceptions"]));
    let stalled: u64 = stalls(core).iter().sum();
    assert_eq!(
        cycles - stalled,
        issue * (insns + exceptions - 1),
        "core {}: {cycles} cycles, {stalled} stalled, {insns} instructions, {exceptions} exceptions",
        core["core"]
    );
}

#[test]
fn every_cycle_is_an_issue_cycle_or_a_stall_of_one_category() {
    for args in [
        relu_multicore(),
        [
            "run",
            "examples/kernels/relu_tcm/build",
            "--op",
            "relu_forward",
            "--input",
            "examples/kernels/relu_multicore/input.npy",
        ]
        .map(String::from)
        .to_vec(),
    ] {
        for core in json_report(&args)["cores"].as_array().unwrap() {
            assert_issue_identity(core, 1);
        }
    }
}

#[test]
fn hbm_sram_and_fetch_stalls_are_window_hits_and_icache_misses_at_their_latencies() {
    // The element-accessor ReLU reaches its tensors through a dynamic window (HBM) and its
    // runtime's literals and globals in the image window (SRAM); a profile gives both classes
    // a latency so that every product shows.
    let dir = TempDir::new("timing-classes");
    let path = profile(
        &dir,
        "classes.toml",
        "hbm_latency = 150\nsram_latency = 3\n",
    );
    let args: Vec<String> = [
        "run",
        "examples/kernels/relu_element/build",
        "--op",
        "relu_backward",
        "--input",
        "examples/kernels/relu_element/grad.npy",
        "--input",
        "examples/kernels/relu_element/x.npy",
    ]
    .map(String::from)
    .to_vec();
    for (report, hbm, sram) in [
        (json_report(&with_timing(args.clone(), &path)), 150, 3),
        (json_report(&args), 126, 0),
    ] {
        let core = &report["cores"][0];
        let (s, w) = (&core["stats"]["stalls"], &core["windows"]);
        // Per element of 16×64: the input read, the output written, the gradient read where
        // the input is positive.
        assert!(u(&w["hbm_accesses"]) >= 2 * 16 * 64, "{w}");
        assert!(u(&w["sram_accesses"]) > u(&w["hbm_accesses"]), "{w}");
        assert_eq!(u(&s["hbm"]), u(&w["hbm_accesses"]) * hbm);
        assert_eq!(u(&s["sram"]), u(&w["sram_accesses"]) * sram);
        assert_eq!(u(&s["fetch"]), u(&core["icache"]["misses"]) * sram);
        assert_issue_identity(core, 1);
    }
    assert_eq!(TimingModel::default().hbm_latency, 126);
    assert_eq!(TimingModel::default().sram_latency, 0);
}

#[test]
fn the_dma_counters_are_the_bytes_the_tcm_kernel_moves() {
    // Each core takes 32·4096 / 8 float32 elements and moves them in 1024-element (4 KiB)
    // chunks: in with tensor_to_tcm (M2S), out with tcm_to_tensor (S2M), straight into the
    // output of get_dst_tensor(), so nothing else is copied.
    let slice_bytes = 32 * 4096 / 8 * 4;
    let chunks = slice_bytes / 4096;
    let t = TimingModel::default();
    let busy = chunks * u64::from(t.sdma_latency) + slice_bytes / u64::from(t.sdma_bytes_per_cycle);
    for core in json_report(&relu_multicore())["cores"].as_array().unwrap() {
        for queue in ["m2s", "s2m"] {
            assert_eq!(
                core["sdma"][queue],
                serde_json::json!({
                    "transfers": chunks,
                    "bytes": slice_bytes,
                    "busy_cycles": busy,
                }),
                "core {} {queue}",
                core["core"]
            );
        }
    }
    assert_eq!(busy, 4224);
}

#[test]
fn the_stack_depth_is_measured_from_the_call_sp_against_the_firmware_limit() {
    assert_eq!(
        CALL_SP - STACK_LIMIT,
        32736,
        "PLATFORM.md \"Runtime memory\""
    );
    for core in json_report(&relu_multicore())["cores"].as_array().unwrap() {
        let st = &core["stack"];
        let (lowest, bytes, limit) = (u(&st["lowest_sp"]), u(&st["bytes"]), u(&st["limit"]));
        assert_eq!(limit, u64::from(CALL_SP - STACK_LIMIT));
        assert_eq!(lowest, u64::from(CALL_SP) - bytes);
        assert!(bytes <= limit, "{bytes} bytes used of {limit}");
        assert_eq!(lowest, 0x020f_fce0);
    }
}

#[test]
fn the_text_report_gives_each_cores_counters() {
    let out = q7emu()
        .current_dir(ROOT)
        .args(relu_multicore())
        .output()
        .unwrap();
    let text = success(out, "relu_multicore");
    let core3: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("core 3:"))
        .take(5)
        .collect();
    // The same run's JSON gives the numbers; the text puts them in words.
    let json = json_report(&relu_multicore());
    let c = &json["cores"][3];
    let s = &c["stats"]["stalls"];
    // Each category with cycles, as `label cycles`: the label is the JSON key with dashes.
    let named: Vec<String> = STALLS
        .iter()
        .filter(|key| u(&s[key]) > 0)
        .map(|key| format!("{} {}", key.replace('_', "-"), s[key]))
        .collect();
    let queue = |q: &Value| {
        format!(
            "{} bytes in {} transfers, busy {} cycles",
            q["bytes"], q["transfers"], q["busy_cycles"]
        )
    };
    assert_eq!(
        core3,
        [
            format!(
                "core 3: {} instructions, {} cycles, IPC {:.3}, {} exceptions",
                c["instructions"],
                c["cycles"],
                c["ipc"].as_f64().unwrap(),
                c["exceptions"]
            ),
            format!(
                "  stalls {} cycles: {}",
                c["stall_cycles"],
                named.join(", ")
            ),
            format!(
                "  sdma M2S {}; S2M {}",
                queue(&c["sdma"]["m2s"]),
                queue(&c["sdma"]["s2m"])
            ),
            format!(
                "  windows {} HBM and {} SRAM data accesses (hits), {} maps (misses); \
                 i-cache {} lookups, {} misses",
                c["windows"]["hbm_accesses"],
                c["windows"]["sram_accesses"],
                c["windows"]["maps"],
                c["icache"]["lookups"],
                c["icache"]["misses"]
            ),
            format!(
                "  stack {} of {} bytes (lowest SP {:#010x})",
                c["stack"]["bytes"],
                c["stack"]["limit"],
                u(&c["stack"]["lowest_sp"])
            ),
        ]
    );
    assert_eq!(text.lines().last(), Some("timing: default"));
}

// ---------------------------------------------------------------------------------------------
// Timing profiles.

/// Writes `text` to `name` in `dir`; its path.
fn profile(dir: &TempDir, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn with_timing(mut args: Vec<String>, path: &str) -> Vec<String> {
    args.extend(["--timing".to_string(), path.to_string()]);
    args
}

#[test]
fn a_load_use_profile_changes_the_cycles_by_the_load_use_stalls() {
    let dir = TempDir::new("timing-load-use");
    let default = json_report(&relu_multicore());
    let none = json_report(&with_timing(
        relu_multicore(),
        &profile(&dir, "none.json", r#"{ "load_use": 0 }"#),
    ));
    let two = json_report(&with_timing(
        relu_multicore(),
        &profile(&dir, "two.toml", "load_use = 2\n"),
    ));
    let cores = |r: &Value| r["cores"].as_array().unwrap().clone();
    for (n, ((d, z), t)) in cores(&default)
        .iter()
        .zip(cores(&none))
        .zip(cores(&two))
        .enumerate()
    {
        let (ds, zs, ts) = (stalls(d), stalls(&z), stalls(&t));
        // The instruction stream is the same but for the polls of the last DMA wait; the
        // load-use interlocks move, and with them how long the kernel waits for its last DMA
        // transfers (device-wait), nothing else.
        const DEVICE_WAIT: usize = 8;
        assert_eq!(STALLS[DEVICE_WAIT], "device_wait");
        assert_eq!(d["instructions"], z["instructions"]);
        assert_eq!(d["instructions"], t["instructions"]);
        assert_eq!(zs[0], 0, "core {n}: no load-use stall without the delay");
        assert_eq!(
            u(&z["cycles"]),
            u(&d["cycles"]) - ds[0] - ds[DEVICE_WAIT] + zs[DEVICE_WAIT],
            "core {n}"
        );
        for (i, category) in STALLS.iter().enumerate().skip(1) {
            if i != DEVICE_WAIT {
                assert_eq!((zs[i], ts[i]), (ds[i], ds[i]), "core {n}: {category}");
            }
        }
        assert_eq!(
            u(&t["cycles"]),
            u(&d["cycles"]) - ds[0] - ds[DEVICE_WAIT] + ts[0] + ts[DEVICE_WAIT],
            "core {n}"
        );
        assert_issue_identity(&z, 1);
        assert_issue_identity(&t, 1);
    }
    // A two-cycle delay also stalls a consumer one instruction later, so it costs more than
    // twice the one-cycle stalls.
    let two_cycles: Vec<u64> = cores(&two).iter().map(|c| u(&c["cycles"])).collect();
    assert_eq!(
        two_cycles,
        [991226, 991442, 991290, 991510, 991131, 991128, 991266, 991319]
    );
    let two_stalls: Vec<u64> = cores(&two).iter().map(|c| stalls(c)[0]).collect();
    assert_eq!(
        two_stalls,
        [33959, 34175, 34023, 34243, 33889, 33861, 33999, 34053]
    );
    assert_eq!(two["timing"]["model"]["load_use"], 2);
    assert!(two["timing"]["source"]
        .as_str()
        .unwrap()
        .ends_with("two.toml"));
}

#[test]
fn toml_and_json_profiles_give_the_same_model() {
    let dir = TempDir::new("timing-formats");
    let json = profile(
        &dir,
        "p.json",
        r#"{ "hbm_latency": 40, "sdma_latency": 100, "icache_ways": 2 }"#,
    );
    let toml = profile(
        &dir,
        "p.toml",
        "# a slower I-cache, faster HBM\nhbm_latency = 40\nsdma_latency = 100\nicache_ways = 2\n",
    );
    let want = TimingModel {
        hbm_latency: 40,
        sdma_latency: 100,
        icache_ways: 2,
        ..TimingModel::default()
    };
    assert_eq!(Profile::load(Path::new(&json)).unwrap().model, want);
    assert_eq!(Profile::load(Path::new(&toml)).unwrap().model, want);
    let a = json_report(&with_timing(relu_multicore(), &json));
    let b = json_report(&with_timing(relu_multicore(), &toml));
    assert_eq!(a["timing"]["model"], b["timing"]["model"]);
    assert_eq!(a["timing"]["model"], serde_json::to_value(&want).unwrap());
    assert_eq!(a["cores"][7]["cycles"], b["cores"][7]["cycles"]);
    let out = q7emu()
        .current_dir(ROOT)
        .args(with_timing(relu_multicore(), &toml))
        .output()
        .unwrap();
    let text = success(out, "run --timing p.toml");
    assert_eq!(
        text.lines().last().unwrap(),
        format!(
            "timing: {toml}: hbm_latency 40 (default 126), icache_ways 2 (default 4), \
             sdma_latency 100 (default 200)"
        )
    );
}

/// The keys of a timing profile, as the error for an unknown one lists them.
const KEYS: &str = "divide, exception_entry, exception_return, hbm_latency, icache_bytes, \
                    icache_line, icache_ways, issue, load_use, loop_back, mul_high_use, mul_use, \
                    sdma_bytes_per_cycle, sdma_latency, semihost_write_byte, sram_latency, \
                    taken_branch";

/// Runs `q7emu ARGS...`, which must fail with exit code 1 (bad input); its stderr.
fn refused(args: &[String]) -> String {
    let out = q7emu().current_dir(ROOT).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn an_unknown_key_is_refused_naming_it_and_the_file() {
    let dir = TempDir::new("timing-unknown");
    for (name, text) in [
        ("bad.toml", "load_use = 1\nload_uze = 2\n"),
        ("bad.json", r#"{"load_use": 1, "load_uze": 2}"#),
    ] {
        let path = profile(&dir, name, text);
        assert_eq!(
            refused(&with_timing(relu_multicore(), &path)),
            format!(
                "q7emu: error: {path}: unknown key `load_uze` (the timing model's keys: {KEYS})\n"
            )
        );
    }
}

#[test]
fn a_model_outside_its_bounds_is_refused_before_the_run() {
    // A zero-byte I-cache line would divide by zero building the cache; a zero issue cost
    // would let a runaway loop never reach its cycle budget (q7_emulator::timing::bounds).
    let dir = TempDir::new("timing-bounds");
    for (name, text, why) in [
        ("line.toml", "icache_line = 0\n", "`icache_line` is 0: a power of two up to 4096"),
        (
            "issue.json",
            r#"{"issue": 0}"#,
            "`issue` is 0: at least 1 (an instruction that takes no cycle would never end a budget)",
        ),
    ] {
        let path = profile(&dir, name, text);
        assert_eq!(
            refused(&with_timing(relu_multicore(), &path)),
            format!("q7emu: error: {path}: {why}\n")
        );
    }
}

#[test]
fn docs_timing_md_states_the_bounds_of_the_code() {
    use q7_emulator::timing::bounds::{MAX_ICACHE_BYTES, MAX_ICACHE_LINE, MAX_ICACHE_WAYS};
    let doc = include_str!("../../../docs/timing.md").replace('\n', " ");
    let stated = format!(
        "`icache_line` a power of two up to {MAX_ICACHE_LINE}, `icache_ways` 1 to \
         {MAX_ICACHE_WAYS}, `icache_bytes` a multiple of line × ways up to {} MiB",
        MAX_ICACHE_BYTES >> 20
    );
    assert!(doc.contains(&stated), "docs/timing.md lacks {stated:?}");
}

#[test]
fn a_value_of_the_wrong_type_is_refused_naming_the_key_and_the_type() {
    let dir = TempDir::new("timing-type");
    for (name, text, found) in [
        ("t.toml", "divide = \"32\"\n", "string \"32\""),
        ("t.json", r#"{"divide": 1.5}"#, "floating point `1.5`"),
        ("u.toml", "divide = true\n", "boolean `true`"),
    ] {
        let path = profile(&dir, name, text);
        assert_eq!(
            refused(&with_timing(relu_multicore(), &path)),
            format!("q7emu: error: {path}: key `divide`: invalid type: {found}, expected u32\n")
        );
    }
    let path = profile(&dir, "neg.json", r#"{"issue": -1}"#);
    assert_eq!(
        refused(&with_timing(relu_multicore(), &path)),
        format!("q7emu: error: {path}: key `issue`: invalid value: integer `-1`, expected u32\n")
    );
    let path = profile(&dir, "p.yaml", "issue: 1\n");
    assert_eq!(
        refused(&with_timing(relu_multicore(), &path)),
        format!("q7emu: error: {path}: a timing profile is a .json or a .toml file\n")
    );
    let path = profile(&dir, "list.json", "[1, 2]");
    assert_eq!(
        refused(&with_timing(relu_multicore(), &path)),
        format!("q7emu: error: {path}: a timing profile is a table of keys, not an array\n")
    );
}

#[test]
fn run_packed_takes_a_profile_too() {
    // The minimal kernel of examples/kernels/minimal runs from its image window and waits on
    // no device, so an SRAM latency adds exactly the sram and fetch stalls to its cycles.
    let dir = TempDir::new("timing-run-packed");
    let report = |timing: Option<&str>| -> Value {
        let json = dir.join("r.json");
        let mut cmd = q7emu();
        cmd.current_dir(ROOT).args([
            "run-packed",
            "--key",
            "0x185",
            "--arg",
            "10",
            "--json-file",
            &json.display().to_string(),
        ]);
        if let Some(t) = timing {
            cmd.args(["--timing", t]);
        }
        success(
            cmd.arg("examples/kernels/minimal/minimal.so")
                .output()
                .unwrap(),
            "run-packed",
        );
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
    };
    let default = report(None);
    let slow = report(Some(&profile(&dir, "slow.toml", "sram_latency = 100\n")));
    for (d, w) in default["dispatches"][0]
        .as_array()
        .unwrap()
        .iter()
        .zip(slow["dispatches"][0].as_array().unwrap())
    {
        let s = &w["stats"]["stalls"];
        assert_eq!(
            u(&w["stats"]["cycles"]),
            u(&d["stats"]["cycles"]) + u(&s["sram"]) + u(&s["fetch"])
        );
        assert_eq!(d["stats"]["stalls"]["sram"], 0);
        assert_eq!(d["platform"]["windows"], w["platform"]["windows"]);
        assert_eq!(
            u(&s["sram"]),
            100 * u(&w["platform"]["windows"]["sram_accesses"])
        );
    }
    assert_eq!(default["dispatches"][0][0]["stats"]["cycles"], 35);
    assert_eq!(slow["dispatches"][0][0]["stats"]["cycles"], 1235);
}

#[q7_requires::needs(toolchain)]
#[test]
fn run_elf_takes_a_profile_too() {
    let Some(prog) = q7_tests::build::build_sim(
        "timing",
        &[(
            "t.c",
            "int main(void) { volatile int s = 0; for (int i = 0; i < 100; i++) s += i; return s & 0x7f; }",
        )],
        &[],
    ) else {
        return;
    };
    let dir = TempDir::new("timing-run-elf");
    let stats = |timing: Option<&str>| -> Value {
        let json = dir.join("s.json");
        let mut cmd = q7emu();
        cmd.arg("run-elf").arg("--json-file").arg(&json);
        if let Some(t) = timing {
            cmd.args(["--timing", t]);
        }
        let out = cmd.arg(&prog.elf).output().unwrap();
        assert_eq!(out.status.code(), Some(4950 & 0x7f));
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
    };
    let default = stats(None);
    let path = profile(&dir, "tb.json", r#"{ "taken_branch": 0 }"#);
    let no_branch = stats(Some(&path));
    // A bare-metal core has no devices to wait on: the taken-branch stalls are all that goes.
    assert_eq!(
        u(&no_branch["cycles"]),
        u(&default["cycles"]) - u(&default["stats"]["stalls"]["taken_branch"])
    );
    assert_eq!(no_branch["timing"]["taken_branch"], 0);
}

// ---------------------------------------------------------------------------------------------
// The progress line.

/// The variable that shows the progress line at once, so that any run is long enough to draw it.
const AT_ONCE: (&str, &str) = ("Q7EMU_PROGRESS_AFTER_MS", "0");

/// The command line of `q7emu ARGS...` for a shell, each word quoted.
fn shell_line(args: &[String]) -> String {
    std::iter::once(env!("CARGO_BIN_EXE_q7emu").to_string())
        .chain(args.iter().cloned())
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a terminal shows of `q7emu ARGS...` run on one (`script` gives it a pseudo-terminal
/// for stdin, stdout and stderr), with the progress line drawn at once.
fn on_a_terminal(args: &[String]) -> String {
    let out = Command::new("script")
        .args(["-qec", &shell_line(args), "/dev/null"])
        .current_dir(ROOT)
        .env(AT_ONCE.0, AT_ONCE.1)
        .stdin(Stdio::null())
        .output()
        .expect("script (util-linux) runs");
    success(out, "script")
}

/// Whether `text` holds any of the progress line: its words or the terminal escapes it draws
/// with.
fn has_progress(text: &str) -> bool {
    text.contains("cores finished") || text.contains('\x1b')
}

#[test]
fn a_run_with_stdout_and_stderr_piped_draws_no_progress_line() {
    let out = q7emu()
        .current_dir(ROOT)
        .args(relu_multicore())
        .env(AT_ONCE.0, AT_ONCE.1)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "", "stderr");
    assert!(!has_progress(&String::from_utf8(out.stdout).unwrap()));
}

#[test]
fn on_a_terminal_the_progress_line_is_drawn_unless_the_output_is_json() {
    let shown = on_a_terminal(&relu_multicore());
    assert!(shown.contains(" cores finished, cycles "), "{shown:?}");
    assert!(shown.contains("/8 cores finished"), "{shown:?}");
    assert!(
        shown.contains("core 7: 651976 instructions"),
        "the report follows"
    );
    let mut json = relu_multicore();
    json.push("--json".into());
    let quiet = on_a_terminal(&json);
    assert!(!has_progress(&quiet), "{quiet:?}");
    assert!(quiet.contains("\"cores\""), "{quiet:?}");
}

#[test]
fn run_packed_draws_the_line_per_dispatch_on_a_terminal_only() {
    let args: Vec<String> = [
        "run-packed",
        "--key",
        "0x185",
        "--arg",
        "1",
        "--dispatches",
        "2",
        "examples/kernels/minimal/minimal.so",
    ]
    .map(String::from)
    .to_vec();
    let shown = on_a_terminal(&args);
    assert!(shown.contains("dispatch 1/2: "), "{shown:?}");
    let piped = q7emu()
        .current_dir(ROOT)
        .args(&args)
        .env(AT_ONCE.0, AT_ONCE.1)
        .output()
        .unwrap();
    assert!(piped.status.success());
    assert!(piped.stderr.is_empty());
    assert!(!has_progress(&String::from_utf8(piped.stdout).unwrap()));
}

// ---------------------------------------------------------------------------------------------
// docs/timing.md.

#[test]
fn docs_timing_md_profiles_are_one_model_and_its_error_is_printed() {
    let section = q7_tests::doc::read("docs/timing.md");
    let dir = TempDir::new("timing-readme");
    let toml = profile(
        &dir,
        "readme.toml",
        &q7_tests::doc::first_fenced(&section, "toml"),
    );
    let json = profile(
        &dir,
        "readme.json",
        &q7_tests::doc::first_fenced(&section, "json"),
    );
    let want = TimingModel {
        hbm_latency: 200,
        load_use: 2,
        ..TimingModel::default()
    };
    assert_eq!(Profile::load(Path::new(&toml)).unwrap().model, want);
    assert_eq!(Profile::load(Path::new(&json)).unwrap().model, want);

    // The error the section quotes, for a profile `slow.toml` given from its directory.
    profile(&dir, "slow.toml", "load_use = \"2\"\n");
    let root = Path::new(ROOT);
    let out = q7emu()
        .current_dir(dir.join(""))
        .arg("run")
        .arg(root.join("examples/kernels/relu_multicore/build"))
        .args(["--op", "relu_forward", "--input"])
        .arg(root.join("examples/kernels/relu_multicore/input.npy"))
        .args(["--timing", "slow.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let error = String::from_utf8(out.stderr).unwrap();
    assert!(
        section.contains(&format!("`` {} ``", error.trim_end())),
        "docs/timing.md does not quote {error:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// docs/timing.md "Bounds": the identities under any accepted profile.

#[test]
fn docs_timing_md_bounds_table_is_the_codes() {
    use q7_emulator::timing::bounds::KEYS;
    let doc = q7_tests::doc::read("docs/timing.md");
    let rows = q7_tests::doc::table_after(&doc, "## Bounds");
    let theirs: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| {
            let greatest = r[2].split(' ').next().unwrap().to_string();
            (r[0].clone(), r[1].clone(), greatest)
        })
        .collect();
    let ours: Vec<(String, String, String)> = KEYS
        .iter()
        .map(|k| (format!("`{}`", k.key), k.min.to_string(), k.max.to_string()))
        .collect();
    assert_eq!(theirs, ours);
}

#[test]
fn a_key_past_its_bound_is_refused_as_docs_timing_md_quotes() {
    let doc = q7_tests::doc::read("docs/timing.md").replace('\n', " ");
    let dir = TempDir::new("timing-past-bound");
    profile(&dir, "p.toml", "load_use = 4294967295\n");
    let root = Path::new(ROOT);
    let out = q7emu()
        .current_dir(dir.join(""))
        .arg("run")
        .arg(root.join("examples/kernels/relu_multicore/build"))
        .args(["--op", "relu_forward", "--input"])
        .arg(root.join("examples/kernels/relu_multicore/input.npy"))
        .args(["--timing", "p.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let error = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        error,
        "q7emu: error: p.toml: `load_use` is 4294967295: at most 1000000 (docs/timing.md \
         \"Bounds\")\n"
    );
    assert!(
        doc.contains(&format!("`` {} ``", error.trim_end())),
        "docs/timing.md does not quote {error:?}"
    );
}

/// A deterministic generator of profile values (xorshift64*), so that the sampled profiles
/// are the same on every run.
struct Sampler(u64);

impl Sampler {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value of `lo..=hi`: either bound, or one between.
    fn within(&mut self, lo: u32, hi: u32) -> u32 {
        match self.next() % 3 {
            0 => lo,
            1 => hi,
            _ => lo + (self.next() % (u64::from(hi - lo) + 1)) as u32,
        }
    }
}

/// `model` with key `key` set to `value`.
fn with_key(model: &TimingModel, key: &str, value: u32) -> TimingModel {
    let mut v = serde_json::to_value(model).unwrap();
    v[key] = serde_json::json!(value);
    serde_json::from_value(v).unwrap()
}

/// The extreme profiles: every key at its least, every key at its greatest, each cycle key
/// alone at its greatest, and sampled ones (each key at a bound or between, the I-cache
/// geometry a valid one).
fn extreme_profiles() -> Vec<TimingModel> {
    use q7_emulator::timing::bounds::{KEYS, MAX_ICACHE_BYTES, MAX_ICACHE_LINES};
    let geometry = |m: &TimingModel, line: u32, ways: u32, sets: u32| {
        let m = with_key(m, "icache_line", line);
        let m = with_key(&m, "icache_ways", ways);
        with_key(&m, "icache_bytes", line * ways * sets)
    };
    let cycle_keys: Vec<_> = KEYS
        .iter()
        .filter(|k| !k.key.starts_with("icache_"))
        .collect();
    let mut least = TimingModel::default();
    let mut greatest = TimingModel::default();
    for k in &cycle_keys {
        least = with_key(&least, k.key, k.min);
        greatest = with_key(&greatest, k.key, k.max);
    }
    let mut profiles = vec![
        TimingModel::default(),
        geometry(&least, 1, 1, 1),
        geometry(&greatest, 4096, 64, 64),
        geometry(&greatest, 1, 1, MAX_ICACHE_LINES),
        geometry(&least, 64, 1, MAX_ICACHE_LINES),
    ];
    for k in &cycle_keys {
        profiles.push(with_key(&TimingModel::default(), k.key, k.max));
    }
    let mut s = Sampler(0x9e37_79b9_7f4a_7c15);
    for _ in 0..12 {
        let mut m = TimingModel::default();
        for k in &cycle_keys {
            let v = s.within(k.min, k.max);
            m = with_key(&m, k.key, v);
        }
        let line = 1 << s.within(0, 12);
        let ways = s.within(1, 64);
        let lines = (MAX_ICACHE_BYTES / line).min(MAX_ICACHE_LINES);
        let sets = s.within(1, lines / ways);
        profiles.push(geometry(&m, line, ways, sets));
    }
    for m in &profiles {
        assert_eq!(m.check(), Ok(()), "{m}");
    }
    profiles
}

#[test]
fn the_run_report_identities_hold_under_every_extreme_accepted_profile() {
    // docs/run-report.md's identities, on the element-accessor ReLU (HBM through a dynamic
    // window, its runtime in SRAM, SDMA, exceptions) and the 8-core TCM ReLU (SDMA waits), on
    // small inputs, under each profile of `extreme_profiles`, with a budget no profile meets.
    use q7_run::op::{self, Library, OpRequest};
    use q7_testing::tensor;
    let x = tensor(&[2, 4], &[1.0f32, -2.0, 3.0, -4.0, 5.0, 6.0, -7.0, 8.0]).unwrap();
    let wide: Vec<f32> = (0..32 * 64).map(|i| i as f32 - 1000.0).collect();
    let tcm_in = tensor(&[32, 64], &wide).unwrap();
    let root = Path::new(ROOT);
    let cases = [
        (
            Library::open(&root.join("examples/kernels/relu_element/build")).unwrap(),
            "relu_backward",
            vec![x.clone(), x],
        ),
        (
            Library::open(&root.join("examples/kernels/relu_tcm/build")).unwrap(),
            "relu_forward",
            vec![tcm_in],
        ),
    ];
    for model in extreme_profiles() {
        for (lib, op, inputs) in &cases {
            let req = OpRequest {
                op: op.to_string(),
                inputs: inputs.iter().cloned().map(Into::into).collect(),
                scalars: vec![],
                out_dtype: None,
                out_shape: None,
                threads: 2,
                jit: q7_emulator::jit::default_on(),
                call_budget: u64::MAX / 4,
                timing: Profile {
                    source: None,
                    model: model.clone(),
                },
                progress: false,
                console: Default::default(),
                debugger: None,
                poison: None,
            };
            let run = op::run(lib, &req).unwrap_or_else(|e| panic!("{op} under {model}: {e}"));
            for core in &run.cores {
                assert_eq!(
                    core.broken_identities(&model),
                    Vec::<String>::new(),
                    "{op} under {model}"
                );
                assert!(core.stats.instructions > 1000, "{op}: a whole kernel ran");
            }
        }
    }
}
