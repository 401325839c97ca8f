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

/// dc233c rows QEMU cannot be compared on, each with the reason (their behaviour is tested
/// against our own specification in the emulator's tests instead).
const NOT_IN_LOCKSTEP: &[(&str, &str)] = &[
    (
        "idtlb pdtlb rdtlb0 rdtlb1 wdtlb iitlb pitlb ritlb0 ritlb1 witlb ldpte hwwitlba hwwdtlba",
        "MMU TLB maintenance: q7emu has flat memory and no TLB",
    ),
    (
        "lict licw sict sicw ldct sdct",
        "cache tag/data array access: no cache arrays are modelled",
    ),
    (
        "break break.n",
        "debug exceptions: q7emu stops with a breakpoint report instead",
    ),
    (
        "waiti",
        "no interrupt sources: q7emu stops instead of sleeping forever",
    ),
    ("rfdo rfdd", "on-chip-debug mode only"),
    (
        "rer wer",
        "external registers: none on the emulated platform",
    ),
];

#[test]
fn instruction_groups_and_faults_match_qemu_covering_the_dc233c_table() {
    let mut executed = std::collections::BTreeSet::new();
    for (name, src) in GROUPS {
        match group(name, src, &[]) {
            Some(e) => executed.extend(e),
            None => return,
        }
    }
    let src = include_str!("../programs/asm/faults.S");
    for n in 1..=8 {
        let flag = format!("-DFAULT={n}");
        if let Some(e) = group(&format!("fault{n}"), src, &[&flag]) {
            executed.extend(e);
        }
    }
    let excluded: Vec<&str> = NOT_IN_LOCKSTEP
        .iter()
        .flat_map(|(ops, _)| ops.split(' '))
        .collect();
    let missing: Vec<&str> = q7_isa::OPCODES
        .iter()
        .filter(|o| q7_isa::DC233C.has(o.options))
        .filter(|o| !executed.contains(&o.opcode) && !excluded.contains(&o.mnemonic))
        .map(|o| o.mnemonic)
        .collect();
    eprintln!(
        "coverage: {} of {} dc233c rows executed in lockstep; {} excluded with reasons",
        executed.len(),
        q7_isa::OPCODES
            .iter()
            .filter(|o| q7_isa::DC233C.has(o.options))
            .count(),
        excluded.len()
    );
    assert!(
        missing.is_empty(),
        "dc233c rows never executed in lockstep: {missing:?}"
    );
}
