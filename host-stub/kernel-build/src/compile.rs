//! Compiling one source (examples/sdk/BUILD.md "Compile", with GCC in place of the vendor
//! compiler).
//!
//! Command: `xtensa-elf-g++ -x <language> <flags of the language> <user cflags>
//! -I<sdk>/include <user -I dirs> -ffile-prefix-map=… -MD -MF <object>.d -o <object> <source>`,
//! run in the build directory, every path absolute; the dependency file lists what the compiler
//! read ([`super::deps`]). The flags ([`COMMON_FLAGS`] and the language's) keep the
//! seed's intent: `-Os`, `-fno-jump-tables` (no jump tables the self-relative image would have
//! to relocate), `-mlongcalls` and `-fpic` (one set of objects links at any window),
//! `-Wall -Werror`, `-g` (the seed always compiles with it; the strip gate looks at the user's
//! cflags only). Ours: freestanding (no hosted library), hidden visibility (every reference
//! binds inside the image), C++14 without exceptions, RTTI or thread-safe statics (the runtime
//! has none of their support). The vendor-only flags (`-stdlib=libc++-e`, `-mcoproc`,
//! `--xtensa-core`, `-Wno-c99-designator`) have no GCC counterpart and are left out: GCC
//! accepts designated initializers in C++14 without a warning (the vendor's `-MMD -MP` become
//! our `-MD -MF`, above). Three warnings that
//! GCC's `-Wall` has for C++ and the vendor's clang 10 `-Wall` has not are relaxed, since
//! kernels written for that compiler trip them under `-Werror`: `-Wsign-compare` (signed
//! indices compared with unsigned counts, `for (int i = 0; i < n; i++)` over a `size_t n`),
//! `-Wunused-but-set-variable` (clang has it only from version 13) and
//! `-Wmaybe-uninitialized` (GCC's flow analysis; clang has no such warning).
//!
//! Reproducibility: each directory the compiler reads (the sources', the `-I` ones) and the
//! build directory (where it runs and writes) are mapped to `.`, the SDK directory to `sdk`,
//! in that order (GCC applies the last matching map), so no absolute path reaches an object —
//! not in `__FILE__`, not in debug information.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::toolchain::{Tool, Toolchain};

/// Flags of every compilation.
pub const COMMON_FLAGS: [&str; 10] = [
    "-Os",
    "-fno-jump-tables",
    "-mlongcalls",
    "-fpic",
    "-ffreestanding",
    "-fvisibility=hidden",
    "-Wall",
    "-Werror",
    "-g",
    "-c",
];

/// A source language, by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// `.cc`, `.cpp`, `.cxx`.
    Cxx,
    /// `.c`.
    C,
    /// `.S` (preprocessed assembly).
    Asm,
}

impl Lang {
    /// The language of `path`, if it is a source.
    pub fn of(path: &Path) -> Option<Lang> {
        match path.extension()?.to_str()? {
            "cc" | "cpp" | "cxx" => Some(Lang::Cxx),
            "c" => Some(Lang::C),
            "S" => Some(Lang::Asm),
            _ => None,
        }
    }

    /// GCC's `-x` name of the language.
    pub const fn gcc_name(self) -> &'static str {
        match self {
            Lang::Cxx => "c++",
            Lang::C => "c",
            Lang::Asm => "assembler-with-cpp",
        }
    }

    /// Flags of the language, after [`COMMON_FLAGS`].
    pub const fn flags(self) -> &'static [&'static str] {
        match self {
            Lang::Cxx => &[
                "-std=c++14",
                "-fno-exceptions",
                "-fno-rtti",
                "-fno-threadsafe-statics",
                "-Wno-sign-compare",
                "-Wno-unused-but-set-variable",
                "-Wno-maybe-uninitialized",
            ],
            Lang::C => &["-std=gnu11"],
            Lang::Asm => &[],
        }
    }
}

/// The `-ffile-prefix-map` options: `dirs` to `.` in order, then `build_dir` to `.`, then
/// `sdk` to `sdk` (GCC applies the last matching one).
pub fn prefix_maps(dirs: &[PathBuf], build_dir: &Path, sdk: &Path) -> Vec<String> {
    let mut maps: Vec<String> = Vec::new();
    let mut add = |dir: &Path, to: &str| {
        let m = format!("-ffile-prefix-map={}={to}", dir.display());
        if !maps.contains(&m) {
            maps.push(m);
        }
    };
    for d in dirs {
        add(d, ".");
    }
    add(build_dir, ".");
    add(sdk, "sdk");
    maps
}

/// What one compilation needs.
#[derive(Debug, Clone)]
pub struct Compilation<'a> {
    /// The source (absolute).
    pub source: &'a Path,
    /// The object to write (absolute).
    pub object: &'a Path,
    /// User cflags, after the fixed ones.
    pub cflags: &'a [String],
    /// Include directories: the SDK's, then the user's (absolute).
    pub includes: &'a [PathBuf],
    /// `-ffile-prefix-map` options ([`prefix_maps`]).
    pub prefix_maps: &'a [String],
    /// Where the compiler runs (the build directory).
    pub cwd: &'a Path,
}

/// The compiler command of `c`; `None` when the source's extension is not a known language.
pub fn command(tools: &Toolchain, c: &Compilation<'_>) -> Option<Command> {
    let lang = Lang::of(c.source)?;
    let mut cmd = tools.command(Tool::Gxx);
    cmd.current_dir(c.cwd)
        .args(["-x", lang.gcc_name()])
        .args(COMMON_FLAGS)
        .args(lang.flags())
        .args(c.cflags);
    for i in c.includes {
        cmd.arg(format!("-I{}", i.display()));
    }
    cmd.args(c.prefix_maps)
        .args(super::deps::flags(&super::deps::depfile(c.object)))
        .arg("-o")
        .arg(c.object)
        .arg(c.source);
    Some(cmd)
}

