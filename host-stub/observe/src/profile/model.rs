//! What `profile.json` holds (docs/profiling.md "profile.json"), built from the cores'
//! recordings and their images' symbols; the other files and the subcommands are derived from
//! it.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use q7_emulator::timing::Stalls;
use q7_symbols::Symbols;

use super::record::{CoreRecord, Cost};

/// The `format` of a profile file.
pub const FORMAT: &str = "q7emu-profile";
/// Its `version`.
pub const VERSION: u32 = 1;

/// Counts of one function, line, instruction or path: cycles split into issue cycles and the
/// run report's stall categories (only those that are not zero), instructions, exceptions
/// and data accesses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Every cycle: `issue` plus the stalls.
    pub cycles: u64,
    /// Cycles of no stall category.
    pub issue: u64,
    /// Stall cycles by category (docs/run-report.md "The counters"), the categories that are not 0.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stalls: BTreeMap<String, u64>,
    /// Instructions completed.
    pub instructions: u64,
    /// Exceptions taken.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub exceptions: u64,
    /// Data accesses.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub accesses: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Counts {
    /// The counts of `cost`.
    pub fn of(cost: &Cost) -> Counts {
        let mut c = Counts::default();
        c.add_cost(cost);
        c
    }

    /// Adds `cost`.
    pub fn add_cost(&mut self, cost: &Cost) {
        self.cycles += cost.stats.cycles;
        self.issue += cost.issue();
        for (label, n) in cost.stats.stalls.list() {
            if n != 0 {
                *self.stalls.entry(label.to_string()).or_default() += n;
            }
        }
        self.instructions += cost.stats.instructions;
        self.exceptions += cost.stats.exceptions;
        self.accesses += cost.accesses;
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &Counts) {
        self.cycles += other.cycles;
        self.issue += other.issue;
        for (label, n) in &other.stalls {
            *self.stalls.entry(label.clone()).or_default() += n;
        }
        self.instructions += other.instructions;
        self.exceptions += other.exceptions;
        self.accesses += other.accesses;
    }

    /// The cycles of stall category `label` (0 when absent).
    pub fn stall(&self, label: &str) -> u64 {
        self.stalls.get(label).copied().unwrap_or(0)
    }
}

/// A whole profile: every profiled core.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// The stall categories, in the run report's order.
    pub categories: Vec<String>,
    /// Each core that ran a profiled call.
    pub cores: Vec<CoreProfile>,
}

/// One core's profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreProfile {
    /// The core.
    pub core: u32,
    /// Its image's file name.
    pub image: String,
    /// Whether the image had symbols (else functions are named by address).
    pub symbols: bool,
    /// Whether the image had line tables (else no line is named).
    pub lines_known: bool,
    /// Firmware calls profiled (the dispatches of the run).
    pub calls: u64,
    /// Calls made deeper than the deepest path kept, counted in the frame at that depth.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub too_deep: u64,
    /// Everything: the run report's counts of this core for the profiled calls.
    pub total: Counts,
    /// The runtime's phases (`setup`, `marshal`, `compute`, `return`, `cleanup`, and
    /// `outside` for the cycles outside any phase), those that cost anything, in that order.
    pub phases: Vec<Phase>,
    /// Each function, hottest (self cycles) first.
    pub functions: Vec<Function>,
    /// Each source line, hottest first.
    pub lines: Vec<Line>,
    /// Each instruction address, in address order.
    pub instructions: Vec<Instruction>,
    /// Each caller → callee pair, by inclusive cycles.
    pub calls_made: Vec<Call>,
    /// Each call path with its self counts (the folded stacks), in path order.
    pub stacks: Vec<Stack>,
    /// Each instruction address in each call path (what `profile.pb.gz` holds as samples);
    /// not in `profile.json`, whose `instructions` and `stacks` hold the same counts.
    #[serde(skip)]
    pub samples: Vec<Sample>,
}

