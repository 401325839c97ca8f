//! What the math library's tests share (tests/tests/all/sdk_math.rs): the generator of its
//! constants, the native harness (`tests/programs/math/native.cpp` with the library compiled
//! for the host), the function list (`tests/programs/math/functions.h`) and the tables of
//! `examples/sdk/rt/math/README.md`.

#![allow(dead_code)]

pub mod tables;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The library's README, whose tables the tests read.
pub const README: &str = "examples/sdk/rt/math/README.md";

/// `tests/programs/math`.
pub fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/math")
}

/// `examples/sdk/rt/math`.
pub fn library_dir() -> PathBuf {
    q7_tests::build::sdk_dir().join("rt/math")
}

/// The library's sources, in path order (the build driver's list, `q7_kernel_build::sdk`).
pub fn library_sources() -> Vec<PathBuf> {
    use q7_kernel_build::sdk::{sources, Part};
    let sdk = q7_tests::build::sdk_dir();
    sources(&sdk, Part::Math)
        .unwrap()
        .into_iter()
        .map(|rel| sdk.join(Part::Math.dir()).join(rel))
        .collect()
}

/// A function of `functions.h`: its name and whether it is a double function, of two
/// arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub double: bool,
    pub binary: bool,
}

/// The functions of `functions.h`, in order (their index is the probe kernel's `fn`).
pub fn functions() -> Vec<Function> {
    let text = std::fs::read_to_string(programs().join("functions.h")).unwrap();
    text.lines()
        .filter_map(|l| {
            let (kind, rest) = l.split_once('(')?;
            let name = rest.strip_suffix(')')?.to_string();
            let (double, binary) = match kind {
                "F1" => (false, false),
                "F2" => (false, true),
                "D1" => (true, false),
                "D2" => (true, true),
                _ => return None,
            };
            Some(Function {
                name,
                double,
                binary,
            })
        })
        .collect()
}

/// The error bound of each function, in ulps: the README's table "Functions" (column
/// `bound`), the one statement of each bound.
pub fn bounds() -> BTreeMap<String, f64> {
    let text = q7_tests::doc::read(README);
    q7_tests::doc::table_after(&text, "## Functions")
        .iter()
        .map(|row| {
            let name = row[0].trim_matches('`').to_string();
            let bound = row[1]
                .parse()
                .unwrap_or_else(|_| panic!("{README}: bound {:?} of {name}", row[1]));
            (name, bound)
        })
        .collect()
}

/// The native harness, built once per test process as `sdk-math/native` in the cargo target's
/// temporary directory (built under a name of the process's own, then renamed over it); `None`
/// without a host C++ compiler (with the notice of `q7_tests::missing_tool`).
pub fn native() -> Option<&'static Path> {
    static NATIVE: OnceLock<Option<PathBuf>> = OnceLock::new();
    NATIVE
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sdk-math");
            std::fs::create_dir_all(&dir).unwrap();
            let built = build_native(&dir)?;
            let exe = dir.join("native");
            std::fs::rename(&built, &exe).unwrap();
            Some(exe)
        })
        .as_deref()
}

/// The native harness, built with the host C++ compiler (`$CXX`, else `g++`) in `dir`; `None`
/// when there is none (the rule of `sdk_support::host_cxx`).
pub fn build_native(dir: &Path) -> Option<PathBuf> {
    let cxx = crate::sdk_support::host_cxx()?;
    let exe = dir.join(format!("native.{}", std::process::id()));
    let mut cmd = Command::new(cxx);
    cmd.args([
        "-std=c++14",
        "-O2",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-DQ7_MATH_HOST",
    ])
    .arg(format!("-I{}", programs().display()))
    .arg("-o")
    .arg(&exe)
    .arg(programs().join("native.cpp"))
    .args(library_sources())
    .arg("-lm");
    q7_tests::run(&mut cmd);
    Some(exe)
}

/// What the host build `exe` ([`build_native`]) computes for `args`, each a pair of argument bit
/// patterns (the second ignored by a unary function): the harness's "values".
pub fn host_values(exe: &std::path::Path, f: &Function, args: &[(u64, u64)]) -> Vec<u64> {
    let mut child = Command::new(exe)
        .args(["values", &f.name])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = String::new();
    for (x, y) in args {
        input.push_str(&format!("{x:x} {y:x}\n"));
    }
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| u64::from_str_radix(l, 16).unwrap())
        .collect()
}

/// One line of a measuring mode of the harness.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub name: String,
    pub cases: u64,
    pub max: f64,
    /// The argument(s) of the largest error, as printed.
    pub at: String,
    /// Cases with error <= 0.5, <= 1, <= 1.5, <= 2, > 2 ulps (disjoint).
    pub buckets: [u64; 5],
    /// Class mismatches (NaN, infinity or signed zero where the reference has another class).
    pub class: u64,
}

/// The result lines of a measuring run, by function.
pub fn parse_measured(out: &str) -> BTreeMap<String, Measured> {
    out.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() != 10 || !f[2].starts_with("max=") {
                return None;
            }
            let value = |i: usize| f[i].split_once('=').map(|(_, v)| v).unwrap();
            let count = |i: usize| value(i).parse::<u64>().ok();
            Some((
                f[0].to_string(),
                Measured {
                    name: f[0].to_string(),
                    cases: f[1].parse().ok()?,
                    max: value(2).parse().ok()?,
                    at: value(3).to_string(),
                    buckets: [count(4)?, count(5)?, count(6)?, count(7)?, count(8)?],
                    class: count(9)?,
                },
            ))
        })
        .collect()
}
