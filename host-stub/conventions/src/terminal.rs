//! Guest text on a terminal (docs/cli.md "Conventions", "Guest text"): what a kernel or a
//! program prints — the console of `run`, the semihosting output of `run-elf`, a runtime
//! error's message — is the guest's, so on a terminal its control characters are shown
//! escaped (`\x1b`) instead of acting on the terminal (setting its title, moving the cursor,
//! clearing the screen). Newline and tab pass; bytes that are not UTF-8 are escaped the same
//! way. Written to a file or a pipe, and in JSON, the text is exact.

use std::borrow::Cow;
use std::io::{IsTerminal, Write};

/// Whether `c` is shown escaped: a control character (C0, DEL, C1) other than newline and tab.
fn escaped(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `text` with each control character but newline and tab written `\xNN` (its code point,
/// two hex digits: every control character is below U+00A0).
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if escaped(c) {
            out.push_str(&format!("\\x{:02x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` as it is shown on stdout: [`escape`]d when stdout is a terminal, else exact.
pub fn for_stdout(text: &str) -> Cow<'_, str> {
    if std::io::stdout().is_terminal() {
        escape(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` as it is shown on stderr: [`escape`]d when stderr is a terminal, else exact.
pub fn for_stderr(text: &str) -> Cow<'_, str> {
    if std::io::stderr().is_terminal() {
        escape(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// A byte stream shown on a terminal: what is written to it reaches `inner` with each control
/// character but newline and tab, and each byte that is not part of a UTF-8 character, written
/// `\xNN`. A character split across writes is held until its last byte comes (at most 3
/// bytes); bytes still held when the stream is dropped are written escaped.
#[derive(Debug)]
pub struct Escaping<W: Write> {
    inner: W,
    held: Vec<u8>,
}

impl<W: Write> Escaping<W> {
    /// The stream escaping onto `inner`.
    pub fn new(inner: W) -> Escaping<W> {
        Escaping {
            inner,
            held: Vec::new(),
        }
    }

    /// The escaped text of `bytes`, holding back an unfinished character at the end.
    fn convert(&mut self, bytes: &[u8]) -> String {
        let mut data = std::mem::take(&mut self.held);
        data.extend_from_slice(bytes);
        let mut out = String::with_capacity(data.len());
        let mut rest = &data[..];
        while !rest.is_empty() {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out.push_str(&escape(s));
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    out.push_str(&escape(
                        std::str::from_utf8(valid).expect("valid up to here"),
                    ));
                    match e.error_len() {
                        Some(n) => {
                            for b in &after[..n] {
                                out.push_str(&format!("\\x{b:02x}"));
                            }
                            rest = &after[n..];
                        }
                        None => {
                            self.held = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        out
    }
}

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = self.convert(buf);
        self.inner.write_all(text.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for Escaping<W> {
    fn drop(&mut self) {
        if !self.held.is_empty() {
            let text: String = self.held.iter().map(|b| format!("\\x{b:02x}")).collect();
            let _ = self.inner.write_all(text.as_bytes());
            let _ = self.inner.flush();
        }
    }
}

/// Standard output for guest bytes: [`Escaping`] when it is a terminal, else exact.
pub fn guest_stdout() -> Box<dyn Write + Send> {
    if std::io::stdout().is_terminal() {
        Box::new(Escaping::new(std::io::stdout()))
    } else {
        Box::new(std::io::stdout())
    }
}

/// Standard error for guest bytes: [`Escaping`] when it is a terminal, else exact.
pub fn guest_stderr() -> Box<dyn Write + Send> {
    if std::io::stderr().is_terminal() {
        Box::new(Escaping::new(std::io::stderr()))
    } else {
        Box::new(std::io::stderr())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_but_newline_and_tab_are_escaped() {
        assert_eq!(
            escape("\x1b]0;pwned\x07title\r\n\tok\x7f\u{9b}é"),
            "\\x1b]0;pwned\\x07title\\x0d\n\tok\\x7f\\x9bé"
        );
        assert!(matches!(escape("plain text\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_stream_escapes_controls_and_bytes_that_are_not_utf8_across_writes() {
        let mut out = Vec::new();
        {
            let mut s = Escaping::new(&mut out);
            s.write_all(b"a\x1b[2J").unwrap();
            // "é" (c3 a9) split across two writes, then a lone continuation byte and an
            // 8-bit CSI (0x9b), then a character cut short at the end.
            s.write_all(b"\xc3").unwrap();
            s.write_all(b"\xa9\x80\x9b\n").unwrap();
            s.write_all(b"\xe2\x82").unwrap();
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a\\x1b[2Jé\\x80\\x9b\n\\xe2\\x82"
        );
    }

    #[test]
    fn a_write_reports_every_byte_taken() {
        let mut out = Vec::new();
        let mut s = Escaping::new(&mut out);
        assert_eq!(s.write(b"\x1bxy").unwrap(), 3);
        assert_eq!(s.write(b"\xc3").unwrap(), 1, "held, but taken");
    }
}
