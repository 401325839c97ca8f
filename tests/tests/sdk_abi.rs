//! PLATFORM.md "Custom-op ABI" is the one definition of what the SDK runtime, the firmware and
//! the host agree on: its tables must equal the SDK's headers (`q7/customop_abi.h`,
//! `q7/platform.h`, `c10/core/ScalarType.h`).

use std::collections::HashMap;

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

use q7_tests::doc::rows;

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

#[test]
fn isa_dtype_codes_match_the_table() {
    let table: Vec<Vec<String>> = rows(&abi_section())
        .into_iter()
        .filter(|r| r.len() == 5 && r[0].starts_with("0x"))
        .collect();
    assert_eq!(table.len(), 16, "sixteen ISA dtype codes");
    let abi = x_macro(&header("q7/customop_abi.h"), "Q7_DTYPES");
    assert_eq!(abi.len(), 16);
    let torch = x_macro(&header("c10/core/ScalarType.h"), "Q7_SCALAR_TYPES");
    let mut accepted = Vec::new();
    for (row, x) in table.iter().zip(&abi) {
        let code = num(&row[0]);
        assert_eq!(num(&x[0]), code, "code order");
        assert_eq!(x[1], row[1], "name of {code:#x}");
        assert_eq!(num(&x[2]), num(&row[3]), "bytes of {}", row[1]);
        let ok = !row[2].contains("rejected");
        assert_eq!(x[3] == "1", ok, "gate verdict on {}", row[1]);
        if ok {
            accepted.push(code);
            // kChar -> the ScalarType named Char maps to this code.
            let st = row[2].trim_start_matches('k');
            let t = torch
                .iter()
                .find(|t| t[1] == st)
                .unwrap_or_else(|| panic!("no ScalarType {st}"));
            assert_eq!(num(&t[3]), code, "ISA code of {st}");
        }
    }
    assert_eq!(
        accepted,
        [2, 3, 4, 6, 7, 8, 10, 12],
        "seed: the gate's eight"
    );
    assert_eq!(torch.len(), 8, "one ScalarType per accepted code");
}

#[test]
fn runtime_error_codes_match_the_table() {
    let section = abi_section();
    let errors = &section[section.find("### Runtime errors").unwrap()..];
    let errors = &errors[..errors.find("### Annotation port").unwrap()];
    let table: Vec<(u64, String)> = rows(errors)
        .into_iter()
        .filter(|r| r.len() == 3 && r[0].chars().all(|c| c.is_ascii_digit()))
        .map(|r| (num(&r[0]), r[1].clone()))
        .collect();
    let abi: Vec<(u64, String)> = x_macro(&header("q7/customop_abi.h"), "Q7_ERRORS")
        .into_iter()
        .map(|x| (num(&x[0]), x[1].clone()))
        .collect();
    assert_eq!(abi, table);
    assert_eq!(table.len(), 7);
    let d = defines(&header("q7/customop_abi.h"));
    assert_eq!(d["Q7_ERROR_PREFIX"], "\"q7 runtime error: \"");
    assert!(errors.contains("`q7 runtime error: <what>`"));
}

#[test]
fn annotation_events_and_their_argument_codes_match_the_table() {
    let section = abi_section();
    let trace = &section[section.find("### Annotation port").unwrap()..];
    let trace = &trace[..trace.find("### Runtime memory").unwrap()];
    let d = defines(&header("q7/customop_abi.h"));
    let events: Vec<Vec<String>> = rows(trace)
        .into_iter()
        .filter(|r| r.len() == 3 && r[0].chars().all(|c| c.is_ascii_digit()))
        .collect();
    assert_eq!(events.len(), 8);
    for e in &events {
        assert_eq!(num(&d[&format!("Q7_EV_{}", e[1])]), num(&e[0]), "{}", e[1]);
    }
    // "0: phase (1 setup, 2 marshal, ...)" -> Q7_PHASE_SETUP = 1, ...
    let codes = |event: &str, prefix: &str, names: &[&str]| {
        let args = &events.iter().find(|e| e[1] == event).unwrap()[2];
        for (i, n) in names.iter().enumerate() {
            let cell = format!("{} {}", i + 1, n.to_lowercase().replace('_', " "));
            assert!(
                args.to_lowercase().contains(&cell),
                "{event}: no \"{cell}\" in {args}"
            );
            assert_eq!(
                num(&d[&format!("{prefix}{n}")]),
                i as u64 + 1,
                "{prefix}{n}"
            );
        }
    };
    codes(
        "PHASE_BEGIN",
        "Q7_PHASE_",
        &["SETUP", "MARSHAL", "COMPUTE", "RETURN", "CLEANUP"],
    );
    let heaps = &events.iter().find(|e| e[1] == "ALLOC").unwrap()[2];
    assert!(heaps.contains("(1 HBM, 2 DATARAM, 3 TCM pool, 4 libc heap, 5 HBM stack)"));
    for (n, v) in [
        ("HBM", 1),
        ("DATARAM", 2),
        ("TCM", 3),
        ("LIBC", 4),
        ("HBM_STACK", 5),
    ] {
        assert_eq!(num(&d[&format!("Q7_HEAP_{n}")]), v, "heap {n}");
    }
    let kinds = &events.iter().find(|e| e[1] == "ACCESSOR").unwrap()[2];
    assert!(kinds.contains("(1 element accessor, 2 TCM accessor, 3 read stream, 4 write stream)"));
    for (n, v) in [
        ("ELEMENT", 1),
        ("TCM", 2),
        ("READ_STREAM", 3),
        ("WRITE_STREAM", 4),
    ] {
        assert_eq!(num(&d[&format!("Q7_ACC_{n}")]), v, "accessor kind {n}");
    }
    let bind = &events.iter().find(|e| e[1] == "TENSOR_BIND").unwrap()[2];
    assert!(bind.contains("0xFF for the output"));
    assert_eq!(num(&d["Q7_BIND_OUTPUT"]), 0xFF);
}

