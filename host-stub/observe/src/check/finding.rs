//! What checked mode reports (docs/checked-mode.md "Findings"): one table of the finding
//! kinds, [`KINDS`], with their class; the finding record the JSON report and stderr show.

use serde::Serialize;

/// How a finding counts: an error makes `--check` exit with the `check-failed` code
/// (docs/exit-codes.md); a warning does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// A bug: the result is undefined on hardware.
    Error,
    /// Worth knowing; the result is still defined.
    Warning,
}

impl Class {
    /// `error` or `warning`, as stderr and the JSON report say it.
    pub fn name(self) -> &'static str {
        match self {
            Class::Error => "error",
            Class::Warning => "warning",
        }
    }
}

/// The kinds of finding (named in the JSON report by their row of [`KINDS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// An HBM access outside every tensor and live allocation.
    OutOfBounds,
    /// Two cores wrote the same bytes in one dispatch.
    WriteRace,
    /// A core read bytes another core wrote in the same dispatch.
    ReadRace,
    /// Output bytes no core wrote by the end of the dispatch.
    Unwritten,
    /// A read of allocated memory before anything wrote it.
    Uninitialised,
    /// An allocation still live when the kernel returned.
    Leak,
    /// A free of something not allocated, or already freed.
    BadFree,
    /// An accessor the API leaves undefined in multicore mode, or a multicore kernel that
    /// did not write `get_dst_tensor()`.
    Misuse,
    /// A `tcm_malloc` that failed.
    AllocFailed,
    /// A stream opened while four others held the runtime's stream buffers.
    Streams,
    /// A core's deepest stack use within 10 % of its limit.
    Stack,
}

/// One row of [`KINDS`].
#[derive(Debug, Clone, Copy)]
pub struct KindInfo {
    /// The kind.
    pub kind: Kind,
    /// Its name in the JSON report and on stderr.
    pub name: &'static str,
    /// Its class.
    pub class: Class,
    /// What it means (docs/checked-mode.md's wording).
    pub meaning: &'static str,
}

/// Every finding kind, in the order of docs/checked-mode.md "Findings".
pub const KINDS: [KindInfo; 11] = [
    KindInfo {
        kind: Kind::OutOfBounds,
        name: "out-of-bounds",
        class: Class::Error,
        meaning: "an HBM access (an instruction's or an SDMA transfer's) outside every tensor \
                  of the call and every live allocation of the core's HBM heap, or a store into \
                  IRAM, where the exception vectors live (a store through a null pointer)",
    },
    KindInfo {
        kind: Kind::WriteRace,
        name: "write-race",
        class: Class::Error,
        meaning: "two cores wrote the same bytes of HBM in one dispatch: which value stays \
                  depends on timing",
    },
    KindInfo {
        kind: Kind::ReadRace,
        name: "read-race",
        class: Class::Error,
        meaning: "a core read bytes of HBM another core wrote in the same dispatch: the value \
                  read depends on timing",
    },
    KindInfo {
        kind: Kind::Unwritten,
        name: "unwritten-output",
        class: Class::Error,
        meaning: "bytes of the output no core wrote by the end of the dispatch",
    },
    KindInfo {
        kind: Kind::Uninitialised,
        name: "uninitialised-read",
        class: Class::Error,
        meaning: "a read of memory the kernel allocated — an HBM tensor or buffer \
                  (`torch::empty`, `empty_like`, `neuron_hbm_allocate`), `tcm_malloc`, \
                  `neuron_dataram_allocate` — before anything wrote the bytes read",
    },
    KindInfo {
        kind: Kind::Leak,
        name: "leak",
        class: Class::Error,
        meaning: "memory the kernel allocated (TCM pool, DATARAM heap, libc heap, HBM heap) \
                  and had not freed when it returned",
    },
    KindInfo {
        kind: Kind::BadFree,
        name: "bad-free",
        class: Class::Error,
        meaning: "`tcm_free(nullptr)`, which the API leaves undefined (after a failed \
                  `tcm_malloc`, said so), or a free the runtime reports of an address no live \
                  allocation of that heap starts at (a double free or a foreign pointer the \
                  runtime's own check, which stops the kernel first, lets through)",
    },
    KindInfo {
        kind: Kind::Misuse,
        name: "api-misuse",
        class: Class::Error,
        meaning: "an element accessor or a stream accessor made in multicore mode, where the \
                  API leaves their behaviour undefined, or a multicore kernel that returned a \
                  tensor without calling `get_dst_tensor()`, which the API requires there",
    },
    KindInfo {
        kind: Kind::AllocFailed,
        name: "alloc-failed",
        class: Class::Warning,
        meaning: "a `tcm_malloc` the TCM pool could not satisfy returned nullptr: legal, but \
                  a kernel that does not check for it computes nothing",
    },
    KindInfo {
        kind: Kind::Streams,
        name: "streams",
        class: Class::Warning,
        meaning: "a stream accessor opened while four others were active, more than the API's \
                  four: the runtime has four stream buffers, so this stream moves its tensor \
                  element by element, far slower",
    },
    KindInfo {
        kind: Kind::Stack,
        name: "stack",
        class: Class::Warning,
        meaning: "a core's deepest stack use came within 10 % of its limit",
    },
];

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.info().name)
    }
}