/// The counts of one instruction address on one call path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// The path's frames, outermost first: each function's name and entry address.
    pub frames: Vec<(String, u32)>,
    /// The instruction's address (in the innermost frame).
    pub pc: u32,
    /// Its counts.
    pub own: Counts,
}

/// A phase's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phase {
    /// `setup`, `marshal`, `compute`, `return`, `cleanup` or `outside`.
    pub name: String,
    /// What the phase cost.
    #[serde(rename = "self")]
    pub own: Counts,
}

/// The name of the cycles outside every phase.
pub const OUTSIDE: &str = "outside";

/// A function's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Function {
    /// Its demangled name, or `0x…` of its entry without symbols.
    pub name: String,
    /// Its entry address.
    pub address: u32,
    /// The counts of its own instructions.
    #[serde(rename = "self")]
    pub own: Counts,
    /// The counts of every path through it: itself and what it called.
    pub inclusive: Counts,
    /// Times it was called.
    pub calls: u64,
}

/// A source line's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// The file (as the build names it: relative to the build directory, `sdk/…` for the
    /// SDK's).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// The function its instructions are in (the first, by address, when several).
    pub function: String,
    /// The counts of its instructions.
    #[serde(rename = "self")]
    pub own: Counts,
    /// Its own counts and those of every call made from it, each cycle counted once however
    /// often the line recurs on a path: where a kernel's line calls into the SDK, the cycles of
    /// the call are the kernel author's line's too.
    pub inclusive: Counts,
}

/// An instruction address's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instruction {
    /// Its address.
    pub pc: u32,
    /// Its disassembly.
    pub text: String,
    /// The function it is in.
    pub function: String,
    /// Its line (`file:line`): the kernel author's where SDK code was inlined into it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// The inline chain beneath that line, innermost first (`function (file:line)`), when
    /// code was inlined there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inlined: Vec<String>,
    /// Its counts.
    #[serde(rename = "self")]
    pub own: Counts,
}

/// The calls from one function to another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The caller.
    pub caller: String,
    /// The callee.
    pub callee: String,
    /// Times made.
    pub calls: u64,
    /// The counts of everything the calls ran.
    pub inclusive: Counts,
}

/// A call path's self counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stack {
    /// Its frames, outermost first.
    pub frames: Vec<String>,
    /// The counts of the innermost frame's own instructions on this path.
    #[serde(rename = "self")]
    pub own: Counts,
}

/// The name of the function at `addr` in `symbols`: its start and demangled name.
fn function_at(symbols: &Symbols, addr: u32) -> Option<(u32, String)> {
    symbols
        .function(addr)
        .map(|(start, name)| (start, name.to_string()))
}

/// The text of an instruction that only ever raised an exception (so was never decoded for
/// its `After`).
pub const RAISED_TEXT: &str = "(raised an exception)";

/// The outermost frame when no symbol covers where the core started (the firmware's
/// trampoline, which calls the kernel's wrapper).
pub const ROOT: &str = "[dispatch]";

/// The name of an address no symbol covers.
fn address_name(addr: u32) -> String {
    format!("{addr:#010x}")
}

