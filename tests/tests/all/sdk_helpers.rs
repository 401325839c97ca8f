//! The SDK's compiler helper routines (`examples/sdk/rt/helpers`, whose README.md states the
//! policies): the same C compiled for the host against the host's IEEE arithmetic (every edge
//! pair and 10^7 cases per routine at -O2, 10^6 at -Os), and compiled for the device and run on
//! the emulator (ncore2gp profile, 10^5 cases per routine) against the host's reference
//! results, case for case through per-routine digests. Also: division by zero in every width
//! raises IntegerDivideByZero, and the C++ runtime serves new/delete, guards and static
//! destructors, and traps on a failed throwing new and on a pure virtual call. The routine list
//! is the table in `tests/programs/helpers/cases.h`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use q7_emulator::{FaultKind, NoTrace, Stop};
use q7_tests::build::{build, helpers_dir, Layout, CXX_RUNTIME, HELPER_SOURCES};
use q7_tests::{run, TempDir};

const CASES_H: &str = include_str!("../../programs/helpers/cases.h");
const DEVICE_C: &str = include_str!("../../programs/helpers/device.c");

/// Cases per routine in the native test (every edge case included).
const NATIVE_CASES: u64 = 10_000_000;
/// Cases per routine on the emulator.
const DEVICE_CASES: u64 = 100_000;

fn harness_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/helpers")
}

/// A routine of the table: whether it runs natively (C) or on the device only (int32.S), and
/// whether it is a C library function (mem.c: no `__` prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Routine {
    name: String,
    native: bool,
    libc: bool,
}

impl Routine {
    /// The symbol the device links.
    fn symbol(&self) -> String {
        if self.libc {
            self.name.clone()
        } else {
            format!("__{}", self.name)
        }
    }
}

/// The routines of cases.h in table order: `R1(name, ..., where)` / `R2(name, ..., where)`
/// rows, then the string routines of `MEM_ROUTINES(M) M(memcpy) ...`.
fn routines() -> Vec<Routine> {
    let mut out = Vec::new();
    for line in CASES_H.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("R1(").or_else(|| t.strip_prefix("R2(")) {
            let fields: Vec<&str> = rest.split([',', ')']).map(str::trim).collect();
            let where_ = if t.starts_with("R1(") {
                fields[4]
            } else {
                fields[6]
            };
            out.push(Routine {
                name: fields[0].to_string(),
                native: where_ == "C",
                libc: false,
            });
        }
        if let Some(rest) = t.strip_prefix("#define MEM_ROUTINES(M) ") {
            for m in rest.split_whitespace() {
                let name = m.trim_start_matches("M(").trim_end_matches(')');
                out.push(Routine {
                    name: name.to_string(),
                    native: true,
                    libc: true,
                });
            }
        }
    }
    out
}

/// Builds the native harness with the host's C compiler.
fn build_native(dir: &TempDir) -> PathBuf {
    build_native_with(dir, "-O2")
}

/// Builds the native harness at optimisation level `opt` (the routines must not depend on it).
fn build_native_with(dir: &TempDir, opt: &str) -> PathBuf {
    let exe = dir.join("native");
    let helpers = helpers_dir();
    let mut cmd = Command::new(std::env::var_os("CC").unwrap_or_else(|| "cc".into()));
    cmd.arg(opt)
        .args(["-fno-builtin", "-ffp-contract=off", "-DQ7_HELPERS_HOST"])
        .args(["-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", helpers.display()))
        .arg("-o")
        .arg(&exe)
        .arg(harness_dir().join("native.c"));
    for f in HELPER_SOURCES.iter().filter(|f| f.ends_with(".c")) {
        cmd.arg(helpers.join(f));
    }
    run(&mut cmd);
    exe
}

/// One "<name> <cases> <mismatches>" line of the native harness.
fn parse_counts(out: &str) -> BTreeMap<String, (u64, u64)> {
    out.lines()
        .filter(|l| !l.starts_with("MISMATCH"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() != 3 {
                return None;
            }
            Some((f[0].to_string(), (f[1].parse().ok()?, f[2].parse().ok()?)))
        })
        .collect()
}

