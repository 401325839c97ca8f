//! # q7-symbols — device addresses as their functions and source lines
//!
//! Device addresses → `function+offset (file:line)`, from an unstripped image (a build
//! directory's `<base>[_cpu{i}].so`, linked at its device addresses): the function from the
//! ELF symbols, C++ names demangled with `cpp_demangle`, and the source line from the DWARF
//! line tables, read with `addr2line` over `gimli`. Every build compiles with `-g`
//! (examples/sdk/BUILD.md "Compile"), so its unstripped images carry the line tables; an image
//! without them gives `function+offset` alone.

use std::fmt;
use std::path::{Component, Path};
use std::sync::{Arc, OnceLock};

use gimli::{EndianSlice, LittleEndian};
use q7_loader::elf::ElfFile;

/// The first component of the SDK's source files in the debug information: the build maps the
/// SDK directory it compiled with, wherever it is, to `sdk` (its `-ffile-prefix-map`,
/// examples/sdk/BUILD.md "Reproducibility"). [`SourceLine::in_sdk`] is the one rule reading it.
const SDK_FILES: &str = "sdk/";

/// ELF symbol type of a function (`STT_FUNC`).
const STT_FUNC: u8 = object::elf::STT_FUNC;

/// The DWARF sections of one image, owned; a lookup context is made from them when a
/// backtrace is symbolised (`addr2line`'s context is neither `Send` nor `Sync`, the bytes are).
#[derive(Clone)]
struct Lines(Arc<gimli::DwarfSections<Vec<u8>>>);

impl fmt::Debug for Lines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Lines(DWARF sections)")
    }
}

/// A lookup context over [`Lines`].
type LineContext<'a> = addr2line::Context<EndianSlice<'a, LittleEndian>>;

impl Lines {
    /// The DWARF sections of `elf`; `None` when it has no `.debug_info`.
    fn of(elf: &ElfFile<'_>) -> Option<Lines> {
        elf.section(".debug_info")?;
        let load = |id: gimli::SectionId| -> Result<Vec<u8>, std::convert::Infallible> {
            Ok(elf
                .section(id.name())
                .map_or_else(Vec::new, |s| s.data.to_vec()))
        };
        let Ok(sections) = gimli::DwarfSections::load(load);
        Some(Lines(Arc::new(sections)))
    }

    /// A lookup context; `None` when the sections do not parse as DWARF.
    fn context(&self) -> Option<LineContext<'_>> {
        let dwarf = self.0.borrow(|s| EndianSlice::new(s, LittleEndian));
        addr2line::Context::from_dwarf(dwarf).ok()
    }
}

/// A source position from the line tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    /// The file as the debug information names it, `.` components dropped: relative to the
    /// build directory for the build's own sources (`k.cpp`, `wrapper.cpp`), `sdk/…` for the
    /// SDK's (the build's `-ffile-prefix-map`s, examples/sdk/BUILD.md "Reproducibility").
    pub file: String,
    /// 1-based line.
    pub line: u32,
}

impl SourceLine {
    /// Whether the line is the SDK's: its file is under `sdk/`, as the build names every file
    /// of the SDK directory it compiled with (the repository's `examples/sdk/`, or the copy
    /// the Python package unpacks; examples/sdk/BUILD.md "Reproducibility"). Every other line
    /// is the build's own (the kernel's files, the generated wrapper): the kernel author's.
    /// The one rule by which a profile's lines (docs/profiling.md), the kernel's own code and
    /// a checked-mode finding's site (docs/checked-mode.md "Sites") tell the SDK apart.
    pub fn in_sdk(&self) -> bool {
        self.file.starts_with(SDK_FILES)
    }
}

impl fmt::Display for SourceLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// `path` without its `.` components (`././k.cpp` → `k.cpp`), `/`-separated.
fn tidy(path: &str) -> String {
    let mut out = String::new();
    for c in Path::new(path).components() {
        match c {
            Component::CurDir => {}
            Component::RootDir => out.push('/'),
            c => {
                if !out.is_empty() && !out.ends_with('/') {
                    out.push('/');
                }
                out.push_str(&c.as_os_str().to_string_lossy());
            }
        }
    }
    out
}

