//! `q7emu run --profile DIR` and `q7emu profile` (docs/profiling.md): every cycle of every
//! core attributed exactly, as the run report counts it.

use std::path::Path;

use q7_observe::profile::model::{Counts, Profile};
use q7_tests::TempDir;

use crate::support::{example, ok, q7emu};

/// Each stall category's cycles in the run report's `stats.stalls` (keyed by field name:
/// the label with `_` for `-`).
fn report_stalls(core: &serde_json::Value, label: &str) -> u64 {
    core["stats"]["stalls"][label.replace('-', "_")]
        .as_u64()
        .unwrap()
}

/// Adds the `own` counts of `items`.
fn sum<'a>(items: impl Iterator<Item = &'a Counts>) -> Counts {
    let mut total = Counts::default();
    for c in items {
        total.add(c);
    }
    total
}

/// The cycles of a folded file: the number after each line's last space.
fn folded_cycles(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum()
}

/// Runs `build`'s `op` on `input` with `scalars` under `--profile` and `--json-file`, and
/// checks the profile against the report: per core, its total is the report's counts (cycles,
/// instructions, exceptions, each stall category), and the functions, the instructions, the
/// call paths and the folded stacks each add up to it; `all.folded` adds up to every core's.
fn check_exact(name: &str, build: &Path, op: &str, input: &Path, scalars: &[&str], cores: usize) {
    let dir = TempDir::new(&format!("profile-{name}"));
    let report = dir.join("report.json");
    let profile_dir = dir.join("profile");
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(build)
        .args(["--op", op, "--input"])
        .arg(input)
        .arg("--profile")
        .arg(&profile_dir)
        .arg("--json-file")
        .arg(&report);
    for s in scalars {
        cmd.args(["--scalar", s]);
    }
    let out = ok(cmd);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("q7emu: profile of {cores} core(s) in ")),
        "{stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let profile = Profile::load(&profile_dir).unwrap();
    assert_eq!(profile.cores.len(), cores, "{name}: cores profiled");
    let categories: Vec<&str> = q7_emulator::timing::Stalls::LABELS.to_vec();
    assert_eq!(
        profile.categories, categories,
        "the run report's categories"
    );
    let mut cluster = 0;
    for (core, r) in profile
        .cores
        .iter()
        .zip(report["cores"].as_array().unwrap())
    {
        let what = format!("{name} core {}", core.core);
        assert_eq!(u64::from(core.core), r["core"].as_u64().unwrap(), "{what}");
        let t = &core.total;
        assert_eq!(t.cycles, r["cycles"].as_u64().unwrap(), "{what}: cycles");
        assert_eq!(
            t.instructions,
            r["instructions"].as_u64().unwrap(),
            "{what}: instructions"
        );
        assert_eq!(
            t.exceptions,
            r["exceptions"].as_u64().unwrap(),
            "{what}: exceptions"
        );
        for label in &categories {
            assert_eq!(t.stall(label), report_stalls(r, label), "{what}: {label}");
        }
        assert_eq!(
            t.issue + t.stalls.values().sum::<u64>(),
            t.cycles,
            "{what}: issue + stalls"
        );
        assert_eq!(
            &sum(core.functions.iter().map(|f| &f.own)),
            t,
            "{what}: functions"
        );
        assert_eq!(
            &sum(core.instructions.iter().map(|i| &i.own)),
            t,
            "{what}: instructions"
        );
        assert_eq!(&sum(core.stacks.iter().map(|s| &s.own)), t, "{what}: paths");
        let root = &core.stacks[0].frames[0];
        let outer = core.functions.iter().find(|f| &f.name == root).unwrap();
        assert_eq!(
            &outer.inclusive, t,
            "{what}: the outermost frame holds every cycle"
        );
        assert_eq!(
            folded_cycles(&profile_dir.join(format!("core{}.folded", core.core))),
            t.cycles,
            "{what}: folded"
        );
        cluster += t.cycles;
    }
    assert_eq!(folded_cycles(&profile_dir.join("all.folded")), cluster);
}

/// The committed single-core, 8-core and stream kernels and the 8-core builtin sort: a profile adds
/// up exactly to each core's report.
#[test]
fn every_cycle_of_every_core_is_attributed_as_the_report_counts_it() {
    let input = example("relu_multicore").join("input.npy");
    for (name, cores) in [("relu_tcm", 1), ("relu_multicore", 8), ("relu_stream", 1)] {
        check_exact(
            name,
            &example(name).join("build"),
            "relu_forward",
            &input,
            &[],
            cores,
        );
    }
    let sort = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/builtin/build");
    let dir = TempDir::new("profile-sort-input");
    let x = dir.join("x.npy");
    let values: Vec<u8> = (0..512u32)
        .flat_map(|i| ((i * 7919 % 512) as f32).to_le_bytes())
        .collect();
    std::fs::write(&x, q7_tests::npy("<f4", &[2, 256], &values)).unwrap();
    check_exact("sort", &sort, "sort_values", &x, &["false"], 8);
}

