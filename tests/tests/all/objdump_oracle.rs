//! Oracle: q7-isa's disassembly text equals GNU objdump's (binutils + dc233c plugin) on
//! (a) an assembled corpus with every opcode row of the dc233c profile, several operand
//! variants each, and (b) at least 1,000,000 random instruction words.
//!
//! Needs the toolchain of `scripts/setup-toolchain.sh`; skipped with a notice when it is absent,
//! unless `Q7EMU_REQUIRE_TOOLCHAIN=1` (CI), which turns its absence into a failure.

use std::collections::BTreeMap;
use std::process::Command;

use q7_isa::{
    decode_narrow, decode_wide, disassemble_one, encode, sreg, Insn, OperandKind, DC233C, OPCODES,
};
use q7_tests::{run, seed, tool, Rng, TempDir};

/// Runs objdump on raw bytes loaded at `vma`; returns address → text.
fn objdump_binary(bytes: &[u8], vma: u32) -> BTreeMap<u32, String> {
    let objdump = tool("objdump").expect("checked by caller");
    let dir = TempDir::new("objdump");
    let path = dir.join("words.bin");
    std::fs::write(&path, bytes).unwrap();
    let out = run(Command::new(objdump)
        .args(["-D", "-b", "binary", "-m", "xtensa", "-z"])
        .arg(format!("--adjust-vma={vma:#x}"))
        .arg(&path));
    let mut map = BTreeMap::new();
    for line in String::from_utf8_lossy(&out).lines() {
        // "    1000:\t364100        \tentry\ta1, 32"
        let mut parts = line.splitn(3, '\t');
        let (Some(addr), Some(_bytes), Some(text)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Some(addr) = addr.trim().strip_suffix(':') else {
            continue;
        };
        if let Ok(a) = u32::from_str_radix(addr, 16) {
            map.insert(a, text.trim_end().to_string());
        }
    }
    map
}

/// Our text for the bytes at `pc` within `buf` (loaded at `vma`), objdump-style.
fn our_text(buf: &[u8], vma: u32, pc: u32) -> String {
    let off = (pc - vma) as usize;
    let read = |a: u32| {
        let o = a.checked_sub(vma)? as usize;
        let b = buf.get(o..o + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    // objdump fetches at most the section's remaining bytes.
    disassemble_one(&buf[off..], pc, &DC233C, read).text
}

fn report(mismatches: &[String], total: usize, what: &str) {
    if !mismatches.is_empty() {
        let mut msg = format!(
            "{} of {total} {what} differ from objdump:\n",
            mismatches.len()
        );
        for m in mismatches.iter().take(60) {
            msg.push_str(m);
            msg.push('\n');
        }
        panic!("{msg}");
    }
}

/// Random words laid out as `word, 0f 0f 0f`: a 0x0f byte is always a 1-byte `.byte` on dc233c,
/// so objdump re-synchronises at every word whatever the previous word decoded to.
fn check_words(words: &[(u32, usize)], vma: u32) -> Vec<String> {
    let mut buf = Vec::new();
    let mut starts = Vec::new();
    for &(w, size) in words {
        starts.push(vma + buf.len() as u32);
        buf.extend_from_slice(&w.to_le_bytes()[..size]);
        buf.extend_from_slice(&[0x0f; 3]);
    }
    let theirs = objdump_binary(&buf, vma);
    let mut mismatches = Vec::new();
    for (&(w, size), &pc) in words.iter().zip(&starts) {
        let ours = our_text(&buf, vma, pc);
        let want = theirs.get(&pc).map(String::as_str).unwrap_or("<no line>");
        if ours != want {
            mismatches.push(format!(
                "  {pc:#010x}: word {w:0width$x}: objdump `{want}`, q7-isa `{ours}`",
                width = size * 2
            ));
        }
    }
    mismatches
}

#[q7_requires::needs(toolchain)]
#[test]
fn random_words_match_objdump() {
    if tool("objdump").is_none() {
        return;
    }
    let n: usize = std::env::var("Q7EMU_ORACLE_WORDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let mut rng = Rng(seed("random_words_match_objdump"));
    let mut words = Vec::with_capacity(n);
    for _ in 0..n {
        let r = rng.next_u32();
        // 3 in 4 words are 24-bit formats (op0 0..7), the rest narrow (op0 8..13) or op0 14/15.
        if r & 3 != 0 {
            words.push(((r >> 8) & 0x00ff_fff0 | (r >> 2) & 7, 3));
        } else {
            let op0 = 8 + (r >> 2) % 8;
            words.push(((r >> 8) & 0xfff0 | op0, 2));
        }
    }
    let mut mismatches = Vec::new();
    for (i, chunk) in words.chunks(250_000).enumerate() {
        mismatches.extend(check_words(chunk, 0x6000_0000 + (i as u32) * 0x10_0000));
    }
    report(&mismatches, n, "random words");
}

/// Assembly source for one instruction, PC-relative targets written relative to `_start` so
/// that gas and ld resolve them to the same address.
fn source_line(insn: &Insn, base: u32) -> String {
    q7_tests::source_line(insn, |v| {
        let d = v.wrapping_sub(base) as i32;
        format!(
            "_start {} {:#x}",
            if d < 0 { '-' } else { '+' },
            d.unsigned_abs()
        )
    })
}

#[q7_requires::needs(toolchain)]
#[test]
fn corpus_of_every_dc233c_opcode_matches_objdump() {
    let (Some(gas), Some(ld), Some(objcopy)) = (tool("as"), tool("ld"), tool("objcopy")) else {
        return;
    };
    if tool("objdump").is_none() {
        return;
    }
    const BASE: u32 = 0x6000_0000;
    let mut rng = Rng(0x005e_ed0c_0de5);
    let mut src = String::from("\t.text\n\t.begin no-transform\n\t.global _start\n_start:\n");
    let mut expected: Vec<(u32, Insn, Vec<u8>)> = Vec::new();
    let mut pc = BASE;
    let mut covered = std::collections::BTreeSet::new();
    for row in OPCODES.iter().filter(|o| DC233C.has(o.options)) {
        // Register-name rows expand to one variant per register the profile has.
        let sr_kind = row.operands.iter().find(|k| {
            matches!(
                k,
                OperandKind::SrRead
                    | OperandKind::SrWrite
                    | OperandKind::SrExchange
                    | OperandKind::UrRead
                    | OperandKind::UrWrite
            )
        });
        let variants = match sr_kind {
            Some(OperandKind::UrRead | OperandKind::UrWrite) => sreg::USER_REGISTERS.len() * 3,
            Some(_) => sreg::SPECIAL_REGISTERS.len() * 2,
            None => 6,
        };
        let mut made = 0;
        let mut tries = 0;
        while made < variants && tries < variants * 200 {
            tries += 1;
            // Random operand bits; hidden (ignored) fields zero, since assembly cannot set them.
            let hidden: u32 = row
                .operands
                .iter()
                .filter(|k| matches!(k, OperandKind::HiddenS | OperandKind::HiddenT))
                .map(|k| k.field_mask())
                .sum();
            let free = !row.mask & !hidden & if row.len == 3 { 0xff_ffff } else { 0xffff };
            let w = row.match_bits | (rng.next_u32() & free);
            let decoded = if row.len == 3 {
                decode_wide(w, pc, &DC233C)
            } else {
                decode_narrow(w, pc, &DC233C)
            };
            let Ok(insn) = decoded else { continue };
            if insn.opcode != row.opcode {
                continue;
            }
            // Keep branch/call/literal targets inside what ld can place (same 1 GiB, >= 0).
            if insn
                .pc_relative_targets()
                .any(|t| !(0x4000_0000..0x8000_0000).contains(&t))
            {
                continue;
            }
            // gas refuses EXTUI fields reaching past bit 31 (objdump still prints them).
            if insn.opcode == q7_isa::Opcode::Extui && insn.operands[2] + insn.operands[3] > 32 {
                continue;
            }
            let bytes = encode(&insn, pc).unwrap().as_bytes().to_vec();
            src.push('\t');
            src.push_str(&source_line(&insn, BASE));
            src.push('\n');
            covered.insert(row.opcode);
            expected.push((pc, insn, bytes));
            pc += u32::from(row.len);
            made += 1;
        }
    }
    src.push_str("\t.end no-transform\n");
    let missing: Vec<_> = OPCODES
        .iter()
        .filter(|o| DC233C.has(o.options) && !covered.contains(&o.opcode))
        .map(|o| o.mnemonic)
        .collect();
    assert!(missing.is_empty(), "corpus lacks rows: {missing:?}");

    let dir = TempDir::new("corpus");
    std::fs::write(dir.join("corpus.S"), &src).unwrap();
    run(Command::new(gas)
        .arg("--no-link-relax")
        .arg("-o")
        .arg(dir.join("corpus.o"))
        .arg(dir.join("corpus.S")));
    run(Command::new(ld)
        .args(["--no-relax", "-e", "_start"])
        .arg(format!("-Ttext={BASE:#x}"))
        .arg("-o")
        .arg(dir.join("corpus.elf"))
        .arg(dir.join("corpus.o")));
    run(Command::new(objcopy)
        .args(["-O", "binary", "-j", ".text"])
        .arg(dir.join("corpus.elf"))
        .arg(dir.join("corpus.bin")));
    let bin = std::fs::read(dir.join("corpus.bin")).unwrap();
    let theirs = objdump_binary(&bin, BASE);

    let mut mismatches = Vec::new();
    for (pc, insn, bytes) in &expected {
        let off = (pc - BASE) as usize;
        let got = &bin[off..off + bytes.len()];
        if got != &bytes[..] {
            mismatches.push(format!(
                "  {pc:#010x}: `{insn}`: gas assembled {got:02x?}, q7-isa encodes {bytes:02x?}"
            ));
        }
        let ours = our_text(&bin, BASE, *pc);
        let want = theirs.get(pc).map(String::as_str).unwrap_or("<no line>");
        if ours != want {
            mismatches.push(format!("  {pc:#010x}: objdump `{want}`, q7-isa `{ours}`"));
        }
    }
    eprintln!(
        "corpus: {} instructions covering {} dc233c rows",
        expected.len(),
        covered.len()
    );
    report(&mismatches, expected.len(), "corpus instructions");
}
