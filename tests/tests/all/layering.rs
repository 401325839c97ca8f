//! ARCHITECTURE.md "Layering" is the map of the crates, and it stays true: every package of
//! the workspace (and of python/'s workspace) has a row naming its folder and its package,
//! stating its concern, and listing exactly the workspace crates it depends on — those its
//! tests alone use in parentheses, "(… for its tests)"; q7-tests, the test support every crate
//! may use, is not listed. `cargo metadata` is the other side of the comparison.
//!
//! Within a crate, no top-level module imports (names `crate::module`) a module that imports
//! it back, through any chain: each crate's modules are layered too.

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
        .map(|n| {
            n.trim()
                .trim_end_matches(" for its tests")
                .trim()
                .to_string()
        })
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

/// The metadata of the workspace of `manifest` (relative to the root): its own packages, or
/// with `deps` every package of its resolved graph for this host (the packages of other
/// platforms are not downloaded by a build, and the graph is read offline).
fn metadata_of(manifest: &str, deps: bool) -> serde_json::Value {
    let graph: &[&str] = if deps {
        &["--filter-platform", host_triple()]
    } else {
        &["--no-deps"]
    };
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline"])
        .args(graph)
        .arg("--manifest-path")
        .arg(doc::root().join(manifest))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata --manifest-path {manifest}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The platform this test was built for, as `rustc -vV` names it.
fn host_triple() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let out = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
            .arg("-vV")
            .output()
            .expect("rustc -vV runs");
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix("host: "))
            .expect("rustc -vV names the host")
            .to_string()
    })
}

/// The metadata of the workspace of `manifest`'s own packages.
fn metadata(manifest: &str) -> serde_json::Value {
    metadata_of(manifest, false)
}

/// Each package of the workspace of `manifest` (relative to the root): its folder (relative
/// to the root, with a trailing `/`), its workspace dependencies, those of its tests alone.
fn packages(manifest: &str) -> BTreeMap<String, Row> {
    let root = doc::root().canonicalize().unwrap();
    let meta = metadata(manifest);
    let mut found = BTreeMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap().to_string();
        let dir = Path::new(p["manifest_path"].as_str().unwrap())
            .parent()
            .unwrap();
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

/// The workspace crates `name` depends on, directly or not (tests left out).
fn closure<'a>(crates: &'a BTreeMap<String, Row>, name: &'a str) -> BTreeSet<&'a str> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![name];
    while let Some(n) = todo.pop() {
        for d in &crates[n].deps {
            if seen.insert(d.as_str()) {
                todo.push(d);
            }
        }
    }
    seen
}

#[test]
fn a_change_to_the_gdb_server_rebuilds_neither_the_runtime_nor_the_build_driver() {
    let crates = packages("Cargo.toml");
    for below in ["q7-runtime", "q7-kernel-build", "q7-observe", "q7-run"] {
        assert!(
            !closure(&crates, below).contains("q7-gdb"),
            "{below} does not depend on q7-gdb"
        );
    }
    assert!(
        !closure(&crates, "q7-runtime").contains("q7-kernel-build"),
        "the runtime does not depend on the build driver"
    );
}

/// `text` without its comments (`//` to the end of the line, which doc comments are too).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(at) if !l[..at].contains('"') => &l[..at],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules of the crate whose root file is `root_file`, each with the other
/// top-level modules its files name as `crate::module` (or in a `crate::{…}` group).
fn module_imports(root_file: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let src = root_file.parent().unwrap();
    let mut files: BTreeMap<String, Vec<std::path::PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path == root_file || name == "main" || name == "lib" {
            continue;
        }
        if path.is_dir() {
            let mut all = Vec::new();
            let mut todo = vec![path];
            while let Some(dir) = todo.pop() {
                for e in std::fs::read_dir(dir).unwrap() {
                    let p = e.unwrap().path();
                    if p.is_dir() {
                        todo.push(p);
                    } else if p.extension().is_some_and(|x| x == "rs") {
                        all.push(p);
                    }
                }
            }
            files.entry(name).or_default().extend(all);
        } else if path.extension().is_some_and(|x| x == "rs") {
            files.entry(name).or_default().push(path);
        }
    }
    let modules: BTreeSet<String> = files.keys().cloned().collect();
    let mut imports = BTreeMap::new();
    for (module, paths) in &files {
        let mut named = BTreeSet::new();
        for p in paths {
            let text = code(&std::fs::read_to_string(p).unwrap());
            for (at, _) in text.match_indices("crate::") {
                let rest = &text[at + "crate::".len()..];
                let group = match rest.strip_prefix('{') {
                    Some(g) => &g[..g.find('}').unwrap_or(g.len())],
                    None => rest,
                };
                for word in group.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                    if modules.contains(word) && word != module {
                        named.insert(word.to_string());
                    }
                    if !rest.starts_with('{') {
                        break; // `crate::a::b`: only `a` is a module of the crate
                    }
                }
            }
        }
        imports.insert(module.clone(), named);
    }
    imports
}

