//! C programs run instruction by instruction in lockstep with QEMU (dc233c profile): zero
//! divergences in PC, a0..a15, SAR, PS, WINDOWBASE, WINDOWSTART, LBEG/LEND/LCOUNT and exception
//! deliveries; identical output (memory checksums) and exit status.

use q7_emulator::FaultKind;
use q7_tests::build::build_sim;
use q7_tests::lockstep;

const TESTIO: &str = include_str!("../../programs/testio.h");

/// The function-pointer recursion of `fnptr_recursion.c` with its assembly levels.
const FNPTR: [(&str, &str); 2] = [
    (
        "fnptr_recursion.c",
        include_str!("../../programs/fnptr_recursion.c"),
    ),
    (
        "fnptr_calls.S",
        include_str!("../../programs/fnptr_calls.S"),
    ),
];

fn check(name: &str, source: &str) {
    check_sources(name, &[(&format!("{name}.c"), source)]);
}

/// `sources` (with `testio.h`) in lockstep with QEMU, and under `q7emu run-elf`'s defaults.
fn check_sources(name: &str, sources: &[(&str, &str)]) {
    let mut all = vec![("testio.h", TESTIO)];
    all.extend_from_slice(sources);
    let Some(prog) = build_sim(name, &all, &[]) else {
        return;
    };
    if !q7_tests::qemu_available() {
        return;
    }
    let s = lockstep::run(&prog.elf, 50_000_000);
    lockstep::assert_agrees(name, &s);
}

#[q7_requires::needs(toolchain, qemu)]
#[test]
fn recursion_with_window_spills_at_every_depth() {
    check("recursion", include_str!("../../programs/recursion.c"));
}

#[q7_requires::needs(toolchain, qemu)]
#[test]
fn integer_and_64bit_arithmetic_through_windowed_helpers() {
    check("arith", include_str!("../../programs/arith.c"));
}

#[q7_requires::needs(toolchain, qemu)]
#[test]
fn switch_tables_struct_copies_bits_and_strings() {
    check("mix", include_str!("../../programs/mix.c"));
}

#[q7_requires::needs(toolchain, qemu)]
#[test]
fn recursion_through_function_pointers_mixing_call4_call8_call12_alloca_and_movsp() {
    // The program of the stack check's regression: a poll of a1 that lands in a window
    // underflow handler reads the rotated frame's stale a1, not the stack pointer.
    check_sources("fnptr_recursion", &FNPTR);
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_recursion_that_really_overflows_is_stopped_where_it_leaves_the_stack_region() {
    let mut all = vec![("testio.h", TESTIO)];
    all.extend_from_slice(&FNPTR);
    let Some(prog) = build_sim("fnptr_overflow", &all, &["-DOVERFLOW"]) else {
        return;
    };
    let run = lockstep::run_with_defaults(&prog.elf);
    let report = run.fault.expect("the overflow stops the program");
    let FaultKind::StackOverflow {
        sp,
        bottom,
        top,
        then,
    } = &report.kind
    else {
        panic!("not a stack overflow:\n{report}");
    };
    assert_eq!(
        *top, 0x0080_0000,
        "examples/bare-metal/rt/link.ld: _stack_top"
    );
    assert_eq!(*then, None);
    // Caught at the ENTRY or MOVSP that allocates the first frame below the bottom (`_end`),
    // by less than the largest frame or alloca of the program, before the frame is used.
    assert!(sp < bottom && bottom - sp <= 128, "{report}");
    let insn = report.disassembly.split_whitespace().next().unwrap();
    assert!(matches!(insn, "entry" | "movsp"), "{report}");
    assert!(
        report.registers[1] >= *bottom,
        "a1 itself never left the region: {report}"
    );
    assert!(report.to_string().contains("--stack none"), "{report}");
}
