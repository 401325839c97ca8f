//! Support for the workspace-level tests: locating the windowed Xtensa toolchain installed by
//! `scripts/setup-toolchain.sh` (the tests that need it are marked `#[q7_requires::toolchain]`,
//! `#[q7_requires::qemu]` or `#[q7_requires::host_cxx]`, DEVELOPING.md "Tests that need tools"), running
//! its tools, temporary directories, loading ELF programs with `q7emu run-elf`'s guards, and a
//! small deterministic PRNG with printed seeds.
//!
//! | module | what |
//! |---|---|
//! | [`build`] | building bare-metal, linux-user, platform and packaged test programs |
//! | [`doc`] | reading the repository's markdown tables |
//! | [`lockstep`] | lockstep comparison with QEMU, and runs under `run-elf`'s defaults |
//! | [`rsp`] | a GDB remote protocol client for the `--gdb` tests |
//! | [`spec`] | the behaviour no oracle covers, asserted directly |

pub mod build;
pub mod doc;
pub mod generated;
pub mod lockstep;
pub mod rsp;
pub mod spec;

use std::path::PathBuf;
use std::process::Command;

/// The toolchain locator and the rule of the tests that need a tool, one of each for every
/// test (q7_environment): the prefix is `$Q7EMU_XTENSA_PREFIX`, else
/// `$HOME/.cache/xtensa-dc233c` (the set-up script's default).
pub use q7_environment::requirement::Requirement;
pub use q7_environment::toolchain::default_prefix as toolchain_prefix;

/// Path of `xtensa-elf-<tool>` when installed. When it is missing: `None`, by the rule of
/// [`Requirement::absent`] (the test is marked `#[q7_requires::toolchain]`).
pub fn tool(name: &str) -> Option<PathBuf> {
    let p = toolchain_prefix()
        .join("bin")
        .join(format!("xtensa-elf-{name}"));
    if p.is_file() {
        return Some(p);
    }
    Requirement::Toolchain.absent(&format!("{} is missing", p.display()));
    None
}

/// Runs a command, failing the test with its stderr when it does not succeed.
pub fn run(cmd: &mut Command) -> Vec<u8> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// SplitMix64: deterministic, seedable, good enough for test-case generation.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
    pub fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }
}

/// A seed from `$Q7EMU_SEED` or the clock; printed so a failure can be replayed.
pub fn seed(test: &str) -> u64 {
    let s = std::env::var("Q7EMU_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    eprintln!("{test}: seed {s} (replay with Q7EMU_SEED={s})");
    s
}

/// A fresh temporary directory, removed when dropped.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `$TMPDIR/q7-<tag>-<pid>-<n>`.
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let d = std::env::temp_dir().join(format!(
            "q7-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        TempDir(d)
    }

    /// A path inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `qemu-system-xtensa` set up as the QEMU oracle of ARCHITECTURE.md "Oracles" for a bare-metal
/// `-M sim` program on the dc233c core: semihosting, no display, serial or monitor. Add
/// `-kernel ELF` and any tracing.
pub fn qemu_system_sim() -> Command {
    let mut cmd = Command::new("qemu-system-xtensa");
    cmd.args(["-M", "sim", "-cpu", "dc233c", "-semihosting"])
        .args(["-display", "none", "-serial", "none", "-monitor", "none"]);
    cmd
}

/// Whether `qemu-system-xtensa` runs, by the rule of [`Requirement::check`] (the test is
/// marked `#[q7_requires::qemu]`).
pub fn qemu_available() -> bool {
    Requirement::Qemu.check()
}

/// Assembly source for `insn` in objdump's syntax, with each PC-relative operand written by
/// `target` (e.g. as a label or a `_start`-relative expression) so gas resolves it.
pub fn source_line(insn: &q7_isa::Insn, target: impl FnMut(u32) -> String) -> String {
    insn.text_with(target)
}

/// Loads the PT_LOAD segments of the ELF file at `path` into a bare-metal core of `config`,
/// with every default guard of `q7emu run-elf` on: the memory limit
/// (`baremetal::DEFAULT_MEMORY_LIMIT`) and the stack region the image's link symbols give
/// (`baremetal::stack_region`). Run with `baremetal::DEFAULT_MAX_CYCLES`, the core is what
/// `q7emu run-elf` runs.
pub fn load_elf(
    path: &std::path::Path,
    config: &'static q7_isa::CoreConfig,
) -> q7_emulator::Core<q7_emulator::FlatMemory> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file =
        q7_loader::ElfFile::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let segments: Vec<q7_emulator::baremetal::LoadSegment<'_>> = file
        .segments
        .iter()
        .filter(|s| s.is_load())
        .map(|s| q7_emulator::baremetal::LoadSegment {
            addr: s.vaddr,
            data: s.data,
            memsz: s.memsz,
            exec: s.is_exec(),
        })
        .collect();
    let mut core = q7_emulator::baremetal::load(config, &segments, file.entry)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    core.stack_region = q7_emulator::baremetal::stack_region(|name| file.global_symbol(name));
    core
}

/// A cluster of `config` with the PT_LOAD segments of the ELF at `path` written into every
/// core (the program's IRAM code and firmware-band data) and every PC at its entry.
pub fn load_cluster(
    path: &std::path::Path,
    config: &q7_emulator::platform::ClusterConfig,
) -> q7_emulator::platform::Cluster {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file =
        q7_loader::ElfFile::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut cluster = q7_emulator::platform::Cluster::new(config).expect("HBM reserved");
    for seg in file
        .segments
        .iter()
        .filter(|s| s.is_load() && !s.data.is_empty())
    {
        cluster
            .load_all(seg.vaddr, seg.data)
            .unwrap_or_else(|e| panic!("segment at {:#x}: {e}", seg.vaddr));
    }
    cluster.set_entry(file.entry);
    cluster
}

/// A C-ordered 1-D `.npy` (format 1.0) of dtype `descr` (e.g. `<f4`) holding `data`, the
/// little-endian bytes of its elements, `size` bytes each.
pub fn npy_1d(descr: &str, size: usize, data: &[u8]) -> Vec<u8> {
    npy(descr, &[(data.len() / size) as u64], data)
}

/// A C-ordered `.npy` (format 1.0) of dtype `descr` and `shape` holding `data`, the
/// little-endian bytes of its elements.
pub fn npy(descr: &str, shape: &[u64], data: &[u8]) -> Vec<u8> {
    let dims: String = shape.iter().map(|d| format!("{d},")).collect();
    let dims = if shape.len() > 1 {
        dims.trim_end_matches(',').replace(',', ", ")
    } else {
        dims
    };
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}");
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut f = b"\x93NUMPY\x01\x00".to_vec();
    f.extend_from_slice(&(h.len() as u16).to_le_bytes());
    f.extend_from_slice(h.as_bytes());
    f.extend_from_slice(data);
    f
}
