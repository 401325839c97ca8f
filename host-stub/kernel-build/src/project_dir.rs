//! The project-directory form of `q7emu build` (examples/sdk/BUILD.md "Project directories"):
//! `q7emu build --project DIR` builds an AWS-style project directory as it is.
//!
//! When the directory holds a [`SCRIPT`], its one [`CALL`]`(...)` call says what to build: the
//! arguments of [`LOAD_PARAMS`] (positional in that order, or by keyword) whose values are
//! Python literals — strings, lists or tuples of strings, `True`/`False`/`None` — are read
//! (paths relative to the directory); `build_directory` is not read (the build goes to `-o`,
//! by default `DIR/build`), and a parameter the build needs given by an expression it cannot
//! evaluate (`os.path.join(...)`, a variable) is refused naming the file, line and parameter.
//! It is a tokenizer over the call, not a Python interpreter.
//!
//! Without a script, the directory's C++ sources are the project: those containing
//! [`super::project::MACRO`] are the shape sources, the others the compute sources, and the
//! library is named after the directory.

use std::path::{Path, PathBuf};

use super::project::MACRO;

/// The build script of torch-neuronx's projects.
pub const SCRIPT: &str = "build.py";
/// The call of [`SCRIPT`] that builds the library.
pub const CALL: &str = "custom_op.load";
/// `custom_op.load`'s parameters, in their positional order (torch-neuronx's public API).
pub const LOAD_PARAMS: [&str; 8] = [
    "name",
    "compute_srcs",
    "shape_srcs",
    "extra_cflags",
    "extra_include_paths",
    "build_directory",
    "multicore",
    "verbose",
];
/// The extensions of the C++ sources a directory without a script is built from.
pub const SOURCE_EXTENSIONS: [&str; 3] = ["cpp", "cc", "cxx"];

/// What a project directory builds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProjectDir {
    /// The library's name: the script's `name`, else the directory's name.
    pub name: String,
    /// The compute sources (device C++).
    pub compute: Vec<PathBuf>,
    /// The shape sources (host C++).
    pub shape: Vec<PathBuf>,
    /// `extra_cflags`.
    pub cflags: Vec<String>,
    /// `extra_include_paths`, relative to the directory.
    pub includes: Vec<PathBuf>,
    /// `multicore`.
    pub multicore: bool,
    /// `verbose`.
    pub verbose: bool,
}

/// Why a directory cannot be read as a project, naming the file, line and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProjectDirError {
    /// The directory cannot be listed, or the script read.
    #[error("{}: {why}", .path.display())]
    Read {
        /// The directory or the script.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A script without the call.
    #[error("{}: no {CALL}(...) call: the project's build script names its sources in one", .script.display())]
    NoCall {
        /// The script.
        script: PathBuf,
    },
    /// A script with two calls.
    #[error("{}:{line}: a second {CALL}(...) call (the first is on line {first}): a build is one library", .script.display())]
    TwoCalls {
        /// The script.
        script: PathBuf,
        /// The first call's line.
        first: usize,
        /// The second's.
        line: usize,
    },
    /// The call's text does not tokenize, or has an argument of no known parameter.
    #[error("{}:{line}: {what}", .script.display())]
    Syntax {
        /// The script.
        script: PathBuf,
        /// The line.
        line: usize,
        /// What is wrong.
        what: String,
    },
    /// A parameter given a value of the wrong kind, or an expression that is not a literal.
    #[error("{}:{line}: {param}={expr}: {why}", .script.display())]
    Value {
        /// The script.
        script: PathBuf,
        /// The argument's line.
        line: usize,
        /// The parameter.
        param: &'static str,
        /// The argument's text.
        expr: String,
        /// What was expected.
        why: String,
    },
    /// A call without a parameter the build needs.
    #[error("{}:{line}: {CALL}(...) gives no {param}", .script.display())]
    Missing {
        /// The script.
        script: PathBuf,
        /// The call's line.
        line: usize,
        /// The parameter.
        param: &'static str,
    },
    /// A directory without a script whose sources register no ops, or have no kernels.
    #[error("{}: no {SCRIPT}, and {what} among its C++ sources ({}): a project directory has compute sources and a shape source with {MACRO}(ns, m) {{ ... }}", .dir.display(), list(.sources))]
    Sources {
        /// The directory.
        dir: PathBuf,
        /// What is missing.
        what: &'static str,
        /// The sources found.
        sources: Vec<PathBuf>,
    },
    /// A directory whose name cannot be the library's.
    #[error("{}: the library would be named after the directory, {name:?}, which is not a library name: give --name", .dir.display())]
    DirectoryName {
        /// The directory.
        dir: PathBuf,
        /// Its name.
        name: String,
    },
}