impl Kind {
    /// Its row of [`KINDS`].
    pub fn info(self) -> &'static KindInfo {
        KINDS
            .iter()
            .find(|k| k.kind == self)
            .expect("every kind has a row")
    }
}

/// Where a finding happened: a core's instruction, symbolised where the image allows, and
/// named at the kernel author's line (docs/checked-mode.md "Sites"): the innermost frame of
/// the instruction and its callers outside the SDK, with the SDK's frames inside it kept in
/// `sdk_frames`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Site {
    /// The core.
    pub core: u32,
    /// The instruction's address.
    pub pc: u32,
    /// The core's cycle count once the instruction completed (its first time here).
    pub cycle: u64,
    /// `function+0xoff (file:line)` when the unstripped image knows it: the instruction's own,
    /// or, when the instruction is the SDK's and a caller is the kernel's, the innermost such
    /// caller's (a return address, whose line is its call's).
    pub function: Option<String>,
    /// The instruction.
    pub disassembly: String,
    /// The SDK's frames inside `function`'s, innermost first, each `0xpc in function+0xoff
    /// (file:line)`: the instruction's own first, then its callers up to `function`'s; empty
    /// when `function` is the instruction's own.
    pub sdk_frames: Vec<String>,
    /// The callers of `function`'s frame still in the register file, innermost first, each
    /// `0xpc in function+0xoff (file:line)` where known.
    pub backtrace: Vec<String>,
}

impl Site {
    /// A site at `pc` of `core` not symbolised (yet): no function, disassembly or callers.
    pub fn bare(core: u32, pc: u32, cycle: u64) -> Site {
        Site {
            core,
            pc,
            cycle,
            function: None,
            disassembly: String::new(),
            sdk_frames: Vec::new(),
            backtrace: Vec::new(),
        }
    }
}

/// A byte range of a tensor (or of HBM when no tensor holds it), with the elements it spans.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Span {
    /// The tensor argument's name in the op's schema, `output` for the output; `None` when
    /// the bytes are in no tensor.
    pub tensor: Option<String>,
    /// The tensor's shape.
    pub shape: Option<Vec<u64>>,
    /// First byte, from the tensor's start (from HBM's start when in no tensor); may be past
    /// the tensor's end or, as a negative number, before its start.
    pub start: i64,
    /// One past the last byte, in the same terms.
    pub end: i64,
    /// The first and last element, multi-dimensional, when in or beside a tensor.
    pub elements: Option<(Vec<i64>, Vec<i64>)>,
}

impl Span {
    /// HBM bytes `[lo, hi)` in no tensor.
    pub fn bytes(lo: u64, hi: u64) -> Span {
        Span {
            tensor: None,
            shape: None,
            start: lo as i64,
            end: hi as i64,
            elements: None,
        }
    }
}

/// How many occurrences of a finding keep their details: the first this many
/// (docs/checked-mode.md "The JSON report", `samples`).
pub const SAMPLES: usize = 4;

/// One occurrence of what a finding groups (docs/checked-mode.md "The JSON report").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Occurrence {
    /// The core.
    pub core: u32,
    /// The core's cycle count once the instruction that made it completed.
    pub cycle: u64,
    /// What this occurrence had of its own (the bytes accessed, the allocation, the address
    /// freed, the bytes asked), in the finding's terms; `None` when nothing differs.
    pub detail: Option<String>,
}

