//! Hostile and malformed inputs to `q7emu disasm`, `run-elf`, `run-packed` and `run` (no
//! toolchain needed): each gets a precise error naming what and where, or is handled in bounded
//! memory with its output streamed. One test per class; the crafted files are built here. Then
//! what the user owns (docs/cli.md "Output files": outputs written whole, never onto an input
//! or another output, on the committed vector_add) and their terminal (docs/cli.md "Guest
//! text").

use crate::support;

use support::q7emu;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Output, Stdio};

use q7_loader::packed;
use q7_loader::prelink::{prelink, PrelinkError};
use q7_tests::TempDir;

const TOUR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/isa-tour/tour.elf");
const MINIMAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../examples/kernels/minimal/minimal.so"
);

/// The stderr of a run that must fail with exit code 1.
fn failure(out: Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}

fn put_u16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_le_bytes());
}
fn put_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

/// File offset of `text` in [`elf`]'s files.
const TEXT_OFFSET: usize = 0x100;

/// An ELF32-Xtensa file of type `e_type`: one PT_LOAD (R+X) holding `text` at `addr`, and the
/// section headers null, `.text`, `.shstrtab` after it.
fn elf(e_type: u16, text: &[u8], addr: u32) -> Vec<u8> {
    let names = b"\0.text\0.shstrtab\0";
    let names_at = TEXT_OFFSET + text.len();
    let shoff = (names_at + names.len() + 3) & !3;
    let mut b = vec![0u8; shoff + 3 * 40];
    b[..7].copy_from_slice(b"\x7fELF\x01\x01\x01");
    put_u16(&mut b, 16, e_type);
    put_u16(&mut b, 18, 94); // EM_XTENSA
    put_u32(&mut b, 20, 1);
    put_u32(&mut b, 24, addr); // e_entry
    put_u32(&mut b, 28, 52); // e_phoff
    put_u32(&mut b, 32, shoff as u32);
    put_u32(&mut b, 36, 0x300);
    for (off, v) in [(40, 52), (42, 32), (44, 1), (46, 40), (48, 3), (50, 2)] {
        put_u16(&mut b, off, v);
    }
    let len = text.len() as u32;
    for (i, v) in [1, TEXT_OFFSET as u32, addr, addr, len, len, 5, 4]
        .into_iter()
        .enumerate()
    {
        put_u32(&mut b, 52 + 4 * i, v);
    }
    b[TEXT_OFFSET..names_at].copy_from_slice(text);
    b[names_at..names_at + names.len()].copy_from_slice(names);
    let text_sh = [1, 1, 6, addr, TEXT_OFFSET as u32, len, 0, 0, 4, 0];
    let names_sh = [7, 3, 0, 0, names_at as u32, names.len() as u32, 0, 0, 1, 0];
    for (n, sh) in [(1, text_sh), (2, names_sh)] {
        for (i, v) in sh.into_iter().enumerate() {
            put_u32(&mut b, shoff + 40 * n + 4 * i, v);
        }
    }
    b
}

/// `nop.n`, `ret.n`, `nop` (objdump prints them as such).
const CODE: [u8; 7] = [0x3d, 0xf0, 0x0d, 0xf0, 0xf0, 0x20, 0x00];