#[test]
fn routine_table_names_every_helper_file_routine_once() {
    let r = routines();
    assert_eq!(r.len(), 76, "routines of cases.h");
    let mut names: Vec<&str> = r.iter().map(|r| r.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), r.len(), "a routine is listed twice");
    let device_only: Vec<&str> = r
        .iter()
        .filter(|r| !r.native)
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(
        device_only,
        ["mulsi3", "divsi3", "udivsi3", "modsi3", "umodsi3"]
    );
    // The README documents every file of the directory and every routine of the table.
    let dir = helpers_dir();
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    for f in HELPER_SOURCES.iter().chain(&[CXX_RUNTIME, "helpers.h"]) {
        assert!(dir.join(f).is_file(), "{f} missing");
        assert!(readme.contains(&format!("`{f}`")), "README.md omits {f}");
    }
    for r in &r {
        let symbol = format!("`{}`", r.symbol());
        assert!(readme.contains(&symbol), "README.md omits {symbol}");
    }
}

#[test]
fn native_helpers_match_host_ieee_on_every_edge_pair_and_ten_million_cases() {
    let dir = TempDir::new("helpers-native");
    let exe = build_native(&dir);
    let seed = q7_tests::seed("native_helpers") as u32;
    // Two processes, each half of the routines.
    let children: Vec<_> = (0..2)
        .map(|part| {
            Command::new(&exe)
                .args(["check", &NATIVE_CASES.to_string(), &seed.to_string()])
                .args([part.to_string(), "2".into()])
                .stdout(Stdio::piped())
                .spawn()
                .expect("native harness")
        })
        .collect();
    let mut out = String::new();
    for c in children {
        let o = c.wait_with_output().unwrap();
        out.push_str(&String::from_utf8_lossy(&o.stdout));
    }
    let mismatches: Vec<&str> = out.lines().filter(|l| l.starts_with("MISMATCH")).collect();
    assert!(
        mismatches.is_empty(),
        "helper results differ from the host's (seed {seed}):\n{}",
        mismatches.join("\n")
    );
    let counts = parse_counts(&out);
    for r in routines().iter().filter(|r| r.native) {
        let (n, bad) = counts
            .get(&r.name)
            .unwrap_or_else(|| panic!("{}: no result line in\n{out}", r.name));
        assert_eq!((*n, *bad), (NATIVE_CASES, 0), "{}", r.name);
        eprintln!("{:<12} {n} cases natively, 0 mismatches", r.name);
    }
}

#[test]
fn native_helpers_built_with_os_match_host_ieee_on_a_million_cases() {
    let dir = TempDir::new("helpers-native-os");
    let exe = build_native_with(&dir, "-Os");
    let seed = q7_tests::seed("native_helpers_os") as u32;
    let out = Command::new(&exe)
        .args(["check", "1000000", &seed.to_string()])
        .output()
        .expect("native harness");
    let out = String::from_utf8_lossy(&out.stdout);
    let mismatches: Vec<&str> = out.lines().filter(|l| l.starts_with("MISMATCH")).collect();
    assert!(
        mismatches.is_empty(),
        "-Os build differs from the host (seed {seed}):\n{}",
        mismatches.join("\n")
    );
    let counts = parse_counts(&out);
    for r in routines().iter().filter(|r| r.native) {
        assert_eq!(counts.get(&r.name), Some(&(1_000_000, 0)), "{}", r.name);
    }
}

struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs a bare-metal ELF on the emulator's ncore2gp profile: its stop and its stdout.
fn run_device(elf: &Path) -> (Stop, String) {
    let mut core = q7_tests::load_elf(elf, &q7_isa::NCORE2GP);
    let out = Arc::new(Mutex::new(Vec::new()));
    core.console.stdout = Box::new(SharedBuf(out.clone()));
    // The runtime's report of an unhandled exception (vectors.S) goes to stderr: kept in the
    // text too, not printed among the test results.
    core.console.stderr = Box::new(SharedBuf(out.clone()));
    let stop = core.run(20_000_000_000, &mut NoTrace);
    eprintln!(
        "{}: {} instructions on the emulator",
        elf.display(),
        core.stats.instructions
    );
    let text = String::from_utf8_lossy(&out.lock().unwrap()).into_owned();
    (stop, text)
}

