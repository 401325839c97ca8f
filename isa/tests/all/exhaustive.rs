//! Every 24-bit and every 16-bit word under both profiles: whatever decodes re-encodes to the
//! same bytes, and whatever does not decode yields a typed error (never a panic).

use q7_isa::{decode, encode, CoreConfig, DecodeError, Decoded, DC233C, NCORE2GP};

const PC: u32 = 0x4000_1000;

#[derive(Default, Debug)]
struct Tally {
    insns: u64,
    bundles: u64,
    truncated: u64,
    no_format: u64,
    illegal: u64,
}

fn check_word(bytes: &[u8], config: &CoreConfig, tally: &mut Tally) {
    match decode(bytes, PC, config) {
        Ok(Decoded::Insn(insn)) => {
            let enc = encode(&insn, PC).unwrap_or_else(|e| panic!("{bytes:02x?}: {e}"));
            assert_eq!(
                enc.as_bytes(),
                &bytes[..insn.len as usize],
                "{} on {}: {insn} re-encodes differently",
                q7_isa::HexWord(
                    u32::from_le_bytes([bytes[0], bytes[1], *bytes.get(2).unwrap_or(&0), 0]),
                    bytes.len() as u8
                ),
                config.name
            );
            tally.insns += 1;
        }
        Ok(Decoded::Bundle { .. }) => tally.bundles += 1,
        Err(DecodeError::Truncated {
            needed, available, ..
        }) => {
            assert!(needed as usize > available);
            tally.truncated += 1;
        }
        Err(DecodeError::NoFormat { .. }) => tally.no_format += 1,
        Err(DecodeError::Illegal { .. }) => tally.illegal += 1,
    }
}

fn all_24bit(config: &CoreConfig) -> Tally {
    let mut tally = Tally::default();
    for w in 0u32..1 << 24 {
        let b = w.to_le_bytes();
        check_word(&b[..3], config, &mut tally);
    }
    tally
}

fn all_16bit(config: &CoreConfig) -> Tally {
    let mut tally = Tally::default();
    for w in 0u32..1 << 16 {
        let b = w.to_le_bytes();
        check_word(&b[..2], config, &mut tally);
    }
    tally
}

#[test]
fn every_24bit_word_ncore2gp() {
    let t = all_24bit(&NCORE2GP);
    // op0 0xE words need all 16 bytes, op0 0xF words need byte 3: 2 × 2^20 truncated.
    assert_eq!(t.truncated, 2 << 20, "{t:?}");
    assert_eq!(t.no_format + t.bundles, 0, "{t:?}");
    assert!(t.insns > 10_000_000, "{t:?}");
}

#[test]
fn every_24bit_word_dc233c() {
    let t = all_24bit(&DC233C);
    // dc233c has no formats for op0 0xE/0xF (isa/ISA.md §1.2): 2 × 2^20 words.
    assert_eq!(t.no_format, 2 << 20, "{t:?}");
    assert_eq!(t.truncated + t.bundles, 0, "{t:?}");
    // 16,777,216 words minus the 3,035,169 + 3,790 x 2^8 that GNU objdump rejects (oracle run).
    assert!(t.insns > 10_000_000, "{t:?}");
}

#[test]
fn every_16bit_word_both_profiles() {
    // op0 0..7 need a third byte; on ncore2gp so do bundles (op0 14/15).
    let t = all_16bit(&NCORE2GP);
    assert_eq!(t.truncated, 10 << 12, "{t:?}");
    assert_eq!(t.illegal, 3790, "{t:?}");
    let t = all_16bit(&DC233C);
    assert_eq!(t.truncated, 8 << 12, "{t:?}");
    assert_eq!(t.no_format, 2 << 12, "{t:?}");
    // The 3,790 narrow words GNU objdump rejects for dc233c (ST3 group holes), same on ncore2gp.
    assert_eq!(t.illegal, 3790, "{t:?}");
}

#[test]
fn empty_input_is_truncated() {
    assert_eq!(
        decode(&[], 0x100, &NCORE2GP),
        Err(DecodeError::Truncated {
            pc: 0x100,
            needed: 1,
            available: 0
        })
    );
}
