//! The project form of `q7emu build` and `q7emu run` (examples/sdk/BUILD.md "Projects"): a
//! compute file and a shape file with `NEURON_LIBRARY` registrations build into images and a
//! host shape executable, ops run by name or as `ns::op` with the output's shape and dtype from
//! the shape function, and each refusal says what and where — in a build (registrations, kernel
//! functions, shape-file compile errors) and in a run (a shape function that crashes, hangs or
//! returns a shape no descriptor describes). The testing API builds and runs projects the same
//! way (docs/testing.md).

use crate::support;

use support::q7emu;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use q7_kernel_build::metadata::BuildInfo;
use q7_tensor::{npy, HostTensor};
use q7_testing::{tensor, Kernel, Run};
use q7_tests::TempDir;

/// The compute file of the probe project: kernels whose outputs differ from their inputs in
/// rank and dtype.
const COMPUTE: &str = r#"#include <torch/torch.h>

// (x truncated to an int, the sign of x) of each element of a float vector: an n x 2 int32
// tensor.
torch::Tensor pairs(const torch::Tensor &v)
{
	int64_t n = v.size(0);
	torch::Tensor out = torch::zeros({n, 2}, torch::kInt);
	auto in = v.accessor<float, 1>();
	auto o = out.accessor<int32_t, 2>();
	for (int64_t i = 0; i < n; i++) {
		float x = in[i];
		o[i][0] = int32_t(x);
		o[i][1] = x > 0.0f ? 1 : (x < 0.0f ? -1 : 0);
	}
	return out;
}

// An n x len(v) float tensor, every element k when flag, else s.
torch::Tensor fill_kernel(const torch::Tensor &v, double k, int64_t n, bool flag, const torch::Scalar &s)
{
	torch::Tensor out = torch::zeros({n, v.size(0)}, torch::kFloat);
	auto o = out.accessor<float, 2>();
	float value = flag ? float(k) : s.toFloat();
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = 0; j < v.size(0); j++)
			o[i][j] = value;
	return out;
}
"#;

/// The shape file of the probe project, AWS's form: `pairs` and `fill` compute their outputs;
/// `crash`, `hang` and `huge` are shape functions gone wrong (all on the `pairs` kernel).
const SHAPE: &str = r#"#include <torch/torch.h>
#include "torchneuron/register.h"

torch::Tensor pairs_shape(torch::Tensor v) {
    return torch::zeros({v.size(0), 2}, torch::kInt);
}

torch::Tensor fill_shape(const torch::Tensor &v, double k, int64_t n, bool flag,
                         const torch::Scalar &s) {
    return torch::zeros({n, v.size(0)}, torch::kFloat);
}

torch::Tensor crash_shape(torch::Tensor v) {
    volatile int *nowhere = nullptr;
    *nowhere = 1;
    return v;
}

torch::Tensor hang_shape(torch::Tensor v) {
    volatile int spin = 1;
    while (spin) {
    }
    return v;
}

torch::Tensor huge_shape(torch::Tensor v) {
    return torch::zeros({70000, 1, 1, 1, 1}, torch::kInt);
}

NEURON_LIBRARY(probe_ops, m) {
    m.def("pairs", &pairs_shape, "pairs");
    m.def("fill", &fill_shape, "fill_kernel");  // the kernel's name differs from the op's
    m.def("crash", &crash_shape, "pairs");
    m.def("hang", &hang_shape, "pairs");
    m.def("huge", &huge_shape, "pairs");
}
"#;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `files` into `dir`.
fn project(dir: &Path, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// `q7emu build --name NAME --compute COMPUTE --shape SHAPE -o OUT` in `dir`.
fn build(dir: &Path, name: &str, compute: &str, shape: &str, out: &str) -> Output {
    q7emu()
        .current_dir(dir)
        .args([
            "build",
            "--name",
            name,
            "--compute",
            compute,
            "--shape",
            shape,
            "-o",
            out,
        ])
        .output()
        .unwrap()
}

/// The probe project, built once for every test that runs it.
fn probe() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("project-probe");
        let _ = std::fs::remove_dir_all(&dir);
        project(&dir, &[("probe.cpp", COMPUTE), ("shape.cpp", SHAPE)]);
        let o = build(&dir, "probe", "probe.cpp", "shape.cpp", "build");
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "build/probe.packed.so\nbuild/probe.shape\n"
        );
        dir
    })
}

