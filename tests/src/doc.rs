//! Reading the repository's markdown, for the tests that check a document against the code or
//! run the commands it shows: tables (PLATFORM.md, the SDK headers' documentation), sections,
//! fenced blocks and their shell commands, and the generated blocks a test keeps up to date
//! (`docs/cli.md`'s help texts). One reader, so every document is read the same way.

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The text of the repository file `path` (relative to the root); panics naming it.
pub fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The cells of a table row `| a | b | … |`, trimmed.
pub fn cells(line: &str) -> Vec<String> {
    line.trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

/// Every table row of `text` (lines starting `| `, rules left out), as cells.
pub fn rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("|---"))
        .map(cells)
        .collect()
}

/// The body rows of the first table after the first line starting with `heading`.
pub fn table_after(text: &str, heading: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|l| !l.starts_with(heading))
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and rule
        .map(cells)
        .collect()
}

/// `text` with the body rows of the first table after the first line starting with `heading`
/// ([`table_after`]) replaced by `body`, each row written `| a | b | … |`; what a test writes
/// when told to regenerate the document.
pub fn with_table_after(text: &str, heading: &str, body: &[Vec<String>]) -> String {
    let mut out = String::new();
    let mut lines = text.split_inclusive('\n').peekable();
    let mut seen_heading = false;
    while let Some(line) = lines.next() {
        out.push_str(line);
        if !seen_heading && line.starts_with(heading) {
            seen_heading = true;
            while let Some(l) = lines.peek().filter(|l| !l.starts_with('|')) {
                out.push_str(l);
                lines.next();
            }
            for _ in 0..2 {
                out.push_str(lines.next().expect("a table header and rule"));
            }
            while lines.peek().is_some_and(|l| l.starts_with('|')) {
                lines.next();
            }
            for row in body {
                out.push_str(&format!("| {} |\n", row.join(" | ")));
            }
        }
    }
    assert!(seen_heading, "no line starts with {heading:?}");
    out
}

/// The section of `text` under the heading line `heading` (with its `#`s, e.g. `"## Trace a
/// run"`), up to the next heading of its level or above; panics when there is none.
pub fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = if text.starts_with(&format!("{heading}\n")) {
        0
    } else {
        text.find(&format!("\n{heading}\n"))
            .map(|i| i + 1)
            .unwrap_or_else(|| panic!("no section {heading:?}"))
    };
    let body = &text[start + heading.len() + 1..];
    let level = heading.split(' ').next().unwrap().len();
    let mut offset = 0;
    let mut fenced = false;
    for line in body.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let hashes = line.len() - line.trim_start_matches('#').len();
        if !fenced && hashes > 0 && hashes <= level && line[hashes..].starts_with(' ') {
            return &body[..offset];
        }
        offset += line.len();
    }
    body
}

/// The bodies of every ```` ```lang ```` block of `text` (also indented ones, in list items),
/// each line ending in a newline, the indentation of the opening fence taken off.
pub fn fenced(text: &str, lang: &str) -> Vec<String> {
    let (mut out, mut block, mut indent) = (Vec::new(), None::<String>, 0);
    for l in text.lines() {
        let trimmed = l.trim_start();
        match &mut block {
            None if trimmed == format!("```{lang}") => {
                indent = l.len() - trimmed.len();
                block = Some(String::new());
            }
            Some(_) if trimmed == "```" => out.push(block.take().unwrap()),
            Some(b) => {
                b.push_str(l.get(indent..).unwrap_or(trimmed));
                b.push('\n');
            }
            None => {}
        }
    }
    out
}

