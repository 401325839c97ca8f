//! Committed example images are what the toolchain builds from their committed sources:
//! rebuilding each one must give byte-identical output (ARCHITECTURE.md, "Prebuilt images").
//! The custom-op kernel examples built by `q7emu build` have their own rebuild test,
//! `host-stub/tests/all/examples.rs`.

use std::path::Path;
use std::process::Command;

use crate::support;

use q7_tests::{run, tool, TempDir};
use support::build_packed;

#[q7_requires::needs(toolchain)]
#[test]
fn isa_tour_elf_rebuilds_byte_identical() {
    let (Some(gas), Some(ld)) = (tool("as"), tool("ld")) else {
        return;
    };
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/isa-tour");
    let dir = TempDir::new("isa-tour");
    std::fs::copy(example.join("tour.S"), dir.join("tour.S")).unwrap();
    // The file symbol records the source name as given, so build from inside the directory.
    run(Command::new(gas)
        .current_dir(dir.join(""))
        .args(["tour.S", "-o", "tour.o"]));
    run(Command::new(ld).current_dir(dir.join("")).args([
        "-Ttext=0x84000000",
        "-e",
        "_start",
        "tour.o",
        "-o",
        "tour.elf",
    ]));
    let rebuilt = std::fs::read(dir.join("tour.elf")).unwrap();
    let committed = std::fs::read(example.join("tour.elf")).unwrap();
    assert!(
        rebuilt == committed,
        "examples/isa-tour/tour.elf differs from a rebuild ({} vs {} bytes): rebuild it with the \
         commands in tour.S and commit it",
        rebuilt.len(),
        committed.len()
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn minimal_kernel_packed_image_rebuilds_byte_identical() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/kernels/minimal");
    let source = std::fs::read_to_string(example.join("minimal.c")).unwrap();
    let Some(p) = build_packed("minimal", &[("minimal.c", &source)], &[]) else {
        return;
    };
    let rebuilt = std::fs::read(&p.packed).unwrap();
    if std::env::var_os("Q7EMU_UPDATE_EXAMPLES").is_some() {
        std::fs::write(example.join("minimal.so"), &rebuilt).unwrap();
    }
    let committed = std::fs::read(example.join("minimal.so")).unwrap();
    assert!(
        rebuilt == committed,
        "examples/kernels/minimal/minimal.so differs from a rebuild ({} vs {} bytes): run \
         Q7EMU_UPDATE_EXAMPLES=1 cargo test -p q7-tests --test all prebuilt_examples:: and commit it",
        rebuilt.len(),
        committed.len()
    );
}