/// The function symbols and line tables of one image, read from its bytes when first asked
/// for: a run that faults nowhere and observes nothing never reads them (an 8-core library
/// has eight images to read, demangle and copy the line tables of). Clones share one reading.
#[derive(Clone, Default)]
pub struct Symbols(Arc<Image>);

/// An image's bytes and, once read, its symbols.
#[derive(Default)]
struct Image {
    /// The image's ELF bytes.
    elf: Vec<u8>,
    /// Its symbols, once read from `elf`.
    read: OnceLock<Read>,
}

/// The symbols read from an image.
#[derive(Default)]
struct Read {
    /// (address, size, demangled name), sorted by address.
    funcs: Vec<(u32, u32, String)>,
    /// The line tables, when the image has them.
    lines: Option<Lines>,
}

impl Read {
    /// The function symbols and line tables of ELF bytes `data`; none when it does not parse
    /// or has neither (a stripped image).
    fn of(data: &[u8]) -> Read {
        let Ok(elf) = ElfFile::parse(data) else {
            return Read::default();
        };
        let mut funcs: Vec<(u32, u32, String)> = elf
            .symbols
            .iter()
            .filter(|s| s.kind == STT_FUNC && !s.name.is_empty() && s.value != 0)
            .map(|s| (s.value, s.size, demangle(&s.name)))
            .collect();
        funcs.sort();
        funcs.dedup_by_key(|f| f.0);
        Read {
            funcs,
            lines: Lines::of(&elf),
        }
    }
}

impl fmt::Debug for Symbols {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Symbols")
            .field("image_bytes", &self.0.elf.len())
            .field("read", &self.0.read.get().map(|r| r.funcs.len()))
            .finish()
    }
}

impl Symbols {
    /// The function symbols and line tables of ELF bytes `data` (an unstripped image), read
    /// when first asked for; none when it does not parse or has neither (a stripped image).
    pub fn from_elf(data: &[u8]) -> Symbols {
        Symbols::from_elf_bytes(data.to_vec())
    }

    /// [`Symbols::from_elf`] of bytes the caller gives up.
    pub fn from_elf_bytes(elf: Vec<u8>) -> Symbols {
        Symbols(Arc::new(Image {
            elf,
            read: OnceLock::new(),
        }))
    }

    /// The symbols, read now if they were not.
    fn read(&self) -> &Read {
        self.0.read.get_or_init(|| Read::of(&self.0.elf))
    }

