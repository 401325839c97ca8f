//! `q7emu disasm` prints what `xtensa-elf-objdump -d -z` prints for a compiled program: same
//! sections, labels, instruction words, text, symbol annotations and literal pools.

use crate::support;

use std::process::Command;

use q7_tests::{run, tool, TempDir};

const PROGRAM: &str = r#"
static int table[16];
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int sw(int x) {
    switch (x) { case 0: return 7; case 1: return 9; case 2: return 13; case 3: return 21;
                 case 4: return 5; default: return -1; }
}
long long mix(long long a, int b) { table[b & 15] = (int)a; return (a << 3) + table[(b + 1) & 15] + 0x7654321; }
int _start(void) { return fib(10) + sw(3) + (int)mix(5, 2); }
"#;

fn trimmed(s: &str) -> Vec<String> {
    s.lines().map(|l| l.trim_end().to_string()).collect()
}

#[q7_requires::needs(toolchain)]
#[test]
fn disasm_matches_objdump_on_a_compiled_program() {
    let (Some(gcc), Some(objdump)) = (tool("gcc"), tool("objdump")) else {
        return;
    };
    let dir = TempDir::new("disasm");
    std::fs::write(dir.join("prog.c"), PROGRAM).unwrap();
    let elf = dir.join("prog.elf");
    run(Command::new(gcc)
        .args(["-O2", "-ffreestanding", "-nostdlib", "-Wl,-e,_start"])
        .args(["-Wl,--no-warn-rwx-segments", "-Wl,-Ttext=0x40001000", "-o"])
        .arg(&elf)
        .arg(dir.join("prog.c")));
    let theirs =
        String::from_utf8(run(Command::new(objdump).args(["-d", "-z"]).arg(&elf))).unwrap();
    let ours = String::from_utf8(run(support::q7emu()
        .args(["disasm", "-z", "--profile", "dc233c"])
        .arg(&elf)))
    .unwrap();
    let (t, o) = (trimmed(&theirs), trimmed(&ours));
    let diffs: Vec<String> = t
        .iter()
        .zip(&o)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| format!("line {}: objdump `{a}`\n         q7emu   `{b}`", i + 1))
        .collect();
    assert!(
        diffs.is_empty() && t.len() == o.len(),
        "{} lines vs {}:\n{}",
        t.len(),
        o.len(),
        diffs.join("\n")
    );
    assert!(
        o.iter().any(|l| l.contains("l32r")),
        "program should exercise literals"
    );
}

#[test]
fn disasm_reports_a_precise_error_for_a_non_elf_file() {
    let dir = TempDir::new("disasm-bad");
    let bad = dir.join("bad.elf");
    std::fs::write(&bad, b"\x7fELF\x02\x01\x01").unwrap();
    let out = support::q7emu()
        .args(["disasm"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("truncated ELF file: 7 bytes"), "{err}");
}

#[q7_requires::needs(toolchain)]
#[test]
fn zero_runs_collapse_exactly_where_objdump_collapses_them() {
    // Runs of 1 to 31 zero bytes before an instruction, before a label and at a label's end,
    // and two at the end of the section: objdump -d prints `...` for some and the bytes of the
    // others (8 or more, or fewer than 3 that end a block; whole words unless at the block's end).
    let (Some(gcc), Some(ld), Some(objdump)) = (tool("gcc"), tool("ld"), tool("objdump")) else {
        return;
    };
    let dir = TempDir::new("disasm-zeros");
    let mut asm = String::from(".text\n.global _start\n_start:\n  nop.n\n");
    for n in (1..=12).chain([15, 16, 17, 23, 31]) {
        asm += &format!("  .fill {n}, 1, 0\n  nop\nl{n}:\n  .fill {n}, 1, 0\nm{n}:\n  nop.n\n");
        asm += &format!("  .fill {n}, 1, 0\n  .byte 1\n");
    }
    asm += "  .fill 2, 1, 0\n";
    std::fs::write(dir.join("zeros.S"), asm).unwrap();
    run(Command::new(gcc)
        .args(["-c", "-o"])
        .arg(dir.join("zeros.o"))
        .arg(dir.join("zeros.S")));
    let elf = dir.join("zeros.elf");
    run(Command::new(ld)
        .args(["-e", "_start", "-Ttext=0x1000", "-o"])
        .arg(&elf)
        .arg(dir.join("zeros.o")));
    for flags in [&["-d"][..], &["-d", "-z"][..]] {
        let theirs = String::from_utf8(run(Command::new(&objdump).args(flags).arg(&elf))).unwrap();
        let ours = String::from_utf8(run(support::q7emu()
            .args(["disasm", "--profile", "dc233c"])
            .args(&flags[1..])
            .arg(&elf)))
        .unwrap();
        assert_eq!(trimmed(&ours), trimmed(&theirs), "objdump {flags:?}");
        let collapsed = theirs.lines().filter(|l| *l == "\t...").count();
        assert_eq!(collapsed, if flags.len() == 1 { 33 } else { 0 });
    }
}
