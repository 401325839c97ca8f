//! Tier 2 gives every example kernel the interpreter's results: the committed builds of the
//! three ReLU variants (element accessor over HBM, TCM with DMA, 8 cores) on the committed input,
//! under the default timing model, with both memory latencies at zero and with the SRAM at 100
//! cycles (every I-cache refill and window access charged), run with the interpreter alone and
//! with tier 2 compiling from an address's second arrival; the output and every core's counters
//! must be the same (docs/jit.md "Oracle"), and the 8-core ReLU's cores share host code
//! (docs/jit.md "Code shared by cores"). No toolchain needed.

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
