//! `q7emu inspect` on the committed images and builds (no toolchain needed): what it prints is
//! what the loader and the firmware report for the same bytes — segments as `q7_loader::elf`
//! reads them, relocations as the image's own DT_RELA table lists them, the UCPL header of
//! `q7_loader::prelink`, the KTAB trailer, the kernel table the firmware binds after the start
//! symbol, op names from `q7build.json` — and bad input gets the loader's errors.

use crate::support;

use std::path::Path;
use std::process::Output;

use q7_emulator::platform::{map, Cluster, ClusterConfig};
use q7_kernel_build::metadata::BuildInfo;
use q7_loader::dynamic::{self, relocation_name, Dynamic};
use q7_loader::ktab::KtabTrailer;
use q7_loader::ucpl::UcplHeader;
use q7_loader::{packed, prelink, ElfFile};
use q7_runtime::firmware::Firmware;
use q7_runtime::nrtucode::{coretype, Context, Source};
use q7_tests::TempDir;
use serde_json::{json, Value};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The committed example builds.
const BUILDS: [&str; 5] = [
    "vector_add",
    "relu_element",
    "relu_tcm",
    "relu_multicore",
    "scaled_transpose",
];

/// `q7emu inspect ARGS`, run in the repository root.
fn inspect(args: &[&str]) -> Output {
    support::q7emu()
        .current_dir(ROOT)
        .arg("inspect")
        .args(args)
        .output()
        .unwrap()
}

