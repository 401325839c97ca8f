//! Hand-written assembly per instruction group, run in lockstep with QEMU (dc233c): zero
//! divergences, including the edge cases (SAR 0/32/40, NSA of 0 and -1, MIN/MAX signedness,
//! CLAMPS bounds, divide overflow and divide by zero, loops with LCOUNT 0 and a taken branch to
//! LEND, ENTRY at the overflow boundary, MOVSP alloca, faults through the runtime's vectors,
//! stores over instructions that already ran).

use q7_tests::build::build_sim;
use q7_tests::lockstep;

const COMMON: &str = include_str!("../../programs/asm/common.h");

const GROUPS: &[(&str, &str)] = &[
    ("alu", include_str!("../../programs/asm/alu.S")),
    ("shift", include_str!("../../programs/asm/shift.S")),
    ("muldiv", include_str!("../../programs/asm/muldiv.S")),
    ("mem", include_str!("../../programs/asm/mem.S")),
    ("branch", include_str!("../../programs/asm/branch.S")),
    ("loop", include_str!("../../programs/asm/loop.S")),
    ("window", include_str!("../../programs/asm/window.S")),
    ("sreg", include_str!("../../programs/asm/sreg.S")),
    ("mac16", include_str!("../../programs/asm/mac16.S")),
    ("cache", include_str!("../../programs/asm/cache.S")),
    ("smc", include_str!("../../programs/asm/smc.S")),
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

/// Every row of both profiles' tables is executed: in lockstep with QEMU where QEMU has it, and
/// otherwise on q7emu with asserted outcomes (`q7_tests::spec`: the ncore2gp-only instructions,
/// and the debug/MMU/cache-array/external-register rows whose behaviour q7emu defines itself).
#[q7_requires::needs(toolchain, qemu)]
#[test]
fn instruction_groups_and_faults_match_qemu_covering_every_table_row() {
    let mut lockstep_executed = std::collections::BTreeSet::new();
    for (name, src) in GROUPS {
        match group(name, src, &[]) {
            Some(e) => lockstep_executed.extend(e),
            None => return,
        }
    }
    let src = include_str!("../../programs/asm/faults.S");
    for n in 1..=8 {
        let flag = format!("-DFAULT={n}");
        if let Some(e) = group(&format!("fault{n}"), src, &[&flag]) {
            lockstep_executed.extend(e);
        }
    }
    let own = q7_tests::spec::dc233c_own_semantics();
    let ncore = q7_tests::spec::ncore2gp_only();
    let rows: Vec<&q7_isa::OpcodeInfo> = q7_isa::OPCODES
        .iter()
        .filter(|o| q7_isa::DC233C.has(o.options) || q7_isa::NCORE2GP.has(o.options))
        .collect();
    let missing: Vec<&str> = rows
        .iter()
        .filter(|o| {
            ![&lockstep_executed, &own, &ncore]
                .iter()
                .any(|s| s.contains(&o.opcode))
        })
        .map(|o| o.mnemonic)
        .collect();
    let own_only: Vec<&str> = rows
        .iter()
        .filter(|o| {
            !lockstep_executed.contains(&o.opcode)
                && (own.contains(&o.opcode) || ncore.contains(&o.opcode))
        })
        .map(|o| o.mnemonic)
        .collect();
    eprintln!(
        "coverage: {} table rows; {} executed in lockstep with QEMU; checked on q7emu only: {own_only:?}",
        rows.len(),
        rows.iter().filter(|o| lockstep_executed.contains(&o.opcode)).count()
    );
    assert!(missing.is_empty(), "table rows never executed: {missing:?}");
}

/// Stores over instructions that already ran take effect when they run again: a byte store into
/// a MOVI's immediate just ahead of the PC, a word store over an aligned MOVI, a halfword store
/// over a MOV.N (tests/programs/asm/smc.S). QEMU agrees instruction by instruction, and the
/// result is the one the rewritten instructions compute.
#[q7_requires::needs(toolchain, qemu)]
#[test]
fn stores_over_executed_code_take_effect() {
    let src = include_str!("../../programs/asm/smc.S");
    let Some(prog) = build_sim("smc", &[("common.h", COMMON), ("smc.S", src)], &[]) else {
        return;
    };
    if !q7_tests::qemu_available() {
        return;
    }
    let s = lockstep::run(&prog.elf, 5_000_000);
    lockstep::assert_agrees("smc", &s);
    assert_eq!(s.ours_exit, Some(202), "10 + 30 + 50 + 1 + 99 + 5 + 7");
}
