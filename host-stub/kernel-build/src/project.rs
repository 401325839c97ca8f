//! The project form of `q7emu build` (examples/sdk/BUILD.md "Projects"): compute sources (the
//! kernels, device C++) and shape sources (host C++) whose `NEURON_LIBRARY(ns, m) { m.def("op",
//! &shape_fn, "kernel_fn"); … }` block registers the library's ops, as torch-neuronx projects
//! are laid out.
//!
//! [`read`] reads the registrations from the shape sources and derives each op's schema from
//! its shape function's C++ declaration: the op is named by the first `m.def` argument, its
//! arguments are the shape function's parameters, and the kernel the op dispatches to is the
//! function the third argument names. It is a small tokenizer over the sources (comments,
//! string and character literals, preprocessor lines skipped; line numbers kept), not a C++
//! parser: it reads exactly the forms examples/sdk/BUILD.md "Projects" lists, and refuses anything else
//! with the file and line. The compiled shape executable lists what the C++ compiler saw
//! (`--list`), and the build compares it with what this reader derived ([`super::shape`]).
//!
//! The rules (torch-neuronx's public ones): one `NEURON_LIBRARY` block in all the shape
//! sources, 1 to [`MAX_OPS`] `m.def` registrations, no namespace named [`RESERVED_NAME`], op
//! names unique; each shape function declared at namespace scope in a shape source, returning
//! a tensor, its parameters of the types of [`param_kind`].

use std::fmt;
use std::path::{Path, PathBuf};

use super::schema::{self, SchemaError};
use super::MAX_OPS;
use q7_tensor::arg_kind::ArgKind;

/// The macro a shape source registers its ops with.
pub const MACRO: &str = "NEURON_LIBRARY";
/// The name a library cannot take, namespace or `--name` (torch-neuronx reserves it for its
/// own ops).
pub const RESERVED_NAME: &str = "builtin";
/// The C++ types a shape function's parameters may have, without `const` and `&`, by the schema
/// kind each gives (examples/sdk/BUILD.md "Projects").
pub const PARAM_TYPES: [(&str, ArgKind); 13] = [
    ("torch::Tensor", ArgKind::Tensor),
    ("at::Tensor", ArgKind::Tensor),
    ("Tensor", ArgKind::Tensor),
    ("torch::Scalar", ArgKind::Scalar),
    ("at::Scalar", ArgKind::Scalar),
    ("c10::Scalar", ArgKind::Scalar),
    ("Scalar", ArgKind::Scalar),
    ("double", ArgKind::Float),
    ("int64_t", ArgKind::Int),
    ("std::int64_t", ArgKind::Int),
    ("long long", ArgKind::Int),
    ("long long int", ArgKind::Int),
    ("bool", ArgKind::Bool),
];

/// The schema kind of the C++ parameter type `ty` (spelled without `const`, `&` and extra
/// spaces), if it is one of [`PARAM_TYPES`].
pub fn param_kind(ty: &str) -> Option<ArgKind> {
    PARAM_TYPES
        .iter()
        .find(|(t, _)| *t == ty.strip_prefix("::").unwrap_or(ty))
        .map(|&(_, k)| k)
}

/// A place in a shape source: the file as given and a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    /// The file as given.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// One `m.def` registration, with the schema derived from its shape function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// The op's name (the first argument).
    pub op: String,
    /// The shape function (the second argument, without `&` and qualification).
    pub shape_fn: String,
    /// The kernel function of the compute sources (the third argument).
    pub kernel: String,
    /// Where the `m.def` is.
    pub at: Loc,
    /// Where the shape function is declared (its definition when there is one).
    pub shape_at: Loc,
    /// The op's arguments: the shape function's parameters, named as it names them (`argN`
    /// for an unnamed one).
    pub args: Vec<schema::Arg>,
}

impl Registration {
    /// The op's schema text, e.g. `relu_forward(Tensor t_in) -> Tensor`.
    pub fn schema(&self) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| format!("{} {}", a.kind.spellings()[0], a.name))
            .collect();
        format!("{}({}) -> Tensor", self.op, args.join(", "))
    }
}

/// What the shape sources register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The library's namespace (`torch.ops.<ns>.<op>`).
    pub namespace: String,
    /// Where its `NEURON_LIBRARY` is.
    pub at: Loc,
    /// The registrations, in source order (FunctionId order).
    pub ops: Vec<Registration>,
}

