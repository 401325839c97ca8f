//! A project's shape executable (examples/sdk/BUILD.md "Projects"): the shape sources compiled
//! for the host with the host C++ compiler ([`HOST_CXX`]) against the SDK's host headers
//! (`host/include`: a shapes-and-dtypes `torch/torch.h` and `torchneuron/register.h`, the c10
//! headers shared with the device through `-idirafter include`), linked with the SDK's
//! `host/shape_main.cpp` into `<base>.shape` in the build directory.
//!
//! `q7emu build` asks it for its registrations ([`list`]) and requires them to be what the
//! project reader derived ([`super::project`]); `q7emu run` asks it for an op's output dtype
//! and shape ([`query`]). It runs as a child process with its input on stdin and its answer on
//! stdout, bounded: [`TIMEOUT`] to answer, [`MAX_OUTPUT`] bytes of output on each stream; one
//! that crashes, hangs or answers something else is an error naming the op and its shape
//! function, and never takes q7emu down with it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use q7_tensor::arg_kind::ArgKind;
use q7_tensor::descriptor::ScalarValue;
use q7_tensor::dtype::Dtype;

/// The host C++ compiler, looked up on `PATH`.
pub const HOST_CXX: &str = "g++";
/// The SDK's host headers, relative to the SDK directory.
pub const HOST_INCLUDE: &str = "host/include";
/// The main of every shape executable, relative to the SDK directory.
pub const MAIN_SOURCE: &str = "host/shape_main.cpp";
/// The shape executable's extension: `<base>.shape`.
pub const EXTENSION: &str = "shape";
/// How long the shape executable has to answer.
pub const TIMEOUT: Duration = Duration::from_secs(5);
/// Most bytes read from each of its output streams.
pub const MAX_OUTPUT: usize = 64 * 1024;
/// The flags every shape source is compiled with (C++14, as the wrapper; optimised; warnings
/// are the user's business).
pub const COMPILE_FLAGS: [&str; 3] = ["-std=c++14", "-O1", "-fno-ident"];
/// The flags of the link: the C++ runtime linked in, so that the executable needs only the C
/// library; stripped; no build ID (identical inputs give identical executables).
pub const LINK_FLAGS: [&str; 4] = [
    "-static-libstdc++",
    "-static-libgcc",
    "-s",
    "-Wl,--build-id=none",
];

/// Why the shape executable cannot be built, or did not answer.
#[derive(Debug, thiserror::Error)]
pub enum ShapeError {
    /// No host compiler.
    #[error("Could not find the host C++ compiler {HOST_CXX} on PATH: a project's shape sources are compiled for the host (install g++; scripts/setup-toolchain.sh does)")]
    NoCompiler,
    /// The executable could not be started.
    #[error("{}: cannot run the shape executable ({what}): {source} (a host binary of the machine that built it; rebuild the library here, or give the output's --out-dtype and --out-shape)", .exe.display())]
    Spawn {
        /// The executable.
        exe: PathBuf,
        /// What it was asked.
        what: String,
        /// Why.
        source: std::io::Error,
    },
    /// It did not answer in time.
    #[error("{}: the shape executable did not answer within {} s ({what}): it was stopped", .exe.display(), TIMEOUT.as_secs())]
    Timeout {
        /// The executable.
        exe: PathBuf,
        /// What it was asked.
        what: String,
    },
    /// It ended with a failure or a signal.
    #[error("{}: the shape executable {how} ({what}){}", .exe.display(), stderr_text(.stderr))]
    Failed {
        /// The executable.
        exe: PathBuf,
        /// What it was asked.
        what: String,
        /// "crashed with signal 11 (SIGSEGV)", "exited with status 3".
        how: String,
        /// What it printed on stderr.
        stderr: String,
    },
    /// It answered something else than the protocol's answer.
    #[error("{}: the shape executable's answer ({what}) is not {want}: {answer:?}", .exe.display())]
    Answer {
        /// The executable.
        exe: PathBuf,
        /// What it was asked.
        what: String,
        /// What the answer should have been.
        want: &'static str,
        /// The answer, cut to 200 characters.
        answer: String,
    },
    /// Its registrations are not the ones the project reader derived.
    #[error("{}: the compiled shape sources register {compiled}, but q7emu build read {read} from them (examples/sdk/BUILD.md \"Projects\" lists the forms it reads)", .exe.display())]
    Registrations {
        /// The executable.
        exe: PathBuf,
        /// What the compiled executable lists.
        compiled: String,
        /// What the reader derived.
        read: String,
    },
}

fn stderr_text(s: &str) -> String {
    let s = s.trim_end();
    if s.is_empty() {
        String::new()
    } else {
        format!(":\n{s}")
    }
}