/// `profile report` reads the table back: the heading says what the core counted, and
/// without symbols (a committed build keeps only the packed image) functions are named by
/// address, the outermost `[dispatch]`.
#[test]
fn the_report_shows_each_cores_total_and_its_hottest_functions() {
    let dir = TempDir::new("profile-report");
    let k = example("relu_tcm");
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(k.join("build"))
        .args(["--op", "relu_forward", "--input"])
        .arg(example("relu_multicore").join("input.npy"))
        .arg("--profile")
        .arg(dir.join("p"));
    ok(cmd);
    let mut cmd = q7emu();
    cmd.args(["profile", "report", "--top", "3", "--inclusive"])
        .arg(dir.join("p"));
    let text = String::from_utf8(ok(cmd).stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "core 0: 7890616 cycles, 5291492 instructions, 1 dispatch",
        "{text}"
    );
    assert!(
        lines[1]
            .trim_start()
            .starts_with("self self% inclusive  incl%"),
        "{text}"
    );
    assert!(lines[1].ends_with("calls  function"), "{text}");
    assert!(lines[2].contains(" 7890616 100.0% "), "{text}");
    assert!(lines[2].ends_with("[dispatch]"), "{text}");
    assert_eq!(lines.len(), 5, "{text}");
}

/// A profile directory that is not one is refused naming the file.
#[test]
fn report_refuses_what_is_not_a_profile() {
    let dir = TempDir::new("profile-refused");
    let mut cmd = q7emu();
    cmd.args(["profile", "report"]).arg(dir.join(""));
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("profile.json: No such file"), "{err}");
    std::fs::write(dir.join("profile.json"), "{\"format\": \"other\"}").unwrap();
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("profile.json: not a q7emu profile of version 1"),
        "{err}"
    );
}

/// docs/profiling.md's commands, as written (their `/tmp/` paths in a directory of the
/// test's): the kernel's own line is the hottest line, its function holds nearly every cycle,
/// and the report shows it.
#[q7_requires::needs(toolchain)]
#[test]
fn the_docs_commands_run_as_written_and_name_the_kernels_own_line() {
    if !q7_run::api::toolchain_installed() {
        return;
    }
    let doc = q7_tests::doc::read("docs/profiling.md");
    let commands = q7_tests::doc::shell_commands(&doc);
    assert_eq!(commands.len(), 3, "build, run, report");
    let dir = TempDir::new("profile-doc");
    let root = dir.join("");
    let root_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::os::unix::fs::symlink(root_dir.join("examples"), root.join("examples")).unwrap();
    let mut outputs = Vec::new();
    for words in &commands {
        assert_eq!(words[0], "q7emu", "{words:?}");
        let args: Vec<String> = words[1..]
            .iter()
            .map(|w| w.replace("/tmp/", &format!("{}/", root.display())))
            .collect();
        let mut cmd = q7emu();
        cmd.current_dir(&root).args(&args);
        outputs.push(String::from_utf8(ok(cmd).stdout).unwrap());
    }
    let profile = Profile::load(&root.join("relu_tcm.prof")).unwrap();
    let core = &profile.cores[0];
    assert!(core.symbols && core.lines_known, "an unstripped build");
    assert_eq!(
        (core.lines[0].file.as_str(), core.lines[0].function.as_str()),
        ("relu_tcm.cpp", "relu_forward(at::Tensor const&)"),
        "the hottest line is the kernel's own: {:?}",
        core.lines[0]
    );
    let kernel = core
        .functions
        .iter()
        .find(|f| f.name == "relu_forward(at::Tensor const&)")
        .unwrap();
    assert_eq!(kernel.calls, 1);
    assert!(
        kernel.inclusive.cycles * 100 > core.total.cycles * 95,
        "the kernel holds most of the dispatch: {} of {}",
        kernel.inclusive.cycles,
        core.total.cycles
    );
    let report = &outputs[2];
    assert!(
        report.lines().nth(2).is_some_and(
            |l| l.ends_with(" compare") || l.ends_with(" relu_forward(at::Tensor const&)")
        ),
        "{report}"
    );
}
