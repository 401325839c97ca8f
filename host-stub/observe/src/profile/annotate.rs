//! `q7emu profile annotate DIR FUNCTION` (docs/profiling.md "Annotate"): a function's source
//! lines interleaved with its instructions, each line and instruction with its cycles, share
//! and stall split, as `perf annotate` shows a function; hot lines coloured on a terminal.

use std::path::{Path, PathBuf};

use super::model::{CoreProfile, Counts, Instruction, Profile};

/// Why a function cannot be annotated.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AnnotateError {
    /// No profiled core has a function of that name.
    #[error("{name}: no function of that name in the profile{}", cores_hint(.core))]
    Unknown {
        /// The name asked for.
        name: String,
        /// The core asked for.
        core: Option<u32>,
    },
    /// The name matches more than one function.
    #[error("{name}: {} functions match ({}); give the whole name", candidates.len(), candidates.join(", "))]
    Ambiguous {
        /// The name asked for.
        name: String,
        /// The functions it matches.
        candidates: Vec<String>,
    },
    /// `--core` names a core the profile does not hold.
    #[error("--core {core}: the profile has no core {core} (profiled: {profiled})")]
    NoCore {
        /// The core.
        core: u32,
        /// The cores it holds.
        profiled: String,
    },
}

fn cores_hint(core: &Option<u32>) -> String {
    core.map(|c| format!(" of core {c}")).unwrap_or_default()
}

/// Whether `query` names `function`: its whole demangled name, or that name without its
/// parameter list or `(anonymous namespace)::` qualifiers (the spellings `--trace-fn` takes).
fn names(function: &str, query: &str) -> bool {
    q7_symbols::spellings(function).iter().any(|s| s == query)
}

/// The core and function `query` names in `profile` (on `core`, else on the first core that
/// has it).
pub fn find<'a>(
    profile: &'a Profile,
    query: &str,
    core: Option<u32>,
) -> Result<(&'a CoreProfile, String), AnnotateError> {
    if let Some(c) = core {
        if !profile.cores.iter().any(|p| p.core == c) {
            let profiled: Vec<String> = profile.cores.iter().map(|p| p.core.to_string()).collect();
            return Err(AnnotateError::NoCore {
                core: c,
                profiled: profiled.join(", "),
            });
        }
    }
    for p in profile
        .cores
        .iter()
        .filter(|p| core.is_none_or(|c| c == p.core))
    {
        let mut found: Vec<&str> = p
            .functions
            .iter()
            .filter(|f| names(&f.name, query))
            .map(|f| f.name.as_str())
            .collect();
        found.sort_unstable();
        found.dedup();
        match found.as_slice() {
            [] => continue,
            [one] => return Ok((p, one.to_string())),
            many => {
                return Err(AnnotateError::Ambiguous {
                    name: query.to_string(),
                    candidates: many.iter().map(|s| s.to_string()).collect(),
                })
            }
        }
    }
    Err(AnnotateError::Unknown {
        name: query.to_string(),
        core,
    })
}

/// Where source files are looked for: the SDK's files (`sdk/…`) under the SDK directory, the
/// others under each of the source directories in turn.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The SDK directory (what `sdk/` stands for in the line tables).
    pub sdk: Option<PathBuf>,
    /// Directories the kernel's own files are looked for in, in order.
    pub dirs: Vec<PathBuf>,
}

impl Sources {
    /// The text of line `line` (1-based) of `file`, when the file is found.
    fn line(&self, file: &str, line: u32) -> Option<String> {
        let path = match (file.strip_prefix("sdk/"), &self.sdk) {
            (Some(rest), Some(sdk)) => sdk.join(rest),
            _ => self
                .dirs
                .iter()
                .map(|d| d.join(file))
                .find(|p| p.is_file())
                .unwrap_or_else(|| Path::new(file).to_path_buf()),
        };
        let text = read_bounded(&path)?;
        text.lines()
            .nth(line.checked_sub(1)? as usize)
            .map(|l| l.trim_end().to_string())
    }
}

