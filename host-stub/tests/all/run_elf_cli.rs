//! `q7emu run-elf`: semihosting output on stdout, the program's exit code as the process exit
//! code, counters on stderr and in `--json-file`, and a report (not a panic or hang) for a
//! runaway program or a bad file.

use crate::support;

use support::q7emu;

use q7_tests::build::build_sim;
use q7_tests::TempDir;

const HELLO: &str = r#"
#include "semihost.h"
int main(void) { xt_write(1, "hello from q7\n", 14); return 42; }
"#;

const SPIN: &str = "int main(void) { for (;;) ; }";

#[q7_requires::needs(toolchain)]
#[test]
fn runs_a_program_to_its_exit_code_with_stats() {
    let Some(prog) = build_sim("hello", &[("hello.c", HELLO)], &[]) else {
        return;
    };
    let dir = TempDir::new("run-elf-cli");
    let json = dir.join("stats.json");
    for profile in ["ncore2gp", "dc233c"] {
        let out = q7emu()
            .args(["run-elf", "--profile", profile, "--json-file"])
            .arg(&json)
            .arg(&prog.elf)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(42),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.starts_with("hello from q7\n"), "{stdout}");
        assert!(stdout.contains("q7-memsum="), "{stdout}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(" instructions, ") && stderr.contains("timing: issue 1"),
            "{stderr}"
        );
        let text = std::fs::read_to_string(&json).unwrap();
        for key in [
            "\"instructions\"",
            "\"cycles\"",
            "\"stalls\"",
            "\"load_use\"",
            "\"exit_code\": 42",
        ] {
            assert!(text.contains(key), "{key} missing from {text}");
        }
        assert!(
            text.contains(&format!("\"profile\": \"{profile}\"")),
            "{text}"
        );
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_runaway_program_stops_at_the_cycle_budget_with_a_report() {
    let Some(prog) = build_sim("spin", &[("spin.c", SPIN)], &[]) else {
        return;
    };
    let out = q7emu()
        .args(["run-elf", "--max-cycles", "100000"])
        .arg(&prog.elf)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(131),
        "runaway (README.md \"Exit codes\")"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cycle budget of 100000 exhausted"),
        "{stderr}"
    );
    assert!(stderr.contains("backtrace:"), "{stderr}");
}

#[test]
fn a_file_that_is_not_xtensa_is_refused_precisely() {
    let dir = TempDir::new("run-elf-bad");
    let bad = dir.join("x86.elf");
    let mut elf = vec![0u8; 64];
    elf[..4].copy_from_slice(b"\x7fELF");
    elf[4] = 1;
    elf[5] = 1;
    elf[18] = 3; // EM_386
    std::fs::write(&bad, &elf).unwrap();
    let out = q7emu().arg("run-elf").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("wrong machine 3 (e_machine at byte 18): expected 94 (EM_XTENSA)"),
        "{stderr}"
    );
}