impl CoreProfile {
    /// The profile of `core` from its recording and its image's `symbols`.
    pub fn build(core: u32, image: &str, record: &CoreRecord, symbols: &Symbols) -> CoreProfile {
        // Each node's frame: the function its entry is in; the root's, where the firmware
        // started the core (its trampoline, which no symbol covers: `[dispatch]`).
        let frames: Vec<(u32, String)> = record
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                function_at(symbols, n.entry).unwrap_or_else(|| {
                    let name = if i == 0 {
                        ROOT.to_string()
                    } else {
                        address_name(n.entry)
                    };
                    (n.entry, name)
                })
            })
            .collect();
        // Each site's function: the one holding its address, else its node's frame (code no
        // symbol covers counts in the function that called into it).
        let sites = record.sites();
        let leaf: Vec<(u32, String)> = sites
            .iter()
            .map(|s| function_at(symbols, s.pc).unwrap_or_else(|| frames[s.node as usize].clone()))
            .collect();
        let path_of = |node: u32| -> Vec<u32> {
            let mut path = vec![node];
            let mut n = node;
            while n != 0 {
                n = record.nodes[n as usize].parent;
                path.push(n);
            }
            path.reverse();
            path
        };

        let mut samples = Vec::with_capacity(sites.len());
        let mut total = Counts::default();
        let mut functions: BTreeMap<String, Function> = BTreeMap::new();
        let mut stacks: BTreeMap<Vec<String>, Counts> = BTreeMap::new();
        let mut node_cost: Vec<Counts> = vec![Counts::default(); record.nodes.len()];
        let function = |functions: &mut BTreeMap<String, Function>,
                        (addr, name): &(u32, String)| {
            if !functions.contains_key(name) {
                functions.insert(
                    name.clone(),
                    Function {
                        name: name.clone(),
                        address: *addr,
                        own: Counts::default(),
                        inclusive: Counts::default(),
                        calls: 0,
                    },
                );
            }
        };
        for (site, leaf) in sites.iter().zip(&leaf) {
            let counts = Counts::of(&site.cost);
            total.add(&counts);
            node_cost[site.node as usize].add(&counts);
            let mut names: Vec<String> = path_of(site.node)
                .iter()
                .map(|&n| frames[n as usize].1.clone())
                .collect();
            if names.last() != Some(&leaf.1) {
                names.push(leaf.1.clone());
            }
            function(&mut functions, leaf);
            functions.get_mut(&leaf.1).unwrap().own.add(&counts);
            let mut seen: Vec<&String> = Vec::new();
            for name in &names {
                if !seen.contains(&name) {
                    seen.push(name);
                }
            }
            for name in seen {
                if let Some(f) = functions.get_mut(name) {
                    f.inclusive.add(&counts);
                } else {
                    // A frame whose own instructions cost nothing yet (it only called).
                    let addr = frames
                        .iter()
                        .find(|(_, n)| n == name)
                        .map_or(0, |(a, _)| *a);
                    function(&mut functions, &(addr, name.clone()));
                    functions.get_mut(name).unwrap().inclusive.add(&counts);
                }
            }
            let mut frames: Vec<(String, u32)> = path_of(site.node)
                .iter()
                .map(|&n| frames[n as usize].clone())
                .map(|(addr, name)| (name, addr))
                .collect();
            if frames.last().map(|f| &f.0) != Some(&leaf.1) {
                frames.push((leaf.1.clone(), leaf.0));
            }
            samples.push(Sample {
                frames,
                pc: site.pc,
                own: counts.clone(),
            });
            stacks.entry(names).or_default().add(&counts);
        }
        for (n, node) in record.nodes.iter().enumerate().skip(1) {
            let name = &frames[n].1;
            function(&mut functions, &frames[n]);
            functions.get_mut(name).unwrap().calls += node.calls;
        }

        // Inclusive counts of each node: its own, then added to its parent's (children come
        // after their parents in the tree's order).
        let mut subtree = node_cost.clone();
        for n in (1..record.nodes.len()).rev() {
            let parent = record.nodes[n].parent as usize;
            let add = subtree[n].clone();
            subtree[parent].add(&add);
        }
        // Caller → callee, counting a recursive pair once per outermost occurrence.
        let mut calls: BTreeMap<(String, String), Call> = BTreeMap::new();
        for n in 1..record.nodes.len() {
            let caller = frames[record.nodes[n].parent as usize].1.clone();
            let callee = frames[n].1.clone();
            let pair = (caller.clone(), callee.clone());
            let call = calls.entry(pair.clone()).or_insert_with(|| Call {
                caller,
                callee,
                calls: 0,
                inclusive: Counts::default(),
            });
            call.calls += record.nodes[n].calls;
            let mut outer = false;
            let mut a = record.nodes[n].parent as usize;
            while a != 0 {
                let pa = record.nodes[a].parent as usize;
                if (frames[pa].1.clone(), frames[a].1.clone()) == pair {
                    outer = true;
                    break;
                }
                a = pa;
            }
            if !outer {
                call.inclusive.add(&subtree[n]);
            }
        }

        // Instructions and lines, from the line tables read once.
        let mut by_pc: BTreeMap<u32, (String, u32, Counts, Option<String>)> = BTreeMap::new();
        for (site, leaf) in sites.iter().zip(&leaf) {
            let e = by_pc
                .entry(site.pc)
                .or_insert_with(|| (leaf.1.clone(), leaf.0, Counts::default(), None));
            e.2.add(&Counts::of(&site.cost));
            // An instruction that only ever raised here has no text of its own.
            if e.3.is_none() && site.insn.len != 0 {
                e.3 = Some(site.insn.to_string());
            }
        }
        let pcs: Vec<u32> = by_pc.keys().copied().collect();
        let locations = symbols.locations(&pcs);
        let mut lines: HashMap<(String, u32), Line> = HashMap::new();
        let mut line_of: HashMap<u32, (String, u32)> = HashMap::new();
        let mut instructions = Vec::with_capacity(pcs.len());
        for ((pc, (function, _, counts, text)), location) in by_pc.into_iter().zip(locations) {
            let text = text.unwrap_or_else(|| RAISED_TEXT.to_string());
            let (line, inlined) = match &location {
                Some(l) => {
                    let shown = format!("{}:{}", l.line.file, l.line.line);
                    let inlined = if l.inlined.len() > 1 {
                        l.inlined
                            .iter()
                            .map(|(f, line)| {
                                let f = f.as_deref().unwrap_or("?");
                                match line {
                                    Some(line) => format!("{f} ({}:{})", line.file, line.line),
                                    None => f.to_string(),
                                }
                            })
                            .collect()
                    } else {
                        Vec::new()
                    };
                    let key = (l.line.file.clone(), l.line.line);
                    line_of.insert(pc, key.clone());
                    let entry = lines.entry(key).or_insert_with(|| Line {
                        file: l.line.file.clone(),
                        line: l.line.line,
                        function: function.clone(),
                        own: Counts::default(),
                        inclusive: Counts::default(),
                    });
                    entry.own.add(&counts);
                    (Some(shown), inlined)
                }
                None => (None, Vec::new()),
            };
            instructions.push(Instruction {
                pc,
                text,
                function,
                line,
                inlined,
                own: counts,
            });
        }

        let mut functions: Vec<Function> = functions.into_values().collect();
        functions.sort_by(|a, b| {
            (b.own.cycles, b.inclusive.cycles, &a.name).cmp(&(
                a.own.cycles,
                a.inclusive.cycles,
                &b.name,
            ))
        });
        // A line's inclusive counts: every site whose path runs through it — its own
        // instructions, or a call made from it further out on the path — each counted once.
        for site in &sites {
            let mut on: Vec<&(String, u32)> = Vec::new();
            let calls = path_of(site.node)
                .into_iter()
                .skip(1)
                .map(|n| record.nodes[n as usize].call_pc);
            for pc in std::iter::once(site.pc).chain(calls) {
                if let Some(line) = line_of.get(&pc) {
                    if !on.contains(&line) {
                        on.push(line);
                    }
                }
            }
            let counts = Counts::of(&site.cost);
            for line in on {
                if let Some(l) = lines.get_mut(line) {
                    l.inclusive.add(&counts);
                }
            }
        }
        let mut lines: Vec<Line> = lines.into_values().collect();
        lines.sort_by(|a, b| (b.own.cycles, &a.file, a.line).cmp(&(a.own.cycles, &b.file, b.line)));
        let mut calls_made: Vec<Call> = calls.into_values().collect();
        calls_made.sort_by(|a, b| {
            (b.inclusive.cycles, &a.caller, &a.callee).cmp(&(
                a.inclusive.cycles,
                &b.caller,
                &b.callee,
            ))
        });
        CoreProfile {
            core,
            image: image.to_string(),
            symbols: !symbols.is_empty(),
            lines_known: symbols.has_lines(),
            calls: record.calls,
            too_deep: record.too_deep,
            total,
            phases: phases(record),
            functions,
            lines,
            instructions,
            calls_made,
            stacks: stacks
                .into_iter()
                .map(|(frames, own)| Stack { frames, own })
                .collect(),
            samples,
        }
    }
}

