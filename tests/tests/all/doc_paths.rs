//! The documents' map stays true: every repository path a document names in backticks
//! (`emulator/src/core/window.rs`, `docs/calibration.md`, `host-stub/kernel-build/src/` …; a `{a,b}`
//! group stands for each of its names) exists, so ARCHITECTURE.md "Where things happen", the
//! glossary and every cross-reference lead somewhere. Files that a run creates (`*.snap.new`)
//! and patterns (`<name>`, `*`) are not paths. And every section a document or source file
//! cites as `<doc>.md "Section"` is there.

use std::path::{Path, PathBuf};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The top-level folders whose paths the documents name.
const TOP: [&str; 11] = [
    "isa/",
    "emulator/",
    "loader/",
    "host-stub/",
    "tests/",
    "examples/",
    "docs/",
    "scripts/",
    "snapshots/",
    "fuzz/",
    ".ci/",
];

/// The files of the repository outside build output whose names end in one of `endings`.
fn files(endings: &[&str]) -> Vec<PathBuf> {
    fn walk(dir: &Path, endings: &[&str], out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "corpus" {
                    walk(&path, endings, out);
                }
            } else if endings.iter().any(|e| name.ends_with(e)) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(ROOT), endings, &mut out);
    out.sort();
    out
}

/// The markdown files of the repository outside build output.
fn documents() -> Vec<PathBuf> {
    files(&[".md"])
}

/// Every file that may cite a section: documents, sources, scripts and headers.
fn citing_files() -> Vec<PathBuf> {
    files(&[
        ".md", ".rs", ".py", ".pyi", ".sh", ".h", ".c", ".cc", ".cpp", ".S", ".toml", ".ld",
    ])
}

/// The `<doc>.md "Section"` citations of `text` (the file name may stand in backticks).
fn citations(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(".md") {
        let before = &text[..at + 3];
        let start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || "_./-".contains(c)))
            .map_or(0, |i| i + 1);
        let file = &before[start..];
        let rest = text[at + 3..].strip_prefix('`').unwrap_or(&text[at + 3..]);
        let Some(rest) = rest.strip_prefix(" \"") else {
            continue;
        };
        let Some(end) = rest.find(['"', '\n']) else {
            continue;
        };
        if file.len() > 3 && rest[end..].starts_with('"') {
            out.push((file.to_string(), rest[..end].to_string()));
        }
    }
    out
}

/// The sections of markdown `text`: its headings, and the bold words that lead a paragraph
/// (`**Output files.**`).
fn sections(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix('#') {
            out.push(h.trim_start_matches('#').trim().to_string());
        } else if let Some(lead) = line.strip_prefix("**") {
            if let Some(end) = lead.find("**") {
                out.push(lead[..end].trim_end_matches('.').to_string());
            }
        }
    }
    out
}

/// Whether `section` names heading `h`: the whole of it, or all before a punctuation mark
/// (`"ARG_TENSOR descriptor"` names `ARG_TENSOR descriptor (0x30 bytes, …)`, `"PyTorch"`
/// names `PyTorch: q7emu.torch`).
fn names(section: &str, h: &str) -> bool {
    h.strip_prefix(section).is_some_and(|rest| {
        rest.chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    })
}

/// The paths `text` names in backticks, each `{a,b}` group expanded.
fn named_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        let word = span.trim_end_matches(['.', ',', ';', ':']);
        let is_root_doc = word.ends_with(".md") && !word.contains('/') && word != ".md";
        if i % 2 == 0 || word.contains(char::is_whitespace) {
            continue;
        }
        if !(TOP.iter().any(|t| word.starts_with(t)) || is_root_doc) {
            continue;
        }
        if word.contains(['<', '*', '…']) || word.ends_with(".new") {
            continue;
        }
        let word = word.split(':').next().unwrap();
        match (word.find('{'), word.find('}')) {
            (Some(a), Some(b)) if a < b => {
                for name in word[a + 1..b].split(',') {
                    out.push(format!("{}{name}{}", &word[..a], &word[b + 1..]));
                }
            }
            _ => out.push(word.to_string()),
        }
    }
    out
}

#[test]
fn every_path_a_document_names_exists() {
    let docs = documents();
    assert!(docs.len() >= 10, "{docs:?}");
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        for path in named_paths(&text) {
            checked += 1;
            if !Path::new(ROOT).join(&path).exists() {
                let rel = doc.strip_prefix(ROOT).unwrap_or(doc);
                missing.push(format!("{}: `{path}`", rel.display()));
            }
        }
    }
    assert!(
        checked > 200,
        "only {checked} paths named: the reader lost them"
    );
    assert!(
        missing.is_empty(),
        "named but not there:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_section_a_file_cites_exists() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for f in citing_files() {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let here = f.parent().unwrap();
        for (file, section) in citations(&text) {
            checked += 1;
            // A file beside the citing one, else from the repository's root.
            let doc = [here.join(&file), Path::new(ROOT).join(&file)]
                .into_iter()
                .find(|p| p.is_file());
            let found = doc.as_ref().is_some_and(|d| {
                sections(&std::fs::read_to_string(d).unwrap())
                    .iter()
                    .any(|h| names(&section, h))
            });
            if !found {
                let rel = f.strip_prefix(ROOT).unwrap_or(&f);
                broken.push(format!("{}: {file} \"{section}\"", rel.display()));
            }
        }
    }
    assert!(
        checked > 400,
        "only {checked} citations: the reader lost them"
    );
    assert!(
        broken.is_empty(),
        "cited sections that are not there:\n{}",
        broken.join("\n")
    );
}

#[test]
fn citations_and_sections_are_read_as_written() {
    let text = "see `docs/cli.md` \"Output files\", PLATFORM.md \"ARG_TENSOR descriptor\"; \
                not `cargo test` \"x\" or a.md \"open";
    assert_eq!(
        citations(text),
        [
            ("docs/cli.md".to_string(), "Output files".to_string()),
            (
                "PLATFORM.md".to_string(),
                "ARG_TENSOR descriptor".to_string()
            ),
        ]
    );
    let doc = "# Title\n## ARG_TENSOR descriptor (0x30 bytes)\n**Output files.** Written whole.";
    let s = sections(doc);
    assert!(s.iter().any(|h| names("ARG_TENSOR descriptor", h)));
    assert!(s.iter().any(|h| names("Output files", h)));
    assert!(
        !s.iter().any(|h| names("ARG", h)),
        "a word cut short names nothing"
    );
}

#[test]
fn brace_groups_and_patterns_are_read_as_the_paths_they_stand_for() {
    let text = "see `emulator/src/core/{alu,window}.rs` and `ARCHITECTURE.md`, not \
                `<name>.so`, `snapshots/a.snap.new` or `cargo test`; `docs/x.md:12`.";
    assert_eq!(
        named_paths(text),
        [
            "emulator/src/core/alu.rs",
            "emulator/src/core/window.rs",
            "ARCHITECTURE.md",
            "docs/x.md"
        ]
    );
}
