//! The SDK a build compiles against: `--sdk DIR`, else `$Q7EMU_SDK` (or its old name
//! `$Q7_SDK`), else the repository's `examples/sdk`.
//!
//! | path in the SDK | what the build takes from it |
//! |---|---|
//! | `include/` | the include directory of every compilation (`q7/customop_abi.h`, …) |
//! | `rt/customop/` | the device runtime: every source is compiled and linked into the image |
//! | `rt/ops/` | the element-wise tensor ops (docs/sdk-ops.md): compiled into an archive, linked as needed |
//! | `rt/math/` | the math library (`<math.h>`): compiled into an archive, linked as needed |
//! | `rt/helpers/` | compiler helper routines: compiled into an archive, linked as needed |
//! | `ld/customop.ld` | the linker script of every image window |
//!
//! Runtime sources are the files ending in [`SOURCE_EXTENSIONS`] anywhere below those three
//! directories, in path order.

use std::path::{Path, PathBuf};

/// The environment variable naming the SDK directory.
pub const SDK_ENV: &str = q7_environment::SDK.name;
/// Source file extensions the build compiles.
pub const SOURCE_EXTENSIONS: [&str; 5] = ["c", "cc", "cpp", "cxx", "S"];

/// The SDK a program embedding q7emu set as its default ([`set_default_dir`]).
static DEFAULT_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Makes `dir` the SDK of every build that names none (no `--sdk`, no `$Q7EMU_SDK`), for the
/// life of the process: the Python package sets the SDK its wheel carries (docs/python.md).
/// Only the first call counts; false when an earlier one set another directory.
pub fn set_default_dir(dir: PathBuf) -> bool {
    DEFAULT_DIR.get_or_init(|| dir.clone()) == &dir
}

/// The default SDK: the one [`set_default_dir`] set, else the repository's, where this crate
/// was built from.
pub fn default_dir() -> PathBuf {
    match DEFAULT_DIR.get() {
        Some(dir) => dir.clone(),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sdk"),
    }
}

/// The SDK directory: `flag`, else `$Q7EMU_SDK`, else [`default_dir`].
pub fn locate(flag: Option<&Path>) -> PathBuf {
    flag.map(Path::to_path_buf)
        .or_else(|| q7_environment::SDK.get().map(PathBuf::from))
        .unwrap_or_else(default_dir)
}

/// One part of the SDK runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// `rt/customop`: linked whole.
    Customop,
    /// `rt/ops`: an archive, members linked when referenced.
    Ops,
    /// `rt/math`: an archive, members linked when referenced.
    Math,
    /// `rt/helpers`: an archive, members linked when referenced.
    Helpers,
}

impl Part {
    /// Every part, in link order: the ops call the runtime, the math library and the helper
    /// routines; the math library's members call the helper routines.
    pub const ALL: [Part; 4] = [Part::Customop, Part::Ops, Part::Math, Part::Helpers];

    /// The part's directory under the SDK.
    pub const fn dir(self) -> &'static str {
        match self {
            Part::Customop => "rt/customop",
            Part::Ops => "rt/ops",
            Part::Math => "rt/math",
            Part::Helpers => "rt/helpers",
        }
    }

    /// The part's short name (its object directory under `BUILD_DIR/sdk/`).
    pub const fn name(self) -> &'static str {
        match self {
            Part::Customop => "customop",
            Part::Ops => "ops",
            Part::Math => "math",
            Part::Helpers => "helpers",
        }
    }

    /// The archive the part's objects go into under `BUILD_DIR/sdk/`; none for a part linked
    /// whole.
    pub const fn archive(self) -> Option<&'static str> {
        match self {
            Part::Customop => None,
            Part::Ops => Some(super::OPS_ARCHIVE),
            Part::Math => Some(super::MATH_ARCHIVE),
            Part::Helpers => Some(super::HELPERS_ARCHIVE),
        }
    }
}

/// Whether `path` names a source the build compiles.
pub fn is_source(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e))
}

/// The sources of `part` under `sdk`, relative to the part's directory, sorted; none when the
/// directory does not exist.
pub fn sources(sdk: &Path, part: Part) -> std::io::Result<Vec<PathBuf>> {
    let root = sdk.join(part.dir());
    let mut out = Vec::new();
    if root.is_dir() {
        walk(&root, Path::new(""), &mut out)?;
    }
    out.sort();
    Ok(out)
}

fn walk(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(root.join(rel))? {
        let entry = entry?;
        let rel = rel.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            walk(root, &rel, out)?;
        } else if is_source(&rel) {
            out.push(rel);
        }
    }
    Ok(())
}

/// The object name of runtime source `rel`: its path with `/` turned into `-`, plus `.o`
/// (unique within a part, and unique as an archive member name).
pub fn object_name(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    format!("{}.o", parts.join("-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_sources_are_found_recursively_in_path_order() {
        let d = std::env::temp_dir().join(format!("q7-sdk-walk-{}", std::process::id()));
        let h = d.join("rt/helpers");
        std::fs::create_dir_all(h.join("float")).unwrap();
        for f in ["z.c", "a.S", "float/add.cc", "notes.txt", "b.h"] {
            std::fs::write(h.join(f), "").unwrap();
        }
        let s = sources(&d, Part::Helpers).unwrap();
        assert_eq!(
            s,
            [
                PathBuf::from("a.S"),
                PathBuf::from("float/add.cc"),
                PathBuf::from("z.c")
            ]
        );
        assert_eq!(sources(&d, Part::Customop).unwrap(), Vec::<PathBuf>::new());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn object_names_flatten_the_path() {
        assert_eq!(object_name(Path::new("float/add.cc")), "float-add.cc.o");
        assert_eq!(object_name(Path::new("start.S")), "start.S.o");
    }
}
