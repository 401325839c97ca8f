//! # q7-environment — what a q7emu process reads from its environment
//!
//! The environment variables q7emu reads, in one table (docs/cli.md "Environment"): one
//! prefix, `Q7EMU_`; `Q7_SDK` and `Q7_REQUIRE_TOOLCHAIN`, the names of earlier releases, stay
//! accepted. The variables only the project's own tests, benchmarks and scripts read are
//! DEVELOPING.md's "Environment variables". [`toolchain`]: where the Xtensa toolchain is
//! installed; [`requirement`]: what a test needs from the machine, and the one rule when it is
//! missing.
//!
//! Standard library only, so that the emulator and build scripts can use it.

pub mod requirement;
pub mod toolchain;

use std::ffi::OsString;

/// One environment variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variable {
    /// Its name.
    pub name: &'static str,
    /// The name earlier releases read, still accepted when `name` is not set.
    pub old_name: Option<&'static str>,
    /// What it does (docs/cli.md "Environment" says the same).
    pub what: &'static str,
}

impl Variable {
    /// Its value: under [`Variable::name`], else under the old name.
    pub fn get(&self) -> Option<OsString> {
        std::env::var_os(self.name).or_else(|| self.old_name.and_then(std::env::var_os))
    }

    /// Whether it is set to anything but empty or `0` (a switch).
    pub fn is_on(&self) -> bool {
        self.get().is_some_and(|v| !v.is_empty() && v != "0")
    }
}

/// The SDK a build compiles against when `--sdk` names none (examples/sdk/BUILD.md).
pub const SDK: Variable = Variable {
    name: "Q7EMU_SDK",
    old_name: Some("Q7_SDK"),
    what: "the SDK directory builds compile against when `--sdk` names none",
};

/// Where the windowed Xtensa toolchain is installed when `--toolchain` names no prefix.
pub const XTENSA_PREFIX: Variable = Variable {
    name: "Q7EMU_XTENSA_PREFIX",
    old_name: None,
    what: "the toolchain prefix when `--toolchain` names none (default `~/.cache/xtensa-dc233c`)",
};

/// Makes a missing toolchain fail the tests that need it instead of skipping them.
pub const REQUIRE_TOOLCHAIN: Variable = Variable {
    name: "Q7EMU_REQUIRE_TOOLCHAIN",
    old_name: Some("Q7_REQUIRE_TOOLCHAIN"),
    what: "set to anything but empty or `0`: tests that need the toolchain fail without it",
};

/// Turns tier 2 off for every core a process makes (docs/jit.md "Switch").
pub const JIT: Variable = Variable {
    name: "Q7EMU_JIT",
    old_name: None,
    what: "`off` (or `0`, `false`): the interpreter alone runs every core",
};

/// Names compiled blocks for a host profiler (docs/jit.md "Profiling the host code").
pub const PERF_MAP: Variable = Variable {
    name: "Q7EMU_PERF_MAP",
    old_name: None,
    what: "`1`: each compiled block is named in `/tmp/perf-<pid>.map` for Linux `perf`",
};

/// How long a dispatch runs before its progress line shows.
pub const PROGRESS_AFTER_MS: Variable = Variable {
    name: "Q7EMU_PROGRESS_AFTER_MS",
    old_name: None,
    what: "milliseconds before a long dispatch's progress line shows on a terminal",
};

/// Where the Python package writes the SDK it carries.
pub const CACHE_DIR: Variable = Variable {
    name: "Q7EMU_CACHE_DIR",
    old_name: None,
    what: "Python: where the carried SDK is written (default `~/.cache/q7emu`)",
};

/// Where `q7emu.load` builds when it is given no build directory.
pub const EXTENSIONS_DIR: Variable = Variable {
    name: "Q7EMU_EXTENSIONS_DIR",
    old_name: None,
    what: "Python: where `q7emu.load` builds when given no build directory",
};

/// Makes the pytest plugin write snapshots instead of comparing them.
pub const UPDATE_SNAPSHOTS: Variable = Variable {
    name: "Q7EMU_UPDATE_SNAPSHOTS",
    old_name: None,
    what: "Python: `q7emu_snapshot` writes snapshots instead of comparing them",
};

/// Every variable of the table, in the order docs/cli.md "Environment" lists them.
pub const ALL: [Variable; 9] = [
    SDK,
    XTENSA_PREFIX,
    REQUIRE_TOOLCHAIN,
    JIT,
    PERF_MAP,
    PROGRESS_AFTER_MS,
    CACHE_DIR,
    EXTENSIONS_DIR,
    UPDATE_SNAPSHOTS,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_the_one_prefix() {
        for v in ALL {
            assert!(v.name.starts_with("Q7EMU_"), "{}", v.name);
            assert!(v.old_name.is_none_or(|o| o.starts_with("Q7_")), "{v:?}");
        }
    }
}