/// Why the shape sources cannot be read as a project, naming the file and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProjectError {
    /// A shape source cannot be read.
    #[error("{}: {why}", .file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// Why.
        why: String,
    },
    /// No registration block.
    #[error("no {MACRO}(ns, m) {{ m.def(...); }} block in the shape sources {}", list(.files))]
    NoLibrary {
        /// The shape sources.
        files: Vec<PathBuf>,
    },
    /// More than one registration block.
    #[error("{second}: a second {MACRO} block, {second_ns:?}: a build is one library, and {first} already registers {first_ns:?}")]
    TwoLibraries {
        /// The first block.
        first: Loc,
        /// Its namespace.
        first_ns: String,
        /// The second block.
        second: Loc,
        /// Its namespace.
        second_ns: String,
    },
    /// A form the reader does not take.
    #[error("{at}: {what}")]
    Syntax {
        /// Where.
        at: Loc,
        /// What was expected and found.
        what: String,
    },
    /// The reserved namespace.
    #[error("{at}: the library namespace {RESERVED_NAME:?} is reserved for torch-neuronx's own ops: rename it")]
    Reserved {
        /// The block.
        at: Loc,
    },
    /// A namespace that is not a C identifier.
    #[error("{at}: the library namespace {ns:?} is not a C identifier")]
    Namespace {
        /// The block.
        at: Loc,
        /// The namespace.
        ns: String,
    },
    /// No registration.
    #[error("{at}: {MACRO}({ns}, …) registers no op: add m.def(\"op\", &shape_fn, \"kernel_fn\")")]
    NoOps {
        /// The block.
        at: Loc,
        /// The namespace.
        ns: String,
    },
    /// Too many registrations.
    #[error("{at}: a library has at most {MAX_OPS} ops, and this m.def is op {count} of {MACRO}({ns}, …) ({block})")]
    TooMany {
        /// The first registration past the limit.
        at: Loc,
        /// Its number.
        count: usize,
        /// The namespace.
        ns: String,
        /// The block.
        block: Loc,
    },
    /// An op registered twice.
    #[error("{second}: op {op:?} is registered twice (first at {first})")]
    Duplicate {
        /// The op.
        op: String,
        /// The first registration.
        first: Loc,
        /// The second.
        second: Loc,
    },
    /// A shape function declared nowhere.
    #[error("{at}: m.def({op:?}, &{shape_fn}, …): shape function {shape_fn} is not declared at namespace scope in the shape sources {}", list(.files))]
    ShapeFnNotFound {
        /// The registration.
        at: Loc,
        /// The op.
        op: String,
        /// The function.
        shape_fn: String,
        /// The shape sources.
        files: Vec<PathBuf>,
    },
    /// Two declarations of a shape function with different parameters.
    #[error(transparent)]
    Overloaded(Box<Overloaded>),
    /// A parameter type the schema cannot express.
    #[error(transparent)]
    UnsupportedType(Box<UnsupportedType>),
    /// A return type other than a tensor.
    #[error(transparent)]
    ReturnType(Box<ReturnType>),
    /// A default argument.
    #[error("{at}: shape function {shape_fn} (op {op:?}): parameter {index} has a default value: every argument comes from the invocation, so remove it")]
    DefaultValue {
        /// The declaration.
        at: Loc,
        /// The function.
        shape_fn: String,
        /// The op.
        op: String,
        /// 1-based parameter index.
        index: usize,
    },
    /// The derived schema is refused (a name C++ or the wrapper cannot take, too many
    /// arguments, …).
    #[error("{at}: m.def({op:?}, …): {source}")]
    Schema {
        /// The registration.
        at: Loc,
        /// The op.
        op: String,
        /// Why.
        source: SchemaError,
    },
}

/// Two declarations of a shape function with different parameters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{second}: shape function {shape_fn} is declared with parameters ({second_params}), but {first} declares ({first_params}): overloads cannot be registered")]
pub struct Overloaded {
    /// The function.
    pub shape_fn: String,
    /// The first declaration.
    pub first: Loc,
    /// Its parameter types.
    pub first_params: String,
    /// The other.
    pub second: Loc,
    /// Its parameter types.
    pub second_params: String,
}

/// A shape function parameter type the schema cannot express.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: shape function {shape_fn} (op {op:?}, {reg}): parameter {index} has type `{ty}`, which no op argument has{hint} (supported: {})", supported())]
pub struct UnsupportedType {
    /// The declaration.
    pub at: Loc,
    /// The function.
    pub shape_fn: String,
    /// The op.
    pub op: String,
    /// The registration.
    pub reg: Loc,
    /// 1-based parameter index.
    pub index: usize,
    /// The type as written.
    pub ty: String,
    /// What to write instead, when there is an obvious choice.
    pub hint: String,
}

/// A shape function returning something else than a tensor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: shape function {shape_fn} (op {op:?}, {reg}) returns `{ty}`: a shape function returns one torch::Tensor")]
pub struct ReturnType {
    /// The declaration.
    pub at: Loc,
    /// The function.
    pub shape_fn: String,
    /// The op.
    pub op: String,
    /// The registration.
    pub reg: Loc,
    /// The type as written.
    pub ty: String,
}

fn list(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn supported() -> String {
    [
        "torch::Tensor",
        "const torch::Tensor&",
        "at::Tensor",
        "torch::Scalar",
        "const torch::Scalar&",
        "double",
        "int64_t",
        "bool",
    ]
    .join(", ")
}

// ---------------------------------------------------------------------------------------------
// Tokens.

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Str(String),
    Num(String),
    Punct(&'static str),
    Other(char),
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) | Tok::Num(s) => format!("`{s}`"),
            Tok::Str(s) => format!("the string {s:?}"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Other(c) => format!("`{c}`"),
        }
    }
}

const PUNCTS: [&str; 22] = [
    "::", "->", "&&", "(", ")", "{", "}", "[", "]", "<", ">", ",", ";", "&", "*", "=", ".", ":",
    "~", "!", "+", "-",
];

