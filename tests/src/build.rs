//! Building bare-metal test programs with the project's runtime (`examples/bare-metal/rt`):
//! `crt0.S` (reset stub + `_start`, CALL8 only), `vectors.S` (window handlers, fatal vectors),
//! `rt.S` (windowed 32-bit division helpers), `int64.c` (64-bit helpers), `mem.c` (memcpy & co.)
//! and `link.ld` (QEMU `-M sim` layout).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{run, tool, TempDir};

/// The runtime directory.
pub fn runtime_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bare-metal/rt")
}

/// A built program and the directory that holds it.
#[derive(Debug)]
pub struct Program {
    /// The ELF executable.
    pub elf: PathBuf,
    /// Keeps the build directory alive.
    pub dir: TempDir,
}

/// Which runtime a program is linked with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Bare metal, QEMU `-M sim` layout (`crt0.S`, `vectors.S`, helpers, `memsum.c`, `link.ld`).
    Sim,
    /// Static linux-user executable for `qemu-xtensa` (`user/crt0.S`, `user/link.ld`).
    User,
    /// A program in one core's IRAM on the emulated cluster (`examples/sdk/rt`, PLATFORM.md).
    Platform,
}

/// The SDK directory (`examples/sdk`).
pub fn sdk_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/sdk")
}

/// Compiles and links `sources` (name, text; headers are only written) with the runtime of
/// `layout`. `None` when the toolchain is absent (and not required).
pub fn build(
    layout: Layout,
    name: &str,
    sources: &[(&str, &str)],
    extra_flags: &[&str],
) -> Option<Program> {
    let gcc = tool("gcc")?;
    let dir = TempDir::new(name);
    let rt = runtime_dir();
    let mut cmd = Command::new(gcc);
    cmd.args(["-O2", "-ffreestanding", "-nostdlib", "-fno-builtin"])
        .arg("-fno-tree-loop-distribute-patterns")
        .arg(format!("-I{}", rt.display()));
    match layout {
        Layout::Sim => cmd
            .arg("-Wl,--no-warn-rwx-segments")
            .arg("-T")
            .arg(rt.join("link.ld"))
            .args([rt.join("crt0.S"), rt.join("vectors.S"), rt.join("rt.S")])
            .args([rt.join("int64.c"), rt.join("mem.c"), rt.join("memsum.c")]),
        Layout::User => cmd
            .arg("-static")
            .arg("-T")
            .arg(rt.join("user/link.ld"))
            .args([rt.join("user/crt0.S"), rt.join("rt.S")]),
        Layout::Platform => {
            let sdk = sdk_dir();
            cmd.arg(format!("-I{}", sdk.join("include").display()))
                .arg("-Wl,--no-warn-rwx-segments")
                .arg("-T")
                .arg(sdk.join("rt/platform-iram.ld"))
                .args([
                    sdk.join("rt/crt0.S"),
                    rt.join("rt.S"),
                    rt.join("int64.c"),
                    rt.join("mem.c"),
                ])
        }
    };
    cmd.args(extra_flags)
        .arg("-o")
        .arg(dir.join(&format!("{name}.elf")));
    for (file, text) in sources {
        let p = dir.join(file);
        std::fs::write(&p, text).unwrap();
        if !file.ends_with(".h") {
            cmd.arg(p);
        }
    }
    run(&mut cmd);
    Some(Program {
        elf: dir.join(&format!("{name}.elf")),
        dir,
    })
}

/// [`build`] with the bare-metal runtime.
pub fn build_sim(name: &str, sources: &[(&str, &str)], extra_flags: &[&str]) -> Option<Program> {
    build(Layout::Sim, name, sources, extra_flags)
}

/// [`build`] with the linux-user runtime.
pub fn build_user(name: &str, sources: &[(&str, &str)]) -> Option<Program> {
    build(Layout::User, &format!("{name}-user"), sources, &[])
}
