//! Flame graphs (docs/profiling.md "Flame graphs"): the folded stacks drawn by the `inferno`
//! crate as the FlameGraph tool's searchable SVG, one of the cluster and one per core. Each
//! function's tooltip gives its self and inclusive cycles and how its self cycles split into
//! issue cycles and stall categories.

use std::io::BufReader;

use inferno::flamegraph::{self, FuncFrameAttrsMap, Options};

use super::model::Function;

/// What a function's tooltip says: its name, then in parentheses its self cycles with their
/// split, its inclusive cycles and their share of `total`, and its calls.
pub fn tooltip(f: &Function, total: u64) -> String {
    let mut split = vec![format!("issue {}", f.own.issue)];
    split.extend(f.own.stalls.iter().map(|(label, n)| format!("{label} {n}")));
    let share = if total == 0 {
        0.0
    } else {
        f.inclusive.cycles as f64 * 100.0 / total as f64
    };
    // The graph's script labels a frame with its tooltip less the last parenthesised group,
    // as it does the default `name (N cycles, P%)`: the counts go in that group, which holds
    // no parenthesis of its own.
    format!(
        "{} (self {} cycles: {}; inclusive {} cycles, {share:.2}%; {} calls)",
        f.name,
        f.own.cycles,
        split.join(", "),
        f.inclusive.cycles,
        f.calls
    )
}

/// The SVG of `folded` (folded-stack lines) titled `title`, each of `functions` with its
/// tooltip ([`tooltip`], shares of `total` cycles). The same input gives the same bytes;
/// folded stacks of no cycles are refused (`InvalidData`).
pub fn svg(
    folded: &str,
    title: &str,
    functions: &[Function],
    total: u64,
) -> std::io::Result<Vec<u8>> {
    // inferno reads per-function attributes as `name<TAB>title=text` lines.
    let mut attrs = String::new();
    for f in functions {
        let text = tooltip(f, total).replace(['\t', '\n'], " ");
        attrs.push_str(&format!("{}\ttitle={text}\n", f.name.replace(';', ":")));
    }
    let mut options = Options::default();
    options.title = title.to_string();
    options.count_name = "cycles".to_string();
    options.name_type = "Function:".to_string();
    options.deterministic = true;
    options.hash = true;
    options.func_frameattrs = FuncFrameAttrsMap::from_reader(BufReader::new(attrs.as_bytes()))?;
    let mut out = Vec::new();
    flamegraph::from_lines(&mut options, folded.lines(), &mut out)?;
    Ok(out)
}
