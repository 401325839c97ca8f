//! The header of a `.npy` file (numpy's `numpy.lib.format`): the magic string `\x93NUMPY`, a
//! format version (1.0, 2.0 or 3.0), the header length (u16 for 1.0, u32 after), then the
//! header, a Python dictionary literal `{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }`
//! padded with spaces and a newline. The data follows the header.
//!
//! The reader is bounded and precise: it reads at most the [`PREAMBLE`] and
//! [`MAX_HEADER_BYTES`] before the data, nests values at most [`MAX_NESTING`] deep, and every
//! error names the byte offset in the file and what was expected there, quoting at most
//! [`FRAGMENT_BYTES`] bytes of what was found.

use std::io::Read;

/// The magic string every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// Bytes before the header of a version 1.0 file: magic, version, u16 length.
pub const PREAMBLE: usize = 10;
/// Longest header read: numpy.load's own default `max_header_size` (10000 bytes); numpy
/// writes headers of a few dozen bytes, padded to 64.
pub const MAX_HEADER_BYTES: usize = 10_000;
/// Most dims of a shape: numpy's `NPY_MAXDIMS` (64).
pub const MAX_DIMS: usize = 64;
/// Deepest nesting of tuples, lists and dictionaries in a header (a structured dtype's
/// descr nests; no header numpy writes for a plain array nests more than 2 levels).
pub const MAX_NESTING: usize = 16;
/// Most bytes of the header an error quotes.
pub const FRAGMENT_BYTES: usize = 40;

/// What the header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The dtype's descr when it is a string (`<f4`), else the header's text of it (a
    /// structured dtype's list), cut to [`FRAGMENT_BYTES`].
    pub descr: Descr,
    /// `fortran_order`.
    pub fortran_order: bool,
    /// `shape`.
    pub shape: Vec<u64>,
    /// The file offset of the first data byte (the end of the header).
    pub data_offset: u64,
}

/// The header's `descr`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Descr {
    /// A plain dtype's string (`<f4`, `|i1`).
    Plain(String),
    /// Anything else (a structured dtype's list of fields), as the header's text, cut.
    Other(String),
}

/// Where and why the header does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderError {
    /// The byte offset in the file.
    pub offset: u64,
    /// What was expected and found there.
    pub what: String,
}

fn at(offset: usize, what: impl Into<String>) -> HeaderError {
    HeaderError {
        offset: offset as u64,
        what: what.into(),
    }
}

fn err<T>(offset: usize, what: impl Into<String>) -> Result<T, HeaderError> {
    Err(at(offset, what))
}

/// At most [`FRAGMENT_BYTES`] of `bytes` from `at`, quoted; `…` says that more follows, and the
/// end of the header says so.
pub fn fragment(bytes: &[u8], at: usize) -> String {
    let rest = bytes.get(at..).unwrap_or_default();
    if rest.is_empty() {
        return "the end of the header".to_string();
    }
    let cut = rest.len().min(FRAGMENT_BYTES);
    let mut text = String::new();
    for c in String::from_utf8_lossy(&rest[..cut]).chars() {
        match c {
            '"' | '\\' => {
                text.push('\\');
                text.push(c);
            }
            c if c.is_control() => text.extend(c.escape_default()),
            c => text.push(c),
        }
    }
    if cut < rest.len() {
        format!("\"{text}\"…")
    } else {
        format!("\"{text}\"")
    }
}

