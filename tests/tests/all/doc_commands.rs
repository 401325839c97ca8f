//! Every command a document shows in a ```` ```sh ```` block is run by a test (or, for the
//! set-up commands, by `.ci/run`): the table below names, for each document and command, what
//! runs it. A command added to a document without a test that runs it fails here, naming the
//! document and the command; a row whose command left its document fails too.

/// (document, the command's words up to its first flag, what runs it).
const EXECUTED: &[(&str, &str, &str)] = &[
    ("README.md", "cargo run --release -p q7-host -- run examples/kernels/relu_multicore/build",
     "host-stub/tests/all/examples.rs the_main_job_prints_what_the_readme_and_the_run_report_doc_show"),
    ("README.md", "scripts/test.sh", ".ci/run"),
    ("README.md", "cargo build --release -p q7-host", "scripts/bench.sh (run by .ci/run) builds the same binary"),
    ("README.md", "export PATH=$PWD/target/release:$PATH",
     "host-stub/tests/all/examples.rs a_newcomer_follows_the_readme_from_first_kernel_to_its_timeline (runs q7emu from the build)"),
    ("README.md", "q7emu build", "host-stub/tests/all/examples.rs a_newcomer_follows_the_readme_from_first_kernel_to_its_timeline"),
    ("README.md", "q7emu run affine-build", "host-stub/tests/all/examples.rs a_newcomer_follows_the_readme_from_first_kernel_to_its_timeline"),
    ("docs/run-report.md", "q7emu run examples/kernels/relu_multicore/build",
     "host-stub/tests/all/examples.rs the_main_job_prints_what_the_readme_and_the_run_report_doc_show"),
    ("docs/tracing.md", "q7emu run examples/kernels/relu_multicore/build",
     "host-stub/tests/all/trace_cli.rs the_docs_trace_command_runs_as_written"),
    ("docs/gdb.md", "q7emu run examples/kernels/relu_multicore/build",
     "host-stub/tests/all/gdb_server.rs the_real_gdb_runs_the_worked_session"),
    ("docs/checked-mode.md", "q7emu build",
     "host-stub/tests/all/checked_mode.rs a_finding_on_stderr_names_core_line_tensor_and_elements"),
    ("docs/checked-mode.md", "q7emu run uneven-build",
     "host-stub/tests/all/checked_mode.rs a_finding_on_stderr_names_core_line_tensor_and_elements"),
    ("docs/python.md", "pip install ./python",
     "scripts/test.sh (run by .ci/run) installs the package into .venv with this command"),
    ("docs/python.md", "cd examples/torch/mlp && python build.py && python train.py",
     "python/tests/test_torch.py test_the_aws_layout_mlp_example_trains_with_the_losses_of_torch_relu (run by scripts/test.sh, in a copy of the directory)"),
    ("examples/torch/mlp/README.md", "python build.py && python train.py",
     "python/tests/test_torch.py test_the_aws_layout_mlp_example_trains_with_the_losses_of_torch_relu (run by scripts/test.sh, in a copy of the directory)"),
    ("docs/profiling.md", "q7emu build",
     "host-stub/tests/all/profile_cli.rs the_docs_walk_through_runs_as_written"),
    ("docs/profiling.md", "q7emu run /tmp/relu_tcm",
     "host-stub/tests/all/profile_cli.rs the_docs_walk_through_runs_as_written"),
    ("docs/profiling.md", "q7emu profile report /tmp/relu_tcm.prof",
     "host-stub/tests/all/profile_cli.rs the_docs_walk_through_runs_as_written"),
    ("docs/profiling.md", "q7emu profile annotate /tmp/relu_tcm.prof relu_forward",
     "host-stub/tests/all/profile_cli.rs the_docs_walk_through_runs_as_written"),
    ("docs/profiling.md", "cp",
     "host-stub/tests/all/profile_cli.rs the_docs_walk_through_runs_as_written"),
    ("docs/profiling.md", "q7emu run /tmp/relu_tcm_bits.build",
     "host-stub/tests/all/profile_cli.rs the_docs_walk_through_runs_as_written"),
    ("docs/profiling.md", "q7emu profile diff /tmp/relu_tcm.prof /tmp/relu_tcm_bits.prof",
     "host-stub/tests/all/profile_cli.rs the_docs_walk_through_runs_as_written"),
    ("docs/fuzzing.md", "cd examples/fuzzing/relu_multicore && pytest",
     "python/tests/test_fuzzing.py test_the_docs_walk_through_runs_as_written (run by scripts/test.sh, in a copy of the directory)"),
    ("examples/sdk/BUILD.md", "q7emu build", "host-stub/tests/all/build_cli.rs the_build_pages_example_prints_the_eight_images"),
    ("examples/kernels/minimal/README.md", "cargo run --release -p q7-host -- run-packed examples/kernels/minimal/minimal.so",
     "host-stub/tests/all/run_packed_cli.rs the_minimal_examples_readme_command_runs_and_prints_every_core"),
];

/// The kernel examples' READMEs: every `q7emu build` and `q7emu run` of theirs is run by
/// host-stub/tests/all/examples.rs (each_example_runs_as_its_readme_says_and_matches_its_reference,
/// every_example_rebuilds_byte_identical_with_its_readmes_command).
const KERNEL_EXAMPLES: &str = "examples/kernels/";

/// The markdown files of the repository (build output and hidden folders left out).
fn documents() -> Vec<String> {
    fn walk(dir: &std::path::Path, rel: &str, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = format!("{rel}{name}");
            if entry.file_type().unwrap().is_dir() {
                if !name.starts_with('.') && name != "target" && name != "corpus" {
                    walk(&entry.path(), &format!("{path}/"), out);
                }
            } else if name.ends_with(".md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&q7_tests::doc::root(), "", &mut out);
    out.sort();
    out
}

/// A command's words up to its first flag, joined by spaces.
fn head(words: &[String]) -> String {
    words
        .iter()
        .take_while(|w| {
            !w.starts_with('-') || *w == "--" || w.starts_with("--release") || *w == "-p"
        })
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_documented_command_is_run_by_a_test() {
    let mut unrun = Vec::new();
    let mut seen = Vec::new();
    for doc in documents() {
        let text = q7_tests::doc::read(&doc);
        for words in q7_tests::doc::shell_commands(&text) {
            let head = head(&words);
            let kernel_example = doc.starts_with(KERNEL_EXAMPLES)
                && words[0] == "q7emu"
                && matches!(words[1].as_str(), "build" | "run");
            match EXECUTED.iter().find(|(d, h, _)| *d == doc && *h == head) {
                Some(row) => seen.push(*row),
                None if kernel_example => {}
                None => unrun.push(format!("{doc}: {}", words.join(" "))),
            }
        }
    }
    assert!(
        unrun.is_empty(),
        "commands no test runs (run them in a test, then add a row to EXECUTED):\n{}",
        unrun.join("\n")
    );
    let gone: Vec<_> = EXECUTED.iter().filter(|r| !seen.contains(r)).collect();
    assert!(
        gone.is_empty(),
        "rows whose command is no longer in its document: {gone:?}"
    );
}

#[test]
fn a_commands_head_is_its_words_up_to_the_first_flag() {
    let w = |s: &str| q7_tests::doc::words(s);
    assert_eq!(head(&w("q7emu run b --op x")), "q7emu run b");
    assert_eq!(
        head(&w("cargo run --release -p q7-host -- run b --op x")),
        "cargo run --release -p q7-host -- run b"
    );
    assert_eq!(head(&w("scripts/test.sh")), "scripts/test.sh");
}
