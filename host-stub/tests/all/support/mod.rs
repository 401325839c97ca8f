//! Helpers shared by the command-line tests of this directory (each test file uses some).
#![allow(dead_code)]

pub mod timeline;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::Duration;

use q7_tests::TempDir;

/// The `q7emu` binary of this build, as a command with no `RUST_LOG` of the caller's (a test
/// that wants diagnostics sets it).
pub fn q7emu() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_q7emu"));
    cmd.env_remove("RUST_LOG");
    cmd
}

/// `examples/kernels/<name>` of the repository.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/kernels")
        .join(name)
}

/// `q7emu run` of the committed 8-core ReLU on its committed input (README.md's main job) with
/// `extra` arguments.
pub fn relu_multicore(extra: &[&str]) -> Command {
    let k = example("relu_multicore");
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(k.join("build"))
        .args(["--op", "relu_forward", "--input"])
        .arg(k.join("input.npy"))
        .args(extra);
    cmd
}

/// Runs `cmd`, which must succeed (its stderr shown otherwise); its output.
pub fn ok(mut cmd: Command) -> Output {
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{cmd:?} failed ({}):\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The stdout of `out`, a command (`what`) that must have succeeded (its stderr shown
/// otherwise).
pub fn success(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A toolchain prefix whose `bin` holds an empty file for every tool but `missing`.
pub fn fake_toolchain(dir: &TempDir, missing: Option<&str>) -> PathBuf {
    let prefix = dir.join("toolchain");
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    for t in q7_kernel_build::toolchain::Tool::ALL {
        if Some(t.file_name().as_str()) != missing {
            std::fs::write(prefix.join("bin").join(t.file_name()), "").unwrap();
        }
    }
    prefix
}

/// Sends Ctrl-C (SIGINT) to `child` after `after`, and waits for it to end.
pub fn interrupt_after(child: Child, after: Duration) -> Output {
    std::thread::sleep(after);
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success(), "kill -INT {}", child.id());
    child.wait_with_output().unwrap()
}

/// Each core's (instructions, cycles) from the first line of its block in `q7emu run`'s
/// report: `core N: I instructions, C cycles, IPC …` (docs/run-report.md).
pub fn core_counters(stdout: &str) -> Vec<(u64, u64)> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("core "))
        .filter_map(|l| {
            let (_, rest) = l.split_once(": ")?;
            let mut fields = rest.split(", ");
            let i = fields.next()?.strip_suffix(" instructions")?;
            let c = fields.next()?.strip_suffix(" cycles")?;
            Some((i.parse().ok()?, c.parse().ok()?))
        })
        .collect()
}

/// A kernel built with the repository's SDK: `k` adds one to each element through accessors.
pub const ADD_ONE_KERNEL: &str = "\
#include <torch/torch.h>

torch::Tensor k(const torch::Tensor &x)
{
\ttorch::Tensor y = torch::empty_like(x);
\tauto in = x.accessor<float, 1>();
\tauto out = y.accessor<float, 1>();
\tfor (int64_t i = 0; i < x.size(0); i++)
\t\tout[i] = in[i] + 1.0f;
\treturn y;
}
";

/// Builds the checked-mode example `examples/check/<project>` (docs/checked-mode.md) with the
/// installed toolchain into `dir/<project>`; the build directory (the build must succeed).
pub fn build_check_example(dir: &TempDir, project: &str) -> PathBuf {
    let out = dir.join(project);
    let o = q7emu()
        .args(["build", "--project"])
        .arg(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../examples/check")
                .join(project),
        )
        .arg("--toolchain")
        .arg(q7_tests::toolchain_prefix())
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{project}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// Builds `source`, saved as `dir/k.cpp`, as op `k(Tensor x) -> Tensor` into `dir/<out>` with
/// the installed toolchain and `extra` flags; the build directory (the build must succeed).
pub fn build_k(dir: &TempDir, source: &str, out: &str, extra: &[&str]) -> PathBuf {
    let src = dir.join("k.cpp");
    std::fs::write(&src, source).unwrap();
    let build = dir.join(out);
    let o = q7emu()
        .args(["build", "--name", "k", "--fn", "k"])
        .args(["--schema", "k(Tensor x) -> Tensor"])
        .arg("--toolchain")
        .arg(q7_tests::toolchain_prefix())
        .args(extra)
        .arg("-o")
        .arg(&build)
        .arg(&src)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    build
}

/// Runs `cmd` with its stdout and stderr on a pseudo-terminal (as a user's shell runs it): its
/// exit code and what reached the terminal, with the terminal's own newline translation
/// (`\n` shown as `\r\n`) undone.
pub fn on_terminal(mut cmd: Command) -> (Option<i32>, Vec<u8>) {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::fs::OpenOptionsExt;
    // SAFETY: posix_openpt, grantpt, unlockpt and ptsname have no preconditions beyond a valid
    // descriptor, which each result is checked to be before the next call uses it; ptsname's
    // buffer is copied out at once, before any other call could reuse it.
    let (master, name) = unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        let master = OwnedFd::from_raw_fd(fd);
        assert_eq!(libc::grantpt(fd), 0);
        assert_eq!(libc::unlockpt(fd), 0);
        let name = libc::ptsname(fd);
        assert!(!name.is_null());
        let name = std::ffi::CStr::from_ptr(name).to_str().unwrap().to_string();
        (master, name)
    };
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(&name)
        .unwrap();
    cmd.stdin(std::process::Stdio::null())
        .stdout(slave.try_clone().unwrap())
        .stderr(slave);
    let mut child = cmd.spawn().unwrap();
    drop(cmd);
    let mut master = std::fs::File::from(master);
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        // Until every copy of the other side is closed (EIO on Linux).
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            out.extend_from_slice(&buf[..n]);
        }
        out
    });
    let status = child.wait().unwrap();
    let raw = reader.join().unwrap();
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\r' && raw.get(i + 1) == Some(&b'\n') {
            i += 1;
        }
        out.push(raw[i]);
        i += 1;
    }
    (status.code(), out)
}
