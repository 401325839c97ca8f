//! PLATFORM.md "Custom-op ABI" documents what the SDK runtime, the firmware and the host agree
//! on. A value a Rust table defines is checked against that table — here, or in
//! `tests/tests/all/platform_doc.rs` (registers, runtime errors, annotation codes) and
//! `host-stub/tests/all/dtype_doc.rs` (dtype codes) — and the SDK's C view of it,
//! `q7/customop_abi_tables.h`, is generated from the table (`tests/tests/all/sdk_headers.rs`). The
//! values only the SDK defines are checked against its hand-written headers
//! (`q7/customop_abi.h`, `c10/core/ScalarType.h`).

use std::collections::HashMap;

use q7_emulator::platform::map;
use q7_kernel_build::MAX_OPS;
use q7_loader::ucode_lib::CUSTOM_OP_OPCODE;
use q7_runtime::firmware::{self, RUNTIME_ERROR_PREFIX};
use q7_tensor::descriptor::{
    field, Location, FLAG_OUTPUT, FLAG_WIDE_SHAPE, MAX_RANK, MAX_WIDE_RANK,
};
use q7_tensor::dtype::DTYPES;
use q7_tests::doc::rows;

fn read(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn abi_section() -> String {
    let doc = read("PLATFORM.md");
    let at = doc
        .find("## Custom-op ABI")
        .expect("PLATFORM.md has a Custom-op ABI section");
    doc[at..].to_string()
}

/// `text` with every run of whitespace one space, so prose checks survive reflowing.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn header(rel: &str) -> String {
    read(&format!("examples/sdk/include/{rel}"))
}

/// `#define NAME value` lines of a header.
fn defines(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("#define "))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let name = it.next()?.to_string();
            let value = it
                .take_while(|w| !w.starts_with("/*"))
                .collect::<Vec<_>>()
                .join(" ");
            Some((name, value))
        })
        .collect()
}

/// The argument lists of the `X(...)` lines of X-macro `name` in `text`.
fn x_macro(text: &str, name: &str) -> Vec<Vec<String>> {
    let start = text
        .find(&format!("#define {name}(X)"))
        .unwrap_or_else(|| panic!("no X-macro {name}"));
    text[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.trim_end().ends_with('\\') || l.trim_start().starts_with("X("))
        .filter_map(|l| {
            let l = l.trim().trim_end_matches('\\').trim();
            let inner = l.strip_prefix("X(")?.strip_suffix(')')?;
            Some(inner.split(',').map(|c| c.trim().to_string()).collect())
        })
        .collect()
}

fn num(s: &str) -> u64 {
    let s = s.trim().trim_end_matches('u');
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    }
    .unwrap_or_else(|_| panic!("not a number: {s}"))
}

/// The ScalarTypes of `c10/core/ScalarType.h` are the dtypes the marshalling gate accepts, one
/// each, with the ISA code of the host's dtype table.
#[test]
fn scalar_types_are_the_accepted_dtypes() {
    let torch = x_macro(&header("c10/core/ScalarType.h"), "Q7_SCALAR_TYPES");
    let mut accepted = Vec::new();
    for d in DTYPES.iter().filter(|d| d.marshallable()) {
        accepted.push(d.code);
        // kChar -> the ScalarType named Char maps to this code.
        let st = d.torch.unwrap().trim_start_matches('k');
        let t = torch
            .iter()
            .find(|t| t[1] == st)
            .unwrap_or_else(|| panic!("no ScalarType {st}"));
        assert_eq!(num(&t[3]), u64::from(d.code), "ISA code of {st}");
    }
    assert_eq!(
        accepted,
        [2, 3, 4, 6, 7, 8, 10, 12],
        "seed: the gate's eight"
    );
    assert_eq!(torch.len(), 8, "one ScalarType per accepted code");
}

/// The line the runtime prints before MBOX_ABORT starts with the prefix the host looks for.
#[test]
fn the_runtime_error_line_has_the_hosts_prefix() {
    let section = abi_section();
    let errors = &section[section.find("### Runtime errors").unwrap()..];
    let errors = &errors[..errors.find("### Annotation port").unwrap()];
    assert!(errors.contains(&format!("`{RUNTIME_ERROR_PREFIX} <what>`")));
}

