//! The kernel examples of `examples/kernels` (its README.md lists them), as specifications:
//!
//! - each example runs as its README's `q7emu run` commands say and gives, bit for bit, what
//!   its reference below computes in the kernel's own arithmetic — or, for the math library's
//!   functions, a result within the function's documented error bound of the exact one
//!   (examples/sdk/rt/math/README.md "Functions"), as numpy's float64 result would be;
//! - the committed `.npy` files are what their generators below make (fixed seeds);
//! - each committed build is what the README's `q7emu build` command makes, byte for byte
//!   (with the toolchain);
//! - the ReLU variants cost the cycles examples/kernels/README.md tabulates, in the order of
//!   AWS's tutorial: element accessor ≫ TCM > 8 cores with TCM (per core), with the stream
//!   accessors between the element accessor and TCM;
//! - a README run that stops with a runtime error (a coherence violation) stops with the error
//!   the README shows;
//! - every README run is checked (`--check`, docs/checked-mode.md), with fresh allocations
//!   poisoned (`--poison nan`), and has no finding;
//! - each README `q7emu run` command, run in-process through `q7_testing`, matches its
//!   snapshot `snapshots/all__examples__<example>-<op>.snap` (output digest, samples, statistics,
//!   per-core instructions and cycles);
//! - the repository README's main job (also shown whole by docs/run-report.md) and its
//!   walk-through ("Your first kernel": build, run, trace) run as written, and its snapshot
//!   step shows the worked example of `examples/snapshot-test` as it is.
//!
//! `Q7EMU_UPDATE_EXAMPLES=1` rewrites the committed inputs and builds instead of failing on them.

use crate::support;

use support::{q7emu, success};

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use q7_run::op::{self, Library, OpRequest, OpRun};
use q7_runtime::firmware::CALL_BUDGET;
use q7_tensor::dtype::Dtype;
use q7_tensor::{npy, HostTensor};
use q7_testing::{Run, Summary};
use q7_tests::doc::{fenced, first_fenced, q7emu_commands, section, words};
use q7_tests::{Rng, TempDir};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The example directories under `examples/kernels`, in the order its README lists them.
const EXAMPLES: [&str; 9] = [
    "vector_add",
    "relu_element",
    "relu_stream",
    "relu_tcm",
    "relu_multicore",
    "scaled_transpose",
    "relu_inplace",
    "elementwise_math",
    "elementwise",
];

/// The ReLU variants of the cycle comparison, slowest first: AWS's tutorial's three
/// (element accessor, TCM, eight cores with TCM) and the stream accessors between the first two.
const RELU_VARIANTS: [&str; 4] = ["relu_element", "relu_stream", "relu_tcm", "relu_multicore"];
/// The ReLU variants that are AWS-style projects (a compute file and `shape.cpp`).
const RELU_PROJECTS: [&str; 3] = ["relu_element", "relu_tcm", "relu_multicore"];

/// The README runs that stop with a runtime error, by example and op, and the error.
const STOPPED: [(&str, &str, &str); 1] = [(
    "relu_inplace",
    "relu_inplace",
    "core 0: kernel aborted with runtime error 7 (ABORT): kernel relu_inplace: argument 0 (t_in): \
     a write stream opened while a read stream is open on it: possibly incoherent access \
     (coherence policy COHERENT)",
)];

/// The runtime error the README run of `op` of `example` stops with, if it is one that does.
fn stopped(example: &str, op: &str) -> Option<&'static str> {
    STOPPED
        .iter()
        .find(|s| s.0 == example && s.1 == op)
        .map(|s| s.2)
}

/// The float32 NaN every soft-float operation returns (examples/sdk/rt/helpers/README.md,
/// "NaN policy").
const DEFAULT_NAN: u32 = 0x7fc0_0000;

fn kernels() -> PathBuf {
    Path::new(ROOT).join("examples/kernels")
}

fn updating() -> bool {
    std::env::var_os("Q7EMU_UPDATE_EXAMPLES").is_some_and(|v| !v.is_empty() && v != "0")
}

fn readme(example: &str) -> String {
    std::fs::read_to_string(kernels().join(example).join("README.md")).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Commands as the READMEs write them.

/// The values of every `flag` in `args`.
fn values<'a>(args: &'a [String], flag: &str) -> Vec<&'a str> {
    args.windows(2)
        .filter(|w| w[0] == flag)
        .map(|w| w[1].as_str())
        .collect()
}

/// The lines of every ```text block of `text`.
fn text_blocks(text: &str) -> Vec<Vec<String>> {
    fenced(text, "text")
        .iter()
        .map(|b| b.lines().map(str::to_string).collect())
        .collect()
}

/// Whether `shown` is what `printed` says, line for line, but for the host's wall time.
fn same_but_wall(shown: &[String], printed: &str) -> bool {
    let printed: Vec<&str> = printed.lines().collect();
    let same = |s: &[String], p: &[&str]| {
        s.len() == p.len()
            && s.iter()
                .zip(p)
                .all(|(s, p)| s == p || (s.starts_with("wall ") && p.starts_with("wall ")))
    };
    match shown.iter().position(|l| l == "…") {
        // An elided block: what it shows before the "…" begins the output, what after ends it.
        Some(at) => {
            let (head, tail) = (&shown[..at], &shown[at + 1..]);
            head.len() + tail.len() < printed.len()
                && same(head, &printed[..head.len()])
                && same(tail, &printed[printed.len() - tail.len()..])
        }
        None => same(shown, &printed),
    }
}

// ---------------------------------------------------------------------------------------------
// Tensors and references.

fn float32() -> Dtype {
    Dtype::from_name("float32").unwrap()
}

fn tensor(shape: &[u64], v: &[f32]) -> HostTensor {
    assert_eq!(shape.iter().product::<u64>(), v.len() as u64);
    HostTensor {
        dtype: float32(),
        shape: shape.to_vec(),
        data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    }
}

fn floats(t: &HostTensor) -> Vec<f32> {
    assert_eq!(t.dtype, float32(), "a float32 tensor");
    t.data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A soft-float result: any NaN is the default NaN.
fn soft(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(DEFAULT_NAN)
    } else {
        x
    }
}