    /// The line tables' lookup context, when the image has line tables that parse.
    fn line_context(&self) -> Option<LineContext<'_>> {
        self.read().lines.as_ref().and_then(Lines::context)
    }

    /// Whether there is any symbol.
    pub fn is_empty(&self) -> bool {
        self.read().funcs.is_empty()
    }

    /// Whether the image has line tables.
    pub fn has_lines(&self) -> bool {
        self.read().lines.is_some()
    }

    /// The function holding `addr`, if one does (within its size, or before the next symbol
    /// when the size is 0): its start and name.
    pub fn function(&self, addr: u32) -> Option<(u32, &str)> {
        let funcs = &self.read().funcs;
        let i = funcs.partition_point(|f| f.0 <= addr).checked_sub(1)?;
        let (start, size, name) = &funcs[i];
        let inside = if *size != 0 {
            addr - start < *size
        } else {
            funcs.get(i + 1).is_none_or(|next| addr < next.0)
        };
        inside.then_some((*start, name.as_str()))
    }

    /// The address ranges `[start, end)` of the functions called `name`: by one of the
    /// [`spellings`] of their demangled name (`k(at::Tensor const&)`, `k`, and for a function
    /// of an anonymous namespace `(anonymous namespace)::k(at::Tensor const&)` and
    /// `(anonymous namespace)::k` too); a function of size 0 ends at the next symbol (or
    /// covers its first byte when last).
    pub fn find(&self, name: &str) -> Vec<(u32, u32, &str)> {
        let funcs = &self.read().funcs;
        funcs
            .iter()
            .enumerate()
            .filter(|(_, (_, _, n))| spellings(n).iter().any(|s| s == name))
            .map(|(i, (start, size, n))| {
                let end = match *size {
                    0 => funcs.get(i + 1).map_or(start + 1, |next| next.0),
                    size => start.saturating_add(size),
                };
                (*start, end, n.as_str())
            })
            .collect()
    }

    /// `name+0xoff` of the function holding `addr`, if one does (within its size, or before
    /// the next symbol when the size is 0).
    pub fn describe(&self, addr: u32) -> Option<String> {
        let (start, name) = self.function(addr)?;
        Some(match addr - start {
            0 => name.to_string(),
            off => format!("{name}+{off:#x}"),
        })
    }

    /// The address ranges `[start, end)` of the functions compiled from the build's own
    /// sources (the kernel's files, the generated wrapper): those whose first instruction's
    /// line is in a file outside the SDK's `sdk/` tree (examples/sdk/BUILD.md
    /// "Reproducibility"), sorted. Empty without line tables: then nothing can be told apart.
    pub fn own_code(&self) -> Vec<(u32, u32)> {
        let Read { funcs, lines } = self.read();
        let Some(context) = lines.as_ref().and_then(Lines::context) else {
            return Vec::new();
        };
        funcs
            .iter()
            .enumerate()
            .filter(|(_, (start, _, _))| line_in(&context, *start).is_some_and(|l| !l.in_sdk()))
            .map(|(i, (start, size, _))| {
                let end = match *size {
                    0 => funcs.get(i + 1).map_or(start + 1, |next| next.0),
                    size => start.saturating_add(size),
                };
                (*start, end)
            })
            .collect()
    }

    /// The source line of the instruction at `addr`, when the line tables cover it.
    pub fn line(&self, addr: u32) -> Option<SourceLine> {
        line_in(&self.line_context()?, addr)
    }

    /// Where each of `pcs` is in the source, reading the line tables once for all of them:
    /// its line as [`Symbols::line`] gives it (the kernel author's line where SDK code was
    /// inlined into it) and every frame of the inline chain, innermost first. `None` where
    /// the line tables do not cover it.
    pub fn locations(&self, pcs: &[u32]) -> Vec<Option<Location>> {
        let Some(context) = self.line_context() else {
            return vec![None; pcs.len()];
        };
        pcs.iter()
            .map(|&pc| {
                let line = line_in(&context, pc)?;
                Some(Location {
                    line,
                    inlined: inline_frames(&context, pc),
                })
            })
            .collect()
    }

    /// The frames of a backtrace at `pcs`, innermost first, as [`Symbols::frame`] writes
    /// them (the line tables are read once for all of them).
    pub fn backtrace(&self, pcs: &[u32]) -> Vec<Option<String>> {
        let context = self.line_context();
        pcs.iter()
            .enumerate()
            .map(|(i, &pc)| self.frame_in(context.as_ref(), pc, i > 0))
            .collect()
    }

    /// The kernel author's frame of a backtrace at `pcs` (innermost first, as
    /// [`Symbols::backtrace`]): the index of the innermost frame whose line — as
    /// [`Symbols::line`] gives it, so SDK code inlined into the kernel counts as the kernel's
    /// line; a return address's being its call's — is known and outside the SDK
    /// ([`SourceLine::in_sdk`]). `None` when every frame is the SDK's or has no line (an image
    /// without line tables).
    pub fn authors_frame(&self, pcs: &[u32]) -> Option<usize> {
        let context = self.line_context()?;
        pcs.iter().enumerate().position(|(i, &pc)| {
            let probe = if i > 0 { pc.wrapping_sub(1) } else { pc };
            line_in(&context, probe).is_some_and(|l| !l.in_sdk())
        })
    }

    /// Each frame of the backtrace `pcs` (innermost first, as [`Symbols::backtrace`]) as a
    /// line: `0x…pc in name+0xoff (file:line)`, or the bare PC outside every function or
    /// without `symbols`.
    pub fn frame_lines(symbols: Option<&Symbols>, pcs: &[u32]) -> Vec<String> {
        let frames = symbols.map(|s| s.backtrace(pcs)).unwrap_or_default();
        pcs.iter()
            .enumerate()
            .map(|(i, pc)| match frames.get(i).cloned().flatten() {
                Some(f) => format!("{pc:#010x} in {f}"),
                None => format!("{pc:#010x}"),
            })
            .collect()
    }

    /// One backtrace frame at `pc`: `name+0xoff (file:line)`, `name+0xoff` without line
    /// information, `None` outside every function. A return address (`returns`: every frame
    /// but the innermost) points past its call, which is where the caller is: its function and
    /// line are those of the byte before it, the offset is the return address's own.
    pub fn frame(&self, pc: u32, returns: bool) -> Option<String> {
        let context = self.line_context();
        self.frame_in(context.as_ref(), pc, returns)
    }

    fn frame_in(
        &self,
        context: Option<&LineContext<'_>>,
        pc: u32,
        returns: bool,
    ) -> Option<String> {
        let probe = if returns { pc.wrapping_sub(1) } else { pc };
        let (start, name) = self.function(probe)?;
        let mut text = match pc.wrapping_sub(start) {
            0 => name.to_string(),
            off => format!("{name}+{off:#x}"),
        };
        if let Some(line) = context.and_then(|c| line_in(c, probe)) {
            text.push_str(&format!(" ({line})"));
        }
        Some(text)
    }
}

