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

/// Runs the committed build of example `kernel`'s `relu_forward` on the shared ReLU input
/// with `--profile dir` and `extra` arguments.
fn profiled(kernel: &str, dir: &Path, extra: &[&str]) {
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(example(kernel).join("build"))
        .args(["--op", "relu_forward", "--input"])
        .arg(example("relu_multicore").join("input.npy"))
        .arg("--profile")
        .arg(dir)
        .args(extra);
    ok(cmd);
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

/// `profile report` reads the table back: the heading says what the core counted, the next
/// line its phases (as the timeline's spans of them, docs/tracing.md), and without symbols (a committed build keeps only the packed image) functions are named by
/// address, the outermost `[dispatch]`.
#[test]
fn the_report_shows_each_cores_total_and_its_hottest_functions() {
    let dir = TempDir::new("profile-report");
    profiled("relu_tcm", &dir.join("p"), &[]);
    let mut cmd = q7emu();
    cmd.args(["profile", "report", "--top", "3", "--inclusive"])
        .arg(dir.join("p"));
    let text = String::from_utf8(ok(cmd).stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "core 0: 7890616 cycles, 5291492 instructions, 1 dispatch",
        "{text}"
    );
    assert_eq!(
        lines[1],
        "phases: setup 1527 (0.0%), marshal 71 (0.0%), compute 7778996 (98.6%), \
         return 109616 (1.4%), cleanup 77 (0.0%), outside 329 (0.0%)",
        "{text}"
    );
    assert!(
        lines[2]
            .trim_start()
            .starts_with("self self% inclusive  incl%"),
        "{text}"
    );
    assert!(lines[2].ends_with("calls  function"), "{text}");
    assert!(lines[3].contains(" 7890616 100.0% "), "{text}");
    assert!(lines[3].ends_with("[dispatch]"), "{text}");
    assert_eq!(lines.len(), 6, "{text}");
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

/// docs/profiling.md's walk through the TCM ReLU, as written (its `/tmp/` paths in a
/// directory of the test's, its `cp` run as shown and its `cpp` block put in the copy): each
/// output the document shows is what the command prints; the kernel's own line is the hottest
/// line; the kernel function runs inside the compute phase; the change keeps the output.
#[q7_requires::needs(toolchain)]
#[test]
fn the_docs_walk_through_runs_as_written() {
    if !q7_run::api::toolchain_installed() {
        return;
    }
    let doc = q7_tests::doc::read("docs/profiling.md");
    let commands = q7_tests::doc::shell_commands(&doc);
    let shown = q7_tests::doc::fenced(&doc, "text");
    let edit = q7_tests::doc::first_fenced(&doc, "cpp");
    let dir = TempDir::new("profile-doc");
    let root = dir.join("");
    let root_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::os::unix::fs::symlink(root_dir.join("examples"), root.join("examples")).unwrap();
    let tmp = |w: &String| w.replace("/tmp/", &format!("{}/", root.display()));
    let mut outputs = Vec::new();
    for words in &commands {
        let args: Vec<String> = words[1..].iter().map(tmp).collect();
        if words[0] == "cp" {
            let mut cmd = std::process::Command::new("cp");
            cmd.current_dir(&root).args(&args);
            ok(cmd);
            // The change the document shows, made in the copy.
            let file = root.join(&args[2]).join("relu_tcm.cpp");
            let source = std::fs::read_to_string(&file).unwrap();
            let before = "\t\t\tfor (size_t j = 0; j < n; j++)\n\t\t\t\tbuf[j] = buf[j] > 0.0 ? buf[j] : 0.0;\n";
            assert!(source.contains(before), "the loop of the committed kernel");
            std::fs::write(&file, source.replace(before, &edit)).unwrap();
            continue;
        }
        assert_eq!(words[0], "q7emu", "{words:?}");
        let mut cmd = q7emu();
        cmd.current_dir(&root).args(&args);
        outputs.push((args, String::from_utf8(ok(cmd).stdout).unwrap()));
    }
    let printed = |sub: &str| {
        outputs
            .iter()
            .find(|(a, _)| a.len() > 1 && a[0] == "profile" && a[1] == sub)
            .map(|(_, out)| out.clone())
            .unwrap_or_else(|| panic!("no q7emu profile {sub}"))
    };
    // The report and the diff begin as shown; the annotation holds the lines shown.
    let report = printed("report");
    assert!(
        report.starts_with(&shown[0]),
        "{report}\nshown:\n{}",
        shown[0]
    );
    let annotation = printed("annotate");
    for line in shown[1].lines() {
        assert!(annotation.contains(line), "{line:?} in\n{annotation}");
    }
    let diff = printed("diff");
    assert!(diff.starts_with(&shown[2]), "{diff}\nshown:\n{}", shown[2]);

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
    // The kernel function runs inside the compute phase, which adds only the runtime's glue
    // around the call: the end of the last argument's marshalling and the start of the return.
    let compute = core.phases.iter().find(|p| p.name == "compute").unwrap();
    assert!(
        kernel.inclusive.cycles <= compute.own.cycles
            && compute.own.cycles - kernel.inclusive.cycles < 2_000,
        "the kernel ({}) within the compute phase ({})",
        kernel.inclusive.cycles,
        compute.own.cycles
    );
    // The changed kernel computes the same output.
    let output = |build: &str, name: &str| {
        let mut cmd = q7emu();
        cmd.current_dir(&root)
            .args(["run", build, "--op", "relu_forward", "--input"])
            .arg("examples/kernels/relu_multicore/input.npy")
            .arg("--output")
            .arg(root.join(name));
        ok(cmd);
        std::fs::read(root.join(name)).unwrap()
    };
    assert_eq!(
        output("relu_tcm", "a.npy"),
        output("relu_tcm_bits.build", "b.npy"),
        "the change keeps the output"
    );
}

/// One field of a protocol-buffer message: a varint or a length-delimited body.
#[derive(Debug)]
enum Field<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
}

/// The fields of a protocol-buffer message, in order (varints and length-delimited only:
/// all pprof's format uses).
fn fields(mut b: &[u8]) -> Vec<(u32, Field<'_>)> {
    fn varint(b: &mut &[u8]) -> u64 {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = b[0];
            *b = &b[1..];
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                break;
            }
        }
        v
    }
    let mut out = Vec::new();
    while !b.is_empty() {
        let key = varint(&mut b);
        let field = (key >> 3) as u32;
        match key & 7 {
            0 => out.push((field, Field::Varint(varint(&mut b)))),
            2 => {
                let len = varint(&mut b) as usize;
                out.push((field, Field::Bytes(&b[..len])));
                b = &b[len..];
            }
            w => panic!("wire type {w}"),
        }
    }
    out
}

