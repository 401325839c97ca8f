//! Bulk element-wise op against an element-accessor loop: `add_bulk` (`torch::add`,
//! examples/kernels/elementwise) and `vector_add` (`out[i] = a[i] + b[i]` through element
//! accessors, examples/kernels/vector_add), from their committed builds, on the same two
//! float32 inputs of 1 Mi elements. Prints each kernel's cycles and cycles per element and the
//! ratio (docs/sdk-ops.md "Cost"); fails only when the two outputs differ in a bit. Run with
//! `cargo bench -p q7-host --bench elementwise`.

use std::path::Path;

use q7_testing::{tensor, Library, Run};

const ELEMENTS: usize = 1 << 20;

/// `n` finite floats of both signs with exponents in [-20, 20] (SplitMix64 from `seed`).
fn floats(seed: u64, n: usize) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            let r = ((z ^ (z >> 31)) >> 32) as u32;
            f32::from_bits((r & 0x807f_ffff) | ((107 + (r >> 8) % 41) << 23))
        })
        .collect()
}

fn main() {
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels");
    let a = tensor(&[ELEMENTS as u64], &floats(1, ELEMENTS)).unwrap();
    let b = tensor(&[ELEMENTS as u64], &floats(2, ELEMENTS)).unwrap();
    let mut outputs = Vec::new();
    let mut cycles = Vec::new();
    for (example, op) in [("elementwise", "add_bulk"), ("vector_add", "vector_add")] {
        let lib = Library::open(&kernels.join(example).join("build")).unwrap();
        let run = Run::new(op)
            .input(a.clone())
            .input(b.clone())
            .op_run(&lib)
            .unwrap_or_else(|e| panic!("{op}: {e}"));
        let c = run.cores[0].stats.cycles;
        println!(
            "{op:<10} {ELEMENTS} float32 elements: {c} cycles, {:.1} cycles per element",
            c as f64 / ELEMENTS as f64
        );
        cycles.push(c);
        outputs.push(run.output);
    }
    assert!(outputs[0] == outputs[1], "add_bulk and vector_add differ");
    println!(
        "element accessor / bulk op: x{:.2}",
        cycles[1] as f64 / cycles[0] as f64
    );
}
