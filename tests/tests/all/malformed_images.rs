//! Bad device images get a precise error naming what and where, never a panic or a silent wrong
//! result. Each test starts from a real packed kernel (examples/sdk/BUILD.md "Strip and pack") and breaks exactly one
//! thing in it: truncation, ELF identification, the `lib_func` symbol, the program headers, the
//! relocation table, or the link itself (an undefined function).

use crate::support;

use q7_loader::elf::{ElfError, ElfFile};
use q7_loader::packed::{self, PackedError};
use q7_loader::prelink::{prelink, PrelinkError, Undefined, MAX_IMAGE_BYTES};
use support::build_packed;

const MINIMAL: &str = include_str!("../../../examples/kernels/minimal/minimal.c");
const BASE: u32 = 0x8400_0000;

/// The packed container and the stripped device image of the minimal kernel.
fn images() -> Option<(Vec<u8>, Vec<u8>)> {
    let p = build_packed("malformed", &[("minimal.c", MINIMAL)], &[])?;
    Some((
        std::fs::read(&p.packed).unwrap(),
        std::fs::read(&p.stripped).unwrap(),
    ))
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}
fn put_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

/// File offsets of the PT_LOAD program headers, code (PF_X) first.
fn load_headers(image: &[u8]) -> (usize, usize) {
    let (phoff, phentsize, phnum) = (
        u32_at(image, 28) as usize,
        usize::from(u16_at(image, 42)),
        usize::from(u16_at(image, 44)),
    );
    let loads: Vec<usize> = (0..phnum)
        .map(|i| phoff + i * phentsize)
        .filter(|&h| u32_at(image, h) == 1)
        .collect();
    assert_eq!(loads.len(), 2, "the minimal kernel has code and data");
    if u32_at(image, loads[0] + 24) & 1 != 0 {
        (loads[0], loads[1])
    } else {
        (loads[1], loads[0])
    }
}

/// File offset and entry count of the image's `.rela.dyn`.
fn rela_dyn(image: &[u8]) -> (usize, usize) {
    let elf = ElfFile::parse(image).unwrap();
    let sec = elf
        .sections
        .iter()
        .find(|s| s.name == ".rela.dyn")
        .expect("the minimal kernel has dynamic relocations");
    let off = sec.data.as_ptr() as usize - image.as_ptr() as usize;
    (off, sec.data.len() / 12)
}

