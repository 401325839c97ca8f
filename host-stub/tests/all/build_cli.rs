//! `q7emu build` from the command line (examples/sdk/BUILD.md): argument and environment errors
//! with their exact messages, and libraries built against a test SDK — the fixture runtime under
//! `tests/fixtures/test-sdk` (a stand-in, not shipped) with the repository's headers and linker
//! script — then prelinked, loaded and started on the emulated cluster.

use crate::support;

use support::q7emu;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use q7_emulator::platform::{map, Cluster, ClusterConfig};
use q7_kernel_build::metadata::BuildInfo;
use q7_loader::ucode_lib::Registry;
use q7_loader::ElfFile;
use q7_runtime::firmware::Firmware;
use q7_runtime::nrtucode::{coretype, Context, Source};
use q7_tests::TempDir;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
const SCALE_FNS: [(&str, &str); 2] = [
    ("scale", "scale(Tensor t, int k) -> Tensor"),
    ("offset", "offset(Tensor t, Scalar s) -> Tensor"),
];

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// The test SDK in `dir/name`: the repository's `include/` and `ld/`, the fixture's headers
/// over them and the fixture runtime.
fn test_sdk(dir: &TempDir, name: &str) -> PathBuf {
    let sdk = dir.join(name);
    let real = q7_kernel_build::sdk::default_dir();
    copy_tree(&real.join("include"), &sdk.join("include"));
    copy_tree(&real.join("ld"), &sdk.join("ld"));
    copy_tree(&Path::new(FIXTURES).join("test-sdk"), &sdk);
    sdk
}

/// `q7emu build` of the fixture kernel `scale.cpp` (ops of [`SCALE_FNS`]) into `out`.
fn build_scale(sdk: &Path, source: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut cmd = q7emu();
    cmd.args(["build", "--name", "scale"]);
    for (f, s) in SCALE_FNS {
        cmd.args(["--fn", f, "--schema", s]);
    }
    cmd.arg("--toolchain")
        .arg(q7_tests::toolchain_prefix())
        .arg("--sdk")
        .arg(sdk)
        .args(extra)
        .arg("-o")
        .arg(out)
        .arg(source);
    cmd.output().unwrap()
}

fn scale_source() -> PathBuf {
    Path::new(FIXTURES).join("kernels/scale.cpp")
}

/// `q7emu build` of op `k() -> Tensor` as library `k` with the toolchain at `prefix`; the caller
/// adds the rest (`-o`, sources).
fn build_command(prefix: &Path) -> Command {
    let mut cmd = q7emu();
    cmd.args([
        "build",
        "--name",
        "k",
        "--fn",
        "k",
        "--schema",
        "k() -> Tensor",
    ])
    .arg("--toolchain")
    .arg(prefix);
    cmd
}

/// A build with argument errors only: checked before any tool runs.
fn build_args(args: &[&str]) -> Output {
    q7emu().arg("build").args(args).output().unwrap()
}