fn list(files: &[PathBuf]) -> String {
    if files.is_empty() {
        return "none".to_string();
    }
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads the project directory `dir`: its [`SCRIPT`] when it has one, else its C++ sources.
/// Paths in the result are `dir` joined with what the project names.
pub fn read(dir: &Path) -> Result<ProjectDir, ProjectDirError> {
    let script = dir.join(SCRIPT);
    if script.is_file() {
        let text = std::fs::read_to_string(&script).map_err(|e| ProjectDirError::Read {
            path: script.clone(),
            why: e.to_string(),
        })?;
        let mut p = read_script(&script, &text)?;
        p.compute = p.compute.iter().map(|f| dir.join(f)).collect();
        p.shape = p.shape.iter().map(|f| dir.join(f)).collect();
        p.includes = p.includes.iter().map(|f| dir.join(f)).collect();
        if p.name.is_empty() {
            p.name = dir_name(dir)?;
        }
        return Ok(p);
    }
    from_sources(dir)
}

/// The library name a directory gives: its last component (of the canonical path, so `.`
/// names the current directory).
fn dir_name(dir: &Path) -> Result<String, ProjectDirError> {
    let full = dir.canonicalize().map_err(|e| ProjectDirError::Read {
        path: dir.to_path_buf(),
        why: e.to_string(),
    })?;
    let name = full
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !ok {
        return Err(ProjectDirError::DirectoryName {
            dir: dir.to_path_buf(),
            name,
        });
    }
    Ok(name)
}

/// A directory without a script: its C++ sources ([`SOURCE_EXTENSIONS`]) in name order, those
/// containing [`MACRO`] the shape sources.
fn from_sources(dir: &Path) -> Result<ProjectDir, ProjectDirError> {
    let read_err = |path: &Path, e: std::io::Error| ProjectDirError::Read {
        path: path.to_path_buf(),
        why: e.to_string(),
    };
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| read_err(dir, e))? {
        let path = entry.map_err(|e| read_err(dir, e))?.path();
        let cxx = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e));
        if cxx && path.is_file() {
            sources.push(path);
        }
    }
    sources.sort();
    let mut p = ProjectDir {
        name: dir_name(dir)?,
        ..ProjectDir::default()
    };
    for s in &sources {
        let bytes = std::fs::read(s).map_err(|e| read_err(s, e))?;
        let registers = bytes.windows(MACRO.len()).any(|w| w == MACRO.as_bytes());
        if registers {
            p.shape.push(s.clone());
        } else {
            p.compute.push(s.clone());
        }
    }
    let missing = if p.shape.is_empty() {
        Some("no shape source")
    } else if p.compute.is_empty() {
        Some("no compute source")
    } else {
        None
    };
    if let Some(what) = missing {
        return Err(ProjectDirError::Sources {
            dir: dir.to_path_buf(),
            what,
            sources,
        });
    }
    Ok(p)
}

/// A Python value the reader evaluates.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Str(String),
    List(Vec<Value>),
    Bool(bool),
    None,
}

