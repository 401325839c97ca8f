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

pub use q7_environment::toolchain::{default_prefix, Tool, DEFAULT_PREFIX_UNDER_HOME, TOOL_PREFIX};

/// The environment variable naming the toolchain prefix.
pub const PREFIX_ENV: &str = q7_environment::XTENSA_PREFIX.name;

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

impl Toolchain {
    /// Checks that every tool is in `prefix/bin`, naming the first that is not.
    pub fn find(prefix: &Path) -> Result<Toolchain, ToolError> {
        let bin = prefix.join("bin");
        match q7_environment::toolchain::first_missing(prefix) {
            Some(tool) => Err(ToolError::Missing {
                name: tool.file_name(),
                dir: bin,
            }),
            None => Ok(Toolchain { bin }),
        }
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