/// The peak resident set (VmHWM) of a running child, in bytes.
fn peak_rss(child: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

// Item 2: the listing is streamed, and zero runs collapse as objdump collapses them.

#[test]
fn disasm_streams_a_large_text_in_bounded_memory() {
    let dir = TempDir::new("hostile-big-text");
    let text_bytes = 48 << 20;
    let text: Vec<u8> = CODE[..2].iter().copied().cycle().take(text_bytes).collect();
    let path = dir.join("big.elf");
    std::fs::write(&path, elf(2, &text, 0x1000)).unwrap();
    let mut child = q7emu()
        .arg("disasm")
        .arg(&path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first: Vec<String> = lines.by_ref().take(10_000).map(Result::unwrap).collect();
    // The whole listing would be 24 Mi lines (some 900 MB): its first lines come while the
    // rest is still being written, in the memory of the file and a little more.
    let peak = peak_rss(&child);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(first[4], "Disassembly of section .text:");
    assert_eq!(first[6], "00001000 <.text>:");
    assert_eq!(first[7], "    1000:\tf03d      \tnop.n");
    assert_eq!(first[9_999], "    5e10:\tf03d      \tnop.n");
    assert!(
        peak < text_bytes as u64 + (32 << 20),
        "peak RSS {peak} bytes for a {text_bytes}-byte .text"
    );
}

#[test]
fn disasm_collapses_zero_runs_like_objdump_and_z_keeps_them() {
    let listing = |args: &[&str]| {
        let out = q7emu().arg("disasm").args(args).arg(TOUR).output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (collapsed, every) = (listing(&[]), listing(&["-z"]));
    // The tour's first section ends with two zero bytes of padding: objdump -d prints `...`
    // for them, objdump -d -z both bytes.
    let zeros = "8400002e:\t00          \t.byte 00\n8400002f:\t00          \t.byte 00\n";
    assert!(every.contains(zeros), "{every}");
    assert_eq!(collapsed, every.replacen(zeros, "\t...\n", 1));
}

// Item 3: every input is read with a bound per kind; special files are refused.

#[test]
fn special_and_oversized_files_are_refused_naming_the_limit() {
    for (cmd, extra) in [
        ("disasm", &[][..]),
        ("run-elf", &[][..]),
        ("run-packed", &["--key", "0x185"][..]),
    ] {
        let err = failure(
            q7emu()
                .arg(cmd)
                .args(extra)
                .arg("/dev/zero")
                .output()
                .unwrap(),
        );
        assert_eq!(
            err, "q7emu: error: /dev/zero: not a regular file (a character device)\n",
            "{cmd}"
        );
    }
    let dir = TempDir::new("hostile-sizes");
    let big = dir.join("big.elf");
    let f = std::fs::File::create(&big).unwrap();
    // Sparse: one byte over each bound costs no disk.
    for (cmd, size, limit, kind) in [
        ("disasm", (128 << 20) + 1, 134217728, "ELF images"),
        ("run-elf", (128 << 20) + 1, 134217728, "ELF images"),
        ("run-packed", (64 << 20) + 1, 67108864, "packed libraries"),
    ] {
        f.set_len(size).unwrap();
        let mut c = q7emu();
        c.arg(cmd);
        if cmd == "run-packed" {
            c.args(["--key", "0x185"]);
        }
        let err = failure(c.arg(&big).output().unwrap());
        assert_eq!(
            err,
            format!(
                "q7emu: error: {}: {size} bytes, over the {limit}-byte limit for {kind}\n",
                big.display()
            )
        );
    }
}

// Item 4: run-packed prints each dispatch as it completes and keeps none of them.

#[test]
fn run_packed_streams_dispatches_in_bounded_memory() {
    // `--json` streams the report on stdout, a dispatch a line as it completes.
    let mut child = q7emu()
        .args(["run-packed", "--key", "0x185", "--arg", "10"])
        .args(["--dispatches", "4294967295", "--json"])
        .arg(MINIMAL)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut line = || lines.next().unwrap().unwrap();
    assert_eq!(line(), "{");
    assert_eq!(line(), "  \"name\": \"minimal\",");
    // The n-th dispatch's line (n from 1 on): `    [` and its eight cores' results.
    let mut seen = 0;
    let mut until = |n: usize| {
        while seen < n {
            if line().starts_with("    [") {
                seen += 1;
            }
        }
    };
    // Dispatch 40, then dispatch 800: 760 more dispatches in the same memory.
    until(40);
    let early = peak_rss(&child);
    until(800);
    let late = peak_rss(&child);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        late < early + (1 << 20),
        "peak RSS grew from {early} to {late} bytes over 760 dispatches"
    );
}

#[test]
fn a_failed_run_packed_still_leaves_valid_json_naming_the_error() {
    let dir = TempDir::new("hostile-json-error");
    let json = dir.join("run.json");
    let err = failure(
        q7emu()
            .args(["run-packed", "--key", "0x186", "--json-file"])
            .arg(&json)
            .arg(MINIMAL)
            .output()
            .unwrap(),
    );
    let want =
        "dispatch of key 0x186 (spec 0x1, opcode 0x86): no loaded library binds it".to_string();
    assert!(err.contains(&want), "{err}");
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(j["dispatches"], serde_json::json!([]));
    assert!(j["error"].as_str().unwrap().contains(&want), "{j}");
}

// Item 6: more ARG_TENSOR descriptors than the mailbox holds are refused before dispatch.

#[test]
fn seventeen_arg_tensor_descriptors_are_refused_at_the_host_api() {
    let mut cmd = q7emu();
    cmd.args(["run-packed", "--key", "0x185"]);
    for n in 0..17 {
        cmd.args(["--arg", &n.to_string()]);
    }
    let out = cmd.arg(MINIMAL).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = failure(out);
    assert_eq!(
        err,
        format!(
            "q7emu: error: {MINIMAL}: dispatch of key 0x185 with 17 ARG_TENSOR descriptors: \
             the mailbox holds at most 16 (PLATFORM.md \"Mailbox\")\n"
        )
    );
    // The library loaded; no kernel ran (so none faulted and none is blamed).
    assert!(
        stdout.starts_with("library minimal: 8 core(s), key 0x185"),
        "{stdout}"
    );
    assert!(!stdout.contains("dispatch 0"), "{stdout}");
}

// Item 7: a malformed dynamic section or relocation is refused at prelink, naming where.

/// The device image of the committed minimal kernel, and the file offset of its PT_DYNAMIC.
fn device_image() -> (Vec<u8>, usize) {
    let container = std::fs::read(MINIMAL).unwrap();
    let image = packed::device_image(&container).unwrap().to_vec();
    let dynamic = (0..3)
        .map(|i| 52 + 32 * i)
        .find(|&h| u32_at(&image, h) == 2)
        .map(|h| u32_at(&image, h + 4) as usize)
        .unwrap();
    assert_eq!(dynamic, 0x1bc, "PT_DYNAMIC of minimal.so's device image");
    (image, dynamic)
}

/// The file offset of dynamic entry `tag` in `image`.
fn entry(image: &[u8], dynamic: usize, tag: u32) -> usize {
    (dynamic..)
        .step_by(8)
        .find(|&o| u32_at(image, o) == tag)
        .unwrap()
}

#[test]
fn a_malformed_dynamic_section_is_refused_naming_the_entry() {
    let (image, dynamic) = device_image();
    assert!(prelink(&image, 0x8400_0000).is_ok());
    let refused = |b: &[u8]| prelink(b, 0x8400_0000).unwrap_err().to_string();

    let mut b = image.clone();
    let relasz = entry(&b, dynamic, 8);
    assert_eq!((relasz, u32_at(&b, relasz + 4)), (0x1fc, 48));
    put_u32(&mut b, relasz + 4, 47);
    assert_eq!(
        refused(&b),
        "malformed dynamic section: entry 8 at file offset 0x1fc: DT_RELASZ is 47, not a multiple of the 12-byte DT_RELAENT"
    );

    let mut b = image.clone();
    b[dynamic..dynamic + 0x90].fill(0);
    assert_eq!(
        refused(&b),
        "malformed dynamic section: PT_DYNAMIC at file offset 0x1bc (144 bytes) has no entries: its first entry is DT_NULL or missing"
    );

    let mut b = image.clone();
    put_u32(&mut b, dynamic + 8, 0x6abc_def0);
    assert_eq!(
        refused(&b),
        "malformed dynamic section: entry 1 at file offset 0x1c4: unknown tag 0x6abcdef0"
    );

    let mut b = image.clone();
    put_u32(&mut b, dynamic + 8, 1); // DT_NEEDED
    assert_eq!(
        refused(&b),
        "malformed dynamic section: entry 1 at file offset 0x1c4: DT_NEEDED: the image needs another shared library; a device image must be self-contained"
    );
}

#[test]
fn an_unaligned_relocation_is_refused_before_it_corrupts_the_kernel_table() {
    let (image, _) = device_image();
    // .rela.dyn at 0x114: its last relocation patches the kernel table's function pointer.
    let last = 0x114 + 3 * 12;
    assert_eq!(
        (u32_at(&image, last), u32_at(&image, last + 4)),
        (0x1264, 5)
    );
    let mut b = image.clone();
    put_u32(&mut b, last, 0x1262);
    let err = prelink(&b, 0x8400_0000).unwrap_err();
    assert_eq!(
        err,
        PrelinkError::UnalignedRelocation {
            index: 3,
            offset: 0x1262,
            kind: 5
        }
    );
    assert_eq!(
        err.to_string(),
        "relocation 3 at 0x1262 (R_XTENSA_RELATIVE) is not 4-byte aligned: the word it patches must be"
    );
}

// Item 8: a file without section headers has its executable segments disassembled.

#[test]
fn disasm_without_section_headers_lists_the_executable_segments() {
    let dir = TempDir::new("hostile-no-sections");
    let mut no_shoff = elf(2, &CODE, 0x40001000);
    put_u32(&mut no_shoff, 32, 0); // e_shoff
    let mut no_shnum = elf(2, &CODE, 0x40001000);
    put_u16(&mut no_shnum, 48, 0); // e_shnum, with section 0's sh_size 0
    for (name, bytes) in [("no-shoff.elf", no_shoff), ("no-shnum.elf", no_shnum)] {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();
        let out = q7emu().arg("disasm").arg(&path).output().unwrap();
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!(
                "\n{}:     file format elf32-xtensa-le\n\n\n\
                 Disassembly of segment 0 (PT_LOAD at 0x40001000; the file has no section headers):\n\n\
                 40001000 <segment 0>:\n\
                 40001000:\tf03d      \tnop.n\n\
                 40001002:\tf00d      \tret.n\n\
                 40001004:\t0020f0        \tnop\n",
                path.display()
            )
        );
    }
    // Nothing executable either: an error, not an empty listing.
    let mut data_only = elf(2, &CODE, 0x40001000);
    put_u32(&mut data_only, 32, 0);
    put_u32(&mut data_only, 52 + 24, 6); // p_flags: R+W
    let path = dir.join("data-only.elf");
    std::fs::write(&path, &data_only).unwrap();
    assert_eq!(
        failure(q7emu().arg("disasm").arg(&path).output().unwrap()),
        format!(
            "q7emu: error: {}: no section headers and no executable PT_LOAD segment: nothing to disassemble\n",
            path.display()
        )
    );
}

// Item 9: run-elf runs executables only.

#[test]
fn run_elf_refuses_what_is_not_an_executable() {
    let dir = TempDir::new("hostile-types");
    for (e_type, what) in [
        (0, "ET_NONE (no file type)"),
        (1, "ET_REL (a relocatable object), expected ET_EXEC (an executable): run-elf runs linked bare-metal programs; link the object first (a packed custom-op library runs with `q7emu run-packed`)"),
        (3, "ET_DYN (a shared object), expected ET_EXEC (an executable): run-elf runs linked bare-metal programs; a device image runs from its packed library with `q7emu run-packed`"),
        (4, "ET_CORE (a core file)"),
    ] {
        let path = dir.join(&format!("type{e_type}.elf"));
        std::fs::write(&path, elf(e_type, &CODE, 0)).unwrap();
        let err = failure(q7emu().arg("run-elf").arg(&path).output().unwrap());
        assert!(
            err.starts_with(&format!("q7emu: error: {}: ELF type is {what}", path.display())),
            "{err}"
        );
    }
}

// Item 12: a truncated ELF names the table, its offset and size, and the file size.

#[test]
fn every_truncation_of_an_elf_names_the_table_and_the_file_size() {
    let tour = std::fs::read(TOUR).unwrap();
    assert_eq!(tour.len(), 5088);
    for len in 52..tour.len() {
        let err = q7_loader::ElfFile::parse(&tour[..len]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "malformed ELF: section header table at file offset 0x1278 (9 entries of 40 bytes, 0x168 in all) ends at 0x13e0, past the end of the {len}-byte ({len:#x}) file"
            )
        );
    }
    // The program header table is named the same way.
    let mut b = tour.clone();
    put_u32(&mut b, 28, 0x13c0); // e_phoff
    assert_eq!(
        q7_loader::ElfFile::parse(&b).unwrap_err().to_string(),
        "malformed ELF: program header table at file offset 0x13c0 (2 entries of 32 bytes, 0x40 in all) ends at 0x1400, past the end of the 5088-byte (0x13e0) file"
    );
}