/// A source file's text, when it is a regular file of at most 16 MiB (a source named by the
/// line tables that is a FIFO or a device is not read).
fn read_bounded(path: &Path) -> Option<String> {
    use std::io::Read;
    const LIMIT: u64 = 16 << 20;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > LIMIT {
        return None;
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(LIMIT)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// `part` as a percentage of `whole`, one decimal.
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".to_string();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

/// The stall split of `c`: `load-use 3, taken-branch 8` (empty without stalls).
fn stalls(c: &Counts) -> String {
    let list: Vec<String> = c.stalls.iter().map(|(l, n)| format!("{l} {n}")).collect();
    list.join(", ")
}

/// How hot a share of the function's cycles is, for colour: 10 % and more red, 1 % and more
/// yellow.
fn colour(part: u64, whole: u64) -> &'static str {
    if whole != 0 && part * 10 >= whole {
        "\x1b[1;31m"
    } else if whole != 0 && part * 100 >= whole {
        "\x1b[33m"
    } else {
        ""
    }
}

/// The annotation of function `name` of `core`: a heading, then each source line that has
/// instructions (in address order, a line shown again where the code returns to it) with its
/// cycles and share of the function's self cycles, and beneath it each instruction with its
/// cycles, share and stall split. `escape` is applied to the guest's text (names,
/// disassembly, source); `colour` marks hot lines with ANSI colours.
pub fn render(
    core: &CoreProfile,
    name: &str,
    sources: &Sources,
    escape: &dyn Fn(&str) -> String,
    colour_on: bool,
) -> String {
    let function = core
        .functions
        .iter()
        .find(|f| f.name == name)
        .expect("find() named a function of this core");
    let own = function.own.cycles;
    let mut out = format!(
        "{} — core {}: self {} cycles ({} of the core), inclusive {} cycles, {} calls\n",
        escape(name),
        core.core,
        own,
        share(own, core.total.cycles),
        function.inclusive.cycles,
        function.calls
    );
    if !function.own.stalls.is_empty() {
        out.push_str(&format!(
            "  issue {}, {}\n",
            function.own.issue,
            stalls(&function.own)
        ));
    }
    let insns: Vec<&Instruction> = core
        .instructions
        .iter()
        .filter(|i| i.function == name)
        .collect();
    // Each line's cycles in this function.
    let mut per_line: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    for i in &insns {
        if let Some(l) = &i.line {
            *per_line.entry(l.as_str()).or_default() += i.own.cycles;
        }
    }
    let mut current: Option<&str> = None;
    for i in insns {
        let line = i.line.as_deref();
        if line != current {
            current = line;
            let (cycles, text) = match line {
                Some(l) => {
                    let (file, n) = l.rsplit_once(':').unwrap_or((l, "0"));
                    let source = n
                        .parse()
                        .ok()
                        .and_then(|n| sources.line(file, n))
                        .map(|s| escape(s.trim()))
                        .unwrap_or_else(|| "(source not found)".to_string());
                    (per_line[l], format!("{}  {source}", escape(l)))
                }
                None => (0, "(no line)".to_string()),
            };
            let c = if colour_on { colour(cycles, own) } else { "" };
            let reset = if c.is_empty() { "" } else { "\x1b[0m" };
            out.push_str(&format!(
                "{c}{cycles:>12} {:>6}  {text}{reset}\n",
                share(cycles, own)
            ));
        }
        let split = stalls(&i.own);
        let split = if split.is_empty() {
            String::new()
        } else {
            format!("  [{split}]")
        };
        out.push_str(&format!(
            "{:>12} {:>6}      {:#010x}  {}{split}\n",
            i.own.cycles,
            share(i.own.cycles, own),
            i.pc,
            escape(&i.text)
        ));
    }
    out
}
