//! Decode throughput: nanoseconds per decoded instruction.
//!
//! Two workloads, both profiles: (1) a stream of valid instructions (every word of the
//! exhaustive space that decodes, sampled with a fixed stride, as a realistic opcode mix), and
//! (2) all 2^24 words, legal or not. Run with `cargo bench -p q7-isa`.

use std::hint::black_box;
use std::time::Instant;

use q7_isa::{decode, CoreConfig, Decoded, DC233C, NCORE2GP};

fn valid_stream(config: &CoreConfig, n: usize) -> Vec<[u8; 3]> {
    let mut v = Vec::with_capacity(n);
    let mut w: u32 = 0;
    while v.len() < n {
        // An odd stride walks all 2^24 words in a scattered order.
        w = w.wrapping_add(0x9e3779) & 0xff_ffff;
        let b = w.to_le_bytes();
        if let Ok(Decoded::Insn(_)) = decode(&b[..3], 0x1000, config) {
            v.push([b[0], b[1], b[2]]);
        }
    }
    v
}

fn time_per_decode(words: &[[u8; 3]], config: &CoreConfig, rounds: usize) -> f64 {
    let start = Instant::now();
    let mut ok = 0usize;
    for _ in 0..rounds {
        for (i, w) in words.iter().enumerate() {
            if decode(black_box(w), 0x1000 + 3 * i as u32, config).is_ok() {
                ok += 1;
            }
        }
    }
    black_box(ok);
    start.elapsed().as_nanos() as f64 / (words.len() * rounds) as f64
}

fn main() {
    for config in [&NCORE2GP, &DC233C] {
        // Build the decode tables outside the measurement.
        let _ = decode(&[0, 0, 0], 0, config);
        let stream = valid_stream(config, 1 << 20);
        let valid = time_per_decode(&stream, config, 8);
        let all: Vec<[u8; 3]> = (0u32..1 << 24)
            .map(|w| {
                let b = w.to_le_bytes();
                [b[0], b[1], b[2]]
            })
            .collect();
        let any = time_per_decode(&all, config, 1);
        println!(
            "decode/{:<9} valid instructions: {valid:6.2} ns/insn   all 2^24 words: {any:6.2} ns/word",
            config.name
        );
    }
}
