//! The snapshot folder holds accepted snapshots of the workspace's tests, and only those:
//!
//! - it is where q7_testing puts the workspace's snapshots;
//! - no snapshot waits for review (`*.snap.new`, `*.pending-snap`: run `cargo insta review`
//!   and commit the result);
//! - every `*.snap` names in its header a test source of the repository that exists, and its
//!   file name starts with that test's module path (insta's `<module path>__<name>.snap`), so a
//!   snapshot outlives no test;
//! - nothing else is here but this package's manifest and test.

use std::path::{Path, PathBuf};

const HERE: &str = env!("CARGO_MANIFEST_DIR");

fn root() -> PathBuf {
    Path::new(HERE).parent().unwrap().to_path_buf()
}

/// The `source:` of a snapshot's header, the lines between its first two `---`.
fn source(text: &str) -> Option<&str> {
    let body = text.strip_prefix("---\n")?;
    let header = &body[..body.find("\n---\n")?];
    header.lines().find_map(|l| l.strip_prefix("source: "))
}

#[test]
fn this_folder_is_where_q7_testing_puts_the_workspaces_snapshots() {
    assert_eq!(
        q7_testing::snapshot_dir(root().join("host-stub")),
        Path::new(HERE)
    );
    assert_eq!(
        Path::new(HERE).file_name().unwrap(),
        q7_testing::SNAPSHOT_DIR
    );
}

#[test]
fn the_folder_holds_only_accepted_snapshots_of_existing_tests() {
    let mut snaps = 0;
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(HERE).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name == "Cargo.toml" || name == "tests" {
            continue;
        }
        if name.ends_with(".snap.new") || name.ends_with(".pending-snap") {
            problems.push(format!("{name}: waiting for review (cargo insta review)"));
            continue;
        }
        let Some(stem) = name.strip_suffix(".snap") else {
            problems.push(format!("{name}: not a snapshot"));
            continue;
        };
        snaps += 1;
        let text = std::fs::read_to_string(Path::new(HERE).join(&name)).unwrap();
        let Some(src) = source(&text) else {
            problems.push(format!("{name}: no insta header naming its source"));
            continue;
        };
        // A test file directly in `tests/` is a test crate of its own (`<file>__`); one in a
        // folder of `tests/` is a module of the test crate that folder is (`<folder>__<file>__`,
        // host-stub/tests/all/).
        let file = Path::new(src);
        let module = file.file_stem().unwrap().to_string_lossy();
        let folder = file
            .parent()
            .and_then(Path::file_name)
            .unwrap()
            .to_string_lossy();
        let test_crate = if folder == "tests" {
            format!("{module}__")
        } else {
            format!("{folder}__{module}__")
        };
        if !root().join(src).is_file() {
            problems.push(format!("{name}: its test {src} does not exist"));
        } else if !stem.starts_with(&test_crate) {
            problems.push(format!(
                "{name}: not named after its test crate {test_crate}"
            ));
        }
    }
    assert!(problems.is_empty(), "snapshots/:\n{}", problems.join("\n"));
    assert!(snaps > 0, "snapshots/ holds the workspace's snapshots");
}

#[test]
fn a_header_names_its_source() {
    assert_eq!(
        source("---\nsource: host-stub/tests/all/examples.rs\n---\nop: f\n"),
        Some("host-stub/tests/all/examples.rs")
    );
    assert_eq!(source("op: f\n"), None);
    assert_eq!(source("---\nexpression: x\n---\nop: f\n"), None);
}
