//! `q7_testing` on the committed example builds:
//!
//! - a changed cycle count changes exactly the summary's `cycles` line of that core, so a
//!   snapshot diff names it, and `Summary::outputs_only` does not see it;
//! - a summary of a run is that of its raw outcome, for any host thread count;
//! - the toolchain is looked for where, and required when, the workspace tests look for and
//!   require it.

use std::path::Path;

use q7_tensor::npy;
use q7_testing::{Library, Run, Summary, TimingModel};

fn vector_add() -> (Library, Run) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels/vector_add");
    let lib = Library::open(&dir.join("build")).unwrap();
    let run = Run::new("vector_add")
        .input(npy::read(&dir.join("a.npy")).unwrap())
        .input(npy::read(&dir.join("b.npy")).unwrap());
    (lib, run)
}

/// The lines of `a` and `b` that differ, in pairs (both have as many lines).
fn changed_lines(a: &str, b: &str) -> Vec<(String, String)> {
    assert_eq!(a.lines().count(), b.lines().count(), "{a}\n{b}");
    a.lines()
        .zip(b.lines())
        .filter(|(x, y)| x != y)
        .map(|(x, y)| (x.to_string(), y.to_string()))
        .collect()
}

#[test]
fn a_changed_cycle_count_changes_exactly_that_cores_cycles_line() {
    let (lib, run) = vector_add();
    let base = run.on(&lib).unwrap();
    let slower = TimingModel {
        hbm_latency: TimingModel::default().hbm_latency + 1,
        ..TimingModel::default()
    };
    let slow = run.clone().timing(slower).on(&lib).unwrap();
    let (b, s) = (base.cores.as_ref().unwrap(), slow.cores.as_ref().unwrap());
    assert_eq!(b.len(), 1, "vector_add is a single-core library");
    assert_eq!(
        b[0].instructions, s[0].instructions,
        "the timing model changes no instruction"
    );
    assert!(s[0].cycles > b[0].cycles, "one more cycle per HBM access");
    assert_ne!(base, slow, "the summaries differ");
    assert_eq!(
        changed_lines(&base.text(), &slow.text()),
        [(
            format!("core 0 cycles: {}", b[0].cycles),
            format!("core 0 cycles: {}", s[0].cycles)
        )],
        "the one line a snapshot diff shows"
    );
    assert_eq!(
        base.clone().outputs_only(),
        slow.clone().outputs_only(),
        "outputs only: the same snapshot"
    );
}

#[test]
fn a_summary_is_its_runs_for_any_thread_count() {
    let (lib, run) = vector_add();
    let raw = run.op_run(&lib).unwrap();
    let summary = Summary::of(&raw);
    assert_eq!(summary.op, "vector_add");
    assert_eq!(
        (summary.dtype.as_str(), &summary.shape[..]),
        ("float32", &[1024][..])
    );
    assert_eq!(summary.elements, 1024);
    assert_eq!(
        summary.cores.as_ref().unwrap()[0].cycles,
        raw.cores[0].stats.cycles
    );
    assert_eq!(run.clone().threads(1).on(&lib).unwrap(), summary);
    assert_eq!(run.threads(8).on(&lib).unwrap(), summary);
}

/// `Run::profiled` (docs/profiling.md) gives the profile with the run: for every core, what
/// it attributes adds up to the core's counters of the same run, whatever the thread count.
#[test]
fn a_profiled_run_gives_a_profile_that_adds_up_to_its_counters() {
    let (lib, run) = vector_add();
    let dir = q7_tests::TempDir::new("testing-profile");
    for threads in [1, 2] {
        let (out, profile) = run
            .clone()
            .threads(threads)
            .profiled(&lib, dir.join("p"))
            .unwrap();
        assert_eq!(profile.cores.len(), out.cores.len());
        for (p, c) in profile.cores.iter().zip(&out.cores) {
            assert_eq!(p.core, c.core);
            assert_eq!(p.total.cycles, c.stats.cycles);
            assert_eq!(p.total.instructions, c.stats.instructions);
            assert_eq!(p.total.issue, c.stats.cycles - c.stats.stalls.total());
        }
        let written = q7_observe::profile::model::Profile::load(&dir.join("p")).unwrap();
        let mut returned = profile.clone();
        for c in &mut returned.cores {
            c.samples.clear(); // pprof's samples: not in profile.json
        }
        assert_eq!(written, returned, "profile.json is the profile returned");
    }
}
