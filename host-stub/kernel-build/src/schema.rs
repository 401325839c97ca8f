//! Op schemas: the PyTorch schema strings `q7emu build --schema` takes, e.g.
//! `relu_forward(Tensor t_in) -> Tensor`.
//!
//! Grammar (whitespace allowed between tokens):
//!
//! ```text
//! schema := NAME "(" [ arg { "," arg } ] ")" "->" "Tensor"
//! arg    := TYPE NAME
//! ```
//!
//! `NAME` is a C identifier; `TYPE` is one of [`ArgKind::ALL`]'s spellings. Refused, each with
//! its own message: other types (`str`, `Tensor?`, lists, …), default values (`int k=3`: every
//! argument comes from the invocation's descriptors, so a default could never apply),
//! keyword-only markers (`*`), overload names, a repeated argument name, a name the wrapper's
//! C++ cannot declare ([`cxx_reserved`]: a keyword, or a name C++ reserves), more than
//! [`MAX_ARGS`] arguments (an invocation could never carry them), a return type other
//! than one `Tensor` (the wrapper always returns one tensor, examples/sdk/BUILD.md "The wrapper"). An error names the
//! schema and the 1-based character position of the offending token.

use q7_emulator::platform::map;
use q7_tensor::arg_kind::ArgKind;

/// Most arguments of an op: the descriptors of an invocation ([`map::MAX_ARGS`], 16) less its
/// `OUTPUT` one (PLATFORM.md "ARG_TENSOR descriptor").
pub const MAX_ARGS: usize = map::MAX_ARGS as usize - 1;

/// The keywords of C++ up to C++20, alternative operator spellings included: no name the
/// wrapper declares may be one (the wrapper is C++14, but a `--cflag -std=` may raise it).
pub const CXX_KEYWORDS: [&str; 92] = [
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
];

/// Names the wrapper's declarations use (examples/sdk/BUILD.md "The wrapper"): the namespace
/// and types of its parameters and the stack-size macro.
pub const WRAPPER_NAMES: [&str; 4] = ["at", "int64_t", "uint32_t", "STACK_SIZE"];

/// Why the wrapper's C++ cannot take `name` as the name of a function or parameter, if it
/// cannot: a keyword ([`CXX_KEYWORDS`]), a name its declarations use ([`WRAPPER_NAMES`]), or a
/// name reserved to the compiler and its library (one with `__`, or `_` and a capital first).
pub fn cxx_reserved(name: &str) -> Option<&'static str> {
    if CXX_KEYWORDS.contains(&name) {
        return Some("a C++ keyword");
    }
    if WRAPPER_NAMES.contains(&name) {
        return Some("a name the wrapper's declarations use");
    }
    let mut chars = name.chars();
    if name.contains("__")
        || (chars.next() == Some('_') && chars.next().is_some_and(|c| c.is_ascii_uppercase()))
    {
        return Some("reserved in C++ (it has `__`, or starts with `_` and a capital letter)");
    }
    None
}

/// One argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// Its name in the schema.
    pub name: String,
    /// Its kind.
    pub kind: ArgKind,
}

/// A parsed schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    /// The op's name.
    pub name: String,
    /// Arguments in declared order.
    pub args: Vec<Arg>,
}

/// A schema that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad schema {schema:?} at character {position}: {what}")]
pub struct SchemaError {
    /// The schema as given.
    pub schema: String,
    /// 1-based character position of the offending token (one past the end for a truncated
    /// schema).
    pub position: usize,
    /// What is wrong.
    pub what: String,
}

/// What the tokenizer sees.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    Punct(&'static str),
    Other(char),
    End,
}

struct Parser<'a> {
    schema: &'a str,
    chars: Vec<char>,
    at: usize,
}

const PUNCT: [&str; 9] = ["->", "(", ")", ",", "=", "?", "[", "*", "."];

impl<'a> Parser<'a> {
    fn skip_ws(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
    }

