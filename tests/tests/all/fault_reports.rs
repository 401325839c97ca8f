//! Faults no handler takes stop the core with a typed, printable report: core, pc, cause,
//! faulting address, disassembly, the window's registers and the a0-chain backtrace — never a
//! panic or a hang (isa/ISA.md §5.1; ARCHITECTURE.md "Exceptions and windows").

use q7_emulator::{ExcCause, FaultKind, Stop};
use q7_isa::Opcode::{self, *};
use q7_isa::{DC233C, NCORE2GP};
use q7_tests::spec::{assemble, run, sr, BASE};

/// PS = 0 (out of the reset state's exception mode), then `body`.
fn program(body: &[(Opcode, Vec<i64>)]) -> Vec<u8> {
    let mut p = vec![(Movi, vec![2, 0]), (Wsr, vec![2, sr("ps")])];
    p.extend(body.iter().cloned());
    assemble(&p, &[])
}

const PRELUDE: u32 = 6; // two 3-byte instructions

fn fault(config: &'static q7_isa::CoreConfig, code: &[u8]) -> q7_emulator::FaultReport {
    match run(config, code).0 {
        Stop::Fault(r) => *r,
        other => panic!("expected a fault, got {other:?}"),
    }
}

#[test]
fn unaligned_load_names_the_address() {
    let r = fault(
        &NCORE2GP,
        &program(&[(Movi, vec![3, 0x202]), (L32i, vec![4, 3, 0])]),
    );
    assert_eq!(r.pc, BASE + PRELUDE + 3);
    assert_eq!(r.address, Some(0x202));
    assert_eq!(r.disassembly, "l32i\ta4, a3, 0");
    assert!(matches!(
        r.kind,
        FaultKind::Exception {
            cause: ExcCause::LoadStoreAlignment,
            ..
        }
    ));
    let text = r.to_string();
    assert!(
        text.contains("LoadStoreAlignmentCause (9): unaligned 4-byte load from 0x00000202"),
        "{text}"
    );
    assert!(text.contains("address:     0x00000202"), "{text}");
}

#[test]
fn unaligned_store_and_divide_by_zero() {
    let r = fault(
        &NCORE2GP,
        &program(&[(Movi, vec![3, 0x201]), (S16i, vec![4, 3, 0])]),
    );
    assert!(
        r.to_string()
            .contains("unaligned 2-byte store to 0x00000201"),
        "{r}"
    );
    let r = fault(
        &NCORE2GP,
        &program(&[(Movi, vec![3, 0]), (Quou, vec![4, 5, 3])]),
    );
    assert!(
        matches!(
            r.kind,
            FaultKind::Exception {
                cause: ExcCause::IntegerDivideByZero,
                ..
            }
        ),
        "{r}"
    );
    assert_eq!(r.disassembly, "quou\ta4, a5, a3");
}

#[test]
fn illegal_instructions_and_vision_q7_bundles() {
    let r = fault(&NCORE2GP, &program(&[(Ill, vec![])]));
    assert!(matches!(
        r.kind,
        FaultKind::Exception {
            cause: ExcCause::IllegalInstruction,
            ..
        }
    ));
    // CALL4 does not exist on ncore2gp: decoded as illegal, named with its word.
    let mut code = program(&[]);
    code.extend_from_slice(&[0x15, 0x00, 0x00]);
    let r = fault(&NCORE2GP, &code);
    assert!(
        r.to_string()
            .contains("word 0x000015 is not an instruction on ncore2gp"),
        "{r}"
    );
    // A 16-byte FLIX bundle (op0 0xE).
    let mut code = program(&[]);
    code.extend_from_slice(&[0x0e; 16]);
    let r = fault(&NCORE2GP, &code);
    assert_eq!(r.kind, FaultKind::UnsupportedBundle { len: 16 });
    assert_eq!(r.pc, BASE + PRELUDE);
}

#[test]
fn privileged_register_in_user_ring() {
    // dc233c has rings: PS.RING = 1, EXCM = 0, then RSR of an SR >= 64.
    let code = assemble(
        &[
            (Movi, vec![2, 0x40]),
            (Wsr, vec![2, sr("ps")]),
            (Rsr, vec![3, sr("vecbase")]),
        ],
        &[],
    );
    let r = fault(&DC233C, &code);
    assert!(
        matches!(
            r.kind,
            FaultKind::Exception {
                cause: ExcCause::Privileged,
                ..
            }
        ),
        "{r}"
    );
    assert_eq!(r.disassembly, "rsr.vecbase\ta3");
}

#[test]
fn double_exception_in_exception_mode() {
    // Reset state: PS.EXCM = 1, so the first fault is a double exception.
    let r = fault(&NCORE2GP, &assemble(&[(Ill, vec![])], &[]));
    assert!(
        matches!(
            r.kind,
            FaultKind::DoubleException {
                cause: ExcCause::IllegalInstruction,
                ..
            }
        ),
        "{r}"
    );
}

#[test]
fn runaway_program_exhausts_the_budget() {
    let code = program(&[(J, vec![i64::from(BASE + PRELUDE)])]);
    let (stop, core, _) = run(&NCORE2GP, &code);
    let Stop::Fault(r) = stop else {
        panic!("{stop:?}")
    };
    assert_eq!(
        r.kind,
        FaultKind::BudgetExhausted {
            max_cycles: 10_000_000
        }
    );
    assert!(core.stats.cycles >= 10_000_000);
}

#[test]
fn backtrace_follows_the_a0_chain() {
    // start -> f (call8) -> g (call8) -> ill: frames g, f, start, with their stack pointers.
    let p = vec![
        /* 0 */ (Movi, vec![2, 1]),
        /* 1 */ (Wsr, vec![2, sr("windowstart")]),
        /* 2 */ (Const16, vec![1, 0x0007]),
        /* 3 */ (Const16, vec![1, 0xf000]), // SP 0x7f000
        /* 4 */ (Const16, vec![3, 0x0004]),
        /* 5 */ (Const16, vec![3, 0x0000]), // PS.WOE
        /* 6 */ (Wsr, vec![3, sr("ps")]),
        /* 7 */ (Call8, vec![0]), // -> f (8)
        /* 8 f */ (Entry, vec![1, 32]),
        /* 9 */ (Call8, vec![0]), // -> g (11)
        /* 10 */ (NopN, vec![]), // aligns g
        /* 11 g */ (Entry, vec![1, 32]),
        /* 12 */ (Ill, vec![]),
    ];
    let code = assemble(&p, &[(7, 8), (9, 11)]);
    let r = fault(&NCORE2GP, &code);
    let pcs: Vec<u32> = r.backtrace.iter().map(|f| f.pc).collect();
    let sps: Vec<u32> = r.backtrace.iter().map(|f| f.sp).collect();
    assert_eq!(pcs.len(), 3, "{r}");
    assert_eq!(sps, vec![0x7f000 - 64, 0x7f000 - 32, 0x7f000], "{r}");
    assert_eq!(pcs[0], r.pc);
    assert!(r.to_string().contains("backtrace:"));
}
