//! C programs run instruction by instruction in lockstep with QEMU (dc233c profile): zero
//! divergences in PC, a0..a15, SAR, PS, WINDOWBASE, WINDOWSTART, LBEG/LEND/LCOUNT and exception
//! deliveries; identical output (memory checksums) and exit status.

use q7_tests::build::build_sim;
use q7_tests::lockstep;

const TESTIO: &str = include_str!("../programs/testio.h");

fn check(name: &str, source: &str) {
    let Some(prog) = build_sim(
        name,
        &[("testio.h", TESTIO), (&format!("{name}.c"), source)],
        &[],
    ) else {
        return;
    };
    if !q7_tests::qemu_available() {
        return;
    }
    let s = lockstep::run(&prog.elf, 50_000_000);
    lockstep::assert_agrees(name, &s);
}

#[test]
fn recursion_with_window_spills_at_every_depth() {
    check("recursion", include_str!("../programs/recursion.c"));
}

#[test]
fn integer_and_64bit_arithmetic_through_windowed_helpers() {
    check("arith", include_str!("../programs/arith.c"));
}

#[test]
fn switch_tables_struct_copies_bits_and_strings() {
    check("mix", include_str!("../programs/mix.c"));
}
