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

/// Compiles and links `sources` (name, text; headers are only written) with the runtime into a
/// `-M sim` executable.
/// `None` when the toolchain is absent (and not required).
pub fn build_sim(name: &str, sources: &[(&str, &str)], extra_flags: &[&str]) -> Option<Program> {
    let gcc = tool("gcc")?;
    let dir = TempDir::new(name);
    let rt = runtime_dir();
    let mut cmd = Command::new(gcc);
    cmd.args([
        "-O2",
        "-ffreestanding",
        "-nostdlib",
        "-fno-builtin",
        "-Wl,--no-warn-rwx-segments",
    ])
    .arg("-fno-tree-loop-distribute-patterns")
    .arg(format!("-I{}", rt.display()))
    .arg("-T")
    .arg(rt.join("link.ld"))
    .args(extra_flags)
    .arg("-o")
    .arg(dir.join(&format!("{name}.elf")))
    .arg(rt.join("crt0.S"))
    .arg(rt.join("vectors.S"))
    .arg(rt.join("rt.S"))
    .arg(rt.join("int64.c"))
    .arg(rt.join("mem.c"));
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

/// Compiles and links `sources` into a static linux-user executable for `qemu-xtensa`
/// (runtime `rt/user`: CALL8 crt0, exit_group with main's value; 32-bit division helpers).
pub fn build_user(name: &str, sources: &[(&str, &str)]) -> Option<Program> {
    let gcc = tool("gcc")?;
    let dir = TempDir::new(&format!("{name}-user"));
    let rt = runtime_dir();
    let mut cmd = Command::new(gcc);
    cmd.args([
        "-O2",
        "-ffreestanding",
        "-nostdlib",
        "-static",
        "-fno-builtin",
    ])
    .arg("-T")
    .arg(rt.join("user/link.ld"))
    .arg("-o")
    .arg(dir.join(&format!("{name}.elf")))
    .arg(rt.join("user/crt0.S"))
    .arg(rt.join("rt.S"));
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
