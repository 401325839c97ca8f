//! CHANGELOG.md's entries are one to three user-facing lines each, of at most 100 characters
//! (DEVELOPING.md "Changelog"): what changed for a user and what to do about it; the internals
//! go in commit messages.

use q7_tests::doc;

/// The longest line an entry may have.
const WIDTH: usize = 100;
/// The most lines an entry may have.
const LINES: usize = 3;

#[test]
fn every_changelog_entry_is_one_to_three_lines_of_at_most_100_characters() {
    let text = doc::read("CHANGELOG.md");
    let mut entries: Vec<Vec<&str>> = Vec::new();
    for line in text.lines() {
        if line.starts_with("- ") {
            entries.push(vec![line]);
        } else if line.starts_with("  ") && !line.trim().is_empty() {
            entries
                .last_mut()
                .unwrap_or_else(|| panic!("a continuation line before any entry: {line:?}"))
                .push(line);
        } else if !line.starts_with('#') && !line.trim().is_empty() && !entries.is_empty() {
            panic!("CHANGELOG.md: a line that is neither an entry nor a heading: {line:?}");
        }
    }
    assert!(
        entries.len() > 50,
        "the entries were read ({})",
        entries.len()
    );
    for e in &entries {
        assert!(
            e.len() <= LINES,
            "an entry of {} lines:\n{}",
            e.len(),
            e.join("\n")
        );
        for l in e {
            assert!(
                l.chars().count() <= WIDTH,
                "a line over {WIDTH} characters: {l:?}"
            );
        }
    }
}