/// Runs `code` loaded at 0x1000 with `run-elf`; its exit code and stderr.
fn run_elf_code(name: &str, code: &[u8]) -> (Option<i32>, String) {
    let dir = TempDir::new(name);
    let path = dir.join("prog.elf");
    std::fs::write(&path, elf(2, code, 0x1000)).unwrap();
    let out = q7emu().arg("run-elf").arg(&path).output().unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

/// `movi a2, 1` (SYS_EXIT); `movi a3, status`; `simcall`.
fn exit_with(status: u16) -> Vec<u8> {
    let [lo, hi] = status.to_le_bytes();
    vec![
        0x22,
        0xa0,
        0x01,
        0x32,
        0xa0 | (hi & 0xf),
        lo,
        0x00,
        0x51,
        0x00,
    ]
}

/// `j 0x2000` at 0x1000: a jump to where nothing is loaded.
const JUMP_INTO_NOTHING: [u8; 3] = [0x06, 0xff, 0x03];

// Item 14: a jump into memory no image occupies is reported as that, naming the loaded ranges.

#[test]
fn a_jump_into_memory_no_image_occupies_says_so() {
    let (code, err) = run_elf_code("hostile-jump", &JUMP_INTO_NOTHING);
    assert_eq!(code, Some(129), "{err}");
    // PS.EXCM is 1 out of reset (QEMU's state), so the exception counts as a double one.
    let want = "q7emu: core 0 stopped at pc 0x00002000: double exception: \
                IllegalInstructionCause (0) inside an exception handler: instruction fetch at 0x00002000 hit bare-metal memory no image occupies \
                (images at 0x00000000..0x00000180, 0x00001000..0x00001003): no code there (ill)\n";
    assert!(err.contains(want), "{err}");
}

// Item 10: a fault, a runaway and a guest status that does not fit have exit codes of their own
// (docs/exit-codes.md).

#[test]
fn run_elf_exit_codes_tell_a_status_a_misfit_and_a_fault_apart() {
    let (code, err) = run_elf_code("hostile-exit-42", &exit_with(42));
    assert_eq!(code, Some(42), "{err}");
    let (code, err) = run_elf_code("hostile-exit-127", &exit_with(127));
    assert_eq!(code, Some(127), "{err}");
    for status in [130, 256] {
        let (code, err) = run_elf_code("hostile-exit-big", &exit_with(status));
        assert_eq!(code, Some(128), "{err}");
        let note = format!(
            "q7emu: the program exited with status {status}, outside 0..=127: exit code 128\n"
        );
        assert!(err.ends_with(&note), "{err}");
    }
    let (code, _) = run_elf_code("hostile-exit-fault", &JUMP_INTO_NOTHING);
    assert_eq!(code, Some(129));
    let dir = TempDir::new("hostile-exit-runaway");
    let path = dir.join("spin.elf");
    std::fs::write(&path, elf(2, &SPIN, 0x1000)).unwrap();
    let out = q7emu()
        .args(["run-elf", "--max-cycles", "1000"])
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(131), "runaway: {err}");
    assert!(err.contains("cycle budget of 1000 exhausted"), "{err}");
}

