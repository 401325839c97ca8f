//! PLATFORM.md documents the platform the emulator's constants define: its tables must equal
//! `q7_emulator::platform::map`, whose register map `map::reg` the devices decode through. The
//! SDK's C view of the same constants (`q7/platform_map.h`) is generated from them by
//! `tests/tests/all/sdk_headers.rs`.

use std::collections::HashMap;

use q7_emulator::platform::map::{self, reg};

fn doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../PLATFORM.md")).unwrap()
}

/// Table rows `| NAME | a | b | ...` → NAME → [a, b, ...].
fn rows(text: &str) -> HashMap<String, Vec<String>> {
    q7_tests::doc::rows(text)
        .into_iter()
        .map(|mut cells| (cells.remove(0), cells))
        .collect()
}

fn hex(s: &str) -> u32 {
    u32::from_str_radix(s.trim().trim_start_matches("0x"), 16)
        .unwrap_or_else(|_| panic!("not hex: {s}"))
}

/// "0x1008 + q·0x20" → (0x1008, 0x20); "0x2000" → (0x2000, 0).
fn offset(cell: &str) -> (u32, u32) {
    match cell.split_once('+') {
        Some((base, step)) => (hex(base), hex(step.split('·').nth(1).unwrap())),
        None => (hex(cell), 0),
    }
}

#[test]
fn the_documented_clock_is_the_codes() {
    let r = rows(&doc());
    let row = r.get("CLOCK").expect("PLATFORM.md has a CLOCK row");
    let hz: u64 = row[0].split(' ').next().unwrap().parse().unwrap();
    assert_eq!(hz, map::CLOCK_HZ);
    assert!(
        row[0].contains(&format!("{} cycles per µs", map::CLOCK_HZ / 1_000_000)),
        "{row:?}"
    );
}

#[test]
fn address_map_matches_the_code() {
    let r = rows(&doc());
    for (name, (base, size)) in map::REGIONS {
        let row = r
            .get(name)
            .unwrap_or_else(|| panic!("PLATFORM.md has no row {name}"));
        assert_eq!((hex(&row[0]), hex(&row[1])), (base, size), "{name}");
    }
    assert_eq!(
        map::image_window(7),
        (0x84e0_0000, 0x20_0000),
        "seed: cpu7 window"
    );
}

/// A register offset as a function of its window or queue index.
type RegOffset = fn(u32) -> u32;

#[test]
fn registers_match_the_code() {
    let r = rows(&doc());
    let per_index: [(&str, RegOffset); 8] = [
        ("MEM_WINDOW_BASE_LO(w)", reg::mem_window_base_lo),
        ("MEM_WINDOW_BASE_HI(w)", reg::mem_window_base_hi),
        ("MEM_WINDOW_CTRL(w)", reg::mem_window_ctrl),
        ("SDMA_RING_BASE(q)", reg::sdma_ring_base),
        ("SDMA_RING_SIZE(q)", reg::sdma_ring_size),
        ("SDMA_DOORBELL(q)", reg::sdma_doorbell),
        ("SDMA_COMPLETED(q)", reg::sdma_completed),
        ("SDMA_WAIT(q)", reg::sdma_wait),
    ];
    for (name, f) in per_index {
        let (base, step) = offset(&r.get(name).unwrap_or_else(|| panic!("no row {name}"))[0]);
        assert_eq!((f(0), f(1)), (base, base + step), "{name}");
    }
    for (name, off) in [
        ("MBOX_OPCODE", reg::MBOX_OPCODE),
        ("MBOX_SUB_OPCODE", reg::MBOX_SUB_OPCODE),
        ("MBOX_NARGS", reg::MBOX_NARGS),
        ("MBOX_ARGS", reg::MBOX_ARGS),
        ("MBOX_RESPONSE", reg::MBOX_RESPONSE),
        ("MBOX_RESPONSE_VALID", reg::MBOX_RESPONSE_VALID),
        ("CONSOLE_PUTC", reg::CONSOLE_PUTC),
    ] {
        assert_eq!(
            offset(&r.get(name).unwrap_or_else(|| panic!("no row {name}"))[0]),
            (off, 0),
            "{name}"
        );
    }
}