#[test]
fn abort_heap_and_trace_registers_match_the_table() {
    let r = rows(&abi_section());
    let offset = |name: &str| -> String {
        r.iter()
            .find(|row| row[0] == name)
            .unwrap_or_else(|| panic!("PLATFORM.md has no row {name}"))[1]
            .clone()
    };
    let d = defines(&header("q7/platform.h"));
    for (row, define) in [
        ("MBOX_ABORT", "Q7_MBOX_ABORT"),
        ("MBOX_HEAP_BASE_LO", "Q7_MBOX_HEAP_BASE_LO"),
        ("MBOX_HEAP_BASE_HI", "Q7_MBOX_HEAP_BASE_HI"),
        ("MBOX_HEAP_SIZE", "Q7_MBOX_HEAP_SIZE"),
        ("TRACE_EVENT", "Q7_TRACE_EVENT"),
    ] {
        assert_eq!(d[define], format!("Q7_REG({}u)", offset(row)), "{row}");
    }
    for i in 0..4u32 {
        assert_eq!(
            offset(&format!("TRACE_ARG{i}")),
            format!("0x{:04X}", 0x4000 + 4 * i)
        );
    }
    assert_eq!(d["Q7_TRACE_ARG(i)"], "Q7_REG(0x4000u + (i) * 4u)");
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
    assert!(prose.contains("SP = 0x020FFFE0"));
    assert!(prose.contains("ISL = KSL = 0x020F8000"));
    assert_eq!(num(&d["Q7_FW_CALL_SP"]), 0x020F_FFE0);
    assert_eq!(num(&d["Q7_FW_STACK_LIMIT"]), 0x020F_8000);
    assert!(prose.contains("up to `MAX_STACK_SIZE` 0x400000"));
    assert_eq!(num(&d["Q7_MAX_STACK_SIZE"]), 0x40_0000);
    assert!(read("PLATFORM.md").contains("less the 64-byte call trampoline"));
    assert_eq!(num(&d["Q7_TRAMPOLINE_BYTES"]), 64);
}

#[test]
fn dispatch_keys_and_descriptor_sizes_match_the_text() {
    let section = flat(&abi_section());
    let d = defines(&header("q7/customop_abi.h"));
    assert!(section.contains("`FunctionId << 8 | 0x85`"));
    assert_eq!(num(&d["Q7_CUSTOM_OP_OPCODE"]), 0x85);
    assert!(section.contains("at most 10 ops per library"));
    assert_eq!(num(&d["Q7_MAX_FUNCS"]), 10);
    assert!(section.contains("### ARG_TENSOR descriptor (0x30 bytes"));
    assert_eq!(num(&d["Q7_ARG_BYTES"]), 0x30);
    assert!(
        section.contains("0 = HBM")
            && section.contains("1 = local")
            && section.contains("2 = scalar")
    );
    assert_eq!(
        [
            num(&d["Q7_LOC_HBM"]),
            num(&d["Q7_LOC_LOCAL"]),
            num(&d["Q7_LOC_SCALAR"])
        ],
        [0, 1, 2]
    );
    assert!(section.contains("bit 0 `OUTPUT`") && section.contains("bit 1 `WIDE_SHAPE`"));
    assert_eq!(
        [num(&d["Q7_ARG_OUTPUT"]), num(&d["Q7_ARG_WIDE_SHAPE"])],
        [1, 2]
    );
    assert!(section.contains("0..8 (0..4 with `WIDE_SHAPE`)"));
    assert_eq!(
        [num(&d["Q7_MAX_RANK"]), num(&d["Q7_MAX_RANK_WIDE"])],
        [8, 4]
    );
    let platform = flat(&read("PLATFORM.md"));
    assert!(platform.contains("number of ARG_TENSOR descriptors (0..16)"));
    assert_eq!(num(&d["Q7_MAX_ARGS"]), 16);
    assert!(
        section.contains("0xC = the value is an IEEE double's bits, 0x7 = a signed 64-bit integer")
    );
}
