//! The prelinker on images built and packaged with the toolchain (examples/sdk/BUILD.md
//! "Strip and pack"; PLATFORM.md "Host flow", stage 6): `lib_func` extraction, relocation against a device base, the UCPL image, and
//! equivalence with the linker's own output when it links the same image at that base.

use std::process::Command;

use crate::support;

use q7_loader::packed;
use q7_loader::prelink::{prelink, PrelinkError};
use q7_loader::ucpl::UcplHeader;
use q7_tests::{run, tool};
use support::build_packed;

const MINIMAL: &str = include_str!("../../../examples/kernels/minimal/minimal.c");

#[q7_requires::needs(toolchain)]
#[test]
fn packed_image_carries_the_stripped_device_image_under_lib_func() {
    let Some(p) = build_packed("minimal", &[("minimal.c", MINIMAL)], &[]) else {
        return;
    };
    let packed_bytes = std::fs::read(&p.packed).unwrap();
    let image = packed::device_image(&packed_bytes).unwrap();
    let stripped = std::fs::read(&p.stripped).unwrap();
    assert_eq!(
        image,
        &stripped[..],
        "libdata under lib_func is the saved stripped image"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn prelink_relocates_every_relocation_and_emits_ucpl() {
    let Some(p) = build_packed("minimal", &[("minimal.c", MINIMAL)], &[]) else {
        return;
    };
    let packed_bytes = std::fs::read(&p.packed).unwrap();
    let image = packed::device_image(&packed_bytes).unwrap();
    let base = 0x8420_0000; // core 1's image window
    let pre = prelink(image, base).unwrap();
    assert!(
        pre.relocations >= 3,
        "pointers in data and the kernel table are relocated"
    );
    assert_eq!(
        pre.code.addr,
        base + 0x20,
        "code follows the 0x20-byte header"
    );
    let ucpl_bytes = pre.ucpl();
    let h = UcplHeader::decode(&ucpl_bytes).unwrap();
    assert_eq!(h.start_sym, pre.entry);
    assert_eq!(h.data_seg_off, 0x20 + h.code_seg_len);
    assert_eq!(pre.data.addr, base + h.data_seg_off);
    // The kernel table's function pointer now points into the relocated code.
    let (kt, size) = pre.kernel_table.expect("image has a .kernel_info_table");
    assert_eq!(size, 8);
    let off = (kt - pre.data.addr) as usize;
    let va = u32::from_le_bytes(pre.data.bytes[off + 4..off + 8].try_into().unwrap());
    assert!(
        (pre.code.addr..pre.data.addr).contains(&va),
        "function VA {va:#x} inside code"
    );
    // Key spec 0x01, opcode 0x85 stored big-endian.
    assert_eq!(&pre.data.bytes[off..off + 4], &[0x00, 0x00, 0x01, 0x85]);
}

#[q7_requires::needs(toolchain)]
#[test]
fn prelinked_image_equals_the_linker_output_at_that_base() {
    // Link the same objects twice: at address 0 (what is packaged) and directly at the device
    // address the prelinker would place the code at; the relocated segments must be identical.
    let (Some(gcc), Some(ld)) = (tool("gcc"), tool("ld")) else {
        return;
    };
    let dir = q7_tests::TempDir::new("prelink-eq");
    std::fs::write(dir.join("minimal.c"), MINIMAL).unwrap();
    let sdk = q7_tests::build::sdk_dir().join("include");
    run(Command::new(&gcc)
        .args(["-O2", "-fPIC", "-fvisibility=hidden", "-c", "-fno-builtin"])
        .arg(format!("-I{}", sdk.display()))
        .arg("-o")
        .arg(dir.join("minimal.o"))
        .arg(dir.join("minimal.c")));
    let script = String::from_utf8(run(Command::new(&ld).args(["--verbose", "-shared"]))).unwrap();
    let script = script
        .split("==================================================")
        .nth(1)
        .unwrap();
    let base = 0x8400_0000u32;
    let link = |start: u32, out: &str| {
        // The default shared-object script with the image moved to `start`.
        let s = script.replacen(
            ". = 0 + SIZEOF_HEADERS;",
            &format!(". = {start:#x} + SIZEOF_HEADERS;"),
            1,
        );
        assert!(
            s != script || start == 0,
            "default script has no `. = 0 + SIZEOF_HEADERS;`"
        );
        std::fs::write(dir.join(&format!("{out}.ld")), &s).unwrap();
        run(Command::new(&ld)
            .args(["-shared", "-Bsymbolic", "-e", "_start", "-T"])
            .arg(dir.join(&format!("{out}.ld")))
            .arg("-o")
            .arg(dir.join(out))
            .arg(dir.join("minimal.o")));
        std::fs::read(dir.join(out)).unwrap()
    };
    let at0 = link(0, "at0.so");
    let atx = link(base, "atx.so");
    // Prelink the base-0 image so its code lands where the linker put the code of `atx`.
    let linked = q7_loader::ElfFile::parse(&atx).unwrap();
    let code_vaddr = linked
        .segments
        .iter()
        .find(|s| s.kind == 1 && s.flags & 1 != 0)
        .unwrap()
        .vaddr;
    let ours = prelink(&at0, code_vaddr - 0x20).unwrap();
    assert_eq!(ours.code.addr, code_vaddr);
    assert_eq!(ours.entry, linked.entry, "entry point");
    // Every loaded section holding code or data equals the linker's bytes at that base, after
    // the linker's own relocations (zero bias) are applied the same way. Loader metadata
    // (.dynamic, .hash, .dyn*, .rela.*, .got.loc, headers, and .got whose first word is the
    // unrelocated address of _DYNAMIC — the packager removes .got, examples/sdk/BUILD.md "Strip and pack") is not part of
    // the comparison: nothing on the device reads it.
    let theirs = prelink(&atx, code_vaddr - 0x20).unwrap();
    let mut compared = 0;
    for sec in linked
        .sections
        .iter()
        .filter(|s| s.is_alloc() && s.kind != 8)
    {
        if [
            ".dynamic",
            ".hash",
            ".dynsym",
            ".dynstr",
            ".rela.dyn",
            ".rela.plt",
            ".got.loc",
            ".got",
        ]
        .contains(&sec.name.as_str())
        {
            continue;
        }
        let slice = |img: &q7_loader::prelink::PrelinkedImage| -> Vec<u8> {
            let seg = if sec.addr >= img.data.addr {
                &img.data
            } else {
                &img.code
            };
            let o = (sec.addr - seg.addr) as usize;
            seg.bytes[o..o + sec.size as usize].to_vec()
        };
        let (a, b) = (slice(&ours), slice(&theirs));
        let first = a.iter().zip(&b).position(|(x, y)| x != y);
        if let Some(f) = first {
            let w = |v: &[u8]| u32::from_le_bytes(v[f & !3..(f & !3) + 4].try_into().unwrap());
            panic!(
                "section {} at {:#x} differs first at +{f:#x}: ours {:#010x}, linker {:#010x}",
                sec.name,
                sec.addr,
                w(&a),
                w(&b)
            );
        }
        compared += 1;
    }
    assert!(
        compared >= 3,
        "compared .text, .data and .kernel_info_table at least"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn symbol_relocations_are_rejected_naming_them() {
    // Default visibility leaves GLOB_DAT/JMP_SLOT relocations against symbols.
    let Some(gcc) = tool("gcc") else { return };
    let dir = q7_tests::TempDir::new("prelink-sym");
    std::fs::write(dir.join("m.c"), MINIMAL).unwrap();
    run(Command::new(gcc)
        .args([
            "-O2",
            "-fPIC",
            "-shared",
            "-nostdlib",
            "-fno-builtin",
            "-Wl,-e,_start",
        ])
        .arg(format!(
            "-I{}",
            q7_tests::build::sdk_dir().join("include").display()
        ))
        .arg("-o")
        .arg(dir.join("m.so"))
        .arg(dir.join("m.c")));
    let image = std::fs::read(dir.join("m.so")).unwrap();
    let err = prelink(&image, 0x8400_0000).unwrap_err();
    assert!(
        matches!(err, PrelinkError::SymbolRelocation { .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("must be fully self-relative"),
        "{err}"
    );
}
