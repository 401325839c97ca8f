//! ncore2gp behaviour that QEMU cannot check: the ISL/KSL stack limit (reference §9.4) and the
//! ncore2gp-only instructions (§2, §2.3), on programs assembled with q7-isa's encoder.

use q7_emulator::baremetal::{self, LoadSegment};
use q7_emulator::{FaultKind, NoTrace, Stop};
use q7_isa::Opcode::{self, *};
use q7_isa::{sreg, NCORE2GP};

const BASE: u32 = 0x1000;

/// A tiny assembler: instructions with operands in table order; `Label` targets resolve to the
/// address of the instruction with that index.
fn assemble(prog: &[(Opcode, Vec<i64>)], labels: &[(usize, usize)]) -> Vec<u8> {
    // First pass: addresses.
    let mut addrs = Vec::new();
    let mut pc = BASE;
    for (op, _) in prog {
        addrs.push(pc);
        pc += u32::from(op.info().len);
    }
    let mut out = Vec::new();
    for (i, (op, args)) in prog.iter().enumerate() {
        let mut ops: Vec<u32> = args.iter().map(|&a| a as u32).collect();
        for &(at, target) in labels {
            if at == i {
                *ops.last_mut().unwrap() = addrs[target];
            }
        }
        out.extend_from_slice(op.encode(&ops, addrs[i]).unwrap().as_bytes());
    }
    out
}

fn sr(name: &str) -> i64 {
    sreg::SPECIAL_REGISTERS
        .iter()
        .position(|r| r.name == name && NCORE2GP.has(r.options))
        .unwrap() as i64
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

fn run(code: &[u8]) -> (Stop, q7_emulator::Core<q7_emulator::FlatMemory>) {
    let seg = LoadSegment {
        addr: BASE,
        data: code,
        memsz: code.len() as u32,
        exec: true,
    };
    let mut core = baremetal::load(&NCORE2GP, &[seg], BASE).unwrap();
    let stop = core.run(10_000_000, &mut NoTrace);
    (stop, core)
}

#[test]
fn ksl_faults_at_the_exact_frame_that_crosses_the_limit() {
    // Frames of 64 bytes below SP 0x10000: depth k has SP 0x10000 - 64 k.
    let ksl = 0x10000 - 64 * 5;
    // rec(4) makes 5 frames: the deepest SP equals KSL exactly, which is allowed.
    let (stop, _) = run(&recursion_program(ksl, 4));
    assert_eq!(stop, Stop::Exited(7));
    // rec(5) makes a 6th frame whose SP is 64 bytes below KSL: stopped at that ENTRY.
    let (stop, core) = run(&recursion_program(ksl, 5));
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
    let (stop, core) = run(&recursion_program(0, 40));
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
    let br = sr("br");
    let atomctl = sr("atomctl");
    let p = vec![
        /* 0 */ (Movi, vec![2, -5]),
        /* 1 */ (Movi, vec![3, 3]),
        /* 2 */ (Salt, vec![4, 2, 3]), // 1: -5 < 3
        /* 3 */ (Saltu, vec![5, 2, 3]), // 0: 0xfffffffb > 3
        /* 4 */ (Muluh, vec![6, 2, 3]), // (0xfffffffb * 3) >> 32 = 2
        /* 5 */ (Mulsh, vec![7, 2, 3]), // (-15) >> 32 = -1
        /* 6 */ (Const16, vec![8, 0x1234]),
        /* 7 */ (Const16, vec![8, 0x5678]), // a8 = 0x12345678
        /* 8 */ (Movi, vec![9, 0b0101]),
        /* 9 */ (Wsr, vec![9, br]), // b0 = 1, b2 = 1
        /* 10 */ (Andb, vec![4, 0, 2]), // b4 = 1
        /* 11 */ (Andbc, vec![5, 0, 2]), // b5 = 0
        /* 12 */ (Orb, vec![6, 1, 3]), // b6 = 0
        /* 13 */ (Orbc, vec![7, 1, 3]), // b7 = 1
        /* 14 */ (Xorb, vec![8, 0, 2]), // b8 = 0
        /* 15 */ (Any4, vec![9, 0]), // b9 = 1
        /* 16 */ (All4, vec![10, 4]), // b4..b7 = 1,0,0,1 -> 0
        /* 17 */ (Any8, vec![11, 8]), // b8..b15 = 0,1,0,.. -> 1
        /* 18 */ (All8, vec![12, 0]), // 0
        /* 19 */ (Movi, vec![10, 0]),
        /* 20 */ (Movt, vec![10, 8, 0]), // b0 = 1: a10 = a8
        /* 21 */ (Movi, vec![11, 0]),
        /* 22 */ (Movf, vec![11, 8, 1]), // b1 = 0: a11 = a8
        /* 23 */ (Bt, vec![9, 0]), // b9 = 1: taken -> 25
        /* 24 */ (Ill, vec![]),
        /* 25 */ (Bf, vec![10, 0]), // b10 = 0: taken -> 27
        /* 26 */ (Ill, vec![]),
        /* 27 */ (Const16, vec![12, 0]),
        /* 28 */ (Const16, vec![12, 0x4000]), // a12 = 0x4000 (scratch word)
        /* 29 */ (S32nb, vec![8, 12, 4]), // [0x4004] = 0x12345678
        /* 30 */ (Addi, vec![13, 12, 4]),
        /* 31 */ (L32ex, vec![14, 13]), // a14 = 0x12345678, monitor armed
        /* 32 */ (Movi, vec![15, 99]),
        /* 33 */
        (S32ex, vec![15, 13]), // succeeds: [0x4004] = 99, a15 = old ATOMCTL[8] = 0
        /* 34 */ (Movi, vec![2, 0]),
        /* 35 */ (Getex, vec![2]), // a2 = 1 (success), ATOMCTL[8] = 0
        /* 36 */ (Movi, vec![3, 5]),
        /* 37 */ (S32ex, vec![3, 13]), // fails: monitor disarmed
        /* 38 */ (Movi, vec![4, 0]),
        /* 39 */ (Getex, vec![4]), // a4 = 0 (failure)
        /* 40 */ (L32ex, vec![5, 13]),
        /* 41 */ (Clrex, vec![]),
        /* 42 */ (S32ex, vec![3, 13]), // fails after CLREX
        /* 43 */ (Rsr, vec![6, atomctl]),
        /* 44 */ (L32i, vec![7, 12, 4]), // 99
        /* 45 */ (Movi, vec![2, 1]),
        /* 46 */ (Movi, vec![3, 0]),
        /* 47 */ (Simcall, vec![]),
    ];
    let code = assemble(&p, &[(23, 25), (25, 27)]);
    let (stop, core) = run(&code);
    assert_eq!(stop, Stop::Exited(0));
    let s = &core.state;
    let br = s.sr[4];
    // b0, b2 set; andb b4 = 1, andbc b5 = 0, orb b6 = 0, orbc b7 = 1, xorb b8 = 0, any4 b9 = 1,
    // all4 b10 = 0, any8 b11 = 1, all8 b12 = 0.
    assert_eq!(br, 0b1010_1001_0101, "BR {br:#x}");
    assert_eq!(s.a(8), 0x1234_5678);
    assert_eq!((s.a(10), s.a(11)), (0x1234_5678, 0x1234_5678));
    assert_eq!(s.a(14), 0x1234_5678);
    assert_eq!(s.a(15), 0);
    assert_eq!(s.a(6) >> 8 & 1, 0, "ATOMCTL[8] after the failed S32EX");
    assert_eq!(s.a(7), 99);
}
