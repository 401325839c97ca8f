//! The emulator's boot ROM: the standard window overflow/underflow handlers (isa/ISA.md §3.8),
//! assembled at start-up with q7-isa's encoder and placed at VECBASE. They run as real
//! instructions, so spills cost cycles and appear in traces. The general-exception vectors are
//! deliberately absent: an exception with no handler stops the core with a report.

use q7_isa::Opcode::{self, L32e, Rfwo, Rfwu, S32e};

use crate::vector::Vector;

/// Bytes the ROM occupies from VECBASE (through the end of the WindowUnderflow12 slot).
pub const SIZE: u32 = 0x180;

type Line = (Opcode, [i32; 3]);

fn handlers() -> [(u32, Vec<Line>); 6] {
    let e = |op, t: i32, s: i32, off: i32| -> Line { (op, [t, s, off]) };
    [
        (
            Vector::WindowOverflow4.offset(),
            vec![
                e(S32e, 0, 5, -16),
                e(S32e, 1, 5, -12),
                e(S32e, 2, 5, -8),
                e(S32e, 3, 5, -4),
                (Rfwo, [0; 3]),
            ],
        ),
        (
            Vector::WindowUnderflow4.offset(),
            vec![
                e(L32e, 0, 5, -16),
                e(L32e, 1, 5, -12),
                e(L32e, 2, 5, -8),
                e(L32e, 3, 5, -4),
                (Rfwu, [0; 3]),
            ],
        ),
        (
            Vector::WindowOverflow8.offset(),
            vec![
                e(S32e, 0, 9, -16),
                e(L32e, 0, 1, -12), // a0 = the spilled frame's caller's SP
                e(S32e, 2, 9, -8),
                e(S32e, 1, 9, -12),
                e(S32e, 3, 9, -4),
                e(S32e, 4, 0, -32),
                e(S32e, 5, 0, -28),
                e(S32e, 6, 0, -24),
                e(S32e, 7, 0, -20),
                (Rfwo, [0; 3]),
            ],
        ),
        (
            Vector::WindowUnderflow8.offset(),
            vec![
                e(L32e, 0, 9, -16),
                e(L32e, 1, 9, -12),
                e(L32e, 2, 9, -8),
                e(L32e, 7, 1, -12), // a7 = the caller's caller's SP
                e(L32e, 3, 9, -4),
                e(L32e, 4, 7, -32),
                e(L32e, 5, 7, -28),
                e(L32e, 6, 7, -24),
                e(L32e, 7, 7, -20),
                (Rfwu, [0; 3]),
            ],
        ),
        (
            Vector::WindowOverflow12.offset(),
            vec![
                e(S32e, 0, 13, -16),
                e(L32e, 0, 1, -12),
                e(S32e, 1, 13, -12),
                e(S32e, 2, 13, -8),
                e(S32e, 3, 13, -4),
                e(S32e, 4, 0, -48),
                e(S32e, 5, 0, -44),
                e(S32e, 6, 0, -40),
                e(S32e, 7, 0, -36),
                e(S32e, 8, 0, -32),
                e(S32e, 9, 0, -28),
                e(S32e, 10, 0, -24),
                e(S32e, 11, 0, -20),
                (Rfwo, [0; 3]),
            ],
        ),
        (
            Vector::WindowUnderflow12.offset(),
            vec![
                e(L32e, 0, 13, -16),
                e(L32e, 1, 13, -12),
                e(L32e, 2, 13, -8),
                e(L32e, 11, 1, -12),
                e(L32e, 3, 13, -4),
                e(L32e, 4, 11, -48),
                e(L32e, 5, 11, -44),
                e(L32e, 6, 11, -40),
                e(L32e, 7, 11, -36),
                e(L32e, 8, 11, -32),
                e(L32e, 9, 11, -28),
                e(L32e, 10, 11, -24),
                e(L32e, 11, 11, -20),
                (Rfwu, [0; 3]),
            ],
        ),
    ]
}

/// The ROM image for VECBASE = `base` (`SIZE` bytes; unused bytes are zero, i.e. `ill`).
pub fn image(base: u32) -> Vec<u8> {
    let mut rom = vec![0u8; SIZE as usize];
    for (offset, code) in handlers() {
        let mut at = offset as usize;
        for (op, args) in code {
            let operands: Vec<u32> = match op {
                Rfwo | Rfwu => vec![],
                _ => args.iter().map(|&a| a as u32).collect(),
            };
            let bytes = op
                .encode(&operands, base.wrapping_add(at as u32))
                .expect("boot ROM handlers are valid instructions");
            rom[at..at + bytes.as_bytes().len()].copy_from_slice(bytes.as_bytes());
            at += bytes.as_bytes().len();
        }
        assert!(
            at <= offset as usize + 0x40,
            "handler exceeds its 64-byte slot"
        );
    }
    rom
}