/// One finding: a kind, what it means here, how many times, and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The kind.
    pub kind: Kind,
    /// Its class.
    pub class: Class,
    /// The cores it happened on (none for output bytes no core wrote).
    pub cores: Vec<u32>,
    /// What they did, in one line (the cores are its subject).
    pub message: String,
    /// How many accesses (or events) it groups.
    pub count: u64,
    /// Where: one site, or two for a race (the first core's, then the second's).
    pub sites: Vec<Site>,
    /// The bytes involved.
    pub span: Option<Span>,
    /// For a leak, the bytes not freed in all; `None` for the other kinds.
    pub bytes: Option<u64>,
    /// The first occurrence, for a finding grouping events seen as they happened; `None` for
    /// one made from whole dispatches (races, unwritten output, the stack).
    pub first: Option<Occurrence>,
    /// The last occurrence, as `first`.
    pub last: Option<Occurrence>,
    /// The first [`SAMPLES`] occurrences, in order (empty when `first` is `None`).
    pub samples: Vec<Occurrence>,
}

impl Finding {
    /// The finding as stderr shows it: a heading line, then each site and its backtrace.
    pub fn render(&self) -> String {
        let info = self.kind.info();
        let class = self.class.name();
        let times = if self.count > 1 {
            format!(" ({} times)", self.count)
        } else {
            String::new()
        };
        let mut out = format!(
            "{class}[{}]: {}{}{times}\n",
            info.name,
            subject(&self.cores),
            self.message
        );
        for s in &self.sites {
            match (s.sdk_frames.split_first(), &s.function) {
                // The kernel author's line first, the SDK's frames inside it beneath.
                (Some((inner, outer)), Some(function)) => {
                    out.push_str(&format!(
                        "    core {} in {function}, inside the SDK:\n      at {inner}: {}\n",
                        s.core, s.disassembly
                    ));
                    for f in outer {
                        out.push_str(&format!("        called from {f}\n"));
                    }
                }
                _ => out.push_str(&format!(
                    "    core {} at {:#010x}{}: {}\n",
                    s.core,
                    s.pc,
                    s.function
                        .as_ref()
                        .map(|f| format!(" in {f}"))
                        .unwrap_or_default(),
                    s.disassembly
                )),
            }
            for b in &s.backtrace {
                out.push_str(&format!("      called from {b}\n"));
            }
        }
        out
    }
}

/// "core 3 ", "cores 0 and 1 ", "cores 0, 1 and 2 ", or nothing.
pub fn subject(cores: &[u32]) -> String {
    match cores {
        [] => String::new(),
        [c] => format!("core {c} "),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(u32::to_string).collect();
            format!("cores {} and {last} ", init.join(", "))
        }
    }
}

/// The element index of byte `offset` of a tensor of `shape` and `size`-byte elements,
/// outermost first; an offset past the end counts on in the outermost dimension (byte 500 of
/// a `[5, 5]` float tensor is `[5, 0]`), a negative one back.
pub fn element_index(offset: i64, size: u64, shape: &[u64]) -> Vec<i64> {
    let mut flat = offset.div_euclid(size.max(1) as i64);
    let mut index = vec![0i64; shape.len().max(1)];
    for (i, &d) in shape.iter().enumerate().skip(1).rev() {
        let d = d.max(1) as i64;
        index[i] = flat.rem_euclid(d);
        flat = flat.div_euclid(d);
    }
    index[0] = flat;
    index
}

/// `[a][b][c]`.
pub fn index_text(index: &[i64]) -> String {
    index.iter().map(|i| format!("[{i}]")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_indices_unravel_row_major_and_run_on_past_the_end() {
        assert_eq!(element_index(0, 4, &[5, 5, 5]), [0, 0, 0]);
        assert_eq!(element_index(4 * 31, 4, &[5, 5, 5]), [1, 1, 1]);
        assert_eq!(
            element_index(4 * 125, 4, &[5, 5, 5]),
            [5, 0, 0],
            "one past the last element is [5][0][0] of a {{5,5,5}} tensor"
        );
        assert_eq!(element_index(-4, 4, &[5, 5]), [-1, 4]);
        assert_eq!(element_index(4 * 1003, 4, &[1000]), [1003]);
        assert_eq!(element_index(8, 4, &[]), [2], "a scalar's bytes count on");
        assert_eq!(index_text(&[5, 0, 0]), "[5][0][0]");
    }

    #[test]
    fn every_kind_has_one_row() {
        for (i, k) in KINDS.iter().enumerate() {
            assert_eq!(k.kind.info().name, k.name);
            assert!(KINDS[..i]
                .iter()
                .all(|o| o.name != k.name && o.kind != k.kind));
        }
    }
}
