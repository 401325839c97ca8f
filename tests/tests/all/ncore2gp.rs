//! ncore2gp behaviour that QEMU cannot check: the ISL/KSL stack limit (isa/ISA.md §9.4) and the
//! ncore2gp-only instructions (§2, §2.3), on programs assembled with q7-isa's encoder.

use q7_emulator::{FaultKind, Stop};
use q7_isa::Opcode::*;
use q7_isa::NCORE2GP;
use q7_tests::spec::{assemble, ncore2gp_only, run, sr, BASE};

fn run_n(code: &[u8]) -> (Stop, q7_emulator::Core<q7_emulator::FlatMemory>) {
    let (stop, core, _) = run(&NCORE2GP, code);
    (stop, core)
}

/// Sets up windows and PS (WOE), SP = 0x10000, KSL = `ksl`, then recursion of `depth` frames
/// of 64 bytes each, then exits with 7.
fn recursion_program(ksl: u32, depth: i64) -> Vec<u8> {
    let p = vec![
        /* 0 */ (Const16, vec![1, 0x0001]),
        /* 1 */ (Const16, vec![1, 0x0000]), // a1 = 0x10000
        /* 2 */ (Movi, vec![2, 1]),
        /* 3 */ (Wsr, vec![2, sr("windowstart")]),
        /* 4 */ (Const16, vec![2, i64::from(ksl >> 16)]),
        /* 5 */ (Const16, vec![2, i64::from(ksl & 0xffff)]),
        /* 6 */ (Wsr, vec![2, sr("ksl")]),
        /* 7 */ (Const16, vec![2, 0x0004]),
        /* 8 */ (Const16, vec![2, 0x0000]), // PS.WOE
        /* 9 */ (Wsr, vec![2, sr("ps")]),
        /* 10 */ (Rsync, vec![]),
        /* 11 */ (Movi, vec![10, depth]),
        /* 12 */ (Call8, vec![0]), // -> rec (14)
        /* 13 */ (J, vec![0]), // -> exit (20)
        /* 14 */ (NopN, vec![]), // aligns rec: CALL8 targets are word-aligned
        /* 15 rec */ (Entry, vec![1, 64]),
        /* 16 */ (Beqz, vec![2, 0]), // -> 19
        /* 17 */ (Addi, vec![10, 2, -1]),
        /* 18 */ (Call8, vec![0]), // -> 15
        /* 19 */ (Retw, vec![0]),
        /* 20 exit */ (Movi, vec![2, 1]),
        /* 21 */ (Movi, vec![3, 7]),
        /* 22 */ (Simcall, vec![]),
    ];
    assemble(&p, &[(12, 15), (13, 20), (16, 19), (18, 15)])
}

#[test]
fn ksl_faults_at_the_exact_frame_that_crosses_the_limit() {
    // Frames of 64 bytes below SP 0x10000: depth k has SP 0x10000 - 64 k.
    let ksl = 0x10000 - 64 * 5;
    // rec(4) makes 5 frames: the deepest SP equals KSL exactly, which is allowed.
    let (stop, _) = run_n(&recursion_program(ksl, 4));
    assert_eq!(stop, Stop::Exited(7));
    // rec(5) makes a 6th frame whose SP is 64 bytes below KSL: stopped at that ENTRY.
    let (stop, core) = run_n(&recursion_program(ksl, 5));
    let Stop::Fault(r) = stop else {
        panic!("expected a stack-limit fault, got {stop:?}")
    };
    assert_eq!(
        r.kind,
        FaultKind::StackLimit {
            register: "KSL",
            limit: ksl,
            new_sp: ksl - 64
        }
    );
    assert_eq!(r.pc, BASE + 14 * 3 + 2); // address of `entry` (instruction 15)
    assert_eq!(r.disassembly, "entry\ta1, 64");
    // The faulting ENTRY has not rotated: the backtrace starts in the 5th rec frame.
    assert_eq!(r.backtrace[0], q7_emulator::Frame { pc: r.pc, sp: ksl });
    assert_eq!(core.state.pc, r.pc);
}

#[test]
fn ksl_zero_disables_the_check() {
    let (stop, core) = run_n(&recursion_program(0, 40));
    assert_eq!(stop, Stop::Exited(7));
    // 41 frames of CALL8 on 16 register groups: the boot ROM's handlers spilled and refilled.
    assert!(
        core.stats.exceptions >= 2 * (41 - 7),
        "{} window exceptions",
        core.stats.exceptions
    );
}

#[test]
fn ncore2gp_only_instructions() {
    ncore2gp_only();
}
