//! SDK runtime pieces run on the emulated core before the firmware speaks the whole custom-op
//! ABI: the stack switch (examples/sdk/rt/customop/stack_switch.S) moves a call onto a stack in
//! HBM behind a translate window and back with every caller frame intact.

use q7_emulator::platform::ClusterConfig;
use q7_emulator::{FaultKind, Stop};
use q7_tests::build::{build, Layout};
use q7_tests::load_cluster;

fn sdk_source(rel: &str) -> String {
    let p = q7_tests::build::sdk_dir().join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn program_source(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("programs/sdk")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Builds stack_switch.c (with `flags`) and runs it with a 64 KiB HBM stack at `stack`.
fn run_stack_switch(flags: &[&str], stack: u64) -> Option<(Stop, q7_emulator::platform::Cluster)> {
    let test = program_source("stack_switch.c");
    let asm = sdk_source("rt/customop/stack_switch.S");
    let p = build(
        Layout::Platform,
        "sdk-stack-switch",
        &[("stack_switch.c", &test), ("stack_switch.S", &asm)],
        flags,
    )?;
    let config = ClusterConfig {
        cores: 1,
        ..ClusterConfig::default()
    };
    let mut c = load_cluster(&p.elf, &config);
    let mut arg = [0u8; 0x30];
    arg[..8].copy_from_slice(&stack.to_le_bytes());
    c.cores[0].bus.mailbox.args = vec![arg];
    let stop = c.run(1, 50_000_000).remove(0);
    Some((stop, c))
}

/// The HBM stack of the stack-switch program: 64 KiB, 0x0500_0000 into HBM (translate window 2
/// maps it at 0x86000000 + that offset within its 16 MiB region).
const STACK: u64 = 0x0500_0000;

#[q7_requires::needs(toolchain)]
#[test]
fn stack_switch_runs_a_deep_call_on_an_hbm_stack_and_restores_the_callers() {
    let Some((stop, c)) = run_stack_switch(&[], STACK) else {
        return;
    };
    match stop {
        Stop::Exited(code) => assert_eq!(code, 0, "failing step {code} (stack_switch.c)"),
        Stop::Fault(r) => panic!("core faulted:\n{r}"),
    }
    // The callee's frames really were on the HBM stack: their spills landed there.
    let mut top = vec![0u8; 0x400];
    c.hbm.read(STACK + 0x10000 - 0x400, &mut top).unwrap();
    assert!(
        top.iter().any(|&b| b != 0),
        "nothing was written near the HBM stack's top"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn overflowing_the_hbm_stack_stops_the_core_at_its_limit() {
    let Some((stop, _)) = run_stack_switch(&["-DOVERFLOW"], STACK) else {
        return;
    };
    let Stop::Fault(r) = stop else {
        panic!("the recursion returned: {stop:?}");
    };
    let limit = 0x8600_0000 + 64;
    match r.kind {
        FaultKind::StackLimit {
            register,
            limit: l,
            new_sp,
        } => {
            assert_eq!((register, l), ("KSL", limit), "{r}");
            assert!(new_sp < limit && new_sp + 256 > limit, "{r}");
        }
        _ => panic!("not a stack-limit fault:\n{r}"),
    }
}

/// HBM buffers of the runtime-pieces program, one per 16 MiB region above HBM scratch.
const A: u64 = 0x0400_0000;
const B: u64 = 0x0600_0000;
const C: u64 = 0x1_0800_0000;
const D: u64 = 0x0a00_0000;
const E: u64 = 0x2_0000_0000;

#[q7_requires::needs(toolchain)]
#[test]
fn printf_start_up_translation_and_copies_run_on_the_core() {
    let mut sources: Vec<(String, String)> = vec![(
        "runtime_pieces.cpp".into(),
        program_source("runtime_pieces.cpp"),
    )];
    for f in [
        "start.cpp",
        "sdma.cpp",
        "memcpy.cpp",
        "fatal.cpp",
        "console.cpp",
        "format.cpp",
        "rt.h",
        "heap.h",
        "tlb.h",
        "format.h",
    ] {
        // The program's own crt0 owns `_start` here; the library's start symbol is renamed.
        let text = sdk_source(&format!("rt/customop/{f}"))
            .replace(" _start(void)", " q7_library_start(void)");
        sources.push((f.into(), text));
    }
    let refs: Vec<(&str, &str)> = sources
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let flags = ["-std=c++14", "-fno-exceptions", "-fno-rtti", "-nostdinc++"];
    let Some(p) = build(Layout::Platform, "sdk-runtime-pieces", &refs, &flags) else {
        return;
    };
    let config = ClusterConfig {
        cores: 1,
        ..ClusterConfig::default()
    };
    let mut c = load_cluster(&p.elf, &config);
    let pattern: Vec<u8> = (0..0x10_0010u32).map(|i| (i * 7) as u8).collect();
    c.hbm.write(A, &pattern).unwrap();
    c.cores[0].bus.mailbox.args = [A, B, C, D, E]
        .iter()
        .map(|a| {
            let mut d = [0u8; 0x30];
            d[..8].copy_from_slice(&a.to_le_bytes());
            d
        })
        .collect();
    match c.run(1, 200_000_000).remove(0) {
        Stop::Exited(code) => assert_eq!(code, 0, "failing step {code} (runtime_pieces.cpp)"),
        Stop::Fault(r) => panic!("core faulted:\n{r}"),
    }
    assert_eq!(
        c.console_output(false),
        "[-42|    7|abc   |0000C0DE|-9000000000|18446744073709551615]\n\
         [3.141593|1.235e+03|0.0001|1e+20|2|-0.12]\n\
         [str|abc|Z|%|16|0x1234]\n\
         [0.10000000000000001|4.940656e-324|1E-10]\n"
    );
    let hbm = |addr: u64, len: usize| {
        let mut v = vec![0u8; len];
        c.hbm.read(addr, &mut v).unwrap();
        v
    };
    for m in 0..3u64 {
        assert_eq!(
            hbm(B + m * 4096, 4000),
            pattern[100..4100],
            "TCM copy-out, method {m}"
        );
        assert_eq!(
            hbm(C + m * 4096, 3000),
            pattern[1..3001],
            "bounced copy-out, method {m}"
        );
    }
    assert_eq!(
        hbm(C + 0x1_0000, 0x10_0007),
        pattern[..0x10_0007],
        "HBM to HBM"
    );
    assert_eq!(hbm(C + 0x1_0000 + 0x10_0007, 1), [0], "not a byte further");
    let d = hbm(D, 12344 + 4);
    assert!(
        d[..12344]
            .chunks(4)
            .all(|w| w == 0xA1B2_C3D4u32.to_le_bytes()),
        "DMA fill"
    );
    assert_eq!(d[12344..], [0; 4], "fill stops at its length");
    assert!(
        hbm(D + 0x4000, 100)
            .chunks(2)
            .all(|h| h == 0x5A6Bu16.to_le_bytes()),
        "CPU fill"
    );
    for r in 0..5u64 {
        let w = hbm(E + r * 0x100_0000, 4);
        assert_eq!(
            u32::from_le_bytes(w.try_into().unwrap()),
            0xE000_0000 + r as u32,
            "region {r}"
        );
    }
}
