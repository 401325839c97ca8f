//! The windowed Xtensa toolchain `q7emu build` drives: where its tools are and how they run.
//!
//! The tools are the `xtensa-elf-*` wrappers `scripts/setup-toolchain.sh PREFIX` installs in
//! `PREFIX/bin` (Debian's lx106 compiler and binutils switched to the windowed dc233c core).
//! The prefix is `--toolchain PREFIX`, else `$Q7EMU_XTENSA_PREFIX`, else the set-up script's
//! default `$HOME/.cache/xtensa-dc233c` — the same places the tests look. Every tool of
//! [`Tool::ALL`] must be present before anything runs; the first missing one is named
//! ("Could not find xtensa-elf-g++", examples/sdk/BUILD.md "Steps"). Tools run from argument lists,
//! never through a shell.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Prefix of every tool's file name.
pub const TOOL_PREFIX: &str = "xtensa-elf-";
/// The environment variable naming the toolchain prefix.
pub const PREFIX_ENV: &str = q7_conventions::environment::XTENSA_PREFIX.name;
/// The set-up script's default prefix, under `$HOME`.
pub const DEFAULT_PREFIX_UNDER_HOME: &str = ".cache/xtensa-dc233c";

/// One tool of the toolchain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// The C/C++ compiler and link driver.
    Gxx,
    /// Archiver (the SDK helper library).
    Ar,
    /// `strip`, the packager's first step.
    Strip,
    /// `objcopy` (section removal, embedding).
    Objcopy,
    /// `objdump -h` (the packager finds empty sections).
    Objdump,
    /// The assembler (the packager's empty object and alignment shim).
    As,
    /// The linker (the packager's relocatable link).
    Ld,
}

impl Tool {
    /// Every tool, in the order the presence check looks for them.
    pub const ALL: [Tool; 7] = [
        Tool::Gxx,
        Tool::Ar,
        Tool::Strip,
        Tool::Objcopy,
        Tool::Objdump,
        Tool::As,
        Tool::Ld,
    ];

    /// The tool's name without the prefix.
    pub const fn short_name(self) -> &'static str {
        match self {
            Tool::Gxx => "g++",
            Tool::Ar => "ar",
            Tool::Strip => "strip",
            Tool::Objcopy => "objcopy",
            Tool::Objdump => "objdump",
            Tool::As => "as",
            Tool::Ld => "ld",
        }
    }

    /// The tool's file name, e.g. `xtensa-elf-g++`.
    pub fn file_name(self) -> String {
        format!("{TOOL_PREFIX}{}", self.short_name())
    }
}

/// Why a tool is unusable or failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// A tool is not installed.
    #[error("Could not find {name} in {dir} (install the toolchain with scripts/setup-toolchain.sh, or name its prefix with --toolchain or ${PREFIX_ENV})", dir = .dir.display())]
    Missing {
        /// The tool's file name.
        name: String,
        /// Where it was looked for.
        dir: PathBuf,
    },
    /// A tool could not be started.
    #[error("cannot run {}: {source}", .tool.display())]
    Spawn {
        /// The tool.
        tool: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A tool exited with failure.
    #[error("{command} failed ({status}):\n{output}")]
    Failed {
        /// The command line, for the report.
        command: String,
        /// Exit status.
        status: std::process::ExitStatus,
        /// Its standard output and error.
        output: String,
    },
}

/// The located tools.
#[derive(Debug, Clone)]
pub struct Toolchain {
    bin: PathBuf,
}

/// The prefix named by `$Q7EMU_XTENSA_PREFIX`, else `$HOME/.cache/xtensa-dc233c`.
pub fn default_prefix() -> PathBuf {
    if let Some(p) = q7_conventions::environment::XTENSA_PREFIX.get() {
        return PathBuf::from(p);
    }
    let home = std::env::var_os("HOME").unwrap_or_default();
    PathBuf::from(home).join(DEFAULT_PREFIX_UNDER_HOME)
}

