//! The SDK builds under the build driver's flags: every header on its own (C headers also as
//! C11), every runtime source, kernels written as the public tutorials write them, and whole
//! libraries (runtime + kernels + the wrapper the generator emits) that leave nothing undefined
//! but the compiler helper routines. Misuse the API forbids fails to compile with a message
//! that names it.

use crate::sdk_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use q7_tests::{tool, TempDir};
use sdk_support::{
    assert_ok, device_compile, include_flag, output, programs, sdk, DEVICE_CXX_FLAGS,
    DEVICE_LINK_FLAGS,
};

/// Headers a kernel from the public documentation includes, or the generated wrapper does.
const REQUIRED_HEADERS: &[&str] = &[
    "torch/torch.h",
    "torch/extension.h",
    "neuron/neuron-utils.hpp",
    "neuron/wrapper_api.h",
    "custom_op.h",
    "q7/customop_abi.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
    "math.h",
    "assert.h",
    "initializer_list",
    "algorithm",
    "cstdint",
    "cstddef",
    "cstdlib",
    "cmath",
    "utility",
    "type_traits",
    "new",
    "limits",
];

/// Headers that are C as well as C++ (kernels or helper routines written in C include them).
const C_HEADERS: &[&str] = &[
    "assert.h",
    "ctype.h",
    "inttypes.h",
    "math.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
    "q7/customop_abi.h",
    "q7/customop_abi_tables.h",
    "q7/platform.h",
    "q7/platform_map.h",
    "q7/rt_state.h",
];

/// What a library may leave undefined: the compiler helper routines (GCC's integer and
/// soft-float library ABI, the four memory routines, operator new/delete and the C++ ABI
/// hooks), which are linked in from their own archive.
const HELPER_ABI: &[&str] = &[
    // integer arithmetic
    "__ashlsi3",
    "__ashldi3",
    "__ashrsi3",
    "__ashrdi3",
    "__lshrsi3",
    "__lshrdi3",
    "__mulsi3",
    "__muldi3",
    "__divsi3",
    "__divdi3",
    "__modsi3",
    "__moddi3",
    "__udivsi3",
    "__udivdi3",
    "__umodsi3",
    "__umoddi3",
    "__udivmoddi4",
    "__negdi2",
    "__cmpdi2",
    "__ucmpdi2",
    "__clzsi2",
    "__clzdi2",
    "__ctzsi2",
    "__ctzdi2",
    "__popcountsi2",
    "__popcountdi2",
    "__paritysi2",
    "__paritydi2",
    "__bswapsi2",
    "__bswapdi2",
    // soft-float
    "__addsf3",
    "__adddf3",
    "__subsf3",
    "__subdf3",
    "__mulsf3",
    "__muldf3",
    "__divsf3",
    "__divdf3",
    "__negsf2",
    "__negdf2",
    "__extendsfdf2",
    "__truncdfsf2",
    "__fixsfsi",
    "__fixdfsi",
    "__fixsfdi",
    "__fixdfdi",
    "__fixunssfsi",
    "__fixunsdfsi",
    "__fixunssfdi",
    "__fixunsdfdi",
    "__floatsisf",
    "__floatsidf",
    "__floatdisf",
    "__floatdidf",
    "__floatunsisf",
    "__floatunsidf",
    "__floatundisf",
    "__floatundidf",
    "__cmpsf2",
    "__cmpdf2",
    "__unordsf2",
    "__unorddf2",
    "__eqsf2",
    "__eqdf2",
    "__nesf2",
    "__nedf2",
    "__gesf2",
    "__gedf2",
    "__ltsf2",
    "__ltdf2",
    "__lesf2",
    "__ledf2",
    "__gtsf2",
    "__gtdf2",
    "__powisf2",
    "__powidf2",
    // memory
    "memcpy",
    "memset",
    "memmove",
    "memcmp",
    "strlen",
    // C++ ABI
    "_Znwj",
    "_Znaj",
    "_ZdlPv",
    "_ZdaPv",
    "_ZdlPvj",
    "_ZdaPvj",
    "_ZnwjRKSt9nothrow_t",
    "_ZnajRKSt9nothrow_t",
    "_ZdlPvRKSt9nothrow_t",
    "_ZdaPvRKSt9nothrow_t",
    "__cxa_pure_virtual",
    "__cxa_atexit",
    "__cxa_guard_acquire",
    "__cxa_guard_release",
    "__cxa_guard_abort",
    "__dso_handle",
    "__cxa_deleted_virtual",
    "__cxa_throw_bad_array_new_length",
    "atexit",
    "_ZSt7nothrow",
    "__ffssi2",
    "__ffsdi2",
    "__clrsbsi2",
    "__clrsbdi2",
];