/// Reads into `buf` until it is full or the input ends; the bytes read.
pub(crate) fn fill(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Why [`read`] failed: the input could not be read, or the header is malformed.
#[derive(Debug)]
pub enum ReadError {
    /// The input could not be read.
    Io(std::io::Error),
    /// The header is malformed.
    Header(HeaderError),
}

impl From<HeaderError> for ReadError {
    fn from(e: HeaderError) -> ReadError {
        ReadError::Header(e)
    }
}

/// Reads the preamble and header from `r`, leaving it at the first data byte.
pub fn read(r: &mut impl Read) -> Result<Header, ReadError> {
    let mut pre = [0u8; PREAMBLE + 2];
    let got = fill(r, &mut pre[..8]).map_err(ReadError::Io)?;
    if let Some(i) = (0..MAGIC.len()).find(|&i| i >= got || pre[i] != MAGIC[i]) {
        let found = if got == 0 {
            "an empty file".to_string()
        } else {
            fragment(&pre[..got], 0)
        };
        return Err(ReadError::Header(at(
            i,
            format!(
                "expected the magic string \"\\x93NUMPY\" that starts a .npy file, found {found}"
            ),
        )));
    }
    if got < 8 {
        return Err(ReadError::Header(at(
            got,
            "the file ends inside the preamble (magic string, format version, header length)",
        )));
    }
    let (major, minor) = (pre[6], pre[7]);
    let len_bytes = match major {
        1 => 2,
        2 | 3 => 4,
        _ => {
            return Err(ReadError::Header(at(
                6,
                format!("format version {major}.{minor}: numpy writes 1.0, 2.0 and 3.0"),
            )))
        }
    };
    let got = fill(r, &mut pre[8..8 + len_bytes]).map_err(ReadError::Io)?;
    if got < len_bytes {
        return Err(ReadError::Header(at(
            8 + got,
            format!("the file ends inside the {len_bytes}-byte header length"),
        )));
    }
    let len = pre[8..8 + len_bytes]
        .iter()
        .rev()
        .fold(0usize, |n, &b| n << 8 | usize::from(b));
    let start = 8 + len_bytes;
    if len > MAX_HEADER_BYTES {
        return Err(ReadError::Header(at(
            8,
            format!(
                "header length {len} is over the {MAX_HEADER_BYTES}-byte limit (numpy.load's \
                 max_header_size)"
            ),
        )));
    }
    let mut text = vec![0u8; len];
    let got = fill(r, &mut text).map_err(ReadError::Io)?;
    if got < len {
        return Err(ReadError::Header(at(
            start + got,
            format!(
                "the file ends inside the header: its length says {len} bytes from byte offset \
                 {start}, the file has {got}"
            ),
        )));
    }
    if major == 3 {
        if let Err(e) = std::str::from_utf8(&text) {
            return Err(ReadError::Header(at(
                start + e.valid_up_to(),
                "a version 3.0 header is UTF-8, and this byte is not",
            )));
        }
    }
    Ok(parse(&text, start)?)
}

/// One parsed value of the header, with its span in the header text.
#[derive(Debug)]
struct Value {
    at: usize,
    end: usize,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Str(String),
    Bool(bool),
    None,
    /// A number's text (optional sign, digits, optional `L`).
    Num(String),
    Tuple(Vec<Value>),
    /// A list (only a structured descr has one; its items are not needed).
    List,
    Dict(Vec<(Value, Value)>),
}

/// The parser of the header's Python literal: `base` is the file offset of `text[0]`.
struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
    base: usize,
    depth: usize,
}

