//! A `q7emu run` fault report names the source file and line of every frame it can: a kernel
//! that stores to unmapped memory, built with the repository's SDK (needs the toolchain; skips
//! or fails as `Q7EMU_REQUIRE_TOOLCHAIN` says), stops with exit code 129 and a symbolised
//! backtrace whose innermost frame is the faulting statement's line of the kernel's own source
//! and whose next frame is the call in the generated wrapper. A kernel that ends with a
//! semihosting exit instead of returning is such a runtime error too, never a success with an
//! all-zero output (docs/run-report.md, `response`).

use crate::support;

use support::q7emu;

use std::path::Path;

use q7_tests::TempDir;

/// The kernel: its store on the line marked `FAULT` hits memory no region maps (PLATFORM.md
/// "Per-core address map").
const KERNEL: &str = "\
#include <torch/torch.h>

torch::Tensor k(const torch::Tensor &x)
{
\tvolatile int *nowhere = (volatile int *)0x10000000;
\t*nowhere = 7; // FAULT
\treturn x;
}
";

/// The 1-based line of the first line of `text` containing `marker`.
fn line_of(text: &str, marker: &str) -> usize {
    text.lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no line with {marker:?}"))
        + 1
}

/// The report line of backtrace frame `n` in `stderr`.
fn frame(stderr: &str, n: usize) -> &str {
    let prefix = format!("  #{n} 0x");
    stderr
        .lines()
        .skip_while(|l| !l.starts_with("symbolised backtrace"))
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no symbolised frame #{n} in:\n{stderr}"))
}

/// Builds the kernel into `dir/out` with `extra` flags, runs it; the run's stderr.
fn build_and_fault(dir: &TempDir, extra: &[&str]) -> String {
    let out = support::build_k(dir, KERNEL, "out", extra);
    let input = dir.join("x.npy");
    std::fs::write(&input, q7_tests::npy_1d("<f4", 4, &[0; 16])).unwrap();
    let o = q7emu()
        .arg("run")
        .arg(&out)
        .args(["--op", "k", "--input"])
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert_eq!(
        o.status.code(),
        Some(129),
        "a fault (README.md \"Exit codes\"): {stderr}"
    );
    assert!(
        stderr.contains("LoadStoreErrorCause (3): store of unmapped address 0x10000000"),
        "{stderr}"
    );
    stderr
}

fn check_frames(stderr: &str, wrapper: &Path) {
    let line = line_of(KERNEL, "FAULT");
    assert_eq!(line, 6);
    let f0 = frame(stderr, 0);
    assert!(
        f0.contains(" in k(at::Tensor const&)+0x") && f0.ends_with(&format!(" (k.cpp:{line})")),
        "frame 0 is the faulting store: {f0}"
    );
    let wrapper_text = std::fs::read_to_string(wrapper).unwrap();
    let call = line_of(&wrapper_text, "= k(arg0);");
    let f1 = frame(stderr, 1);
    assert!(
        f1.contains(" in k_wrapper()+0x") && f1.ends_with(&format!(" (wrapper.cpp:{call})")),
        "frame 1 is the wrapper's call of the kernel: {f1}"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_debug_build_names_the_faulting_line() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("fault-lines-g");
    let stderr = build_and_fault(&dir, &["--cflag", "-g"]);
    check_frames(&stderr, &dir.join("out/wrapper.cpp"));
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_packed_build_names_it_too_from_its_unstripped_images() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("fault-lines-packed");
    let stderr = build_and_fault(&dir, &[]);
    check_frames(&stderr, &dir.join("out/wrapper.cpp"));
}

/// A kernel that prints, then exits through semihosting (status 3) on the line marked `EXIT`
/// instead of returning its tensor.
const EXITING_KERNEL: &str = "\
#include <torch/torch.h>
#include <stdio.h>

torch::Tensor k(const torch::Tensor &x)
{
\tprintf(\"leaving \\x1b]0;title\\x07 now\\n\");
\t__asm__ volatile(\"movi a2, 1\\n\\tmovi a3, 3\\n\\tsimcall\" ::: \"a2\", \"a3\", \"memory\"); // EXIT
\treturn x;
}
";

#[q7_requires::needs(toolchain)]
#[test]
fn a_kernel_that_exits_instead_of_returning_is_a_runtime_error_with_its_report() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("fault-lines-exit");
    let out = support::build_k(&dir, EXITING_KERNEL, "out", &[]);
    let input = dir.join("x.npy");
    std::fs::write(&input, q7_tests::npy_1d("<f4", 4, &[0; 16])).unwrap();
    let o = q7emu()
        .arg("run")
        .arg(&out)
        .args(["--op", "k", "--json", "--input"])
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8(o.stderr).unwrap();
    // docs/exit-codes.md: a kernel that ends without completing its response is a fault (129).
    assert_eq!(o.status.code(), Some(129), "{stderr}");
    assert!(
        o.stdout.is_empty(),
        "no report of a run that produced nothing"
    );
    let first = stderr.lines().next().unwrap();
    assert!(
        first.starts_with("q7emu: error: core 0: kernel ended without returning: a semihosting exit (status 3) at pc 0x")
            && first.ends_with(", before writing TPB_WRITE_RESPONSE:"),
        "{stderr}"
    );
    assert_eq!(
        stderr
            .lines()
            .nth(1)
            .map(|l| l.split_once(": ").map(|(_, k)| k)),
        Some(Some(
            "semihosting exit with status 3 where the firmware expected a return"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("\n  instruction: simcall\n"), "{stderr}");
    // What it printed, exact: stderr is a pipe here (docs/cli.md "Guest text": escaped only
    // on a terminal).
    assert!(
        stderr.contains("\ncore 0 printed:\n  | leaving \x1b]0;title\x07 now\n"),
        "{stderr}"
    );
    let exit = line_of(EXITING_KERNEL, "EXIT");
    let f0 = frame(&stderr, 0);
    assert!(
        f0.contains(" in k(at::Tensor const&)+0x") && f0.ends_with(&format!(" (k.cpp:{exit})")),
        "frame 0 is the exit: {f0}"
    );
}