/// The body of the first ```` ```lang ```` block of `text`; panics when there is none.
pub fn first_fenced(text: &str, lang: &str) -> String {
    fenced(text, lang)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no ```{lang} block"))
}

/// `s` split into words as a shell would: whitespace separates, double quotes group (and go).
pub fn words(s: &str) -> Vec<String> {
    let (mut out, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for c in s.chars() {
        match c {
            '"' => (quoted, started) = (!quoted, true),
            c if c.is_whitespace() && !quoted => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

/// The commands of the ```` ```sh ```` blocks of `text`, continuation lines joined, comments
/// skipped, each as its words.
pub fn shell_commands(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for block in fenced(text, "sh") {
        let mut line = String::new();
        for l in block.lines() {
            if l.trim_start().starts_with('#') {
                continue;
            }
            if let Some(head) = l.strip_suffix('\\') {
                line.push_str(head);
                line.push(' ');
                continue;
            }
            line.push_str(l);
            let w = words(&std::mem::take(&mut line));
            if !w.is_empty() {
                out.push(w);
            }
        }
    }
    out
}

/// The arguments of the `q7emu SUB …` commands of `text` (the words after `q7emu`).
pub fn q7emu_commands(text: &str, sub: &str) -> Vec<Vec<String>> {
    shell_commands(text)
        .into_iter()
        .filter(|w| w.len() > 1 && w[0] == "q7emu" && w[1] == sub)
        .map(|w| w[1..].to_vec())
        .collect()
}

/// The marker line that introduces the generated block `name` of a document.
fn marker(name: &str) -> String {
    format!("<!-- generated: {name} -->")
}

/// The names of the generated blocks of `text`, in order.
pub fn generated_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("<!-- generated: ")?.strip_suffix(" -->"))
        .map(str::to_string)
        .collect()
}

/// `text` with the generated block `name` — the ```` ```text ```` block on the line after its
/// marker — holding `body`; panics when the marker or its block is missing.
pub fn with_generated(text: &str, name: &str, body: &str) -> String {
    let marker = marker(name);
    let at = text
        .find(&format!("{marker}\n```text\n"))
        .unwrap_or_else(|| {
            panic!("no generated block {name:?} (a {marker} line before a ```text block)")
        });
    let start = at + marker.len() + "\n```text\n".len();
    let len = text[start..]
        .find("```\n")
        .filter(|&n| n == 0 || text[start + n - 1..].starts_with('\n'))
        .unwrap_or_else(|| panic!("generated block {name:?} is not closed"));
    let mut body = body.to_string();
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    format!("{}{body}{}", &text[..start], &text[start + len..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_split_into_trimmed_cells() {
        let t = "intro\n| a | b |\n|---|---|\n| 1 | x y |\n\n| c |\n";
        assert_eq!(table_after(t, "intro"), [["1", "x y"]]);
        assert_eq!(rows(t), [vec!["a", "b"], vec!["1", "x y"], vec!["c"]]);
    }

    #[test]
    fn a_section_ends_at_the_next_heading_of_its_level_outside_code() {
        let t = "# T\n## A\na\n```sh\n# comment\n```\n### A.1\nb\n## B\nc\n";
        assert_eq!(section(t, "## A"), "a\n```sh\n# comment\n```\n### A.1\nb\n");
        assert_eq!(section(t, "### A.1"), "b\n");
        assert_eq!(section(t, "## B"), "c\n");
        assert_eq!(section(t, "# T").len(), t.len() - 4);
    }

    #[test]
    fn commands_join_continuations_drop_comments_and_unquote() {
        let t = "* item\n\n  ```sh\n  # what\n  q7emu build --schema \"f(Tensor x) -> Tensor\" \\\n        -o b x.cpp\n  ```\n";
        assert_eq!(
            q7emu_commands(t, "build"),
            [[
                "build",
                "--schema",
                "f(Tensor x) -> Tensor",
                "-o",
                "b",
                "x.cpp"
            ]]
        );
        assert_eq!(fenced(t, "sh")[0].lines().next(), Some("# what"));
    }

    #[test]
    fn a_generated_block_is_replaced_whole() {
        let t = "a\n<!-- generated: x -->\n```text\nold\nlines\n```\nb\n";
        assert_eq!(generated_names(t), ["x"]);
        assert_eq!(
            with_generated(t, "x", "new"),
            "a\n<!-- generated: x -->\n```text\nnew\n```\nb\n"
        );
        let empty = "<!-- generated: x -->\n```text\n```\n";
        assert_eq!(
            with_generated(empty, "x", "y\n"),
            "<!-- generated: x -->\n```text\ny\n```\n"
        );
    }
}
