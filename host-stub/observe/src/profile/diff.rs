//! `q7emu profile diff DIR_A DIR_B` (docs/profiling.md "Diff"): per function and per source
//! line, how the cycles and each stall category changed between two profiles — matched by
//! function name and by file and line, never by address, so a rebuilt kernel compares with
//! the one before it.

use std::collections::BTreeMap;

use super::model::{Counts, Profile};

/// One function's or line's counts in A and in B (zero where it is absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The function's name, or the line's `file:line` (with its function).
    pub what: String,
    /// Its counts in A.
    pub a: Counts,
    /// Its counts in B.
    pub b: Counts,
}

impl Change {
    /// B's cycles less A's.
    pub fn delta(&self) -> i128 {
        i128::from(self.b.cycles) - i128::from(self.a.cycles)
    }

    /// Per stall category (and `issue`), B's less A's, the categories that changed.
    pub fn categories(&self) -> Vec<(String, i128)> {
        let mut out = Vec::new();
        let issue = i128::from(self.b.issue) - i128::from(self.a.issue);
        if issue != 0 {
            out.push(("issue".to_string(), issue));
        }
        let mut labels: Vec<&String> = self.a.stalls.keys().chain(self.b.stalls.keys()).collect();
        labels.sort();
        labels.dedup();
        for l in labels {
            let d = i128::from(self.b.stall(l)) - i128::from(self.a.stall(l));
            if d != 0 {
                out.push((l.clone(), d));
            }
        }
        out
    }
}

/// The functions and lines of two profiles, matched by name and by `file:line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    /// Each core's (or, for the cluster, every core's) total in A and B.
    pub total: Change,
    /// Per function, the ones that changed, biggest change first.
    pub functions: Vec<Change>,
    /// Per source line, the ones that changed, biggest change first.
    pub lines: Vec<Change>,
}

/// Adds `c` to `map[key]`'s A side (`b` false) or B side.
fn add(map: &mut BTreeMap<String, Change>, key: String, c: &Counts, b: bool) {
    let e = map.entry(key.clone()).or_insert_with(|| Change {
        what: key,
        a: Counts::default(),
        b: Counts::default(),
    });
    if b {
        e.b.add(c);
    } else {
        e.a.add(c);
    }
}

/// The changes from `a` to `b`, over `core` alone or every core's together.
pub fn diff(a: &Profile, b: &Profile, core: Option<u32>) -> Diff {
    let mut total = Change {
        what: "total".to_string(),
        a: Counts::default(),
        b: Counts::default(),
    };
    let mut functions = BTreeMap::new();
    let mut lines = BTreeMap::new();
    for (side, profile) in [(false, a), (true, b)] {
        for c in profile
            .cores
            .iter()
            .filter(|c| core.is_none_or(|n| n == c.core))
        {
            if side {
                total.b.add(&c.total);
            } else {
                total.a.add(&c.total);
            }
            for f in &c.functions {
                add(&mut functions, f.name.clone(), &f.own, side);
            }
            for l in &c.lines {
                let key = format!("{}:{} ({})", l.file, l.line, l.function);
                add(&mut lines, key, &l.own, side);
            }
        }
    }
    let changed = |m: BTreeMap<String, Change>| {
        let mut v: Vec<Change> = m.into_values().filter(|c| c.a != c.b).collect();
        v.sort_by(|x, y| {
            y.delta()
                .abs()
                .cmp(&x.delta().abs())
                .then_with(|| x.what.cmp(&y.what))
        });
        v
    };
    Diff {
        total,
        functions: changed(functions),
        lines: changed(lines),
    }
}

/// A signed count: `+12`, `-3`, `0`.
fn signed(n: i128) -> String {
    if n > 0 {
        format!("+{n}")
    } else {
        n.to_string()
    }
}

/// The change as a share of A's cycles.
fn percent(c: &Change) -> String {
    if c.a.cycles == 0 {
        return "new".to_string();
    }
    format!("{:+.1}%", c.delta() as f64 * 100.0 / c.a.cycles as f64)
}

/// One table of changes, the first `top`.
fn table(
    out: &mut String,
    heading: &str,
    changes: &[Change],
    top: usize,
    escape: &dyn Fn(&str) -> String,
) {
    out.push_str(&format!("\n{heading} ({} changed)\n", changes.len()));
    if changes.is_empty() {
        return;
    }
    out.push_str(&format!(
        "{:>12} {:>12} {:>12} {:>8}  {}\n",
        "A", "B", "change", "%", "what [by category]"
    ));
    for c in changes.iter().take(top) {
        let split: Vec<String> = c
            .categories()
            .iter()
            .map(|(l, d)| format!("{l} {}", signed(*d)))
            .collect();
        out.push_str(&format!(
            "{:>12} {:>12} {:>12} {:>8}  {} [{}]\n",
            c.a.cycles,
            c.b.cycles,
            signed(c.delta()),
            percent(c),
            escape(&c.what),
            split.join(", ")
        ));
    }
}

/// The diff as text: the totals, then the functions and the lines that changed, biggest
/// change first, at most `top` of each.
pub fn render(d: &Diff, top: usize, escape: &dyn Fn(&str) -> String) -> String {
    let split: Vec<String> = d
        .total
        .categories()
        .iter()
        .map(|(l, n)| format!("{l} {}", signed(*n)))
        .collect();
    let mut out = format!(
        "cycles: {} → {} ({}, {}) [{}]\n",
        d.total.a.cycles,
        d.total.b.cycles,
        signed(d.total.delta()),
        percent(&d.total),
        split.join(", ")
    );
    table(&mut out, "functions", &d.functions, top, escape);
    table(&mut out, "lines", &d.lines, top, escape);
    out
}
