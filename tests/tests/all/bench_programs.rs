//! The benchmark programs (fib(32), a 100M-iteration LCG loop, an array-update loop) give the
//! same exit codes on q7emu (bare-metal build, both profiles) as on `qemu-xtensa` (linux-user
//! build of the same source) and `qemu-system-xtensa -M sim` (the same bare-metal ELF), run
//! under every default guard of `q7emu run-elf` (`q7_tests::load_elf`).

use std::process::Command;

use q7_emulator::{NoTrace, Stop};
use q7_tests::build::{build_sim, build_user};

const PROGRAMS: &[(&str, &str)] = &[
    ("fib", include_str!("../../programs/bench/fib.c")),
    ("lcg", include_str!("../../programs/bench/lcg.c")),
    ("array", include_str!("../../programs/bench/array.c")),
];

/// The program's exit code on q7emu, asserting that tier 2 and the interpreter alone end it
/// with the same registers and every counter the same (docs/jit.md "Oracle").
fn q7emu_exit(elf: &std::path::Path, config: &'static q7_isa::CoreConfig) -> i32 {
    let run = |jit: bool| {
        let mut core = q7_tests::load_elf(elf, config);
        core.set_jit(jit);
        core.set_jit_tier_up(2);
        let stop = core.run(q7_emulator::baremetal::DEFAULT_MAX_CYCLES, &mut NoTrace);
        (
            stop,
            core.stats.clone(),
            core.state.ar,
            core.jit_stats().blocks,
        )
    };
    let (stop, stats, ar, blocks) = run(true);
    let (stop1, stats1, ar1, _) = run(false);
    assert_eq!(
        (&stop, &stats, ar),
        (&stop1, &stats1, ar1),
        "{}: tier 2 / interpreter",
        elf.display()
    );
    assert!(blocks > 0, "{}: tier 2 compiled nothing", elf.display());
    match stop {
        Stop::Exited(c) => c & 0xff,
        Stop::Fault(r) => panic!("{} faulted on {}:\n{r}", elf.display(), config.name),
    }
}

#[q7_requires::needs(toolchain, qemu)]
#[test]
fn benchmark_exit_codes_match_qemu_user_and_system() {
    for (name, src) in PROGRAMS {
        let file = format!("{name}.c");
        let (Some(sim), Some(user)) = (
            build_sim(name, &[(&file, src)], &[]),
            build_user(name, &[(&file, src)]),
        ) else {
            return;
        };
        if !q7_tests::qemu_available() {
            return;
        }
        // QEMU's console output is captured, not shown among the test results: a program that
        // ends in an exception prints the runtime's "qemu-rt: unhandled exception" line there,
        // and only its exit code is compared.
        let user_rc = Command::new("qemu-xtensa")
            .args(["-cpu", "dc233c"])
            .arg(&user.elf)
            .output()
            .unwrap()
            .status
            .code();
        let system_rc = q7_tests::qemu_system_sim()
            .arg("-kernel")
            .arg(&sim.elf)
            .output()
            .unwrap()
            .status
            .code();
        let ours = q7emu_exit(&sim.elf, &q7_isa::DC233C);
        let ours_ncore = q7emu_exit(&sim.elf, &q7_isa::NCORE2GP);
        assert_eq!(Some(ours), user_rc, "{name}: q7emu vs qemu-xtensa");
        assert_eq!(Some(ours), system_rc, "{name}: q7emu vs qemu-system-xtensa");
        assert_eq!(ours_ncore, ours, "{name}: ncore2gp vs dc233c profile");
        eprintln!(
            "{name}: exit {ours} on q7emu (both profiles), qemu-xtensa and qemu-system-xtensa"
        );
    }
}
