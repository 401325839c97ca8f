//! Cluster throughput: eight cores each run an LCG loop (mull, add, addi, bnez; 20,000,000
//! iterations, assembled with q7-isa's encoder into IRAM) with cycle accounting on; prints the
//! aggregate MIPS for 1 and 2 threads and the scaling. Run with `cargo bench -p q7-emulator`.

use std::time::Instant;

use q7_emulator::platform::{Cluster, ClusterConfig};
use q7_emulator::Stop;
use q7_isa::Opcode::{self, *};

const BASE: u32 = 0x1000;

fn program() -> Vec<u8> {
    let iterations: u32 = 20_000_000;
    let a: u32 = 1_664_525;
    let c: u32 = 1_013_904_223;
    let p: Vec<(Opcode, Vec<u32>)> = vec![
        (Const16, vec![4, iterations >> 16]),
        (Const16, vec![4, iterations & 0xffff]),
        (Movi, vec![2, 1]),
        (Const16, vec![5, a >> 16]),
        (Const16, vec![5, a & 0xffff]),
        (Const16, vec![6, c >> 16]),
        (Const16, vec![6, c & 0xffff]),
        (Mull, vec![2, 2, 5]), // loop (index 7)
        (Add, vec![2, 2, 6]),
        (Addi, vec![4, 4, u32::MAX]),
        (Bnez, vec![4, 0]), // -> 7
        (Extui, vec![3, 2, 0, 8]),
        (Movi, vec![2, 1]),
        (Simcall, vec![]),
    ];
    let mut addrs = Vec::new();
    let mut pc = BASE;
    for (op, _) in &p {
        addrs.push(pc);
        pc += u32::from(op.info().len);
    }
    let mut out = Vec::new();
    for (i, (op, args)) in p.iter().enumerate() {
        let mut a = args.clone();
        if *op == Bnez {
            a[1] = addrs[7];
        }
        out.extend_from_slice(op.encode(&a, addrs[i]).unwrap().as_bytes());
    }
    out
}

fn main() {
    let code = program();
    let mut baseline = 0.0;
    for threads in [1usize, 2] {
        let mut cluster = Cluster::new(&ClusterConfig::default()).expect("HBM");
        cluster.load_all(BASE, &code).unwrap();
        cluster.set_entry(BASE);
        let t = Instant::now();
        let stops = cluster.run(threads, u64::MAX);
        let secs = t.elapsed().as_secs_f64();
        assert!(
            stops.iter().all(|s| matches!(s, Stop::Exited(_))),
            "{stops:?}"
        );
        let insns: u64 = cluster.cores.iter().map(|c| c.stats.instructions).sum();
        let mips = insns as f64 / secs / 1e6;
        if threads == 1 {
            baseline = mips;
        }
        println!(
            "cluster/8 cores threads={threads}: {insns} instructions in {secs:.3} s = {mips:.1} MIPS aggregate (x{:.2} vs 1 thread)",
            mips / baseline
        );
    }
}
