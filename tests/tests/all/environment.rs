//! One environment-variable prefix (docs/cli.md "Environment"): the table of
//! `q7_environment` is the one docs/cli.md shows, every `Q7EMU_` name the
//! repository mentions is in it or in DEVELOPING.md "Environment variables", and no file reads
//! a variable under a name of earlier releases but the two old names the table keeps.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use q7_environment::{self as environment, ALL};
use q7_tests::doc;

/// The names earlier releases read, each renamed to `Q7EMU_…`; only [`environment`]'s old
/// names stay accepted.
const RENAMED: [&str; 10] = [
    "Q7_UPDATE_EXAMPLES",
    "Q7_UPDATE_GENERATED",
    "Q7_XTENSA_PREFIX",
    "Q7_PROGRESS_AFTER_MS",
    "Q7_JOBS",
    "Q7_ORACLE_WORDS",
    "Q7_MATH_FUNCTIONS",
    "Q7_HELPERS_CASES",
    "Q7_BENCH_REPEAT",
    "Q7_MATH_LOGS",
];

/// Backticked `Q7EMU_` names of a table's first column, `Q7EMU_BENCH_*` as its prefix.
fn first_column(rows: &[Vec<String>]) -> BTreeSet<String> {
    rows.iter()
        .flat_map(|r| r[0].split('`').skip(1).step_by(2).map(str::to_string))
        .map(|n| n.trim_end_matches('*').to_string())
        .collect()
}

/// The repository's text files a variable can be named in (build output left out).
fn files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if (!name.starts_with('.') || name == ".ci") && name != "target" && name != "corpus"
                {
                    walk(&path, out);
                }
            } else if [".rs", ".py", ".pyi", ".sh", ".md", ".toml"]
                .iter()
                .any(|e| name.ends_with(e))
                || name == "run"
            {
                // CHANGELOG.md keeps the history; this file names the old names to refuse them.
                if name != "CHANGELOG.md" && !path.ends_with("tests/tests/all/environment.rs") {
                    out.push(path);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&doc::root(), &mut out);
    out
}

#[test]
fn the_documented_table_is_the_code_table() {
    let text = doc::read("docs/cli.md");
    let rows = doc::table_after(&text, "## Environment");
    let shown: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
        .collect();
    let table: Vec<(String, String, String)> = ALL
        .iter()
        .map(|v| {
            (
                format!("`{}`", v.name),
                v.old_name.map_or("—".to_string(), |o| format!("`{o}`")),
                v.what.to_string(),
            )
        })
        .collect();
    assert_eq!(
        shown, table,
        "docs/cli.md \"Environment\" against q7_environment"
    );
    assert_eq!(environment::SDK.old_name, Some("Q7_SDK"));
    assert_eq!(
        environment::REQUIRE_TOOLCHAIN.old_name,
        Some("Q7_REQUIRE_TOOLCHAIN")
    );
}

#[test]
fn every_variable_the_repository_names_is_in_a_table_and_none_has_a_renamed_name() {
    let product = first_column(&doc::table_after(
        &doc::read("docs/cli.md"),
        "## Environment",
    ));
    let project = first_column(&doc::table_after(
        &doc::read("DEVELOPING.md"),
        "## Environment variables",
    ));
    let mut named = 0;
    for path in files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let shown = path
            .strip_prefix(doc::root())
            .unwrap_or(&path)
            .display()
            .to_string();
        for (at, _) in text.match_indices("Q7EMU_") {
            let name: String = text[at..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if name == "Q7EMU_" {
                continue; // the prefix itself
            }
            named += 1;
            let listed = product.contains(&name)
                || project.contains(&name)
                || project
                    .iter()
                    .any(|p| p.ends_with('_') && name.starts_with(p.as_str()));
            assert!(listed, "{shown}: {name} is in neither environment table");
        }
        for old in RENAMED {
            assert!(
                !text.contains(old),
                "{shown}: names {old}, renamed to Q7EMU_{}",
                &old[3..]
            );
        }
    }
    assert!(named > 50, "the variables were found ({named})");
}