/// `x > 0.0 ? y : 0.0`, the tutorial's ReLU test (false for NaN and both zeros).
fn relu_select(x: f32, y: f32) -> f32 {
    if x > 0.0 {
        y
    } else {
        0.0
    }
}

/// A Scalar or float argument as the kernel reads it with `to<float>()`: an integer text is a
/// 64-bit integer, anything else a double, then converted (round to nearest even).
fn scalar_f32(text: &str) -> f32 {
    text.parse::<i64>()
        .map(|i| i as f32)
        .unwrap_or_else(|_| text.parse::<f64>().unwrap() as f32)
}

/// What op `op` computes from `inputs` and `scalars` (as given to `q7emu run`), in the kernel's
/// own arithmetic: float32 operations rounded to nearest even, NaN results the default NaN.
fn reference(op: &str, inputs: &[HostTensor], scalars: &[String]) -> HostTensor {
    if op == "clamp_add" {
        return clamp_add(inputs, scalars);
    }
    let x = floats(&inputs[0]);
    let shape = &inputs[0].shape;
    match op {
        // vector_add: ov[i] = av[i] + bv[i]; add_bulk: torch::add(a, b), the same sum.
        "vector_add" | "add_bulk" => {
            let b = floats(&inputs[1]);
            let v: Vec<f32> = x.iter().zip(&b).map(|(a, b)| soft(a + b)).collect();
            tensor(shape, &v)
        }
        // relu_forward, and relu_inplace_quiet in place: x > 0.0 ? x : 0.0.
        "relu_forward" | "relu_inplace_quiet" => {
            let v: Vec<f32> = x.iter().map(|&x| relu_select(x, x)).collect();
            tensor(shape, &v)
        }
        // relu_backward(grad, x): x > 0.0 ? grad : 0.0.
        "relu_backward" => {
            let (grad, input) = (&x, floats(&inputs[1]));
            let v: Vec<f32> = input
                .iter()
                .zip(grad)
                .map(|(&i, &g)| relu_select(i, g))
                .collect();
            tensor(&inputs[1].shape, &v)
        }
        // scaled_transpose(x, scale, bias): out = float(bias), then out[c][r] += x[r][c] · scale.
        "scaled_transpose" => {
            let (rows, cols) = (shape[0] as usize, shape[1] as usize);
            let (s, bias) = (scalar_f32(&scalars[0]), scalars[1].parse::<i64>().unwrap());
            let mut v = vec![bias as f32; rows * cols];
            for r in 0..rows {
                for c in 0..cols {
                    v[c * rows + r] = soft(v[c * rows + r] + soft(x[r * cols + c] * s));
                }
            }
            tensor(&[shape[1], shape[0]], &v)
        }
        // The README's first kernel, affine(x, a, b): float(a) · x[i] + float(b).
        "affine" => {
            let (a, b) = (scalar_f32(&scalars[0]), scalar_f32(&scalars[1]));
            let v: Vec<f32> = x.iter().map(|&x| soft(soft(a * x) + b)).collect();
            tensor(shape, &v)
        }
        other => panic!("no reference for op {other}"),
    }
}

/// elementwise's clamp_add(x, y, lo, hi) = torch::clamp(torch::add(x, y, 2), lo, hi) in the
/// ops' arithmetic (docs/sdk-ops.md): float32 x + 2·y (product and sum rounded, NaN the
/// default NaN); float16 the same in float32, rounded once to float16, then clamped by bounds
/// rounded to float16; int32 wrapping; clamp as min(max(v, lo), hi), a NaN staying NaN.
fn clamp_add(inputs: &[HostTensor], scalars: &[String]) -> HostTensor {
    let (x, y) = (&inputs[0], &inputs[1]);
    assert_eq!((x.dtype, &x.shape), (y.dtype, &y.shape));
    let clamp = |v: f32, lo: f32, hi: f32| {
        let m = if v < lo { lo } else { v };
        if hi < m {
            hi
        } else {
            m
        }
    };
    let (lo, hi) = (scalar_f32(&scalars[0]), scalar_f32(&scalars[1]));
    let data: Vec<u8> = match x.dtype.numpy_name() {
        "float32" => floats(x)
            .iter()
            .zip(floats(y))
            .flat_map(|(&a, b)| clamp(soft(a + soft(2.0 * b)), lo, hi).to_le_bytes())
            .collect(),
        "float16" => {
            let h = |t: &HostTensor| -> Vec<f32> {
                t.data
                    .chunks_exact(2)
                    .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
                    .collect()
            };
            let r = |v: f32| half::f16::from_f32(v).to_f32();
            h(x).iter()
                .zip(h(y))
                .flat_map(|(&a, b)| {
                    let v = r(soft(a + soft(2.0 * b)));
                    half::f16::from_f32(clamp(v, r(lo), r(hi))).to_le_bytes()
                })
                .collect()
        }
        "int32" => {
            let i = |t: &HostTensor| -> Vec<i32> {
                t.data
                    .chunks_exact(4)
                    .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
                    .collect()
            };
            let (lo, hi): (i32, i32) = (scalars[0].parse().unwrap(), scalars[1].parse().unwrap());
            i(x).iter()
                .zip(i(y))
                .flat_map(|(&a, b)| {
                    a.wrapping_add(b.wrapping_mul(2))
                        .max(lo)
                        .min(hi)
                        .to_le_bytes()
                })
                .collect()
        }
        other => panic!("clamp_add: no reference for {other}"),
    };
    HostTensor {
        dtype: x.dtype,
        shape: x.shape.clone(),
        data,
    }
}

/// Panics naming the first element where `got` differs from `want` in any bit.
fn assert_bits_equal(got: &HostTensor, want: &HostTensor, what: &str) {
    assert_eq!(
        (got.dtype, &got.shape),
        (want.dtype, &want.shape),
        "{what}: dtype and shape"
    );
    if got.dtype != float32() {
        let size = usize::from(got.dtype.bytes);
        if let Some(i) = (0..got.data.len() / size)
            .find(|i| got.data[i * size..][..size] != want.data[i * size..][..size])
        {
            panic!(
                "{what}: element {i} is {:02x?}, the reference gives {:02x?}",
                &got.data[i * size..][..size],
                &want.data[i * size..][..size]
            );
        }
        return;
    }
    if let Some((i, (g, w))) = floats(got)
        .iter()
        .zip(floats(want))
        .enumerate()
        .find(|(_, (g, w))| g.to_bits() != w.to_bits())
    {
        panic!(
            "{what}: element {i} is {g:e} ({:#010x}), the reference gives {w:e} ({:#010x})",
            g.to_bits(),
            w.to_bits()
        );
    }
}