/// One argument of the call: its keyword, its text and line, and its value when a literal.
struct Arg {
    keyword: Option<String>,
    text: String,
    line: usize,
    value: Option<Value>,
}

/// Reads the [`CALL`] of the script `text` (named `script` in errors); its paths as the script
/// gives them.
pub fn read_script(script: &Path, text: &str) -> Result<ProjectDir, ProjectDirError> {
    let calls = call_starts(text);
    let Some(&start) = calls.first() else {
        return Err(ProjectDirError::NoCall {
            script: script.to_path_buf(),
        });
    };
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    if let Some(&second) = calls.get(1) {
        return Err(ProjectDirError::TwoCalls {
            script: script.to_path_buf(),
            first: line_of(start),
            line: line_of(second),
        });
    }
    let call_line = line_of(start);
    let args =
        arguments(text, start + CALL.len()).map_err(|(at, what)| ProjectDirError::Syntax {
            script: script.to_path_buf(),
            line: line_of(at),
            what,
        })?;
    let mut given: Vec<Option<&Arg>> = vec![None; LOAD_PARAMS.len()];
    let mut keywords = false;
    for (i, arg) in args.iter().enumerate() {
        let index = match &arg.keyword {
            Some(k) => {
                keywords = true;
                LOAD_PARAMS
                    .iter()
                    .position(|p| p == k)
                    .ok_or_else(|| ProjectDirError::Syntax {
                        script: script.to_path_buf(),
                        line: arg.line,
                        what: format!(
                            "{CALL}(...) has no parameter {k:?} (its parameters: {})",
                            LOAD_PARAMS.join(", ")
                        ),
                    })?
            }
            None if keywords => {
                return Err(ProjectDirError::Syntax {
                    script: script.to_path_buf(),
                    line: arg.line,
                    what: format!("a positional argument, {}, after a keyword one", arg.text),
                })
            }
            None if i >= LOAD_PARAMS.len() => {
                return Err(ProjectDirError::Syntax {
                    script: script.to_path_buf(),
                    line: arg.line,
                    what: format!(
                        "{CALL}(...) takes {} arguments, and {} is argument {}",
                        LOAD_PARAMS.len(),
                        arg.text,
                        i + 1
                    ),
                })
            }
            None => i,
        };
        if given[index].is_some() {
            return Err(ProjectDirError::Syntax {
                script: script.to_path_buf(),
                line: arg.line,
                what: format!("{} is given twice", LOAD_PARAMS[index]),
            });
        }
        given[index] = Some(arg);
    }
    let value = |param: &'static str, why: &str| -> Result<Option<&Value>, ProjectDirError> {
        let index = LOAD_PARAMS.iter().position(|p| *p == param).unwrap();
        let Some(arg) = given[index] else {
            return Ok(None);
        };
        match &arg.value {
            Some(Value::None) => Ok(None),
            Some(v) => Ok(Some(v)),
            None => Err(ProjectDirError::Value {
                script: script.to_path_buf(),
                line: arg.line,
                param,
                expr: arg.text.clone(),
                why: format!("{why}; q7emu reads literals only, not expressions"),
            }),
        }
    };
    let wrong = |param: &'static str, why: &str| {
        let index = LOAD_PARAMS.iter().position(|p| *p == param).unwrap();
        let arg = given[index].expect("a value was read");
        ProjectDirError::Value {
            script: script.to_path_buf(),
            line: arg.line,
            param,
            expr: arg.text.clone(),
            why: why.to_string(),
        }
    };
    let strings = |param: &'static str| -> Result<Vec<String>, ProjectDirError> {
        const WHY: &str = "expected a list of strings";
        match value(param, WHY)? {
            None => Ok(Vec::new()),
            Some(Value::List(items)) => items
                .iter()
                .map(|v| match v {
                    Value::Str(s) => Ok(s.clone()),
                    _ => Err(wrong(param, WHY)),
                })
                .collect(),
            Some(_) => Err(wrong(param, WHY)),
        }
    };
    let flag = |param: &'static str| -> Result<bool, ProjectDirError> {
        const WHY: &str = "expected True or False";
        match value(param, WHY)? {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(wrong(param, WHY)),
        }
    };
    let name = match value("name", "expected a string")? {
        None => String::new(),
        Some(Value::Str(s)) => s.clone(),
        Some(_) => return Err(wrong("name", "expected a string")),
    };
    let p = ProjectDir {
        name,
        compute: strings("compute_srcs")?
            .into_iter()
            .map(PathBuf::from)
            .collect(),
        shape: strings("shape_srcs")?
            .into_iter()
            .map(PathBuf::from)
            .collect(),
        cflags: strings("extra_cflags")?,
        includes: strings("extra_include_paths")?
            .into_iter()
            .map(PathBuf::from)
            .collect(),
        multicore: flag("multicore")?,
        verbose: flag("verbose")?,
    };
    for (param, empty) in [
        ("compute_srcs", p.compute.is_empty()),
        ("shape_srcs", p.shape.is_empty()),
    ] {
        if empty {
            return Err(ProjectDirError::Missing {
                script: script.to_path_buf(),
                line: call_line,
                param,
            });
        }
    }
    Ok(p)
}

