//! SDK runtime pieces run on the emulated core before the firmware speaks the whole custom-op
//! ABI: the stack switch (examples/sdk/rt/customop/stack_switch.S) moves a call onto a stack in
//! HBM behind a translate window and back with every caller frame intact.

use q7_emulator::platform::ClusterConfig;
use q7_emulator::Stop;
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

#[test]
fn stack_switch_runs_a_deep_call_on_an_hbm_stack_and_restores_the_callers() {
    let test = program_source("stack_switch.c");
    let asm = sdk_source("rt/customop/stack_switch.S");
    let Some(p) = build(
        Layout::Platform,
        "sdk-stack-switch",
        &[("stack_switch.c", &test), ("stack_switch.S", &asm)],
        &[],
    ) else {
        return;
    };
    let config = ClusterConfig {
        cores: 1,
        ..ClusterConfig::default()
    };
    let mut c = load_cluster(&p.elf, &config);
    let stack = c.hbm.alloc(0x10000, 0x10000).unwrap() + 0x0500_0000;
    let mut arg = [0u8; 0x30];
    arg[..8].copy_from_slice(&stack.to_le_bytes());
    c.cores[0].bus.mailbox.args = vec![arg];
    match c.run(1, 50_000_000).remove(0) {
        Stop::Exited(code) => assert_eq!(code, 0, "failing step {code} (stack_switch.c)"),
        Stop::Fault(r) => panic!("core faulted:\n{r}"),
    }
    // The callee's frames really were on the HBM stack: their spills landed there.
    let mut top = vec![0u8; 0x400];
    c.hbm.read(stack + 0x10000 - 0x400, &mut top).unwrap();
    assert!(
        top.iter().any(|&b| b != 0),
        "nothing was written near the HBM stack's top"
    );
}
