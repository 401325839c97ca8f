//! Golden byte-exact tests of the host ↔ device formats (PLATFORM.md "Host ↔ device formats")
//! and `ucode_lib.json` (PLATFORM.md "`ucode_lib.json` and the library registry").

use q7_loader::kernel_table::{self, KernelEntry};
use q7_loader::load_record::{Direction, LoadRecord, RecordError};
use q7_loader::ucode_lib::{Registry, RegistryError};
use q7_loader::ucpl::{UcplError, UcplHeader, MAGIC};

#[test]
fn ucpl_header_bytes() {
    let h = UcplHeader {
        code_seg_len: 0x1234,
        data_seg_off: 0x1260,
        data_seg_len: 0x80,
        init: 0x8400_0100,
        fini: 0,
        start_sym: 0x8400_0020,
    };
    let b = h.encode();
    // Seed: magic "UCPL " = qword 0x204c504355; its byte 4 (0x20) is the code offset.
    assert_eq!(&b[..8], b"UCPL \0\0\0");
    assert_eq!(MAGIC, 0x20_4c50_4355);
    assert_eq!(h.code_seg_off(), 0x20);
    assert_eq!(
        b,
        [
            0x55, 0x43, 0x50, 0x4c, 0x20, 0, 0, 0, //
            0x34, 0x12, 0, 0, 0x60, 0x12, 0, 0, 0x80, 0, 0, 0, //
            0x00, 0x01, 0x00, 0x84, 0, 0, 0, 0, 0x20, 0x00, 0x00, 0x84
        ]
    );
    let mut image = b.to_vec();
    image.resize(0x12e0, 0);
    assert_eq!(UcplHeader::decode(&image), Ok(h));
    assert_eq!(
        UcplHeader::decode(&image[..0x1f]),
        Err(UcplError::Truncated { len: 0x1f })
    );
    assert_eq!(
        UcplHeader::decode(&image[..0x1000]),
        Err(UcplError::SegmentOutOfRange {
            segment: "code",
            off: 0x20,
            len: 0x1234,
            size: 0x1000
        })
    );
    let mut bad = image.clone();
    bad[0] = b'X';
    assert!(matches!(
        UcplHeader::decode(&bad),
        Err(UcplError::BadMagic { .. })
    ));
}

#[test]
fn load_and_unload_record_bytes() {
    let r = LoadRecord::load(0x0000_0004_1000_0000, 3, 0x2f40);
    let b = r.encode();
    let mut want = [0u8; 0x40];
    want[0] = 0x95;
    want[1] = 0x10; // u16 0x1095
    want[0x0c] = 1; // direction load
    want[0x10..0x18].copy_from_slice(&[0, 0, 0, 0x10, 4, 0, 0, 0]);
    want[0x18] = 3; // selector
    want[0x1c..0x20].copy_from_slice(&[0x40, 0x2f, 0, 0]);
    assert_eq!(b, want);
    assert_eq!(LoadRecord::decode(&b), Ok(r));
    let u = LoadRecord::unload(3).encode();
    assert_eq!(u[0x0c], 2);
    assert_eq!(&u[0x10..0x18], &[0; 8], "unload names only the selector");
    assert_eq!(LoadRecord::decode(&u).unwrap().direction, Direction::Unload);
    assert_eq!(
        LoadRecord::decode(&b[..0x3f]),
        Err(RecordError::Size { len: 0x3f })
    );
    let mut bad = b;
    bad[0x0c] = 7;
    assert_eq!(
        LoadRecord::decode(&bad),
        Err(RecordError::BadDirection { found: 7 })
    );
}

#[test]
fn kernel_info_table_entries_are_big_endian_key_little_endian_va() {
    let e = KernelEntry::new(0x12, 0x85, 0x8400_1234);
    assert_eq!(e.key, 0x1285);
    assert_eq!(e.encode(), [0x00, 0x00, 0x12, 0x85, 0x34, 0x12, 0x00, 0x84]);
    let table = [e, KernelEntry::new(0x13, 0x85, 0x8400_2000)];
    let bytes: Vec<u8> = table.iter().flat_map(|e| e.encode()).collect();
    let back = kernel_table::decode(&bytes).unwrap();
    assert_eq!(back, table);
    assert_eq!(
        kernel_table::lookup(&back, 0x1385).map(|e| e.func),
        Some(0x8400_2000)
    );
    assert!(kernel_table::decode(&bytes[..12]).is_err());
}