/// The device harness for `cases` cases per routine (only routine `trace`, printing every case,
/// when given). `None` without the toolchain.
fn device_harness(seed: u32, cases: u64, trace: Option<usize>) -> Option<q7_tests::build::Program> {
    let n = format!("-DQ7_N={cases}");
    let s = format!("-DQ7_SEED={seed}u");
    let t = format!("-DQ7_TRACE={}", trace.map_or(-1, |k| k as i64));
    build(
        Layout::Sim,
        "helpers-device",
        &[("cases.h", CASES_H), ("device.c", DEVICE_C)],
        &["-Wall", "-Wextra", "-Werror", &n, &s, &t],
    )
}

/// The lines a harness prints for routine results (the runtime's memsum line dropped).
fn result_lines(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| !l.is_empty() && !l.starts_with("q7-memsum="))
        .collect()
}

#[q7_requires::needs(toolchain)]
#[test]
fn device_helpers_match_host_reference_on_the_emulator() {
    let seed = q7_tests::seed("device_helpers") as u32;
    let Some(prog) = device_harness(seed, DEVICE_CASES, None) else {
        return;
    };
    let dir = TempDir::new("helpers-reference");
    let exe = build_native(&dir);
    let reference = Command::new(&exe)
        .args(["digest", &DEVICE_CASES.to_string(), &seed.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .expect("native harness");
    let (stop, out) = run_device(&prog.elf);
    assert_eq!(stop, Stop::Exited(0), "device harness output:\n{out}");
    let want = String::from_utf8(reference.wait_with_output().unwrap().stdout).unwrap();
    let (got, want) = (result_lines(&out), result_lines(&want));
    let names = routines();
    assert_eq!(want.len(), names.len(), "reference lines:\n{want:?}");
    assert_eq!(got.len(), names.len(), "device lines:\n{out}");
    for (k, r) in names.iter().enumerate() {
        assert!(want[k].starts_with(&format!("{} {DEVICE_CASES} ", r.name)));
        if got[k] != want[k] {
            panic!("{}", first_difference(seed, k, &r.name, &exe));
        }
        eprintln!(
            "{:<12} {DEVICE_CASES} cases on the emulator, digest agrees",
            r.name
        );
    }
}

/// The first case of routine `k` whose device result differs from the reference, from both
/// sides' case-by-case traces.
fn first_difference(seed: u32, k: usize, name: &str, native: &Path) -> String {
    let prog = device_harness(seed, DEVICE_CASES, Some(k)).expect("toolchain");
    let (_, out) = run_device(&prog.elf);
    let reference = run(Command::new(native).args([
        "trace",
        name,
        &DEVICE_CASES.to_string(),
        &seed.to_string(),
    ]));
    let reference = String::from_utf8(reference).unwrap();
    let libc = routines()[k].libc;
    for (g, w) in out.lines().zip(reference.lines()) {
        if g != w {
            let (g, w): (Vec<&str>, Vec<&str>) = (g.split(' ').collect(), w.split(' ').collect());
            let field = |v: &Vec<&str>, i: usize| v.get(i).copied().unwrap_or("?").to_string();
            let (x, y) = if libc { ("fill", "n") } else { ("x", "y") };
            let what = if libc {
                "running digest of results and buffers"
            } else {
                "result"
            };
            return format!(
                "{name} (seed {seed}) case {}: {x}=0x{} {y}=0x{}: expected {what} 0x{}, got 0x{}",
                field(&w, 0),
                field(&w, 1),
                field(&w, 2),
                field(&w, 3),
                field(&g, 3)
            );
        }
    }
    format!("{name} (seed {seed}): digests differ but no case does")
}

#[q7_requires::needs(toolchain)]
#[test]
fn division_by_zero_raises_integer_divide_by_zero_in_every_width() {
    // vectors.S ends the program with 0x100 + EXCCAUSE; IntegerDivideByZero is cause 6.
    for (what, expr) in [
        ("int /", "(int)a / (int)z"),
        ("unsigned %", "a % z"),
        ("long long /", "(long long)a / (long long)z"),
        ("unsigned long long /", "(unsigned long long)a / z"),
        ("long long %", "(long long)a % (long long)z"),
        ("unsigned long long %", "(unsigned long long)a % z"),
    ] {
        let src = format!(
            "volatile unsigned a = 7, z = 0;\nvolatile long long r;\n\
             int main(void) {{ r = {expr}; return 1; }}\n"
        );
        let Some(prog) = build(Layout::Sim, "div0", &[("div0.c", &src)], &[]) else {
            return;
        };
        let (stop, text) = run_device(&prog.elf);
        assert_eq!(stop, Stop::Exited(0x106), "{what} by zero");
        assert!(
            text.contains("qemu-rt: unhandled exception EXCCAUSE=00000006"),
            "{what} by zero: {text}"
        );
    }
}

/// The C++ test program's heap and declarations (malloc/free are the SDK heap's in kernels).
const CXX_PRELUDE: &str = r#"
typedef __SIZE_TYPE__ size_t;
namespace std { struct nothrow_t { explicit nothrow_t() = default; }; extern const nothrow_t nothrow; }
void *operator new(size_t, const std::nothrow_t &) noexcept;
void *operator new[](size_t, const std::nothrow_t &) noexcept;

static unsigned char heap[4096] __attribute__((aligned(8)));
static size_t used, frees;
extern "C" void *malloc(size_t n) {
    n = (n + 7) & ~(size_t)7;
    if (used + n > sizeof heap) return 0;
    void *p = heap + used;
    used += n;
    return p;
}
extern "C" void free(void *p) { if (p) frees++; }
"#;

const CXX_TEST: &str = r#"
static int constructed;
struct Counter { int v; Counter() : v(++constructed) {} ~Counter() { constructed = -1; } };
int next() { static Counter c; return c.v; }   /* guard, then atexit for the destructor */

struct Shape { virtual int area() const = 0; virtual ~Shape() {} };
struct Square : Shape { int s; explicit Square(int s) : s(s) {} int area() const override { return s * s; } };

int main() {
    Shape *sq = new Square(7);
    int a = sq->area();
    delete sq;                                   /* sized delete */
    int *arr = new int[10];
    for (int i = 0; i < 10; i++) arr[i] = i;
    int sum = 0;
    for (int i = 0; i < 10; i++) sum += arr[i];
    delete[] arr;
    int *big = new (std::nothrow) int[100000];   /* more than the heap: null, no trap */
    int *zero = new int[0];                      /* a distinct non-null object */
    int *one = new (std::nothrow) int;
    int ok = a == 49 && sum == 45 && big == 0 && zero != 0 && one != 0 && zero != one;
    int first = next(), again = next();          /* initialised once */
    ok = ok && first == 1 && again == 1 && constructed == 1 && frees == 2;
    return ok ? 42 : 1;
}
"#;

/// Builds a C++ program (`CXX_PRELUDE` + `body`) with the C++ runtime and runs it.
fn run_cxx(name: &str, body: &str) -> Option<(Stop, String)> {
    let runtime = std::fs::read_to_string(helpers_dir().join(CXX_RUNTIME)).unwrap();
    let source = format!("{CXX_PRELUDE}{body}");
    let prog = build(
        Layout::Sim,
        name,
        &[("cxxrt.cc", &runtime), ("test.cc", &source)],
        &["-fno-exceptions", "-fno-rtti", "-std=c++14"],
    )?;
    Some(run_device(&prog.elf))
}

#[q7_requires::needs(toolchain)]
#[test]
fn cxx_runtime_serves_new_delete_guards_and_static_destructors() {
    let Some((stop, out)) = run_cxx("cxxrt", CXX_TEST) else {
        return;
    };
    assert_eq!(stop, Stop::Exited(42), "{out}");
}

#[q7_requires::needs(toolchain)]
#[test]
fn cxx_runtime_traps_on_failed_new_and_pure_virtual_calls() {
    let programs = [
        (
            "cxx-new",
            "int *volatile kept;\nint main() { kept = new int[100000]; return 0; }",
        ),
        (
            "cxx-pure",
            "struct B; void call(B *);\n\
             struct B { B() { call(this); } virtual int f() = 0; };\n\
             void call(B *b) { b->f(); }\n\
             struct D : B { int f() override { return 1; } };\n\
             int main() { D d; return 0; }",
        ),
    ];
    for (name, body) in programs {
        let Some((stop, out)) = run_cxx(name, body) else {
            return;
        };
        let Stop::Fault(r) = stop else {
            panic!("{name}: expected the runtime's trap, got {stop:?}\n{out}")
        };
        assert_eq!(r.kind, FaultKind::Breakpoint { imm: (1, 15) }, "{name}");
    }
}
