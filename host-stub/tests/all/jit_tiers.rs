//! Tier 2 gives every example kernel the interpreter's results: the committed builds of the
//! three ReLU variants (element accessor over HBM, TCM with DMA, 8 cores) on the committed input,
//! under the default timing model, with both memory latencies at zero and with the SRAM at 100
//! cycles (every I-cache refill and window access charged), run with the interpreter alone and
//! with tier 2 compiling from an address's second arrival; the output and every core's counters
//! must be the same (docs/jit.md "Oracle"), and the 8-core ReLU's cores share host code
//! (docs/jit.md "Code shared by cores"); with `Q7EMU_PERF_MAP=1` a run names each block it
//! compiled for a host profiler (docs/jit.md "Profiling the host code"). No toolchain needed.

use std::path::Path;

use q7_emulator::TimingModel;
use q7_run::op::OpRun;
use q7_tensor::npy;
use q7_tensor::HostTensor;
use q7_testing::{Library, Run};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The first 32 × 512 elements of the committed ReLU input.
fn input() -> HostTensor {
    let full = npy::read(&Path::new(ROOT).join("examples/kernels/relu_multicore/input.npy"))
        .expect("the committed input");
    let width = 512u64;
    HostTensor {
        dtype: full.dtype,
        shape: vec![32, width],
        data: full.data[..(32 * width * 4) as usize].to_vec(),
    }
}

fn run(example: &str, timing: &TimingModel, jit: bool) -> OpRun {
    let lib = Library::open(&Path::new(ROOT).join(format!("examples/kernels/{example}/build")))
        .unwrap_or_else(|e| panic!("{example}: {e}"));
    let go = || {
        Run::new("relu_forward")
            .input(input())
            .timing(timing.clone())
            .op_run(&lib)
            .unwrap_or_else(|e| panic!("{example}: {e}"))
    };
    q7_emulator::jit::with_default(Some(jit), || q7_emulator::jit::with_tier_up(2, go))
}

#[test]
fn every_relu_variant_counts_the_same_cycles_compiled_as_interpreted() {
    let models = [
        ("default", TimingModel::default()),
        (
            "zero latency",
            TimingModel {
                hbm_latency: 0,
                sram_latency: 0,
                ..TimingModel::default()
            },
        ),
        (
            "sram 100",
            TimingModel {
                hbm_latency: 100,
                sram_latency: 100,
                ..TimingModel::default()
            },
        ),
        // Misses, and hits in every way of a set that reorder it, which compiled code looks
        // up itself (docs/jit.md "Cycles").
        (
            "icache 1 KiB 2-way",
            TimingModel {
                icache_bytes: 1024,
                icache_ways: 2,
                ..TimingModel::default()
            },
        ),
    ];
    for example in ["relu_element", "relu_tcm", "relu_multicore"] {
        for (name, model) in &models {
            let compiled = run(example, model, true);
            let interpreted = run(example, model, false);
            let what = format!("{example}, timing {name}");
            assert_eq!(compiled.engine, "tier2", "{what}");
            assert_eq!(interpreted.engine, "interpreter", "{what}");
            assert!(compiled.jit.executed > 0, "{what}: nothing ran compiled");
            assert_eq!(interpreted.jit.executed, 0, "{what}");
            if example == "relu_multicore" {
                // Eight copies of one library: the cores share the host code of each block
                // (docs/jit.md "Code shared by cores").
                assert!(
                    compiled.jit.copied > 0,
                    "{what}: no block's code was shared"
                );
            }
            assert_eq!(
                compiled.output.data, interpreted.output.data,
                "{what}: output"
            );
            assert_eq!(compiled.cores.len(), interpreted.cores.len(), "{what}");
            for (a, b) in compiled.cores.iter().zip(&interpreted.cores) {
                assert_eq!(
                    format!("{a:?}"),
                    format!("{b:?}"),
                    "{what}: core {} with tier 2 / interpreter",
                    a.core
                );
            }
        }
    }
}

/// docs/jit.md "Profiling the host code": with `Q7EMU_PERF_MAP=1`, `/tmp/perf-<pid>.map`
/// names each block the run compiled, one `<host start> <size> q7 0x<guest pc>` line a
/// block (hex), as many as the run report's `jit.blocks`; without it, no map is written.
#[test]
fn a_perf_map_names_every_compiled_block() {
    let k = crate::support::example("relu_element");
    let run = |map: Option<&str>| {
        let mut cmd = crate::support::q7emu();
        cmd.arg("run")
            .arg(k.join("build"))
            .args(["--op", "relu_forward", "--json", "--input"])
            .arg(crate::support::example("relu_multicore").join("input.npy"))
            .env_remove("Q7EMU_JIT")
            .env_remove("Q7EMU_PERF_MAP");
        if let Some(v) = map {
            cmd.env("Q7EMU_PERF_MAP", v);
        }
        let child = cmd
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("q7emu runs");
        let path = format!("/tmp/perf-{}.map", child.id());
        let out = child.wait_with_output().expect("q7emu ends");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let map = std::fs::read_to_string(&path).ok();
        let _ = std::fs::remove_file(&path);
        (report["jit"]["blocks"].as_u64().expect("jit.blocks"), map)
    };
    let (blocks, map) = run(Some("1"));
    let map = map.expect("the map is written");
    assert!(blocks > 0, "the run compiles blocks");
    let lines: Vec<&str> = map.lines().collect();
    assert_eq!(lines.len() as u64, blocks, "{map}");
    // The library's code runs through the translate windows (PLATFORM.md).
    let (base, size) = q7_emulator::platform::map::XLATE;
    let code = u64::from(base)..u64::from(base) + u64::from(size);
    for line in lines {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 4, "{line}");
        assert!(
            u64::from_str_radix(f[0], 16).is_ok_and(|a| a != 0),
            "{line}"
        );
        assert!(u64::from_str_radix(f[1], 16).is_ok_and(|n| n > 0), "{line}");
        assert_eq!(f[2], "q7", "{line}");
        let pc = f[3].strip_prefix("0x").expect("a hex guest pc");
        assert!(
            u64::from_str_radix(pc, 16).is_ok_and(|pc| code.contains(&pc)),
            "{line}"
        );
    }
    let (blocks, map) = run(None);
    assert!(blocks > 0);
    assert_eq!(map, None, "no map without the variable");
}