/// `j 0x1000` at 0x1000: a loop that never ends.
const SPIN: [u8; 3] = [0x06, 0xff, 0xff];

// Item 11: every numeric flag takes the same forms, and `--threads 0` is refused.

/// The stderr of a command line refused by its parser (exit code 2).
fn usage_error(out: Output) -> String {
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn numeric_flags_take_0x_hex_everywhere_and_threads_0_is_refused() {
    let refused = "error: invalid value '0' for '--threads <THREADS>': \
                   \"0\": at least 1 host thread runs the cores\n";
    let run_packed = q7emu()
        .args(["run-packed", "--key", "0x185", "--threads", "0", MINIMAL])
        .output()
        .unwrap();
    assert!(usage_error(run_packed).starts_with(refused));
    let run = q7emu()
        .args(["run", "build", "--op", "f", "--threads", "0"])
        .output()
        .unwrap();
    assert!(usage_error(run).starts_with(refused));
    let out = q7emu()
        .args([
            "run-packed",
            "--key",
            "0x185",
            "--arg",
            "0x3",
            "--cores",
            "0x1",
        ])
        .args([
            "--dispatches",
            "0x2",
            "--threads",
            "0x1",
            "--max-cycles",
            "0x77359400",
        ])
        .args(["--sub-opcode", "0x0", MINIMAL])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert_eq!(
        text.lines().count(),
        4,
        "a header, a line per dispatch, the engine's: {text}"
    );
    assert!(
        text.contains("dispatch 1 core 0: response 0x000186ab (100011)"),
        "{text}"
    );
    let (code, err) = run_elf_code("hostile-hex-cycles", &exit_with(5));
    assert_eq!(code, Some(5), "{err}");
    let elf_hex = q7emu()
        .args(["run-elf", "--max-cycles", "0x"])
        .arg(TOUR)
        .output()
        .unwrap();
    assert!(usage_error(elf_hex).starts_with(
        "error: invalid value '0x' for '--max-cycles <MAX_CYCLES>': \"0x\": cannot parse \
         integer from empty string (expected a 64-bit number, decimal or 0x-hex)\n"
    ));
}

// Item 1: a semihosting write of an impossible length fails with EFAULT at once.

#[test]
fn a_semihosting_write_of_4_gib_from_0x100_fails_with_efault_in_bounded_memory() {
    // write(1, 0x100, -1), then exit with the errno it left in a3.
    let code = [
        0x22, 0xa0, 0x04, 0x32, 0xa0, 0x01, 0x42, 0xa1, 0x00, 0x52, 0xaf, 0xff, 0x00, 0x51, 0x00,
        0x22, 0xa0, 0x01, 0x00, 0x51, 0x00,
    ];
    let dir = TempDir::new("hostile-write");
    let path = dir.join("prog.elf");
    std::fs::write(&path, elf(2, &code, 0x1000)).unwrap();
    let out = q7emu().arg("run-elf").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(14), "EFAULT: {out:?}");
    assert!(out.stdout.is_empty(), "nothing written");
}

