//! ARCHITECTURE.md "Layering" is the map of the crates, and it stays true: every package of
//! the workspace (and of python/'s workspace) has a row naming its folder and its package,
//! stating its concern, and listing exactly the workspace crates it depends on — those its
//! tests alone use in parentheses, "(… for its tests)"; q7-tests, the test support every crate
//! may use, is not listed. `cargo metadata` is the other side of the comparison.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use q7_tests::doc;

/// One row of the table: the crate's folder, its package, what it may use (normally and in
/// its tests alone), its concern.
#[derive(Debug)]
struct Row {
    folder: String,
    deps: BTreeSet<String>,
    test_deps: BTreeSet<String>,
    concern: String,
}

/// The crate names of a "depends on" list ("nothing of the workspace" and "—" name none).
fn names(list: &str) -> BTreeSet<String> {
    list.split(',')
        .map(|n| n.trim().trim_end_matches(" for its tests").trim().to_string())
        .filter(|n| n.starts_with("q7"))
        .collect()
}

/// The table's rows by package name.
fn table() -> BTreeMap<String, Row> {
    let text = doc::read("ARCHITECTURE.md");
    let mut rows = BTreeMap::new();
    for cells in doc::table_after(&text, "## Layering") {
        let [crate_cell, deps, concern] = &cells[..] else {
            panic!("ARCHITECTURE.md \"Layering\": a row of three cells, not {cells:?}");
        };
        // "`host-stub/run/` (q7-run)", "`host-stub/` (q7-host, bin `q7emu`)".
        let folder = crate_cell
            .split('`')
            .nth(1)
            .unwrap_or_else(|| panic!("{crate_cell}: the crate's folder in backticks"))
            .to_string();
        let package = crate_cell
            .split_once('(')
            .and_then(|(_, rest)| rest.split([',', ')']).next())
            .unwrap_or_else(|| panic!("{crate_cell}: the package name in parentheses"))
            .trim()
            .to_string();
        let (normal, tests) = match deps.split_once('(') {
            Some((normal, tests)) => (normal, tests.trim_end_matches(')')),
            None => (deps.as_str(), ""),
        };
        let row = Row {
            folder,
            deps: names(normal),
            test_deps: names(tests),
            concern: concern.clone(),
        };
        assert!(
            rows.insert(package.clone(), row).is_none(),
            "{package} has two rows"
        );
    }
    rows
}

/// Each package of the workspace of `manifest` (relative to the root): its folder (relative
/// to the root, with a trailing `/`), its workspace dependencies, those of its tests alone.
fn packages(manifest: &str) -> BTreeMap<String, Row> {
    let root = doc::root().canonicalize().unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .arg("--manifest-path")
        .arg(root.join(manifest))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata --manifest-path {manifest}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut found = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap().to_string();
        let dir = Path::new(p["manifest_path"].as_str().unwrap()).parent().unwrap();
        let folder = format!("{}/", dir.strip_prefix(&root).unwrap().display());
        let (mut deps, mut test_deps) = (BTreeSet::new(), BTreeSet::new());
        for d in p["dependencies"].as_array().unwrap() {
            let dep = d["name"].as_str().unwrap().to_string();
            if d["path"].is_null() || dep == "q7-tests" {
                continue; // a crate from outside, or the test support every crate may use
            }
            match d["kind"].as_str() {
                None | Some("build") => deps.insert(dep),
                Some(_) => test_deps.insert(dep),
            };
        }
        let test_deps = test_deps.difference(&deps).cloned().collect();
        let row = Row {
            folder,
            deps,
            test_deps,
            concern: String::new(),
        };
        found.insert(name, row);
    }
    found
}

#[test]
fn the_layering_table_lists_every_crate_with_its_folder_concern_and_dependencies() {
    let table = table();
    let mut crates = packages("Cargo.toml");
    crates.extend(packages("python/Cargo.toml"));
    let listed: BTreeSet<&String> = table.keys().collect();
    let exist: BTreeSet<&String> = crates.keys().collect();
    assert_eq!(
        listed, exist,
        "ARCHITECTURE.md \"Layering\" lists exactly the packages of the workspaces"
    );
    for (name, row) in &table {
        let real = &crates[name];
        assert_eq!(row.folder, real.folder, "{name}: its folder");
        assert!(!row.concern.is_empty(), "{name}: its concern is stated");
        assert_eq!(
            row.deps, real.deps,
            "{name}: the workspace crates it depends on (Cargo.toml against the table)"
        );
        assert_eq!(
            row.test_deps, real.test_deps,
            "{name}: the workspace crates its tests alone use (\"(… for its tests)\")"
        );
    }
}

#[test]
fn the_firmware_names_none_of_its_observers_nor_its_debugger() {
    // ARCHITECTURE.md "Layering": q7-runtime takes `dyn Observer` and `dyn Debugger`; Cargo
    // keeps it from depending on the crates that implement them, and its manifest says so.
    let table = table();
    let runtime = &table["q7-runtime"];
    for above in ["q7-observe", "q7-gdb", "q7-run", "q7-testing", "q7-host"] {
        assert!(
            !runtime.deps.contains(above),
            "q7-runtime may not depend on {above}"
        );
        assert!(
            table[above].deps.contains("q7-runtime"),
            "{above} sits above q7-runtime"
        );
    }
}
