//! The worked encodings of isa/ISA.md §2.1 and §2.3: each word decodes to the
//! stated instruction, prints as GNU objdump prints it, and encodes back to the same word.

use q7_isa::{decode, encode, CoreConfig, DecodeError, Decoded, Opcode, DC233C, NCORE2GP};

const PC: u32 = 0x1000;

fn text(word: u32, len: usize, config: &CoreConfig) -> String {
    let b = word.to_le_bytes();
    match decode(&b[..len], PC, config) {
        Ok(Decoded::Insn(insn)) => {
            assert_eq!(
                encode(&insn, PC).unwrap().word(),
                word,
                "re-encoding {insn}"
            );
            insn.to_string()
        }
        other => panic!("{word:#x}: {other:?}"),
    }
}

#[test]
fn reference_section_2_1_worked_encodings() {
    // (word, objdump text at PC 0x1000), both profiles unless noted.
    let common: &[(u32, usize, &str)] = &[
        (0x643540, 3, "extui\ta3, a4, 5, 7"),
        (0x1134f0, 3, "slli\ta3, a4, 1"),
        (0x313140, 3, "srai\ta3, a4, 17"),
        (0x404110, 3, "ssai\t17"),
        (0xea7317, 3, "bbci\ta3, 17, 0xfee"),
        (0x00a832, 3, "movi\ta3, 0xfffff800"),
        (0xd8f326, 3, "beqi\ta3, 0x100, 0xfdc"),
        (0x036c, 2, "movi.n\ta3, -32"),
        (0x53bc, 2, "beqz.n\ta3, 0x1039"),
        (0xfff136, 3, "entry\ta1, 0x7ff8"),
        (0x149376, 3, "loopnez\ta3, 0x1018"),
        (0xe33e70, 3, "rur.threadptr\ta3"),
        (0xf3e730, 3, "wur.threadptr\ta3"),
        (0x03eb30, 3, "rsr.prid\ta3"),
        (0x13e730, 3, "wsr.vecbase\ta3"),
        (0x61e630, 3, "xsr.ps\ta3"),
        (0xfff9a5, 3, "call8\t0xf9c"),
        (0x004136, 3, "entry\ta1, 32"),
        (0xf01d, 2, "retw.n"),
        (0x0003e0, 3, "callx8\ta3"),
        (0x001430, 3, "movsp\ta3, a4"),
        (0x4080f0, 3, "rotw\t-1"),
        (0x090430, 3, "l32e\ta3, a4, -64"),
        (0x49f430, 3, "s32e\ta3, a4, -4"),
        (0x003400, 3, "rfwo"),
        (0x003500, 3, "rfwu"),
        (0xd22340, 3, "quos\ta2, a3, a4"),
        (0x0020f0, 3, "nop"),
        (0xf03d, 2, "nop.n"),
        (0x000000, 3, "ill"),
        (0xf06d, 2, "ill.n"),
    ];
    for config in [&NCORE2GP, &DC233C] {
        for &(w, len, want) in common {
            assert_eq!(text(w, len, config), want, "{w:#x} on {}", config.name);
        }
    }
}

#[test]
fn ncore2gp_exclusive_access_and_const16_section_2_3() {
    assert_eq!(text(0xf14320, 3, &NCORE2GP), "l32ex\ta2, a3");
    assert_eq!(text(0xf15320, 3, &NCORE2GP), "s32ex\ta2, a3");
    assert_eq!(text(0x40a020, 3, &NCORE2GP), "getex\ta2");
    assert_eq!(text(0x003120, 3, &NCORE2GP), "clrex");
    // CONST16 a2, 0x1234: template 0x000004 with t = 2, imm16 = 0x1234.
    assert_eq!(text(0x123424, 3, &NCORE2GP), "const16\ta2, 0x1234");
    // The same op0 = 4 word is MAC16 on dc233c (§2.2: CONST16 and MAC16 exclude each other).
    let b = 0x123424u32.to_le_bytes();
    assert!(
        matches!(decode(&b[..3], PC, &DC233C), Ok(Decoded::Insn(i)) if i.opcode != Opcode::Const16)
            || decode(&b[..3], PC, &DC233C).is_err()
    );
}

