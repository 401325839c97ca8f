//! What the SDK tests share: the SDK's paths, the device compile flags of `q7emu build`, and the
//! host C++ compiler for the natively tested pieces.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use q7_tests::TempDir;

/// `examples/sdk`.
pub fn sdk() -> PathBuf {
    q7_tests::build::sdk_dir()
}

/// `tests/programs/sdk`.
pub fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/sdk")
}

/// The flags every device translation unit is compiled with (the build driver's,
/// examples/sdk/BUILD.md "Compile"): C++14, size-optimised, flat PIC for the prelinker, freestanding, no exceptions or
/// RTTI, the SDK's own headers only, warnings as errors.
pub const DEVICE_CXX_FLAGS: &[&str] = &[
    "-std=c++14",
    "-Os",
    "-fno-jump-tables",
    "-mlongcalls",
    "-fPIC",
    "-fvisibility=hidden",
    "-ffreestanding",
    "-fno-exceptions",
    "-fno-rtti",
    "-nostdinc++",
    "-Wall",
    "-Werror",
];

/// The link flags of a library.
pub const DEVICE_LINK_FLAGS: &[&str] = &["-nostdlib", "-shared", "-Wl,-Bsymbolic"];

/// `-I examples/sdk/include`.
pub fn include_flag() -> String {
    format!("-I{}", sdk().join("include").display())
}

/// Runs `cmd`, returning its output whatever the status.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// Compiles `src` for the device with the build flags into `out`.
pub fn device_compile(gxx: &Path, src: &Path, out: &Path) -> Output {
    let mut cmd = Command::new(gxx);
    cmd.args(DEVICE_CXX_FLAGS)
        .arg(include_flag())
        .arg("-c")
        .arg(src)
        .arg("-o")
        .arg(out);
    output(&mut cmd)
}

/// Asserts a compile succeeded, showing the compiler's messages otherwise.
pub fn assert_ok(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The host C++ compiler (`$CXX`, else `g++`) when it runs; else `None`, by the rule of
/// [`q7_tests::Requirement::check`] (the test is marked `#[q7_requires::host_cxx]`).
pub fn host_cxx() -> Option<PathBuf> {
    use q7_tests::Requirement;
    Requirement::HostCxx
        .check()
        .then(q7_environment::requirement::host_cxx)
}

/// Builds a native test program from `sources` with `flags` and runs it; its stdout. The
/// program prints its failures and exits non-zero on any.
pub fn run_native(
    cxx: &Path,
    name: &str,
    sources: &[(PathBuf, &[&str])],
    link: &[PathBuf],
) -> String {
    let dir = TempDir::new(name);
    let mut objects = Vec::new();
    for (i, (src, flags)) in sources.iter().enumerate() {
        let obj = dir.join(&format!("{i}.o"));
        let mut cmd = Command::new(cxx);
        cmd.args(["-std=c++14", "-O1", "-Wall", "-Werror"])
            .args(*flags)
            .arg("-c")
            .arg(src)
            .arg("-o")
            .arg(&obj);
        assert_ok(&format!("compiling {}", src.display()), &output(&mut cmd));
        objects.push(obj);
    }
    let exe = dir.join(name);
    let mut cmd = Command::new(cxx);
    cmd.args(&objects).args(link).arg("-o").arg(&exe);
    assert_ok(&format!("linking {name}"), &output(&mut cmd));
    let out = output(&mut Command::new(&exe));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{name} failed:\n{text}");
    text
}