impl Symbols {
    /// The backtrace of `report` under a heading naming `source`: one line per frame,
    /// `function+0xoff (file:line)` where the image has the symbol and line (a frame outside
    /// every function shows its address alone), and the line saying so when the chain loops
    /// back to an earlier frame; empty when the image has no symbols.
    pub fn report_backtrace(&self, report: &q7_emulator::FaultReport, source: &str) -> String {
        if self.is_empty() {
            return String::new();
        }
        let returns = report.backtrace.iter().skip(1).map(|f| f.pc);
        let pcs: Vec<u32> = std::iter::once(report.pc).chain(returns).collect();
        let mut out = format!("\nsymbolised backtrace ({source}):");
        for (i, line) in Symbols::frame_lines(Some(self), &pcs).iter().enumerate() {
            out.push_str(&format!("\n  #{i} {line}"));
        }
        if let Some(to) = report.backtrace_loop {
            out.push_str(&format!("\n  {}", q7_emulator::fault::loop_note(to)));
        }
        out
    }
}

/// The qualifier of a name in an anonymous namespace, as demanglers write it.
const ANONYMOUS_NAMESPACE: &str = "(anonymous namespace)::";

/// A demangled function name without its parameter list and what follows it (cv- and
/// ref-qualifiers): `ns::k<int (*)(int)>(at::Tensor const&) const` → `ns::k<int (*)(int)>`.
/// The list is the parenthesised group that ends the name, found by matching parentheses from
/// the end, so that parentheses before it (`(anonymous namespace)::k(int)`, a template
/// argument's) stay. `None` when the name has no parameter list (a C function).
pub fn without_parameters(name: &str) -> Option<&str> {
    let mut end = name.trim_end();
    while let Some(rest) = [" const", " volatile", " &&", " &"]
        .iter()
        .find_map(|q| end.strip_suffix(q))
    {
        end = rest.trim_end();
    }
    if !end.ends_with(')') {
        return None;
    }
    let mut depth = 0usize;
    for (i, c) in end.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&name[..i]).filter(|base| !base.is_empty());
                }
            }
            _ => {}
        }
    }
    None
}

/// The names `--trace-fn` matches a function by (docs/tracing.md "Filters"): its demangled
/// name, that name without its parameter list ([`without_parameters`]), and each of them
/// without its `(anonymous namespace)::` qualifiers.
pub fn spellings(demangled: &str) -> Vec<String> {
    let mut names = vec![demangled.to_string()];
    if let Some(base) = without_parameters(demangled) {
        names.push(base.to_string());
    }
    for i in 0..names.len() {
        if names[i].contains(ANONYMOUS_NAMESPACE) {
            names.push(names[i].replace(ANONYMOUS_NAMESPACE, ""));
        }
    }
    names
}

/// The source line of `addr` in `context`: where code the compiler inlined from the SDK
/// (an accessor's `operator[]`, `tcm_to_tensor`) holds it, the line of the build's own source
/// that the SDK code was inlined into — the line the kernel's author wrote — else the line
/// itself.
fn line_in(context: &LineContext<'_>, addr: u32) -> Option<SourceLine> {
    let line_of = source_line;
    let mut lines = Vec::new();
    if let Ok(mut frames) = context.find_frames(u64::from(addr)).skip_all_loads() {
        while let Ok(Some(frame)) = frames.next() {
            if let Some(line) = frame.location.as_ref().and_then(line_of) {
                lines.push(line);
            }
        }
    }
    if lines.is_empty() {
        return line_of(&context.find_location(u64::from(addr)).ok()??);
    }
    let first = lines.first().cloned();
    lines.into_iter().find(|l| !l.in_sdk()).or(first)
}