impl Parser<'_> {
    fn fail<T>(&self, at: usize, expected: &str) -> Result<T, HeaderError> {
        err(
            self.base + at,
            format!("expected {expected}, found {}", fragment(self.text, at)),
        )
    }

    fn skip_space(&mut self) {
        while self
            .text
            .get(self.pos)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn value(&mut self) -> Result<Value, HeaderError> {
        self.skip_space();
        let at = self.pos;
        let kind = match self.peek() {
            Some(b'{') => self.container(b'}', true)?,
            Some(b'(') => self.container(b')', false)?,
            Some(b'[') => self.container(b']', false)?,
            Some(q @ (b'\'' | b'"')) => self.string(q)?,
            Some(b'0'..=b'9' | b'-' | b'+') => self.number(),
            Some(b'A'..=b'Z' | b'a'..=b'z' | b'_') => {
                let end = self.text[at..]
                    .iter()
                    .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                    .map_or(self.text.len(), |n| at + n);
                let kind =
                    match &self.text[at..end] {
                        b"True" => Kind::Bool(true),
                        b"False" => Kind::Bool(false),
                        b"None" => Kind::None,
                        _ => return self.fail(
                            at,
                            "a value (a string, a number, True, False, None, a tuple, a list or \
                             a dictionary)",
                        ),
                    };
                self.pos = end;
                kind
            }
            _ => {
                return self.fail(
                    at,
                    "a value (a string, a number, True, False, None, a tuple, a list or a \
                     dictionary)",
                )
            }
        };
        Ok(Value {
            at,
            end: self.pos,
            kind,
        })
    }

    fn string(&mut self, quote: u8) -> Result<Kind, HeaderError> {
        let at = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None | Some(b'\n') => {
                    return err(
                        self.base + at,
                        format!("a string that is not closed: {}", fragment(self.text, at)),
                    )
                }
                Some(b'\\') => {
                    match self.text.get(self.pos + 1) {
                        Some(&c) => out.push(c),
                        None => return self.fail(self.pos + 1, "an escaped character"),
                    }
                    self.pos += 2;
                }
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(Kind::Str(String::from_utf8_lossy(&out).into_owned()));
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn number(&mut self) -> Kind {
        let at = self.pos;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits_end = self.pos;
        if matches!(self.peek(), Some(b'L' | b'l')) {
            self.pos += 1; // Python 2's long suffix, which old numpy headers carry.
        }
        Kind::Num(String::from_utf8_lossy(&self.text[at..digits_end]).into_owned())
    }

    /// A dictionary (`dict`), or a tuple or list closed by `close`; `(x)` without a comma is
    /// `x` itself, as in Python.
    fn container(&mut self, close: u8, dict: bool) -> Result<Kind, HeaderError> {
        let open = self.pos;
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return err(
                self.base + open,
                format!("values nested more than {MAX_NESTING} deep"),
            );
        }
        self.pos += 1;
        let (mut items, mut pairs, mut comma) = (Vec::new(), Vec::new(), false);
        loop {
            self.skip_space();
            if self.peek() == Some(close) {
                self.pos += 1;
                break;
            }
            if (!items.is_empty() || !pairs.is_empty()) && !comma {
                let what = format!("',' or '{}'", close as char);
                return self.fail(self.pos, &what);
            }
            let v = self.value()?;
            if dict {
                self.skip_space();
                if self.peek() != Some(b':') {
                    return self.fail(self.pos, "':' after a dictionary key");
                }
                self.pos += 1;
                let value = self.value()?;
                pairs.push((v, value));
            } else {
                items.push(v);
            }
            self.skip_space();
            comma = self.peek() == Some(b',');
            if comma {
                self.pos += 1;
            }
        }
        self.depth -= 1;
        Ok(match close {
            b'}' => Kind::Dict(pairs),
            b')' if items.len() == 1 && !comma => items.pop().expect("one item").kind,
            b')' => Kind::Tuple(items),
            _ => Kind::List,
        })
    }
}

