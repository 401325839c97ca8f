//! The SDK headers generated from the Rust tables: the values device code shares with the
//! emulator and the host have one definition, the Rust table, and the SDK's C view of them is
//! rendered from it here rather than copied by hand.
//!
//! | generated header | rendered from | included by |
//! |---|---|---|
//! | `examples/sdk/include/q7/platform_map.h` | `q7_layout` (the address map), the emulator's `platform::map` and its register map `map::reg`, `q7_isa::sreg` | `q7/platform.h` |
//! | `examples/sdk/include/q7/customop_abi_tables.h` | `q7_host`'s dtype and descriptor tables, build limits and firmware constants, the emulator's runtime errors and annotation codes, `q7_loader`'s opcode and kernel-table entry | `q7/customop_abi.h` |
//!
//! The hand-written headers that include them keep what no table holds (structures, function
//! declarations, the runtime's own memory layout; PLATFORM.md "Custom-op ABI").
//!
//! Each test renders a header and fails when the committed copy differs. The convention, also
//! stated in each header's first comment: **`Q7EMU_UPDATE_GENERATED=1 cargo test -p q7-tests
//! --test sdk_headers`** rewrites the committed copies instead of failing; commit them with the table
//! change. PLATFORM.md is checked against the same tables by `tests/tests/all/platform_doc.rs`,
//! `tests/tests/all/sdk_abi.rs` and `host-stub/tests/all/dtype_doc.rs`.

use std::fmt::Write as _;
use std::path::PathBuf;

use q7_emulator::platform::map::{self, reg};
use q7_emulator::platform::{mailbox, trace_port};
use q7_tensor::descriptor::{self, field, Location};
use q7_tensor::dtype::DTYPES;

/// The command that regenerates the headers, as the headers and failures print it.
fn regenerate() -> String {
    q7_tests::generated::regenerate("q7-tests", "all sdk_headers::")
}

/// `examples/sdk/include/<rel>`.
fn header_path(rel: &str) -> PathBuf {
    q7_tests::doc::root().join("examples/sdk/include").join(rel)
}

/// Compares the committed `examples/sdk/include/<rel>` with `rendered` (q7_tests::generated).
fn check_committed(rel: &str, rendered: &str) {
    q7_tests::generated::check_file(
        &format!("examples/sdk/include/{rel}"),
        rendered,
        &regenerate(),
    );
}

/// A header being rendered: its text, and its include guard.
struct Header {
    text: String,
    guard: String,
}

impl Header {
    /// Opens header `q7/<name>` with the generated-file comment: what it is (`what`, a
    /// sentence), the tables it is `from`, who includes it, and how to regenerate it.
    fn new(name: &str, what: &str, from: &str, included_by: &str) -> Header {
        let guard = format!("Q7_{}", name.replace('.', "_").to_uppercase());
        let mut lines = wrap(
            &format!(
                "q7/{name} - GENERATED, do not edit: generated from {from} by \
                 tests/tests/all/sdk_headers.rs, which fails when this copy differs. Regenerate it \
                 with"
            ),
            92,
        );
        lines.push(format!("    {}", regenerate()));
        lines.extend(wrap(&format!("{what} Included by {included_by}."), 92));
        let mut text = String::new();
        for (i, line) in lines.iter().enumerate() {
            let lead = if i == 0 { "/* " } else { " * " };
            writeln!(text, "{lead}{line}").unwrap();
        }
        text.truncate(text.trim_end().len());
        text.push_str(" */\n");
        writeln!(text, "#ifndef {guard}\n#define {guard}").unwrap();
        Header { text, guard }
    }

    /// A section heading.
    fn section(&mut self, title: &str) {
        let rule = "-".repeat(88usize.saturating_sub(title.len() + 8));
        writeln!(self.text, "\n/* ---- {title} {rule} */\n").unwrap();
    }

    /// A comment line.
    fn comment(&mut self, text: &str) {
        writeln!(self.text, "/* {text} */").unwrap();
    }

