//! Hand-written assembly per instruction group, run in lockstep with QEMU (dc233c): zero
//! divergences, including the edge cases (SAR 0/32/40, NSA of 0 and -1, MIN/MAX signedness,
//! CLAMPS bounds, divide overflow and divide by zero, loops with LCOUNT 0 and a taken branch to
//! LEND, ENTRY at the overflow boundary, MOVSP alloca, faults through the runtime's vectors).

use q7_tests::build::build_sim;
use q7_tests::lockstep;

const COMMON: &str = include_str!("../programs/asm/common.h");

const GROUPS: &[(&str, &str)] = &[
    ("alu", include_str!("../programs/asm/alu.S")),
    ("shift", include_str!("../programs/asm/shift.S")),
    ("muldiv", include_str!("../programs/asm/muldiv.S")),
    ("mem", include_str!("../programs/asm/mem.S")),
    ("branch", include_str!("../programs/asm/branch.S")),
    ("loop", include_str!("../programs/asm/loop.S")),
    ("window", include_str!("../programs/asm/window.S")),
    ("sreg", include_str!("../programs/asm/sreg.S")),
    ("mac16", include_str!("../programs/asm/mac16.S")),
    ("cache", include_str!("../programs/asm/cache.S")),
];

/// Runs one group program in lockstep; returns the opcodes it executed.
fn group(
    name: &str,
    source: &str,
    flags: &[&str],
) -> Option<std::collections::BTreeSet<q7_isa::Opcode>> {
    let prog = build_sim(
        name,
        &[("common.h", COMMON), (&format!("{name}.S"), source)],
        flags,
    )?;
    if !q7_tests::qemu_available() {
        return None;
    }
    let s = lockstep::run(&prog.elf, 5_000_000);
    lockstep::assert_agrees(name, &s);
    Some(s.executed)
}

#[test]
fn instruction_groups_match_qemu() {
    for (name, src) in GROUPS {
        if group(name, src, &[]).is_none() {
            return;
        }
    }
}

#[test]
fn faults_match_qemu() {
    let src = include_str!("../programs/asm/faults.S");
    for n in 1..=8 {
        let flag = format!("-DFAULT={n}");
        if group(&format!("fault{n}"), src, &[&flag]).is_none() {
            return;
        }
    }
}