/// The byte offsets of each [`CALL`]`(` of `text` outside comments and strings.
fn call_starts(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => i = line_end(b, i),
            q @ (b'\'' | b'"') => i = skip_string(b, i, q),
            _ => {
                let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
                // Bytes, not `str` slices: `i` may sit inside a multi-byte character.
                if word_start && b[i..].starts_with(CALL.as_bytes()) {
                    let after = b[i + CALL.len()..]
                        .iter()
                        .find(|c| **c != b' ' && **c != b'\t');
                    if after == Some(&b'(') {
                        out.push(i);
                    }
                    i += CALL.len();
                    continue;
                }
                i += 1;
            }
        }
    }
    out
}

/// The index of the end of the line of `i` (its `\n`, or the end of the text): where a `#`
/// comment at `i` ends.
fn line_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |n| i + n)
}

/// The index after the string literal quoted by `q` that starts at `i` (its end of text when
/// unterminated; a triple quote spans lines).
fn skip_string(b: &[u8], i: usize, q: u8) -> usize {
    let triple = b.len() >= i + 3 && b[i + 1] == q && b[i + 2] == q;
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < b.len() {
        if b[j] == b'\\' {
            j += 2;
            continue;
        }
        if triple {
            if b.len() >= j + 3 && b[j] == q && b[j + 1] == q && b[j + 2] == q {
                return j + 3;
            }
        } else if b[j] == q || b[j] == b'\n' {
            return j + 1;
        }
        j += 1;
    }
    b.len()
}

/// The arguments of the call whose name ends at `from` (its `(` follows, after blanks), up to
/// the matching `)`; an error is the offset and what is wrong.
fn arguments(text: &str, from: usize) -> Result<Vec<Arg>, (usize, String)> {
    let b = text.as_bytes();
    let mut i = from;
    while b[i] != b'(' {
        i += 1;
    }
    i += 1;
    let mut args = Vec::new();
    loop {
        // One argument: up to a `,` or the `)` at depth zero.
        let start = i;
        let mut depth = 0usize;
        loop {
            let Some(&c) = b.get(i) else {
                return Err((from, format!("{CALL}( is not closed")));
            };
            match c {
                b'#' => {
                    i = line_end(b, i);
                    continue;
                }
                b'\'' | b'"' => {
                    i = skip_string(b, i, c);
                    continue;
                }
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' if depth > 0 => depth -= 1,
                b')' | b',' if depth == 0 => break,
                b']' | b'}' => return Err((i, format!("an unmatched {:?}", c as char))),
                _ => {}
            }
            i += 1;
        }
        let raw = strip_comments(&text[start..i]);
        let trimmed = raw.trim();
        if !trimmed.is_empty() {
            let line = text[..start + raw.len() - raw.trim_start().len()]
                .matches('\n')
                .count()
                + 1;
            args.push(argument(trimmed, line));
        } else if b[i] == b',' {
            return Err((i, "an empty argument".to_string()));
        }
        if b[i] == b')' {
            return Ok(args);
        }
        i += 1;
    }
}

