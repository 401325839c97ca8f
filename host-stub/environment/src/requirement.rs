//! What a test needs from the machine — the Xtensa toolchain, QEMU, a host C++ compiler — and
//! the one rule when it is missing (DEVELOPING.md "Tests that need tools").
//!
//! A test that needs one is marked with q7-requires' attribute, naming it by
//! [`Requirement::attribute`] (`#[q7_requires::needs(toolchain, qemu)]`). Its build script asks
//! [`Requirement::missing`]: when something is missing and `$Q7EMU_REQUIRE_TOOLCHAIN` is off, the
//! marked tests are compiled `#[ignore]`d with the [`rule`]'s notice as the reason, so they show
//! as ignored, not as passed. In the test, [`Requirement::check`] carries the rule out at run
//! time: with `$Q7EMU_REQUIRE_TOOLCHAIN` on the test fails naming what is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::toolchain;

/// Something a test needs from the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requirement {
    /// Every tool of the windowed Xtensa toolchain ([`toolchain::Tool::ALL`]).
    Toolchain,
    /// `qemu-system-xtensa`, the oracle of ARCHITECTURE.md "Oracles".
    Qemu,
    /// The host C++ compiler, `$CXX` else `g++` (native runs of the SDK's code).
    HostCxx,
}

/// QEMU's system emulator for Xtensa, found on `$PATH`.
pub const QEMU: &str = "qemu-system-xtensa";

impl Requirement {
    /// Every requirement.
    pub const ALL: [Requirement; 3] = [
        Requirement::Toolchain,
        Requirement::Qemu,
        Requirement::HostCxx,
    ];

    /// Its name in q7-requires' attribute (`#[q7_requires::needs(toolchain)]`).
    pub const fn attribute(self) -> &'static str {
        match self {
            Requirement::Toolchain => "toolchain",
            Requirement::Qemu => "qemu",
            Requirement::HostCxx => "host_cxx",
        }
    }

    /// How to get it.
    pub const fn remedy(self) -> &'static str {
        match self {
            Requirement::Toolchain | Requirement::Qemu => "run scripts/setup-toolchain.sh",
            Requirement::HostCxx => "install g++ or set CXX",
        }
    }

    /// What is missing, or `None` when it is there.
    pub fn missing(self) -> Option<String> {
        match self {
            Requirement::Toolchain => {
                let prefix = toolchain::default_prefix();
                toolchain::first_missing(&prefix).map(|t| {
                    format!(
                        "Could not find {} in {}",
                        t.file_name(),
                        prefix.join("bin").display()
                    )
                })
            }
            Requirement::Qemu => (!runs(Path::new(QEMU))).then(|| format!("{QEMU} does not run")),
            Requirement::HostCxx => {
                let cxx = host_cxx();
                (!runs(&cxx))
                    .then(|| format!("the host C++ compiler {} does not run", cxx.display()))
            }
        }
    }

    /// The environment variables [`Requirement::missing`] reads, besides
    /// `$Q7EMU_REQUIRE_TOOLCHAIN` (for a build script's `rerun-if-env-changed`).
    pub fn variables(self) -> &'static [&'static str] {
        match self {
            Requirement::Toolchain => &[crate::XTENSA_PREFIX.name, "HOME"],
            Requirement::Qemu => &["PATH"],
            Requirement::HostCxx => &["CXX", "PATH"],
        }
    }

    /// Files and folders whose change can change [`Requirement::missing`] (for a build script's
    /// `rerun-if-changed`): the tools themselves when they are there; else the folders of
    /// `$PATH` they would appear in, or — for the toolchain — its missing tool, which Cargo
    /// takes as changed on every build until it is installed.
    pub fn watched(self) -> Vec<PathBuf> {
        match self {
            Requirement::Toolchain => {
                let bin = toolchain::default_prefix().join("bin");
                toolchain::Tool::ALL
                    .iter()
                    .map(|t| bin.join(t.file_name()))
                    .collect()
            }
            Requirement::Qemu => on_path(Path::new(QEMU)),
            Requirement::HostCxx => on_path(&host_cxx()),
        }
    }

    /// In a test that needs this: true when it is there, else [`Requirement::absent`].
    pub fn check(self) -> bool {
        self.missing().is_none_or(|missing| self.absent(&missing))
    }

    /// In a test that needs this and finds `missing` (what is not there): the [`rule`] carried
    /// out. With `$Q7EMU_REQUIRE_TOOLCHAIN` on, the test fails naming what is missing.
    /// Otherwise the test was compiled ignored and runs only because `--ignored` asked for it: a
    /// notice on stderr, and false (the test returns). A test that gets here without
    /// `--ignored` is not marked with its attribute, and fails saying so, so that a missing
    /// tool never shows as a pass.
    pub fn absent(self, missing: &str) -> bool {
        match rule(missing, self.remedy()) {
            Err(failure) => panic!("{failure}"),
            Ok(notice) if asked_for_ignored() => {
                eprintln!("NOTICE: {notice}");
                false
            }
            Ok(notice) => panic!(
                "{notice}; this test is not marked #[q7_requires::needs({})], so it would show as \
                 passed without running: mark it (or the tool went missing after the test was \
                 built: rebuild it)",
                self.attribute()
            ),
        }
    }

    /// The [`rule`]'s outcome for this: `Ok(None)` when it is there, else the notice to skip
    /// with, or the failure (what pytest's fixture skips or fails with, python/tests/conftest.py).
    pub fn outcome(self) -> Result<Option<String>, String> {
        self.missing()
            .map(|missing| rule(&missing, self.remedy()))
            .transpose()
    }
}