fn floats(v: &[f32]) -> HostTensor {
    tensor(&[v.len() as u64], v).unwrap()
}

/// `q7emu run` of the probe build with `args`.
fn run_probe(args: &[&str]) -> Output {
    q7emu()
        .current_dir(probe())
        .args(["run", "build"])
        .args(args)
        .output()
        .unwrap()
}

const VALUES: [f32; 6] = [-2.5, -0.0, 0.75, 3.9, -1e9, 7.0];

fn values_npy() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let p = probe().join("v.npy");
        npy::write(&p, &floats(&VALUES)).unwrap();
        p
    })
}

/// `pairs` of VALUES, computed here: C's truncation and the sign.
fn pairs_reference() -> Vec<i32> {
    VALUES
        .iter()
        .flat_map(|&x| {
            let sign = if x > 0.0 {
                1
            } else if x < 0.0 {
                -1
            } else {
                0
            };
            [x as i32, sign]
        })
        .collect()
}

fn ints(t: &HostTensor) -> Vec<i32> {
    t.data
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_project_build_records_its_namespace_kernels_and_shape_executable() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let text = std::fs::read_to_string(probe().join("build/q7build.json")).unwrap();
    let info = BuildInfo::from_json(&text).unwrap();
    assert_eq!(info.namespace.as_deref(), Some("probe_ops"));
    let ops: Vec<(&str, &str, Option<&str>, Option<&str>)> = info
        .ops
        .iter()
        .map(|o| {
            (
                o.name.as_str(),
                o.schema.as_str(),
                o.kernel.as_deref(),
                o.shape_fn.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        ops,
        [
            (
                "pairs",
                "pairs(Tensor v) -> Tensor",
                Some("pairs"),
                Some("pairs_shape")
            ),
            (
                "fill",
                "fill(Tensor v, float k, int n, bool flag, Scalar s) -> Tensor",
                Some("fill_kernel"),
                Some("fill_shape")
            ),
            (
                "crash",
                "crash(Tensor v) -> Tensor",
                Some("pairs"),
                Some("crash_shape")
            ),
            (
                "hang",
                "hang(Tensor v) -> Tensor",
                Some("pairs"),
                Some("hang_shape")
            ),
            (
                "huge",
                "huge(Tensor v) -> Tensor",
                Some("pairs"),
                Some("huge_shape")
            ),
        ]
    );
    let shape = info.shape.unwrap();
    assert_eq!(shape.file, "probe.shape");
    let bytes = std::fs::read(probe().join("build/probe.shape")).unwrap();
    assert_eq!(shape.sha256, q7_kernel_build::metadata::sha256_hex(&bytes));
}

#[q7_requires::needs(toolchain)]
#[test]
fn the_shape_function_gives_the_output_its_rank_and_dtype() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let v = values_npy().to_str().unwrap().to_string();
    for op in ["pairs", "probe_ops::pairs"] {
        let out = probe().join(format!("{}.npy", op.replace(':', "_")));
        let o = run_probe(&["--op", op, "--input", &v, "--output", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.starts_with("pairs(Tensor v) -> Tensor: output int32 [6, 2], 12 elements\n"),
            "{stdout}"
        );
        let t = npy::read(&out).unwrap();
        assert_eq!(t.shape, [6, 2]);
        assert_eq!(ints(&t), pairs_reference());
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn scalars_reach_the_shape_function_and_the_kernel() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let v = values_npy().to_str().unwrap().to_string();
    for (flag, want) in [("true", 0.5f32), ("false", -3.0)] {
        let out = probe().join(format!("fill-{flag}.npy"));
        let o = run_probe(&[
            "--op",
            "fill",
            "--input",
            &v,
            "--scalar",
            "0.5",
            "--scalar",
            "3",
            "--scalar",
            flag,
            "--scalar",
            "-3",
            "--output",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let t = npy::read(&out).unwrap();
        assert_eq!(t.shape, [3, 6], "n x len(v) from the shape function");
        let got: Vec<f32> = t
            .data
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, vec![want; 18]);
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn out_shape_and_out_dtype_override_the_shape_function() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let v = values_npy().to_str().unwrap().to_string();
    // The kernel returns an int32 [6, 2]: an output requested otherwise is the runtime's
    // RETURN_MISMATCH, which shows the request won.
    let o = run_probe(&["--op", "pairs", "--input", &v, "--out-shape", "12"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("kernel pairs: returned a tensor of rank 2 but the output has rank 1"),
        "{}",
        stderr(&o)
    );
    let o = run_probe(&["--op", "pairs", "--input", &v, "--out-dtype", "float32"]);
    assert!(
        stderr(&o)
            .contains("kernel pairs: returned a Int tensor but the output is Float (ISA 0xc)"),
        "{}",
        stderr(&o)
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_shape_function_that_crashes_hangs_or_overflows_the_descriptor_is_named() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let v = values_npy().to_str().unwrap().to_string();
    let o = run_probe(&["--op", "crash", "--input", &v]);
    assert_eq!(o.status.code(), Some(129), "fault (docs/exit-codes.md)");
    assert_eq!(
        stderr(&o),
        "q7emu: error: build/probe.shape: the shape executable crashed with signal 11 (SIGSEGV) \
         (op crash, shape function crash_shape)\n"
    );
    let o = run_probe(&["--op", "hang", "--input", &v]);
    assert_eq!(
        stderr(&o),
        "q7emu: error: build/probe.shape: the shape executable did not answer within 5 s (op \
         hang, shape function hang_shape): it was stopped\n"
    );
    let o = run_probe(&["--op", "huge", "--input", &v]);
    assert_eq!(
        stderr(&o),
        "q7emu: error: output (from shape function huge_shape): shape [70000, 1, 1, 1, 1] \
         cannot be described: at most 8 dims of <= 65535 each, or at most 4 dims of <= \
         4294967295 each\n"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_changed_shape_executable_is_refused() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("project-changed-shape");
    let copy = dir.join("build");
    std::fs::create_dir_all(&copy).unwrap();
    for f in [
        "q7build.json",
        "ucode_lib.json",
        "probe.packed.so",
        "probe.shape",
    ] {
        std::fs::copy(probe().join("build").join(f), copy.join(f)).unwrap();
    }
    let mut bytes = std::fs::read(copy.join("probe.shape")).unwrap();
    bytes.push(0);
    std::fs::write(copy.join("probe.shape"), &bytes).unwrap();
    let o = q7emu()
        .arg("run")
        .arg(&copy)
        .args(["--op", "pairs", "--input"])
        .arg(values_npy())
        .output()
        .unwrap();
    let text = stderr(&o);
    assert!(
        text.starts_with(&format!(
            "q7emu: error: {}: not the shape executable q7build.json describes: its SHA-256 is {}",
            copy.join("probe.shape").display(),
            q7_kernel_build::metadata::sha256_hex(&bytes)
        )),
        "{text}"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn an_unknown_namespace_lists_the_ops_both_ways() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let o = run_probe(&["--op", "other::pairs", "--input", "v.npy"]);
    assert_eq!(
        stderr(&o),
        "q7emu: error: library probe has no op other::pairs; its ops: pairs \
         (probe_ops::pairs), fill (probe_ops::fill), crash (probe_ops::crash), hang \
         (probe_ops::hang), huge (probe_ops::huge)\n"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn the_testing_api_builds_projects_and_takes_outputs_from_their_shape_functions() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = probe();
    let lib = Kernel::new(dir.join("probe.cpp"))
        .shape(dir.join("shape.cpp"))
        .build(dir.join("testing-build"))
        .unwrap();
    let run = Run::new("probe_ops::pairs")
        .input(floats(&VALUES))
        .op_run(&lib)
        .unwrap();
    assert_eq!(run.output.shape, [6, 2]);
    assert_eq!(run.output.dtype.numpy_name(), "int32");
    assert_eq!(ints(&run.output), pairs_reference());
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_kernel_function_the_compute_sources_do_not_define_names_the_registration() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("project-kernel-missing");
    let shape = SHAPE.replace(
        "m.def(\"fill\", &fill_shape, \"fill_kernel\");",
        "m.def(\"fill\", &fill_shape, \"fill_kernal\");",
    );
    project(
        &dir.join("p"),
        &[("probe.cpp", COMPUTE), ("shape.cpp", &shape)],
    );
    let o = build(&dir.join("p"), "probe", "probe.cpp", "shape.cpp", "build");
    assert_eq!(o.status.code(), Some(1), "bad input");
    assert_eq!(
        stderr(&o),
        "q7emu: error: shape.cpp:32: m.def(\"fill\", &fill_shape, \"fill_kernal\"): the kernel \
         function fill_kernal(at::Tensor const&, double, long long, bool, c10::Scalar const&) is \
         not defined in the compute sources probe.cpp\n"
    );
    // Defined, but with other parameters than the op's arguments.
    let compute = COMPUTE.replace(
        "torch::Tensor pairs(const torch::Tensor &v)",
        "torch::Tensor pairs(torch::Tensor v)",
    );
    project(
        &dir.join("q"),
        &[("probe.cpp", &compute), ("shape.cpp", SHAPE)],
    );
    let o = build(&dir.join("q"), "probe", "probe.cpp", "shape.cpp", "build");
    assert_eq!(
        stderr(&o),
        "q7emu: error: shape.cpp:31: m.def(\"pairs\", &pairs_shape, \"pairs\"): the kernel \
         function pairs(at::Tensor const&) is not defined in the compute sources probe.cpp (they \
         define pairs(at::Tensor): the kernel takes the op's arguments as const torch::Tensor&, \
         const torch::Scalar&, double, int64_t and bool, examples/sdk/BUILD.md \"Projects\")\n"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn shape_file_compile_errors_show_the_compilers_first_lines() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = TempDir::new("project-shape-error");
    let shape = SHAPE.replace(
        "return torch::zeros({v.size(0), 2}, torch::kInt);",
        "return torch::zeros({v.size(0), 2}, torch::kInt) + undeclared;",
    );
    project(
        &dir.join("p"),
        &[("probe.cpp", COMPUTE), ("shape.cpp", &shape)],
    );
    let o = build(&dir.join("p"), "probe", "probe.cpp", "shape.cpp", "build");
    assert_eq!(o.status.code(), Some(3), "build failed");
    let text = stderr(&o);
    assert!(
        text.starts_with("q7emu: error: Error compiling shape.cpp:\n"),
        "{text}"
    );
    assert!(
        text.contains("shape.cpp:5:55: error: 'undeclared' was not declared in this scope")
            || text.contains("error: \u{2018}undeclared\u{2019} was not declared in this scope"),
        "{text}"
    );
    assert!(
        !dir.join("p/build/probe.shape").exists(),
        "nothing installed"
    );
}

#[test]
fn registration_errors_name_the_shape_file_and_line_before_anything_is_built() {
    // Read in step 1: no toolchain is needed, and none is looked for.
    let dir = TempDir::new("project-registrations");
    let cases: [(&str, String); 5] = [
        (
            "too many",
            SHAPE.replace(
                "m.def(\"huge\", &huge_shape, \"pairs\");",
                "m.def(\"huge\", &huge_shape, \"pairs\");\n    m.def(\"a\", &huge_shape, \"pairs\");\n    m.def(\"b\", &huge_shape, \"pairs\");\n    m.def(\"c\", &huge_shape, \"pairs\");\n    m.def(\"d\", &huge_shape, \"pairs\");\n    m.def(\"e\", &huge_shape, \"pairs\");\n    m.def(\"f\", &huge_shape, \"pairs\");",
            ),
        ),
        ("builtin", SHAPE.replace("NEURON_LIBRARY(probe_ops, m)", "NEURON_LIBRARY(builtin, m)")),
        (
            "duplicate",
            SHAPE.replace("m.def(\"hang\"", "m.def(\"crash\""),
        ),
        ("not found", SHAPE.replace("&hang_shape", "&hang_shap")),
        (
            "type",
            SHAPE.replace("torch::Tensor hang_shape(torch::Tensor v)", "torch::Tensor hang_shape(std::vector<float> v)"),
        ),
    ];
    let want = [
        "shape.cpp:41: a library has at most 10 ops, and this m.def is op 11 of \
         NEURON_LIBRARY(probe_ops, …) (shape.cpp:30)",
        "shape.cpp:30: the library namespace \"builtin\" is reserved for torch-neuronx's own \
         ops: rename it",
        "shape.cpp:34: op \"crash\" is registered twice (first at shape.cpp:33)",
        "shape.cpp:34: m.def(\"hang\", &hang_shap, …): shape function hang_shap is not declared \
         at namespace scope in the shape sources shape.cpp",
        "shape.cpp:19: shape function hang_shape (op \"hang\", shape.cpp:34): parameter 1 has \
         type `std::vector<float>`, which no op argument has (supported: torch::Tensor, const \
         torch::Tensor&, at::Tensor, torch::Scalar, const torch::Scalar&, double, int64_t, \
         bool)",
    ];
    for ((what, text), want) in cases.iter().zip(want) {
        let p = dir.join(&what.replace(' ', "-"));
        project(&p, &[("probe.cpp", COMPUTE), ("shape.cpp", text)]);
        let o = q7emu()
            .current_dir(&p)
            .args([
                "build",
                "--name",
                "probe",
                "--toolchain",
                "/nonexistent",
                "--compute",
                "probe.cpp",
                "--shape",
                "shape.cpp",
                "-o",
                "build",
            ])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{what}: bad input");
        assert_eq!(stderr(&o), format!("q7emu: error: {want}\n"), "{what}");
        assert!(!p.join("build").exists(), "{what}: nothing built");
    }
    // Two libraries in two shape files.
    let p = dir.join("two");
    project(
        &p,
        &[
            ("probe.cpp", COMPUTE),
            ("shape.cpp", SHAPE),
            (
                "more.cpp",
                "#include \"torchneuron/register.h\"\nNEURON_LIBRARY(more_ops, m) {\n}\n",
            ),
        ],
    );
    let o = q7emu()
        .current_dir(&p)
        .args([
            "build",
            "--name",
            "probe",
            "--compute",
            "probe.cpp",
            "--shape",
            "shape.cpp",
            "more.cpp",
            "-o",
            "build",
        ])
        .output()
        .unwrap();
    assert_eq!(
        stderr(&o),
        "q7emu: error: more.cpp:2: a second NEURON_LIBRARY block, \"more_ops\": a build is one \
         library, and shape.cpp:30 already registers \"probe_ops\"\n"
    );
    // The library name "builtin".
    let o = q7emu()
        .current_dir(&p)
        .args([
            "build",
            "--name",
            "builtin",
            "--compute",
            "probe.cpp",
            "--shape",
            "shape.cpp",
            "-o",
            "build",
        ])
        .output()
        .unwrap();
    assert_eq!(
        stderr(&o),
        "q7emu: error: library name \"builtin\" is reserved for torch-neuronx's own ops: rename \
         the library\n"
    );
}

/// The probe's kernels built the `--fn`/`--schema` way: no shape function.
fn fn_build() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = probe().join("fn-build");
        let o = q7emu()
            .current_dir(probe())
            .args([
                "build",
                "--name",
                "pairs",
                "--fn",
                "pairs",
                "--schema",
                "pairs(Tensor v) -> Tensor",
                "-o",
                "fn-build",
                "probe.cpp",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        out
    })
}

/// The report's lines after the output's two, but for the wall time.
fn counters(stdout: &str, skip: usize) -> Vec<String> {
    stdout
        .lines()
        .skip(skip)
        .filter(|l| !l.starts_with("wall "))
        .map(str::to_string)
        .collect()
}

#[q7_requires::needs(toolchain)]
#[test]
fn without_a_shape_function_the_output_is_what_the_kernel_returns() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let dir = fn_build();
    let out = probe().join("fn-pairs.npy");
    let o = q7emu()
        .arg("run")
        .arg(dir)
        .args(["--op", "pairs", "--input"])
        .arg(values_npy())
        .arg("--output")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "pairs(Tensor v) -> Tensor: output int32 [6, 2], 12 elements",
            "  [-2, -1, 0, 0, 0, 1, 3, 1, -1000000000, -1, 7, 1]",
            "  (the output the kernel returned: the op was dispatched a second time with it; the \
             counters are the second dispatch's)",
        ]
    );
    let t = npy::read(&out).unwrap();
    assert_eq!(t.shape, [6, 2]);
    assert_eq!(ints(&t), pairs_reference());
    // The counters are those of a dispatch with that output from the start.
    let given = q7emu()
        .arg("run")
        .arg(dir)
        .args(["--op", "pairs", "--input"])
        .arg(values_npy())
        .args(["--out-shape", "6,2", "--out-dtype", "int32"])
        .output()
        .unwrap();
    let given = String::from_utf8_lossy(&given.stdout).into_owned();
    assert_eq!(counters(&stdout, 3), counters(&given, 2));
    // A request that gives the output is held to it.
    let o = q7emu()
        .arg("run")
        .arg(dir)
        .args(["--op", "pairs", "--input"])
        .arg(values_npy())
        .args(["--out-dtype", "float32"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(129));
    assert!(stderr(&o).contains("(RETURN_MISMATCH): kernel pairs: returned a Int tensor"));
    // The testing API the same way.
    let lib = q7_testing::Library::open(dir).unwrap();
    let run = Run::new("pairs")
        .input(floats(&VALUES))
        .op_run(&lib)
        .unwrap();
    assert_eq!(run.output_from, q7_run::op::OutputFrom::KernelReturn);
    assert_eq!(run.output.shape, [6, 2]);
    assert_eq!(ints(&run.output), pairs_reference());
}

/// examples/sdk/BUILD.md "Project directories": `--project DIR` builds what the directory's
/// build.py's `custom_op.load(...)` says into `DIR/build`, `--name` replacing its name; a value
/// the reader cannot take is refused with its line before anything is built.
#[q7_requires::needs(toolchain)]
#[test]
fn a_project_directory_builds_as_its_build_script_says() {
    let tmp = TempDir::new("project-dir");
    let dir = tmp.join("probe_dir");
    let script = "import os\nfrom torch_neuronx.xla_impl import custom_op\n\ncustom_op.load(\n    \
                  name='probe_dir',\n    compute_srcs=['probe.cpp'],\n    shape_srcs=['shape.cpp'],\n    \
                  build_directory=os.getcwd(),\n)\n";
    project(
        &dir,
        &[
            ("probe.cpp", COMPUTE),
            ("shape.cpp", SHAPE),
            ("build.py", script),
        ],
    );
    // An expression where a list is needed: nothing is built, the toolchain is not looked for.
    let bad = dir.join("bad");
    project(
        &bad,
        &[(
            "build.py",
            script
                .replace("['probe.cpp']", "sorted(glob.glob('*.cpp'))")
                .as_str(),
        )],
    );
    let o = q7emu()
        .args(["build", "--project"])
        .arg(&bad)
        .args(["--toolchain", "/nonexistent"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "bad input");
    assert_eq!(
        stderr(&o),
        format!(
            "q7emu: error: {}:6: compute_srcs=sorted(glob.glob('*.cpp')): expected a list of \
             strings; q7emu reads literals only, not expressions\n",
            bad.join("build.py").display()
        )
    );
    assert!(!bad.join("build").exists());
    if !q7_testing::toolchain_installed() {
        return;
    }
    let o = q7emu()
        .current_dir(&dir)
        .args(["build", "--project", "."])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "./build/probe_dir.packed.so\n./build/probe_dir.shape\n"
    );
    let info = |out: &str| {
        let text = std::fs::read_to_string(dir.join(out).join("q7build.json")).unwrap();
        BuildInfo::from_json(&text).unwrap()
    };
    let info = info("build");
    assert_eq!(info.library, "probe_dir");
    assert_eq!(info.namespace.as_deref(), Some("probe_ops"));
    let o = q7emu()
        .current_dir(&dir)
        .args(["build", "--project", ".", "--name", "renamed", "-o", "out"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.join("out/q7build.json")).unwrap();
    assert_eq!(BuildInfo::from_json(&text).unwrap().library, "renamed");
}

/// The JSON report's `output.from` and `output.shape_function` of `q7emu run BUILD --op OP
/// --input v.npy --json` with `args`.
fn output_from(build: &Path, op: &str, args: &[&str]) -> (String, serde_json::Value) {
    let o = q7emu()
        .arg("run")
        .arg(build)
        .args(["--op", op, "--input"])
        .arg(values_npy())
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    (
        j["output"]["from"].as_str().unwrap().to_string(),
        j["output"]["shape_function"].clone(),
    )
}

/// docs/cli.md "`q7emu run`": the JSON report names where the output's dtype and shape came
/// from, one value for each of the four sources.
#[q7_requires::needs(toolchain)]
#[test]
fn the_json_report_names_where_the_output_came_from() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let shape_fn = SHAPE
        .lines()
        .find(|l| l.contains("m.def(\"pairs\""))
        .and_then(|l| l.split('&').nth(1))
        .and_then(|l| l.split(',').next())
        .expect("the probe registers pairs")
        .to_string();
    let project = probe().join("build");
    assert_eq!(
        output_from(&project, "pairs", &[]),
        ("shape_function".to_string(), serde_json::json!(shape_fn))
    );
    let given = ["--out-shape", "6,2", "--out-dtype", "int32"];
    assert_eq!(
        output_from(&project, "pairs", &given),
        ("request".to_string(), serde_json::Value::Null)
    );
    assert_eq!(
        output_from(fn_build(), "pairs", &[]),
        ("kernel_return".to_string(), serde_json::Value::Null)
    );
    // An --fn build's ReLU returns a tensor like its input: the default output.
    let relu = support::example("relu_stream").join("build");
    assert_eq!(
        output_from(&relu, "relu_forward", &[]),
        ("default".to_string(), serde_json::Value::Null)
    );
}

#[test]
fn a_project_without_the_host_compiler_says_so_before_compiling() {
    // Every device tool "present" (empty files): the host compiler is looked for on PATH next.
    let dir = TempDir::new("project-no-host-cxx");
    let prefix = support::fake_toolchain(&dir, None);
    project(
        &dir.join("p"),
        &[("probe.cpp", COMPUTE), ("shape.cpp", SHAPE)],
    );
    let empty = dir.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let o = q7emu()
        .current_dir(dir.join("p"))
        .env("PATH", &empty)
        .arg("build")
        .arg("--toolchain")
        .arg(&prefix)
        .args([
            "--name",
            "probe",
            "--compute",
            "probe.cpp",
            "--shape",
            "shape.cpp",
            "-o",
            "build",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "build failed: a tool is missing");
    assert_eq!(
        stderr(&o),
        "q7emu: error: Could not find the host C++ compiler g++ on PATH: a project's shape \
         sources are compiled for the host (install g++; scripts/setup-toolchain.sh does)\n"
    );
    assert!(!dir.join("p/build").exists());
}

/// A shape file whose shape functions leave processes behind: `spawn` starts a background
/// child in its own process group and answers at once; `escape` starts one in a new session
/// (outside the group), which keeps the answer's pipe open.
const SPAWNING_SHAPE: &str = r#"#include <torch/torch.h>
#include "torchneuron/register.h"
#include <cstdlib>
#include <unistd.h>

torch::Tensor spawn_shape(torch::Tensor v) {
    if (std::system("sleep 600 & echo $! > spawned.pid") != 0)
        return torch::zeros({1}, torch::kInt);
    return torch::zeros({v.size(0), 2}, torch::kInt);
}

// The child writes its pid once it is in its new session; the answer waits for that.
torch::Tensor escape_shape(torch::Tensor v) {
    if (std::system("setsid sh -c 'echo $$ > escaped.tmp && mv escaped.tmp escaped.pid && "
                    "exec sleep 600' &") != 0)
        return torch::zeros({1}, torch::kInt);
    for (int i = 0; i < 1000 && access("escaped.pid", F_OK) != 0; i++)
        usleep(10000);
    return torch::zeros({v.size(0), 2}, torch::kInt);
}

NEURON_LIBRARY(spawning_ops, m) {
    m.def("spawn", &spawn_shape, "pairs");
    m.def("escape", &escape_shape, "pairs");
}
"#;

/// `cmd`'s output; a run still going after 120 s (far past the shape executable's 5 s
/// deadline) is killed and fails the test: a hang, not a slow run.
fn output_within_two_minutes(cmd: &mut std::process::Command) -> Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("q7emu run still waits for the shape executable after 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Whether process `pid` (read from `file`) is alive: it exists and is not a zombie (a killed
/// orphan waits as one until the machine's init reaps it).
fn alive(file: &Path) -> bool {
    let pid = std::fs::read_to_string(file).unwrap();
    match std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())) {
        // "pid (comm) state …": the state follows the command's closing parenthesis.
        Ok(stat) => !stat[stat.rfind(')').unwrap() + 1..]
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_shape_function_cannot_hold_a_run_past_its_answer_or_its_deadline() {
    if !q7_testing::toolchain_installed() {
        return;
    }
    let tmp = TempDir::new("project-spawning-shape");
    let dir = tmp.join("");
    project(&dir, &[("k.cpp", COMPUTE), ("shape.cpp", SPAWNING_SHAPE)]);
    let o = build(&dir, "spawning", "k.cpp", "shape.cpp", "build");
    assert!(o.status.success(), "{}", stderr(&o));
    let v = dir.join("v.npy");
    npy::write(&v, &floats(&VALUES)).unwrap();
    let run = |op: &str| {
        output_within_two_minutes(
            q7emu()
                .current_dir(&dir)
                .args(["run", "build", "--op", op, "--input"])
                .arg(&v),
        )
    };
    // The answer is taken and the child the shape executable left running is killed with it:
    // its process group goes as soon as it has answered (build/shape.rs).
    let o = run("spawn");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .starts_with("spawn(Tensor v) -> Tensor: output int32 [6, 2]"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(
        !alive(&dir.join("spawned.pid")),
        "the background child outlived the request"
    );
    // A child in a session of its own holds the output pipe: the wait ends at the 5 s deadline.
    let o = run("escape");
    let pid = dir.join("escaped.pid");
    if alive(&pid) {
        let pid: libc::pid_t = std::fs::read_to_string(&pid)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // SAFETY: a signal to the test's own leftover `sleep` (the shape executable started it
        // in a session of its own, where no group kill reaches).
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert_eq!(
        stderr(&o),
        "q7emu: error: build/spawning.shape: the shape executable did not answer within 5 s (op \
         escape, shape function escape_shape): it was stopped\n"
    );
}
