//! Building bare-metal test programs with the project's runtime (`examples/bare-metal/rt`):
//! `crt0.S` (reset stub + `_start`, CALL8 only), `vectors.S` (window handlers, fatal vectors),
//! `memsum.c` (the final memory checksum) and `link.ld` (QEMU `-M sim` layout), linked with the
//! SDK's compiler helper routines (`examples/sdk/rt/helpers`: integer, soft-float and string
//! routines in windowed form).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{run, tool, TempDir};

/// The runtime directory.
pub fn runtime_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bare-metal/rt")
}

/// The SDK's compiler helper routines (`examples/sdk/rt/helpers`).
pub fn helpers_dir() -> PathBuf {
    sdk_dir().join("rt/helpers")
}

/// The helper routine files every program is linked with, in `helpers_dir()` (the C++ runtime,
/// [`CXX_RUNTIME`], only in C++ programs: it needs the SDK's heap).
pub const HELPER_SOURCES: &[&str] = &[
    "int32.S", "int64.c", "bits.c", "sf.c", "df.c", "powi.c", "mem.c",
];

/// The C++ runtime file of `helpers_dir()` (operator new/delete, guards, pure virtual calls).
pub const CXX_RUNTIME: &str = "cxxrt.cc";

/// The helper routine files as paths.
pub fn helper_sources() -> Vec<PathBuf> {
    HELPER_SOURCES
        .iter()
        .map(|f| helpers_dir().join(f))
        .collect()
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
    /// Bare metal, QEMU `-M sim` layout (`crt0.S`, `vectors.S`, `memsum.c`, `link.ld`, helpers).
    Sim,
    /// Static linux-user executable for `qemu-xtensa` (`user/crt0.S`, `user/link.ld`).
    User,
    /// A program in one core's IRAM on the emulated cluster (`examples/sdk/rt`, PLATFORM.md).
    Platform,
}

/// Writes `sources` (file name, text) into `dir` and adds every non-header one to `cmd`.
fn add_sources(cmd: &mut Command, dir: &TempDir, sources: &[(&str, &str)]) {
    for (file, text) in sources {
        let p = dir.join(file);
        std::fs::write(&p, text).unwrap();
        if !file.ends_with(".h") {
            cmd.arg(p);
        }
    }
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
        .arg(format!("-I{}", rt.display()))
        .arg(format!("-I{}", helpers_dir().display()));
    match layout {
        Layout::Sim => cmd
            .arg("-Wl,--no-warn-rwx-segments")
            .arg("-T")
            .arg(rt.join("link.ld"))
            .args([rt.join("crt0.S"), rt.join("vectors.S"), rt.join("memsum.c")])
            .args(helper_sources()),
        Layout::User => cmd
            .arg("-static")
            .arg("-T")
            .arg(rt.join("user/link.ld"))
            .arg(rt.join("user/crt0.S"))
            .args(helper_sources()),
        Layout::Platform => {
            let sdk = sdk_dir();
            cmd.arg(format!("-I{}", sdk.join("include").display()))
                .arg("-Wl,--no-warn-rwx-segments")
                .arg("-T")
                .arg(sdk.join("rt/platform-iram.ld"))
                .arg(sdk.join("rt/crt0.S"))
                .args(helper_sources())
        }
    };
    cmd.args(extra_flags)
        .arg("-o")
        .arg(dir.join(&format!("{name}.elf")));
    add_sources(&mut cmd, &dir, sources);
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

/// The three outputs of a packaged build (examples/sdk/BUILD.md "Outputs"): the linked position-independent image,
/// its stripped/cleaned copy, and the relocatable load-lib carrying it under `lib_func`.
#[derive(Debug)]
pub struct Packaged {
    /// `<name>.so`.
    pub so: PathBuf,
    /// `<name>.stripped.so`.
    pub stripped: PathBuf,
    /// `<name>.packed.so`.
    pub packed: PathBuf,
    /// Keeps the build directory alive.
    pub dir: TempDir,
}

/// A linked position-independent device image (examples/sdk/BUILD.md "Link": `<name>.so`), ready for the
/// packager (`q7_kernel_build::pack`, which writes `<name>.stripped.so` and `<name>.packed.so`
/// beside it; this crate's library does not depend on q7-host, whose tests use it).
#[derive(Debug)]
pub struct Pic {
    /// `<name>.so`.
    pub so: PathBuf,
    /// Keeps the build directory alive.
    pub dir: TempDir,
}

/// Compiles and links `sources` into a position-independent device image with the recipe of
/// the committed example libraries: hidden visibility and -Bsymbolic, so that only
/// self-relative relocations remain, `_start` as the entry. `None` when the toolchain is absent
/// (and not required).
pub fn build_pic(name: &str, sources: &[(&str, &str)], extra_flags: &[&str]) -> Option<Pic> {
    let gcc = tool("gcc")?;
    let dir = TempDir::new(&format!("{name}-packed"));
    let so = dir.join(&format!("{name}.so"));
    let mut cmd = Command::new(gcc);
    cmd.args([
        "-O2",
        "-fPIC",
        "-fvisibility=hidden",
        "-shared",
        "-nostdlib",
        "-fno-builtin",
    ])
    .args(["-Wl,-Bsymbolic", "-Wl,-e,_start"])
    .arg(format!("-I{}", sdk_dir().join("include").display()))
    .args(extra_flags)
    .arg("-o")
    .arg(&so);
    add_sources(&mut cmd, &dir, sources);
    run(&mut cmd);
    Some(Pic { so, dir })
}

impl Pic {
    /// The packaged build, given the packager's outputs for [`Pic::so`].
    pub fn packaged(self, stripped: PathBuf, packed: PathBuf) -> Packaged {
        Packaged {
            so: self.so,
            stripped,
            packed,
            dir: self.dir,
        }
    }
}