/// The varints of a packed repeated field's body.
fn packed(mut b: &[u8]) -> Vec<u64> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = b[0];
            b = &b[1..];
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                break;
            }
        }
        out.push(v);
    }
    out
}

/// The flame graphs (parsed as XML) and `profile.pb.gz` (decoded as pprof's `Profile`
/// message) say what `profile.json` says: every function frame's tooltip is its counts, and
/// per sample type the samples add up to the cluster's total.
#[test]
fn the_flame_graphs_and_pprof_agree_with_profile_json() {
    use q7_observe::profile::{flame, model, pprof};
    let dir = TempDir::new("profile-formats");
    let p = dir.join("p");
    profiled("relu_multicore", &p, &[]);
    let profile = Profile::load(&p).unwrap();
    let mut total = Counts::default();
    for c in &profile.cores {
        total.add(&c.total);
    }

    // The cluster's flame graph: one title per frame; every function's is its tooltip.
    let svg = std::fs::read_to_string(p.join("flame.svg")).unwrap();
    let mut reader = quick_xml::Reader::from_str(&svg);
    let (mut titles, mut in_title) = (Vec::new(), false);
    loop {
        match reader.read_event().unwrap() {
            quick_xml::events::Event::Start(e) if e.name().as_ref() == b"title" => in_title = true,
            quick_xml::events::Event::Text(t) if in_title => {
                titles.push(t.decode().unwrap().into_owned());
                in_title = false;
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    let functions = model::merge(profile.cores.iter().flat_map(|c| c.functions.iter()));
    let tooltips: Vec<String> = functions
        .iter()
        .map(|f| flame::tooltip(f, total.cycles))
        .collect();
    for t in titles.iter().filter(|t| t.contains(": self ")) {
        assert!(
            tooltips.contains(t),
            "flame.svg's {t:?} is no function's tooltip"
        );
    }
    // Frames narrower than a tenth of a pixel are left out; a function of 1 % is drawn.
    for (f, want) in functions.iter().zip(&tooltips) {
        if f.inclusive.cycles * 100 >= total.cycles {
            assert!(titles.contains(want), "flame.svg lacks {want:?}");
        }
    }
    for core in &profile.cores {
        assert!(p.join(format!("flame-core{}.svg", core.core)).is_file());
    }

    // pprof: its sample types, and per type the values of its samples add up to the total.
    let gz = std::fs::read(p.join("profile.pb.gz")).unwrap();
    let mut pb = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut pb).unwrap();
    let top = fields(&pb);
    let strings: Vec<String> = top
        .iter()
        .filter_map(|(f, v)| match (f, v) {
            (6, Field::Bytes(b)) => Some(String::from_utf8(b.to_vec()).unwrap()),
            _ => None,
        })
        .collect();
    assert_eq!(strings[0], "", "string 0 is empty");
    let types: Vec<(String, String)> = top
        .iter()
        .filter_map(|(f, v)| match (f, v) {
            (1, Field::Bytes(b)) => {
                let vt = fields(b);
                let s = |n| match vt.iter().find(|(f, _)| *f == n) {
                    Some((_, Field::Varint(i))) => strings[*i as usize].clone(),
                    _ => String::new(),
                };
                Some((s(1), s(2)))
            }
            _ => None,
        })
        .collect();
    let want: Vec<(String, String)> = pprof::sample_types()
        .into_iter()
        .map(|(t, u)| (t, u.to_string()))
        .collect();
    assert_eq!(types, want);
    let mut sums = vec![0u64; types.len()];
    let mut cores = std::collections::BTreeSet::new();
    for (f, v) in &top {
        if let (2, Field::Bytes(b)) = (f, v) {
            for (sf, sv) in fields(b) {
                match (sf, sv) {
                    (2, Field::Bytes(vals)) => {
                        for (i, x) in packed(vals).into_iter().enumerate() {
                            sums[i] += x;
                        }
                    }
                    (3, Field::Bytes(label)) => {
                        for (lf, lv) in fields(label) {
                            if let (2, Field::Varint(n)) = (lf, lv) {
                                cores.insert(strings[n as usize].clone());
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    assert_eq!(
        sums,
        pprof::values(&total),
        "pprof's totals per sample type"
    );
    assert_eq!(
        cores.len(),
        profile.cores.len(),
        "every core's samples are labelled"
    );
}

/// Builds the TCM ReLU from `source` (its project, with the source replaced) into `dir` and
/// profiles it on the shared input into `dir/profile`.
fn profile_relu_tcm(dir: &Path, source: &str) -> std::path::PathBuf {
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let k = example("relu_tcm");
    std::fs::copy(k.join("shape.cpp"), project.join("shape.cpp")).unwrap();
    std::fs::write(project.join("relu_tcm.cpp"), source).unwrap();
    let mut cmd = q7emu();
    cmd.args(["build", "--project"])
        .arg(&project)
        .arg("-o")
        .arg(dir.join("build"));
    ok(cmd);
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(dir.join("build"))
        .args(["--op", "relu_forward", "--input"])
        .arg(example("relu_multicore").join("input.npy"))
        .arg("--profile")
        .arg(dir.join("profile"));
    ok(cmd);
    dir.join("profile")
}

/// `profile annotate` of the TCM ReLU's kernel function: its lines and instructions with
/// their cycles, as the snapshot holds them (builds are reproducible, so is the annotation).
#[q7_requires::needs(toolchain)]
#[test]
fn annotate_shows_the_kernels_lines_and_instructions_with_their_cycles() {
    if !q7_run::api::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("profile-annotate");
    let source = std::fs::read_to_string(example("relu_tcm").join("relu_tcm.cpp")).unwrap();
    let p = profile_relu_tcm(&dir.join(""), &source);
    let mut cmd = q7emu();
    cmd.args(["profile", "annotate", "--source-dir"])
        .arg(dir.join("project"))
        .arg(&p)
        .arg("relu_forward");
    let text = String::from_utf8(ok(cmd).stdout).unwrap();
    q7_testing::snapshot_settings!().bind(|| {
        insta::assert_snapshot!("relu_tcm-annotate", text);
    });
    // By lines, inclusive: the kernel's loop line holds the soft-float calls it makes, so it
    // comes first of the kernel's own lines, above the SDK routines' lines it calls.
    let mut cmd = q7emu();
    cmd.args(["profile", "report", "--lines", "--inclusive", "--top", "5"])
        .arg(&p);
    let report = String::from_utf8(ok(cmd).stdout).unwrap();
    let rows: Vec<&str> = report.lines().skip(3).collect();
    let kernel_line = rows
        .iter()
        .position(|r| r.contains(" relu_tcm.cpp:"))
        .expect("a line of the kernel's own");
    assert!(
        rows[kernel_line].ends_with(" relu_tcm.cpp:22 (relu_forward(at::Tensor const&))"),
        "{report}"
    );
    let sdk_line = rows
        .iter()
        .position(|r| r.contains(" sdk/rt/helpers/"))
        .unwrap();
    assert!(kernel_line < sdk_line, "{report}");
    // A name that matches nothing is refused, naming it.
    let mut cmd = q7emu();
    cmd.args(["profile", "annotate"])
        .arg(&p)
        .arg("no_such_function");
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("no_such_function: no function of that name in the profile"));
}

/// `profile diff` of the TCM ReLU against itself with its inner loop unrolled by two (in
/// place: the same lines): the loop's lines fall, and nothing outside the kernel function
/// moves.
#[q7_requires::needs(toolchain)]
#[test]
fn diff_of_an_unrolled_loop_shows_the_loops_lines_falling_and_nothing_else_moving() {
    if !q7_run::api::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("profile-diff");
    let source = std::fs::read_to_string(example("relu_tcm").join("relu_tcm.cpp")).unwrap();
    let loop_lines =
        "\t\t\tfor (size_t j = 0; j < n; j++)\n\t\t\t\tbuf[j] = buf[j] > 0.0 ? buf[j] : 0.0;\n";
    assert!(source.contains(loop_lines));
    let unrolled = source.replace(
        loop_lines,
        "\t\t\tfor (size_t j = 0; j + 1 < n; j += 2) { buf[j] = buf[j] > 0.0 ? buf[j] : 0.0; buf[j + 1] = buf[j + 1] > 0.0 ? buf[j + 1] : 0.0; }\n\t\t\tif (n & 1) buf[n - 1] = buf[n - 1] > 0.0 ? buf[n - 1] : 0.0;\n",
    );
    let a = profile_relu_tcm(&dir.join("a"), &source);
    let b = profile_relu_tcm(&dir.join("b"), &unrolled);
    let pa = Profile::load(&a).unwrap();
    let pb = Profile::load(&b).unwrap();
    let d = q7_observe::profile::diff::diff(&pa, &pb, None);
    assert!(d.total.delta() < 0, "unrolling saves cycles: {:?}", d.total);
    let functions: Vec<&str> = d.functions.iter().map(|c| c.what.as_str()).collect();
    assert_eq!(
        functions,
        ["relu_forward(at::Tensor const&)"],
        "only the kernel moves"
    );
    for c in &d.lines {
        assert!(
            c.what.starts_with("relu_tcm.cpp:"),
            "only the kernel's own lines move: {c:?}"
        );
    }
    let loop_change: i128 = d
        .lines
        .iter()
        .filter(|c| {
            c.what.starts_with("relu_tcm.cpp:21 ") || c.what.starts_with("relu_tcm.cpp:22 ")
        })
        .map(|c| c.delta())
        .sum();
    assert!(loop_change < 0, "the loop's lines fall: {:?}", d.lines);
    // The command prints the same diff.
    let mut cmd = q7emu();
    cmd.args(["profile", "diff"]).arg(&a).arg(&b);
    let text = String::from_utf8(ok(cmd).stdout).unwrap();
    assert!(
        text.starts_with(&format!(
            "cycles: {} → {} ({}",
            d.total.a.cycles,
            d.total.b.cycles,
            d.total.delta()
        )),
        "{text}"
    );
    assert!(text.contains("\nfunctions (1 changed)\n"), "{text}");
}

/// A profile is the same whatever else observes the run and on any host thread count:
/// checked mode and a timeline alongside (the cores then run with the shared tracer), or 1 or
/// 2 threads, give the same `profile.json`, byte for byte.
#[test]
fn a_profile_is_the_same_alone_with_checked_mode_and_on_any_thread_count() {
    let dir = TempDir::new("profile-alongside");
    let profile = |name: &str, extra: &[&str]| {
        profiled("relu_multicore", &dir.join(name), extra);
        std::fs::read(dir.join(name).join("profile.json")).unwrap()
    };
    let alone = profile("alone", &["--threads", "1"]);
    assert_eq!(profile("threads", &["--threads", "2"]), alone);
    let timeline = dir.join("timeline.json");
    let with = profile(
        "with",
        &["--check", "--timeline", timeline.to_str().unwrap()],
    );
    assert_eq!(with, alone, "checked mode and a timeline change no profile");
}
