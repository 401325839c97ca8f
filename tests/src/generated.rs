//! Committed files (or blocks of files) that a test renders from the code — the SDK headers of
//! `examples/sdk/include/q7/` from the Rust tables, `docs/cli.md`'s help texts from the command
//! line — kept by one rule: the test compares the committed text with what it renders and
//! fails naming the first difference and the command that regenerates it; with
//! `Q7EMU_UPDATE_GENERATED=1` it rewrites the committed text instead (DEVELOPING.md "After an
//! intended change").

use crate::doc;

/// The environment variable that makes the tests rewrite what they generate.
pub const UPDATE_ENV: &str = "Q7EMU_UPDATE_GENERATED";

/// Whether the tests rewrite what they generate instead of failing on a difference.
pub fn updating() -> bool {
    std::env::var_os(UPDATE_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The command that regenerates what the test file `test` of package `package` generates.
pub fn regenerate(package: &str, test: &str) -> String {
    format!("{UPDATE_ENV}=1 cargo test -p {package} --test {test}")
}

/// Compares the committed repository file `path` (relative to the root) with `rendered`;
/// rewrites it instead under [`UPDATE_ENV`]. A difference fails naming its first line, both
/// versions of it and `regenerate`.
pub fn check_file(path: &str, rendered: &str, regenerate: &str) {
    let file = doc::root().join(path);
    if updating() {
        std::fs::write(&file, rendered).unwrap_or_else(|e| panic!("{path}: {e}"));
        return;
    }
    let committed = std::fs::read_to_string(&file).unwrap_or_default();
    if let Some(at) = first_difference(&committed, rendered) {
        panic!(
            "{path} differs from what the code renders (first at line {}):\n  committed: {:?}\n  \
             rendered:  {:?}\nregenerate it with `{regenerate}` and commit it",
            at + 1,
            committed.lines().nth(at).unwrap_or("<end of file>"),
            rendered.lines().nth(at).unwrap_or("<end of file>"),
        );
    }
}

/// The index of the first line where `a` and `b` differ, or `None` when they are the same.
pub fn first_difference(a: &str, b: &str) -> Option<usize> {
    (a != b).then(|| {
        a.lines()
            .zip(b.lines())
            .position(|(x, y)| x != y)
            .unwrap_or_else(|| a.lines().count().min(b.lines().count()))
    })
}

/// Checks the generated blocks of the repository document `path` against `blocks` (name,
/// body), every block of the document named there (in any order), by this module's
/// rule: rewrites them under its variable, fails naming the first that differs
/// otherwise. `regenerate` is the command to give.
pub fn check_generated(path: &str, blocks: &[(String, String)], regenerate: &str) {
    let text = doc::read(path);
    let mut names = doc::generated_names(&text);
    names.sort();
    let mut want: Vec<&String> = blocks.iter().map(|(n, _)| n).collect();
    want.sort();
    let mut expected = text.clone();
    for (name, body) in blocks {
        expected = doc::with_generated(&expected, name, body);
    }
    if updating() {
        if expected != text {
            std::fs::write(doc::root().join(path), &expected).unwrap();
        }
    } else if let Some((name, body)) = blocks
        .iter()
        .find(|(name, body)| doc::with_generated(&text, name, body) != text)
    {
        panic!("{path}: the generated block {name:?} is out of date; it should read:\n{body}\n(run {regenerate})");
    }
    assert_eq!(
        names.iter().collect::<Vec<_>>(),
        want,
        "{path}: its generated blocks are not the ones generated"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_line_is_named() {
        assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
        assert_eq!(first_difference("a\nb\n", "a\nc\n"), Some(1));
        assert_eq!(first_difference("a\n", "a\nb\n"), Some(1));
        assert_eq!(first_difference("a", "a\n"), Some(1));
    }
}