#[test]
fn runtime_memory_layout_matches_the_table() {
    let section = abi_section();
    let r = rows(&section);
    let place = |what: &str| -> (u64, u64) {
        let row = r
            .iter()
            .find(|row| row[0].starts_with(what))
            .unwrap_or_else(|| panic!("no row {what}"));
        let addr = row[1].split_whitespace().last().unwrap();
        let kib: u64 = row[2].trim_end_matches(" KiB").parse().unwrap();
        (num(addr), kib * 1024)
    };
    let d = defines(&header("q7/customop_abi.h"));
    for (what, base, size) in [
        ("runtime state", "Q7_RT_STATE_ADDR", "Q7_RT_STATE_SIZE"),
        ("bounce buffer", "Q7_BOUNCE_ADDR", "Q7_BOUNCE_SIZE"),
        ("TCM user pool", "Q7_TCM_POOL_ADDR", "Q7_TCM_POOL_SIZE"),
        (
            "DATARAM heap",
            "Q7_DATARAM_HEAP_ADDR",
            "Q7_DATARAM_HEAP_SIZE",
        ),
    ] {
        assert_eq!(place(what), (num(&d[base]), num(&d[size])), "{what}");
    }
    // The four regions tile DATARAM [0x80000, 0x90000) in order.
    assert_eq!(
        num(&d["Q7_DATARAM_HEAP_ADDR"]) + num(&d["Q7_DATARAM_HEAP_SIZE"]),
        0x90000
    );
    let prose = flat(&section);
    assert!(prose.contains(&format!("SP = 0x{:08X}", firmware::CALL_SP)));
    assert!(prose.contains(&format!("ISL = KSL = 0x{:08X}", firmware::STACK_LIMIT)));
    assert!(prose.contains("up to `MAX_STACK_SIZE` 0x400000"));
    assert_eq!(num(&d["Q7_MAX_STACK_SIZE"]), 0x40_0000);
    assert!(read("PLATFORM.md").contains(&format!(
        "less the {}-byte call trampoline",
        q7_layout::TRAMPOLINE_SIZE
    )));
}

#[test]
fn dispatch_keys_and_descriptor_sizes_match_the_text() {
    let section = flat(&abi_section());
    let opcode = CUSTOM_OP_OPCODE;
    assert!(section.contains(&format!("`FunctionId << 8 | {opcode:#x}`")));
    assert!(section.contains(&format!("{opcode:#x} = {opcode}")));
    assert!(section.contains(&format!("at most {MAX_OPS} ops per library")));
    assert!(section.contains(&format!(
        "one zeroed {}-byte entry per op",
        q7_loader::kernel_table::ENTRY_SIZE
    )));
    assert!(section.contains(&format!(
        "### ARG_TENSOR descriptor ({:#x} bytes",
        map::ARG_TENSOR_SIZE
    )));
    assert!(
        section.contains(&format!("{} = HBM", Location::Hbm as u8))
            && section.contains(&format!("{} = local", Location::Local as u8))
            && section.contains(&format!("{} = scalar", Location::Scalar as u8))
    );
    for (bit, name) in [(FLAG_OUTPUT, "OUTPUT"), (FLAG_WIDE_SHAPE, "WIDE_SHAPE")] {
        assert!(section.contains(&format!("bit {} `{name}`", bit.trailing_zeros())));
    }
    assert!(section.contains(&format!(
        "0..{MAX_RANK} (0..{MAX_WIDE_RANK} with `WIDE_SHAPE`)"
    )));
    let platform = flat(&read("PLATFORM.md"));
    assert!(platform.contains(&format!(
        "number of ARG_TENSOR descriptors (0..{})",
        map::MAX_ARGS
    )));
    assert!(
        section.contains("0xC = the value is an IEEE double's bits, 0x7 = a signed 64-bit integer")
    );
}

/// The descriptor's field table: each field at the host's offset.
#[test]
fn descriptor_fields_are_at_the_hosts_offsets() {
    let rows: Vec<(u64, String)> = q7_tests::doc::table_after(&abi_section(), "| offset | field |")
        .into_iter()
        .map(|r| (num(r[0].trim_start_matches('+')), r[1].clone()))
        .collect();
    let fields = [
        (field::LOCATION, "u8 `location`"),
        (field::DTYPE, "u8 `dtype`"),
        (field::RANK, "u8 `rank`"),
        (field::FLAGS, "u8 `flags`"),
        (field::RESERVED0, "u32"),
        (field::ADDR, "u64 `addr`"),
        (field::NUM_ELEM, "u64 `num_elem`"),
        (field::SHAPE, "16 bytes `shape`"),
        (field::RESERVED1, "u64"),
    ];
    let code: Vec<(u64, String)> = fields
        .iter()
        .map(|&(at, f)| (at as u64, f.to_string()))
        .collect();
    assert_eq!(rows, code);
}