/// Files under `dir` (recursively) whose names pass `keep`, relative to `dir`, sorted.
fn files(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if keep(&p) {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Runs `job` over `items` on two threads (the machine's cores); the failures' messages.
fn parallel<T: Sync>(items: &[T], job: impl Fn(&T) -> Option<String> + Sync) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                if let Some(f) = job(item) {
                    failures.lock().unwrap().push(f);
                }
            });
        }
    });
    failures.into_inner().unwrap()
}

fn failed(what: &str, out: &std::process::Output) -> Option<String> {
    (!out.status.success()).then(|| {
        format!(
            "{what}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[q7_requires::needs(toolchain)]
#[test]
fn every_sdk_header_compiles_on_its_own_under_the_build_flags() {
    let Some(gxx) = tool("g++") else { return };
    let include = sdk().join("include");
    let headers = files(&include, &|_| true);
    for required in REQUIRED_HEADERS {
        assert!(
            headers.iter().any(|h| h == Path::new(required)),
            "the SDK has no <{required}>"
        );
    }
    let dir = TempDir::new("sdk-headers");
    let failures = parallel(&headers, |h| {
        let name = h.display().to_string();
        let stem = name.replace(['/', '.'], "_");
        let src = dir.join(&format!("{stem}.cpp"));
        std::fs::write(&src, format!("#include <{name}>\n")).unwrap();
        failed(
            &name,
            &device_compile(&gxx, &src, &dir.join(&format!("{stem}.o"))),
        )
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[q7_requires::needs(toolchain)]
#[test]
fn c_headers_also_compile_as_c11() {
    let Some(gcc) = tool("gcc") else { return };
    let dir = TempDir::new("sdk-c-headers");
    let failures = parallel(C_HEADERS, |h| {
        let stem = h.replace(['/', '.'], "_");
        let src = dir.join(&format!("{stem}.c"));
        std::fs::write(&src, format!("#include <{h}>\nint q7_c_header_test;\n")).unwrap();
        let mut cmd = Command::new(&gcc);
        cmd.args([
            "-std=c11",
            "-Os",
            "-fPIC",
            "-ffreestanding",
            "-Wall",
            "-Werror",
        ])
        .arg(include_flag())
        .arg("-c")
        .arg(&src)
        .arg("-o")
        .arg(dir.join(&format!("{stem}.o")));
        failed(h, &output(&mut cmd))
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The runtime's sources (C++ and assembly).
fn runtime_sources() -> Vec<PathBuf> {
    let dir = sdk().join("rt/customop");
    files(&dir, &|p| {
        matches!(p.extension().and_then(|e| e.to_str()), Some("cpp" | "S"))
    })
    .into_iter()
    .map(|p| dir.join(p))
    .collect()
}

/// Compiles `sources` for the device into `dir`; the objects (panics with every failure).
fn compile_all(gxx: &Path, sources: &[PathBuf], dir: &TempDir) -> Vec<PathBuf> {
    let failures = parallel(sources, |src| {
        let obj = object_of(src, dir);
        failed(&src.display().to_string(), &device_compile(gxx, src, &obj))
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    sources.iter().map(|s| object_of(s, dir)).collect()
}

fn object_of(src: &Path, dir: &TempDir) -> PathBuf {
    let name = src.file_name().unwrap().to_string_lossy().replace('.', "_");
    dir.join(&format!("{name}.o"))
}

#[q7_requires::needs(toolchain)]
#[test]
fn every_runtime_source_compiles_under_the_build_flags() {
    let Some(gxx) = tool("g++") else { return };
    let sources = runtime_sources();
    let names: Vec<String> = sources
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for expected in [
        "start.cpp",
        "marshal.cpp",
        "stack_switch.S",
        "format.cpp",
        "heaps.cpp",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "no {expected} in {names:?}"
        );
    }
    compile_all(&gxx, &sources, &TempDir::new("sdk-rt"));
}

/// The element-wise ops' sources (`rt/ops`, archived by the build driver, examples/sdk/BUILD.md).
#[q7_requires::needs(toolchain)]
#[test]
fn every_elementwise_op_source_compiles_under_the_build_flags() {
    let Some(gxx) = tool("g++") else { return };
    let dir = sdk().join("rt/ops");
    let sources: Vec<PathBuf> = files(&dir, &|p| {
        p.extension().and_then(|e| e.to_str()) == Some("cpp")
    })
    .into_iter()
    .map(|p| dir.join(p))
    .collect();
    assert!(
        sources.iter().any(|p| p.ends_with("engine.cpp")),
        "no engine.cpp in {sources:?}"
    );
    compile_all(&gxx, &sources, &TempDir::new("sdk-ops"));
}

/// The kernels of tests/programs/sdk (public-API code as the tutorials write it).
const KERNELS: &[&str] = &[
    "vector_add.cpp",
    "relu_element.cpp",
    "relu_tcm.cpp",
    "relu_multicore.cpp",
    "factory_2d.cpp",
    "extension_include.cpp",
];

#[q7_requires::needs(toolchain)]
#[test]
fn kernels_written_against_the_public_api_compile_unchanged() {
    let Some(gxx) = tool("g++") else { return };
    let sources: Vec<PathBuf> = KERNELS.iter().map(|k| programs().join(k)).collect();
    compile_all(&gxx, &sources, &TempDir::new("sdk-kernels"));
}

/// Links the runtime, `kernel` and its hand-written `wrapper` into a library; the library.
/// The linker-script symbols the build driver defines are given here with --defsym.
fn link_library(gxx: &Path, dir: &TempDir, kernel: &str, wrapper: &str) -> PathBuf {
    let mut sources = runtime_sources();
    sources.push(programs().join(kernel));
    sources.push(programs().join(wrapper));
    let objects = compile_all(gxx, &sources, dir);
    let lib = dir.join("lib.so");
    let mut cmd = Command::new(gxx);
    cmd.args(DEVICE_LINK_FLAGS)
        .args([
            "-Wl,--defsym=__q7_heap_start=0x84100000",
            "-Wl,--defsym=__q7_heap_end=0x841fffc0",
            "-Wl,--defsym=__q7_init_array_start=0",
            "-Wl,--defsym=__q7_init_array_end=0",
        ])
        .args(&objects)
        .arg("-o")
        .arg(&lib);
    assert_ok("link", &output(&mut cmd));
    lib
}

fn undefined_symbols(lib: &Path) -> Vec<String> {
    let nm = tool("nm").expect("nm beside g++");
    let out = output(Command::new(nm).arg("-u").arg(lib));
    assert_ok("nm", &out);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last().map(str::to_string))
        .collect()
}

/// Size of section `name` of `lib`, from readelf -S.
fn section_size(lib: &Path, name: &str) -> Option<u32> {
    let readelf = tool("readelf").expect("readelf beside g++");
    let out = output(Command::new(readelf).args(["-S", "-W"]).arg(lib));
    assert_ok("readelf", &out);
    String::from_utf8_lossy(&out.stdout).lines().find_map(|l| {
        let l =
            l.trim_start_matches(|c: char| c == ' ' || c == '[' || c.is_ascii_digit() || c == ']');
        let f: Vec<&str> = l.split_whitespace().collect();
        (f.first() == Some(&name)).then(|| u32::from_str_radix(f[4], 16).unwrap())
    })
}

fn dynamic_symbols(lib: &Path) -> String {
    let readelf = tool("readelf").expect("readelf beside g++");
    let out = output(Command::new(readelf).args(["--dyn-syms", "-W"]).arg(lib));
    assert_ok("readelf", &out);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn assert_library_contract(lib: &Path, ops: u32) {
    let undefined = undefined_symbols(lib);
    let unexpected: Vec<&String> = undefined
        .iter()
        .filter(|s| !HELPER_ABI.contains(&s.as_str()))
        .collect();
    assert!(
        unexpected.is_empty(),
        "undefined beyond the helper routines: {unexpected:?}"
    );
    assert_eq!(
        section_size(lib, ".kernel_info_table"),
        Some(8 * ops),
        "one 8-byte entry per op"
    );
    let dynsym = dynamic_symbols(lib);
    assert!(
        dynsym
            .lines()
            .any(|l| l.contains(" GLOBAL ") && l.contains(" DEFAULT ") && l.ends_with(" _start")),
        "_start is the library's exported start symbol:\n{dynsym}"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_single_core_library_needs_only_the_helper_routines() {
    let Some(gxx) = tool("g++") else { return };
    let dir = TempDir::new("sdk-lib-relu");
    let lib = link_library(&gxx, &dir, "relu_element.cpp", "wrapper_relu_element.cpp");
    assert_library_contract(&lib, 2);
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_multicore_library_with_scalar_arguments_needs_only_the_helper_routines() {
    let Some(gxx) = tool("g++") else { return };
    let dir = TempDir::new("sdk-lib-factory");
    let lib = link_library(&gxx, &dir, "factory_2d.cpp", "wrapper_factory_2d.cpp");
    assert_library_contract(&lib, 2);
}

/// Kernel code the API refuses, and the words the compiler's message must contain.
const REFUSED: &[(&str, &str, &str)] = &[
    (
        "writing through a const tensor's accessor",
        "void f(const at::Tensor &t) { auto a = t.accessor<float, 1>(); a[0] = 1.0f; }",
        "read-only",
    ),
    (
        "tcm_to_tensor on a const tensor",
        "void f(const at::Tensor &t, float *b) { t.tcm_accessor().tcm_to_tensor<float>(b, 0, 1); }",
        "tcm_to_tensor writes the tensor",
    ),
    (
        "an accessor of a temporary tensor",
        "float f() { return torch::zeros({2}, torch::kFloat).accessor<float, 1>()[0]; }",
        "deleted function",
    ),
    (
        "an element type no dtype has",
        "double f(const at::Tensor &t) { return t.accessor<double, 1>()[0]; }",
        "no tensor dtype has this element type",
    ),
    (
        "an unsigned element type other than uint8_t",
        "unsigned f(const at::Tensor &t) { return t.accessor<uint32_t, 1>()[0]; }",
        "kByte is the only unsigned one",
    ),
    (
        "a write stream on a const tensor",
        "void f(const at::Tensor &t) { t.write_stream_accessor<float>().write(1.0f); }",
        "write_stream_accessor writes the tensor",
    ),
    (
        "a copy of a stream (two streams would share one buffer)",
        "void f(const at::Tensor &t) { auto s = t.read_stream_accessor<float>(); auto c = s; c.read(); }",
        "use of deleted function",
    ),
    (
        "a stream of an element type no dtype has",
        "double f(const at::Tensor &t) { return t.read_stream_accessor<double>().read(); }",
        "no tensor dtype has this element type",
    ),
    (
        "a STACK_SIZE over MAX_STACK_SIZE",
        "#define STACK_SIZE 0x400001\n#include <neuron/wrapper_api.h>\n",
        "larger than MAX_STACK_SIZE",
    ),
    (
        "a printf format that does not match its argument (int64_t is long long here)",
        "void f(int64_t v) { printf(\"%ld\\n\", v); }",
        "-Werror=format",
    ),
];

#[q7_requires::needs(toolchain)]
#[test]
fn misuse_the_api_forbids_fails_to_compile_with_a_message_naming_it() {
    let Some(gxx) = tool("g++") else { return };
    let dir = TempDir::new("sdk-refused");
    let failures = parallel(REFUSED, |(what, code, message)| {
        let stem: String = what
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let src = dir.join(&format!("{stem}.cpp"));
        let text = if code.starts_with('#') {
            code.to_string()
        } else {
            format!("#include <torch/torch.h>\n{code}\n")
        };
        std::fs::write(&src, text).unwrap();
        let out = device_compile(&gxx, &src, &dir.join(&format!("{stem}.o")));
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            Some(format!("{what}: compiled"))
        } else if !stderr.contains(message) {
            Some(format!("{what}: no \"{message}\" in:\n{stderr}"))
        } else {
            None
        }
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(DEVICE_CXX_FLAGS.len(), 12);
}