/// The tokens of `text` with their 1-based lines: comments, preprocessor lines (with their
/// continuations) and character literals skipped; a string literal is one token (its escapes
/// kept as written, adjacent literals not joined).
fn tokenize(file: &Path, text: &str) -> Result<Vec<(Tok, usize)>, ProjectError> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1usize);
    let mut line_start = true;
    let err = |line: usize, what: &str| ProjectError::Syntax {
        at: Loc {
            file: file.to_path_buf(),
            line,
        },
        what: what.to_string(),
    };
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            line_start = true;
            i += 1;
            continue;
        }
        if ch.is_whitespace() {
            i += 1;
            continue;
        }
        if ch == '#' && line_start {
            // A preprocessor line, with its backslash continuations.
            while i < c.len() && c[i] != '\n' {
                if c[i] == '\\' && c.get(i + 1) == Some(&'\n') {
                    line += 1;
                    i += 1;
                } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    // A block comment on a directive line may span lines.
                    i += 2;
                    while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                        if c[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            continue;
        }
        line_start = false;
        if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if ch == '/' && c.get(i + 1) == Some(&'*') {
            let start = line;
            i += 2;
            loop {
                match c.get(i) {
                    None => return Err(err(start, "unterminated /* comment")),
                    Some('*') if c.get(i + 1) == Some(&'/') => {
                        i += 2;
                        break;
                    }
                    Some('\n') => line += 1,
                    _ => {}
                }
                i += 1;
            }
            continue;
        }
        if ch == '"' || ch == '\'' {
            let start = line;
            let mut s = String::new();
            i += 1;
            loop {
                match c.get(i) {
                    None | Some('\n') => {
                        return Err(err(
                            start,
                            if ch == '"' {
                                "unterminated string literal"
                            } else {
                                "unterminated character literal"
                            },
                        ))
                    }
                    Some('\\') => {
                        s.push('\\');
                        if let Some(&n) = c.get(i + 1) {
                            s.push(n);
                        }
                        i += 2;
                    }
                    Some(&q) if q == ch => {
                        i += 1;
                        break;
                    }
                    Some(&o) => {
                        s.push(o);
                        i += 1;
                    }
                }
            }
            if ch == '"' {
                out.push((Tok::Str(s), start));
            }
            continue;
        }
        if ch.is_ascii_alphabetic() || ch == '_' {
            let s: String = c[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                .collect();
            i += s.len();
            out.push((Tok::Ident(s), line));
            continue;
        }
        if ch.is_ascii_digit() {
            let s: String = c[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == '.' || **c == '\'')
                .collect();
            i += s.chars().count();
            out.push((Tok::Num(s), line));
            continue;
        }
        if let Some(p) = PUNCTS
            .iter()
            .find(|p| c[i..].iter().take(p.len()).copied().eq(p.chars()))
        {
            i += p.len();
            out.push((Tok::Punct(p), line));
            continue;
        }
        out.push((Tok::Other(ch), line));
        i += 1;
    }
    Ok(out)
}

/// One shape source's tokens.
struct Source {
    file: PathBuf,
    toks: Vec<(Tok, usize)>,
}

impl Source {
    fn loc(&self, at: usize) -> Loc {
        let line = self
            .toks
            .get(at)
            .or(self.toks.last())
            .map_or(1, |(_, l)| *l);
        Loc {
            file: self.file.clone(),
            line,
        }
    }

    fn tok(&self, at: usize) -> Option<&Tok> {
        self.toks.get(at).map(|(t, _)| t)
    }

    fn is(&self, at: usize, p: &str) -> bool {
        matches!(self.tok(at), Some(Tok::Punct(q)) if *q == p)
    }

    fn found(&self, at: usize) -> String {
        self.tok(at)
            .map_or_else(|| "the end of the file".to_string(), Tok::describe)
    }

    fn syntax(&self, at: usize, expected: &str) -> ProjectError {
        ProjectError::Syntax {
            at: self.loc(at),
            what: format!("expected {expected}, found {}", self.found(at)),
        }
    }

    fn ident(&self, at: usize, expected: &str) -> Result<String, ProjectError> {
        match self.tok(at) {
            Some(Tok::Ident(s)) => Ok(s.clone()),
            _ => Err(self.syntax(at, expected)),
        }
    }

    fn punct(&self, at: usize, p: &str, context: &str) -> Result<(), ProjectError> {
        if self.is(at, p) {
            Ok(())
        } else {
            Err(self.syntax(at, &format!("`{p}` {context}")))
        }
    }

    fn string(&self, at: usize, expected: &str) -> Result<String, ProjectError> {
        match self.tok(at) {
            Some(Tok::Str(s)) => Ok(s.clone()),
            _ => Err(self.syntax(at, expected)),
        }
    }

    /// The index of the token closing the bracket opened at `open`, if it is closed.
    fn closing(&self, open: usize) -> Option<usize> {
        let mut depth = 0i32;
        for (i, (t, _)) in self.toks.iter().enumerate().skip(open) {
            match t {
                Tok::Punct("(" | "{" | "[") => depth += 1,
                Tok::Punct(")" | "}" | "]") => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// A `NEURON_LIBRARY` block: its namespace and registrations without schemas.
struct Block {
    ns: String,
    at: Loc,
    defs: Vec<(String, String, String, Loc)>,
}

/// Reads the `NEURON_LIBRARY` block starting at token `at` of `src` (its macro name).
fn block(src: &Source, at: usize) -> Result<Block, ProjectError> {
    let loc = src.loc(at);
    src.punct(at + 1, "(", &format!("after {MACRO}"))?;
    let ns = match src.tok(at + 2) {
        Some(Tok::Ident(s)) => s.clone(),
        Some(Tok::Num(s)) => {
            return Err(ProjectError::Namespace {
                at: loc,
                ns: s.clone(),
            })
        }
        _ => return Err(src.syntax(at + 2, "the library namespace")),
    };
    src.punct(at + 3, ",", "after the library namespace")?;
    let m = src.ident(at + 4, "the library variable (`m`)")?;
    src.punct(at + 5, ")", "after the library variable")?;
    src.punct(
        at + 6,
        "{",
        &format!("opening the body of {MACRO}({ns}, {m})"),
    )?;
    let end = src.closing(at + 6).ok_or_else(|| ProjectError::Syntax {
        at: loc.clone(),
        what: format!("the body of {MACRO}({ns}, {m}) is not closed"),
    })?;
    if ns == RESERVED_NAME {
        return Err(ProjectError::Reserved { at: loc });
    }
    let mut defs = Vec::new();
    let mut i = at + 7;
    while i < end {
        if src.is(i, ";") {
            i += 1;
            continue;
        }
        let def_loc = src.loc(i);
        let stmt = format!("`{m}.def(\"op\", &shape_fn, \"kernel_fn\");`");
        if src.tok(i) != Some(&Tok::Ident(m.clone())) || !src.is(i + 1, ".") {
            return Err(src.syntax(
                i,
                &format!("a registration {stmt} (the body of {MACRO} holds only those)"),
            ));
        }
        if src.tok(i + 2) != Some(&Tok::Ident("def".into())) {
            return Err(src.syntax(i + 2, &format!("`def` in {stmt}")));
        }
        src.punct(i + 3, "(", &format!("after `{m}.def`"))?;
        let op = src.string(i + 4, "the op name, a string literal")?;
        src.punct(i + 5, ",", "after the op name")?;
        let mut j = i + 6;
        if src.is(j, "&") {
            j += 1;
        }
        // A qualified name: its last component names the function.
        if src.is(j, "::") {
            j += 1;
        }
        let shape_fn = loop {
            let name = src.ident(j, "the shape function (`&shape_fn`)")?;
            j += 1;
            if src.is(j, "::") {
                j += 1;
            } else {
                break name;
            }
        };
        if src.is(j, ")") {
            return Err(ProjectError::Syntax {
                at: def_loc,
                what: format!(
                    "m.def({op:?}, &{shape_fn}) names no kernel function: the third argument is \
                     the name of the kernel function of the compute sources, e.g. \
                     m.def({op:?}, &{shape_fn}, {op:?})"
                ),
            });
        }
        src.punct(j, ",", "after the shape function")?;
        let kernel = src.string(j + 1, "the kernel function's name, a string literal")?;
        src.punct(j + 2, ")", "after the kernel function's name")?;
        src.punct(j + 3, ";", "after the registration")?;
        defs.push((op, shape_fn, kernel, def_loc));
        i = j + 4;
    }
    Ok(Block { ns, at: loc, defs })
}

/// One declaration of a function found at namespace scope.
struct Decl {
    at: Loc,
    ret: String,
    /// The parameters: the type as written (without the name), its tokens, the name.
    params: Vec<Param>,
    /// Whether it is the definition.
    definition: bool,
}

struct Param {
    ty: String,
    /// `const` and `&` stripped, for [`param_kind`]; `None` when the type has `*` or `&&`.
    bare: Option<String>,
    name: Option<String>,
    default: bool,
}

const TYPE_WORDS: [&str; 9] = [
    "long", "int", "short", "char", "double", "float", "bool", "unsigned", "signed",
];

/// Joins type tokens as C++ is usually written: `torch::Tensor`, `long long`, `const at::Tensor &`.
fn spell(toks: &[Tok]) -> String {
    let mut s = String::new();
    let mut prev_word = false;
    for t in toks {
        let (text, word) = match t {
            Tok::Ident(x) | Tok::Num(x) => (x.clone(), true),
            Tok::Punct(p) => (p.to_string(), false),
            Tok::Str(x) => (format!("{x:?}"), true),
            Tok::Other(c) => (c.to_string(), false),
        };
        if word && prev_word {
            s.push(' ');
        }
        if matches!(t, Tok::Punct("&" | "*" | "&&")) && !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&text);
        prev_word = word;
    }
    s
}

fn param(toks: &[Tok]) -> Param {
    let (toks, default) = match toks.iter().position(|t| *t == Tok::Punct("=")) {
        Some(e) => (&toks[..e], true),
        None => (toks, false),
    };
    // The name is a last identifier that is not part of the type.
    let mut ty_toks = toks.to_vec();
    let mut name = None;
    if let [.., prev, Tok::Ident(last)] = toks {
        let part_of_type = TYPE_WORDS.contains(&last.as_str())
            || last == "const"
            || matches!(prev, Tok::Punct("::"))
            || toks.len() == 1;
        if !part_of_type {
            name = Some(last.clone());
            ty_toks.pop();
        }
    }
    let ty = spell(&ty_toks);
    let pointer = ty_toks
        .iter()
        .any(|t| matches!(t, Tok::Punct("*" | "&&") | Tok::Other(_)));
    let bare = (!pointer).then(|| {
        let core: Vec<Tok> = ty_toks
            .iter()
            .filter(|t| !matches!(t, Tok::Punct("&")) && **t != Tok::Ident("const".into()))
            .cloned()
            .collect();
        spell(&core)
    });
    Param {
        ty,
        bare,
        name,
        default,
    }
}

/// Every namespace-scope declaration or definition of a function named `name` in `src`.
fn declarations(src: &Source, name: &str) -> Vec<Decl> {
    let mut found = Vec::new();
    // Braces: true for a namespace or `extern "C"` body (still namespace scope).
    let mut scopes: Vec<bool> = Vec::new();
    let n = src.toks.len();
    let mut i = 0;
    while i < n {
        match src.tok(i) {
            Some(Tok::Punct("{")) => {
                let ns = (i >= 1 && matches!(src.tok(i - 1), Some(Tok::Str(_))))
                    && (i >= 2 && src.tok(i - 2) == Some(&Tok::Ident("extern".into())))
                    || (i >= 1 && src.tok(i - 1) == Some(&Tok::Ident("namespace".into())))
                    || (i >= 2 && src.tok(i - 2) == Some(&Tok::Ident("namespace".into())));
                scopes.push(ns);
            }
            Some(Tok::Punct("}")) => {
                scopes.pop();
            }
            Some(Tok::Ident(s)) if s == name && scopes.iter().all(|&ns| ns) => {
                if let Some(d) = declaration(src, i) {
                    found.push(d);
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The declaration whose name is token `at`, if it is one: a return type before it (since the
/// previous `;`, `}`, `{` or `)`), a parameter list after it, then `{` or `;`.
fn declaration(src: &Source, at: usize) -> Option<Decl> {
    if !src.is(at + 1, "(") {
        return None;
    }
    let close = src.closing(at + 1)?;
    let definition = src.is(close + 1, "{");
    if !definition && !src.is(close + 1, ";") {
        return None;
    }
    let mut start = at;
    while start > 0 {
        match src.tok(start - 1) {
            Some(Tok::Ident(w)) if w == "return" || w == "namespace" => return None,
            Some(Tok::Ident(_)) | Some(Tok::Punct("::" | "<" | ">" | "&" | "*" | ",")) => {
                start -= 1
            }
            _ => break,
        }
    }
    let ret: Vec<Tok> = src.toks[start..at]
        .iter()
        .map(|(t, _)| t.clone())
        .filter(|t| {
            !matches!(t, Tok::Ident(w) if ["static", "inline", "extern", "constexpr"].contains(&w.as_str()))
        })
        .collect();
    if ret.is_empty() || ret.contains(&Tok::Punct(",")) {
        return None;
    }
    // The parameters, split at the commas outside brackets.
    let mut params = Vec::new();
    let mut cur: Vec<Tok> = Vec::new();
    let mut depth = 0;
    for (t, _) in &src.toks[at + 2..close] {
        match t {
            Tok::Punct("(" | "[" | "{" | "<") => depth += 1,
            Tok::Punct(")" | "]" | "}" | ">") => depth -= 1,
            Tok::Punct(",") if depth == 0 => {
                params.push(param(&cur));
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(t.clone());
    }
    if !cur.is_empty() && cur != [Tok::Ident("void".into())] {
        params.push(param(&cur));
    }
    Some(Decl {
        at: src.loc(at),
        ret: spell(&ret),
        params,
        definition,
    })
}

fn kinds_text(d: &Decl) -> String {
    d.params
        .iter()
        .map(|p| p.ty.clone())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The schema arguments of registration `(op, shape_fn, reg)` from its shape function's
/// declarations in `sources`, and where the one used is.
fn derive(
    sources: &[Source],
    op: &str,
    shape_fn: &str,
    reg: &Loc,
) -> Result<(Vec<schema::Arg>, Loc), ProjectError> {
    let decls: Vec<Decl> = sources
        .iter()
        .flat_map(|s| declarations(s, shape_fn))
        .collect();
    let Some(first) = decls.first() else {
        return Err(ProjectError::ShapeFnNotFound {
            at: reg.clone(),
            op: op.to_string(),
            shape_fn: shape_fn.to_string(),
            files: sources.iter().map(|s| s.file.clone()).collect(),
        });
    };
    let bare =
        |d: &Decl| -> Vec<Option<String>> { d.params.iter().map(|p| p.bare.clone()).collect() };
    if let Some(other) = decls.iter().find(|d| bare(d) != bare(first)) {
        return Err(ProjectError::Overloaded(Box::new(Overloaded {
            shape_fn: shape_fn.to_string(),
            first: first.at.clone(),
            first_params: kinds_text(first),
            second: other.at.clone(),
            second_params: kinds_text(other),
        })));
    }
    let d = decls.iter().find(|d| d.definition).unwrap_or(first);
    if param_kind(&d.ret) != Some(ArgKind::Tensor) {
        return Err(ProjectError::ReturnType(Box::new(ReturnType {
            at: d.at.clone(),
            shape_fn: shape_fn.to_string(),
            op: op.to_string(),
            reg: reg.clone(),
            ty: d.ret.clone(),
        })));
    }
    let mut args = Vec::new();
    for (i, p) in d.params.iter().enumerate() {
        let kind = p.bare.as_deref().and_then(param_kind);
        let Some(kind) = kind else {
            let hint = match p.bare.as_deref() {
                Some("float") => " (a float argument is a C++ double: write `double`)",
                Some("int" | "long" | "int32_t") => {
                    " (an int argument is 64 bits: write `int64_t`)"
                }
                _ => "",
            };
            return Err(ProjectError::UnsupportedType(Box::new(UnsupportedType {
                at: d.at.clone(),
                shape_fn: shape_fn.to_string(),
                op: op.to_string(),
                reg: reg.clone(),
                index: i + 1,
                ty: p.ty.clone(),
                hint: hint.to_string(),
            })));
        };
        if p.default {
            return Err(ProjectError::DefaultValue {
                at: d.at.clone(),
                shape_fn: shape_fn.to_string(),
                op: op.to_string(),
                index: i + 1,
            });
        }
        args.push(schema::Arg {
            name: p.name.clone().unwrap_or_else(|| format!("arg{i}")),
            kind,
        });
    }
    Ok((args, d.at.clone()))
}

/// Reads the project of shape sources `files` (examples/sdk/BUILD.md "Projects"): its one
/// `NEURON_LIBRARY` block, each registration's schema derived from its shape function, every
/// rule of the module documentation checked.
pub fn read(files: &[PathBuf]) -> Result<Project, ProjectError> {
    let mut texts = Vec::new();
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| ProjectError::Read {
            file: f.clone(),
            why: e.to_string(),
        })?;
        let text = String::from_utf8(bytes).map_err(|e| ProjectError::Read {
            file: f.clone(),
            why: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        })?;
        texts.push((f.clone(), text));
    }
    parse(&texts)
}

/// [`read`] of shape sources already read: each a file name (for errors) and its text.
pub fn parse(texts: &[(PathBuf, String)]) -> Result<Project, ProjectError> {
    let sources = texts
        .iter()
        .map(|(file, text)| {
            Ok(Source {
                file: file.clone(),
                toks: tokenize(file, text)?,
            })
        })
        .collect::<Result<Vec<_>, ProjectError>>()?;
    let files: Vec<PathBuf> = texts.iter().map(|(f, _)| f.clone()).collect();
    from_sources(&sources, &files)
}

fn from_sources(sources: &[Source], files: &[PathBuf]) -> Result<Project, ProjectError> {
    let mut blocks: Vec<Block> = Vec::new();
    for src in sources {
        for (i, (t, _)) in src.toks.iter().enumerate() {
            if *t == Tok::Ident(MACRO.into()) {
                let b = block(src, i)?;
                if let Some(first) = blocks.first() {
                    return Err(ProjectError::TwoLibraries {
                        first: first.at.clone(),
                        first_ns: first.ns.clone(),
                        second: b.at,
                        second_ns: b.ns,
                    });
                }
                blocks.push(b);
            }
        }
    }
    let Some(b) = blocks.pop() else {
        return Err(ProjectError::NoLibrary {
            files: files.to_vec(),
        });
    };
    if b.defs.is_empty() {
        return Err(ProjectError::NoOps { at: b.at, ns: b.ns });
    }
    if b.defs.len() > MAX_OPS {
        return Err(ProjectError::TooMany {
            at: b.defs[MAX_OPS].3.clone(),
            count: MAX_OPS + 1,
            ns: b.ns,
            block: b.at,
        });
    }
    let mut ops: Vec<Registration> = Vec::new();
    for (op, shape_fn, kernel, at) in b.defs {
        let mut c = op.chars();
        let ident = c
            .next()
            .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
            && c.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident {
            return Err(ProjectError::Syntax {
                at,
                what: format!(
                    "the op name {op:?} is not a C identifier (the op is called as \
                     torch.ops.{}.<op>)",
                    b.ns
                ),
            });
        }
        if let Some(first) = ops.iter().find(|r| r.op == op) {
            return Err(ProjectError::Duplicate {
                op,
                first: first.at.clone(),
                second: at,
            });
        }
        let (args, shape_at) = derive(sources, &op, &shape_fn, &at)?;
        let r = Registration {
            op,
            shape_fn,
            kernel,
            at,
            shape_at,
            args,
        };
        schema::parse(&r.schema()).map_err(|source| ProjectError::Schema {
            at: r.at.clone(),
            op: r.op.clone(),
            source,
        })?;
        ops.push(r);
    }
    Ok(Project {
        namespace: b.ns,
        at: b.at,
        ops,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The project of `(file, text)` sources.
    fn project(files: &[(&str, &str)]) -> Result<Project, ProjectError> {
        let sources: Vec<Source> = files
            .iter()
            .map(|(f, t)| Source {
                file: PathBuf::from(f),
                toks: tokenize(Path::new(f), t).unwrap(),
            })
            .collect();
        let names: Vec<PathBuf> = files.iter().map(|(f, _)| PathBuf::from(f)).collect();
        from_sources(&sources, &names)
    }

    fn error(files: &[(&str, &str)]) -> String {
        project(files).unwrap_err().to_string()
    }

    /// AWS's tutorial shape file, verbatim.
    const TUTORIAL: &str = r#"#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor relu_fwd_shape(torch::Tensor t_in) {
    torch::Tensor t_out = torch::zeros(t_in.sizes(), torch::kFloat);
    return t_out;
}

torch::Tensor relu_bwd_shape(torch::Tensor t_in, torch::Tensor t_out) {
    torch::Tensor t_grad = torch::zeros(t_in.sizes(), torch::kFloat);
    return t_grad;
}

NEURON_LIBRARY(my_ops, m) {
    m.def("relu_forward", &relu_fwd_shape, "relu_forward");
    m.def("relu_backward", &relu_bwd_shape, "relu_backward");
}
"#;

    #[test]
    fn the_tutorial_shape_file_registers_two_ops_with_their_schemas() {
        let p = project(&[("shape.cpp", TUTORIAL)]).unwrap();
        assert_eq!(p.namespace, "my_ops");
        assert_eq!(p.at.to_string(), "shape.cpp:14");
        let schemas: Vec<String> = p.ops.iter().map(Registration::schema).collect();
        assert_eq!(
            schemas,
            [
                "relu_forward(Tensor t_in) -> Tensor",
                "relu_backward(Tensor t_in, Tensor t_out) -> Tensor"
            ]
        );
        assert_eq!(p.ops[1].kernel, "relu_backward");
        assert_eq!(p.ops[1].shape_fn, "relu_bwd_shape");
        assert_eq!(p.ops[1].at.to_string(), "shape.cpp:16");
        assert_eq!(p.ops[1].shape_at.to_string(), "shape.cpp:9");
    }

    #[test]
    fn every_supported_parameter_type_maps_to_its_schema_kind() {
        let text = r#"
namespace my { // a namespace is namespace scope
static inline at::Tensor mix(const torch::Tensor &a, at::Tensor b, const at::Tensor& c,
    torch::Scalar s, const torch::Scalar &t, c10::Scalar u, double f, int64_t i,
    long long j, bool flag, std::int64_t k);
}
/* a comment with NEURON_LIBRARY(x, m) { } in it */
NEURON_LIBRARY(ns, lib) {
    // m.def("commented", &out, "x");
    lib.def("mix", &my::mix, "mix_kernel");;
}
"#;
        let p = project(&[("s.cpp", text)]).unwrap();
        assert_eq!(
            p.ops[0].schema(),
            "mix(Tensor a, Tensor b, Tensor c, Scalar s, Scalar t, Scalar u, float f, int i, \
             int j, bool flag, int k) -> Tensor"
        );
        assert_eq!(p.ops[0].kernel, "mix_kernel");
        assert_eq!(p.ops[0].shape_at.line, 3);
    }

    #[test]
    fn unnamed_parameters_are_named_by_position_and_the_definition_is_preferred() {
        let text = "torch::Tensor f(torch::Tensor, double);\n\
                    torch::Tensor g(torch::Tensor x);\n\
                    torch::Tensor f(torch::Tensor x, double scale) { return x; }\n\
                    NEURON_LIBRARY(n, m) { m.def(\"f\", &f, \"f\"); m.def(\"g\", g, \"g\"); }";
        let p = project(&[("s.cpp", text)]).unwrap();
        assert_eq!(p.ops[0].schema(), "f(Tensor x, float scale) -> Tensor");
        assert_eq!(p.ops[0].shape_at.line, 3);
        let only_decl = "torch::Tensor f(torch::Tensor, double);\n\
                         NEURON_LIBRARY(n, m) { m.def(\"f\", &f, \"f\"); }";
        assert_eq!(
            project(&[("s.cpp", only_decl)]).unwrap().ops[0].schema(),
            "f(Tensor arg0, float arg1) -> Tensor"
        );
    }

    #[test]
    fn the_block_and_the_functions_may_be_in_different_shape_files() {
        let p = project(&[
            ("a.cpp", "torch::Tensor sa(torch::Tensor t) { return t; }"),
            (
                "b.cpp",
                "NEURON_LIBRARY(two, m) {\n m.def(\"a\", &sa, \"ka\");\n}",
            ),
        ])
        .unwrap();
        assert_eq!(p.ops[0].shape_at.to_string(), "a.cpp:1");
        assert_eq!(p.ops[0].at.to_string(), "b.cpp:2");
    }

    fn defs(n: usize) -> String {
        let mut s = String::from("torch::Tensor s(torch::Tensor t);\nNEURON_LIBRARY(many, m) {\n");
        for i in 0..n {
            s.push_str(&format!("    m.def(\"op{i}\", &s, \"k{i}\");\n"));
        }
        s + "}\n"
    }

    #[test]
    fn a_library_has_at_most_ten_ops() {
        assert_eq!(project(&[("s.cpp", &defs(10))]).unwrap().ops.len(), 10);
        assert_eq!(
            error(&[("s.cpp", &defs(11))]),
            "s.cpp:13: a library has at most 10 ops, and this m.def is op 11 of \
             NEURON_LIBRARY(many, …) (s.cpp:2)"
        );
        assert_eq!(
            error(&[("s.cpp", "NEURON_LIBRARY(none, m) {\n}")]),
            "s.cpp:1: NEURON_LIBRARY(none, …) registers no op: add m.def(\"op\", &shape_fn, \
             \"kernel_fn\")"
        );
    }

    #[test]
    fn the_builtin_namespace_is_refused() {
        assert_eq!(
            error(&[(
                "s.cpp",
                "\nNEURON_LIBRARY(builtin, m) { m.def(\"a\", &s, \"a\"); }"
            )]),
            "s.cpp:2: the library namespace \"builtin\" is reserved for torch-neuronx's own \
             ops: rename it"
        );
    }

    #[test]
    fn one_library_per_build() {
        let one = "torch::Tensor s(torch::Tensor t);\nNEURON_LIBRARY(first, m) { m.def(\"a\", &s, \"a\"); }";
        let two = "\n\nNEURON_LIBRARY(second, m) { m.def(\"b\", &s, \"b\"); }";
        assert_eq!(
            error(&[("a.cpp", one), ("b.cpp", two)]),
            "b.cpp:3: a second NEURON_LIBRARY block, \"second\": a build is one library, and \
             a.cpp:2 already registers \"first\""
        );
        assert_eq!(
            error(&[("a.cpp", "torch::Tensor s(torch::Tensor t);")]),
            "no NEURON_LIBRARY(ns, m) { m.def(...); } block in the shape sources a.cpp"
        );
    }

    #[test]
    fn duplicate_op_names_name_both_registrations() {
        let text = "torch::Tensor s(torch::Tensor t);\nNEURON_LIBRARY(d, m) {\n\
                    m.def(\"a\", &s, \"k1\");\n\
                    m.def(\"a\", &s, \"k2\");\n}";
        assert_eq!(
            error(&[("s.cpp", text)]),
            "s.cpp:4: op \"a\" is registered twice (first at s.cpp:3)"
        );
    }

    #[test]
    fn a_shape_function_that_is_not_declared_is_named_with_its_registration() {
        let text = "torch::Tensor call_site(torch::Tensor t) { return other(t); }\n\
                    NEURON_LIBRARY(d, m) {\n  m.def(\"a\", &other, \"a\");\n}";
        assert_eq!(
            error(&[("s.cpp", text)]),
            "s.cpp:3: m.def(\"a\", &other, …): shape function other is not declared at \
             namespace scope in the shape sources s.cpp"
        );
    }

    #[test]
    fn unsupported_types_name_the_declaration_and_the_type() {
        let text = "torch::Tensor s(torch::Tensor t,\n    std::vector<int64_t> dims);\n\
                    NEURON_LIBRARY(d, m) { m.def(\"a\", &s, \"a\"); }";
        assert_eq!(
            error(&[("s.cpp", text)]),
            "s.cpp:1: shape function s (op \"a\", s.cpp:3): parameter 2 has type \
             `std::vector<int64_t>`, which no op argument has (supported: torch::Tensor, \
             const torch::Tensor&, at::Tensor, torch::Scalar, const torch::Scalar&, double, \
             int64_t, bool)"
        );
        let float = "torch::Tensor s(torch::Tensor t, float k);\n\
                     NEURON_LIBRARY(d, m) { m.def(\"a\", &s, \"a\"); }";
        assert!(error(&[("s.cpp", float)]).contains(
            "parameter 2 has type `float`, which no op argument has (a float argument is a C++ \
             double: write `double`)"
        ));
        let pointer = "torch::Tensor s(const torch::Tensor *t);\n\
                       NEURON_LIBRARY(d, m) { m.def(\"a\", &s, \"a\"); }";
        assert!(
            error(&[("s.cpp", pointer)]).contains("parameter 1 has type `const torch::Tensor *`")
        );
        let ret = "double s(torch::Tensor t);\nNEURON_LIBRARY(d, m) { m.def(\"a\", &s, \"a\"); }";
        assert_eq!(
            error(&[("s.cpp", ret)]),
            "s.cpp:1: shape function s (op \"a\", s.cpp:2) returns `double`: a shape function \
             returns one torch::Tensor"
        );
        let default = "torch::Tensor s(torch::Tensor t, int64_t k = 3);\n\
                       NEURON_LIBRARY(d, m) { m.def(\"a\", &s, \"a\"); }";
        assert_eq!(
            error(&[("s.cpp", default)]),
            "s.cpp:1: shape function s (op \"a\"): parameter 2 has a default value: every \
             argument comes from the invocation, so remove it"
        );
    }

    #[test]
    fn overloaded_shape_functions_are_refused() {
        let text =
            "torch::Tensor s(torch::Tensor t);\ntorch::Tensor s(torch::Tensor t, double k);\n\
                    NEURON_LIBRARY(d, m) { m.def(\"a\", &s, \"a\"); }";
        assert_eq!(
            error(&[("s.cpp", text)]),
            "s.cpp:2: shape function s is declared with parameters (torch::Tensor, double), \
             but s.cpp:1 declares (torch::Tensor): overloads cannot be registered"
        );
    }

    #[test]
    fn malformed_registrations_name_the_line_and_what_was_expected() {
        let e = |body: &str| {
            error(&[(
                "s.cpp",
                &format!("torch::Tensor s(torch::Tensor t);\nNEURON_LIBRARY(d, m) {{\n{body}\n}}"),
            )])
        };
        assert_eq!(
            e("m.def(\"a\", &s);"),
            "s.cpp:3: m.def(\"a\", &s) names no kernel function: the third argument is the name \
             of the kernel function of the compute sources, e.g. m.def(\"a\", &s, \"a\")"
        );
        assert_eq!(
            e("m.def(a, &s, \"a\");"),
            "s.cpp:3: expected the op name, a string literal, found `a`"
        );
        assert_eq!(
            e("int x = 0;"),
            "s.cpp:3: expected a registration `m.def(\"op\", &shape_fn, \"kernel_fn\");` (the \
             body of NEURON_LIBRARY holds only those), found `int`"
        );
        assert_eq!(
            e("m.def(\"a\", &s, \"a\")"),
            "s.cpp:4: expected `;` after the registration, found `}`"
        );
        assert_eq!(
            error(&[(
                "s.cpp",
                "NEURON_LIBRARY(d, m) {\n m.def(\"a\", &s, \"a\");\n"
            )]),
            "s.cpp:1: the body of NEURON_LIBRARY(d, m) is not closed"
        );
        assert_eq!(
            tokenize(Path::new("s.cpp"), "/* never closed\nNEURON_LIBRARY")
                .unwrap_err()
                .to_string(),
            "s.cpp:1: unterminated /* comment"
        );
    }

    #[test]
    fn derived_schemas_are_checked_as_given_ones_are() {
        let text = "torch::Tensor s(torch::Tensor at);\nNEURON_LIBRARY(d, m) {\n m.def(\"a\", &s, \"k\");\n}";
        assert_eq!(
            error(&[("s.cpp", text)]),
            "s.cpp:3: m.def(\"a\", …): bad schema \"a(Tensor at) -> Tensor\" at character 10: \
             argument name `at` is a name the wrapper's declarations use: the wrapper declares \
             the function with it, so rename the argument"
        );
        let text = "torch::Tensor s(torch::Tensor t);\nNEURON_LIBRARY(d, m) {\n m.def(\"not an op\", &s, \"k\");\n}";
        assert_eq!(
            error(&[("s.cpp", text)]),
            "s.cpp:3: the op name \"not an op\" is not a C identifier (the op is called as \
             torch.ops.d.<op>)"
        );
    }

    #[test]
    fn preprocessor_lines_and_strings_do_not_count() {
        let text = "#define NEURON_LIBRARY(ns, m) \\\n   void f()\n\
                    const char *s = \"NEURON_LIBRARY(x, m) {\";\n\
                    torch::Tensor s2(torch::Tensor t);\n\
                    NEURON_LIBRARY(real, m) { m.def(\"a\", &s2, \"a\"); }";
        let p = project(&[("s.cpp", text)]).unwrap();
        assert_eq!(p.namespace, "real");
        assert_eq!(p.at.line, 5);
    }
}