/// Where an instruction is in the source ([`Symbols::locations`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Its line: the kernel author's where SDK code was inlined into it.
    pub line: SourceLine,
    /// The inline chain, innermost first: each frame's function (demangled) and line. One
    /// frame when nothing was inlined there.
    pub inlined: Vec<(Option<String>, Option<SourceLine>)>,
}

/// A line-table location as a [`SourceLine`], when it names a file and a line.
fn source_line(loc: &addr2line::Location<'_>) -> Option<SourceLine> {
    Some(SourceLine {
        file: tidy(loc.file?),
        line: loc.line.filter(|&l| l != 0)?,
    })
}

/// The inline chain at `addr` in `context`, innermost first.
fn inline_frames(
    context: &LineContext<'_>,
    addr: u32,
) -> Vec<(Option<String>, Option<SourceLine>)> {
    let mut out = Vec::new();
    if let Ok(mut frames) = context.find_frames(u64::from(addr)).skip_all_loads() {
        while let Ok(Some(frame)) = frames.next() {
            let function = frame
                .function
                .as_ref()
                .and_then(|f| f.raw_name().ok())
                .map(|n| demangle(&n));
            out.push((function, frame.location.as_ref().and_then(source_line)));
        }
    }
    out
}

/// The demangled form of a C++ symbol name, or the name itself.
pub fn demangle(name: &str) -> String {
    cpp_demangle::Symbol::new(name)
        .ok()
        .and_then(|s| s.demangle().ok())
        .unwrap_or_else(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Symbols {
        /// Symbols already read as `read`.
        fn already_read(read: Read) -> Symbols {
            Symbols(Arc::new(Image {
                elf: Vec::new(),
                read: OnceLock::from(read),
            }))
        }
    }

    #[test]
    fn an_image_is_read_when_first_asked_and_once_for_every_clone() {
        // Bytes that are no ELF: nothing to read, found only when asked.
        let s = Symbols::from_elf_bytes(b"not an ELF image".to_vec());
        let clone = s.clone();
        assert!(format!("{s:?}").contains("read: None"));
        assert!(s.is_empty() && !s.has_lines());
        assert_eq!(s.describe(0x8400_0000), None);
        assert!(format!("{clone:?}").contains("read: Some(0)"));
        assert!(Symbols::default().is_empty());
    }

    #[test]
    fn addresses_resolve_inside_sized_functions_only() {
        let s = Symbols::already_read(Read {
            funcs: vec![
                (0x8400_0020, 0x10, "a".into()),
                (0x8400_0040, 0, "b".into()),
                (0x8400_0080, 4, "c".into()),
            ],
            lines: None,
        });
        assert_eq!(s.describe(0x8400_0020).as_deref(), Some("a"));
        assert_eq!(s.describe(0x8400_002f).as_deref(), Some("a+0xf"));
        assert_eq!(s.describe(0x8400_0030), None, "past a's size");
        assert_eq!(
            s.describe(0x8400_007f).as_deref(),
            Some("b+0x3f"),
            "b runs to c"
        );
        assert_eq!(s.describe(0x8400_0084), None);
        assert_eq!(s.describe(0x10), None);
    }

    #[test]
    fn a_return_address_belongs_to_the_call_before_it() {
        let s = Symbols::already_read(Read {
            funcs: vec![
                (0x8400_0020, 0x10, "a".into()),
                (0x8400_0030, 4, "b".into()),
            ],
            lines: None,
        });
        // A call as a's last instruction returns to b's first byte: the frame is a's.
        assert_eq!(s.frame(0x8400_0030, true).as_deref(), Some("a+0x10"));
        assert_eq!(s.frame(0x8400_0030, false).as_deref(), Some("b"));
        assert_eq!(s.line(0x8400_0020), None, "no line tables");
    }

    #[test]
    fn a_looping_backtrace_is_symbolised_once_and_says_it_loops() {
        let s = Symbols::already_read(Read {
            funcs: vec![(0x8400_0020, 0x40, "k".into())],
            lines: None,
        });
        let frame = |pc, sp| q7_emulator::Frame { pc, sp };
        let report = q7_emulator::FaultReport {
            core: 2,
            pc: 0x8400_0024,
            kind: q7_emulator::FaultKind::Interrupted,
            address: None,
            disassembly: String::new(),
            registers: [0; 16],
            ps: 0,
            windowbase: 0,
            windowstart: 1,
            sar: 0,
            backtrace: vec![frame(0x8400_0024, 0x100), frame(0x8400_0034, 0x140)],
            backtrace_loop: Some(1),
            cycles: 0,
        };
        assert_eq!(
            s.report_backtrace(&report, "core 2"),
            "\nsymbolised backtrace (core 2):\n  #0 0x84000024 in k+0x4\n  #1 0x84000034 in \
             k+0x14\n  … then frame #1 again: the chain loops (a corrupted stack), each frame \
             shown once"
        );
    }

    #[test]
    fn a_function_is_found_by_each_spelling_of_its_demangled_name() {
        assert_eq!(
            without_parameters("(anonymous namespace)::k(at::Tensor const&)"),
            Some("(anonymous namespace)::k")
        );
        assert_eq!(
            without_parameters("ns::k<int (*)(int)>(at::Tensor const&) const &"),
            Some("ns::k<int (*)(int)>")
        );
        assert_eq!(without_parameters("get_func_cnt"), None);
        assert_eq!(without_parameters("(anonymous namespace)"), None);
        assert_eq!(
            spellings("(anonymous namespace)::k(at::Tensor const&)"),
            [
                "(anonymous namespace)::k(at::Tensor const&)",
                "(anonymous namespace)::k",
                "k(at::Tensor const&)",
                "k"
            ]
        );
        let s = Symbols::already_read(Read {
            funcs: vec![
                (
                    0x8400_0020,
                    0x10,
                    "(anonymous namespace)::k(at::Tensor const&)".into(),
                ),
                (0x8400_0030, 0x10, "relu_forward(at::Tensor const&)".into()),
                (0x8400_0040, 0x10, "get_func_cnt".into()),
            ],
            lines: None,
        });
        for name in [
            "k",
            "(anonymous namespace)::k",
            "k(at::Tensor const&)",
            "(anonymous namespace)::k(at::Tensor const&)",
        ] {
            assert_eq!(
                s.find(name),
                [(
                    0x8400_0020,
                    0x8400_0030,
                    "(anonymous namespace)::k(at::Tensor const&)"
                )],
                "{name}"
            );
        }
        assert_eq!(s.find("relu_forward").len(), 1);
        assert_eq!(s.find("get_func_cnt").len(), 1);
        assert_eq!(s.find("(anonymous namespace)").len(), 0);
        assert_eq!(s.find(""), []);
    }

    #[test]
    fn a_line_is_the_sdks_when_its_file_is_under_sdk() {
        let line = |file: &str| SourceLine {
            file: file.into(),
            line: 1,
        };
        assert!(line("sdk/rt/customop/sdma.cpp").in_sdk());
        assert!(line("sdk/include/ATen/core/TensorAccessor.h").in_sdk());
        for own in ["k.cpp", "wrapper.cpp", "kernels/sdk.cpp", "sdkfoo/k.cpp"] {
            assert!(!line(own).in_sdk(), "{own}");
        }
        let s = Symbols::already_read(Read {
            funcs: vec![(0x8400_0020, 0x10, "k".into())],
            lines: None,
        });
        assert_eq!(
            s.authors_frame(&[0x8400_0024, 0x8400_0028]),
            None,
            "without line tables no frame can be told apart"
        );
    }

    #[test]
    fn file_names_lose_their_dot_components() {
        assert_eq!(tidy("././k.cpp"), "k.cpp");
        assert_eq!(
            tidy("./sdk/rt/customop/stack_switch.cpp"),
            "sdk/rt/customop/stack_switch.cpp"
        );
        assert_eq!(tidy("/abs/./x.c"), "/abs/x.c");
    }

    #[test]
    fn cxx_names_are_demangled() {
        assert_eq!(
            demangle("_Z12relu_forwardRKN2at6TensorE"),
            "relu_forward(at::Tensor const&)"
        );
        assert_eq!(demangle("get_func_cnt"), "get_func_cnt");
    }
}
