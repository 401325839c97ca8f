//! `q7emu disasm`: objdump-style disassembly of the executable sections of an ELF32-Xtensa file.
//!
//! Output follows `xtensa-elf-objdump -d`: a header per section, `<symbol>:` labels, and one
//! line per instruction — address, the instruction word as hex (most significant byte first, as
//! objdump prints it), and its text as [`q7_isa::disassemble_one`] gives it. Branch, call and literal
//! addresses are annotated `<symbol+0xoff>` like objdump does. Ranges that `.xt.prop` marks as
//! literals print as 4-byte words without text; undecodable bytes print as `.byte`. Runs of zero
//! bytes collapse to `...` as objdump collapses them ([`Options::zeroes`] keeps every byte, as
//! `objdump -z` does). A file without section headers has its executable PT_LOAD segments
//! disassembled instead.
//!
//! The listing is written as it is produced ([`disassemble`] takes a writer), so memory stays
//! that of the file whatever its size; [`disassemble_file`] reads the file within the ELF image
//! bound of [`q7_loader::input`].

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::ops::Bound::{Excluded, Unbounded};
use std::path::Path;

use q7_isa::{CoreConfig, Decoded, DisasmLine};
use q7_loader::input::{self, InputError, InputKind};
use q7_loader::{ElfError, ElfFile, PropBlocks, PropEntry, PropFlags, Symbol};

/// How a listing is printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Print every zero byte instead of collapsing runs to `...` (objdump's `-z`).
    pub zeroes: bool,
}

/// Zero runs of at least this many bytes collapse to `...` (objdump's rule).
pub const SKIP_ZEROES: usize = 8;
/// Zero runs that end a block and are shorter than this collapse too (objdump's rule).
pub const SKIP_ZEROES_AT_END: usize = 3;

/// Why a file could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum DisasmError {
    /// The file could not be read within its bound.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The file is not a usable ELF.
    #[error("{file}: {source}")]
    Elf {
        /// The file.
        file: String,
        /// Why.
        source: ElfError,
    },
    /// No section headers and no executable segment.
    #[error(
        "{file}: no section headers and no executable PT_LOAD segment: nothing to disassemble"
    )]
    Nothing {
        /// The file.
        file: String,
    },
    /// The listing could not be written.
    #[error("writing the listing: {0}")]
    Write(#[from] std::io::Error),
}

/// Symbols usable as address labels, indexed so that every lookup is logarithmic whatever the
/// symbol table holds.
struct Symbolizer<'a> {
    /// Per distinct address, ascending: the symbol objdump names an operand there after.
    best: Vec<(u32, &'a Symbol)>,
    /// The first symbol by (address, name).
    lowest: Option<&'a Symbol>,
    /// Per section index, its symbols sorted by (address, name).
    by_section: HashMap<usize, Vec<&'a Symbol>>,
}

/// `<sym>`, `<sym+0x10>` or `<sym-0x4>`.
fn relative(sym: &Symbol, addr: u32) -> String {
    match addr.cmp(&sym.value) {
        std::cmp::Ordering::Equal => format!("<{}>", sym.name),
        std::cmp::Ordering::Greater => format!("<{}+{:#x}>", sym.name, addr - sym.value),
        std::cmp::Ordering::Less => format!("<{}-{:#x}>", sym.name, sym.value - addr),
    }
}

impl<'a> Symbolizer<'a> {
    fn new(elf: &'a ElfFile<'_>) -> Self {
        let mut symbols: Vec<&Symbol> = elf
            .symbols
            .iter()
            .filter(|s| !s.name.is_empty() && s.kind != 3 && s.kind != 4 && s.section != 0)
            .filter(|s| usize::from(s.section) < elf.sections.len())
            .collect();
        symbols.sort_by(|a, b| a.value.cmp(&b.value).then(a.name.cmp(&b.name)));
        // Among symbols at one address objdump prefers functions, then objects, then global
        // ones, then the first name.
        let rank = |s: &&Symbol| (s.kind != 2, s.kind != 1, !s.global);
        let mut best: Vec<(u32, &Symbol)> = Vec::new();
        for s in &symbols {
            match best.last_mut() {
                Some((v, b)) if *v == s.value => {
                    if rank(s) < rank(b) {
                        *b = s;
                    }
                }
                _ => best.push((s.value, s)),
            }
        }
        let mut by_section: HashMap<usize, Vec<&Symbol>> = HashMap::new();
        for s in &symbols {
            by_section
                .entry(usize::from(s.section))
                .or_default()
                .push(s);
        }
        Symbolizer {
            best,
            lowest: symbols.first().copied(),
            by_section,
        }
    }