// Issue 18 §4: nothing the user owns is destroyed. Every output is written whole (a temporary
// file beside it, renamed into place), and no output may name an input's file or another
// output's (docs/cli.md "Output files").

/// A copy of the committed vector_add example in `dir`: its build directory and inputs.
fn vector_add_copy(dir: &TempDir) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let k = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels/vector_add");
    let build = dir.join("build");
    std::fs::create_dir_all(&build).unwrap();
    for f in ["q7build.json", "ucode_lib.json", "vector_add.packed.so"] {
        std::fs::copy(k.join("build").join(f), build.join(f)).unwrap();
    }
    let (a, b) = (dir.join("a.npy"), dir.join("b.npy"));
    std::fs::copy(k.join("a.npy"), &a).unwrap();
    std::fs::copy(k.join("b.npy"), &b).unwrap();
    (build, a, b)
}

/// Every file under `dir` (recursively) with its bytes, sorted by path.
fn tree(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(tree(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn an_output_onto_an_input_or_another_output_is_refused_before_the_run_naming_both() {
    let dir = TempDir::new("hostile-same-path");
    let (build, a, b) = vector_add_copy(&dir);
    let traces = dir.join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    std::fs::copy(&a, traces.join("core0.trace")).unwrap();
    let show = |p: &std::path::Path| p.display().to_string();
    let (a_s, b_s, t_s) = (show(&a), show(&b), show(&traces.join("core0.trace")));
    // `a.npy` named another way: through `..`.
    let a_again = show(&dir.join("traces/../a.npy"));
    let report = show(&dir.join("r.json"));
    let traces_s = show(&traces);
    let info = show(&build.join("q7build.json"));
    let image = show(&build.join("vector_add.packed.so"));
    let cases: Vec<(Vec<&str>, &str, String)> = vec![
        (
            vec!["--timeline", &a_again],
            &a_s,
            format!("--timeline {a_again} is the same file as --input {a_s}: an output must not replace an input; write it elsewhere"),
        ),
        (
            vec!["--timeline", &report, "--output", &report],
            &a_s,
            format!("--output {report} and --timeline {report} are the same file: each output needs a file of its own"),
        ),
        (
            vec!["--json-file", &info],
            &a_s,
            format!("--json-file {info} is the same file as BUILD_DIR {info}: an output must not replace an input; write it elsewhere"),
        ),
        (
            vec!["--output", &image],
            &a_s,
            format!("--output {image} is the same file as BUILD_DIR {image}: an output must not replace an input; write it elsewhere"),
        ),
        (
            vec!["--output", &b_s],
            &a_s,
            format!("--output {b_s} is the same file as --input {b_s}: an output must not replace an input; write it elsewhere"),
        ),
        (
            vec!["--trace-dir", &traces_s],
            &t_s,
            format!("--trace-dir {t_s} is the same file as --input {t_s}: an output must not replace an input; write it elsewhere"),
        ),
    ];
    let before = tree(&dir.join(""));
    for (extra, first, want) in cases {
        let out = q7emu()
            .arg("run")
            .arg(&build)
            .args(["--op", "vector_add", "--input", first, "--input", &b_s])
            .args(&extra)
            .output()
            .unwrap();
        let err = failure(out);
        assert_eq!(err, format!("q7emu: error: {want}\n"), "{extra:?}");
        assert_eq!(
            tree(&dir.join("")),
            before,
            "{extra:?}: every file as it was"
        );
    }

    // run-elf, run-packed and inspect: the report onto the file they read.
    let prog = dir.join("prog.elf");
    std::fs::write(&prog, elf(2, &exit_with(0), 0x1000)).unwrap();
    let lib = dir.join("lib.so");
    std::fs::copy(MINIMAL, &lib).unwrap();
    let (prog_s, lib_s) = (show(&prog), show(&lib));
    let before = tree(&dir.join(""));
    for (args, path) in [
        (vec!["run-elf", "--json-file", &prog_s, &prog_s], &prog_s),
        (
            vec![
                "run-packed",
                "--key",
                "0x185",
                "--json-file",
                &lib_s,
                &lib_s,
            ],
            &lib_s,
        ),
        (vec!["inspect", "--json-file", &lib_s, &lib_s], &lib_s),
    ] {
        let err = failure(q7emu().args(&args).output().unwrap());
        assert_eq!(
            err,
            format!("q7emu: error: --json-file {path} is the same file as FILE {path}: an output must not replace an input; write it elsewhere\n")
                .replace("FILE", if args[0] == "inspect" { "IMAGE|BUILD_DIR" } else { "FILE" }),
            "{args:?}"
        );
        assert_eq!(tree(&dir.join("")), before, "{args:?}");
    }
}

/// `cmd` limited to files of at most `bytes` bytes (RLIMIT_FSIZE), a write past it failing
/// with EFBIG rather than ending the process: a disk that fills up midway through a write.
fn with_file_size_limit(cmd: &mut std::process::Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec the closure calls only setrlimit and signal, both
    // async-signal-safe, on values it owns, and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
}

#[test]
fn a_write_that_fails_midway_leaves_the_existing_output_as_it_was() {
    let dir = TempDir::new("hostile-full-disk");
    let (build, a, b) = vector_add_copy(&dir);
    let out_path = dir.join("out.npy");
    std::fs::write(&out_path, b"the user's tensor").unwrap();
    // The output is a 4224-byte .npy (1024 float32 and its header); the "disk" takes 2048.
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(&build)
        .args(["--op", "vector_add", "--input"])
        .arg(&a)
        .arg("--input")
        .arg(&b)
        .arg("--output")
        .arg(&out_path);
    with_file_size_limit(&mut cmd, 2048);
    let err = failure(cmd.output().unwrap());
    assert_eq!(
        err,
        format!(
            "q7emu: error: {}: File too large (os error 27)\n",
            out_path.display()
        )
    );
    assert_eq!(std::fs::read(&out_path).unwrap(), b"the user's tensor");
    let mut names: Vec<String> = std::fs::read_dir(dir.join(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["a.npy", "b.npy", "build", "out.npy"],
        "no temporary file left behind"
    );
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_the_run() {
    let dir = TempDir::new("hostile-unwritable");
    let (build, a, b) = vector_add_copy(&dir);
    // A path under a regular file: no directory to create it in (refused even for root).
    let under_file = a.join("out.npy");
    let cases = [
        (
            "--output",
            under_file.display().to_string(),
            "Not a directory (os error 20)",
        ),
        (
            "--timeline",
            dir.join("build").display().to_string(),
            "is a directory",
        ),
    ];
    for (flag, path, why) in cases {
        let out = q7emu()
            .arg("run")
            .arg(&build)
            .args(["--op", "vector_add", "--input"])
            .arg(&a)
            .arg("--input")
            .arg(&b)
            .args([flag, &path])
            .output()
            .unwrap();
        assert!(out.stdout.is_empty(), "{flag}: nothing ran");
        assert_eq!(
            failure(out),
            format!("q7emu: error: {path}: {why}\n"),
            "{flag}"
        );
    }
}

// Issue 18 §3: guest text reaches a terminal with its control characters escaped, and a file
// or a pipe byte for byte.

#[test]
fn semihosting_output_is_escaped_on_a_terminal_and_exact_in_a_pipe() {
    // write(1, 0x418, 15) of the bytes after the code, then exit(0); loaded at 0x400.
    let mut code = vec![
        0x22, 0xa0, 0x04, // movi a2, 4 (SYS_WRITE)
        0x32, 0xa0, 0x01, // movi a3, 1
        0x42, 0xa4, 0x18, // movi a4, 0x418
        0x52, 0xa0, 0x0f, // movi a5, 15
        0x00, 0x51, 0x00, // simcall
        0x22, 0xa0, 0x01, // movi a2, 1 (SYS_EXIT)
        0x32, 0xa0, 0x00, // movi a3, 0
        0x00, 0x51, 0x00, // simcall
    ];
    let text = b"\x1b]0;pwned\x07hi\t\x9b\n";
    code.extend_from_slice(text);
    let dir = TempDir::new("hostile-terminal");
    let prog = dir.join("prog.elf");
    std::fs::write(&prog, elf(2, &code, 0x400)).unwrap();

    let piped = q7emu().arg("run-elf").arg(&prog).output().unwrap();
    assert_eq!(piped.status.code(), Some(0));
    assert_eq!(piped.stdout, text, "a pipe gets the bytes exactly");

    let mut cmd = q7emu();
    cmd.arg("run-elf").arg(&prog);
    let (code, shown) = support::on_terminal(cmd);
    assert_eq!(code, Some(0));
    let shown = String::from_utf8(shown).unwrap();
    assert!(
        shown.starts_with("\\x1b]0;pwned\\x07hi\t\\x9b\n"),
        "the title sequence is shown, not obeyed: {shown:?}"
    );
    assert!(!shown.contains('\x1b'), "{shown:?}");
}

// Issue 18 §1: a `.npy` input is streamed into HBM, and the output's HBM is not touched before
// the kernel writes it: peak memory is proportionate to the tensors (PLATFORM.md "Input file
// limits").

/// Runs `cmd` to its end: its output and its peak resident set in bytes, the kernel's
/// `ru_maxrss` of that child alone (wait4), whatever else runs meanwhile.
#[allow(clippy::zombie_processes)] // wait4 reaps the child, which std's wait cannot see.
fn output_and_peak_rss(mut cmd: Command) -> (Output, u64) {
    use std::os::unix::process::ExitStatusExt;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                r.read_to_end(&mut v).unwrap();
            }
            v
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and wait4 writes only these two locals.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: `pid` is our unwaited child; `status` and `usage` outlive the call.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    let output = Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    // Linux reports ru_maxrss in KiB.
    (output, usage.ru_maxrss as u64 * 1024)
}

/// `q7emu run` of relu_tcm on `input` with `extra` arguments: its output and peak RSS.
fn relu_run(input: &std::path::Path, extra: &[&str]) -> (Output, u64) {
    let mut cmd = q7emu();
    cmd.arg("run")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/kernels/relu_tcm/build"
        ))
        .args(["--op", "relu_forward", "--input"])
        .arg(input)
        .args(extra);
    output_and_peak_rss(cmd)
}

#[test]
fn a_large_npy_input_and_a_large_output_take_memory_in_proportion() {
    let dir = TempDir::new("hostile-npy-memory");
    let small = dir.join("small.npy");
    std::fs::write(&small, q7_tests::npy_1d("<i4", 4, &[0; 16])).unwrap();
    // 64 MiB of int32 zeros (sparse on disk): 16 Mi elements. Asked for an int32 output (its
    // shape function would say float32), the float kernel stops with a runtime error
    // (RETURN_MISMATCH, the dtype), once the tensors are in place: what the run holds then is
    // what it allocated for them.
    let tensor: u64 = 64 << 20;
    let big = dir.join("big.npy");
    let mut h = format!(
        "{{'descr': '<i4', 'fortran_order': False, 'shape': ({},), }}",
        tensor / 4
    );
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(h.len() as u16).to_le_bytes());
    bytes.extend_from_slice(h.as_bytes());
    std::fs::write(&big, &bytes).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&big).unwrap();
    f.set_len(bytes.len() as u64 + tensor).unwrap();
    let (base_out, base) = relu_run(&small, &["--out-dtype", "int32"]);
    let (big_out, peak) = relu_run(&big, &["--out-dtype", "int32"]);
    for o in [&base_out, &big_out] {
        // docs/exit-codes.md: a runtime error is 129.
        assert_eq!(
            o.status.code(),
            Some(129),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let over = peak.saturating_sub(base);
    assert!(
        over < tensor * 3 / 2,
        "a {tensor}-byte input took {over} bytes more than a 16-byte one (peak {peak})"
    );
    // A 1 GiB output (the limit) costs nothing until the kernel writes it.
    let (out, peak) = relu_run(&small, &["--out-shape", &(1u64 << 28).to_string()]);
    assert_eq!(
        out.status.code(),
        Some(129),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let over = peak.saturating_sub(base);
    assert!(
        over < 32 << 20,
        "a 1 GiB output took {over} bytes more than a 16-byte one before the kernel wrote it"
    );
}