#[q7_requires::needs(toolchain)]
#[test]
fn every_truncation_of_a_packed_image_is_an_error_not_a_panic() {
    let Some((packed_bytes, _)) = images() else {
        return;
    };
    assert!(packed::device_image(&packed_bytes).is_ok());
    for len in 0..packed_bytes.len() {
        let cut = &packed_bytes[..len];
        assert!(
            packed::device_image(cut).is_err(),
            "a packed image cut to {len} of {} bytes must be rejected",
            packed_bytes.len()
        );
    }
    assert_eq!(
        packed::device_image(&packed_bytes[..20]).unwrap_err(),
        PackedError::Elf(ElfError::TruncatedHeader { len: 20 })
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn every_truncation_of_a_device_image_is_refused() {
    // The section header table is last in the file, so every cut is caught by the ELF parser.
    let Some((_, image)) = images() else { return };
    assert!(prelink(&image, BASE).is_ok());
    for len in 0..image.len() {
        assert!(
            prelink(&image[..len], BASE).is_err(),
            "an image cut to {len} of {} bytes must be rejected",
            image.len()
        );
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn wrong_class_byte_order_and_machine_are_named_with_their_byte() {
    let Some((packed_bytes, image)) = images() else {
        return;
    };
    for bytes in [&packed_bytes, &image] {
        let mut b = bytes.clone();
        b[4] = 2;
        let err = packed::device_image(&b).unwrap_err();
        assert_eq!(err, PackedError::Elf(ElfError::WrongClass { found: 2 }));
        assert!(err.to_string().contains("at byte 4"), "{err}");

        let mut b = bytes.clone();
        b[5] = 2;
        assert_eq!(
            prelink(&b, BASE).unwrap_err(),
            PrelinkError::Elf(ElfError::WrongEndian { found: 2 })
        );

        let mut b = bytes.clone();
        b[18..20].copy_from_slice(&62u16.to_le_bytes()); // EM_X86_64
        let err = prelink(&b, BASE).unwrap_err();
        assert_eq!(err, PrelinkError::Elf(ElfError::WrongMachine { found: 62 }));
        assert!(
            err.to_string()
                .contains("wrong machine 62 (e_machine at byte 18): expected 94 (EM_XTENSA)"),
            "{err}"
        );

        let mut b = bytes.clone();
        b[0] = 0;
        assert!(matches!(
            packed::device_image(&b).unwrap_err(),
            PackedError::Elf(ElfError::BadMagic { .. })
        ));
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_container_without_lib_func_or_of_the_wrong_type_is_refused() {
    let Some((packed_bytes, image)) = images() else {
        return;
    };
    // Rename the symbol in the string table: "lib_func" → "lib_funk".
    let at = packed_bytes
        .windows(9)
        .position(|w| w == b"lib_func\0")
        .expect("the packed image names lib_func");
    let mut b = packed_bytes.clone();
    b[at + 7] = b'k';
    let err = packed::device_image(&b).unwrap_err();
    assert_eq!(err, PackedError::MissingLibFunc);
    assert!(err.to_string().contains("-e lib_func"), "{err}");

    // The stripped shared object is not a packed container.
    let err = packed::device_image(&image).unwrap_err();
    assert!(matches!(err, PackedError::NotRelocatable { .. }), "{err}");
    // Nor is a packed container a device image.
    let err = prelink(&packed_bytes, BASE).unwrap_err();
    assert!(matches!(err, PrelinkError::NotLinked { .. }), "{err}");
}

#[q7_requires::needs(toolchain)]
#[test]
fn overlapping_segments_are_refused_naming_both_ranges() {
    let Some((_, image)) = images() else { return };
    let (code_h, data_h) = load_headers(&image);
    let code_vaddr = u32_at(&image, code_h + 8);
    let code_memsz = u32_at(&image, code_h + 20);
    let mut b = image.clone();
    // Move the data segment to start inside the code segment.
    put_u32(&mut b, data_h + 8, code_vaddr + code_memsz - 4);
    let err = prelink(&b, BASE).unwrap_err();
    assert!(
        matches!(err, PrelinkError::Overlap { code, code_len, data, .. }
            if code == code_vaddr && code_len == code_memsz && data == code_vaddr + code_memsz - 4),
        "{err}"
    );
    assert!(err.to_string().contains("segments overlap"), "{err}");
}

#[q7_requires::needs(toolchain)]
#[test]
fn an_image_spanning_more_than_a_device_window_is_refused_before_allocation() {
    let Some((_, image)) = images() else { return };
    let (_, data_h) = load_headers(&image);
    let mut b = image.clone();
    // A bss of 1 GiB: the fuzzer found that this used to allocate the whole span.
    put_u32(&mut b, data_h + 20, 0x4000_0000);
    let err = prelink(&b, BASE).unwrap_err();
    match &err {
        PrelinkError::TooLarge { size, limit, .. } => {
            assert_eq!(*limit, MAX_IMAGE_BYTES);
            assert_eq!(
                MAX_IMAGE_BYTES,
                32 << 20,
                "the single-core window (PLATFORM.md \"Image size limits\")"
            );
            assert!(*size > 0x4000_0000, "{err}");
        }
        other => panic!("expected TooLarge, got {other}"),
    }
    assert!(
        err.to_string()
            .starts_with("Prelinked library would be larger than the available buffer on device"),
        "{err}"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn the_linker_emits_only_relocation_types_the_prelinker_applies() {
    // GNU ld on a self-contained -fPIC kernel emits R_XTENSA_RELATIVE (5) and possibly
    // R_XTENSA_NONE (0) / R_XTENSA_32 (1); the prelinker handles exactly {0, 1, 5}.
    let Some((_, image)) = images() else { return };
    let (off, count) = rela_dyn(&image);
    assert!(count >= 3);
    for i in 0..count {
        let kind = u32_at(&image, off + i * 12 + 4);
        assert!(
            [0, 1, 5].contains(&kind),
            "relocation {i} has r_info {kind:#x}: outside what the prelinker applies"
        );
    }
    assert_eq!(prelink(&image, BASE).unwrap().relocations, count);
}

#[q7_requires::needs(toolchain)]
#[test]
fn an_unknown_relocation_type_is_named_with_its_index_and_offset() {
    let Some((_, image)) = images() else { return };
    let (off, _) = rela_dyn(&image);
    let mut b = image.clone();
    let r_offset = u32_at(&b, off + 12);
    put_u32(&mut b, off + 12 + 4, 20); // R_XTENSA_SLOT0_OP: not a dynamic relocation
    let err = prelink(&b, BASE).unwrap_err();
    assert_eq!(
        err,
        PrelinkError::UnknownRelocation {
            index: 1,
            offset: r_offset,
            kind: 20
        }
    );
    assert_eq!(
        err.to_string(),
        format!("relocation 1 at {r_offset:#x} has unsupported type 20 (R_XTENSA_SLOT0_OP)")
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_relocation_outside_the_segments_is_named() {
    let Some((_, image)) = images() else { return };
    let (off, _) = rela_dyn(&image);
    let mut b = image.clone();
    put_u32(&mut b, off, 0xffff_fffe); // r_offset: near the top of the address space
    let err = prelink(&b, BASE).unwrap_err();
    assert_eq!(
        err,
        PrelinkError::RelocationOutOfRange {
            index: 0,
            offset: 0xffff_fffe
        }
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn reported_size_equals_the_emitted_ucpl_image() {
    let Some((_, image)) = images() else { return };
    let pre = prelink(&image, BASE).unwrap();
    assert_eq!(pre.size(), pre.ucpl().len() as u64);
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_call_the_link_left_undefined_is_named_with_a_hint() {
    // `%` on unsigned ints calls __umodsi3, which nothing in the kernel defines: the link makes
    // a PLT for it — R_XTENSA_RTLD in .rela.dyn, R_XTENSA_JMP_SLOT in .rela.plt.
    let source = MINIMAL.replacen(
        "Q7_MBOX_ARG(0, 0) * (unsigned int)",
        "Q7_MBOX_ARG(0, 0) % (unsigned int)",
        1,
    );
    assert_ne!(source, MINIMAL);
    let Some(p) = build_packed("umod", &[("umod.c", &source)], &[]) else {
        return;
    };
    let linked = std::fs::read(&p.so).unwrap();
    let (off, count) = rela_dyn(&linked);
    let rtld = (0..count)
        .find(|i| u32_at(&linked, off + i * 12 + 4) == 2)
        .expect("the PLT has R_XTENSA_RTLD relocations");
    let r_offset = u32_at(&linked, off + rtld * 12);
    let err = prelink(&linked, BASE).unwrap_err();
    assert_eq!(
        err,
        PrelinkError::PltRelocation {
            index: rtld,
            offset: r_offset,
            kind: 2,
            undefined: Undefined::Named {
                names: vec!["__umodsi3".into()],
                more: 0
            }
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "relocation {rtld} at {r_offset:#x} has unsupported type 2 (R_XTENSA_RTLD): the image calls `__umodsi3` through a PLT, left undefined by its link; link the SDK's helper routines (or whatever defines it) into the image"
        )
    );
    // The packager drops .dynsym, .dynstr and .rela.plt: the hint says what is left.
    let stripped = std::fs::read(&p.stripped).unwrap();
    let err = prelink(&stripped, BASE).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "relocation {rtld} at {r_offset:#x} has unsupported type 2 (R_XTENSA_RTLD): the image has 1 PLT relocation(s) (DT_JMPREL) and no dynamic symbol table left to name their symbols: it was linked with an undefined function; link the SDK's helper routines (or whatever defines it) into the image"
        )
    );
}