    /// The symbols of section `index`, by (address, name).
    fn of_section(&self, index: usize) -> &[&'a Symbol] {
        self.by_section.get(&index).map_or(&[], Vec::as_slice)
    }

    /// The symbol objdump names an operand address after: the closest at or below `addr`
    /// (functions, then objects, then global ones, then by name among equals), else the lowest
    /// one above it.
    fn nearest(&self, addr: u32) -> Option<&'a Symbol> {
        match self.best.partition_point(|(v, _)| *v <= addr) {
            0 => self.lowest,
            below => Some(self.best[below - 1].1),
        }
    }

    /// The label objdump prints before the first line of a section: the closest symbol of that
    /// section at or below `addr`, else its first one above, else [`Self::nearest`].
    fn section_label(&self, addr: u32, section: usize) -> Option<String> {
        let same = self.of_section(section);
        let at_or_below = same.partition_point(|s| s.value <= addr);
        let pick = at_or_below
            .checked_sub(1)
            .map(|i| same[i])
            .or_else(|| same.get(at_or_below).copied())
            .or_else(|| self.nearest(addr))?;
        Some(relative(pick, addr))
    }

    fn label(&self, addr: u32) -> Option<String> {
        self.nearest(addr).map(|s| relative(s, addr))
    }

    fn address(&self, addr: u32) -> String {
        match self.label(addr) {
            Some(l) => format!("{addr:x} {l}"),
            None => format!("{addr:#x}"),
        }
    }
}

/// What is disassembled: a section, or a segment of a file without section headers.
struct Region<'d> {
    /// Section index (whose symbols label the region), when it is a section.
    section: Option<usize>,
    /// The header line's subject, e.g. "section .text".
    title: String,
    /// The label of the first line when no symbol names it.
    label: String,
    addr: u32,
    data: &'d [u8],
}

/// The executable sections of `elf` with contents, or else its executable PT_LOAD segments.
fn regions<'d>(elf: &ElfFile<'d>, file_name: &str) -> Result<Vec<Region<'d>>, DisasmError> {
    if !elf.sections.is_empty() {
        return Ok(elf
            .sections
            .iter()
            .filter(|s| s.is_exec() && !s.data.is_empty())
            .map(|s| Region {
                section: Some(s.index),
                title: format!("section {}", s.name),
                label: format!("<{}>", s.name),
                addr: s.addr,
                data: s.data,
            })
            .collect());
    }
    let segments: Vec<Region<'d>> = elf
        .segments
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_load() && s.is_exec() && !s.data.is_empty())
        .map(|(i, s)| Region {
            section: None,
            title: format!(
                "segment {i} (PT_LOAD at {:#010x}; the file has no section headers)",
                s.vaddr
            ),
            label: format!("<segment {i}>"),
            addr: s.vaddr,
            data: s.data,
        })
        .collect();
    if segments.is_empty() {
        return Err(DisasmError::Nothing {
            file: file_name.to_string(),
        });
    }
    Ok(segments)
}