    /// The next token and its 1-based position, without consuming it.
    fn peek(&mut self) -> (Token, usize) {
        self.skip_ws();
        let pos = self.at + 1;
        let Some(&c) = self.chars.get(self.at) else {
            return (Token::End, pos);
        };
        if c.is_ascii_alphabetic() || c == '_' {
            let ident: String = self.chars[self.at..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                .collect();
            return (Token::Ident(ident), pos);
        }
        for p in PUNCT {
            let n = p.chars().count();
            if self.chars[self.at..].iter().take(n).copied().eq(p.chars()) {
                return (Token::Punct(p), pos);
            }
        }
        (Token::Other(c), pos)
    }

    fn bump(&mut self, t: &Token) {
        self.at += match t {
            Token::Ident(s) => s.chars().count(),
            Token::Punct(p) => p.chars().count(),
            Token::Other(_) => 1,
            Token::End => 0,
        };
    }

    fn error(&self, position: usize, what: impl Into<String>) -> SchemaError {
        SchemaError {
            schema: self.schema.to_string(),
            position,
            what: what.into(),
        }
    }

    fn describe(t: &Token) -> String {
        match t {
            Token::Ident(s) => format!("`{s}`"),
            Token::Punct(p) => format!("`{p}`"),
            Token::Other(c) => format!("`{c}`"),
            Token::End => "the end of the schema".to_string(),
        }
    }

    fn ident(&mut self, what: &str) -> Result<(String, usize), SchemaError> {
        let (t, pos) = self.peek();
        match t {
            Token::Ident(s) => {
                self.bump(&Token::Ident(s.clone()));
                Ok((s, pos))
            }
            other => Err(self.error(
                pos,
                format!("expected {what}, found {}", Self::describe(&other)),
            )),
        }
    }

    fn expect(&mut self, p: &'static str, context: &str) -> Result<(), SchemaError> {
        let (t, pos) = self.peek();
        if t == Token::Punct(p) {
            self.bump(&t);
            return Ok(());
        }
        Err(self.error(
            pos,
            format!("expected `{p}` {context}, found {}", Self::describe(&t)),
        ))
    }

    fn arg(&mut self, args: &[Arg]) -> Result<Arg, SchemaError> {
        let (ty, ty_pos) = self.ident("an argument type")?;
        let (next, _) = self.peek();
        let kind = match ArgKind::from_spelling(&ty) {
            Some(ArgKind::Tensor) if next == Token::Punct("?") => return Err(self.error(
                ty_pos,
                "optional tensors (`Tensor?`) are not supported: every argument is one descriptor",
            )),
            Some(_) if next == Token::Punct("[") => {
                return Err(self.error(ty_pos, format!("list types (`{ty}[]`) are not supported")))
            }
            Some(k) => k,
            None => {
                let supported: Vec<&str> = ArgKind::ALL
                    .iter()
                    .flat_map(|k| k.spellings().iter().copied())
                    .collect();
                return Err(self.error(
                    ty_pos,
                    format!(
                        "unsupported argument type `{ty}` (supported: {})",
                        supported.join(", ")
                    ),
                ));
            }
        };
        let (name, name_pos) = self.ident("an argument name")?;
        if let Some(why) = cxx_reserved(&name) {
            return Err(self.error(
                name_pos,
                format!(
                    "argument name `{name}` is {why}: the wrapper declares the function with \
                     it, so rename the argument"
                ),
            ));
        }
        if args.iter().any(|a| a.name == name) {
            return Err(self.error(name_pos, format!("argument `{name}` is declared twice")));
        }
        let (t, pos) = self.peek();
        if t == Token::Punct("=") {
            return Err(self.error(
                pos,
                format!(
                    "default values are not supported (`{name}` must come from the invocation)"
                ),
            ));
        }
        Ok(Arg { name, kind })
    }

    fn schema(&mut self) -> Result<Schema, SchemaError> {
        let (name, name_pos) = self.ident("the op name")?;
        if let Some(why) = cxx_reserved(&name) {
            return Err(self.error(name_pos, format!("op name `{name}` is {why}")));
        }
        let (t, pos) = self.peek();
        if t == Token::Punct(".") {
            return Err(self.error(pos, "overload names are not supported"));
        }
        self.expect("(", "after the op name")?;
        let mut args = Vec::new();
        let (t, pos) = self.peek();
        if t == Token::Punct("*") {
            return Err(self.error(pos, "keyword-only arguments (`*`) are not supported"));
        }
        if t == Token::Punct(")") {
            self.bump(&t);
        } else {
            loop {
                let (_, pos) = self.peek();
                if args.len() == MAX_ARGS {
                    return Err(self.error(
                        pos,
                        format!(
                            "more than {MAX_ARGS} arguments: an invocation carries at most \
                             {} descriptors, the output's included (PLATFORM.md \"ARG_TENSOR \
                             descriptor\")",
                            map::MAX_ARGS
                        ),
                    ));
                }
                let a = self.arg(&args)?;
                args.push(a);
                let (t, pos) = self.peek();
                match t {
                    Token::Punct(",") => {
                        self.bump(&t);
                        let (t, pos) = self.peek();
                        if t == Token::Punct("*") {
                            return Err(
                                self.error(pos, "keyword-only arguments (`*`) are not supported")
                            );
                        }
                    }
                    Token::Punct(")") => {
                        self.bump(&t);
                        break;
                    }
                    other => {
                        return Err(self.error(
                            pos,
                            format!(
                                "expected `,` or `)` after an argument, found {}",
                                Self::describe(&other)
                            ),
                        ))
                    }
                }
            }
        }
        self.expect("->", "before the return type")?;
        let (t, pos) = self.peek();
        match t {
            Token::Ident(ref s) if s == "Tensor" => self.bump(&t),
            other => {
                return Err(self.error(
                    pos,
                    format!(
                        "the return type must be `Tensor`, found {}",
                        Self::describe(&other)
                    ),
                ))
            }
        }
        let (t, pos) = self.peek();
        if t != Token::End {
            return Err(self.error(
                pos,
                format!(
                    "expected the end after the return type, found {}",
                    Self::describe(&t)
                ),
            ));
        }
        Ok(Schema { name, args })
    }
}

/// Parses `schema`.
pub fn parse(schema: &str) -> Result<Schema, SchemaError> {
    Parser {
        schema,
        chars: schema.chars().collect(),
        at: 0,
    }
    .schema()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> (usize, String) {
        let e = parse(s).unwrap_err();
        assert_eq!(e.schema, s);
        (e.position, e.what)
    }

    #[test]
    fn kinds_are_the_sdk_headers_argument_table() {
        let header = std::fs::read_to_string(
            super::super::sdk::default_dir().join("include/q7/customop_abi.h"),
        )
        .unwrap();
        let rows: Vec<Vec<String>> = header
            .lines()
            .map(|l| l.trim_start_matches([' ', '*']).trim_end())
            .skip_while(|l| !l.starts_with("schema type"))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .map(|l| {
                l.split("  ")
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(String::from)
                    .collect()
            })
            .collect();
        let ours: Vec<Vec<String>> = ArgKind::ALL
            .iter()
            .map(|k| {
                vec![
                    k.spellings()[0].to_string(),
                    k.cxx_param().to_string(),
                    format!("{}()", k.next_fn()),
                ]
            })
            .collect();
        assert_eq!(rows, ours);
    }

    #[test]
    fn the_seed_example_parses() {
        let s = parse("relu_forward(Tensor t_in) -> Tensor").unwrap();
        assert_eq!(s.name, "relu_forward");
        assert_eq!(
            s.args,
            [Arg {
                name: "t_in".into(),
                kind: ArgKind::Tensor
            }]
        );
    }

    #[test]
    fn every_kind_parses_in_declared_order() {
        let s =
            parse(" f ( Tensor a,Scalar b , number c, int d, float e,bool f )->Tensor ").unwrap();
        let kinds: Vec<ArgKind> = s.args.iter().map(|a| a.kind).collect();
        assert_eq!(
            kinds,
            [
                ArgKind::Tensor,
                ArgKind::Scalar,
                ArgKind::Scalar,
                ArgKind::Int,
                ArgKind::Float,
                ArgKind::Bool
            ]
        );
        let names: Vec<&str> = s.args.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e", "f"]);
        assert_eq!(parse("f() -> Tensor").unwrap().args, []);
    }

    #[test]
    fn errors_name_the_position() {
        assert_eq!(err("f(str s) -> Tensor").0, 3);
        assert!(err("f(str s) -> Tensor")
            .1
            .contains("unsupported argument type `str`"));
        assert_eq!(err("f(Tensor? t) -> Tensor").0, 3);
        assert_eq!(err("f(int[] t) -> Tensor").0, 3);
        assert_eq!(
            err("f(int k=3) -> Tensor"),
            (
                8,
                "default values are not supported (`k` must come from the invocation)".into()
            )
        );
        assert_eq!(err("f(Tensor a, *, int k) -> Tensor").0, 13);
        assert_eq!(err("f(Tensor a, Tensor a) -> Tensor").0, 20);
        assert_eq!(err("f(Tensor a Tensor b) -> Tensor").0, 12);
        assert_eq!(err("f(Tensor a) -> int").0, 16);
        assert_eq!(err("f(Tensor a) -> (Tensor, Tensor)").0, 16);
        assert_eq!(err("f(Tensor a)").0, 12);
        assert_eq!(err("f(Tensor a) -> Tensor x").0, 23);
        assert_eq!(err("f.out(Tensor a) -> Tensor").0, 2);
        assert_eq!(err("(Tensor a) -> Tensor").0, 1);
        assert_eq!(err("f(Tensor").0, 9);
    }

    #[test]
    fn an_op_takes_at_most_15_arguments_the_descriptors_less_the_output() {
        assert_eq!(MAX_ARGS, 15);
        let args = |n: usize| {
            (0..n)
                .map(|i| format!("Tensor t{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        assert_eq!(
            parse(&format!("f({}) -> Tensor", args(15)))
                .unwrap()
                .args
                .len(),
            15
        );
        let sixteen = format!("f({}) -> Tensor", args(16));
        let (position, what) = err(&sixteen);
        assert_eq!(
            position,
            sixteen.find("Tensor t15").unwrap() + 1,
            "the 16th argument"
        );
        assert_eq!(
            what,
            "more than 15 arguments: an invocation carries at most 16 descriptors, the output's \
             included (PLATFORM.md \"ARG_TENSOR descriptor\")"
        );
        // A long list is refused at its 16th argument, without reading the rest.
        let many = format!("f({}) -> Tensor", args(100_000));
        assert_eq!(err(&many).0, position);
    }

    #[test]
    fn names_cxx_cannot_declare_are_refused_naming_the_argument() {
        assert_eq!(
            err("f(Tensor class) -> Tensor"),
            (
                10,
                "argument name `class` is a C++ keyword: the wrapper declares the function with \
                 it, so rename the argument"
                    .into()
            )
        );
        assert_eq!(
            err("f(int x, float int64_t) -> Tensor"),
            (
                16,
                "argument name `int64_t` is a name the wrapper's declarations use: the wrapper \
                 declares the function with it, so rename the argument"
                    .into()
            )
        );
        assert_eq!(err("f(Tensor and) -> Tensor").0, 10);
        assert!(err("f(Tensor __x) -> Tensor").1.contains("reserved in C++"));
        assert!(err("f(Tensor _X) -> Tensor").1.contains("reserved in C++"));
        assert_eq!(
            err("int(Tensor x) -> Tensor"),
            (1, "op name `int` is a C++ keyword".into())
        );
        assert!(parse("f(Tensor _x, Tensor classes, int new_k) -> Tensor").is_ok());
    }

    #[test]
    fn positions_count_characters_not_bytes() {
        assert_eq!(err("f(Tensor a) -> é").0, 16);
    }

    #[test]
    fn the_message_names_schema_and_position() {
        let e = parse("f(str s) -> Tensor").unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad schema \"f(str s) -> Tensor\" at character 3: unsupported argument type `str` \
             (supported: Tensor, Scalar, number, float, int, bool)"
        );
    }
}