/// `text` with its `#` comments (outside strings) removed.
fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => i = line_end(b, i),
            q @ (b'\'' | b'"') => {
                let end = skip_string(b, i, q);
                out.push_str(&text[i..end]);
                i = end;
            }
            _ => {
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + len]);
                i += len;
            }
        }
    }
    out
}

/// One argument's text: `keyword=value` or `value`.
fn argument(text: &str, line: usize) -> Arg {
    let (keyword, expr) = match text.split_once('=') {
        Some((k, v))
            if !v.starts_with('=')
                && !k.trim().is_empty()
                && k.trim()
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            (Some(k.trim().to_string()), v.trim())
        }
        _ => (None, text),
    };
    let mut parser = Literal {
        s: expr.as_bytes(),
        i: 0,
    };
    let value = parser.value().filter(|_| {
        parser.space();
        parser.i == parser.s.len()
    });
    Arg {
        keyword,
        text: expr.split_whitespace().collect::<Vec<_>>().join(" "),
        line,
        value,
    }
}

/// A Python literal reader: strings (with adjacent ones joined), lists and tuples, `True`,
/// `False`, `None`.
struct Literal<'a> {
    s: &'a [u8],
    i: usize,
}

impl Literal<'_> {
    fn space(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Option<Value> {
        self.space();
        match *self.s.get(self.i)? {
            b'\'' | b'"' => {
                let mut s = self.string()?;
                loop {
                    self.space();
                    match self.s.get(self.i) {
                        Some(b'\'' | b'"') => s.push_str(&self.string()?),
                        _ => return Some(Value::Str(s)),
                    }
                }
            }
            open @ (b'[' | b'(') => {
                let close = if open == b'[' { b']' } else { b')' };
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.space();
                    if self.s.get(self.i) == Some(&close) {
                        self.i += 1;
                        return Some(Value::List(items));
                    }
                    items.push(self.value()?);
                    self.space();
                    match self.s.get(self.i)? {
                        b',' => self.i += 1,
                        c if *c == close => {}
                        _ => return None,
                    }
                }
            }
            _ => {
                let start = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    self.i += 1;
                }
                match &self.s[start..self.i] {
                    b"True" => Some(Value::Bool(true)),
                    b"False" => Some(Value::Bool(false)),
                    b"None" => Some(Value::None),
                    _ => None,
                }
            }
        }
    }

    /// A plain string literal (no prefix, not triple-quoted) with its escapes.
    fn string(&mut self) -> Option<String> {
        let q = self.s[self.i];
        if self.s.get(self.i + 1..self.i + 3) == Some(&[q, q][..]) {
            return None;
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let c = *self.s.get(self.i)?;
            self.i += 1;
            match c {
                b'\\' => {
                    let e = *self.s.get(self.i)?;
                    self.i += 1;
                    match e {
                        b'\\' | b'\'' | b'"' => out.push(e),
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        _ => return None,
                    }
                }
                b'\n' => return None,
                _ if c == q => return String::from_utf8(out).ok(),
                _ => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(text: &str) -> Result<ProjectDir, ProjectDirError> {
        read_script(Path::new("p/build.py"), text)
    }

    /// The build script of AWS's ReLU tutorial, as published.
    const TUTORIAL: &str = "import os\nimport torch_neuronx\nfrom torch_neuronx.xla_impl import custom_op\n\n\
        custom_op.load(\n    name='relu',\n    compute_srcs=['relu.cpp'],\n    shape_srcs=['shape.cpp'],\n    \
        build_directory=os.getcwd(),\n    multicore=True,\n)\n";

    #[test]
    fn the_tutorials_script_gives_name_sources_and_multicore() {
        let p = script(TUTORIAL).unwrap();
        assert_eq!(
            p,
            ProjectDir {
                name: "relu".into(),
                compute: vec!["relu.cpp".into()],
                shape: vec!["shape.cpp".into()],
                multicore: true,
                ..ProjectDir::default()
            }
        );
    }

    #[test]
    fn positional_arguments_tuples_comments_and_joined_strings_are_read() {
        let p = script(
            "from torch_neuronx.xla_impl import custom_op  # custom_op.load(x) in a comment\n\
             custom_op.load ('my' \"_lib\", ('a.cpp', 'b.cpp',),  # the kernels\n\
             [\"shape.cpp\"], ['-O3', '-DX=\\'1\\''], ['inc'], None, False, verbose=True)\n",
        )
        .unwrap();
        assert_eq!(p.name, "my_lib");
        assert_eq!(p.compute, [PathBuf::from("a.cpp"), PathBuf::from("b.cpp")]);
        assert_eq!(p.cflags, ["-O3", "-DX='1'"]);
        assert_eq!(p.includes, [PathBuf::from("inc")]);
        assert!(!p.multicore && p.verbose);
    }

    #[test]
    fn expressions_unknown_parameters_and_missing_sources_are_named_with_their_line() {
        let e = script("custom_op.load(\n  name='r',\n  compute_srcs=glob.glob('*.cpp'),\n  shape_srcs=['s.cpp'])\n")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "p/build.py:3: compute_srcs=glob.glob('*.cpp'): expected a list of strings; q7emu \
             reads literals only, not expressions"
        );
        let e = script(
            "custom_op.load(name='r', compute_srcs=['k.cpp'], shape_srcs=['s.cpp'], multicore=1)",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "p/build.py:1: multicore=1: expected True or False; q7emu reads literals only, not \
             expressions"
        );
        let e = script("custom_op.load(name='r', compute_srcs='k.cpp', shape_srcs=['s.cpp'])")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "p/build.py:1: compute_srcs='k.cpp': expected a list of strings"
        );
        let e = script("\ncustom_op.load(name='r',\n compute=['k.cpp'])").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p/build.py:3: custom_op.load(...) has no parameter \"compute\" (its parameters: \
             name, compute_srcs, shape_srcs, extra_cflags, extra_include_paths, \
             build_directory, multicore, verbose)"
        );
        let e = script("custom_op.load(name='r', compute_srcs=['k.cpp'])").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p/build.py:1: custom_op.load(...) gives no shape_srcs"
        );
        let e = script("import os\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p/build.py: no custom_op.load(...) call: the project's build script names its \
             sources in one"
        );
        let e = script("custom_op.load('a', ['k.cpp'], ['s.cpp'])\nif x:\n    custom_op.load('b', ['k.cpp'], ['s.cpp'])\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p/build.py:3: a second custom_op.load(...) call (the first is on line 1): a build \
             is one library"
        );
        let e = script("custom_op.load(name='r', compute_srcs=['k.cpp'], name='s')").unwrap_err();
        assert_eq!(e.to_string(), "p/build.py:1: name is given twice");
        let e = script("custom_op.load(name='r', ['k.cpp'])").unwrap_err();
        assert_eq!(
            e.to_string(),
            "p/build.py:1: a positional argument, ['k.cpp'], after a keyword one"
        );
        // Found by the fuzz target: a call searched for inside a multi-byte character.
        let e = script("\u{3a2}custom_op.load(\u{3a2}").unwrap_err();
        assert_eq!(e.to_string(), "p/build.py:1: custom_op.load( is not closed");
        let e = script("custom_op.load(name='r',\n compute_srcs=['k.cpp']\n").unwrap_err();
        assert_eq!(e.to_string(), "p/build.py:1: custom_op.load( is not closed");
    }
}