/// A math library function's name and its float64 counterpart.
type MathFn = (&'static str, fn(f64) -> f64);

/// The math library function an op of `elementwise_math` applies, with its float64 counterpart
/// (what numpy computes on the input converted to float64).
fn math_op(op: &str) -> Option<MathFn> {
    match op {
        "exp_each" => Some(("expf", f64::exp)),
        "log_each" => Some(("logf", f64::ln)),
        "sin_each" => Some(("sinf", f64::sin)),
        _ => None,
    }
}

/// The error bound of math library function `name`, in ulps: its row of the table "Functions"
/// of examples/sdk/rt/math/README.md.
fn math_bound(name: &str) -> f64 {
    let text = q7_tests::doc::read("examples/sdk/rt/math/README.md");
    let rows = q7_tests::doc::table_after(&text, "## Functions");
    let row = rows
        .iter()
        .find(|r| r[0] == format!("`{name}`"))
        .unwrap_or_else(|| panic!("examples/sdk/rt/math/README.md has no row for {name}"));
    row[1].parse().unwrap()
}

/// The error of float32 `got` against the exact result `want` (a float64), in ulps of `want`'s
/// binade (2^-149 below 2^-126); `None` when they differ in class: a NaN against a number, an
/// infinity where `want` does not round to it, a zero of the other sign against an exact zero.
fn ulp_error(got: f32, want: f64) -> Option<f64> {
    if want.is_nan() || got.is_nan() {
        return (want.is_nan() && got.is_nan()).then_some(0.0);
    }
    if got.is_infinite() {
        return (want as f32 == got).then_some(0.0);
    }
    if want == 0.0 {
        return (got == 0.0 && got.is_sign_negative() == want.is_sign_negative()).then_some(0.0);
    }
    let e = want.abs().log2().floor().clamp(-126.0, 127.0);
    Some((f64::from(got) - want).abs() / 2f64.powf(e - 23.0))
}

/// Checks an example's output against its reference: the math ops within their documented
/// bound of the float64 result, every other op bit for bit.
fn check_output(op: &str, got: &HostTensor, inputs: &[HostTensor], scalars: &[String], what: &str) {
    let Some((name, exact)) = math_op(op) else {
        return assert_bits_equal(got, &reference(op, inputs, scalars), what);
    };
    let bound = math_bound(name);
    assert_eq!(
        (&got.shape, got.dtype),
        (&inputs[0].shape, float32()),
        "{what}"
    );
    for (i, (g, x)) in floats(got).iter().zip(floats(&inputs[0])).enumerate() {
        let want = exact(f64::from(x));
        match ulp_error(*g, want) {
            Some(e) if e <= bound => {}
            e => panic!(
                "{what}: element {i}, {name}({x:e} = {:#010x}) is {g:e} ({:#010x}), the exact \
                 result {want:e}: error {e:?} ulps, bound {bound}",
                x.to_bits(),
                g.to_bits()
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The committed inputs.

/// `n` floats uniform in [-1, 1) on the 2^-23 grid, from SplitMix64 seeded with `seed`.
fn uniform(seed: u64, n: usize) -> Vec<f32> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| (r.next_u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0)
        .collect()
}

/// `n` finite floats of random sign and mantissa with exponents in [-20, 20].
fn wide(seed: u64, n: usize) -> Vec<f32> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| {
            let bits = r.next_u32() & 0x807f_ffff;
            f32::from_bits(bits | (107 + r.below(41)) << 23)
        })
        .collect()
}

/// The IEEE edge values a ReLU input holds in its middle: both zeros, both infinities, NaNs,
/// the smallest subnormals, the largest finite values.
const RELU_EDGES: [u32; 10] = [
    0x8000_0000,
    0x0000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_1234,
    0x0000_0001,
    0x8000_0001,
    0x7f7f_ffff,
    0xff7f_ffff,
];

/// Edge pairs of vector_add's inputs: infinities (one sum a NaN), NaN operands with payloads,
/// signed zeros, overflow, subnormal sums, and ties rounding to even either way.
const ADD_EDGES: [(u32, u32); 10] = [
    (0x7f80_0000, 0x3f80_0000),
    (0xff80_0000, 0xff80_0000),
    (0x7f80_0000, 0xff80_0000),
    (0x7fc0_1234, 0x3f80_0000),
    (0x8000_0000, 0x8000_0000),
    (0x8000_0000, 0x0000_0000),
    (0x7f7f_ffff, 0x7f7f_ffff),
    (0x0000_0001, 0x0000_0001),
    (0x3f80_0000, 0x3380_0000),
    (0x3f80_0001, 0x3380_0000),
];

fn with_edges(mut v: Vec<f32>, edges: impl IntoIterator<Item = u32>) -> Vec<f32> {
    let mid = v.len() / 2;
    for (i, e) in edges.into_iter().enumerate() {
        v[mid + i] = f32::from_bits(e);
    }
    v
}

/// The edge values in the middle of the math example's input: both zeros, both infinities,
/// NaNs, the smallest subnormal, the largest finite value, 1, expf's overflow threshold
/// (88.7228394 overflows, the float before it does not), expf's total underflow (-104), the
/// float nearest pi and a large argument for sinf's reduction (1e30).
const MATH_EDGES: [u32; 14] = [
    0x0000_0000,
    0x8000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_1234,
    0x0000_0001,
    0x7f7f_ffff,
    0x3f80_0000,
    0x42b1_7217,
    0x42b1_7218,
    0xc2d0_0000,
    0x4049_0fdb,
    0x7149_f2ca,
];

/// The math example's input: 1024 float32, half uniform in [-10, 10), half of random sign and
/// mantissa with exponents in [-20, 20], the edges in the middle.
fn math_input() -> HostTensor {
    let mut v: Vec<f32> = uniform(0x5eed_0008, 512).iter().map(|x| x * 10.0).collect();
    v.extend(wide(0x5eed_0009, 512));
    tensor(&[1024], &with_edges(v, MATH_EDGES))
}

/// elementwise's inputs, 3×500 (1500 elements: two whole 512-element chunks of the ops and a
/// partial one) of `dtype` ("float32", "float16", "int32"), from `seed`: floats uniform in
/// [-4, 4) with, in the middle of the second (`second`), NaN, ±∞, -0 and a value past the
/// clamp's bounds; integers in [-2000, 2000] with the int32 extremes, whose sums wrap.
fn elementwise_input(dtype: &str, seed: u64, second: bool) -> HostTensor {
    let shape = [3u64, 500];
    let n = 1500;
    let data: Vec<u8> = match dtype {
        "int32" => {
            let mut r = Rng(seed);
            let mut v: Vec<i32> = (0..n).map(|_| r.below(4001) as i32 - 2000).collect();
            let edges = [i32::MAX, i32::MIN, 1 << 30, -(1 << 30), 0];
            v[n / 2..n / 2 + 5].copy_from_slice(&edges);
            v.iter().flat_map(|i| i.to_le_bytes()).collect()
        }
        _ => {
            let mut v: Vec<f32> = uniform(seed, n).iter().map(|x| x * 4.0).collect();
            if second {
                let edges = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 1e6];
                v[n / 2..n / 2 + 5].copy_from_slice(&edges);
            }
            if dtype == "float16" {
                v.iter()
                    .flat_map(|&x| half::f16::from_f32(x).to_le_bytes())
                    .collect()
            } else {
                v.iter().flat_map(|x| x.to_le_bytes()).collect()
            }
        }
    };
    HostTensor {
        dtype: Dtype::from_name(dtype).unwrap(),
        shape: shape.to_vec(),
        data,
    }
}

/// The ReLU examples' input: 32×4096 float32 (an element count divisible by 8).
fn relu_input() -> HostTensor {
    tensor(
        &[32, 4096],
        &with_edges(uniform(0x5eed_0001, 32 * 4096), RELU_EDGES),
    )
}

/// Every committed `.npy` file, by its path under examples/kernels, and what it holds.
fn committed_tensors() -> Vec<(&'static str, HostTensor)> {
    let input = relu_input();
    let expected = reference("relu_forward", std::slice::from_ref(&input), &[]);
    let add = |second: bool| {
        let seed = if second { 0x5eed_0003 } else { 0x5eed_0002 };
        let edges = ADD_EDGES.map(|(a, b)| if second { b } else { a });
        tensor(&[1024], &with_edges(wide(seed, 1024), edges))
    };
    vec![
        ("relu_multicore/input.npy", input),
        ("relu_multicore/expected.npy", expected),
        ("vector_add/a.npy", add(false)),
        ("vector_add/b.npy", add(true)),
        (
            "relu_element/grad.npy",
            tensor(&[16, 64], &uniform(0x5eed_0004, 16 * 64)),
        ),
        (
            "relu_element/x.npy",
            tensor(
                &[16, 64],
                &with_edges(uniform(0x5eed_0005, 16 * 64), RELU_EDGES),
            ),
        ),
        ("elementwise_math/x.npy", math_input()),
        (
            "elementwise/x.npy",
            elementwise_input("float32", 0x5eed_0010, false),
        ),
        (
            "elementwise/y.npy",
            elementwise_input("float32", 0x5eed_0011, true),
        ),
        (
            "elementwise/xh.npy",
            elementwise_input("float16", 0x5eed_0012, false),
        ),
        (
            "elementwise/yh.npy",
            elementwise_input("float16", 0x5eed_0013, true),
        ),
        (
            "elementwise/xi.npy",
            elementwise_input("int32", 0x5eed_0014, false),
        ),
        (
            "elementwise/yi.npy",
            elementwise_input("int32", 0x5eed_0015, true),
        ),
        (
            "scaled_transpose/x.npy",
            tensor(
                &[24, 40],
                &uniform(0x5eed_0006, 24 * 40)
                    .iter()
                    .map(|x| x * 4.0)
                    .collect::<Vec<_>>(),
            ),
        ),
    ]
}

#[test]
fn committed_tensors_are_their_generators_output() {
    for (path, t) in committed_tensors() {
        let mut bytes = Vec::new();
        npy::to_writer(&mut bytes, &t).unwrap();
        let file = kernels().join(path);
        if updating() {
            std::fs::write(&file, &bytes).unwrap();
        }
        let committed = std::fs::read(&file).unwrap_or_default();
        assert!(
            committed == bytes,
            "examples/kernels/{path} is not its generator's output ({} vs {} bytes): run \
             Q7EMU_UPDATE_EXAMPLES=1 cargo test -p q7-host --test all examples:: and commit it",
            committed.len(),
            bytes.len()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Running the examples.

#[test]
fn each_example_runs_as_its_readme_says_and_matches_its_reference() {
    let dir = TempDir::new("examples-run");
    for example in EXAMPLES {
        let text = readme(example);
        let runs = q7emu_commands(&text, "run");
        let mut outputs = Vec::new();
        assert!(!runs.is_empty(), "{example}/README.md has no q7emu run");
        for (n, args) in runs.iter().enumerate() {
            assert_eq!(
                args[1],
                format!("examples/kernels/{example}/build"),
                "{example}/README.md runs its own build"
            );
            let out = dir.join(&format!("{example}-{n}.npy"));
            let op = values(args, "--op")[0];
            // Every run is checked, with fresh allocations poisoned (docs/checked-mode.md): a
            // correct example has no finding (exit 0, not 132) and reads no poison, so it
            // prints what its README shows, cycle counts included, and computes its reference.
            if let Some(error) = stopped(example, op) {
                let o = q7emu()
                    .current_dir(ROOT)
                    .args(args)
                    .args(["--check", "--poison", "nan"])
                    .output()
                    .unwrap();
                let stderr = String::from_utf8(o.stderr).unwrap();
                // docs/exit-codes.md: a runtime error is 129.
                assert_eq!(o.status.code(), Some(129), "{stderr}");
                assert_eq!(stderr, format!("q7emu: error: {error}\n"));
                outputs.push(stderr);
                continue;
            }
            let printed = success(
                q7emu()
                    .current_dir(ROOT)
                    .args(args)
                    .args(["--check", "--poison", "nan"])
                    .arg("--output")
                    .arg(&out)
                    .output()
                    .unwrap(),
                &format!("q7emu {}", args.join(" ")),
            );
            assert!(printed.starts_with(&format!("{op}(")), "{printed}");
            let inputs: Vec<HostTensor> = values(args, "--input")
                .iter()
                .map(|p| npy::read(&Path::new(ROOT).join(p)).unwrap())
                .collect();
            let scalars: Vec<String> = values(args, "--scalar")
                .iter()
                .map(|s| s.to_string())
                .collect();
            check_output(
                op,
                &npy::read(&out).unwrap(),
                &inputs,
                &scalars,
                &format!("{example}: q7emu {}", args.join(" ")),
            );
            outputs.push(printed);
        }
        // Each output the README shows is a run's, but for the host's wall time.
        for shown in text_blocks(&text) {
            assert!(
                outputs.iter().any(|o| same_but_wall(&shown, o)),
                "{example}/README.md shows an output no run prints:\n{}\nthe runs print:\n{}",
                shown.join("\n"),
                outputs.join("\n")
            );
        }
    }
}

/// One `q7emu run` command of an example's README, run in-process.
struct ReadmeRun {
    example: &'static str,
    op: String,
    /// The `--input` paths, and what they hold.
    inputs: Vec<String>,
    tensors: Vec<HostTensor>,
    scalars: Vec<String>,
    /// The run as `q7_testing::Run` gives it.
    invocation: Run,
    run: OpRun,
}

/// The README runs that stop with a runtime error: example, invocation, error.
type StoppedRun = (&'static str, Run, &'static str);

/// Every example README's `q7emu run` commands, run once through `q7_testing::Run`
/// with the README's inputs, scalars and output shape and dtype (shared by the tests that
/// need them: the 442-million-cycle element-accessor ReLU is among them).
fn readme_runs() -> &'static [ReadmeRun] {
    &all_readme_runs().0
}

/// The README runs that stop with a runtime error ([`STOPPED`]), checked to stop with it.
fn stopped_readme_runs() -> &'static [StoppedRun] {
    &all_readme_runs().1
}

fn all_readme_runs() -> &'static (Vec<ReadmeRun>, Vec<StoppedRun>) {
    static RUNS: OnceLock<(Vec<ReadmeRun>, Vec<StoppedRun>)> = OnceLock::new();
    RUNS.get_or_init(|| {
        let mut runs = Vec::new();
        let mut stopped_runs = Vec::new();
        for example in EXAMPLES {
            let lib = Library::open(&kernels().join(example).join("build")).unwrap();
            for args in q7emu_commands(&readme(example), "run") {
                let op = values(&args, "--op")[0].to_string();
                let mut invocation = Run::new(&op);
                let inputs: Vec<String> = values(&args, "--input")
                    .iter()
                    .map(|p| p.to_string())
                    .collect();
                let tensors: Vec<HostTensor> = inputs
                    .iter()
                    .map(|p| npy::read(&Path::new(ROOT).join(p)).unwrap())
                    .collect();
                for t in &tensors {
                    invocation = invocation.input(t.clone());
                }
                let scalars: Vec<String> = values(&args, "--scalar")
                    .iter()
                    .map(|v| v.to_string())
                    .collect();
                for v in &scalars {
                    invocation = invocation.scalar(v);
                }
                if let Some(shape) = values(&args, "--out-shape").first() {
                    let dims: Vec<u64> = shape.split(',').map(|d| d.parse().unwrap()).collect();
                    invocation = invocation.output_shape(&dims);
                }
                if let Some(dtype) = values(&args, "--out-dtype").first() {
                    invocation = invocation.output_dtype(Dtype::from_name(dtype).unwrap());
                }
                if let Some(error) = stopped(example, &op) {
                    let e = invocation.op_run(&lib).err();
                    assert_eq!(
                        e.map(|e| e.to_string()).as_deref(),
                        Some(error),
                        "{example} {op}"
                    );
                    stopped_runs.push((example, invocation, error));
                    continue;
                }
                let run = invocation
                    .op_run(&lib)
                    .unwrap_or_else(|e| panic!("{example}: q7emu {}: {e}", args.join(" ")));
                runs.push(ReadmeRun {
                    example,
                    op,
                    inputs,
                    tensors,
                    scalars,
                    invocation,
                    run,
                });
            }
        }
        (runs, stopped_runs)
    })
}

/// A run's report without what depends on the host (its wall time and MIPS, and what tier 2
/// compiled, which a kept-loaded library compiles once for all its calls).
fn device_report(run: &OpRun) -> serde_json::Value {
    let mut report = run.json();
    let fields = report.as_object_mut().expect("the report is an object");
    fields.remove("wall_seconds");
    fields.remove("mips");
    fields.remove("jit");
    report
}

#[test]
fn a_library_kept_loaded_gives_every_call_the_outcome_of_a_fresh_run() {
    // docs/python.md "Calls per second": a session loads the library once and starts each call
    // from the device as it was right after the load, so each call gives what a fresh run of
    // `q7emu run` gives — output, every core's counters, console, errors — whatever came
    // before it. Each README run of an example, in a session of its library, then the runs of
    // fewer than 20 M cycles again in reverse order (a call after calls of other ops and of
    // itself), then the runs that stop with an error, then the first run once more.
    for example in EXAMPLES {
        let lib = Library::open(&kernels().join(example).join("build")).unwrap();
        let fresh: Vec<&ReadmeRun> = readme_runs()
            .iter()
            .filter(|r| r.example == example)
            .collect();
        let short = |r: &&&ReadmeRun| r.run.cores.iter().all(|c| c.stats.cycles < 20_000_000);
        let mut session = None;
        let again = fresh.iter().rev().filter(short);
        for (n, r) in fresh.iter().chain(again).enumerate() {
            let called = r
                .invocation
                .op_run_in(&lib, &mut session)
                .unwrap_or_else(|e| panic!("{example} {} (call {n}): {e}", r.op));
            assert_eq!(called.output, r.run.output, "{example} {} (call {n})", r.op);
            assert_eq!(
                device_report(&called),
                device_report(&r.run),
                "{example} {} (call {n})",
                r.op
            );
            assert_eq!(
                called.console, r.run.console,
                "{example} {} (call {n})",
                r.op
            );
        }
        for (_, invocation, error) in stopped_readme_runs().iter().filter(|s| s.0 == example) {
            let e = invocation.op_run_in(&lib, &mut session).err();
            assert_eq!(
                e.map(|e| e.to_string()).as_deref(),
                Some(*error),
                "{example}"
            );
        }
        let first = fresh[0];
        let called = first.invocation.op_run_in(&lib, &mut session).unwrap();
        assert_eq!(
            device_report(&called),
            device_report(&first.run),
            "{example} after an error"
        );
        assert!(session.is_some(), "{example}: the calls ran in a session");
    }
}

#[test]
fn each_examples_readme_run_matches_its_snapshot() {
    let runs = readme_runs();
    for example in EXAMPLES {
        assert!(
            runs.iter().any(|r| r.example == example),
            "{example} has a run"
        );
    }
    for (i, r) in runs.iter().enumerate() {
        let what = format!("{} {}", r.example, r.op);
        check_output(&r.op, &r.run.output, &r.tensors, &r.scalars, &what);
        // A README's second run of an op is `<example>-<op>-2`, and so on.
        let nth = runs[..i]
            .iter()
            .filter(|p| p.example == r.example && p.op == r.op)
            .count();
        let name = match nth {
            0 => format!("{}-{}", r.example, r.op),
            n => format!("{}-{}-{}", r.example, r.op, n + 1),
        };
        q7_testing::assert_summary_snapshot!(name, Summary::of(&r.run));
        // Three ReLU variants are AWS-style projects (examples/sdk/BUILD.md "Projects"): their
        // READMEs give no --out-shape, and the output is what the shape function says.
        if RELU_PROJECTS.contains(&r.example) {
            let shape_fn = if r.op == "relu_forward" {
                "relu_fwd_shape"
            } else {
                "relu_bwd_shape"
            };
            assert_eq!(
                r.run.output_from,
                op::OutputFrom::ShapeFunction(shape_fn.into()),
                "{what}"
            );
        }
    }
}

/// One ReLU variant's cycle counts on the shared input: per core.
fn relu_cycles(example: &str, input: &HostTensor, expected: &HostTensor) -> Vec<u64> {
    let lib = Library::open(&kernels().join(example).join("build")).unwrap();
    let run = op::run(
        &lib,
        &OpRequest {
            op: "relu_forward".into(),
            inputs: vec![input.clone().into()],
            scalars: vec![],
            out_dtype: None,
            out_shape: None,
            threads: 2,
            jit: q7_emulator::jit::default_on(),
            call_budget: CALL_BUDGET,
            timing: Default::default(),
            progress: false,
            console: Default::default(),
            debugger: None,
            poison: None,
        },
    )
    .unwrap_or_else(|e| panic!("{example}: {e}"));
    assert_bits_equal(&run.output, expected, example);
    run.cores.iter().map(|c| c.stats.cycles).collect()
}

#[test]
fn the_8_core_relu_takes_an_element_count_not_divisible_by_8() {
    // 37 × 501 = 18537 = 8 · 2317 + 1: the last core takes 2318 elements.
    let input = tensor(
        &[37, 501],
        &with_edges(uniform(0x5eed_0007, 37 * 501), RELU_EDGES),
    );
    let expected = reference("relu_forward", std::slice::from_ref(&input), &[]);
    let cycles = relu_cycles("relu_multicore", &input, &expected);
    assert_eq!(cycles.len(), 8);
}

/// The rows of the cycle table of examples/kernels/README.md for `cycles` (by variant, per
/// core): cores, the slowest core's cycles, the speed-up over the element accessor.
fn cycle_table(cycles: &[Vec<u64>]) -> Vec<String> {
    let slowest = |c: &Vec<u64>| *c.iter().max().unwrap();
    let element = slowest(&cycles[0]) as f64;
    RELU_VARIANTS
        .iter()
        .zip(cycles)
        .map(|(name, c)| {
            format!(
                "| [`{name}`]({name}/) | {} | {} | ×{:.1} |",
                c.len(),
                slowest(c),
                element / slowest(c) as f64
            )
        })
        .collect()
}

#[test]
fn relu_variants_cost_cycles_in_the_tutorials_order() {
    let input = npy::read(&kernels().join("relu_multicore/input.npy")).unwrap();
    let expected = reference("relu_forward", std::slice::from_ref(&input), &[]);
    assert_eq!(input.shape, [32, 4096]);
    // Each variant's README runs relu_forward on this input.
    let cycles: Vec<Vec<u64>> = RELU_VARIANTS
        .iter()
        .map(|v| {
            let r = readme_runs()
                .iter()
                .find(|r| r.example == *v && r.op == "relu_forward")
                .unwrap_or_else(|| panic!("{v}/README.md runs relu_forward"));
            assert_eq!(
                r.inputs,
                ["examples/kernels/relu_multicore/input.npy"],
                "{v}"
            );
            assert_bits_equal(&r.run.output, &expected, v);
            r.run.cores.iter().map(|c| c.stats.cycles).collect()
        })
        .collect();
    let [element, stream, tcm, multicore] = [&cycles[0], &cycles[1], &cycles[2], &cycles[3]];
    assert_eq!(
        (element.len(), stream.len(), tcm.len(), multicore.len()),
        (1, 1, 1, 8)
    );
    assert!(
        element[0] >= 4 * tcm[0],
        "the element accessor costs many times TCM: {} vs {} cycles",
        element[0],
        tcm[0]
    );
    assert!(
        element[0] >= 4 * stream[0] && stream[0] > tcm[0],
        "streams cost many times less than the element accessor, more than TCM's bulk copies: \
         {} vs {} vs {} cycles",
        element[0],
        stream[0],
        tcm[0]
    );
    let slowest = *multicore.iter().max().unwrap();
    assert!(
        slowest < tcm[0],
        "8 cores take fewer cycles per core than one: {slowest} vs {}",
        tcm[0]
    );
    let table = cycle_table(&cycles);
    let text = std::fs::read_to_string(kernels().join("README.md")).unwrap();
    let documented: Vec<&str> = section(&text, "## The ReLU variants")
        .lines()
        .filter(|l| {
            RELU_VARIANTS
                .iter()
                .any(|v| l.starts_with(&format!("| [`{v}`]")))
        })
        .collect();
    assert_eq!(
        documented,
        table,
        "examples/kernels/README.md's cycle table is not what the variants cost; measured:\n{}",
        table.join("\n")
    );
}

/// docs/sdk-ops.md "Cost": its 1024-element row is what the READMEs' runs of `add_bulk`
/// (`torch::add`) and `vector_add` (element accessors) cost on the same inputs, with the same
/// output.
#[test]
fn the_bulk_add_costs_what_the_ops_doc_says() {
    let run = |example: &str, op: &str| {
        readme_runs()
            .iter()
            .find(|r| r.example == example && r.op == op)
            .unwrap_or_else(|| panic!("{example}/README.md runs {op}"))
    };
    let (bulk, element) = (
        run("elementwise", "add_bulk"),
        run("vector_add", "vector_add"),
    );
    assert_eq!(bulk.inputs, element.inputs, "the same inputs");
    assert_eq!(bulk.run.output, element.run.output, "the same sums");
    let n = bulk.run.output.numel();
    let (b, e) = (
        bulk.run.cores[0].stats.cycles,
        element.run.cores[0].stats.cycles,
    );
    let row = format!(
        "| {n} (the examples' READMEs) | {b} cycles, {:.1} per element | {e} cycles, {:.1} per \
         element | ×{:.2} |",
        b as f64 / n as f64,
        e as f64 / n as f64,
        e as f64 / b as f64
    );
    let doc = q7_tests::doc::read("docs/sdk-ops.md");
    let documented = section(&doc, "## Cost")
        .lines()
        .find(|l| l.starts_with(&format!("| {n} ")))
        .unwrap_or("(none)");
    assert_eq!(
        documented, row,
        "docs/sdk-ops.md's cost row; measured:\n{row}"
    );
}

// ---------------------------------------------------------------------------------------------
// The repository README and docs/run-report.md.

fn root_readme() -> String {
    q7_tests::doc::read("README.md")
}

/// The main job, as README.md's set-up gives it (`cargo run --release -p q7-host -- ARGS`) and
/// as docs/run-report.md gives it (`q7emu ARGS`), prints what the two documents show after
/// it — README.md an elided block, docs/run-report.md every line — but for the wall time.
#[test]
fn the_main_job_prints_what_the_readme_and_the_run_report_doc_show() {
    let readme = root_readme();
    let prefix = "cargo run --release -p q7-host -- ";
    let commands: Vec<&str> = readme.lines().filter(|l| l.starts_with(prefix)).collect();
    assert_eq!(commands.len(), 1, "README has one main-job command");
    let args = words(commands[0].strip_prefix(prefix).unwrap());
    assert_eq!(
        args[..2],
        ["run", "examples/kernels/relu_multicore/build"],
        "the main job runs the committed 8-core ReLU"
    );
    let report_doc = q7_tests::doc::read("docs/run-report.md");
    assert_eq!(
        q7emu_commands(&report_doc, "run"),
        std::slice::from_ref(&args),
        "docs/run-report.md runs the main job"
    );
    let text = success(
        q7emu().current_dir(ROOT).args(&args).output().unwrap(),
        commands[0],
    );
    let lines: Vec<&str> = text.lines().collect();
    // The op, its values, 5 lines per core (docs/run-report.md), wall time, timing.
    assert_eq!(lines.len(), 2 + 8 * 5 + 2, "{text}");
    assert!(lines[42].starts_with("wall "), "{text}");
    assert_eq!(lines[43], "timing: default");
    for (doc, text_of_doc) in [("README.md", &readme), ("docs/run-report.md", &report_doc)] {
        // The block that follows the command.
        let shown = &text_blocks(text_of_doc)[0];
        assert!(
            same_but_wall(shown, &text),
            "{doc} shows the main job printing\n{}\nbut it prints\n{text}",
            shown.join("\n")
        );
    }
    assert!(
        !text_blocks(&report_doc)[0].contains(&"…".to_string()),
        "docs/run-report.md shows it all"
    );
}

/// The walk-through of README.md for a newcomer, as written: "Your first kernel" builds and
/// runs `affine` (its output checked against the reference), then traces the same kernel and
/// takes its timeline (the trace files parsed, the timeline held to the trace-event rules with
/// the kernel's phases in order). Its snapshot step is the worked example crate
/// (`examples/snapshot-test`), whose test runs in the suite and whose README block
/// `the_readmes_snapshot_step_is_the_worked_example_as_it_is` checks.
#[q7_requires::needs(toolchain)]
#[test]
fn a_newcomer_follows_the_readme_from_first_kernel_to_its_timeline() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let readme = root_readme();
    let text = section(&readme, "## Your first kernel");
    let source = first_fenced(text, "cpp");
    let builds = q7emu_commands(text, "build");
    let (traced, runs): (Vec<Vec<String>>, Vec<Vec<String>>) = q7emu_commands(text, "run")
        .into_iter()
        .partition(|a| a.iter().any(|w| w == "--trace-dir"));
    assert_eq!(
        (builds.len(), runs.len(), traced.len()),
        (1, 1, 1),
        "one build, one run, one traced run"
    );
    let file = builds[0].last().unwrap();
    // The commands run from the repository root: a directory with its examples.
    let dir = TempDir::new("first-kernel");
    let root = dir.join("");
    std::os::unix::fs::symlink(Path::new(ROOT).join("examples"), root.join("examples")).unwrap();
    std::fs::write(root.join(file), source).unwrap();
    for args in [&builds[0], &runs[0]] {
        success(
            q7emu().current_dir(&root).args(args).output().unwrap(),
            &format!("q7emu {}", args.join(" ")),
        );
    }
    let args = &runs[0];
    let inputs: Vec<HostTensor> = values(args, "--input")
        .iter()
        .map(|p| npy::read(&root.join(p)).unwrap())
        .collect();
    let scalars: Vec<String> = values(args, "--scalar")
        .iter()
        .map(|s| s.to_string())
        .collect();
    let output = npy::read(&root.join(values(args, "--output")[0])).unwrap();
    assert_bits_equal(
        &output,
        &reference(values(args, "--op")[0], &inputs, &scalars),
        "README's first kernel",
    );

    // "Trace it": the newcomer's own build.
    let build_dir = values(&builds[0], "-o")[0].to_string();
    let args = &traced[0];
    assert_eq!(args[1], build_dir, "README traces {build_dir}");
    success(
        q7emu().current_dir(&root).args(args).output().unwrap(),
        &format!("q7emu {}", args.join(" ")),
    );
    let trace_dir = root.join(values(args, "--trace-dir")[0]);
    let text = std::fs::read_to_string(trace_dir.join("core0.trace")).unwrap();
    assert!(
        text.lines().count() > 1000,
        "{} lines",
        text.lines().count()
    );
    let jsonl = std::fs::read_to_string(trace_dir.join("core0.jsonl")).unwrap();
    for line in jsonl.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }
    let timeline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join(values(args, "--timeline")[0])).unwrap())
            .unwrap();
    assert_eq!(support::timeline::breaches(&timeline), Vec::<String>::new());
    let phases: Vec<&str> = timeline["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "phase" && e["ph"] == "B")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["setup", "marshal", "compute", "return", "cleanup"]);
}

