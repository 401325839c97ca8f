//! Where the windowed Xtensa toolchain is installed, and its tools.
//!
//! The tools are the `xtensa-elf-*` wrappers `scripts/setup-toolchain.sh PREFIX` installs in
//! `PREFIX/bin`. The prefix is `--toolchain PREFIX` (the build driver's), else
//! `$Q7EMU_XTENSA_PREFIX`, else the set-up script's default `$HOME/.cache/xtensa-dc233c` — the
//! same places the tests look (examples/sdk/BUILD.md "Steps").

use std::path::{Path, PathBuf};

/// Prefix of every tool's file name.
pub const TOOL_PREFIX: &str = "xtensa-elf-";
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

/// The prefix named by `$Q7EMU_XTENSA_PREFIX`, else `$HOME/.cache/xtensa-dc233c`.
pub fn default_prefix() -> PathBuf {
    if let Some(p) = crate::XTENSA_PREFIX.get() {
        return PathBuf::from(p);
    }
    let home = std::env::var_os("HOME").unwrap_or_default();
    PathBuf::from(home).join(DEFAULT_PREFIX_UNDER_HOME)
}

/// The first tool of [`Tool::ALL`] that is not a file in `prefix/bin`.
pub fn first_missing(prefix: &Path) -> Option<Tool> {
    let bin = prefix.join("bin");
    Tool::ALL
        .into_iter()
        .find(|t| !bin.join(t.file_name()).is_file())
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
    fn an_empty_prefix_misses_the_compiler_first() {
        let dir = std::env::temp_dir().join(format!("q7-toolchain-empty-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        assert_eq!(first_missing(&dir), Some(Tool::Gxx));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