    /// `#define name value`, aligned, with an optional trailing comment.
    fn define(&mut self, name: &str, value: &str, comment: &str) {
        let mut line = format!("#define {name:<23} {value}");
        if !comment.is_empty() {
            line = format!("{line:<45} /* {comment} */");
        }
        writeln!(self.text, "{line}").unwrap();
    }

    /// An X-macro `#define name(X)` with one `X(...)` line per row.
    fn x_macro(&mut self, name: &str, rows: &[String]) {
        let mut lines = vec![format!("#define {name}(X)")];
        lines.extend(rows.iter().map(|r| format!("\tX({r})")));
        // Backslashes aligned one column after the widest line, a tab counting 8 columns.
        let columns = |l: &str| l.len() + 7 * l.matches('\t').count();
        let width = lines.iter().map(|l| columns(l)).max().unwrap_or(0) + 1;
        let last = lines.len() - 1;
        for (i, l) in lines.iter().enumerate() {
            if i == last {
                writeln!(self.text, "{l}").unwrap();
            } else {
                let pad = " ".repeat(width - columns(l));
                writeln!(self.text, "{l}{pad}\\").unwrap();
            }
        }
    }

    /// The text, include guard closed.
    fn finish(mut self) -> String {
        writeln!(self.text, "\n#endif /* {} */", self.guard).unwrap();
        self.text
    }
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().unwrap();
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// `0x0008_0000` as C writes it: `0x00080000u`.
fn hex32(v: u32) -> String {
    format!("0x{v:08X}u")
}

/// An MMIO offset as the register macros write it: `0x1000u`.
fn offset(v: u32) -> String {
    format!("0x{v:04X}u")
}

/// A small hex constant: `0x30u`.
fn hex(v: u32) -> String {
    format!("0x{v:X}u")
}

/// A count: `16u`.
fn count(v: impl std::fmt::Display) -> String {
    format!("{v}u")
}

/// A table name as a C identifier: upper case, words joined by `_` (`HBM stack` → `HBM_STACK`).
fn c_name(name: &str) -> String {
    name.to_uppercase().replace(' ', "_")
}

// ---------------------------------------------------------------------------------------------
// q7/platform_map.h

/// Array registers — one table row spanning several words — and the element they hold: C
/// addresses them by element and word, `Q7_<name without the plural s>(i, word)`.
const ARRAYS: [(&reg::Register, u32); 1] = [(&reg::mailbox::ARGS, map::ARG_TENSOR_SIZE)];

/// The register macros of one device block (PLATFORM.md's register tables, `map::reg`):
/// `Q7_<name>(<index>)` for a block of several instances, `Q7_<name>` for a single one; a run of
/// numbered registers (`TRACE_ARG0` … `TRACE_ARG3`, one word apart) is one `Q7_<stem>(i)`, and
/// an array register is addressed by element and word ([`ARRAYS`]).
fn render_block(h: &mut Header, block: &reg::Block) {
    let at = |r: &reg::Register| block.at(r, 0);
    if !block.index.is_empty() {
        let i = block.index;
        for r in block.registers {
            assert_eq!(r.len, reg::WIDTH, "{}: one word per instance", r.name);
            let value = format!("Q7_REG({} + ({i}) * {})", offset(at(r)), hex(block.stride));
            h.define(&format!("Q7_{}({i})", r.name), &value, "");
        }
        return;
    }
    let mut regs = block.registers.iter().peekable();
    while let Some(r) = regs.next() {
        if r.len > reg::WIDTH {
            let (_, element) = ARRAYS
                .iter()
                .find(|(a, _)| *a == r)
                .unwrap_or_else(|| panic!("{}: an array register without its element", r.name));
            let name = r.name.strip_suffix('S').unwrap_or(r.name);
            let value = format!(
                "Q7_REG({} + (i) * {} + (word) * {})",
                offset(at(r)),
                hex(*element),
                count(reg::WIDTH)
            );
            h.define(&format!("Q7_{name}(i, word)"), &value, "");
        } else if let Some(stem) = r.name.strip_suffix('0') {
            let mut n = 1;
            while regs
                .next_if(|s| s.name == format!("{stem}{n}") && at(s) == at(r) + n * reg::WIDTH)
                .is_some()
            {
                n += 1;
            }
            let value = format!("Q7_REG({} + (i) * {})", offset(at(r)), count(reg::WIDTH));
            h.define(&format!("Q7_{stem}(i)"), &value, &format!("i < {n}"));
        } else {
            h.define(
                &format!("Q7_{}", r.name),
                &format!("Q7_REG({})", offset(at(r))),
                "",
            );
        }
    }
}

/// `q7/platform_map.h`: the address map, the register map and the special registers the
/// assembler has no name for.
fn platform_map_h() -> String {
    let mut h = Header::new(
        "platform_map.h",
        "The address map and the MMIO register map of PLATFORM.md as device code sees them.",
        "the address layout (isa/layout), the emulator's platform map and register map \
         (emulator/src/platform/map.rs, map/reg.rs) and the special-register table \
         (isa/src/sreg.rs)",
        "q7/platform.h",
    );
    h.section("address map (PLATFORM.md \"Per-core address map\")");
    for (name, (base, size)) in map::REGIONS {
        h.define(&format!("Q7_{name}_BASE"), &hex32(base), "");
        h.define(&format!("Q7_{name}_SIZE"), &hex32(size), "");
    }
    h.define("Q7_WINDOWS", &count(map::WINDOWS), "translate windows");
    h.define("Q7_WINDOW_SIZE", &hex32(map::WINDOW_SIZE), "");
    h.define(
        "Q7_PINNED_WINDOWS",
        &count(map::PINNED_WINDOWS),
        "windows pinned to HBM scratch at boot",
    );
    let (first, size) = map::image_window(0);
    assert_eq!(
        map::image_window(1).0,
        first + size,
        "image windows back to back"
    );
    h.define("Q7_IMAGE_WINDOW_SIZE", &hex32(size), "");
    h.define(
        "Q7_IMAGE_WINDOW(prid)",
        &format!("({} + (prid) * {})", hex32(first), hex32(size)),
        "",
    );

    h.section("registers (PLATFORM.md register tables), offsets in MMIO");
    assert_eq!(reg::WIDTH, 4, "Q7_REG reads and writes 32-bit words");
    h.define(
        "Q7_REG(off)",
        "(*(volatile unsigned int *)(Q7_MMIO_BASE + (off)))",
        "",
    );
    for block in reg::BLOCKS {
        writeln!(h.text).unwrap();
        if block.index.is_empty() {
            h.comment(&format!("{}: one instance", block.name));
        } else {
            h.comment(&format!(
                "{}: {} instances `{}`, {:#x} bytes apart",
                block.name, block.instances, block.index, block.stride
            ));
        }
        if block.name == reg::sdma::BLOCK.name {
            h.define(
                "Q7_SDMA_M2S",
                &count(map::queue::M2S),
                "queue: HBM -> DATARAM",
            );
            h.define(
                "Q7_SDMA_S2M",
                &count(map::queue::S2M),
                "queue: DATARAM -> HBM",
            );
        }
        render_block(&mut h, block);
    }

    h.section("special registers the assembler has no name for (ncore2gp stack limits)");
    for r in q7_isa::sreg::SPECIAL_REGISTERS
        .iter()
        .filter(|r| r.options.contains(q7_isa::Options::STACK_LIMIT))
    {
        h.define(&format!("Q7_SR_{}", c_name(r.name)), &count(r.number), "");
    }
    h.finish()
}

// ---------------------------------------------------------------------------------------------
// q7/customop_abi_tables.h

/// C spellings of annotation-table names that are not their upper-cased words: the heaps and
/// accessor kinds drop the noun of their table.
const ANNOTATION_NAMES: [(&str, &str); 4] = [
    ("TCM pool", "TCM"),
    ("libc heap", "LIBC"),
    ("element accessor", "ELEMENT"),
    ("TCM accessor", "TCM"),
];

/// `Q7_<prefix><NAME> code` for each row of an annotation table.
fn annotation_codes(h: &mut Header, prefix: &str, table: &[(u32, &str)]) {
    for &(code, name) in table {
        let c = ANNOTATION_NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map_or_else(|| c_name(name), |(_, c)| c.to_string());
        h.define(&format!("Q7_{prefix}{c}"), &count(code), "");
    }
}

/// `q7/customop_abi_tables.h`: the values of the custom-op ABI that Rust tables define.
fn customop_abi_tables_h() -> String {
    use q7_runtime::firmware;
    let mut h = Header::new(
        "customop_abi_tables.h",
        "The values of the custom-op ABI (PLATFORM.md \"Custom-op ABI\") that the host, the \
         firmware and the emulator define.",
        "the host's dtype and descriptor tables (host-stub/tensor/src/), build limits \
         (host-stub/kernel-build/src/) and firmware constants (host-stub/runtime/src/firmware.rs), the \
         emulator's platform map, runtime errors and annotation codes (emulator/src/platform/) \
         and the loader's opcode and kernel table (loader/src/)",
        "q7/customop_abi.h",
    );

    h.section("dispatch keys and the kernel table (PLATFORM.md \"Dispatch keys\")");
    let opcode = u32::try_from(q7_loader::ucode_lib::CUSTOM_OP_OPCODE).unwrap();
    h.define(
        "Q7_CUSTOM_OP_OPCODE",
        &hex(opcode),
        &format!("the custom-op opcode, {opcode}"),
    );
    h.define(
        "Q7_MAX_FUNCS",
        &count(q7_kernel_build::MAX_OPS),
        "ops per library (public API limit)",
    );
    h.define(
        "Q7_KENTRY_BYTES",
        &count(q7_loader::kernel_table::ENTRY_SIZE),
        "one `.kernel_info_table` entry",
    );

    h.section("ISA dtype codes (PLATFORM.md \"ISA dtype codes\")");
    h.comment("X(code, ISA name, bytes, accepted by the marshalling gate), in code order");
    for (i, d) in DTYPES.iter().enumerate() {
        assert_eq!(usize::from(d.code), i, "DTYPES is in code order");
    }
    let rows: Vec<String> = DTYPES
        .iter()
        .map(|d| {
            format!(
                "0x{:X}, {}, {}, {}",
                d.code,
                d.name,
                d.bytes,
                u8::from(d.marshallable())
            )
        })
        .collect();
    h.x_macro("Q7_DTYPES", &rows);

    h.section("ARG_TENSOR descriptor (PLATFORM.md \"ARG_TENSOR descriptor\")");
    assert_eq!(descriptor::SIZE, map::ARG_TENSOR_SIZE as usize);
    h.define("Q7_ARG_BYTES", &hex(map::ARG_TENSOR_SIZE), "");
    h.define(
        "Q7_MAX_ARGS",
        &count(map::MAX_ARGS),
        "MBOX_NARGS bound, the OUTPUT descriptor included",
    );
    writeln!(h.text).unwrap();
    for (name, at) in [
        ("LOCATION", field::LOCATION),
        ("DTYPE", field::DTYPE),
        ("RANK", field::RANK),
        ("FLAGS", field::FLAGS),
        ("RESERVED0", field::RESERVED0),
        ("ADDR", field::ADDR),
        ("NUM_ELEM", field::NUM_ELEM),
        ("SHAPE", field::SHAPE),
        ("RESERVED1", field::RESERVED1),
    ] {
        h.define(
            &format!("Q7_ARG_{name}_OFFSET"),
            &format!("0x{at:02X}u"),
            "",
        );
    }
    writeln!(h.text).unwrap();
    for l in [Location::Hbm, Location::Local, Location::Scalar] {
        h.define(
            &format!("Q7_LOC_{}", c_name(&format!("{l:?}"))),
            &count(l as u8),
            "",
        );
    }
    writeln!(h.text).unwrap();
    for (name, flag) in [
        ("OUTPUT", descriptor::FLAG_OUTPUT),
        ("WIDE_SHAPE", descriptor::FLAG_WIDE_SHAPE),
    ] {
        h.define(
            &format!("Q7_ARG_{name}"),
            &format!("0x{flag:02X}u"),
            &format!("flags bit {}", flag.trailing_zeros()),
        );
    }
    writeln!(h.text).unwrap();
    h.define("Q7_MAX_RANK", &count(descriptor::MAX_RANK), "");
    h.define("Q7_MAX_RANK_WIDE", &count(descriptor::MAX_WIDE_RANK), "");

    h.section("runtime errors (PLATFORM.md \"Runtime errors\": MBOX_ABORT codes)");
    let rows: Vec<String> = mailbox::RUNTIME_ERRORS
        .iter()
        .map(|(code, name, _)| format!("{code}, {name}"))
        .collect();
    h.x_macro("Q7_ERRORS", &rows);
    writeln!(h.text).unwrap();
    h.comment("Prefix of the console line printed before MBOX_ABORT is written (and its space).");
    h.define(
        "Q7_ERROR_PREFIX",
        &format!("\"{} \"", firmware::RUNTIME_ERROR_PREFIX),
        "",
    );

    h.section("annotation port (PLATFORM.md \"Annotation port (TRACE)\")");
    for (code, name) in trace_port::EVENTS {
        h.define(&format!("Q7_EV_{name}"), &count(code), "");
    }
    writeln!(h.text).unwrap();
    annotation_codes(&mut h, "PHASE_", &trace_port::PHASES);
    writeln!(h.text).unwrap();
    annotation_codes(&mut h, "HEAP_", &trace_port::HEAPS);
    writeln!(h.text).unwrap();
    annotation_codes(&mut h, "ACC_", &trace_port::ACCESSORS);
    writeln!(h.text).unwrap();
    h.define(
        "Q7_BIND_OUTPUT",
        &format!("0x{:X}u", trace_port::BIND_OUTPUT),
        "TENSOR_BIND argument index of the output",
    );

    h.section("firmware calls and translate windows (PLATFORM.md \"Runtime memory\")");
    h.define(
        "Q7_TRAMPOLINE_BYTES",
        &count(q7_layout::TRAMPOLINE_SIZE),
        "the call trampoline at the image window's end",
    );
    h.define(
        "Q7_FW_CALL_SP",
        &hex32(firmware::CALL_SP),
        "SP the firmware sets before each call",
    );
    h.define(
        "Q7_FW_STACK_LIMIT",
        &hex32(firmware::STACK_LIMIT),
        "ISL the firmware sets before each call",
    );
    h.define(
        "Q7_TLB_RECORDS",
        &count(map::WINDOWS),
        "translate windows: the TLB's records",
    );
    h.define(
        "Q7_TLB_PINNED",
        &count(map::PINNED_WINDOWS),
        "of them pinned by the platform",
    );
    h.finish()
}

#[test]
fn platform_map_h_is_generated_from_the_tables() {
    check_committed("q7/platform_map.h", &platform_map_h());
}

#[test]
fn customop_abi_tables_h_is_generated_from_the_tables() {
    check_committed("q7/customop_abi_tables.h", &customop_abi_tables_h());
}

/// Every generated header says so first, with the command that regenerates it, and is included
/// by its hand-written header.
#[test]
fn generated_headers_say_how_to_regenerate_them_and_are_included() {
    for (generated, includer) in [
        ("q7/platform_map.h", "q7/platform.h"),
        ("q7/customop_abi_tables.h", "q7/customop_abi.h"),
    ] {
        let text = match generated {
            "q7/platform_map.h" => platform_map_h(),
            _ => customop_abi_tables_h(),
        };
        let first = &text[..text.find("*/").unwrap()];
        assert!(first.contains("GENERATED, do not edit"), "{generated}");
        assert!(
            first.contains(&format!("\n *     {}\n", regenerate())),
            "{generated}"
        );
        let includer_text = std::fs::read_to_string(header_path(includer)).unwrap();
        assert!(
            includer_text.contains(&format!("#include <{generated}>")),
            "{includer} includes {generated}"
        );
    }
}
