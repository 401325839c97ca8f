//! Programs assembled with q7-isa's encoder and run on q7emu directly, for behaviour QEMU cannot
//! check: the ncore2gp-only instructions (isa/ISA.md §2, §2.3) and the dc233c rows q7emu defines
//! itself (debug, MMU, cache-array and external-register instructions on a flat-memory,
//! debugger-less platform). Each run returns the opcodes it executed, for the coverage listing.

use std::collections::BTreeSet;

use q7_emulator::baremetal::{self, LoadSegment};
use q7_emulator::trace::{Event, Tracer};
use q7_emulator::{Core, ExcCause, FaultKind, FlatMemory, Stop};
use q7_isa::Opcode::{self, *};
use q7_isa::{sreg, CoreConfig, DC233C, NCORE2GP};

/// Load address of the programs.
pub const BASE: u32 = 0x1000;

/// A tiny assembler: instructions with operands in table order; `(at, target)` pairs make the
/// last operand of instruction `at` the address of instruction `target`.
pub fn assemble(prog: &[(Opcode, Vec<i64>)], labels: &[(usize, usize)]) -> Vec<u8> {
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
                *ops.last_mut().expect("labelled instruction has operands") = addrs[target];
            }
        }
        out.extend_from_slice(
            op.encode(&ops, addrs[i])
                .expect("valid test instruction")
                .as_bytes(),
        );
    }
    out
}

/// Row index of special register `name` (as the profile names it) for RSR/WSR/XSR operands.
pub fn sr(name: &str) -> i64 {
    sreg::SPECIAL_REGISTERS
        .iter()
        .position(|r| r.name == name)
        .unwrap_or_else(|| panic!("no special register {name}")) as i64
}

struct Executed(BTreeSet<Opcode>);

impl Tracer for Executed {
    const ENABLED: bool = true;
    fn event(&mut self, e: Event<'_>) {
        if let Event::Before { insn, .. } = e {
            if insn.bad.is_none() {
                self.0.insert(insn.insn.opcode);
            }
        }
    }
}

/// Loads `code` at [`BASE`] on a bare-metal core of `config` and runs it.
pub fn run(config: &'static CoreConfig, code: &[u8]) -> (Stop, Core<FlatMemory>, BTreeSet<Opcode>) {
    let seg = LoadSegment {
        addr: BASE,
        data: code,
        memsz: code.len() as u32,
        exec: true,
    };
    let mut core = baremetal::load(config, &[seg], BASE).expect("test program loads");
    let mut ex = Executed(BTreeSet::new());
    let stop = core.run(10_000_000, &mut ex);
    (stop, core, ex.0)
}

/// The ncore2gp-only instructions with exact expected results; returns the opcodes executed.
pub fn ncore2gp_only() -> BTreeSet<Opcode> {
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
    let (stop, core, executed) = run(&NCORE2GP, &code);
    assert_eq!(stop, Stop::Exited(0));
    let s = &core.state;
    let br = s.sr(4);
    // b0, b2 set; andb b4 = 1, andbc b5 = 0, orb b6 = 0, orbc b7 = 1, xorb b8 = 0, any4 b9 = 1,
    // all4 b10 = 0, any8 b11 = 1, all8 b12 = 0.
    assert_eq!(br, 0b1010_1001_0101, "BR {br:#x}");
    assert_eq!(s.a(8), 0x1234_5678);
    assert_eq!((s.a(10), s.a(11)), (0x1234_5678, 0x1234_5678));
    assert_eq!(s.a(14), 0x1234_5678);
    assert_eq!(s.a(15), 0);
    assert_eq!(s.a(6) >> 8 & 1, 0, "ATOMCTL[8] after the failed S32EX");
    assert_eq!(s.a(7), 99);
    executed
}