/// The file offset and text of the dictionary's three entries, checked.
fn parse(text: &[u8], start: usize) -> Result<Header, HeaderError> {
    let mut p = Parser {
        text,
        pos: 0,
        base: start,
        depth: 0,
    };
    let top = p.value()?;
    p.skip_space();
    if p.pos < text.len() {
        return p.fail(p.pos, "the end of the header after its dictionary");
    }
    let at = |v: &Value| start + v.at;
    let Kind::Dict(pairs) = top.kind else {
        return err(
            at(&top),
            format!(
                "expected the header's dictionary {{'descr': …, 'fortran_order': …, 'shape': …}}, \
                 found {}",
                fragment(text, top.at)
            ),
        );
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (k, v) in pairs {
        let slot = match &k.kind {
            Kind::Str(s) if s == "descr" => &mut descr,
            Kind::Str(s) if s == "fortran_order" => &mut fortran,
            Kind::Str(s) if s == "shape" => &mut shape,
            _ => {
                return err(
                    at(&k),
                    format!(
                        "unexpected key {}: a header has the keys 'descr', 'fortran_order' and \
                         'shape'",
                        fragment(&text[..k.end], k.at)
                    ),
                )
            }
        };
        if slot.is_some() {
            return err(
                at(&k),
                format!("key {} repeats", fragment(&text[..k.end], k.at)),
            );
        }
        *slot = Some(v);
    }
    let missing = |key: &str| {
        err(
            start + top.end.saturating_sub(1),
            format!("the header has no '{key}' key"),
        )
    };
    let descr = match descr {
        None => return missing("descr"),
        Some(Value {
            kind: Kind::Str(s), ..
        }) => Descr::Plain(s),
        Some(v) => Descr::Other(fragment(&text[..v.end], v.at)),
    };
    let fortran_order = match fortran {
        None => return missing("fortran_order"),
        Some(Value {
            kind: Kind::Bool(b),
            ..
        }) => b,
        Some(v) => {
            return err(
                at(&v),
                format!(
                    "expected True or False for 'fortran_order', found {}",
                    fragment(&text[..v.end], v.at)
                ),
            )
        }
    };
    let dims = match shape {
        None => return missing("shape"),
        Some(Value {
            kind: Kind::Tuple(dims),
            ..
        }) => dims,
        Some(v) => {
            return err(
                at(&v),
                format!(
                    "expected a tuple of dims for 'shape', found {}",
                    fragment(&text[..v.end], v.at)
                ),
            )
        }
    };
    if dims.len() > MAX_DIMS {
        return err(
            at(&dims[MAX_DIMS]),
            format!(
                "'shape' has {} dims, more than numpy's {MAX_DIMS}",
                dims.len()
            ),
        );
    }
    let mut shape = Vec::with_capacity(dims.len());
    for (i, d) in dims.iter().enumerate() {
        let n = match &d.kind {
            Kind::Num(s) => s.strip_prefix('+').unwrap_or(s).parse::<u64>().ok(),
            _ => None,
        };
        match n {
            Some(n) => shape.push(n),
            None => {
                return err(
                    at(d),
                    format!(
                        "expected dim {i} of 'shape' to be an integer from 0 to 2^64 - 1, found {}",
                        fragment(&text[..d.end], d.at)
                    ),
                )
            }
        }
    }
    Ok(Header {
        descr,
        fortran_order,
        shape,
        data_offset: (start + text.len()) as u64,
    })
}

#[cfg(test)]
pub(crate) mod tests_support {
    /// A version 1.0 file's first bytes with header `h`.
    pub fn v1(h: &str) -> Vec<u8> {
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend_from_slice(&(h.len() as u16).to_le_bytes());
        f.extend_from_slice(h.as_bytes());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::v1;
    use super::*;

    fn error(bytes: &[u8]) -> (u64, String) {
        match read(&mut &bytes[..]) {
            Err(ReadError::Header(e)) => (e.offset, e.what),
            other => panic!("expected a header error, got {other:?}"),
        }
    }

    #[test]
    fn numpys_header_reads() {
        // numpy.save's: padded with spaces to 64 bytes, ending in a newline.
        let mut text = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }".to_string();
        while !(10 + text.len() + 1).is_multiple_of(64) {
            text.push(' ');
        }
        text.push('\n');
        let h = read(&mut &v1(&text)[..]).unwrap();
        assert_eq!(h.descr, Descr::Plain("<f4".into()));
        assert_eq!((h.fortran_order, h.shape), (false, vec![3, 4]));
        assert_eq!(h.data_offset, 10 + text.len() as u64);
        assert_eq!(h.data_offset % 64, 0);
        // 0-d, 1-d, Python 2 longs, double quotes, version 2.0.
        let h = read(&mut &v1("{\"descr\": \"|u1\", \"fortran_order\": True, \"shape\": ()}")[..])
            .unwrap();
        assert_eq!((h.fortran_order, h.shape), (true, vec![]));
        let h =
            read(&mut &v1("{'shape': (5L,), 'descr': '<i8', 'fortran_order': False}")[..]).unwrap();
        assert_eq!(h.shape, vec![5]);
        let mut f = b"\x93NUMPY\x02\x00".to_vec();
        let text = "{'descr': '<f2', 'fortran_order': False, 'shape': (2,)}";
        f.extend_from_slice(&(text.len() as u32).to_le_bytes());
        f.extend_from_slice(text.as_bytes());
        assert_eq!(
            read(&mut &f[..]).unwrap().data_offset,
            12 + text.len() as u64
        );
    }

    #[test]
    fn a_structured_descr_is_kept_as_cut_text() {
        let h = read(
            &mut &v1(
                "{'descr': [('a', '<f4'), ('b', '<i8')], 'fortran_order': False, 'shape': (1,)}",
            )[..],
        )
        .unwrap();
        assert_eq!(
            h.descr,
            Descr::Other("\"[('a', '<f4'), ('b', '<i8')]\"".into())
        );
    }

    #[test]
    fn every_error_names_the_byte_offset_and_what_was_expected() {
        assert_eq!(
            error(b"garbage"),
            (
                0,
                "expected the magic string \"\\x93NUMPY\" that starts a .npy file, found \"garbage\""
                    .into()
            )
        );
        assert_eq!(
            error(b""),
            (
                0,
                "expected the magic string \"\\x93NUMPY\" that starts a .npy file, found an empty file"
                    .into()
            )
        );
        assert_eq!(
            error(b"\x93NUM"),
            (
                4,
                "expected the magic string \"\\x93NUMPY\" that starts a .npy file, found \"\u{fffd}NUM\""
                    .into()
            )
        );
        assert_eq!(
            error(b"\x93NUMPY\x01"),
            (
                7,
                "the file ends inside the preamble (magic string, format version, header length)"
                    .into()
            )
        );
        assert_eq!(
            error(b"\x93NUMPY\x04\x00\x10\x00"),
            (
                6,
                "format version 4.0: numpy writes 1.0, 2.0 and 3.0".into()
            )
        );
        // A header length that lies: the file ends before it.
        let mut lying = v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)}");
        lying[8] = 200;
        assert_eq!(
            error(&lying),
            (
                65,
                "the file ends inside the header: its length says 200 bytes from byte offset 10, \
                 the file has 55"
                    .into()
            )
        );
        let mut huge = b"\x93NUMPY\x02\x00".to_vec();
        huge.extend_from_slice(&0x10_0000u32.to_le_bytes());
        assert_eq!(
            error(&huge),
            (
                8,
                "header length 1048576 is over the 10000-byte limit (numpy.load's max_header_size)"
                    .into()
            )
        );
        assert_eq!(
            error(&v1(
                "{'descr': '<f4', 'fortran_order': Flase, 'shape': (3,)}"
            )),
            (
                44,
                "expected a value (a string, a number, True, False, None, a tuple, a list or a \
                 dictionary), found \"Flase, 'shape': (3,)}\""
                    .into()
            )
        );
        assert_eq!(
            error(&v1("{'descr': '<f4', 'fortran_order': False}")),
            (49, "the header has no 'shape' key".into())
        );
        assert_eq!(
            error(&v1(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3, -1)}"
            )),
            (
                64,
                "expected dim 1 of 'shape' to be an integer from 0 to 2^64 - 1, found \"-1\""
                    .into()
            )
        );
        assert_eq!(
            error(&v1("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,)}")),
            (
                44,
                "expected True or False for 'fortran_order', found \"0\"".into()
            )
        );
        assert_eq!(
            error(&v1("{'descr': '<f4', 'fortran_order': False, 'shape': 3}")),
            (
                60,
                "expected a tuple of dims for 'shape', found \"3\"".into()
            )
        );
        assert_eq!(
            error(&v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}")),
            (
                66,
                "unexpected key \"'x'\": a header has the keys 'descr', 'fortran_order' and 'shape'"
                    .into()
            )
        );
        assert_eq!(
            error(&v1(
                "{'descr': '<f4' 'fortran_order': False, 'shape': (3,)}"
            )),
            (
                26,
                "expected ',' or '}', found \"'fortran_order': False, 'shape': (3,)}\"".into()
            )
        );
    }

    #[test]
    fn deep_nesting_and_long_headers_give_short_messages() {
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        let mut f = b"\x93NUMPY\x02\x00".to_vec();
        f.extend_from_slice(&(deep.len() as u32).to_le_bytes());
        f.extend_from_slice(deep.as_bytes());
        let (offset, what) = error(&f);
        assert_eq!(offset, 12 + 16);
        assert_eq!(what, "values nested more than 16 deep");
        // 4000 dims fit the 10000-byte limit, but not numpy's 64.
        let dims = "1,".repeat(4000);
        let h = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({dims})}}");
        let mut f = b"\x93NUMPY\x02\x00".to_vec();
        f.extend_from_slice(&(h.len() as u32).to_le_bytes());
        f.extend_from_slice(h.as_bytes());
        let (offset, what) = error(&f);
        assert_eq!(offset, 12 + 51 + 2 * 64);
        assert_eq!(what, "'shape' has 4000 dims, more than numpy's 64");
        let long = format!("{{'descr' '{}', 'fortran_order': False", "x".repeat(9000));
        let (_, what) = error(&v1(&long));
        assert!(what.len() < 200, "{what}");
        assert!(what.ends_with("…"), "{what}");
    }
}