/// Reads the ELF file at `path` (within the ELF image bound) and writes its listing to `out`.
/// A reader that goes away (a closed pipe) ends the listing without an error.
pub fn disassemble_file(
    path: &Path,
    config: &CoreConfig,
    options: Options,
    out: &mut impl Write,
) -> Result<(), DisasmError> {
    let data = input::read_file(path, InputKind::ElfImage)?;
    let file = path.display().to_string();
    let elf = ElfFile::parse(&data).map_err(|source| DisasmError::Elf {
        file: file.clone(),
        source,
    })?;
    match disassemble(&elf, &file, config, options, out).and_then(|()| Ok(out.flush()?)) {
        Err(DisasmError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes the listing of every executable section of `elf` for `config` to `out`, line by line.
pub fn disassemble(
    elf: &ElfFile<'_>,
    file_name: &str,
    config: &CoreConfig,
    options: Options,
    out: &mut impl Write,
) -> Result<(), DisasmError> {
    let props = elf.property_table().map_err(|source| DisasmError::Elf {
        file: file_name.to_string(),
        source,
    })?;
    let regions = regions(elf, file_name)?;
    let symbolizer = Symbolizer::new(elf);
    write!(out, "\n{file_name}:     file format elf32-xtensa-le\n\n")?;
    for region in &regions {
        listing(region, &props, &symbolizer, config, options, out)?;
    }
    Ok(())
}

/// Writes the listing of one region.
fn listing(
    region: &Region<'_>,
    props: &[PropEntry],
    symbolizer: &Symbolizer<'_>,
    config: &CoreConfig,
    options: Options,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let data = region.data;
    writeln!(out, "\nDisassembly of {}:", region.title)?;
    let read_literal = |a: u32| {
        let o = a.checked_sub(region.addr)? as usize;
        let b = data.get(o..o.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let blocks = PropBlocks::for_section(props, region.addr, data.len() as u32);
    // The label printed at an address: the last of the section's symbols there (objdump).
    let labels: BTreeMap<u32, &Symbol> = region
        .section
        .map_or(&[][..], |index| symbolizer.of_section(index))
        .iter()
        .map(|s| (s.value, *s))
        .collect();
    let mut off = 0usize;
    let mut first = true;
    while off < data.len() {
        let pc = region.addr.wrapping_add(off as u32);
        if let Some(s) = labels.get(&pc) {
            writeln!(out, "\n{pc:08x} <{}>:", s.name)?;
        } else if first {
            let l = region
                .section
                .and_then(|index| symbolizer.section_label(pc, index))
                .unwrap_or_else(|| region.label.clone());
            writeln!(out, "\n{pc:08x} {l}:")?;
        }
        first = false;
        if !options.zeroes && data[off] == 0 {
            // objdump collapses zeros within the block that runs to the next label.
            let stop = labels
                .range((Excluded(pc), Unbounded))
                .next()
                .map(|(&a, _)| a.wrapping_sub(region.addr) as usize)
                .filter(|&o| o > off)
                .map_or(data.len(), |o| o.min(data.len()));
            let run = data[off..stop].iter().take_while(|&&b| b == 0).count();
            let to_stop = off + run == stop;
            if run >= SKIP_ZEROES || (to_stop && run < SKIP_ZEROES_AT_END) {
                writeln!(out, "\t...")?;
                // Short of the block's end, only whole words are skipped (objdump).
                off += if to_stop { run } else { run & !3 };
                continue;
            }
        }
        let block = blocks.find(pc);
        let code = block.is_none_or(|b| b.flags.contains(PropFlags::INSN));
        let decoded = q7_isa::decode(&data[off..], pc, config)
            .ok()
            .filter(|d| code && blocks.fits(pc, u32::from(d.len())));
        let (len, text) = match decoded {
            Some(Decoded::Insn(insn)) => (
                usize::from(insn.len),
                symbolic_text(&insn, symbolizer, read_literal),
            ),
            Some(d) => (usize::from(d.len()), d.to_string()),
            None => {
                let literal = block.is_some_and(|b| b.flags.contains(PropFlags::LITERAL));
                if literal && pc.is_multiple_of(4) && off + 4 <= data.len() {
                    let w = read_literal(pc).unwrap_or(0);
                    writeln!(out, "{pc:8x}:\t{w:08x} \t")?;
                    off += 4;
                    continue;
                }
                (1, DisasmLine::undecodable(data[off]).text)
            }
        };
        // The bytes most significant first, padded as objdump pads 1-, 2- and 3-byte chunks.
        write!(out, "{pc:8x}:\t")?;
        for b in data[off..off + len].iter().rev() {
            write!(out, "{b:02x}")?;
        }
        let width: usize = match len {
            1 => 12,
            2 => 10,
            _ => 14,
        };
        writeln!(
            out,
            "{:pad$}\t{text}",
            "",
            pad = width.saturating_sub(2 * len)
        )?;
        off += len;
    }
    Ok(())
}

/// The instruction text with addresses annotated by symbol, as objdump prints it for ELF files.
fn symbolic_text(
    insn: &q7_isa::Insn,
    symbolizer: &Symbolizer<'_>,
    read_literal: impl Fn(u32) -> Option<u32>,
) -> String {
    let mut s = insn.text_with(|v| symbolizer.address(v));
    if let Some(value) = insn.l32r_literal_address().and_then(read_literal) {
        s.push_str(&format!(" ({})", symbolizer.address(value)));
    }
    s
}

// ---------------------------------------------------------------------------------------------
// The command line.

/// `q7emu disasm [--profile P] [-z] FILE`.
#[derive(Debug, clap::Args)]
pub struct DisasmArgs {
    /// Core profile whose instruction set decodes the file.
    #[arg(long, default_value = q7_isa::NCORE2GP.name, value_parser = crate::command::profile_parser())]
    pub profile: &'static CoreConfig,
    /// Print runs of zero bytes instead of collapsing them to `...` (objdump's -z).
    #[arg(short = 'z', long)]
    pub disassemble_zeroes: bool,
    /// The ELF file.
    pub file: std::path::PathBuf,
}

/// Runs `q7emu disasm`: the listing on stdout, as it is produced.
pub fn run(args: DisasmArgs) -> Result<q7_conventions::exit_code::Exit, crate::command::Failure> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let options = Options {
        zeroes: args.disassemble_zeroes,
    };
    disassemble_file(&args.file, args.profile, options, &mut out)
        .map_err(crate::command::Failure::input)?;
    Ok(q7_conventions::exit_code::Exit::SUCCESS)
}
