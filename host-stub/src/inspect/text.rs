//! The human-readable rendering of a [`Report`]: the build's ops and libraries, then per image
//! its ELF header and segments, its container, and its device image as staged (UCPL header,
//! relocations, kernel table), in aligned columns.

use q7_loader::elf::ElfKind;
use q7_loader::kernel_table;
use q7_loader::packed::ENTRY_SYMBOL;

use super::model::{DeviceReport, ElfReport, EntryReport, Report};

/// Rows as aligned columns, each line indented by `indent` spaces; trailing blanks trimmed.
fn columns(rows: &[Vec<String>], indent: usize) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = " ".repeat(indent);
        for (c, cell) in r.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < r.len() {
                line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// `n` and the noun for it: "1 entry", "2 entries".
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn hex(v: u32) -> String {
    format!("{v:#010x}")
}

fn elf_text(e: &ElfReport, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let kind = ElfKind::Other(e.e_type).describe();
    out.push_str(&format!(
        "{pad}ELF32 {kind}, machine {} (EM_XTENSA), entry {}, flags {:#x}, {} sections, {} symbols\n",
        e.machine,
        hex(e.entry),
        e.flags,
        e.sections,
        e.symbols
    ));
    if e.segments.is_empty() {
        out.push_str(&format!("{pad}no program headers\n"));
        return;
    }
    let mut rows = vec![["type", "offset", "vaddr", "memsz", "filesz", "flags"]
        .map(str::to_string)
        .to_vec()];
    for s in &e.segments {
        rows.push(vec![
            s.kind.clone(),
            format!("{:#08x}", s.offset),
            hex(s.vaddr),
            format!("{:#08x}", s.memsz),
            format!("{:#08x}", s.filesz),
            s.flags_text.clone(),
        ]);
    }
    out.push_str(&columns(&rows, indent));
}

fn entries_text(entries: &[EntryReport], indent: usize) -> String {
    let mut rows = vec![["#", "key", "function", "op", "symbol"]
        .map(str::to_string)
        .to_vec()];
    for e in entries {
        rows.push(vec![
            e.index.to_string(),
            format!("{:#06x}", e.key),
            hex(e.function),
            e.op.clone().unwrap_or_else(|| "-".into()),
            e.symbol.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    columns(&rows, indent)
}

fn device_text(d: &DeviceReport, out: &mut String) {
    if let Some(elf) = &d.elf {
        out.push_str("  device image:\n");
        elf_text(elf, 4, out);
    }
    let u = &d.ucpl;
    let window = if d.single_core {
        "the single-core image window".to_string()
    } else {
        format!("core {}'s image window", d.core)
    };
    out.push_str(&format!(
        "  UCPL image, prelinked for {window} {}+{:#x}: {} bytes\n",
        hex(d.window.start),
        d.window.size,
        u.image_bytes
    ));
    let rows: Vec<Vec<String>> = [
        ("magic", format!("{:#x} (\"UCPL \")", u.magic)),
        ("code_seg_off", format!("{:#x}", u.code_seg_off)),
        ("code_seg_len", format!("{:#x}", u.code_seg_len)),
        ("data_seg_off", format!("{:#x}", u.data_seg_off)),
        ("data_seg_len", format!("{:#x}", u.data_seg_len)),
        ("init", hex(u.init)),
        ("fini", hex(u.fini)),
        ("start_sym", hex(u.start_sym)),
    ]
    .into_iter()
    .map(|(k, v)| vec![k.to_string(), v])
    .collect();
    out.push_str(&columns(&rows, 4));
    out.push_str(&format!(
        "  relocations: {} applied\n",
        d.relocations.applied
    ));
    let rows: Vec<Vec<String>> = d
        .relocations
        .by_type
        .iter()
        .map(|r| vec![r.name.clone(), r.count.to_string()])
        .collect();
    out.push_str(&columns(&rows, 4));
    match &d.kernel_table {
        None => {
            out.push_str("  kernel table: none (no KTAB trailer: the image registers no kernels)\n")
        }
        Some(k) => {
            out.push_str(&format!(
                "  kernel table at {}, {} bytes, {}\n",
                hex(k.addr),
                k.size,
                plural(
                    k.size as usize / kernel_table::ENTRY_SIZE,
                    "entry",
                    "entries"
                )
            ));
            match (&k.bound_entries, &k.bind_error) {
                (Some(b), _) => {
                    out.push_str("    bound by the firmware after the start symbol:\n");
                    out.push_str(&entries_text(b, 6));
                }
                (None, Some(e)) => {
                    out.push_str(&format!("    not bound: {e}\n"));
                }
                (None, None) => {}
            }
            if k.image_entries
                .iter()
                .all(|e| e.key == 0 && e.function == 0)
            {
                out.push_str("    in the image: all entries empty (the start symbol fills them)\n");
            } else {
                out.push_str("    in the image:\n");
                out.push_str(&entries_text(&k.image_entries, 6));
            }
        }
    }
}

impl Report {
    /// The human-readable text.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if let Some(b) = &self.build {
            let i = &b.info;
            out.push_str(&format!(
                "build {}: library {}, {}, get_cpu_count() {}, {}\n",
                self.input,
                i.library,
                if i.multicore {
                    "multicore (one image per core)"
                } else {
                    "single-core"
                },
                i.cpu_count,
                if i.packed {
                    "stripped and packed"
                } else {
                    "unpacked (a -g build)"
                }
            ));
            out.push_str("ops (q7build.json):\n");
            let mut rows = vec![["id", "key", "name", "schema"].map(str::to_string).to_vec()];
            for o in &i.ops {
                rows.push(vec![
                    o.function_id.to_string(),
                    format!("{:#06x}", o.key),
                    o.name.clone(),
                    o.schema.clone(),
                ]);
            }
            out.push_str(&columns(&rows, 2));
            out.push_str(&format!(
                "ucode_lib.json: {}\n",
                plural(b.ucode_lib.len(), "library", "libraries")
            ));
            let mut rows = vec![["library", "cpu", "ucode", "isa", "builtin", "functions"]
                .map(str::to_string)
                .to_vec()];
            for l in &b.ucode_lib {
                let functions: Vec<String> = l
                    .functions
                    .iter()
                    .map(|f| format!("{} (sub_opcode {})", f.name, f.sub_opcode))
                    .collect();
                rows.push(vec![
                    l.library.clone(),
                    format!("{}/{}", l.cpu_id, l.total_cpus),
                    l.ulib_to_ucode_version.clone(),
                    l.ulib_to_isa_version.clone(),
                    l.is_builtin.to_string(),
                    functions.join(", "),
                ]);
            }
            out.push_str(&columns(&rows, 2));
        }
        for image in &self.images {
            out.push_str(&format!("\n{} ({} bytes):\n", image.file, image.bytes));
            elf_text(&image.elf, 2, &mut out);
            if let Some(p) = &image.packed {
                out.push_str(&format!(
                    "  packed library: `{ENTRY_SYMBOL}` at {}+{:#x}, a {}-byte device image\n",
                    p.section, p.offset, p.device_image_bytes
                ));
            }
            if let Some(d) = &image.device {
                device_text(d, &mut out);
            }
        }
        out.trim_start_matches('\n').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_on_the_widest_cell() {
        let rows = vec![
            vec!["a".to_string(), "bb".to_string(), "c".to_string()],
            vec!["dddd".to_string(), "e".to_string(), String::new()],
        ];
        assert_eq!(columns(&rows, 2), "  a     bb  c\n  dddd  e\n");
    }
}
