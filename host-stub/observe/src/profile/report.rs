//! `q7emu profile report DIR` (docs/profiling.md "Reading a profile"): the top functions of each core
//! and of the cluster by self or inclusive cycles, with their share of the total and the
//! split of their cycles into issue cycles and the stall categories that occur.

use super::model::{Counts, Function, Line, Profile};

/// What the table is ordered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// A function's own instructions' cycles.
    #[default]
    Own,
    /// The cycles of every path through it.
    Inclusive,
}

/// What `profile report` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Rows per table.
    pub top: usize,
    /// Their order.
    pub order: Order,
    /// One core's table alone, else every core's and the cluster's.
    pub core: Option<u32>,
    /// Source lines (`file:line (function)`) instead of functions.
    pub lines: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            top: 20,
            order: Order::Own,
            core: None,
            lines: false,
        }
    }
}

/// One row of a table, as Python's `Run.profile` gives it too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The function, or the line as `file:line (function)`.
    pub function: String,
    /// Its own counts.
    pub own: Counts,
    /// Its inclusive counts.
    pub inclusive: Counts,
    /// Times called (0 for a line).
    pub calls: u64,
}

/// One table: a core's, or the cluster's (`core` `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The core, or `None` for the cluster.
    pub core: Option<u32>,
    /// The total of the table's cores.
    pub total: Counts,
    /// Dispatches profiled.
    pub calls: u64,
    /// The top rows.
    pub rows: Vec<Row>,
}

/// The row of a line.
fn line_row(l: &Line) -> Row {
    Row {
        function: format!("{}:{} ({})", l.file, l.line, l.function),
        own: l.own.clone(),
        inclusive: l.inclusive.clone(),
        calls: 0,
    }
}

fn row(f: &Function) -> Row {
    Row {
        function: f.name.clone(),
        own: f.own.clone(),
        inclusive: f.inclusive.clone(),
        calls: f.calls,
    }
}

/// The rows of `rows` in `order`, the first `top`.
fn top(mut rows: Vec<Row>, order: Order, top: usize) -> Vec<Row> {
    let key = |r: &Row| match order {
        Order::Own => (r.own.cycles, r.inclusive.cycles),
        Order::Inclusive => (r.inclusive.cycles, r.own.cycles),
    };
    rows.sort_by(|a, b| {
        key(b)
            .cmp(&key(a))
            .then_with(|| a.function.cmp(&b.function))
    });
    rows.truncate(top);
    rows
}

/// The tables `options` asks for: each core's, then the cluster's when there is more than
/// one core (functions of the same name added together).
pub fn tables(profile: &Profile, options: &Options) -> Vec<Table> {
    let mut out = Vec::new();
    for core in &profile.cores {
        if options.core.is_some_and(|c| c != core.core) {
            continue;
        }
        out.push(Table {
            core: Some(core.core),
            total: core.total.clone(),
            calls: core.calls,
            rows: top(
                if options.lines {
                    core.lines.iter().map(line_row).collect()
                } else {
                    core.functions.iter().map(row).collect()
                },
                options.order,
                options.top,
            ),
        });
    }
    if options.core.is_none() && profile.cores.len() > 1 {
        let mut total = Counts::default();
        for core in &profile.cores {
            total.add(&core.total);
        }
        let rows: Vec<Row> = if options.lines {
            merge_rows(
                profile
                    .cores
                    .iter()
                    .flat_map(|c| c.lines.iter().map(line_row)),
            )
        } else {
            merge_rows(
                profile
                    .cores
                    .iter()
                    .flat_map(|c| c.functions.iter().map(row)),
            )
        };
        out.push(Table {
            core: None,
            total,
            calls: profile.cores.iter().map(|c| c.calls).sum(),
            rows: top(rows, options.order, options.top),
        });
    }
    out
}

/// Rows of the same label added together.
fn merge_rows(rows: impl Iterator<Item = Row>) -> Vec<Row> {
    let mut merged: std::collections::BTreeMap<String, Row> = Default::default();
    for r in rows {
        match merged.get_mut(&r.function) {
            Some(m) => {
                m.own.add(&r.own);
                m.inclusive.add(&r.inclusive);
                m.calls += r.calls;
            }
            None => {
                merged.insert(r.function.clone(), r);
            }
        }
    }
    merged.into_values().collect()
}

/// `part` as a percentage of `whole`, one decimal.
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".to_string();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

/// The tables as text: a heading per table, then a column per count (the stall categories
/// that occur in the table's total, in the run report's order) and the function last.
pub fn render(profile: &Profile, options: &Options) -> String {
    let mut out = String::new();
    for (i, table) in tables(profile, options).iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let who = match table.core {
            Some(c) => format!("core {c}"),
            None => format!("cluster ({} cores)", profile.cores.len()),
        };
        out.push_str(&format!(
            "{who}: {} cycles, {} instructions, {} dispatch{}\n",
            table.total.cycles,
            table.total.instructions,
            table.calls,
            if table.calls == 1 { "" } else { "es" }
        ));
        if let Some(core) = table
            .core
            .and_then(|c| profile.cores.iter().find(|p| p.core == c))
        {
            let phases: Vec<String> = core
                .phases
                .iter()
                .map(|p| {
                    format!(
                        "{} {} ({})",
                        p.name,
                        p.own.cycles,
                        share(p.own.cycles, table.total.cycles)
                    )
                })
                .collect();
            if !phases.is_empty() {
                out.push_str(&format!("phases: {}\n", phases.join(", ")));
            }
        }
        let categories: Vec<&String> = profile
            .categories
            .iter()
            .filter(|c| table.total.stall(c) != 0)
            .collect();
        let mut header = vec![
            "self".to_string(),
            "self%".to_string(),
            "inclusive".to_string(),
            "incl%".to_string(),
            "issue".to_string(),
        ];
        header.extend(categories.iter().map(|c| c.to_string()));
        header.push(if options.lines { "" } else { "calls" }.to_string());
        let mut rows: Vec<Vec<String>> = vec![header];
        for r in &table.rows {
            let shown = match options.order {
                Order::Own => &r.own,
                Order::Inclusive => &r.inclusive,
            };
            let mut cells = vec![
                r.own.cycles.to_string(),
                share(r.own.cycles, table.total.cycles),
                r.inclusive.cycles.to_string(),
                share(r.inclusive.cycles, table.total.cycles),
                shown.issue.to_string(),
            ];
            cells.extend(categories.iter().map(|c| shown.stall(c).to_string()));
            cells.push(if options.lines {
                String::new()
            } else {
                r.calls.to_string()
            });
            rows.push(cells);
        }
        let widths: Vec<usize> = (0..rows[0].len())
            .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
            .collect();
        for (n, cells) in rows.iter().enumerate() {
            let mut line = String::from(" ");
            for (cell, w) in cells.iter().zip(&widths) {
                line.push_str(&format!(" {cell:>w$}"));
            }
            line.push_str("  ");
            line.push_str(if n == 0 {
                if options.lines {
                    "line"
                } else {
                    "function"
                }
            } else {
                &table.rows[n - 1].function
            });
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    if out.is_empty() {
        out.push_str("no dispatch was profiled\n");
    }
    out
}