/// The register map the devices decode through is PLATFORM.md's register tables, row for row:
/// every register of `reg::BLOCKS` has its row with its offset (and instance step) and access,
/// and every register row of PLATFORM.md is in the map.
#[test]
fn every_register_of_the_device_blocks_is_a_platform_md_row() {
    let r = rows(&doc());
    let mut in_map = Vec::new();
    for block in reg::BLOCKS {
        for reg in block.registers {
            let name = if block.index.is_empty() {
                reg.name.to_string()
            } else {
                format!("{}({})", reg.name, block.index)
            };
            let row = r
                .get(&name)
                .unwrap_or_else(|| panic!("PLATFORM.md has no row {name}"));
            let step = if block.index.is_empty() {
                0
            } else {
                block.stride
            };
            assert_eq!(offset(&row[0]), (block.at(reg, 0), step), "{name}: offset");
            assert_eq!(row[1], reg.access.as_str(), "{name}: access");
            in_map.push(name);
        }
    }
    let mut in_doc: Vec<String> = r
        .iter()
        .filter(|(_, cells)| cells.len() == 3 && matches!(cells[1].as_str(), "R" | "W" | "RW"))
        .map(|(name, _)| name.clone())
        .collect();
    in_doc.sort();
    in_map.sort();
    assert_eq!(in_doc, in_map, "register rows of PLATFORM.md");
}

#[test]
fn image_size_limits_match_the_code() {
    use q7_loader::prelink::{EXTISA_CAP, MAX_IMAGE_BYTES, TOO_LARGE};
    let doc = doc();
    let section = &doc[doc.find("## Image size limits").expect("section")..];
    assert!(section.contains(&format!("\"{TOO_LARGE}\"")));
    assert!(section.contains("| 64 KiB, `EXTISA_CAP`"));
    assert_eq!(EXTISA_CAP, 64 << 10);
    assert!(section.contains("over 32 MiB, `MAX_IMAGE_BYTES`"));
    assert_eq!(MAX_IMAGE_BYTES, 32 << 20);
    let (_, window) = q7_emulator::platform::map::image_window(0);
    assert!(section.contains("2 MiB image window") && window == 2 << 20);
    let (_, single) = q7_emulator::platform::map::SINGLE_CORE_IMAGE_WINDOW;
    assert!(section.contains("the 32 MiB window at 0x84000000") && single == 32 << 20);
}

/// PLATFORM.md "Runtime errors": the MBOX_ABORT codes and names are the emulator's.
#[test]
fn runtime_error_codes_match_the_code() {
    use q7_emulator::platform::mailbox::RUNTIME_ERRORS;
    let rows: Vec<(u32, String)> = q7_tests::doc::table_after(&doc(), "console; the host reports")
        .into_iter()
        .map(|c| (c[0].parse().unwrap(), c[1].clone()))
        .collect();
    let code: Vec<(u32, String)> = RUNTIME_ERRORS
        .iter()
        .map(|e| (e.0, e.1.to_string()))
        .collect();
    assert_eq!(rows, code);
}

/// PLATFORM.md "Annotation port (TRACE)": the phases, heaps and accessor kinds of the
/// arguments column are the emulator's tables, code and name.
#[test]
fn trace_event_argument_codes_match_the_code() {
    use q7_emulator::platform::trace_port::{code, ACCESSORS, BIND_OUTPUT, EVENTS, HEAPS, PHASES};
    let rows = q7_tests::doc::table_after(&doc(), "| code | event | arguments |");
    let args = |event: u32| rows[event as usize - 1][2].clone();
    let listed = |table: &[(u32, &str)]| {
        let items: Vec<String> = table.iter().map(|(c, n)| format!("{c} {n}")).collect();
        format!("({})", items.join(", "))
    };
    assert!(args(code::PHASE_BEGIN).contains(&listed(&PHASES)));
    assert!(args(code::ALLOC).contains(&listed(&HEAPS)));
    assert!(args(code::ACCESSOR).contains(&listed(&ACCESSORS)));
    assert!(args(code::TENSOR_BIND).contains(&format!("{BIND_OUTPUT:#X} for the output")));
    for (c, name) in [
        (code::PHASE_BEGIN, "PHASE_BEGIN"),
        (code::PHASE_END, "PHASE_END"),
        (code::ALLOC, "ALLOC"),
        (code::FREE, "FREE"),
        (code::TENSOR_BIND, "TENSOR_BIND"),
        (code::STACK_SWITCH, "STACK_SWITCH"),
        (code::STACK_RETURN, "STACK_RETURN"),
        (code::ACCESSOR, "ACCESSOR"),
    ] {
        assert!(EVENTS.contains(&(c, name)), "{name} = {c}");
    }
}

/// PLATFORM.md "Annotation port (TRACE)": the event codes and names are the emulator's.
#[test]
fn trace_event_codes_match_the_code() {
    use q7_emulator::platform::trace_port::EVENTS;
    let rows: Vec<(u32, String)> =
        q7_tests::doc::table_after(&doc(), "| code | event | arguments |")
            .into_iter()
            .map(|c| (c[0].parse().unwrap(), c[1].clone()))
            .collect();
    let code: Vec<(u32, String)> = EVENTS.iter().map(|e| (e.0, e.1.to_string())).collect();
    assert_eq!(rows, code);
}
