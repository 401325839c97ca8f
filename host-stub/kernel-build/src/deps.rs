//! The files a build read (docs/python.md "Build and load"): every compilation writes the
//! compiler's own list of the files it read (`-MD -MF <object>.d`, the make rule GCC emits),
//! and the build gathers them, so a tool deciding whether a build is up to date (the Python
//! package's `q7emu.load`) looks at exactly what the compiler read — every header, wherever it
//! was found — and at nothing else.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The dependency file of a compilation writing `object`: beside it, extension `.d`.
pub fn depfile(object: &Path) -> PathBuf {
    object.with_extension("d")
}

/// The flags asking the compiler to write the files it read to `depfile`.
pub fn flags(depfile: &Path) -> [std::ffi::OsString; 3] {
    ["-MD".into(), "-MF".into(), depfile.as_os_str().to_owned()]
}

/// The prerequisites of the make rule(s) in `text`, as GCC's `-MD` writes them: `target:
/// prerequisite…`, lines continued by a backslash before the newline, a space inside a name
/// escaped as `\ `, `$` as `$$`, `#` as `\#`. Targets are skipped.
pub fn parse(text: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_prerequisites = false;
    let mut chars = text.chars().peekable();
    fn end_word(word: &mut String, out: &mut Vec<PathBuf>, prerequisite: bool) {
        if prerequisite && !word.is_empty() {
            out.push(PathBuf::from(std::mem::take(word)));
        }
        word.clear();
    }
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some('\n') => {
                    chars.next();
                    end_word(&mut word, &mut out, in_prerequisites);
                }
                Some(' ') | Some('#') | Some('\\') => word.push(chars.next().unwrap_or(' ')),
                _ => word.push('\\'),
            },
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                word.push('$');
            }
            ':' if !in_prerequisites && matches!(chars.peek(), Some(' ' | '\n' | '\t') | None) => {
                word.clear();
                in_prerequisites = true;
            }
            ' ' | '\t' => end_word(&mut word, &mut out, in_prerequisites),
            '\n' => {
                end_word(&mut word, &mut out, in_prerequisites);
                in_prerequisites = false;
            }
            _ => word.push(c),
        }
    }
    end_word(&mut word, &mut out, in_prerequisites);
    out
}

/// The files read by the compilations of one build: absolute, each once, in path order; the
/// build's own work directory (the generated wrapper) left out.
#[derive(Debug, Default)]
pub struct Inputs {
    files: BTreeSet<PathBuf>,
}

impl Inputs {
    /// Adds the prerequisites of dependency file `text`, relative ones taken from `cwd` (where
    /// the compiler ran), those under `skip` left out.
    pub fn add(&mut self, text: &str, cwd: &Path, skip: &Path) {
        for p in parse(text) {
            let p = if p.is_absolute() { p } else { cwd.join(p) };
            let p = normalize(&p);
            if !p.starts_with(skip) {
                self.files.insert(p);
            }
        }
    }

    /// The files, in path order.
    pub fn into_vec(self) -> Vec<PathBuf> {
        self.files.into_iter().collect()
    }
}

/// `p` with `.` components dropped and `dir/..` folded lexically (symbolic links are not
/// followed: the compiler opened the path as written).
fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gcc_rule_gives_its_prerequisites_and_not_its_target() {
        let text = "/b/k.o: /src/k.cpp /sdk/include/torch/torch.h \\\n /src/my\\ dir/a.h \
                    /src/cost$$.h /src/x\\#y.h\n";
        assert_eq!(
            parse(text),
            [
                "/src/k.cpp",
                "/sdk/include/torch/torch.h",
                "/src/my dir/a.h",
                "/src/cost$.h",
                "/src/x#y.h"
            ]
            .map(PathBuf::from)
        );
    }

    #[test]
    fn inputs_are_absolute_normalised_sorted_once_and_skip_the_work_directory() {
        let mut inputs = Inputs::default();
        inputs.add(
            "/b/.q7build-1/wrapper.o: /b/.q7build-1/wrapper.cpp /sdk/include/a.h\n",
            Path::new("/b"),
            Path::new("/b/.q7build-1"),
        );
        inputs.add(
            "/b/.q7build-1/k.o: /src/k.cpp /src/../inc/./b.h inc/c.h /sdk/include/a.h\n",
            Path::new("/b"),
            Path::new("/b/.q7build-1"),
        );
        assert_eq!(
            inputs.into_vec(),
            ["/b/inc/c.h", "/inc/b.h", "/sdk/include/a.h", "/src/k.cpp"].map(PathBuf::from)
        );
    }
}