/// A chain of imports from `from` that comes back to it, if there is one.
fn cycle(imports: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    fn walk(
        imports: &BTreeMap<String, BTreeSet<String>>,
        from: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        let here = path.last().unwrap().clone();
        for next in &imports[&here] {
            if next == from {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(imports, from, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![from.to_string()];
    walk(imports, from, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let mut checked = 0;
    for manifest in ["Cargo.toml", "python/Cargo.toml"] {
        let meta = metadata(manifest);
        for p in meta["packages"].as_array().unwrap() {
            for t in p["targets"].as_array().unwrap() {
                let kinds: Vec<&str> = t["kind"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k.as_str().unwrap())
                    .collect();
                if !kinds.iter().any(|k| k.ends_with("lib") || *k == "bin") {
                    continue;
                }
                let imports = module_imports(Path::new(t["src_path"].as_str().unwrap()));
                for module in imports.keys() {
                    if let Some(chain) = cycle(&imports, module) {
                        panic!(
                            "{}: module {module} imports itself back: {}",
                            p["name"],
                            chain.join(" → ")
                        );
                    }
                }
                checked += imports.len();
            }
        }
    }
    assert!(
        checked > 100,
        "the modules of every crate were read ({checked})"
    );
}

/// `major.minor[.patch]` as numbers.
fn version(v: &str) -> Vec<u64> {
    v.split('.').map(|n| n.parse().unwrap()).collect()
}

#[test]
fn the_declared_rust_version_is_the_one_the_dependency_graph_needs() {
    // The workspace's `rust-version` must be one the code really builds with. An older
    // toolchain cannot be fetched here, so the check is: it is exactly the highest
    // `rust-version` any crate of the resolved graph declares (lower could not build those
    // crates), and the suite itself runs on a toolchain of that version when it can (.ci/run's
    // machines have 1.95, the declared one).
    let meta = metadata_of("Cargo.toml", true);
    let mut declared = None;
    let mut needed: Option<(Vec<u64>, String)> = None;
    for p in meta["packages"].as_array().unwrap() {
        let Some(v) = p["rust_version"].as_str() else {
            continue;
        };
        let name = p["name"].as_str().unwrap();
        if name == "q7-emulator" {
            declared = Some(version(v));
        } else if p["source"].is_string() && needed.as_ref().is_none_or(|(n, _)| version(v) > *n) {
            needed = Some((version(v), name.to_string()));
        }
    }
    let declared = declared.expect("the workspace declares rust-version");
    let (needed, by) = needed.expect("some dependency declares rust-version");
    let pad = |mut v: Vec<u64>| {
        v.resize(3, 0);
        v
    };
    assert_eq!(
        pad(declared.clone()),
        pad(needed),
        "rust-version is what {by} needs"
    );
    let rustc = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("--version")
        .output()
        .expect("rustc --version runs");
    let rustc = String::from_utf8_lossy(&rustc.stdout).into_owned();
    let running = version(
        rustc
            .split_whitespace()
            .nth(1)
            .unwrap()
            .split('-')
            .next()
            .unwrap(),
    );
    assert!(
        running >= pad(declared.clone()),
        "{rustc} builds the declared {declared:?}"
    );
}
