//! `q7emu run-elf` keeps a runaway program bounded and says what it did (docs/run-elf.md "Bounds"): a stack that leaves its region is reported as a stack overflow, stores stop at a
//! documented memory limit, guest output is charged to the cycle budget and cut at its end,
//! and Ctrl-C stops the core with a report of where it was. Programs are built with the
//! project's bare-metal runtime (examples/bare-metal/rt), so these tests need the toolchain.

use crate::support;

use support::q7emu;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use q7_conventions::exit_code::{Exit, Kind};

/// The exit code of `kind` (docs/exit-codes.md).
fn code(kind: Kind) -> Option<i32> {
    Some(i32::from(Exit::of(kind).code()))
}
use q7_tests::build::{build_sim, Program};

fn run_elf(program: &Program, flags: &[&str]) -> Output {
    q7emu()
        .arg("run-elf")
        .args(flags)
        .arg(&program.elf)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The value of global symbol `name` of the ELF at `path`.
fn symbol(path: &Path, name: &str) -> u32 {
    let data = std::fs::read(path).unwrap();
    let elf = q7_loader::ElfFile::parse(&data).unwrap();
    elf.symbols.iter().find(|s| s.name == name).unwrap().value
}

/// The first line of the fault report.
fn headline(err: &str) -> &str {
    err.lines()
        .find(|l| l.starts_with("q7emu: core 0 stopped"))
        .unwrap_or_else(|| panic!("no report in {err}"))
}

/// A call0 recursion: 16 bytes of stack per call, never returning.
const CALL0_RECURSION: &str = "
	.text
	.align 4
	.global main
	.type main, @function
main:
	entry a1, 32
	call0 down
	retw
	.align 4
	.type down, @function
down:
	addi a1, a1, -16
	s32i a0, a1, 0
	call0 down
	l32i a0, a1, 0
	addi a1, a1, 16
	ret
";

#[q7_requires::needs(toolchain)]
#[test]
fn a_call0_recursion_is_reported_as_a_stack_overflow_of_the_region_the_link_symbols_give() {
    let Some(p) = build_sim("bounds-call0", &[("down.S", CALL0_RECURSION)], &[]) else {
        return;
    };
    let out = run_elf(&p, &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), code(Kind::Fault), "{err}");
    let (bottom, top) = (symbol(&p.elf, "_end"), symbol(&p.elf, "_stack_top"));
    assert_eq!(top, 0x0080_0000, "examples/bare-metal/rt/link.ld");
    let region = format!("is outside the stack region {bottom:#010x}..{top:#010x}: it ran ");
    let line = headline(&err);
    assert!(line.contains(": stack overflow: SP 0x"), "{err}");
    assert!(line.contains(&region), "{err}");
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_windowed_recursion_is_a_stack_overflow_too_and_stack_none_turns_the_check_off() {
    let src = "
        int deep(int n)
        {
            volatile int pad[16];
            pad[n & 15] = n;
            return deep(n + 1) + pad[(n + 1) & 15];
        }
        int main(void) { return deep(0); }
    ";
    let Some(p) = build_sim("bounds-windowed", &[("deep.c", src)], &[]) else {
        return;
    };
    let out = run_elf(&p, &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), code(Kind::Fault), "{err}");
    assert!(headline(&err).contains(": stack overflow: SP 0x"), "{err}");
    assert!(
        err.contains(" in deep"),
        "the backtrace names the function: {err}"
    );
    // An explicit region replaces the symbols'; `none` removes the check, and the program
    // runs on over its own code until its runtime's fatal handler exits.
    let out = run_elf(&p, &["--stack", "0x700000..0x800000"]);
    let err = stderr(&out);
    assert!(
        headline(&err).contains("outside the stack region 0x00700000..0x00800000"),
        "{err}"
    );
    let out = run_elf(&p, &["--stack", "none"]);
    let err = stderr(&out);
    assert!(!err.contains("stack overflow"), "{err}");
    assert_ne!(out.status.code(), Some(0), "{err}");
}

#[q7_requires::needs(toolchain)]
#[test]
fn stores_stop_at_the_memory_limit_naming_it_and_the_address() {
    // Writes every word from 16 MiB up: nothing but the limit stops it.
    let src = "
        int main(void)
        {
            for (volatile unsigned *p = (unsigned *)0x1000000;; p++)
                *p = 0;
        }
    ";
    let Some(p) = build_sim("bounds-memory", &[("fill.c", src)], &[]) else {
        return;
    };
    let out = run_elf(&p, &["--max-memory-mib", "24"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), code(Kind::Fault), "{err}");
    assert!(
        headline(&err).ends_with(
            ": memory limit: this store would take the memory the program has touched past \
             24 MiB (25165824 bytes; run-elf --max-memory-mib raises it)"
        ),
        "{err}"
    );
    // The program had touched a few granules (its image, the stack) before it started, so the
    // refused store lies a few 64 KiB granules below 16 MiB + 24 MiB, on a granule boundary.
    let addr = err
        .lines()
        .find_map(|l| l.trim().strip_prefix("address:"))
        .map(|a| u32::from_str_radix(a.trim().trim_start_matches("0x"), 16).unwrap())
        .unwrap();
    assert_eq!(addr % 0x1_0000, 0, "{addr:#x}");
    assert!(
        (0x0200_0000 - 8 * 0x1_0000..0x0280_0000).contains(&addr),
        "{addr:#x}"
    );
    // A limit below what the image itself occupies is refused before the run.
    let out = run_elf(&p, &["--max-memory-mib", "0"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), code(Kind::BadInput), "{err}");
    assert!(
        err.contains("the segments take ") && err.contains("more than the limit of 0"),
        "{err}"
    );
}