/// The one rule of a test that needs a tool and finds `missing` (what is not there): with
/// `$Q7EMU_REQUIRE_TOOLCHAIN` on (CI, `.ci/run`) it fails, `Err` naming what is missing;
/// otherwise it skips, `Ok` with the notice saying what is skipped and how to get it (`remedy`).
pub fn rule(missing: &str, remedy: &str) -> Result<String, String> {
    let require = q7_conventions::environment::REQUIRE_TOOLCHAIN;
    if require.is_on() {
        return Err(format!("{} is set but {missing}: {remedy}", require.name));
    }
    Ok(format!(
        "skipping: {missing} ({remedy}; set {}=1 to make this a failure)",
        require.name
    ))
}

/// [`rule`] in a Rust test: fails it, or prints the notice on stderr and returns (the test
/// then returns too).
pub fn skip_or_fail(missing: &str, remedy: &str) {
    apply(rule(missing, remedy));
}

/// Carries out an outcome of [`rule`] in a Rust test: the notice on stderr, or the failure.
fn apply(outcome: Result<String, String>) {
    match outcome {
        Ok(notice) => eprintln!("NOTICE: {notice}"),
        Err(failure) => panic!("{failure}"),
    }
}

/// [`rule`] for the whole toolchain at [`default_prefix`]: `Ok(None)` when it is installed,
/// else the rule's outcome for its first missing tool (what pytest's fixture skips or fails
/// with, python/tests/conftest.py).
pub fn check_installed() -> Result<Option<String>, String> {
    match Toolchain::find(&default_prefix()) {
        Ok(_) => Ok(None),
        Err(e) => rule(&e.to_string(), "run scripts/setup-toolchain.sh").map(Some),
    }
}

/// Whether the whole toolchain is installed at [`default_prefix`]; when it is not,
/// [`skip_or_fail`] naming the first missing tool, and false.
pub fn installed_or_skip() -> bool {
    match check_installed().transpose() {
        None => true,
        Some(outcome) => {
            apply(outcome);
            false
        }
    }
}

impl Toolchain {
    /// Checks that every tool is in `prefix/bin`, naming the first that is not.
    pub fn find(prefix: &Path) -> Result<Toolchain, ToolError> {
        let bin = prefix.join("bin");
        for tool in Tool::ALL {
            if !bin.join(tool.file_name()).is_file() {
                return Err(ToolError::Missing {
                    name: tool.file_name(),
                    dir: bin,
                });
            }
        }
        Ok(Toolchain { bin })
    }

    /// A toolchain at `prefix` without the presence check (unit tests of command lines).
    #[cfg(test)]
    pub(crate) fn for_test(prefix: &Path) -> Toolchain {
        Toolchain {
            bin: prefix.join("bin"),
        }
    }

    /// Path of `tool`.
    pub fn path(&self, tool: Tool) -> PathBuf {
        self.bin.join(tool.file_name())
    }

    /// A command running `tool`.
    pub fn command(&self, tool: Tool) -> Command {
        Command::new(self.path(tool))
    }
}

/// `cmd` as one line, for reports and `--verbose`.
pub fn command_line(cmd: &Command) -> String {
    let mut line = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        line.push(' ');
        line.push_str(&a.to_string_lossy());
    }
    line
}

/// Runs `cmd` to completion, echoing it to stderr when `verbose`; its stdout on success.
pub fn run(cmd: &mut Command, verbose: bool) -> Result<Vec<u8>, ToolError> {
    if verbose {
        eprintln!("+ {}", command_line(cmd));
    }
    let out = cmd.output().map_err(|source| ToolError::Spawn {
        tool: PathBuf::from(cmd.get_program()),
        source,
    })?;
    if out.status.success() {
        return Ok(out.stdout);
    }
    let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stderr));
    Err(ToolError::Failed {
        command: command_line(cmd),
        status: out.status,
        output,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_file_names_carry_the_windowed_prefix() {
        let names: Vec<String> = Tool::ALL.iter().map(|t| t.file_name()).collect();
        assert_eq!(
            names,
            [
                "xtensa-elf-g++",
                "xtensa-elf-ar",
                "xtensa-elf-strip",
                "xtensa-elf-objcopy",
                "xtensa-elf-objdump",
                "xtensa-elf-as",
                "xtensa-elf-ld"
            ]
        );
    }

    #[test]
    fn an_empty_prefix_names_the_compiler_first() {
        let dir = std::env::temp_dir().join(format!("q7-toolchain-empty-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        let err = Toolchain::find(&dir).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("Could not find xtensa-elf-g++ in "),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