/// The host compiler on `PATH`.
pub fn find_compiler() -> Result<PathBuf, ShapeError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(HOST_CXX))
        .find(|p| p.is_file())
        .ok_or(ShapeError::NoCompiler)
}

/// The name of a signal, for a crash's message.
fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

fn how(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("crashed with signal {s} ({})", signal_name(s)),
        _ => "ended abnormally".into(),
    }
}

/// Reads at most [`MAX_OUTPUT`] bytes of `r`, then drains the rest.
fn read_bounded(mut r: impl Read) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = (&mut r).take(MAX_OUTPUT as u64).read_to_end(&mut out);
    let _ = std::io::copy(&mut r, &mut std::io::sink());
    out
}

/// Kills every process of process group `pgid` (the shape executable and whatever it
/// started) with SIGKILL; a group that is gone already is no error.
fn kill_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    // SAFETY: killpg only sends a signal; `pgid` is the process group the shape executable
    // was started in (`process_group(0)` makes its pid the group's id), which holds only it
    // and processes it started. A group that no longer exists gives ESRCH, ignored.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Runs `exe` with `args` and `input` on stdin: its stdout when it exits with success within
/// [`TIMEOUT`]; `what` names the request in errors. It runs in a process group of its own,
/// killed whole when it ends or at the deadline, so a process it left running (a background
/// child holding its output pipe open) can neither outlive the request nor hold q7emu past
/// [`TIMEOUT`]: the output streams are waited for until the same deadline.
fn ask(exe: &Path, args: &[&str], input: &str, what: &str) -> Result<String, ShapeError> {
    use std::os::unix::process::CommandExt;
    let spawn_err = |source| ShapeError::Spawn {
        exe: exe.to_path_buf(),
        what: what.to_string(),
        source,
    };
    let timeout = || ShapeError::Timeout {
        exe: exe.to_path_buf(),
        what: what.to_string(),
    };
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(spawn_err)?;
    let group = child.id();
    let deadline = Instant::now() + TIMEOUT;
    // Each stream is read on a thread of its own and handed over on a channel, so that a
    // stream some other process keeps open is given up at the deadline.
    let (tx, rx) = std::sync::mpsc::channel::<(bool, Vec<u8>)>();
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    for (is_out, stream) in [
        (true, Box::new(stdout) as Box<dyn Read + Send>),
        (false, Box::new(stderr)),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let _ = tx.send((is_out, read_bounded(stream)));
        });
    }
    drop(tx);
    if let Some(mut stdin) = child.stdin.take() {
        // A shape executable that exits without reading its request closes the pipe: its
        // status says what happened.
        let _ = stdin.write_all(input.as_bytes());
    }
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if Instant::now() >= deadline => {
                kill_group(group);
                let _ = child.wait();
                return Err(timeout());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => {
                kill_group(group);
                let _ = child.wait();
                return Err(spawn_err(e));
            }
        }
    };
    // Its answer is given: nothing it started may go on.
    kill_group(group);
    let (mut out, mut err) = (None, None);
    while out.is_none() || err.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((true, bytes)) => out = Some(bytes),
            Ok((false, bytes)) => err = Some(bytes),
            // A stream still held open by a process outside the group at the deadline.
            Err(_) => return Err(timeout()),
        }
    }
    let (out, err) = (out.unwrap_or_default(), err.unwrap_or_default());
    if !status.success() {
        return Err(ShapeError::Failed {
            exe: exe.to_path_buf(),
            what: what.to_string(),
            how: how(status),
            stderr: String::from_utf8_lossy(&err).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn answer_error(exe: &Path, what: &str, want: &'static str, answer: &str) -> ShapeError {
    ShapeError::Answer {
        exe: exe.to_path_buf(),
        what: what.to_string(),
        want,
        answer: answer.chars().take(200).collect(),
    }
}

/// One registration as the compiled shape executable lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct ListedOp {
    /// The op's name.
    pub name: String,
    /// Its kernel function's name.
    pub kernel: String,
    /// Its arguments' kinds.
    pub args: Vec<ArgKind>,
}

/// The registrations the compiled shape executable lists (`--list`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct Listing {
    /// The library's namespace.
    pub namespace: String,
    /// Its ops in registration order.
    pub ops: Vec<ListedOp>,
}

impl Listing {
    /// `ns: op(kinds) -> kernel, …`, for a message.
    pub fn describe(&self) -> String {
        let ops: Vec<String> = self
            .ops
            .iter()
            .map(|o| {
                let kinds: Vec<&str> = o.args.iter().map(|k| k.spellings()[0]).collect();
                format!("{}({}) calling {}", o.name, kinds.join(", "), o.kernel)
            })
            .collect();
        format!("{}: {}", self.namespace, ops.join(", "))
    }
}

/// The registrations of shape executable `exe`.
pub fn list(exe: &Path) -> Result<Listing, ShapeError> {
    let what = "--list";
    let text = ask(exe, &["--list"], "", what)?;
    serde_json::from_str(text.trim())
        .map_err(|_| answer_error(exe, what, "the JSON of its registrations", &text))
}

/// One argument of a shape request.
#[derive(Debug, Clone, PartialEq)]
pub enum ShapeArg {
    /// A tensor: its dtype and shape.
    Tensor(Dtype, Vec<u64>),
    /// A scalar argument of the schema kind, with its value.
    Scalar(ArgKind, ScalarValue),
}

/// The request text of op `op` on `args` (examples/sdk/BUILD.md "Projects", "The shape
/// protocol").
pub fn request(op: &str, args: &[ShapeArg]) -> String {
    let mut s = format!("q7shape 1\nop {op}\n");
    for a in args {
        let bits = |d: f64| format!("{:x}", d.to_bits());
        let item = match a {
            ShapeArg::Tensor(dtype, shape) => {
                let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
                format!("tensor {} {} {}", dtype.code, shape.len(), dims.join(" "))
            }
            ShapeArg::Scalar(ArgKind::Scalar, ScalarValue::Int(i)) => format!("scalar int {i}"),
            ShapeArg::Scalar(ArgKind::Scalar, ScalarValue::Double(d)) => {
                format!("scalar float {}", bits(*d))
            }
            ShapeArg::Scalar(ArgKind::Float, ScalarValue::Double(d)) => {
                format!("float {}", bits(*d))
            }
            ShapeArg::Scalar(ArgKind::Float, ScalarValue::Int(i)) => {
                format!("float {}", bits(*i as f64))
            }
            ShapeArg::Scalar(ArgKind::Bool, v) => {
                format!("bool {}", u8::from(*v != ScalarValue::Int(0)))
            }
            ShapeArg::Scalar(_, ScalarValue::Int(i)) => format!("int {i}"),
            ShapeArg::Scalar(_, ScalarValue::Double(d)) => format!("int {}", *d as i64),
        };
        s.push_str(item.trim_end());
        s.push('\n');
    }
    s.push_str("end\n");
    s
}

#[derive(serde::Deserialize)]
struct Answer {
    dtype: u8,
    shape: Vec<i64>,
}

/// The output dtype and shape shape executable `exe` computes for op `op` on `args`; `what`
/// names the op and its shape function in errors.
pub fn query(
    exe: &Path,
    op: &str,
    args: &[ShapeArg],
    what: &str,
) -> Result<(Dtype, Vec<u64>), ShapeError> {
    let text = ask(exe, &[], &request(op, args), what)?;
    let want = "{\"dtype\": ISA code of an accepted dtype, \"shape\": [dims ≥ 0]}";
    let a: Answer =
        serde_json::from_str(text.trim()).map_err(|_| answer_error(exe, what, want, &text))?;
    let dtype = Dtype::from_code(a.dtype)
        .filter(Dtype::marshallable)
        .ok_or_else(|| answer_error(exe, what, want, &text))?;
    let shape = a
        .shape
        .iter()
        .map(|&d| u64::try_from(d))
        .collect::<Result<Vec<u64>, _>>()
        .map_err(|_| answer_error(exe, what, want, &text))?;
    Ok((dtype, shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_spell_every_argument_kind() {
        let f32 = Dtype::from_name("float32").unwrap();
        let text = request(
            "mix",
            &[
                ShapeArg::Tensor(f32, vec![32, 4096]),
                ShapeArg::Tensor(f32, vec![]),
                ShapeArg::Scalar(ArgKind::Scalar, ScalarValue::Int(-3)),
                ShapeArg::Scalar(ArgKind::Scalar, ScalarValue::Double(0.5)),
                ShapeArg::Scalar(ArgKind::Float, ScalarValue::Double(1.0)),
                ShapeArg::Scalar(ArgKind::Int, ScalarValue::Int(7)),
                ShapeArg::Scalar(ArgKind::Bool, ScalarValue::Int(1)),
            ],
        );
        assert_eq!(
            text,
            "q7shape 1\nop mix\ntensor 12 2 32 4096\ntensor 12 0\nscalar int -3\n\
             scalar float 3fe0000000000000\nfloat 3ff0000000000000\nint 7\nbool 1\nend\n"
        );
    }

    #[test]
    fn signals_are_named() {
        assert_eq!(signal_name(11), "SIGSEGV");
        assert_eq!(signal_name(6), "SIGABRT");
    }
}