/// The phases of `record` that cost anything: each of the runtime's in its order, then the
/// cycles outside every phase.
fn phases(record: &CoreRecord) -> Vec<Phase> {
    let names = q7_emulator::platform::trace_port::PHASES
        .iter()
        .map(|(code, name)| (*code as usize, *name))
        .chain(std::iter::once((0, OUTSIDE)));
    names
        .filter(|(code, _)| record.phases[*code] != Cost::default())
        .map(|(code, name)| Phase {
            name: name.to_string(),
            own: Counts::of(&record.phases[code]),
        })
        .collect()
}

/// The functions of several cores added together by name, in name order.
pub fn merge<'a>(functions: impl Iterator<Item = &'a Function>) -> Vec<Function> {
    let mut merged: BTreeMap<String, Function> = BTreeMap::new();
    for f in functions {
        let m = merged.entry(f.name.clone()).or_insert_with(|| Function {
            name: f.name.clone(),
            address: f.address,
            own: Counts::default(),
            inclusive: Counts::default(),
            calls: 0,
        });
        m.own.add(&f.own);
        m.inclusive.add(&f.inclusive);
        m.calls += f.calls;
    }
    merged.into_values().collect()
}

impl Profile {
    /// A profile of `cores`.
    pub fn new(cores: Vec<CoreProfile>) -> Profile {
        Profile {
            format: FORMAT.to_string(),
            version: VERSION,
            categories: Stalls::LABELS.iter().map(|l| l.to_string()).collect(),
            cores,
        }
    }
}

