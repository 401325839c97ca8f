//! Folded stacks (docs/profiling.md "Folded stacks"): one line per call path, its frames
//! outermost first separated by `;`, a space and the cycles its innermost frame's own
//! instructions took on that path — the input of flame-graph tools.

use std::collections::BTreeMap;

use super::model::{CoreProfile, Profile};

/// A frame as a folded line holds it: `;` would split it, so it is written `:`.
fn frame(name: &str) -> String {
    name.replace(';', ":")
}

/// The folded lines of `stacks` (frames, cycles), in path order, paths of no cycles left out.
fn lines<'a>(stacks: impl Iterator<Item = (&'a [String], u64)>) -> String {
    let mut merged: BTreeMap<String, u64> = BTreeMap::new();
    for (frames, cycles) in stacks {
        if cycles == 0 {
            continue;
        }
        let path: Vec<String> = frames.iter().map(|f| frame(f)).collect();
        *merged.entry(path.join(";")).or_default() += cycles;
    }
    let mut out = String::new();
    for (path, cycles) in merged {
        out.push_str(&format!("{path} {cycles}\n"));
    }
    out
}

/// The folded stacks of one core.
pub fn of_core(core: &CoreProfile) -> String {
    lines(
        core.stacks
            .iter()
            .map(|s| (s.frames.as_slice(), s.own.cycles)),
    )
}

/// The folded stacks of the cluster: every core's, the same paths added together.
pub fn of_cluster(profile: &Profile) -> String {
    lines(
        profile
            .cores
            .iter()
            .flat_map(|c| c.stacks.iter())
            .map(|s| (s.frames.as_slice(), s.own.cycles)),
    )
}
