//! The documents' map stays true: every repository path a document names in backticks
//! (`emulator/src/core/window.rs`, `docs/calibration.md`, `host-stub/src/build/` …; a `{a,b}`
//! group stands for each of its names) exists, so ARCHITECTURE.md "Where things happen", the
//! glossary and every cross-reference lead somewhere. Files that a run creates (`*.snap.new`)
//! and patterns (`<name>`, `*`) are not paths.

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

/// The markdown files of the repository outside build output.
fn documents() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "corpus" {
                    walk(&path, out);
                }
            } else if name.ends_with(".md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(ROOT), &mut out);
    out.sort();
    out
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