/// The largest `profile.json` read back: far above any real profile (its size is bounded by
/// the code that ran), so that a wrong file cannot exhaust memory.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// Why a profile could not be read back, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The path is not a regular file (a directory, a FIFO, a device).
    #[error("{}: not a regular file (a profile directory holds profile.json, written by `q7emu run --profile DIR`)", path.display())]
    NotAFile {
        /// The path.
        path: std::path::PathBuf,
    },
    /// The file is larger than [`MAX_FILE_BYTES`].
    #[error("{}: {bytes} bytes, more than any profile holds ({MAX_FILE_BYTES})", path.display())]
    TooLarge {
        /// The file.
        path: std::path::PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// The file is not a profile of this format and version.
    #[error("{}: not a q7emu profile of version {VERSION}: {why}", path.display())]
    Format {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        why: String,
    },
}

impl Profile {
    /// The profile in directory `dir` (its `profile.json`).
    pub fn load(dir: &std::path::Path) -> Result<Profile, ReadError> {
        use std::io::Read;
        let path = dir.join(super::PROFILE_JSON);
        let io = |source| ReadError::Io {
            path: path.clone(),
            source,
        };
        let meta = std::fs::metadata(&path).map_err(io)?;
        if !meta.is_file() {
            return Err(ReadError::NotAFile { path });
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(ReadError::TooLarge {
                path,
                bytes: meta.len(),
            });
        }
        let mut text = String::new();
        std::fs::File::open(&path)
            .map_err(io)?
            .take(MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(io)?;
        let format = |why: String| ReadError::Format {
            path: path.clone(),
            why,
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format(e.to_string()))?;
        if value["format"] != FORMAT || value["version"] != VERSION {
            return Err(format(format!(
                "its format is {} version {}",
                value["format"], value["version"]
            )));
        }
        serde_json::from_value(value).map_err(|e| format(e.to_string()))
    }
}