/// The one rule of a test that needs something and finds `missing` (what is not there): with
/// `$Q7EMU_REQUIRE_TOOLCHAIN` on (CI, `.ci/run`) it fails, `Err` naming what is missing;
/// otherwise it is skipped, `Ok` with the notice saying what is skipped and how to get it
/// (`remedy`). Python's suite skips with the same notice (python/tests/conftest.py).
pub fn rule(missing: &str, remedy: &str) -> Result<String, String> {
    let require = crate::REQUIRE_TOOLCHAIN;
    if require.is_on() {
        return Err(format!("{} is set but {missing}: {remedy}", require.name));
    }
    Ok(format!(
        "skipping: {missing} ({remedy}; set {}=1 to make this a failure)",
        require.name
    ))
}

/// The host C++ compiler: `$CXX`, else `g++`.
pub fn host_cxx() -> PathBuf {
    PathBuf::from(std::env::var_os("CXX").unwrap_or_else(|| "g++".into()))
}

/// Whether `program --version` runs and succeeds.
fn runs(program: &Path) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Where `program` is: itself when it names a folder; else its file in the first folder of
/// `$PATH` that has it, or when none does, every absolute folder of `$PATH`.
fn on_path(program: &Path) -> Vec<PathBuf> {
    if program.components().count() > 1 {
        return vec![program.to_path_buf()];
    }
    let dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(found) = dirs.iter().map(|d| d.join(program)).find(|f| f.is_file()) {
        return vec![found];
    }
    dirs.into_iter()
        .filter(|d| d.is_absolute() && d.is_dir())
        .collect()
}

/// Whether the test binary was asked to run ignored tests.
fn asked_for_ignored() -> bool {
    std::env::args().any(|a| a == "--ignored" || a == "--include-ignored")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_requirement_has_its_own_attribute() {
        let names: Vec<&str> = Requirement::ALL.iter().map(|r| r.attribute()).collect();
        assert_eq!(names, ["toolchain", "qemu", "host_cxx"]);
    }

    #[test]
    fn a_program_named_by_path_is_watched_itself() {
        assert_eq!(
            on_path(Path::new("/opt/cc/bin/g++")),
            [PathBuf::from("/opt/cc/bin/g++")]
        );
    }
}