#[test]
fn ncore2gp_has_no_call4_call12_mac16_or_s32c1i_section_0() {
    for (w, name) in [
        (0x000015u32, "call4"),
        (0x000035, "call12"),
        (0x0003d0, "callx4"),
        (0x0003f0, "callx12"),
        (0x01ea02, "s32c1i"),
    ] {
        let b = w.to_le_bytes();
        assert!(
            matches!(
                decode(&b[..3], PC, &NCORE2GP),
                Err(DecodeError::Illegal { .. })
            ),
            "{name} must be illegal on ncore2gp"
        );
        assert!(
            decode(&b[..3], PC, &DC233C).is_ok(),
            "{name} is legal on dc233c"
        );
    }
}

#[test]
fn ncore2gp_flix_bundle_lengths_section_1_3() {
    // op0 = 0xE: always 16 bytes.
    let mut b = [0u8; 16];
    b[0] = 0x0e;
    assert_eq!(decode(&b, PC, &NCORE2GP), Ok(Decoded::Bundle { len: 16 }));
    // op0 = 0xF: byte 3 even -> 8 bytes, odd -> 16, 7 and 15 illegal.
    b[0] = 0x0f;
    b[3] = 0x02;
    assert_eq!(decode(&b, PC, &NCORE2GP), Ok(Decoded::Bundle { len: 8 }));
    b[3] = 0x03;
    assert_eq!(decode(&b, PC, &NCORE2GP), Ok(Decoded::Bundle { len: 16 }));
    b[3] = 0x07;
    assert!(matches!(
        decode(&b, PC, &NCORE2GP),
        Err(DecodeError::NoFormat { byte: 0x0f, .. })
    ));
    // Length known from 4 bytes: a 16-byte bundle in 10 bytes is truncated, needing 16.
    b[3] = 0x03;
    assert_eq!(
        decode(&b[..10], PC, &NCORE2GP),
        Err(DecodeError::Truncated {
            pc: PC,
            needed: 16,
            available: 10
        })
    );
    // dc233c has no wide formats.
    assert!(matches!(
        decode(&b, PC, &DC233C),
        Err(DecodeError::NoFormat { op0: 0xf, .. })
    ));
}

#[test]
fn special_register_names_follow_the_profile_section_4_1() {
    // SR 90 is RASID with an MMU (dc233c) and MPUENB with an MPU (ncore2gp).
    assert_eq!(text(0x035a30, 3, &DC233C), "rsr.rasid\ta3");
    assert_eq!(text(0x035a30, 3, &NCORE2GP), "rsr.mpuenb\ta3");
    // ISL (248) and KSL (249) exist on ncore2gp only.
    assert_eq!(text(0x13f830, 3, &NCORE2GP), "wsr.isl\ta3");
    assert_eq!(text(0x13f930, 3, &NCORE2GP), "wsr.ksl\ta3");
    let b = 0x13f830u32.to_le_bytes();
    assert!(decode(&b[..3], PC, &DC233C).is_err());
    // PRID is read-only: WSR.PRID does not exist.
    let b = 0x13eb30u32.to_le_bytes();
    assert!(decode(&b[..3], PC, &NCORE2GP).is_err());
    // SR 226 reads as INTERRUPT and writes as INTSET (dc233c).
    assert_eq!(text(0x03e230, 3, &DC233C), "rsr.interrupt\ta3");
    assert_eq!(text(0x13e230, 3, &DC233C), "wsr.intset\ta3");
}

#[test]
fn illegal_words_are_typed_errors_naming_pc_and_word() {
    // op0 = 3 (LSCI, floating-point loads/stores): neither profile has any.
    let w = 0x000003u32.to_le_bytes();
    let e = decode(&w[..3], 0x8400_0010, &NCORE2GP).unwrap_err();
    assert_eq!(
        e,
        DecodeError::Illegal {
            pc: 0x8400_0010,
            word: 0x000003,
            len: 3,
            profile: "ncore2gp"
        }
    );
    assert_eq!(
        e.to_string(),
        "illegal instruction at 0x84000010: word 0x000003 is not an instruction on ncore2gp"
    );
}
