//! Arbitrary bytes at an arbitrary PC under both profiles: decoding never panics, every
//! instruction re-encodes to its own bytes, and its text renders.
#![no_main]

use libfuzzer_sys::fuzz_target;
use q7_isa::{decode, disassemble_one, encode, Decoded, DC233C, NCORE2GP};

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let pc = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
    let bytes = &data[4..];
    for config in [&NCORE2GP, &DC233C] {
        let mut off = 0;
        while off < bytes.len() {
            let at = pc.wrapping_add(off as u32);
            let line = disassemble_one(&bytes[off..], at, config, |_| None);
            if let Ok(Decoded::Insn(insn)) = decode(&bytes[off..], at, config) {
                let enc = encode(&insn, at).expect("decoded instruction must encode");
                assert_eq!(enc.as_bytes(), &bytes[off..off + insn.len as usize]);
                assert!(!line.text.is_empty());
            }
            off += line.len;
        }
    }
});