#[test]
fn ucode_lib_json_golden() {
    let mut r = Registry::default();
    assert_eq!(r.to_json(), None, "an empty library set emits nothing");
    r.add_lib_file("libvecadd_cpu0.so", "1.2", "7", false, 0, 8)
        .unwrap();
    let id = r.allocate_function_id().unwrap();
    r.add_function("libvecadd_cpu0.so", "vector_add", id)
        .unwrap();
    let id = r.allocate_function_id().unwrap();
    r.add_function("libvecadd_cpu0.so", "vector_mul", id)
        .unwrap();
    // Re-registering with identical versions is a no-op; different versions are an error.
    r.add_lib_file("libvecadd_cpu0.so", "1.2", "7", false, 0, 8)
        .unwrap();
    assert!(matches!(
        r.add_lib_file("libvecadd_cpu0.so", "1.3", "7", false, 0, 8),
        Err(RegistryError::VersionMismatch { .. })
    ));
    assert_eq!(
        r.to_json().unwrap(),
        r#"{
  "ucode_lib": [
    {
      "library": "libvecadd_cpu0.so",
      "ulib_to_ucode_version": "1.2",
      "ulib_to_isa_version": "7",
      "is_builtin": false,
      "cpu_id": 0,
      "total_cpus": 8,
      "functions": [
        {
          "name": "vector_add",
          "opcode": 133,
          "sub_opcode": 0
        },
        {
          "name": "vector_mul",
          "opcode": 133,
          "sub_opcode": 1
        }
      ]
    }
  ]
}
"#
    );
}

#[test]
fn function_ids_are_dense_truncated_to_a_byte_and_capped_at_254() {
    let mut r = Registry::default();
    r.add_lib_file("lib.so", "1", "1", true, 0, 1).unwrap();
    for want in 0..254 {
        assert_eq!(r.allocate_function_id(), Ok(want));
    }
    let err = r.allocate_function_id().unwrap_err();
    assert_eq!(
        err.to_string(),
        "Number of unique custom op functions cannot exceed 254"
    );
    r.add_function("lib.so", "f", 0x1_05).unwrap();
    assert_eq!(
        r.libraries()[0].functions,
        vec![("f".to_string(), 5)],
        "id truncated to its low byte"
    );
    assert!(matches!(
        r.add_function("other.so", "g", 1),
        Err(RegistryError::UnknownLibrary { .. })
    ));
}

#[test]
fn ucode_lib_json_round_trips_and_rejects_other_opcodes() {
    let mut r = Registry::default();
    r.add_lib_file("a.so", "1", "2", true, 3, 8).unwrap();
    let id = r.allocate_function_id().unwrap();
    r.add_function("a.so", "f", id).unwrap();
    let text = r.to_json().unwrap();
    assert_eq!(Registry::from_json(&text).unwrap(), r);
    let bad = text.replace("133", "134");
    assert!(Registry::from_json(&bad)
        .unwrap_err()
        .to_string()
        .contains("opcode 134, expected 133"));
    assert!(Registry::from_json("{\"ucode_lib\": 5}").is_err());
}

#[test]
fn bundle_holds_def_json_libraries_and_ucode_lib_json() {
    let mut r = Registry::default();
    r.add_lib_file("k_cpu0.so", "1", "2", false, 0, 8).unwrap();
    let id = r.allocate_function_id().unwrap();
    r.add_function("k_cpu0.so", "kern", id).unwrap();
    let mut out = Vec::new();
    q7_loader::neff::write_bundle(&r, &[("k_cpu0.so", b"\x7fELF...")], &mut out).unwrap();
    let mut ar = tar::Archive::new(&out[..]);
    let mut members = Vec::new();
    for e in ar.entries().unwrap() {
        let mut e = e.unwrap();
        let name = e.path().unwrap().display().to_string();
        let mut body = String::new();
        std::io::Read::read_to_string(&mut e, &mut body).unwrap();
        members.push((name, body));
    }
    let names: Vec<&str> = members.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["def.json", "k_cpu0.so", "ucode_lib.json"]);
    let def: serde_json::Value = serde_json::from_str(&members[0].1).unwrap();
    assert_eq!(def["neff_features"], 8, "custom-ops feature bit 0x8");
    let standalone: serde_json::Value = serde_json::from_str(&members[2].1).unwrap();
    assert_eq!(
        def["ucode_lib"], standalone["ucode_lib"],
        "both copies share the table"
    );
    assert_eq!(members[2].1, r.to_json().unwrap());
    // A missing binary is an error naming the library.
    let err = q7_loader::neff::write_bundle(&r, &[], Vec::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "library k_cpu0.so is registered but no binary was given for it"
    );
}

#[test]
fn builtin_staging_checks_the_directory_and_each_file() {
    let missing = std::env::temp_dir().join("q7-no-such-custom-op-dir");
    let err = q7_loader::neff::stage_builtins(&missing).unwrap_err();
    assert_eq!(err.to_string(), "Custom op data directory not found");
    let dir = std::env::temp_dir().join(format!("q7-builtins-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("libbuiltincustomop_cpu0.stripped.so"), b"x").unwrap();
    std::fs::write(dir.join("libbuiltincustomop_cpu5.stripped.so"), b"x").unwrap();
    let staged = q7_loader::neff::stage_builtins(&dir).unwrap();
    let cpus: Vec<u8> = staged.iter().map(|(c, _)| *c).collect();
    assert_eq!(cpus, [0, 5]);
    let _ = std::fs::remove_dir_all(&dir);
}