/// dc233c rows q7emu gives its own defined behaviour (QEMU models debug mode, an MMU with TLBs,
/// cache arrays and external registers that the emulated platform does not have). Each is run
/// and its outcome asserted; returns the opcodes executed.
pub fn dc233c_own_semantics() -> BTreeSet<Opcode> {
    let mut executed = BTreeSet::new();
    let exit = [(Movi, vec![2, 1]), (Movi, vec![3, 0]), (Simcall, vec![])];
    // Leave the reset state's exception mode first (PS = 0), as firmware would.
    let prelude = [(Movi, vec![2, 0]), (Wsr, vec![2, sr("ps")])];
    let stops_with = |body: Vec<(Opcode, Vec<i64>)>, executed: &mut BTreeSet<Opcode>| {
        let prog: Vec<(Opcode, Vec<i64>)> = prelude.iter().cloned().chain(body).collect();
        let (stop, _, ex) = run(&DC233C, &assemble(&prog, &[]));
        executed.extend(ex);
        stop
    };
    // BREAK / BREAK.N: no debugger, the core stops with a breakpoint report.
    for (op, args, imm) in [(Break, vec![1, 15], (1, 15)), (BreakN, vec![3], (3, 0))] {
        match stops_with(vec![(op, args)], &mut executed) {
            Stop::Fault(r) => assert_eq!(r.kind, FaultKind::Breakpoint { imm }),
            other => panic!("{op:?}: {other:?}"),
        }
    }
    // WAITI with no interrupt source would sleep forever: the core stops instead.
    match stops_with(vec![(Waiti, vec![0])], &mut executed) {
        Stop::Fault(r) => assert_eq!(r.kind, FaultKind::WaitForever),
        other => panic!("waiti: {other:?}"),
    }
    // RFDO/RFDD (on-chip-debug only), MMU TLB maintenance (flat memory): illegal instruction,
    // stopped because the program installs no handler.
    let illegal: Vec<(Opcode, Vec<i64>)> = vec![
        (Rfdo, vec![0]),
        (Rfdd, vec![]),
        (Idtlb, vec![3]),
        (Pdtlb, vec![4, 3]),
        (Rdtlb0, vec![4, 3]),
        (Rdtlb1, vec![4, 3]),
        (Wdtlb, vec![4, 3]),
        (Iitlb, vec![3]),
        (Pitlb, vec![4, 3]),
        (Ritlb0, vec![4, 3]),
        (Ritlb1, vec![4, 3]),
        (Witlb, vec![4, 3]),
        (Ldpte, vec![0, 0]),
        (Hwwitlba, vec![0, 0]),
        (Hwwdtlba, vec![0, 0]),
    ];
    for (op, args) in illegal {
        match stops_with(vec![(op, args)], &mut executed) {
            Stop::Fault(r) => assert!(
                matches!(
                    r.kind,
                    FaultKind::Exception {
                        cause: ExcCause::IllegalInstruction,
                        ..
                    }
                ),
                "{op:?}: {r}"
            ),
            other => panic!("{op:?}: {other:?}"),
        }
    }
    // Cache tag/data array reads return 0 and writes are ignored (no arrays are modelled);
    // RER/WER reach no external registers.
    let mut prog = vec![
        (Movi, vec![3, 0x100]),
        (Movi, vec![4, -1]),
        (Movi, vec![5, -1]),
        (Movi, vec![6, -1]),
        (Lict, vec![4, 3]),
        (Licw, vec![5, 3]),
        (Ldct, vec![6, 3]),
        (Sict, vec![4, 3]),
        (Sicw, vec![4, 3]),
        (Sdct, vec![4, 3]),
        (Rer, vec![0, 0]),
        (Wer, vec![0, 0]),
    ];
    prog.extend(exit.iter().cloned());
    let (stop, core, ex) = run(&DC233C, &assemble(&prog, &[]));
    executed.extend(ex);
    assert_eq!(stop, Stop::Exited(0));
    assert_eq!(
        (core.state.a(4), core.state.a(5), core.state.a(6)),
        (0, 0, 0)
    );
    executed
}