/// The `--json` document of `input`, which must be inspected successfully.
fn json(input: &str) -> Value {
    let out = inspect(&["--json", input]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The stderr of an inspection that must fail with exit code 1 (bad input).
fn refused(input: &str) -> String {
    let out = inspect(&[input]);
    assert_eq!(out.status.code(), Some(1), "{input}");
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).unwrap()
}

/// Segments as the report lists them: (type, vaddr, memsz, filesz, flags).
fn segments(elf: &Value) -> Vec<(String, u64, u64, u64, String)> {
    elf["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["kind"].as_str().unwrap().to_string(),
                s["vaddr"].as_u64().unwrap(),
                s["memsz"].as_u64().unwrap(),
                s["filesz"].as_u64().unwrap(),
                s["flags_text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Segments as `q7_loader::elf` reads them, in the same form.
fn loader_segments(elf: &ElfFile<'_>) -> Vec<(String, u64, u64, u64, String)> {
    elf.segments
        .iter()
        .map(|s| {
            (
                s.type_name(),
                u64::from(s.vaddr),
                u64::from(s.memsz),
                s.data.len() as u64,
                s.flags_text(),
            )
        })
        .collect()
}

/// The image's DT_RELA table counted by type name, in type order.
fn relocation_counts(image: &[u8]) -> Vec<(String, u64)> {
    let elf = ElfFile::parse(image).unwrap();
    let dynamic = elf.segments.iter().find(|s| s.is_dynamic()).unwrap();
    let loads: Vec<(u32, &[u8])> = elf
        .segments
        .iter()
        .filter(|s| s.is_load())
        .map(|s| (s.vaddr, s.data))
        .collect();
    let table = Dynamic::parse(dynamic.data)
        .unwrap()
        .rela_table(&loads)
        .unwrap();
    let mut counts = std::collections::BTreeMap::new();
    for r in dynamic::relocations(table) {
        *counts.entry(r.r_type(object::LittleEndian)).or_insert(0u64) += 1;
    }
    counts
        .into_iter()
        .map(|(t, n)| (relocation_name(t).unwrap().to_string(), n))
        .collect()
}

/// The kernel table the firmware binds for packed library `bytes` on `core` after its start
/// symbol: (key, function) per entry.
fn bound_table(bytes: &[u8], core: u32, single_core: bool) -> Vec<(u64, u64)> {
    let mut device = Firmware::new(Cluster::new(&ClusterConfig::default()).unwrap());
    device.single_core = single_core;
    let mut ctx = Context::new(device);
    let mut lib = ctx
        .create(
            coretype::CAYMAN,
            core,
            Some(1),
            "lib",
            Source::CustomOp(bytes),
        )
        .unwrap();
    for r in ctx.load_sequence(&mut lib, None) {
        ctx.device.process(core, &r).unwrap();
    }
    ctx.device
        .kernel_table(1, core)
        .unwrap()
        .iter()
        .map(|e| (u64::from(e.key), u64::from(e.func)))
        .collect()
}

#[test]
fn every_committed_build_is_reported_as_the_loader_and_firmware_see_it() {
    for name in BUILDS {
        let dir = Path::new(ROOT)
            .join("examples/kernels")
            .join(name)
            .join("build");
        let info =
            BuildInfo::from_json(&std::fs::read_to_string(dir.join("q7build.json")).unwrap())
                .unwrap();
        let j = json(&format!("examples/kernels/{name}/build"));
        assert_eq!(j["format_version"], 1);
        assert_eq!(j["kind"], "build");
        assert_eq!(j["build"]["info"], serde_json::to_value(&info).unwrap());
        let ucode = j["build"]["ucode_lib"].as_array().unwrap();
        assert_eq!(ucode.len(), info.images.len(), "{name}");
        let images = j["images"].as_array().unwrap();
        assert_eq!(images.len(), info.images.len(), "{name}");
        for (core, (file, image)) in info.images.iter().zip(images).enumerate() {
            let what = format!("{name} core {core}");
            let bytes = std::fs::read(dir.join(file)).unwrap();
            assert_eq!(image["file"], file.as_str());
            assert_eq!(image["bytes"], bytes.len());
            let container = ElfFile::parse(&bytes).unwrap();
            assert_eq!(
                segments(&image["elf"]),
                loader_segments(&container),
                "{what}"
            );
            let device = packed::device_image(&bytes).unwrap();
            assert_eq!(image["packed"]["device_image_bytes"], device.len());
            let d = &image["device"];
            let elf = ElfFile::parse(device).unwrap();
            assert_eq!(segments(&d["elf"]), loader_segments(&elf), "{what}");
            assert_eq!(d["elf"]["entry"], elf.entry);

            let window = if info.multicore {
                map::image_window(core as u32)
            } else {
                map::SINGLE_CORE_IMAGE_WINDOW
            };
            assert_eq!(d["window"], json!({"start": window.0, "size": window.1}));
            assert_eq!(d["single_core"], !info.multicore);
            let pre = prelink::prelink(device, window.0).unwrap();
            let ucpl = pre.ucpl();
            let h = UcplHeader::decode(&ucpl).unwrap();
            assert_eq!(
                d["ucpl"],
                json!({
                    "magic": 0x20_4c50_4355u64,
                    "code_seg_off": 0x20,
                    "code_seg_len": h.code_seg_len,
                    "data_seg_off": h.data_seg_off,
                    "data_seg_len": h.data_seg_len,
                    "init": h.init,
                    "fini": h.fini,
                    "start_sym": h.start_sym,
                    "image_bytes": ucpl.len(),
                }),
                "{what}"
            );
            let counts: Vec<(String, u64)> = d["relocations"]["by_type"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r["name"].as_str().unwrap().to_string(),
                        r["count"].as_u64().unwrap(),
                    )
                })
                .collect();
            assert_eq!(counts, relocation_counts(device), "{what}");
            assert_eq!(d["relocations"]["applied"], pre.relocations);

            let trailer = KtabTrailer::of_image(&h, &ucpl).unwrap();
            let k = &d["kernel_table"];
            assert_eq!(
                (k["addr"].as_u64(), k["size"].as_u64()),
                (Some(trailer.addr.into()), Some(trailer.size.into()))
            );
            assert_eq!(
                trailer.size as usize,
                8 * info.ops.len(),
                "one entry per op"
            );
            let bound: Vec<(u64, u64)> = k["bound_entries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (e["key"].as_u64().unwrap(), e["function"].as_u64().unwrap()))
                .collect();
            assert_eq!(
                bound,
                bound_table(&bytes, core as u32, !info.multicore),
                "{what}"
            );
            for (i, (e, op)) in k["bound_entries"]
                .as_array()
                .unwrap()
                .iter()
                .zip(&info.ops)
                .enumerate()
            {
                assert_eq!(e["index"], i);
                assert_eq!(e["key"], op.key, "op i's key in entry i");
                assert_eq!(e["op"], op.name.as_str());
            }
            assert!(
                k["image_entries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|e| e["key"] == 0 && e["function"] == 0),
                "the wrapper reserves the table zeroed: {what}"
            );
        }
    }
}

#[test]
fn the_vector_add_build_has_these_exact_fields() {
    let j = json("examples/kernels/vector_add/build");
    assert_eq!(j["input"], "examples/kernels/vector_add/build");
    let d = &j["images"][0]["device"];
    assert_eq!(
        segments(&d["elf"]),
        [
            ("PT_LOAD".into(), 0x8400_0020, 0x97e4, 0x97e4, "R E".into()),
            ("PT_LOAD".into(), 0x8400_98e0, 0x9ec, 0xa8, "RW ".into()),
            ("PT_DYNAMIC".into(), 0x8400_98f8, 0x90, 0x90, "RW ".into()),
        ]
    );
    assert_eq!(
        d["relocations"],
        json!({"applied": 262, "by_type": [{"r_type": 5, "name": "R_XTENSA_RELATIVE", "count": 262}]})
    );
    assert_eq!(d["ucpl"]["start_sym"], 0x8400_4c88u32);
    assert_eq!(d["kernel_table"]["addr"], 0x8400_98f0u32);
    assert_eq!(
        d["kernel_table"]["bound_entries"],
        json!([{"index": 0, "key": 0x85, "function": 0x8400_07acu32, "op": "vector_add", "symbol": null}])
    );
    assert_eq!(
        j["build"]["ucode_lib"],
        json!([{
            "library": "vector_add.packed.so",
            "ulib_to_ucode_version": "1",
            "ulib_to_isa_version": "ncore2gp",
            "is_builtin": false,
            "cpu_id": 0,
            "total_cpus": 1,
            "functions": [{"name": "vector_add", "sub_opcode": 0, "key": 0x85}],
        }])
    );
}

#[test]
fn the_text_of_the_minimal_kernel_is_aligned_and_complete() {
    let out = inspect(&["examples/kernels/minimal/minimal.so"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "\
examples/kernels/minimal/minimal.so (1884 bytes):
  ELF32 ET_REL (a relocatable object), machine 94 (EM_XTENSA), entry 0x00000000, flags 0x300, 11 sections, 7 symbols
  no program headers
  packed library: `lib_func` at .rodata+0x0, a 1092-byte device image
  device image:
    ELF32 ET_DYN (a shared object), machine 94 (EM_XTENSA), entry 0x000001a8, flags 0x300, 9 sections, 0 symbols
    type        offset    vaddr       memsz     filesz    flags
    PT_LOAD     0x000000  0x00000000  0x0001b4  0x0001b4  R E
    PT_LOAD     0x0001bc  0x000011bc  0x0000b4  0x0000ac  RW
    PT_DYNAMIC  0x0001bc  0x000011bc  0x000090  0x000090  RW
  UCPL image, prelinked for core 0's image window 0x84000000+0x200000: 4764 bytes
    magic         0x204c504355 (\"UCPL \")
    code_seg_off  0x20
    code_seg_len  0x11bc
    data_seg_off  0x11dc
    data_seg_len  0xb4
    init          0x00000000
    fini          0x00000000
    start_sym     0x840001c8
  relocations: 4 applied
    R_XTENSA_RELATIVE  4
  kernel table at 0x84001280, 8 bytes, 1 entry
    bound by the firmware after the start symbol:
      #  key     function    op  symbol
      0  0x0185  0x8400017c  -   -
    in the image:
      #  key     function    op  symbol
      0  0x0185  0x8400017c  -   -
"
    );
}

#[test]
fn a_multicore_build_prelinks_each_image_for_its_cores_window() {
    let j = json("examples/kernels/relu_multicore/build");
    for core in 0..8u32 {
        let d = &j["images"][core as usize]["device"];
        assert_eq!(d["core"], core);
        assert_eq!(d["window"]["start"], 0x8400_0000u32 + core * 0x20_0000);
        assert_eq!(
            d["elf"]["segments"][0]["vaddr"],
            0x8400_0020u32 + core * 0x20_0000,
            "linked where it runs"
        );
        assert_eq!(d["kernel_table"]["bound_entries"][0]["op"], "relu_forward");
    }
}

#[test]
fn a_bare_metal_executable_shows_its_header_and_segments() {
    let j = json("examples/isa-tour/tour.elf");
    assert_eq!(j["kind"], "elf");
    let image = &j["images"][0];
    assert_eq!(image["elf"]["kind"], "ET_EXEC");
    assert_eq!(image["elf"]["entry"], 0x8400_0008u32);
    assert_eq!(
        segments(&image["elf"]),
        [
            ("PT_LOAD".into(), 0x83ff_f000, 0x1044, 0x1044, "R E".into()),
            ("PT_LOAD".into(), 0x8400_1044, 0x40, 0x40, "RW ".into()),
        ]
    );
    let bytes = std::fs::read(Path::new(ROOT).join("examples/isa-tour/tour.elf")).unwrap();
    assert_eq!(
        segments(&image["elf"]),
        loader_segments(&ElfFile::parse(&bytes).unwrap())
    );
    assert_eq!(image["packed"], Value::Null);
    assert_eq!(image["device"], Value::Null);
}

#[test]
fn bad_input_gets_the_loaders_errors_naming_the_file() {
    let dir = TempDir::new("inspect-bad");
    let minimal =
        std::fs::read(Path::new(ROOT).join("examples/kernels/minimal/minimal.so")).unwrap();
    let truncated = dir.join("truncated.so");
    std::fs::write(&truncated, &minimal[..40]).unwrap();
    let t = truncated.display().to_string();
    assert_eq!(
        refused(&t),
        format!("q7emu: error: {t}: truncated ELF file: 40 bytes, an ELF32 header needs 52\n")
    );
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = empty.display().to_string();
    assert_eq!(
        refused(&e),
        format!(
            "q7emu: error: {e}: a directory without q7build.json: not a build directory of `q7emu build`\n"
        )
    );
    // A device image cut short: the loader's own error, naming the file.
    let device = packed::device_image(&minimal).unwrap();
    let cut = dir.join("cut.so");
    std::fs::write(&cut, &device[..0x100]).unwrap();
    let c = cut.display().to_string();
    let loader = ElfFile::parse(&device[..0x100]).unwrap_err().to_string();
    assert_eq!(
        loader,
        "malformed ELF: section header table at file offset 0x2dc (9 entries of 40 bytes, 0x168 \
         in all) ends at 0x444, past the end of the 256-byte (0x100) file"
    );
    assert_eq!(refused(&c), format!("q7emu: error: {c}: {loader}\n"));
    assert_eq!(
        refused("/dev/zero"),
        "q7emu: error: /dev/zero: not a regular file (a character device)\n"
    );
}
