//! The opcode table is well formed: every bit of every row is either fixed by its mask or owned
//! by exactly one operand (so decode → encode is exact), and mnemonics are unique.

use std::collections::HashSet;

use q7_isa::{Opcode, OPCODES};

#[test]
fn every_bit_is_fixed_or_owned_by_exactly_one_operand() {
    for row in OPCODES {
        let full: u32 = if row.len == 3 { 0xff_ffff } else { 0xffff };
        assert_eq!(
            row.match_bits & !row.mask,
            0,
            "{}: match outside mask",
            row.mnemonic
        );
        let mut owned = 0u32;
        for k in row.operands {
            let f = k.field_mask();
            assert_eq!(
                f & row.mask,
                0,
                "{}: {k:?} overlaps fixed bits",
                row.mnemonic
            );
            // Register-name operands share the s field with nothing else in their rows.
            assert_eq!(
                f & owned,
                0,
                "{}: {k:?} overlaps another operand",
                row.mnemonic
            );
            owned |= f;
        }
        assert_eq!(
            owned | row.mask,
            full,
            "{}: bits neither fixed nor owned",
            row.mnemonic
        );
    }
}

#[test]
fn rows_are_indexed_by_opcode_and_mnemonics_are_unique() {
    let mut seen = HashSet::new();
    for (i, row) in OPCODES.iter().enumerate() {
        assert_eq!(row.opcode as usize, i);
        assert!(
            seen.insert(row.mnemonic),
            "duplicate mnemonic {}",
            row.mnemonic
        );
        assert_eq!(Opcode::from_mnemonic(row.mnemonic), Some(row.opcode));
    }
    assert_eq!(OPCODES.len(), 279);
}
