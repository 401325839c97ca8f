//! The emulated POOL platform (PLATFORM.md), device by device, with programs compiled for the
//! cluster: translate windows, SDMA (both directions, completion polling, the exact wait,
//! every error), the mailbox, console wrap-around, unmapped accesses — and eight cores whose
//! outputs, cycle counts and trace hashes do not depend on the number of threads.

use q7_emulator::platform::recording::Recording;
use q7_emulator::platform::sdma::QueueEvent;
use q7_emulator::platform::{map, Cluster, ClusterConfig};
use q7_emulator::trace::{Event, Tracer};
use q7_emulator::{ExcCause, FaultKind, FaultReport, Stop, TimingModel};
use q7_tests::build::{build, Layout, Program};
use q7_tests::load_cluster;

fn program(name: &str, flags: &[&str]) -> Option<Program> {
    let file = format!("{name}.c");
    let src = std::fs::read_to_string(format!(
        "{}/programs/platform/{file}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    build(Layout::Platform, name, &[(&file, &src)], flags)
}

fn one_core() -> ClusterConfig {
    ClusterConfig {
        cores: 1,
        ..ClusterConfig::default()
    }
}

/// Builds platform program `name` with `-DCASE=n`, runs it on one core and returns the fault it
/// must stop with (None when the toolchain is absent).
fn fault_of_case(name: &str, n: u32) -> Option<FaultReport> {
    let flag = format!("-DCASE={n}");
    let p = program(name, &[&flag])?;
    let mut c = load_cluster(&p.elf, &one_core());
    match c.run(1, 10_000_000).remove(0) {
        Stop::Fault(r) => Some(*r),
        other => panic!("{name} case {n}: expected a fault, got {other:?}"),
    }
}

/// An ARG_TENSOR-sized mailbox argument whose first two words hold `addr`.
fn arg(addr: u64) -> [u8; 0x30] {
    let mut a = [0u8; 0x30];
    a[..8].copy_from_slice(&addr.to_le_bytes());
    a
}

fn exit_code(stop: &Stop) -> i32 {
    match stop {
        Stop::Exited(c) => *c,
        Stop::Fault(r) => panic!("core faulted:\n{r}"),
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn translate_window_reads_and_writes_hbm() {
    let Some(p) = program("window", &[]) else {
        return;
    };
    let mut c = load_cluster(&p.elf, &one_core());
    let buf = c.hbm.alloc(4096, 0).unwrap() + 0x0300_0000; // a buffer above the first 16 MiB
    c.cores[0].bus.mailbox.args = vec![arg(buf)];
    let stops = c.run(1, 10_000_000);
    assert_eq!(exit_code(&stops[0]), 0);
    let mut got = [0u8; 8];
    c.hbm.read(buf, &mut got).unwrap();
    assert_eq!(
        u32::from_le_bytes(got[..4].try_into().unwrap()),
        0xc0de_0000
    );
    assert_eq!(
        u32::from_le_bytes(got[4..].try_into().unwrap()),
        0xc0de_0003
    );
    // Every access through the dynamic window paid the HBM latency (PLATFORM.md "Per-core
    // address map"); the program's own data is local, so nothing is charged as SRAM.
    let windows = c.cores[0].bus.counters().windows;
    assert!(windows.hbm_accesses >= 33, "{windows:?}");
    assert_eq!(
        c.cores[0].stats.stalls.hbm,
        windows.hbm_accesses * u64::from(TimingModel::default().hbm_latency)
    );
    assert_eq!(
        (windows.sram_accesses, c.cores[0].stats.stalls.sram),
        (0, 0)
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn sdma_copies_both_ways_with_polling_and_an_exact_wait() {
    let Some(p) = program("sdma", &[]) else {
        return;
    };
    let mut c = load_cluster(&p.elf, &one_core());
    let (src, dst) = (c.hbm.alloc(3072, 0).unwrap(), c.hbm.alloc(3072, 0).unwrap());
    let words: Vec<u8> = (0..768u32).flat_map(|i| (i * 7).to_le_bytes()).collect();
    c.hbm.write(src, &words).unwrap();
    c.cores[0].bus.mailbox.args = vec![arg(src), arg(dst)];
    // The queues log their doorbells and waits only while the core records.
    c.cores[0].bus.recording = Recording::with_room(None);
    let stops = c.run(1, 10_000_000);
    assert_eq!(
        exit_code(&stops[0]),
        0,
        "the core polled at least once before the first completion"
    );
    // S2M wrote every word + 1.
    let mut out = vec![0u8; 3072];
    c.hbm.read(dst, &mut out).unwrap();
    for i in 0..768usize {
        assert_eq!(
            u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap()),
            i as u32 * 7 + 1,
            "word {i}"
        );
    }
    // Timing (PLATFORM.md): each 1 KiB descriptor takes latency + 1024 / bytes-per-cycle, in order.
    let t = TimingModel::default();
    let per =
        |len: u64| u64::from(t.sdma_latency) + len.div_ceil(u64::from(t.sdma_bytes_per_cycle));
    let m2s = &c.cores[0].bus.sdma.queues[0].log;
    let (QueueEvent::Doorbell { cycle: db, tail: 3 }, QueueEvent::Wait { cycle: w, until }) =
        (m2s[0], m2s[1])
    else {
        panic!("M2S log {m2s:?}")
    };
    assert_eq!(
        until,
        db + 3 * per(1024),
        "M2S wait ends with the third descriptor"
    );
    assert!(
        w > db + per(1024),
        "the wait follows the polled first completion"
    );
    let s2m = &c.cores[0].bus.sdma.queues[1].log;
    let (
        QueueEvent::Doorbell {
            cycle: db2,
            tail: 2,
        },
        QueueEvent::Wait {
            cycle: w2,
            until: u2,
        },
    ) = (s2m[0], s2m[1])
    else {
        panic!("S2M log {s2m:?}")
    };
    assert_eq!(u2, db2 + per(2048) + per(1024));
    assert_eq!(c.cores[0].stats.stalls.device_wait, (until - w) + (u2 - w2));
}

#[q7_requires::needs(toolchain)]
#[test]
fn every_sdma_error_names_the_queue_and_descriptor() {
    let cases = [
        (1, "SDMA M2S: malformed descriptor 1 at 0x00080010: length 0"),
        (2, "SDMA M2S: descriptor 0 at 0x00080000: DATARAM address 0x0008ff80+0x100 out of range"),
        (3, "SDMA M2S: descriptor 0 at 0x00080000: HBM address 0x1002000000+0x40 out of range"),
        (4, "SDMA M2S: ring overflow: doorbell 3 would put 3 descriptors in flight in a 2-entry ring"),
        (5, "SDMA M2S: wait for 2 completions, but only 1 descriptors were queued"),
    ];
    for (n, want) in cases {
        let Some(r) = fault_of_case("sdma_errors", n) else {
            return;
        };
        assert!(
            matches!(
                r.kind,
                FaultKind::Exception {
                    cause: ExcCause::LoadStoreError,
                    ..
                }
            ),
            "case {n}: {r}"
        );
        assert!(
            r.to_string().contains(want),
            "case {n}: want `{want}` in\n{r}"
        );
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn mailbox_invocation_and_response() {
    let Some(p) = program("mailbox", &[]) else {
        return;
    };
    let mut c = load_cluster(&p.elf, &one_core());
    let mut a0 = [0u8; 0x30];
    let mut a1 = [0u8; 0x30];
    for i in 0..0x30 {
        a0[i] = i as u8;
        a1[i] = 0xff - i as u8;
    }
    let mb = &mut c.cores[0].bus.mailbox;
    mb.opcode = 133;
    mb.sub_opcode = 7;
    mb.args = vec![a0, a1];
    // The checksum the program computes, over the same words.
    let mut h: u32 = 133u32.wrapping_mul(31).wrapping_add(7);
    for a in [&a0, &a1] {
        for w in 0..12 {
            h = h
                .wrapping_mul(33)
                .wrapping_add(u32::from_le_bytes(a[4 * w..4 * w + 4].try_into().unwrap()));
        }
    }
    let stops = c.run(1, 10_000_000);
    assert_eq!(exit_code(&stops[0]), (h & 0x7f) as i32);
    assert_eq!(c.cores[0].bus.mailbox.response, Some(h));
}

#[q7_requires::needs(toolchain)]
#[test]
fn console_ring_keeps_the_newest_bytes() {
    let Some(p) = program("console", &[]) else {
        return;
    };
    let mut c = load_cluster(&p.elf, &one_core());
    let stops = c.run(1, 10_000_000);
    assert_eq!(exit_code(&stops[0]), 0);
    let ring = &c.cores[0].bus.console;
    assert_eq!(ring.written(), 5005);
    let kept = ring.contents();
    assert_eq!(kept.len(), map::DEFAULT_CONSOLE);
    assert!(kept.ends_with(b"<end>"));
    // The oldest kept byte is byte 5005 - 4096 = 909 of the stream: 'a' + 909 % 26.
    assert_eq!(kept[0], b'a' + (909 % 26) as u8);
    // The 909 bytes overwritten are counted and marked where the ring is printed.
    assert_eq!(ring.dropped(), 909);
    // Printed after the run: core 0 by default; every core, labelled, on request.
    assert!(c.console_output(false).starts_with("… 909 bytes dropped\n"));
    assert!(c.console_output(false).ends_with("<end>"));
    assert!(c
        .console_output(true)
        .starts_with("[core 0] … 909 bytes dropped\n[core 0] "));
}

#[q7_requires::needs(toolchain)]
#[test]
fn unmapped_accesses_fault_naming_the_address() {
    for (n, addr, cause) in [
        (1, 0x0040_0000u32, ExcCause::LoadStoreError),
        (2, 0x8700_0040, ExcCause::LoadStoreError),
        (3, 0x1000_0000, ExcCause::InstructionFetchError),
    ] {
        let Some(r) = fault_of_case("unmapped", n) else {
            return;
        };
        assert!(
            matches!(&r.kind, FaultKind::Exception { cause: c, .. } if *c == cause),
            "case {n}: {r}"
        );
        assert_eq!(r.address, Some(addr), "case {n}: {r}");
        assert!(
            r.to_string().contains(&format!("{addr:#010x}")),
            "case {n}: {r}"
        );
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_jump_into_memory_no_image_occupies_names_the_region_and_the_images() {
    // PLATFORM.md: IRAM holds the boot ROM and the program; translate window 0 maps HBM
    // scratch, where nothing is loaded.
    for (n, region) in [
        (4, "core 0's IRAM".to_string()),
        (5, "translate window 0 (HBM 0x100)".to_string()),
    ] {
        let Some(r) = fault_of_case("unmapped", n) else {
            return;
        };
        let text = r.to_string();
        let pc = if n == 4 { 0xf000 } else { map::XLATE.0 + 0x100 };
        let want = format!(
            "instruction fetch at {pc:#010x} hit {region}, where no image is loaded (images at 0x00000000..0x"
        );
        assert!(text.contains(&want), "case {n}: {text}");
    }
}

/// FNV-1a over (PC, a0..a15) before every instruction, the next PC, completion cycle and data
/// accesses (address, value, size, direction) of every completed instruction, and every
/// exception delivery.
#[derive(Default)]
struct TraceHash(u64);

impl TraceHash {
    fn eat(&mut self, v: u32) {
        for b in v.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

impl Tracer for TraceHash {
    const ENABLED: bool = true;
    fn event(&mut self, e: Event<'_>) {
        if self.0 == 0 {
            self.0 = 0xcbf2_9ce4_8422_2325;
        }
        match e {
            Event::Before { state, .. } => {
                self.eat(state.pc);
                for v in state.window() {
                    self.eat(v);
                }
            }
            Event::Exception { vector, pc, .. } => {
                self.eat(vector.offset());
                self.eat(pc);
            }
            Event::After {
                next,
                cycle,
                accesses,
                ..
            } => {
                self.eat(next);
                self.eat(cycle as u32);
                self.eat((cycle >> 32) as u32);
                for a in accesses {
                    self.eat(a.addr);
                    self.eat(a.value);
                    self.eat(u32::from(a.size) | u32::from(a.write) << 8);
                }
            }
        }
    }
}

fn spmd_run(p: &Program, threads: usize) -> (Vec<i32>, Vec<u64>, Vec<u64>, Vec<u8>) {
    let mut c: Cluster = load_cluster(&p.elf, &ClusterConfig::default());
    let buf = c.hbm.alloc(8 * 4096, 4096).unwrap();
    for core in &mut c.cores {
        core.bus.mailbox.args = vec![arg(buf)];
    }
    let results = c.run_traced::<TraceHash>(threads, 100_000_000);
    let codes = results.iter().map(|(s, _)| exit_code(s)).collect();
    let hashes = results.iter().map(|(_, h)| h.0).collect();
    let cycles = c.cores.iter().map(|k| k.stats.cycles).collect();
    let mut hbm = vec![0u8; 8 * 4096];
    c.hbm.read(buf, &mut hbm).unwrap();
    (codes, cycles, hashes, hbm)
}

#[q7_requires::needs(toolchain)]
#[test]
fn eight_cores_are_bit_identical_for_1_2_and_8_threads() {
    let Some(p) = program("spmd", &[]) else {
        return;
    };
    let one = spmd_run(&p, 1);
    assert_eq!(
        one.0,
        (0..8).collect::<Vec<i32>>(),
        "each core exits with its PRID"
    );
    // The exact pattern: slice of core p, word i = mix(p * 1024 + i, 12 + p).
    fn mix(x: u32, depth: u32) -> u32 {
        if depth == 0 {
            x.wrapping_mul(2_654_435_761)
        } else {
            mix(x ^ (x >> 7), depth - 1).wrapping_add(depth)
        }
    }
    for prid in 0..8u32 {
        for i in [0u32, 1, 511, 1023] {
            let o = (prid * 4096 + i * 4) as usize;
            let got = u32::from_le_bytes(one.3[o..o + 4].try_into().unwrap());
            assert_eq!(got, mix(prid * 1024 + i, 12 + prid), "core {prid} word {i}");
        }
    }
    for threads in [2, 8] {
        let other = spmd_run(&p, threads);
        assert_eq!(other, one, "threads = {threads} differs from threads = 1");
    }
    eprintln!("spmd: cycles per core {:?}", one.1);
}