/// Lines of the compiler's output a failed compilation shows without `--verbose`.
pub const EXCERPT_LINES: usize = 10;
/// Characters of one line shown; a longer line is cut.
pub const EXCERPT_LINE_CHARS: usize = 300;

/// What a failed compilation shows of the compiler's `output`: all of it when `verbose`, else
/// its first [`EXCERPT_LINES`] lines — from two lines before the first `error` line when that
/// comes later — each cut at [`EXCERPT_LINE_CHARS`] characters, and how many lines are left
/// out.
pub fn excerpt(output: &str, verbose: bool) -> String {
    let output = output.trim_end();
    if output.is_empty() {
        return "(the compiler printed nothing)".to_string();
    }
    if verbose {
        return output.to_string();
    }
    let lines: Vec<&str> = output.lines().collect();
    let first_error = lines.iter().position(|l| l.contains("error"));
    let start = match first_error {
        Some(e) if e >= EXCERPT_LINES => e - 2,
        _ => 0,
    };
    let shown = &lines[start..lines.len().min(start + EXCERPT_LINES)];
    let mut out = String::new();
    if start > 0 {
        out.push_str(&format!("… {start} lines before\n"));
    }
    for l in shown {
        match l.char_indices().nth(EXCERPT_LINE_CHARS) {
            Some((cut, _)) => out.push_str(&format!("{}…", &l[..cut])),
            None => out.push_str(l),
        }
        out.push('\n');
    }
    let rest = lines.len() - start - shown.len();
    if rest > 0 || start > 0 {
        out.push_str(&format!(
            "… {rest} more lines (run with --verbose to see the compiler's whole output)"
        ));
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_follow_the_extension() {
        assert_eq!(Lang::of(Path::new("k.cpp")), Some(Lang::Cxx));
        assert_eq!(Lang::of(Path::new("k.cc")), Some(Lang::Cxx));
        assert_eq!(Lang::of(Path::new("k.c")), Some(Lang::C));
        assert_eq!(Lang::of(Path::new("k.S")), Some(Lang::Asm));
        assert_eq!(Lang::of(Path::new("k.s")), None);
        assert_eq!(Lang::of(Path::new("k.h")), None);
    }

    #[test]
    fn an_excerpt_starts_near_the_first_error_and_cuts_long_lines() {
        assert_eq!(excerpt("k.cpp:1: error: x\n", false), "k.cpp:1: error: x");
        assert_eq!(excerpt("", false), "(the compiler printed nothing)");
        let mut lines: Vec<String> = (0..15)
            .map(|i| format!("In file included from h{i}.h"))
            .collect();
        lines.push("k.cpp: In function 'k':".into());
        lines.push(format!("k.cpp:3: error: {}", "x".repeat(400)));
        lines.extend((0..20).map(|i| format!("note {i}")));
        let text = excerpt(&lines.join("\n"), false);
        let shown: Vec<&str> = text.lines().collect();
        assert_eq!(shown[0], "… 14 lines before");
        assert_eq!(shown[1], "In file included from h14.h");
        assert_eq!(shown[2], "k.cpp: In function 'k':");
        assert_eq!(shown[3], format!("k.cpp:3: error: {}…", "x".repeat(284)));
        assert_eq!(shown.len(), 1 + EXCERPT_LINES + 1);
        assert_eq!(
            shown[EXCERPT_LINES + 1],
            "… 13 more lines (run with --verbose to see the compiler's whole output)"
        );
        assert_eq!(excerpt(&lines.join("\n"), true), lines.join("\n"));
    }

    #[test]
    fn prefix_maps_put_the_sdk_last() {
        let m = prefix_maps(
            &[PathBuf::from("/src"), PathBuf::from("/src")],
            Path::new("/b"),
            Path::new("/sdk"),
        );
        assert_eq!(
            m,
            [
                "-ffile-prefix-map=/src=.",
                "-ffile-prefix-map=/b=.",
                "-ffile-prefix-map=/sdk=sdk"
            ]
        );
    }

    #[test]
    fn the_command_orders_fixed_flags_user_flags_includes_and_maps() {
        let tools = Toolchain::for_test(Path::new("/t"));
        let cflags = vec!["-DSTACK_SIZE=8192".to_string()];
        let includes = vec![PathBuf::from("/sdk/include"), PathBuf::from("/inc")];
        let maps = vec!["-ffile-prefix-map=/b=.".to_string()];
        let cmd = command(
            &tools,
            &Compilation {
                source: Path::new("/src/k.cpp"),
                object: Path::new("/b/k.o"),
                cflags: &cflags,
                includes: &includes,
                prefix_maps: &maps,
                cwd: Path::new("/b"),
            },
        )
        .unwrap();
        assert_eq!(
            super::super::toolchain::command_line(&cmd),
            "/t/bin/xtensa-elf-g++ -x c++ -Os -fno-jump-tables -mlongcalls -fpic -ffreestanding \
             -fvisibility=hidden -Wall -Werror -g -c -std=c++14 -fno-exceptions -fno-rtti \
             -fno-threadsafe-statics -Wno-sign-compare -Wno-unused-but-set-variable \
             -Wno-maybe-uninitialized -DSTACK_SIZE=8192 -I/sdk/include -I/inc \
             -ffile-prefix-map=/b=. -MD -MF /b/k.d -o /b/k.o /src/k.cpp"
        );
    }
}
