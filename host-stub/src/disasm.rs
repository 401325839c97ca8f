//! `q7emu disasm`: objdump-style disassembly of the executable sections of an ELF32-Xtensa file.
//!
//! Output follows `xtensa-elf-objdump -d -z`: a header per section, `<symbol>:` labels, and one
//! line per instruction — address, the instruction word as hex (most significant byte first, as
//! objdump prints it), and the text of [`q7_isa::disassemble_one`]. Branch, call and literal
//! addresses are annotated `<symbol+0xoff>` like objdump does. Ranges that `.xt.prop` marks as
//! literals print as 4-byte words without text; undecodable bytes print as `.byte`.

use std::fmt::Write as _;

use q7_isa::{disassemble_one, CoreConfig, Decoded, DisasmLine};
use q7_loader::{ElfFile, PropBlocks, PropFlags, Symbol};

/// Symbols usable as address labels, sorted by address.
struct Symbolizer<'a> {
    symbols: Vec<&'a Symbol>,
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
        Symbolizer { symbols }
    }

    /// The symbol objdump names an operand address after: the closest at or below `addr`
    /// (functions, then objects, then global ones, then by name among equals), else the lowest
    /// one above it.
    fn nearest(&self, addr: u32) -> Option<&'a Symbol> {
        let below = self.symbols.partition_point(|s| s.value <= addr);
        if below == 0 {
            return self.symbols.first().copied();
        }
        let value = self.symbols[below - 1].value;
        let first = self.symbols.partition_point(|s| s.value < value);
        self.symbols[first..below]
            .iter()
            .min_by_key(|s| (s.kind != 2, s.kind != 1, !s.global, &s.name))
            .copied()
    }

    /// The label objdump prints before the first line of a section: the closest symbol of that
    /// section at or below `addr`, else its first one above, else [`Self::nearest`].
    fn section_label(&self, addr: u32, section: usize) -> Option<String> {
        let same: Vec<&Symbol> = self
            .symbols
            .iter()
            .filter(|s| usize::from(s.section) == section)
            .copied()
            .collect();
        let pick = same
            .iter()
            .rev()
            .find(|s| s.value <= addr)
            .or_else(|| same.iter().find(|s| s.value > addr))
            .copied()
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

/// Disassembles every executable section of `elf` for `config`.
pub fn disassemble(
    elf: &ElfFile<'_>,
    file_name: &str,
    config: &CoreConfig,
) -> Result<String, q7_loader::ElfError> {
    let props = elf.property_table()?;
    let symbolizer = Symbolizer::new(elf);
    let mut out = String::new();
    let _ = writeln!(out, "\n{file_name}:     file format elf32-xtensa-le\n");
    for sec in elf
        .sections
        .iter()
        .filter(|s| s.is_exec() && !s.data.is_empty())
    {
        let _ = writeln!(out, "\nDisassembly of section {}:", sec.name);
        let read_literal = |a: u32| {
            let o = a.checked_sub(sec.addr)? as usize;
            let b = sec.data.get(o..o.checked_add(4)?)?;
            Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let blocks = PropBlocks::for_section(&props, sec.addr, sec.size);
        // The label printed at an address: the last of the section's symbols there (objdump).
        let labels: std::collections::BTreeMap<u32, &Symbol> = symbolizer
            .symbols
            .iter()
            .filter(|s| usize::from(s.section) == sec.index)
            .map(|s| (s.value, *s))
            .collect();
        let mut off = 0usize;
        let mut first = true;
        while off < sec.data.len() {
            let pc = sec.addr.wrapping_add(off as u32);
            if let Some(s) = labels.get(&pc) {
                let _ = writeln!(out, "\n{pc:08x} <{}>:", s.name);
            } else if first {
                let l = symbolizer
                    .section_label(pc, sec.index)
                    .unwrap_or_else(|| format!("<{}>", sec.name));
                let _ = writeln!(out, "\n{pc:08x} {l}:");
            }
            first = false;
            let block = blocks.find(pc);
            let code = block.is_none_or(|b| b.flags.contains(PropFlags::INSN));
            let mut line = disassemble_one(&sec.data[off..], pc, config, read_literal);
            let valid = code && line.decoded.is_some() && blocks.fits(pc, line.len as u32);
            if !valid {
                let literal = block.is_some_and(|b| b.flags.contains(PropFlags::LITERAL));
                if literal && pc % 4 == 0 && off + 4 <= sec.data.len() {
                    let w = read_literal(pc).unwrap_or(0);
                    let _ = writeln!(out, "{pc:8x}:\t{w:08x} \t");
                    off += 4;
                    continue;
                }
                line = DisasmLine::undecodable(sec.data[off]);
            }
            let bytes = &sec.data[off..off + line.len];
            let hex: String = bytes.iter().rev().map(|b| format!("{b:02x}")).collect();
            let text = match &line.decoded {
                Some(Decoded::Insn(insn)) => symbolic_text(insn, &symbolizer, read_literal),
                _ => line.text,
            };
            // Column widths as objdump pads them for 1-, 2- and 3-byte chunks.
            let width = match line.len {
                1 => 12,
                2 => 10,
                _ => 14,
            };
            let _ = writeln!(out, "{pc:8x}:\t{hex:<width$}\t{text}");
            off += line.len;
        }
    }
    Ok(out)
}

/// The instruction text with addresses annotated by symbol, as objdump prints it for ELF files.
fn symbolic_text(
    insn: &q7_isa::Insn,
    symbolizer: &Symbolizer<'_>,
    read_literal: impl Fn(u32) -> Option<u32>,
) -> String {
    let mut s = insn.text_with(|v| symbolizer.address(v));
    if let Some(value) = insn.l32r_literal_address().and_then(read_literal) {
        let _ = write!(s, " ({})", symbolizer.address(value));
    }
    s
}
