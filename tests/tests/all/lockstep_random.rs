//! Random instruction streams in lockstep with QEMU: 1,000 streams per run (20 programs of 50),
//! each starting from random register values and running 24 random valid instructions (ALU,
//! shifts, SAR set-up, multiplies, min/max, sign operations, narrow forms, conditional moves,
//! loads and stores to a scratch buffer addressed by a15, and forward branches), all
//! terminating. Seeds are printed; replay with `Q7EMU_SEED`.

use std::fmt::Write as _;

use q7_isa::Opcode::{self, *};
use q7_isa::{Insn, OperandKind, DC233C};
use q7_tests::build::build_sim;
use q7_tests::{lockstep, seed, Rng};

const COMMON: &str = include_str!("../../programs/asm/common.h");
const PROGRAMS: usize = 20;
const STREAMS: usize = 50;
const LEN: usize = 24;

/// Rows a stream draws from: they only touch registers and SAR, never trap.
const POOL: &[Opcode] = &[
    Add, AddN, Addx2, Addx4, Addx8, Sub, Subx2, Subx4, Subx8, And, Or, Xor, Neg, Abs, Addi, AddiN,
    Addmi, Movi, MoviN, MovN, Moveqz, Movnez, Movltz, Movgez, Extui, Slli, Srli, Srai, Sll, Srl,
    Sra, Src, Ssr, Ssl, Ssa8l, Ssa8b, Ssai, Mul16u, Mul16s, Mull, Nsa, Nsau, Min, Max, Minu, Maxu,
    Sext, Clamps, Nop, NopN, Beq, Bne, Blt, Bge, Bltu, Bgeu, Bany, Bnone, Ball, Bnall, Bbc, Bbs,
    Bbci, Bbsi, Beqi, Bnei, Blti, Bgei, Bltui, Bgeui, Beqz, Bnez, Bltz, Bgez, L8ui, L16ui, L16si,
    L32i, L32iN, S8i, S16i, S32i, S32iN,
];

/// Loads and stores: their base register is forced to a15, the scratch buffer.
fn is_memory(op: Opcode) -> bool {
    matches!(
        op,
        L8ui | L16ui | L16si | L32i | L32iN | S8i | S16i | S32i | S32iN
    )
}

/// One random instruction as assembly text; branches go forward to a label of this stream.
fn random_insn(rng: &mut Rng, stream: usize, index: usize) -> String {
    loop {
        let op = POOL[rng.below(POOL.len() as u32) as usize];
        let info = op.info();
        let free = !info.mask & if info.len == 3 { 0xff_ffff } else { 0xffff };
        let mut w = info.match_bits | (rng.next_u32() & free);
        if is_memory(op) {
            w |= 0xf00; // base register s = a15
        }
        let Ok(insn) = (if info.len == 3 {
            q7_isa::decode_wide(w, 0, &DC233C)
        } else {
            q7_isa::decode_narrow(w, 0, &DC233C)
        }) else {
            continue;
        };
        if insn.opcode != op || writes_reserved(&insn) {
            continue;
        }
        if op == Extui && insn.operands[2] + insn.operands[3] > 32 {
            continue;
        }
        // Branches go forward to a later instruction of the stream (or its end).
        let s = q7_tests::source_line(&insn, |_| {
            let to = index + 1 + rng.below((LEN - index) as u32) as usize;
            format!(".Ls{stream}_{to}")
        });
        return s;
    }
}

/// Whether `insn` writes a0 (return address), a1 (stack pointer) or a15 (scratch base).
fn writes_reserved(insn: &Insn) -> bool {
    let info = insn.info();
    info.operands
        .iter()
        .zip(&insn.operands)
        .enumerate()
        .any(|(i, (k, &v))| {
            matches!(k, OperandKind::ArR | OperandKind::ArS | OperandKind::ArT)
                && info.writes >> i & 1 != 0
                && (v < 2 || v == 15)
        })
}

fn program(rng: &mut Rng, p: usize) -> String {
    let mut s = String::from(
        "#include \"common.h\"\n\t.data\n\t.align\t4\nscratch:\t.space\t1024\n\tBEGIN_MAIN\n",
    );
    for st in 0..STREAMS {
        let stream = p * STREAMS + st;
        for r in 2..15 {
            let _ = writeln!(s, "\tLI\ta{r}, {:#x}", rng.next_u32());
        }
        let _ = writeln!(s, "\tLI\ta15, scratch");
        let _ = writeln!(s, "\tssai\t{}", rng.below(32));
        for i in 0..LEN {
            let _ = writeln!(s, ".Ls{stream}_{i}:\t{}", random_insn(rng, stream, i));
        }
        let _ = writeln!(s, ".Ls{stream}_{LEN}:");
    }
    s.push_str("\tEND_MAIN\n");
    s
}

#[q7_requires::needs(toolchain, qemu)]
#[test]
fn random_instruction_streams_match_qemu() {
    let base = seed("random_instruction_streams_match_qemu");
    for p in 0..PROGRAMS {
        let mut rng = Rng(base.wrapping_add(p as u64));
        let src = program(&mut rng, p);
        let name = format!("random{p}");
        let Some(prog) = build_sim(
            &name,
            &[("common.h", COMMON), (&format!("{name}.S"), &src)],
            &[],
        ) else {
            return;
        };
        if !q7_tests::qemu_available() {
            return;
        }
        let s = lockstep::run(&prog.elf, 1_000_000);
        if let Some(d) = &s.divergence {
            panic!("{name} (seed {}): {d}", base.wrapping_add(p as u64));
        }
        lockstep::assert_agrees(&name, &s);
    }
}