/// Writes `len` bytes of 'x' with one semihosting write, then exits with 0 when all were
/// written, 3 when the write was short.
fn writer(len: usize) -> String {
    format!(
        "#include \"semihost.h\"
        static const char text[{len}] = {{[0 ... {last}] = 'x'}};
        int main(void) {{ return xt_write(1, text, {len}) == {len} ? 0 : 3; }}",
        last = len - 1
    )
}

fn stats(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[q7_requires::needs(toolchain)]
#[test]
fn semihosting_output_is_charged_one_cycle_per_byte_and_cut_at_the_budget() {
    let Some(p) = build_sim("bounds-write", &[("write.c", &writer(100_000))], &[]) else {
        return;
    };
    let json = p.dir.join("stats.json");
    let json_flag = json.to_str().unwrap();
    let out = run_elf(&p, &["--json-file", json_flag]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let s = stats(&json);
    // Every byte on stdout (the text and the runtime's checksum line) cost one cycle
    // (TimingModel::semihost_write_byte).
    assert_eq!(s["timing"]["semihost_write_byte"], 1);
    let written = out.stdout.len() as u64;
    assert!(written > 100_000, "{written}");
    assert_eq!(s["stats"]["stalls"]["host_io"], written);
    // With 20000 cycles the write is cut where the budget ends, and the run is a runaway.
    let out = run_elf(&p, &["--json-file", json_flag, "--max-cycles", "20000"]);
    assert_eq!(out.status.code(), code(Kind::Runaway), "{}", stderr(&out));
    let s = stats(&json);
    let written = out.stdout.len() as u64;
    assert!((1..20_000).contains(&written), "{written}");
    assert!(out.stdout.iter().all(|&b| b == b'x'));
    assert_eq!(s["stats"]["stalls"]["host_io"], written);
    assert!(s["cycles"].as_u64().unwrap() >= 20_000);
}

#[q7_requires::needs(toolchain)]
#[test]
fn ctrl_c_stops_the_core_and_reports_where_it_was() {
    let src = "
        __attribute__((noinline)) void spin(void) { for (;;) __asm__ volatile(\"nop\"); }
        int main(void) { spin(); return 0; }
    ";
    let Some(p) = build_sim("bounds-ctrl-c", &[("spin.c", src)], &["-O1"]) else {
        return;
    };
    let child = q7emu()
        .arg("run-elf")
        .arg(&p.elf)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Long enough for the run to have started; the default budget (10^10 cycles) would take
    // most of a minute.
    let out = support::interrupt_after(child, Duration::from_millis(700));
    let err = stderr(&out);
    assert_eq!(out.status.code(), code(Kind::Interrupted), "{err}");
    assert!(
        err.contains("q7emu: interrupted: stopping every core\n"),
        "{err}"
    );
    assert!(headline(&err).ends_with(": interrupted (Ctrl-C)"), "{err}");
    assert!(err.contains("  backtrace:\n    #0 pc 0x"), "{err}");
    assert!(err.contains(" in spin"), "symbolised: {err}");
    assert!(err.contains(" in main"), "symbolised: {err}");
}

#[test]
fn docs_run_elf_md_states_the_bounds_of_the_code() {
    let doc = include_str!("../../../docs/run-elf.md");
    let poll = q7_emulator::stop_request::POLL_CYCLES;
    let mib = q7_emulator::baremetal::DEFAULT_MEMORY_LIMIT >> 20;
    let per_byte = q7_emulator::TimingModel::default().semihost_write_byte;
    assert_eq!(q7_emulator::baremetal::DEFAULT_MAX_CYCLES, 10_000_000_000);
    assert_eq!(per_byte, 1);
    for fact in [
        format!("is looked\n  at every {poll} cycles, at every exception and when the core stops"),
        "(default 10¹⁰, `baremetal::DEFAULT_MAX_CYCLES`)".to_string(),
        format!("`--max-memory-mib` MiB (default {mib}, the RAM of QEMU's\n  `-M sim`)"),
        "Semihosting output costs one cycle per byte".to_string(),
        format!(
            "counted in {} KiB granules",
            q7_emulator::bus::TOUCH_GRANULE >> 10
        ),
    ] {
        assert!(doc.contains(&fact), "docs/run-elf.md lacks {fact:?}");
    }
}
