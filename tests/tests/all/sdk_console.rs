//! printf, assert and abort in kernels built with the SDK and run on the emulated cores, as the
//! public API describes them (examples/sdk/README.md "Console, assert and abort", PLATFORM.md
//! "Console"): printf's output is buffered in a ring of a power-of-two size up to 128 KiB whose
//! oldest output is overwritten when it is full; size 0 disables printf (the runtime's error
//! line still reaches the host); in multicore mode only core 0's output is printed unless every
//! core's is asked for; a failed assert reports its expression, file, line and function; abort()
//! reports where it was called from. The kernel is `tests/programs/sdk/console.cpp`.

use std::path::PathBuf;
use std::sync::OnceLock;

use q7_run::op::{OpRun, RunError};
use q7_runtime::firmware::FirmwareError;
use q7_testing::{tensor, toolchain_installed, ConsoleSize, Kernel, Library, Run, TestingError};
use q7_tests::TempDir;

const SOURCE: &str = "console.cpp";

fn source() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("programs/sdk")
        .join(SOURCE)
}

const SCHEMAS: [&str; 3] = [
    "say_lines(Tensor x, int lines) -> Tensor",
    "say_then_assert(Tensor x, int lines) -> Tensor",
    "say_then_abort(Tensor x, int lines) -> Tensor",
];

fn build(multicore: bool) -> Option<Library> {
    if !toolchain_installed() {
        return None;
    }
    let dir = TempDir::new("sdk-console");
    let mut k = Kernel::new(source());
    for s in SCHEMAS {
        k = k.op(s);
    }
    if multicore {
        k = k.multicore();
    }
    Some(
        k.build(dir.join("build"))
            .unwrap_or_else(|e| panic!("{SOURCE}: {e}")),
    )
}

fn single() -> Option<&'static Library> {
    static LIB: OnceLock<Option<Library>> = OnceLock::new();
    LIB.get_or_init(|| build(false)).as_ref()
}

fn eight() -> Option<&'static Library> {
    static LIB: OnceLock<Option<Library>> = OnceLock::new();
    LIB.get_or_init(|| build(true)).as_ref()
}

/// Runs `op` printing `lines` lines (on a tensor of one element) with console rings of `size`.
fn run(lib: &Library, op: &str, lines: u32, size: usize) -> Result<OpRun, TestingError> {
    Run::new(op)
        .input(tensor(&[1], &[0f32]).unwrap())
        .scalar(lines)
        .console(ConsoleSize::new(size).unwrap())
        .op_run(lib)
}

/// What core `core` prints for `lines` lines.
fn said(core: u32, lines: u32) -> String {
    (0..lines)
        .map(|i| format!("core {core} line {i}\n"))
        .collect()
}

/// The line of `tests/programs/sdk/console.cpp` that ends with `// <tag>`.
fn line_of(tag: &str) -> usize {
    let text = std::fs::read_to_string(source()).unwrap();
    1 + text
        .lines()
        .position(|l| l.ends_with(&format!("// {tag}")))
        .unwrap_or_else(|| panic!("no line tagged {tag}"))
}

fn device_error(r: Result<OpRun, TestingError>, what: &str) -> RunError {
    match r {
        Err(TestingError::Run(e)) => *e,
        Err(e) => panic!("{what}: {e}"),
        Ok(_) => panic!("{what}: the kernel ran to its end"),
    }
}

fn runtime_error(e: &RunError) -> (u32, &'static str, &str) {
    match e {
        RunError::Device {
            source:
                FirmwareError::Aborted {
                    code,
                    name,
                    message,
                    ..
                },
            ..
        } => (*code, name, message.as_str()),
        other => panic!("not a runtime error: {other}"),
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn printf_output_is_buffered_in_a_ring_that_overwrites_its_oldest_bytes() {
    let Some(lib) = single() else { return };
    // The default 4 KiB holds it all.
    let r = run(lib, "say_lines", 20, 4096).unwrap();
    assert_eq!(
        (r.console[0].text.as_str(), r.console[0].dropped),
        (said(0, 20).as_str(), 0)
    );
    // 64 bytes hold the newest 64; the rest are counted and marked where the console is shown.
    let all = said(0, 20);
    let r = run(lib, "say_lines", 20, 64).unwrap();
    let c = &r.console[0];
    assert_eq!(c.text, all[all.len() - 64..]);
    assert_eq!(c.dropped, all.len() as u64 - 64);
    assert!(
        r.text().ends_with(&format!(
            "console of core 0:\n… {} bytes dropped\n{}",
            all.len() - 64,
            &all[all.len() - 64..]
        )),
        "{}",
        r.text()
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_ring_of_size_0_disables_printf_but_not_the_runtime_error_line() {
    let Some(lib) = single() else { return };
    let r = run(lib, "say_lines", 5, 0).unwrap();
    assert_eq!(
        (r.console[0].text.as_str(), r.console[0].dropped),
        ("", said(0, 5).len() as u64)
    );
    let e = device_error(
        run(lib, "say_then_assert", 5, 0),
        "assert with printf disabled",
    );
    assert_eq!(
        runtime_error(&e),
        (
            6,
            "ASSERT",
            format!(
                "assertion failed: x.numel() == lines (./{SOURCE}:{}, say_then_assert)",
                line_of("ASSERT LINE")
            )
            .as_str()
        )
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn in_multicore_mode_only_core_0_prints_unless_every_core_is_asked_for() {
    let Some(lib) = eight() else { return };
    let r = run(lib, "say_lines", 3, 4096).unwrap();
    for core in 0..8 {
        assert_eq!(r.console[core as usize].text, said(core, 3), "core {core}");
    }
    let core0 = format!("console of core 0:\n{}", said(0, 3));
    assert!(r.text().ends_with(&core0), "{}", r.text());
    assert_eq!(r.text().matches("console of core").count(), 1);
    let every: String = (0..8)
        .map(|c| format!("console of core {c}:\n{}", said(c, 3)))
        .collect();
    assert!(
        r.text_with_consoles(true).ends_with(&every),
        "{}",
        r.text_with_consoles(true)
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_failed_assert_reports_its_expression_file_line_and_function() {
    let Some(lib) = single() else { return };
    let e = device_error(run(lib, "say_then_assert", 2, 4096), "assert");
    assert_eq!(
        runtime_error(&e),
        (
            6,
            "ASSERT",
            format!(
                "assertion failed: x.numel() == lines (./{SOURCE}:{}, say_then_assert)",
                line_of("ASSERT LINE")
            )
            .as_str()
        )
    );
    // What the kernel printed before comes with it, the runtime's line last.
    let RunError::Device { console, .. } = &e else {
        unreachable!()
    };
    assert!(
        console[0].text.starts_with(&said(0, 2)),
        "{}",
        console[0].text
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn abort_reports_the_line_it_was_called_from_in_the_backtrace() {
    let Some(lib) = single() else { return };
    let e = device_error(run(lib, "say_then_abort", 0, 4096), "abort");
    assert_eq!(runtime_error(&e), (7, "ABORT", "abort() called"));
    // The build keeps the unstripped image, whose symbols and lines name the caller.
    let text = e.to_string();
    let caller = "in say_then_abort(at::Tensor const&, long long)+";
    let line = format!("({SOURCE}:{})", line_of("ABORT LINE"));
    assert!(
        text.lines()
            .any(|l| l.contains(caller) && l.ends_with(&line)),
        "no frame of say_then_abort at {line} in:\n{text}"
    );
}