/// README.md's snapshot step shows `examples/snapshot-test` as it is — its test, its kernel
/// (the README's first kernel) and its accepted snapshot — and docs/testing.md states the
/// summary's limits of the code.
#[test]
fn the_readmes_snapshot_step_is_the_worked_example_as_it_is() {
    let readme = root_readme();
    let text = section(&readme, "## Your first kernel");
    let example = Path::new(ROOT).join("examples/snapshot-test");
    let test = std::fs::read_to_string(example.join("tests/affine.rs")).unwrap();
    assert_eq!(
        first_fenced(text, "rust"),
        test,
        "README.md shows examples/snapshot-test/tests/affine.rs"
    );
    assert_eq!(
        std::fs::read_to_string(example.join("affine.cpp")).unwrap(),
        first_fenced(text, "cpp"),
        "examples/snapshot-test/affine.cpp is the README's first kernel"
    );
    let snap =
        std::fs::read_to_string(Path::new(ROOT).join("snapshots/affine__affine.snap")).unwrap();
    let body = snap
        .strip_prefix("---\n")
        .and_then(|s| s.split_once("\n---\n"))
        .map(|(_, body)| body)
        .expect("an insta header");
    assert_eq!(
        first_fenced(text, "text"),
        body,
        "README.md shows snapshots/affine__affine.snap"
    );

    use q7_testing::{HEAD_TAIL, LISTED_ELEMENTS};
    let testing = q7_tests::doc::read("docs/testing.md").replace('\n', " ");
    for limit in [
        format!("more than {LISTED_ELEMENTS} elements"),
        format!("first and last {HEAD_TAIL} values"),
        format!("up to {LISTED_ELEMENTS}, every value is listed"),
    ] {
        assert!(testing.contains(&limit), "docs/testing.md says {limit:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Rebuilding.

/// Whether a file of a build directory is committed with an example: what `q7emu run` reads
/// (the packed images, a project's shape executable and `q7build.json`) and the library
/// registry.
fn committed(name: &str) -> bool {
    name.ends_with(".packed.so")
        || name.ends_with(".shape")
        || name == "ucode_lib.json"
        || name == "q7build.json"
}

/// The committed files of build directory `dir`, sorted.
fn committed_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| committed(n))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[q7_requires::needs(toolchain)]
#[test]
fn every_example_rebuilds_byte_identical_with_its_readmes_command() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let dir = TempDir::new("examples-rebuild");
    for example in EXAMPLES {
        let builds = q7emu_commands(&readme(example), "build");
        assert_eq!(builds.len(), 1, "{example}/README.md has one q7emu build");
        let mut args = builds[0].clone();
        let build = format!("examples/kernels/{example}/build");
        let out = dir.join(example);
        match args.iter().position(|a| a == "-o") {
            Some(o) => {
                assert_eq!(args[o + 1], build, "{example} builds into its build/");
                args[o + 1] = out.display().to_string();
            }
            None => {
                // A project directory builds into its build/ (examples/sdk/BUILD.md "Project directories").
                let p = args
                    .iter()
                    .position(|a| a == "--project")
                    .expect("-o or --project");
                assert_eq!(args[p + 1], format!("examples/kernels/{example}"));
                args.extend(["-o".to_string(), out.display().to_string()]);
            }
        }
        success(
            q7emu().current_dir(ROOT).args(&args).output().unwrap(),
            &format!("q7emu {}", builds[0].join(" ")),
        );
        let committed_dir = Path::new(ROOT).join(&build);
        let rebuilt = committed_files(&out);
        if updating() {
            for stale in committed_files(&committed_dir) {
                std::fs::remove_file(committed_dir.join(stale)).unwrap();
            }
            std::fs::create_dir_all(&committed_dir).unwrap();
            for f in &rebuilt {
                std::fs::copy(out.join(f), committed_dir.join(f)).unwrap();
            }
        }
        assert_eq!(
            committed_files(&committed_dir),
            rebuilt,
            "{build}: the committed files"
        );
        for f in &rebuilt {
            let (a, b) = (
                std::fs::read(out.join(f)).unwrap(),
                std::fs::read(committed_dir.join(f)).unwrap(),
            );
            assert!(
                a == b,
                "{build}/{f} differs from a rebuild ({} vs {} bytes): run Q7EMU_UPDATE_EXAMPLES=1 \
                 cargo test -p q7-host --test all examples:: and commit it",
                b.len(),
                a.len()
            );
        }
    }
}

#[test]
fn a_shown_output_matches_but_for_the_wall_time_and_an_elision() {
    let printed = "op\ncore 0\ncore 1\nwall 0.1 s\ntiming: default\n";
    let shown = |t: &str| text_blocks(&format!("```text\n{t}```\n")).remove(0);
    assert!(same_but_wall(
        &shown("op\ncore 0\ncore 1\nwall 9 s\ntiming: default\n"),
        printed
    ));
    assert!(same_but_wall(
        &shown("op\ncore 0\n…\nwall 2 s\ntiming: default\n"),
        printed
    ));
    assert!(!same_but_wall(
        &shown("op\ncore 1\n…\ntiming: default\n"),
        printed
    ));
    assert!(!same_but_wall(
        &shown("op\ncore 0\ncore 1\n…\nwall 2 s\ntiming: default\n"),
        printed
    ));
    assert!(!same_but_wall(&shown("op\ncore 0\n"), printed));
}