#[test]
fn a_missing_compiler_is_named_exactly() {
    let dir = TempDir::new("build-nocc");
    let prefix = support::fake_toolchain(&dir, Some("xtensa-elf-g++"));
    let src = dir.join("k.cpp");
    std::fs::write(&src, "").unwrap();
    let o = build_command(&prefix)
        .arg("-o")
        .arg(dir.join("out"))
        .arg(&src)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o).starts_with("q7emu: error: Could not find xtensa-elf-g++ in "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_missing_source_has_the_seed_message() {
    let dir = TempDir::new("build-nosrc");
    let prefix = support::fake_toolchain(&dir, None);
    let o = build_command(&prefix)
        .arg("-o")
        .arg(dir.join("out"))
        .arg("no/such/kernel.cpp")
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert_eq!(
        stderr(&o),
        "q7emu: error: Cant find source file no/such/kernel.cpp\n"
    );
}

/// `q7emu build` of the sources `sources` with a fake toolchain (every tool present, none
/// run): the sources are checked before anything runs.
fn build_sources(dir: &TempDir, sources: &[&Path]) -> Output {
    let prefix = support::fake_toolchain(dir, None);
    build_command(&prefix)
        .arg("-o")
        .arg(dir.join("out"))
        .args(sources)
        .output()
        .unwrap()
}

#[test]
fn a_source_that_is_no_regular_file_is_named_as_what_it_is() {
    let dir = TempDir::new("build-src-kind");
    let sub = dir.join("kernel.cpp");
    std::fs::create_dir_all(&sub).unwrap();
    let fifo = dir.join("pipe.cpp");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for (src, what) in [
        (
            sub.as_path(),
            "is a directory, not a source file".to_string(),
        ),
        (
            Path::new("/dev/null"),
            "is a character device, not a source file (a source is a regular .c, .cc, .cpp, \
             .cxx or .S file)"
                .to_string(),
        ),
        (
            fifo.as_path(),
            "is a FIFO, not a source file (a source is a regular .c, .cc, .cpp, .cxx or .S file)"
                .to_string(),
        ),
    ] {
        let o = build_sources(&dir, &[src]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!("q7emu: error: {}: {what}\n", src.display())
        );
    }
    assert!(
        !dir.join("out").exists(),
        "refused before the build directory is made"
    );
}

#[test]
fn a_source_named_like_the_generated_wrapper_is_named_with_it() {
    let dir = TempDir::new("build-src-wrapper");
    let src = dir.join("wrapper.cpp");
    std::fs::write(&src, "").unwrap();
    let o = build_sources(&dir, &[&src]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!(
            "q7emu: error: {} would compile to wrapper.o, the object of the wrapper the build \
             generates ({}): rename the source\n",
            src.display(),
            dir.join("out").join("wrapper.cpp").display()
        )
    );
}

#[test]
fn a_library_name_that_names_no_file_is_refused_once_its_extension_goes() {
    for (name, base) in [(".", "."), ("..", "."), ("..so", ".")] {
        let o = build_args(&[
            "--name",
            name,
            "--fn",
            "k",
            "--schema",
            "k() -> Tensor",
            "-o",
            "out",
            "k.cpp",
        ]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            stderr(&o),
            format!(
                "q7emu: error: library name {name:?} leaves the base name {base:?} (the name \
                 without its extension), which cannot name the library's files: it must start \
                 with a letter, digit, '_' or '-'\n"
            )
        );
    }
    let o = build_args(&[
        "--name",
        "../x",
        "--fn",
        "k",
        "--schema",
        "k() -> Tensor",
        "-o",
        "out",
        "k.cpp",
    ]);
    assert_eq!(
        stderr(&o),
        "q7emu: error: library name \"../x\" must be letters, digits, '_', '-' or '.'\n"
    );
}

#[test]
fn a_schema_no_invocation_can_carry_is_refused_at_build_time() {
    // PLATFORM.md "ARG_TENSOR descriptor": 16 descriptors, the output's included.
    let args: Vec<String> = (0..16).map(|i| format!("Tensor t{i}")).collect();
    let schema = format!("k({}) -> Tensor", args.join(", "));
    let o = build_args(&[
        "--name", "k", "--fn", "k", "--schema", &schema, "-o", "out", "k.cpp",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!(
            "q7emu: error: bad schema {schema:?} at character {}: more than 15 arguments: an \
             invocation carries at most 16 descriptors, the output's included (PLATFORM.md \
             \"ARG_TENSOR descriptor\")\n",
            schema.find("Tensor t15").unwrap() + 1
        )
    );
    let o = build_args(&[
        "--name",
        "k",
        "--fn",
        "k",
        "--schema",
        "k(Tensor x, float default) -> Tensor",
        "-o",
        "out",
        "k.cpp",
    ]);
    assert_eq!(
        stderr(&o),
        "q7emu: error: bad schema \"k(Tensor x, float default) -> Tensor\" at character 19: \
         argument name `default` is a C++ keyword: the wrapper declares the function with it, \
         so rename the argument\n"
    );
    let o = build_args(&[
        "--name",
        "k",
        "--fn",
        "new",
        "--schema",
        "new() -> Tensor",
        "-o",
        "out",
        "k.cpp",
    ]);
    assert_eq!(
        stderr(&o),
        "q7emu: error: function name \"new\" is a C++ keyword: rename the function\n"
    );
}

#[test]
fn a_function_name_over_32_characters_is_refused() {
    let long = "a".repeat(33);
    let schema = format!("{long}(Tensor x) -> Tensor");
    let o = build_args(&[
        "--name", "k", "--fn", &long, "--schema", &schema, "-o", "out", "k.cpp",
    ]);
    assert!(!o.status.success());
    assert_eq!(
        stderr(&o),
        format!("q7emu: error: function name \"{long}\" is 33 characters long: the limit is 32\n")
    );
}

#[test]
fn a_bad_schema_is_named_with_the_position() {
    let o = build_args(&[
        "--name",
        "k",
        "--fn",
        "relu",
        "--schema",
        "relu(Tensor x -> Tensor",
        "-o",
        "out",
        "k.cpp",
    ]);
    assert!(!o.status.success());
    assert_eq!(
        stderr(&o),
        "q7emu: error: bad schema \"relu(Tensor x -> Tensor\" at character 15: expected `,` or \
         `)` after an argument, found `->`\n"
    );
    let o = build_args(&[
        "--name",
        "k",
        "--fn",
        "f",
        "--schema",
        "f(str s) -> Tensor",
        "-o",
        "out",
        "k.cpp",
    ]);
    assert!(
        stderr(&o).contains("at character 3: unsupported argument type `str`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn fn_and_schema_counts_must_match() {
    let o = build_args(&[
        "--name",
        "k",
        "--fn",
        "a",
        "--fn",
        "b",
        "--schema",
        "a() -> Tensor",
        "-o",
        "out",
        "k.cpp",
    ]);
    assert!(!o.status.success());
    assert_eq!(
        stderr(&o),
        "q7emu: error: --fn is given 2 times but --schema 1 times: each function needs its \
         schema, in the same order\n"
    );
}

/// A build of `source` text as `k.cpp` with op `k(Tensor x)`, against the test SDK.
fn build_one(dir: &TempDir, source: &str, extra: &[&str]) -> (PathBuf, Output) {
    let sdk = test_sdk(dir, "sdk");
    let src = dir.join("k.cpp");
    std::fs::write(&src, source).unwrap();
    let o = q7emu()
        .args([
            "build",
            "--name",
            "k",
            "--fn",
            "k",
            "--schema",
            "k(Tensor x) -> Tensor",
        ])
        .arg("--toolchain")
        .arg(q7_tests::toolchain_prefix())
        .arg("--sdk")
        .arg(&sdk)
        .args(extra)
        .arg("-o")
        .arg(dir.join("out"))
        .arg(&src)
        .output()
        .unwrap();
    (src, o)
}

const BROKEN: &str =
    "#include <neuron/wrapper_api.h>\nat::Tensor k(const at::Tensor& x) { return undeclared_name; }\n";

#[q7_requires::needs(toolchain)]
#[test]
fn a_compile_error_shows_the_compilers_first_lines() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("build-cc-quiet");
    let (src, o) = build_one(&dir, BROKEN, &[]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "a failed build step (README.md \"Exit codes\")"
    );
    let err = stderr(&o);
    let (head, compiler) = err.split_once('\n').unwrap();
    assert_eq!(
        head,
        format!("q7emu: error: Error compiling {}:", src.display())
    );
    // examples/sdk/BUILD.md "Steps" 3: the first lines, at most 10, then what is left out.
    assert!(
        compiler.contains("'undeclared_name' was not declared"),
        "{err}"
    );
    let lines: Vec<&str> = compiler.lines().collect();
    assert!(
        lines.len() <= q7_kernel_build::compile::EXCERPT_LINES + 1,
        "{err}"
    );
    assert!(
        !err.contains("+ "),
        "only --verbose echoes the commands: {err}"
    );
    // The build directory is as it was: a failed build installs nothing.
    let out = dir.join("out");
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [".q7build.lock"], "nothing but the lock file");
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_compile_error_with_verbose_shows_the_compiler_output() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("build-cc-loud");
    let (src, o) = build_one(&dir, BROKEN, &["--verbose"]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "q7emu: error: Error compiling {}:\n",
            src.display()
        )),
        "{err}"
    );
    assert!(err.contains("'undeclared_name' was not declared"), "{err}");
    assert!(err.contains("+ "), "verbose echoes the commands: {err}");
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_stack_size_over_the_limit_fails_at_compile_time() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("build-stack");
    let ok = "#include <neuron/wrapper_api.h>\nat::Tensor k(const at::Tensor& x) { return x; }\n";
    let (_, o) = build_one(&dir, ok, &["--verbose", "--cflag=-DSTACK_SIZE=0x400001"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    // Every translation unit including the SDK header checks it: the kernel's comes first.
    assert!(err.contains("Error compiling "), "{err}");
    assert!(
        err.contains("static assertion failed: STACK_SIZE is larger than MAX_STACK_SIZE"),
        "{err}"
    );
    let dir = TempDir::new("build-stack-max");
    let (_, o) = build_one(&dir, ok, &["--cflag=-DSTACK_SIZE=0x400000"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_signed_index_over_an_unsigned_count_builds_as_with_the_vendor_compiler() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("build-signcmp");
    let src = "#include <stddef.h>\n#include <neuron/wrapper_api.h>\n\
               at::Tensor k(const at::Tensor& x) {\n\
               \x20   uint32_t sum = 0;\n\
               \x20   size_t n = x.value;\n\
               \x20   for (int i = 0; i < n; i++) sum += i;\n\
               \x20   return at::Tensor{sum};\n\
               }\n";
    let (_, o) = build_one(&dir, src, &["--verbose"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn info(out: &Path) -> BuildInfo {
    BuildInfo::from_json(&std::fs::read_to_string(out.join("q7build.json")).unwrap()).unwrap()
}

/// Loads image `images[i]` on core `i` (every core, or core 0 of a single-core library), as
/// the host stub does: prelink for the core's window, stage, 0x1095 record, start symbol.
fn load(out: &Path, images: &[String]) -> Context {
    let mut device = Firmware::new(Cluster::new(&ClusterConfig::default()).unwrap());
    device.single_core = images.len() == 1;
    let mut ctx = Context::new(device);
    for (core, image) in images.iter().enumerate() {
        let packed = std::fs::read(out.join(image)).unwrap();
        let mut lib = ctx
            .create(
                coretype::CAYMAN,
                core as u32,
                Some(3),
                image,
                Source::CustomOp(&packed),
            )
            .unwrap();
        for r in ctx.load_sequence(&mut lib, None) {
            ctx.device.process(core as u32, &r).unwrap();
        }
    }
    ctx
}

fn symbol(elf: &ElfFile<'_>, name: &str) -> u32 {
    elf.symbols
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no symbol {name}"))
        .value
}

fn word(ctx: &Context, core: usize, addr: u32) -> u32 {
    let b = ctx.device.cluster.cores[core]
        .bus
        .read_bytes(addr, 4)
        .unwrap();
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// After the start symbol: the constructor ran, the heap checked out, and the kernel table the
/// wrapper reserved holds op i's key (big-endian) and its launcher — read from the core's
/// memory at the unstripped image's symbol addresses, which are device addresses.
fn check_started(ctx: &Context, core: usize, so: &Path) {
    let bytes = std::fs::read(so).unwrap();
    let elf = ElfFile::parse(&bytes).unwrap();
    assert_eq!(word(ctx, core, symbol(&elf, "q7_test_constructed")), 1);
    assert_eq!(word(ctx, core, symbol(&elf, "q7_test_heap_ok")), 1);
    let table = symbol(&elf, "__q7_kernel_table");
    for (i, (f, _)) in SCALE_FNS.iter().enumerate() {
        let at = table + 8 * i as u32;
        assert_eq!(word(ctx, core, at), ((i as u32) << 8 | 0x85).swap_bytes());
        let launcher = symbol(&elf, &format!("_ZL{}{f}_stack_switchv", f.len() + 13));
        assert_eq!(word(ctx, core, at + 4), launcher, "core {core} op {f}");
    }
}

/// Dispatches op `key` with tensor word `t` and scalar word `k` (the firmware reads the kernel
/// table after the start symbol filled it, PLATFORM.md "Kernel table").
fn dispatch(ctx: &mut Context, key: u32, t: u32, k: u32) -> Vec<(u32, Option<u32>)> {
    let mut args = [[0u8; 0x30]; 2];
    args[0][..4].copy_from_slice(&t.to_le_bytes());
    args[1][..4].copy_from_slice(&k.to_le_bytes());
    match ctx.device.dispatch(key, 133, key >> 8, &args, 2) {
        Ok(r) => r.iter().map(|r| (r.core, r.response)).collect(),
        Err(e) => panic!("dispatch {key:#x}: {e}"),
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_single_core_library_builds_packs_and_starts_in_the_32_mib_window() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("build-single");
    let sdk = test_sdk(&dir, "sdk");
    let out = dir.join("out");
    let o = build_scale(&sdk, &scale_source(), &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{}\n", out.join("scale.packed.so").display())
    );
    for f in [
        "scale.so",
        "scale.stripped.so",
        "scale.packed.so",
        "wrapper.cpp",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let i = info(&out);
    assert_eq!(i.library, "scale");
    assert!(!i.multicore && i.packed);
    assert_eq!(i.cpu_count, 1);
    assert_eq!(i.images, ["scale.packed.so"]);
    assert_eq!(i.linked, ["scale.so"]);
    let ops: Vec<(&str, u32, u32)> = i
        .ops
        .iter()
        .map(|o| (o.name.as_str(), o.function_id, o.key))
        .collect();
    assert_eq!(ops, [("scale", 0, 0x85), ("offset", 1, 0x185)]);
    assert_eq!(
        serde_json::to_value(&i.ops[0].args).unwrap(),
        serde_json::json!([{"name": "t", "kind": "tensor"}, {"name": "k", "kind": "int"}])
    );
    assert_eq!(i.ops[1].schema, "offset(Tensor t, Scalar s) -> Tensor");

    let reg =
        Registry::from_json(&std::fs::read_to_string(out.join("ucode_lib.json")).unwrap()).unwrap();
    let libs = reg.libraries();
    assert_eq!(libs.len(), 1);
    assert_eq!(libs[0].file_name, "scale.packed.so");
    assert_eq!((libs[0].cpu_id, libs[0].total_cpus), (0, 1));
    assert_eq!(
        libs[0].functions,
        [("scale".to_string(), 0), ("offset".to_string(), 1)]
    );

    // Linked where it runs: code right after the UCPL header at the window's start.
    let so = std::fs::read(out.join("scale.so")).unwrap();
    let elf = ElfFile::parse(&so).unwrap();
    let loads: Vec<u32> = elf
        .segments
        .iter()
        .filter(|s| s.kind == 1)
        .map(|s| s.vaddr)
        .collect();
    assert_eq!(loads.len(), 2);
    assert_eq!(loads[0], map::SINGLE_CORE_IMAGE_WINDOW.0 + 0x20);
    assert_eq!(
        symbol(&elf, "__q7_heap_end"),
        map::SINGLE_CORE_IMAGE_WINDOW.0 + map::SINGLE_CORE_IMAGE_WINDOW.1 - 0x40
    );
    assert!(
        elf.symbols
            .iter()
            .all(|s| s.name != "q7_test_unused_helper"),
        "helpers nothing calls stay out of the image"
    );

    let mut ctx = load(&out, &i.images);
    check_started(&ctx, 0, &out.join("scale.so"));
    {
        let r = dispatch(&mut ctx, 0x85, 4, 3);
        // 100000 constructed + 10000 × 1 core + 1000 heap ok + 100 × prid 0 + 4 × 3.
        assert_eq!(r, [(0, Some(111_012))]);
        let r = dispatch(&mut ctx, 0x185, 4, 3);
        assert_eq!(r, [(0, Some(111_007))]);
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_multicore_library_links_each_core_at_its_own_window() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("build-multi");
    let sdk = test_sdk(&dir, "sdk");
    let out = dir.join("out");
    let o = build_scale(&sdk, &scale_source(), &out, &["--multicore"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let i = info(&out);
    assert!(i.multicore && i.packed);
    assert_eq!(i.cpu_count, 8);
    let want: Vec<String> = (0..8).map(|c| format!("scale_cpu{c}.packed.so")).collect();
    assert_eq!(i.images, want);
    // examples/sdk/BUILD.md: q7build.json records each image's and each unstripped image's
    // SHA-256, which `run` and `inspect` check.
    let sha256 =
        |f: &String| q7_kernel_build::metadata::sha256_hex(&std::fs::read(out.join(f)).unwrap());
    assert_eq!(
        i.image_sha256,
        i.images.iter().map(sha256).collect::<Vec<_>>()
    );
    assert_eq!(
        i.linked_sha256,
        i.linked.iter().map(sha256).collect::<Vec<_>>()
    );
    let reg =
        Registry::from_json(&std::fs::read_to_string(out.join("ucode_lib.json")).unwrap()).unwrap();
    for (c, lib) in reg.libraries().iter().enumerate() {
        assert_eq!(lib.file_name, want[c]);
        assert_eq!((lib.cpu_id as usize, lib.total_cpus), (c, 8));
        assert_eq!(lib.functions.len(), 2);
    }
    for c in 0..8u32 {
        let so = std::fs::read(out.join(format!("scale_cpu{c}.so"))).unwrap();
        let elf = ElfFile::parse(&so).unwrap();
        let code = elf.segments.iter().find(|s| s.kind == 1).unwrap();
        assert_eq!(code.vaddr, map::image_window(c).0 + 0x20, "core {c}");
    }
    let mut ctx = load(&out, &i.images);
    for c in 0..8 {
        check_started(&ctx, c, &out.join(format!("scale_cpu{c}.so")));
    }
    {
        let r = dispatch(&mut ctx, 0x85, 5, 2);
        let want: Vec<(u32, Option<u32>)> = (0..8)
            .map(|c| (c, Some(100_000 + 80_000 + 1000 + 100 * c + 10)))
            .collect();
        assert_eq!(r, want);
    }
}

fn files(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir.join(rel)).unwrap() {
        let e = e.unwrap();
        let r = rel.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            files(dir, &r, out);
        } else {
            out.push(r);
        }
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn identical_inputs_give_byte_identical_outputs_wherever_they_live() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("build-repro");
    let mut outputs = Vec::new();
    for n in ["first", "second"] {
        // The same source, SDK and options, in other directories.
        let src_dir = dir.join(&format!("src-{n}"));
        std::fs::create_dir_all(&src_dir).unwrap();
        std::fs::copy(scale_source(), src_dir.join("scale.cpp")).unwrap();
        let sdk = test_sdk(&dir, &format!("sdk-{n}"));
        let out = dir.join(&format!("out-{n}"));
        let o = build_scale(&sdk, &src_dir.join("scale.cpp"), &out, &["--multicore"]);
        assert!(o.status.success(), "{}", stderr(&o));
        outputs.push(out);
    }
    let mut names = Vec::new();
    files(&outputs[0], Path::new(""), &mut names);
    names.sort();
    let mut second = Vec::new();
    files(&outputs[1], Path::new(""), &mut second);
    second.sort();
    assert_eq!(names, second);
    let temp = dir.join("");
    let temp = temp.to_string_lossy();
    for name in &names {
        let a = std::fs::read(outputs[0].join(name)).unwrap();
        let b = std::fs::read(outputs[1].join(name)).unwrap();
        assert!(a == b, "{} differs between the builds", name.display());
        let text = String::from_utf8_lossy(&a);
        assert!(
            !text.contains(temp.trim_end_matches('/')),
            "{} holds the build's absolute path",
            name.display()
        );
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_build_never_removes_what_it_did_not_create() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    // The packager's scratch directory used to be BUILD_DIR/.pack-<base>/, removed whole
    // after packing; a directory of that name is the user's.
    let dir = TempDir::new("build-keeps");
    let sdk = test_sdk(&dir, "sdk");
    let out = dir.join("out");
    let mine = out.join(".pack-scale");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join("README"), "mine too").unwrap();
    let o = build_scale(&sdk, &scale_source(), &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("README")).unwrap(),
        "mine too"
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // examples/sdk/BUILD.md "Outputs", the lock file and the user's two, nothing else: the
    // build's private directory is gone.
    assert_eq!(
        names,
        [
            ".pack-scale",
            ".q7build.lock",
            "README",
            "q7build.json",
            "scale.o",
            "scale.packed.so",
            "scale.so",
            "scale.stripped.so",
            "sdk",
            "ucode_lib.json",
            "wrapper.cpp",
            "wrapper.o"
        ]
    );

    // A rebuild that fails leaves the outputs of the last one as they were.
    let before: Vec<(PathBuf, Vec<u8>)> = {
        let mut f = Vec::new();
        files(&out, Path::new(""), &mut f);
        f.sort();
        f.into_iter()
            .map(|n| (n.clone(), std::fs::read(out.join(&n)).unwrap()))
            .collect()
    };
    let broken = dir.join("scale.cpp");
    std::fs::write(&broken, BROKEN).unwrap();
    let o = build_scale(&sdk, &broken, &out, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let mut after = Vec::new();
    files(&out, Path::new(""), &mut after);
    after.sort();
    assert_eq!(
        after,
        before.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>()
    );
    for (n, bytes) in &before {
        assert!(
            std::fs::read(out.join(n)).unwrap() == *bytes,
            "{} changed",
            n.display()
        );
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_build_waits_for_another_holding_the_build_directory() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    use std::io::{BufRead, BufReader};
    let dir = TempDir::new("build-lock");
    let sdk = test_sdk(&dir, "sdk");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    // Another build's lock (examples/sdk/BUILD.md "Steps" 2), held by this test.
    let lock = std::fs::File::create(out.join(".q7build.lock")).unwrap();
    lock.lock().unwrap();
    let mut cmd = q7emu();
    cmd.args(["build", "--name", "scale"]);
    for (f, s) in SCALE_FNS {
        cmd.args(["--fn", f, "--schema", s]);
    }
    let mut child = cmd
        .arg("--toolchain")
        .arg(q7_tests::toolchain_prefix())
        .arg("--sdk")
        .arg(&sdk)
        .arg("-o")
        .arg(&out)
        .arg(scale_source())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert_eq!(
        line,
        format!(
            "q7emu: waiting for another build into {} to end (it holds {})\n",
            std::fs::canonicalize(&out).unwrap().display(),
            std::fs::canonicalize(&out)
                .unwrap()
                .join(".q7build.lock")
                .display()
        )
    );
    // It waits on the lock: nothing is built while this test holds it.
    assert!(child.try_wait().unwrap().is_none());
    assert!(!out.join("q7build.json").exists());
    lock.unlock().unwrap();
    let status = child.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    assert!(status.success(), "{rest}");
    assert_eq!(info(&out).images, ["scale.packed.so"]);
}

#[q7_requires::needs(toolchain)]
#[test]
fn ctrl_c_stops_a_build_waiting_for_the_lock() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    use std::io::{BufRead, BufReader};
    let dir = TempDir::new("build-lock-int");
    let sdk = test_sdk(&dir, "sdk");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let lock = std::fs::File::create(out.join(".q7build.lock")).unwrap();
    lock.lock().unwrap();
    let mut child = build_command(&q7_tests::toolchain_prefix())
        .arg("--sdk")
        .arg(&sdk)
        .arg("-o")
        .arg(&out)
        .arg(scale_source())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(
        line.starts_with("q7emu: waiting for another build into "),
        "{line}"
    );
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    assert_eq!(status.code(), Some(130), "docs/exit-codes.md: interrupted");
    assert!(
        rest.ends_with(
            "q7emu: error: interrupted (Ctrl-C): the build stopped and installed nothing\n"
        ),
        "{rest}"
    );
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [".q7build.lock"]);
}

#[q7_requires::needs(toolchain)]
#[test]
fn two_builds_into_one_directory_both_succeed_one_after_the_other() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("build-concurrent");
    let sdk = test_sdk(&dir, "sdk");
    let out = dir.join("out");
    let spawn = |multicore: bool| {
        let mut cmd = q7emu();
        cmd.args(["build", "--name", "scale"]);
        for (f, s) in SCALE_FNS {
            cmd.args(["--fn", f, "--schema", s]);
        }
        if multicore {
            cmd.arg("--multicore");
        }
        cmd.arg("--toolchain")
            .arg(q7_tests::toolchain_prefix())
            .arg("--sdk")
            .arg(&sdk)
            .arg("-o")
            .arg(&out)
            .arg(scale_source())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(true), spawn(true));
    for child in [a, b] {
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let i = info(&out);
    assert_eq!(i.images.len(), 8);
    for image in &i.images {
        assert!(out.join(image).is_file(), "{image}");
    }
    let mut left = Vec::new();
    files(&out, Path::new(""), &mut left);
    assert!(
        left.iter()
            .all(|n| !n.to_string_lossy().starts_with(".q7build-")),
        "no private directory is left: {left:?}"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn the_debug_flag_skips_strip_and_pack() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("build-debug");
    let sdk = test_sdk(&dir, "sdk");
    let out = dir.join("out");
    let o = build_scale(&sdk, &scale_source(), &out, &["--cflag", "-g"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let i = info(&out);
    assert!(!i.packed);
    assert_eq!(i.images, ["scale.so"]);
    assert!(out.join("scale.so").is_file());
    assert!(!out.join("scale.stripped.so").exists());
    assert!(!out.join("scale.packed.so").exists());
    let reg =
        Registry::from_json(&std::fs::read_to_string(out.join("ucode_lib.json")).unwrap()).unwrap();
    assert_eq!(reg.libraries()[0].file_name, "scale.so");
}

#[q7_requires::needs(toolchain)]
#[test]
fn the_repository_sdk_builds_a_library_once_its_runtime_exists() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    use q7_kernel_build::sdk::{self, Part};
    let dir = sdk::default_dir();
    for p in Part::ALL {
        assert!(
            !sdk::sources(&dir, p).unwrap().is_empty(),
            "examples/sdk has no {p:?} sources"
        );
    }
    let dir = TempDir::new("build-real");
    let src = dir.join("ident.cpp");
    std::fs::write(
        &src,
        "#include <neuron/wrapper_api.h>\nat::Tensor ident(const at::Tensor& t) { return t; }\n",
    )
    .unwrap();
    let out = dir.join("out");
    for multicore in [false, true] {
        let mut cmd = q7emu();
        cmd.args([
            "build",
            "--name",
            "ident",
            "--fn",
            "ident",
            "--schema",
            "ident(Tensor t) -> Tensor",
        ])
        .arg("--toolchain")
        .arg(q7_tests::toolchain_prefix())
        .arg("-o")
        .arg(&out)
        .arg(&src);
        if multicore {
            cmd.arg("--multicore");
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let i = info(&out);
        let ctx = load(&out, &i.images);
        assert_eq!(ctx.device.loaded_on(0).len(), 1);
    }
}

/// The example of examples/sdk/BUILD.md, run as written from a directory holding the
/// repository's examples, prints the eight images it wrote, as the page says.
#[q7_requires::needs(toolchain)]
#[test]
fn the_build_pages_example_prints_the_eight_images() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let page = q7_tests::doc::read("examples/sdk/BUILD.md");
    let builds = q7_tests::doc::q7emu_commands(&page, "build");
    assert_eq!(builds.len(), 1, "examples/sdk/BUILD.md has one example");
    let dir = TempDir::new("build-page");
    let root = dir.join("");
    std::os::unix::fs::symlink(
        q7_tests::doc::root().join("examples"),
        root.join("examples"),
    )
    .unwrap();
    let out = q7emu()
        .current_dir(&root)
        .args(&builds[0])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = String::from_utf8(out.stdout).unwrap();
    let images: Vec<String> = (0..8)
        .map(|i| format!("build/relu/relu_cpu{i}.packed.so"))
        .collect();
    assert_eq!(printed.lines().collect::<Vec<_>>(), images);
    assert!(page.contains(&format!("(`{}` …)", images[0])));
    for image in &images {
        assert!(root.join(image).is_file(), "{image}");
    }
}

#[test]
fn a_second_ctrl_c_leaves_no_work_directory_behind() {
    use std::os::unix::fs::PermissionsExt;
    // Every tool sleeps, so the build is caught compiling, its work directory in place.
    let dir = TempDir::new("build-second-int");
    let prefix = support::fake_toolchain(&dir, None);
    for entry in std::fs::read_dir(prefix.join("bin")).unwrap() {
        let tool = entry.unwrap().path();
        std::fs::write(&tool, "#!/bin/sh\nexec sleep 5\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let src = dir.join("k.cpp");
    std::fs::write(&src, "at::Tensor k() { return at::Tensor{}; }\n").unwrap();
    let out = dir.join("out");
    let child = build_command(&prefix)
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let work_dirs = || -> Vec<String> {
        std::fs::read_dir(&out)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with(".q7build-"))
                    .collect()
            })
            .unwrap_or_default()
    };
    let started = std::time::Instant::now();
    while work_dirs().is_empty() {
        assert!(
            started.elapsed().as_secs() < 20,
            "no work directory appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let interrupt = || {
        let kill = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
    };
    interrupt();
    std::thread::sleep(std::time::Duration::from_millis(300));
    interrupt();
    let o = child.wait_with_output().unwrap();
    // docs/exit-codes.md: a second Ctrl-C ends the process at once with the interrupted code;
    // docs/cli.md "Output files": it removes what is in flight.
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert_eq!(work_dirs(), Vec::<String>::new());
}
