//! The element-wise ops of the device SDK (`examples/sdk/include/ATen/ops/elementwise.h`), built
//! by `q7emu build` into the test library `tests/programs/sdk/elementwise_ops.cpp` and run on
//! the emulated core, against host references written here from the rules of docs/sdk-ops.md:
//! PyTorch's type promotion, Half and BFloat16 computed in float and rounded once to nearest
//! even, integers wrapping, true division, PyTorch's integer powers, clamp's NaN and min > max
//! cases, the dtypes the _out forms accept, and each error's exact message. The inputs are 41
//! elements long (no multiple of the ops' 512-element chunk); `lengths_and_ranks` covers the
//! chunk boundaries. Two more libraries put the ops in a kernel's surroundings: results written
//! in place, SDMA transfers per chunk, the DATARAM heap held by the kernel
//! (`tests/programs/sdk/elementwise_runtime.cpp`), and a multicore library
//! (`tests/programs/sdk/elementwise_multicore.cpp`).

use crate::math_support;

use std::path::Path;
use std::sync::OnceLock;

use half::{bf16, f16};
use q7_run::op::RunError;
use q7_runtime::firmware::FirmwareError;
use q7_tensor::dtype::Dtype;
use q7_tensor::HostTensor;
use q7_testing::{tensor_from_bytes, toolchain_installed, Kernel, Library, Run, TestingError};

// ---- the test library ----

/// The library of `tests/programs/sdk/elementwise_ops.cpp`, built once per test binary into
/// cargo's per-target scratch directory; `None` (skip) without the toolchain.
fn lib() -> Option<&'static Library> {
    static LIB: OnceLock<Option<Library>> = OnceLock::new();
    LIB.get_or_init(|| {
        if !toolchain_installed() {
            return None;
        }
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/sdk/elementwise_ops.cpp");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sdk-ops/elementwise_ops");
        let lib = Kernel::new(src)
            .op("unary(Tensor x, int op) -> Tensor")
            .op("unary_out(Tensor x, int op) -> Tensor")
            .op("binary(Tensor a, Tensor b, Scalar alpha, int op) -> Tensor")
            .op("binary_out(Tensor a, Tensor b, Scalar alpha, int op) -> Tensor")
            .op("tensor_scalar(Tensor a, Scalar s, Scalar alpha, int op) -> Tensor")
            .op("tensor_scalar_out(Tensor a, Scalar s, Scalar alpha, int op) -> Tensor")
            .op("scalar_tensor(Scalar s, Tensor a, int op) -> Tensor")
            .op("scalar_tensor_out(Scalar s, Tensor a, int op) -> Tensor")
            .op("clamp_op(Tensor x, Scalar lo, Scalar hi) -> Tensor")
            .op("clamp_op_out(Tensor x, Scalar lo, Scalar hi) -> Tensor")
            .build(&dir)
            .unwrap_or_else(|e| panic!("building elementwise_ops.cpp: {e}"));
        Some(lib)
    })
    .as_ref()
}

/// The kernel's codes of its unary ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Un {
    Abs = 0,
    Ceil = 1,
    Floor = 2,
    Not = 3,
    Sin = 4,
    Cos = 5,
    Tan = 6,
    Log = 7,
    Log2 = 8,
    Log10 = 9,
    Exp = 10,
}

/// The float ops and the math library's function each applies.
const FLOAT_OPS: [(Un, &str); 7] = [
    (Un::Sin, "sinf"),
    (Un::Cos, "cosf"),
    (Un::Tan, "tanf"),
    (Un::Log, "logf"),
    (Un::Log2, "log2f"),
    (Un::Log10, "log10f"),
    (Un::Exp, "expf"),
];

/// The kernel's codes of its binary ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bin {
    Add = 0,
    Sub = 1,
    Mul = 2,
    Div = 3,
    Pow = 4,
    And = 5,
    Or = 6,
}

// ---- dtypes and values ----

/// The seven dtypes of the ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum D {
    F32,
    Bf16,
    F16,
    I32,
    I16,
    I8,
    U8,
}

use D::*;

const DTYPES: [D; 7] = [F32, Bf16, F16, I32, I16, I8, U8];
const INTS: [D; 4] = [I32, I16, I8, U8];

/// `torch.promote_types` over the seven dtypes, rows and columns in [`DTYPES`] order
/// (PyTorch's promotion table; docs/sdk-ops.md "Type promotion").
const PROMOTE: [[D; 7]; 7] = [
    [F32, F32, F32, F32, F32, F32, F32],
    [F32, Bf16, F32, Bf16, Bf16, Bf16, Bf16],
    [F32, F32, F16, F16, F16, F16, F16],
    [F32, Bf16, F16, I32, I32, I32, I32],
    [F32, Bf16, F16, I32, I16, I16, I16],
    [F32, Bf16, F16, I32, I16, I8, I16],
    [F32, Bf16, F16, I32, I16, I16, U8],
];

impl D {
    fn ix(self) -> usize {
        DTYPES.iter().position(|&d| d == self).unwrap()
    }
    fn code(self) -> u8 {
        match self {
            F32 => 0xC,
            Bf16 => 0xA,
            F16 => 0x8,
            I32 => 0x6,
            I16 => 0x4,
            I8 => 0x2,
            U8 => 0x3,
        }
    }
    fn dtype(self) -> Dtype {
        Dtype::from_code(self.code()).unwrap()
    }
    fn float(self) -> bool {
        matches!(self, F32 | Bf16 | F16)
    }
    fn size(self) -> usize {
        match self {
            F32 | I32 => 4,
            Bf16 | F16 | I16 => 2,
            I8 | U8 => 1,
        }
    }
    fn promote(self, o: D) -> D {
        PROMOTE[self.ix()][o.ix()]
    }
    /// Integers compute in Float for div (true division).
    fn floating(self) -> D {
        if self.float() {
            self
        } else {
            F32
        }
    }
    /// `v` as a value of this dtype, as a C++ (and PyTorch) conversion makes it: floats rounded
    /// to nearest even (integers through float), integers wrapped (two's complement).
    fn cast(self, v: V) -> V {
        match (self, v) {
            (F32, V::F(x)) => V::F(x),
            (F32, V::I(i)) => V::F(i as f32),
            (F16, V::F(x)) => V::F(f16::from_f32(x).to_f32()),
            (F16, V::I(i)) => V::F(f16::from_f32(i as f32).to_f32()),
            (Bf16, V::F(x)) => V::F(bf16::from_f32(x).to_f32()),
            (Bf16, V::I(i)) => V::F(bf16::from_f32(i as f32).to_f32()),
            (I32, V::I(i)) => V::I(i64::from(i as i32)),
            (I16, V::I(i)) => V::I(i64::from(i as i16)),
            (I8, V::I(i)) => V::I(i64::from(i as i8)),
            (U8, V::I(i)) => V::I(i64::from(i as u8)),
            (d, V::F(x)) => panic!("no op stores the float {x} as {d:?}"),
        }
    }
    fn put(self, v: V, out: &mut Vec<u8>) {
        match (self, self.cast(v)) {
            (F32, V::F(x)) => out.extend_from_slice(&x.to_le_bytes()),
            (F16, V::F(x)) => out.extend_from_slice(&f16::from_f32(x).to_le_bytes()),
            (Bf16, V::F(x)) => out.extend_from_slice(&bf16::from_f32(x).to_le_bytes()),
            (I32, V::I(i)) => out.extend_from_slice(&(i as i32).to_le_bytes()),
            (I16, V::I(i)) => out.extend_from_slice(&(i as i16).to_le_bytes()),
            (I8 | U8, V::I(i)) => out.push(i as u8),
            _ => unreachable!(),
        }
    }
    fn get(self, b: &[u8]) -> V {
        match self {
            F32 => V::F(f32::from_le_bytes(b.try_into().unwrap())),
            F16 => V::F(f16::from_le_bytes(b.try_into().unwrap()).to_f32()),
            Bf16 => V::F(bf16::from_le_bytes(b.try_into().unwrap()).to_f32()),
            I32 => V::I(i64::from(i32::from_le_bytes(b.try_into().unwrap()))),
            I16 => V::I(i64::from(i16::from_le_bytes(b.try_into().unwrap()))),
            I8 => V::I(i64::from(b[0] as i8)),
            U8 => V::I(i64::from(b[0])),
        }
    }
}

/// One element's value: a float (Float, Half and BFloat16 elements, exactly) or an integer.
#[derive(Clone, Copy, Debug)]
enum V {
    F(f32),
    I(i64),
}

impl V {
    fn f(self) -> f32 {
        match self {
            V::F(x) => x,
            V::I(i) => i as f32,
        }
    }
    fn i(self) -> i64 {
        match self {
            V::I(i) => i,
            V::F(x) => panic!("{x} is not an integer"),
        }
    }
    /// Equal bit for bit (the sign of a zero too), any NaN equal to any NaN (NaN payloads are
    /// not specified, docs/sdk-ops.md).
    fn same(self, o: V) -> bool {
        match (self, o) {
            (V::F(a), V::F(b)) => (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits(),
            (V::I(a), V::I(b)) => a == b,
            _ => false,
        }
    }
}

/// A scalar argument: an integer or a double (`Run::scalar` keeps a Rust float a float).
#[derive(Clone, Copy, Debug)]
enum S {
    I(i64),
    F(f64),
}

impl S {
    fn v(self) -> V {
        match self {
            S::I(i) => V::I(i),
            S::F(x) => V::F(x as f32),
        }
    }
    /// The float nearest to it.
    fn f32(self) -> f32 {
        match self {
            S::I(i) => i as f32,
            S::F(x) => x as f32,
        }
    }
    fn is_float(self) -> bool {
        matches!(self, S::F(_))
    }
}

/// A tensor argument: dtype, shape and its elements' values.
#[derive(Clone, Debug)]
struct T {
    d: D,
    shape: Vec<u64>,
    v: Vec<V>,
}

impl T {
    /// A 1-D tensor of `values` stored as `d` ([`D::cast`]).
    fn new(d: D, values: &[V]) -> T {
        T {
            d,
            shape: vec![values.len() as u64],
            v: values.iter().map(|&v| d.cast(v)).collect(),
        }
    }
    fn shaped(mut self, shape: &[u64]) -> T {
        assert_eq!(shape.iter().product::<u64>(), self.v.len() as u64);
        self.shape = shape.to_vec();
        self
    }
    fn host(&self) -> HostTensor {
        let mut data = Vec::new();
        for &v in &self.v {
            self.d.put(v, &mut data);
        }
        tensor_from_bytes(self.d.dtype(), &self.shape, data).unwrap()
    }
}

/// The 41 float inputs: signed zeros, halves and ties, values past Half's range and
/// BFloat16's precision, subnormals, infinities and NaN.
fn float_values() -> Vec<V> {
    [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        3.75,
        -7.25,
        100.0,
        -100.0,
        1000.1,
        65504.0,
        65520.0,
        1e5,
        -1e5,
        3e38,
        -3e38,
        1e-3,
        1e-7,
        1e-40,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        0.1,
        0.2,
        1.0 / 3.0,
        2.0 / 3.0,
        123.456,
        -0.001,
        16777217.0,
        1e10,
        255.0,
        256.0,
        -128.0,
        127.5,
        42.0,
        7.0,
        2049.0,
    ]
    .iter()
    .map(|&x| V::F(x as f32))
    .collect()
}

/// The 41 integer inputs: each dtype's extremes and the values that wrap into them.
fn int_values() -> Vec<V> {
    [
        0,
        1,
        -1,
        2,
        -2,
        3,
        7,
        -7,
        100,
        -100,
        127,
        -128,
        128,
        255,
        256,
        1000,
        -1000,
        32767,
        -32768,
        65535,
        2147483647,
        -2147483648,
        123456789,
        -987654321,
        5,
        6,
        8,
        9,
        10,
        11,
        12,
        13,
        15,
        16,
        31,
        32,
        63,
        64,
        85,
        170,
        200,
    ]
    .iter()
    .map(|&i| V::I(i))
    .collect()
}

/// A 41-element input of `d`, its values rotated by `shift` (so that two inputs pair
/// different values).
fn input(d: D, shift: usize) -> T {
    let mut v = if d.float() {
        float_values()
    } else {
        int_values()
    };
    v.rotate_left(shift);
    T::new(d, &v)
}

// ---- running ----

/// What a run gave: the output's values, or the runtime error's code and message.
type Outcome = Result<Vec<V>, (u32, String)>;

/// Runs `op` with `tensors` and `scalars` (each in schema order) and an output of `out` shaped
/// like the first tensor.
fn call(op: &str, tensors: &[&T], scalars: &[S], out: D) -> Outcome {
    let mut r = Run::new(op);
    for t in tensors {
        r = r.input(t.host());
    }
    for s in scalars {
        r = match *s {
            S::I(i) => r.scalar(i),
            S::F(x) => r.scalar(x),
        };
    }
    outcome(r.output_dtype(out.dtype()), out)
}

/// Runs `r` on the library of its op: its output's values as `out`, or its runtime error.
fn outcome(r: Run, out: D) -> Outcome {
    let lib = lib().expect("the library is built");
    match r.op_run(lib) {
        Ok(run) => Ok(run
            .output
            .data
            .chunks(out.size())
            .map(|b| out.get(b))
            .collect()),
        Err(TestingError::Run(e)) => match *e {
            RunError::Device {
                source: FirmwareError::Aborted { code, message, .. },
                ..
            } => Err((code, message)),
            e => panic!("{e}"),
        },
        Err(e) => panic!("{e}"),
    }
}

/// Asserts `got` is `want` value for value ([`V::same`]), naming the first mismatches.
fn check(what: &str, got: Outcome, want: &[V]) {
    let got = got.unwrap_or_else(|(code, m)| panic!("{what}: runtime error {code}: {m}"));
    assert_eq!(got.len(), want.len(), "{what}: element count");
    let bad: Vec<String> = (0..want.len())
        .filter(|&i| !got[i].same(want[i]))
        .take(8)
        .map(|i| format!("[{i}] got {:?}, want {:?}", got[i], want[i]))
        .collect();
    assert!(bad.is_empty(), "{what}:\n{}", bad.join("\n"));
}

/// Asserts the run stopped with runtime error 7 (ABORT, PLATFORM.md "Runtime errors") and
/// the runtime's message `want`.
fn fails(what: &str, got: Outcome, want: &str) {
    match got {
        Ok(v) => panic!("{what}: ran, giving {v:?}"),
        Err((code, m)) => {
            assert_eq!((code, m.as_str()), (7, want), "{what}");
        }
    }
}

// ---- host references (docs/sdk-ops.md) ----

/// What the math library's `name` (`sinf`, `powf`, …) gives for float arguments `args` (the
/// second ignored by a unary function), from its host build, which gives the device's bits
/// (examples/sdk/rt/math/README.md "Tests").
fn math(name: &str, args: &[(f32, f32)]) -> Vec<f32> {
    let f = math_support::functions()
        .into_iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no math function {name}"));
    let exe = math_support::native().expect("the host compiler runs");
    let words: Vec<(u64, u64)> = args
        .iter()
        .map(|(x, y)| (u64::from(x.to_bits()), u64::from(y.to_bits())))
        .collect();
    math_support::host_values(exe, &f, &words)
        .iter()
        .map(|&w| f32::from_bits(w as u32))
        .collect()
}

/// An integer's value in `d` (wrapped).
fn wrap(d: D, i: i64) -> i64 {
    d.cast(V::I(i)).i()
}

/// PyTorch's integer power in dtype `c`: negative exponents give 1 for base 1, ±1 for base
/// -1 by parity, 0 otherwise; else the wrapped power.
fn powi(c: D, x: i64, y: i64) -> i64 {
    if y < 0 {
        return match x {
            1 => 1,
            -1 => {
                if y % 2 != 0 {
                    -1
                } else {
                    1
                }
            }
            _ => 0,
        };
    }
    let e = y as u32;
    match c {
        I32 => i64::from((x as i32).wrapping_pow(e)),
        I16 => i64::from((x as i16).wrapping_pow(e)),
        I8 => i64::from((x as i8).wrapping_pow(e)),
        U8 => i64::from((x as u8).wrapping_pow(e)),
        _ => unreachable!(),
    }
}

/// `op` on two values of computation dtype `c`: add is x + alpha·y, sub x + (−alpha)·y (the
/// product rounded, then the sum; integers wrapping).
fn binary_value(op: Bin, c: D, x: V, y: V, alpha: S) -> V {
    if c.float() {
        let (x, y) = (x.f(), y.f());
        V::F(match op {
            Bin::Add => x + alpha.f32() * y,
            Bin::Sub => x + (-alpha.f32()) * y,
            Bin::Mul => x * y,
            Bin::Div => x / y,
            _ => panic!("{op:?} in {c:?}"),
        })
    } else {
        let (x, y) = (x.i(), y.i());
        let a = match alpha {
            S::I(a) => a,
            S::F(_) => 1,
        };
        V::I(match op {
            Bin::Add => x.wrapping_add(a.wrapping_mul(y)),
            Bin::Sub => x.wrapping_sub(a.wrapping_mul(y)),
            Bin::Mul => x.wrapping_mul(y),
            Bin::Pow => powi(c, x, y),
            Bin::And => x & y,
            Bin::Or => x | y,
            Bin::Div => panic!("div computes in a float dtype"),
        })
    }
}

/// The result of a computation in `c` stored as `out`: rounded (or wrapped) to `c`, then
/// converted.
fn store(c: D, out: D, v: V) -> V {
    out.cast(c.cast(v))
}

/// The reference of `op` on tensors `a` and `b` into a result of `out`.
fn binary_ref(op: Bin, a: &T, b: &T, alpha: S, out: D) -> (D, Vec<V>) {
    let mut c = a.d.promote(b.d);
    if op == Bin::Div {
        c = c.floating();
    }
    let v =
        a.v.iter()
            .zip(&b.v)
            .map(|(&x, &y)| store(c, out, binary_value(op, c, c.cast(x), c.cast(y), alpha)))
            .collect();
    (c, v)
}

/// PyTorch's result_type of a tensor of `t` and a scalar: a double makes an integer tensor's
/// computation Float; otherwise the tensor's dtype.
fn with_scalar(t: D, s: S) -> D {
    if !t.float() && s.is_float() {
        F32
    } else {
        t
    }
}

/// The reference of `op` on tensor `a` and scalar `s` (add, sub, mul, div: the scalar enters a
/// float computation as the float nearest to it; bitwise: as the computation dtype).
fn tensor_scalar_ref(op: Bin, a: &T, s: S, alpha: S, out: D) -> (D, Vec<V>) {
    let mut c = with_scalar(a.d, s);
    if op == Bin::Div {
        c = c.floating();
    }
    let y = if c.float() {
        V::F(s.f32())
    } else {
        c.cast(s.v())
    };
    let v =
        a.v.iter()
            .map(|&x| store(c, out, binary_value(op, c, c.cast(x), y, alpha)))
            .collect();
    (c, v)
}

/// clamp in dtype `c` as std::min(std::max(x, lo), hi): a NaN x stays NaN (every comparison
/// with it is false), lo > hi gives hi.
fn clamp(c: D, x: V, lo: V, hi: V) -> V {
    if c.float() {
        let (x, lo, hi) = (x.f(), lo.f(), hi.f());
        let v = if x < lo { lo } else { x };
        V::F(if hi < v { hi } else { v })
    } else {
        let (x, lo, hi) = (x.i(), lo.i(), hi.i());
        let v = if x < lo { lo } else { x };
        V::I(if hi < v { hi } else { v })
    }
}

// ---- the tests ----

/// Each op's X form on every pair of dtypes: add, sub and mul promote (PROMOTE), div promotes
/// integers to Float; each computed in its dtype and returned as it.
#[q7_requires::needs(toolchain)]
#[test]
fn arithmetic_of_every_dtype_pair_promotes_as_pytorch() {
    if lib().is_none() {
        return;
    }
    for &da in &DTYPES {
        for &db in &DTYPES {
            let (a, b) = (input(da, 0), input(db, 7));
            for op in [Bin::Add, Bin::Sub, Bin::Mul, Bin::Div] {
                if op == Bin::Sub || op == Bin::Mul {
                    // The promotion is the same for every op: sub and mul on the same-dtype
                    // pairs and one mixed pair per row.
                    if da != db && db != DTYPES[(da.ix() + 3) % 7] {
                        continue;
                    }
                }
                let mut c = da.promote(db);
                if op == Bin::Div {
                    c = c.floating();
                }
                let (c2, want) = binary_ref(op, &a, &b, S::I(1), c);
                assert_eq!(c, c2);
                check(
                    &format!("{op:?}({da:?}, {db:?}) -> {c:?}"),
                    call("binary", &[&a, &b], &[S::I(1), S::I(op as i64)], c),
                    &want,
                );
            }
        }
    }
}

/// add and sub with alpha: self + alpha * other, computed in the computation dtype's
/// arithmetic (float for Half and BFloat16).
#[q7_requires::needs(toolchain)]
#[test]
fn add_and_sub_scale_other_by_alpha() {
    if lib().is_none() {
        return;
    }
    for &d in &DTYPES {
        let (a, b) = (input(d, 0), input(d, 3));
        let alphas: &[S] = if d.float() {
            &[S::I(3), S::F(-0.5), S::F(1e-3)]
        } else {
            &[S::I(3), S::I(-2)]
        };
        for &alpha in alphas {
            for op in [Bin::Add, Bin::Sub] {
                let (_, want) = binary_ref(op, &a, &b, alpha, d);
                check(
                    &format!("{op:?}({d:?}, {d:?}, alpha {alpha:?})"),
                    call("binary", &[&a, &b], &[alpha, S::I(op as i64)], d),
                    &want,
                );
            }
        }
    }
}

/// Tensor-Scalar forms: an integer tensor with a double computes in Float, every other pair in
/// the tensor's dtype; the scalar enters a float computation unrounded.
#[q7_requires::needs(toolchain)]
#[test]
fn tensor_scalar_arithmetic_follows_result_type() {
    if lib().is_none() {
        return;
    }
    for &d in &DTYPES {
        let a = input(d, 5);
        for s in [S::I(3), S::I(-300), S::F(0.1), S::F(-2.5)] {
            for op in [Bin::Add, Bin::Sub, Bin::Mul, Bin::Div] {
                let mut c = with_scalar(d, s);
                if op == Bin::Div {
                    c = c.floating();
                }
                let (c2, want) = tensor_scalar_ref(op, &a, s, S::I(1), c);
                assert_eq!(c, c2);
                check(
                    &format!("{op:?}({d:?}, {s:?}) -> {c:?}"),
                    call("tensor_scalar", &[&a], &[s, S::I(1), S::I(op as i64)], c),
                    &want,
                );
            }
        }
    }
}

/// abs, ceil and floor keep the dtype; on integers ceil and floor copy and abs wraps;
/// bitwise_not of every integer dtype.
#[q7_requires::needs(toolchain)]
#[test]
fn unary_ops_keep_the_dtype() {
    if lib().is_none() {
        return;
    }
    for &d in &DTYPES {
        let a = input(d, 0);
        for op in [Un::Abs, Un::Ceil, Un::Floor, Un::Not] {
            if op == Un::Not && d.float() {
                continue;
            }
            let want: Vec<V> =
                a.v.iter()
                    .map(|&x| {
                        d.cast(match (op, x) {
                            (Un::Abs, V::F(f)) => V::F(f.abs()),
                            (Un::Ceil, V::F(f)) => V::F(f.ceil()),
                            (Un::Floor, V::F(f)) => V::F(f.floor()),
                            (Un::Abs, V::I(i)) => V::I(i.wrapping_abs()),
                            (Un::Not, V::I(i)) => V::I(!i),
                            (_, v) => v,
                        })
                    })
                    .collect();
            check(
                &format!("{op:?}({d:?})"),
                call("unary", &[&a], &[S::I(op as i64)], d),
                &want,
            );
        }
    }
}

/// bitwise_and and bitwise_or on every pair of integer dtypes (promoted), and with scalars on
/// either side, cast to the computation dtype.
#[q7_requires::needs(toolchain)]
#[test]
fn bitwise_ops_of_integer_dtypes() {
    if lib().is_none() {
        return;
    }
    for &da in &INTS {
        for &db in &INTS {
            let (a, b) = (input(da, 0), input(db, 11));
            for op in [Bin::And, Bin::Or] {
                let c = da.promote(db);
                let (_, want) = binary_ref(op, &a, &b, S::I(1), c);
                check(
                    &format!("{op:?}({da:?}, {db:?})"),
                    call("binary", &[&a, &b], &[S::I(1), S::I(op as i64)], c),
                    &want,
                );
            }
        }
        let a = input(da, 2);
        for s in [S::I(0x5A), S::I(-4), S::I(0x1_0000_00F0)] {
            for op in [Bin::And, Bin::Or] {
                let (_, want) = tensor_scalar_ref(op, &a, s, S::I(1), da);
                check(
                    &format!("{op:?}({da:?}, {s:?})"),
                    call("tensor_scalar", &[&a], &[s, S::I(1), S::I(op as i64)], da),
                    &want,
                );
                check(
                    &format!("{op:?}({s:?}, {da:?})"),
                    call("scalar_tensor", &[&a], &[s, S::I(op as i64)], da),
                    &want,
                );
            }
        }
    }
}

/// Integer powers: tensor ** tensor (negative exponents by PyTorch's rule), tensor ** scalar,
/// scalar ** tensor, wrapping.
#[q7_requires::needs(toolchain)]
#[test]
fn integer_powers_wrap_and_follow_pytorchs_negative_exponent_rule() {
    if lib().is_none() {
        return;
    }
    let exps: Vec<V> = [
        0, 1, 2, 3, 5, 7, 8, 15, 16, 31, 32, 33, -1, -2, -3, 100, 127, 1000, 65535, 2147483647,
        123456789, 4, 6, 9, 10, 11, 12, 13, -128, 63, 64, 85, 170, 200, 255, 17, 18, 19, 20, 21,
        22,
    ]
    .iter()
    .map(|&i| V::I(i))
    .collect();
    for &d in &INTS {
        let base = input(d, 0);
        let e = T::new(d, &exps);
        let (_, want) = binary_ref(Bin::Pow, &base, &e, S::I(1), d);
        check(
            &format!("pow({d:?}, {d:?})"),
            call("binary", &[&base, &e], &[S::I(1), S::I(Bin::Pow as i64)], d),
            &want,
        );
        for s in [0i64, 1, 2, 3, 7] {
            let want: Vec<V> = base.v.iter().map(|&x| V::I(powi(d, x.i(), s))).collect();
            check(
                &format!("pow({d:?}, {s})"),
                call(
                    "tensor_scalar",
                    &[&base],
                    &[S::I(s), S::I(1), S::I(Bin::Pow as i64)],
                    d,
                ),
                &want,
            );
        }
        for s in [2i64, -1, 1, 0, 3] {
            let want: Vec<V> =
                e.v.iter()
                    .map(|&y| V::I(powi(d, wrap(d, s), y.i())))
                    .collect();
            check(
                &format!("pow({s}, {d:?})"),
                call("scalar_tensor", &[&e], &[S::I(s), S::I(Bin::Pow as i64)], d),
                &want,
            );
        }
    }
}

/// clamp(self, min, max) = min(max(self, min), max): NaN stays NaN, min > max gives max, the
/// bounds are converted to the dtype (a double bound makes an integer tensor's result Float),
/// a NaN bound makes every element NaN.
#[q7_requires::needs(toolchain)]
#[test]
fn clamp_follows_pytorch() {
    if lib().is_none() {
        return;
    }
    for &d in &DTYPES {
        let a = input(d, 4);
        for (lo, hi) in [
            (S::I(-7), S::I(100)),
            (S::I(100), S::I(-7)),
            (S::F(-2.5), S::F(1000.1)),
            (S::I(0), S::F(0.2)),
        ] {
            let c = if !d.float() && (lo.is_float() || hi.is_float()) {
                F32
            } else {
                d
            };
            let (l, h) = (c.cast(lo.v()), c.cast(hi.v()));
            let want: Vec<V> = a.v.iter().map(|&x| clamp(c, c.cast(x), l, h)).collect();
            check(
                &format!("clamp({d:?}, {lo:?}, {hi:?}) -> {c:?}"),
                call("clamp_op", &[&a], &[lo, hi], c),
                &want,
            );
        }
        let c = d.floating();
        check(
            &format!("clamp({d:?}, NaN, 1)"),
            call("clamp_op", &[&a], &[S::F(f64::NAN), S::I(1)], c),
            &vec![V::F(f32::NAN); 41],
        );
    }
}

/// The _out forms: add, sub, mul, div, pow (tensor ** tensor, scalar ** tensor) and the
/// bitwise ops store their computation into a result of any dtype it can be cast to (an
/// integer computation into any dtype, a float one into any float dtype), rounded or wrapped
/// to the computation dtype first; abs, ceil, floor, bitwise_not, clamp and pow(tensor,
/// scalar) write a result of exactly the computation dtype.
#[q7_requires::needs(toolchain)]
#[test]
fn out_forms_store_the_computation_in_the_results_dtype() {
    if lib().is_none() {
        return;
    }
    let pairs = [
        (I8, I8),
        (U8, I8),
        (F16, F16),
        (Bf16, I32),
        (I32, F32),
        (I16, U8),
    ];
    for (da, db) in pairs {
        let (a, b) = (input(da, 0), input(db, 9));
        for op in [Bin::Add, Bin::Mul, Bin::Div, Bin::Pow, Bin::And] {
            let mut c = da.promote(db);
            if op == Bin::Div {
                c = c.floating();
            }
            if (op == Bin::Pow || op == Bin::And) && c.float() {
                continue;
            }
            for &out in &DTYPES {
                if c.float() && !out.float() {
                    continue;
                }
                let (_, want) = binary_ref(op, &a, &b, S::I(1), out);
                check(
                    &format!("{op:?}_out({da:?}, {db:?}) in {c:?} -> {out:?}"),
                    call("binary_out", &[&a, &b], &[S::I(1), S::I(op as i64)], out),
                    &want,
                );
            }
        }
    }
    let a = input(I32, 3);
    for out in [F32, F16, Bf16] {
        let (_, want) = tensor_scalar_ref(Bin::Add, &a, S::F(0.5), S::I(1), out);
        check(
            &format!("add_out(Int, 0.5) -> {out:?}"),
            call(
                "tensor_scalar_out",
                &[&a],
                &[S::F(0.5), S::I(1), S::I(0)],
                out,
            ),
            &want,
        );
    }
    let e = input(I8, 0);
    for out in [I16, U8, F32] {
        let want: Vec<V> =
            e.v.iter()
                .map(|&y| store(I8, out, V::I(powi(I8, 3, y.i()))))
                .collect();
        check(
            &format!("pow_out(3, Char) -> {out:?}"),
            call(
                "scalar_tensor_out",
                &[&e],
                &[S::I(3), S::I(Bin::Pow as i64)],
                out,
            ),
            &want,
        );
        let want: Vec<V> = e.v.iter().map(|&y| out.cast(V::I(y.i() | 0x41))).collect();
        check(
            &format!("bitwise_or_out(0x41, Char) -> {out:?}"),
            call(
                "scalar_tensor_out",
                &[&e],
                &[S::I(0x41), S::I(Bin::Or as i64)],
                out,
            ),
            &want,
        );
    }
    for &d in &DTYPES {
        let a = input(d, 1);
        let want: Vec<V> =
            a.v.iter()
                .map(|&x| match x {
                    V::F(f) => V::F(f.abs()),
                    V::I(i) => d.cast(V::I(i.wrapping_abs())),
                })
                .collect();
        check(
            &format!("abs_out({d:?})"),
            call("unary_out", &[&a], &[S::I(Un::Abs as i64)], d),
            &want,
        );
        let (lo, hi) = (d.cast(V::I(-1)), d.cast(V::I(1)));
        let want: Vec<V> = a.v.iter().map(|&x| clamp(d, x, lo, hi)).collect();
        check(
            &format!("clamp_out({d:?}, -1, 1)"),
            call("clamp_op_out", &[&a], &[S::I(-1), S::I(1)], d),
            &want,
        );
    }
    let want: Vec<V> = a_int()
        .v
        .iter()
        .map(|&x| V::I(powi(I32, x.i(), 3)))
        .collect();
    check(
        "pow_out(Int, 3) -> Int",
        call(
            "tensor_scalar_out",
            &[&a_int()],
            &[S::I(3), S::I(1), S::I(Bin::Pow as i64)],
            I32,
        ),
        &want,
    );
}

/// A three-element Int tensor [1, 2, 3].
fn a_int() -> T {
    T::new(I32, &[V::I(1), V::I(2), V::I(3)])
}

/// The values docs/sdk-ops.md gives as examples of its rules, written out.
#[q7_requires::needs(toolchain)]
#[test]
fn documented_examples_give_their_exact_values() {
    if lib().is_none() {
        return;
    }
    let ints = |d: D, v: &[i64]| T::new(d, &v.iter().map(|&i| V::I(i)).collect::<Vec<_>>());
    let floats = |d: D, v: &[f32]| T::new(d, &v.iter().map(|&x| V::F(x)).collect::<Vec<_>>());
    let is = |v: &[i64]| v.iter().map(|&i| V::I(i)).collect::<Vec<_>>();
    let fs = |v: &[f32]| v.iter().map(|&x| V::F(x)).collect::<Vec<_>>();
    let bin = |op: Bin| [S::I(1), S::I(op as i64)];
    // Char arithmetic wraps: 100 + 100 = -56, 127 + 1 = -128; Byte 3 - 5 = 254.
    check(
        "Char add wraps",
        call(
            "binary",
            &[&ints(I8, &[100, -100, 127]), &ints(I8, &[100, -100, 1])],
            &bin(Bin::Add),
            I8,
        ),
        &is(&[-56, 56, -128]),
    );
    check(
        "Byte sub wraps",
        call(
            "binary",
            &[&ints(U8, &[3, 0, 255]), &ints(U8, &[5, 1, 255])],
            &bin(Bin::Sub),
            U8,
        ),
        &is(&[254, 255, 0]),
    );
    // Int + 0.5 is Float; Int / Int is true division in Float.
    check(
        "Int + 0.5",
        call(
            "tensor_scalar",
            &[&a_int()],
            &[S::F(0.5), S::I(1), S::I(0)],
            F32,
        ),
        &fs(&[1.5, 2.5, 3.5]),
    );
    check(
        "Int / Int",
        call(
            "binary",
            &[&ints(I32, &[7, -7, 1, 0]), &ints(I32, &[2, 2, 0, 0])],
            &bin(Bin::Div),
            F32,
        ),
        &fs(&[3.5, -3.5, f32::INFINITY, f32::NAN]),
    );
    // Byte + Char computes in Short.
    check(
        "Byte + Char",
        call(
            "binary",
            &[&ints(U8, &[200, 255]), &ints(I8, &[100, -1])],
            &bin(Bin::Add),
            I16,
        ),
        &is(&[300, 254]),
    );
    // Half is computed in float and rounded once: 2048 + 1 ties to 2048, 2048 + 3 = 2051
    // rounds to 2052; a scalar enters unrounded: 1 + (2^-11 + 1e-7) rounds up to 1 + 2^-10,
    // where the scalar rounded to Half first (2^-11) would tie down to 1.
    check(
        "Half add",
        call(
            "binary",
            &[&floats(F16, &[2048.0, 2048.0]), &floats(F16, &[1.0, 3.0])],
            &bin(Bin::Add),
            F16,
        ),
        &fs(&[2048.0, 2052.0]),
    );
    check(
        "Half + scalar",
        call(
            "tensor_scalar",
            &[&floats(F16, &[1.0])],
            &[S::F(0.00048828125 + 1e-7), S::I(1), S::I(0)],
            F16,
        ),
        &fs(&[1.0 + 2f32.powi(-10)]),
    );
    // abs of Char -128 is -128; ceil and floor of integers copy.
    check(
        "Char abs",
        call(
            "unary",
            &[&ints(I8, &[-128, -127, 5])],
            &[S::I(Un::Abs as i64)],
            I8,
        ),
        &is(&[-128, 127, 5]),
    );
    // Integer powers: 2^10, 3^3, (-2)^3, 0^0 = 1, 1^-5 = 1, (-1)^-3 = -1, 5^-1 = 0.
    check(
        "Int pow",
        call(
            "binary",
            &[
                &ints(I32, &[2, 3, -2, 0, 1, -1, 5]),
                &ints(I32, &[10, 3, 3, 0, -5, -3, -1]),
            ],
            &bin(Bin::Pow),
            I32,
        ),
        &is(&[1024, 27, -8, 1, 1, -1, 0]),
    );
    // clamp: min > max gives max; NaN stays NaN; a NaN bound gives NaN everywhere.
    check(
        "clamp min > max",
        call(
            "clamp_op",
            &[&ints(I32, &[1, 5, 9])],
            &[S::I(7), S::I(3)],
            I32,
        ),
        &is(&[3, 3, 3]),
    );
    check(
        "clamp NaN",
        call(
            "clamp_op",
            &[&floats(F32, &[f32::NAN, 1.0, -5.0])],
            &[S::I(0), S::I(2)],
            F32,
        ),
        &fs(&[f32::NAN, 1.0, 0.0]),
    );
    check(
        "clamp Int by 0.5",
        call("clamp_op", &[&a_int()], &[S::F(0.5), S::F(2.5)], F32),
        &fs(&[1.0, 2.0, 2.5]),
    );
    // A scalar of a bitwise op is cast to the computation dtype: 255 is Char -1.
    check(
        "Char & 255",
        call(
            "tensor_scalar",
            &[&ints(I8, &[5, -3])],
            &[S::I(255), S::I(1), S::I(Bin::And as i64)],
            I8,
        ),
        &is(&[5, -3]),
    );
}

/// Each refusal stops the kernel with its own message (docs/sdk-ops.md "Errors").
#[q7_requires::needs(toolchain)]
#[test]
fn refusals_are_runtime_errors_naming_op_operands_and_dtypes() {
    if lib().is_none() {
        return;
    }
    let f3 = T::new(F32, &[V::F(1.0); 3]);
    let f4 = T::new(F32, &[V::F(1.0); 4]);
    let h3 = T::new(F16, &[V::F(1.0); 3]);
    let c3 = T::new(I8, &[V::I(1); 3]);
    let bin = |op: Bin| [S::I(1), S::I(op as i64)];
    fails(
        "shapes",
        call("binary", &[&f3, &f4], &bin(Bin::Add), F32),
        "kernel binary: add: self Float [3] and other Float [4] differ in shape: element-wise ops \
         do not broadcast",
    );
    fails(
        "2-D shapes",
        call(
            "binary",
            &[&f4.clone().shaped(&[2, 2]), &f4.clone().shaped(&[4, 1])],
            &bin(Bin::Mul),
            F32,
        ),
        "kernel binary: mul: self Float [2, 2] and other Float [4, 1] differ in shape: \
         element-wise ops do not broadcast",
    );
    fails(
        "bitwise floats",
        call("binary", &[&f3, &f3], &bin(Bin::And), F32),
        "kernel binary: bitwise_and: self Float [3] and other Float [3] compute in Float: bitwise \
         ops take integer dtypes only",
    );
    fails(
        "bitwise with a double",
        call(
            "tensor_scalar",
            &[&a_int()],
            &[S::F(0.5), S::I(1), S::I(Bin::Or as i64)],
            F32,
        ),
        "kernel tensor_scalar: bitwise_or: self Int [3] and other 0.5 compute in Float: bitwise \
         ops take integer dtypes only",
    );
    fails(
        "bitwise_not Half",
        call("unary", &[&h3], &[S::I(Un::Not as i64)], F16),
        "kernel unary: bitwise_not: self Half [3]: bitwise ops take integer dtypes only",
    );
    fails(
        "div_out into Int",
        call("binary_out", &[&a_int(), &a_int()], &bin(Bin::Div), I32),
        "kernel binary_out: div_out: result type Float can't be cast to the desired output type \
         Int (result Int [3])",
    );
    fails(
        "add_out Half into Short",
        call("binary_out", &[&h3, &c3], &bin(Bin::Add), I16),
        "kernel binary_out: add_out: result type Half can't be cast to the desired output type \
         Short (result Short [3])",
    );
    fails(
        "abs_out into another dtype",
        call("unary_out", &[&f3], &[S::I(Un::Abs as i64)], F16),
        "kernel unary_out: abs_out: found dtype Half but expected Float (result Half [3])",
    );
    fails(
        "pow_out(Tensor, Scalar) into another dtype",
        call(
            "tensor_scalar_out",
            &[&a_int()],
            &[S::I(2), S::I(1), S::I(Bin::Pow as i64)],
            F32,
        ),
        "kernel tensor_scalar_out: pow_out: found dtype Float but expected Int (result Float [3])",
    );
    fails(
        "clamp_out Int by a double into Int",
        call("clamp_op_out", &[&a_int()], &[S::F(0.5), S::I(2)], I32),
        "kernel clamp_op_out: clamp_out: found dtype Int but expected Float (result Int [3])",
    );
    fails(
        "negative integer power",
        call(
            "tensor_scalar",
            &[&a_int()],
            &[S::I(-1), S::I(1), S::I(Bin::Pow as i64)],
            I32,
        ),
        "kernel tensor_scalar: pow: Integers to negative integer powers are not allowed (self Int \
         [3], exponent -1)",
    );
    fails(
        "float alpha",
        call("binary", &[&a_int(), &a_int()], &[S::F(0.5), S::I(0)], I32),
        "kernel binary: add: For integral input tensors, argument alpha must not be a floating \
         point number (alpha 0.5, computing in Int)",
    );
    fails(
        "alpha overflow",
        call(
            "binary",
            &[&c3, &c3],
            &[S::I(300), S::I(Bin::Sub as i64)],
            I8,
        ),
        "kernel binary: sub: alpha -300 cannot be converted to Char without overflow",
    );
    fails(
        "clamp bound overflow",
        call("clamp_op", &[&c3], &[S::I(-300), S::I(1)], I8),
        "kernel clamp_op: clamp: min -300 cannot be converted to Char without overflow",
    );
    fails(
        "Half clamp bound overflow",
        call("clamp_op", &[&h3], &[S::I(0), S::F(65520.0)], F16),
        "kernel clamp_op: clamp: max 65520 cannot be converted to Half without overflow",
    );
    fails(
        "integer exponent overflow",
        call(
            "tensor_scalar",
            &[&c3],
            &[S::I(200), S::I(1), S::I(Bin::Pow as i64)],
            I8,
        ),
        "kernel tensor_scalar: pow: exponent 200 cannot be converted to Char without overflow",
    );
    let l3 = tensor_from_bytes(Dtype::from_code(0x7).unwrap(), &[3], vec![0; 24]).unwrap();
    fails(
        "a Long tensor",
        outcome(Run::new("unary").input(l3).scalar(0), I32),
        "kernel unary: abs: self Long [3]: element-wise ops take Float, BFloat16, Half, Int, \
         Short, Char and Byte tensors",
    );
    let wide = Run::new("binary_out")
        .input(f3.host())
        .input(f3.host())
        .scalar(1)
        .scalar(0)
        .output_shape(&[4]);
    fails(
        "a result of another shape",
        outcome(wide, F32),
        "kernel binary_out: add_out: result Float [4] differs in shape from self Float [3]: \
         element-wise ops do not broadcast or resize their result",
    );
}

/// `n` values of `d` cycling through its 41 inputs, each pass rotated by one.
fn long_input(d: D, n: usize, shift: usize) -> T {
    let base = input(d, shift).v;
    let v: Vec<V> = (0..n).map(|i| base[(i + i / 41) % 41]).collect();
    T::new(d, &v)
}

/// The ops stream any length in 512-element chunks, the last one partial, through three
/// buffer sets (so a run of four chunks reuses a set), on tensors of any rank: Float and Half
/// add, Char sub into Int, Half * scalar, scalar ** Byte and Short abs on lengths around the
/// chunk and its multiples, and on shapes of rank 0, 3 and 8.
#[q7_requires::needs(toolchain)]
#[test]
fn lengths_and_ranks() {
    if lib().is_none() {
        return;
    }
    let shapes: Vec<Vec<u64>> = [1u64, 2, 511, 512, 513, 1535, 1536, 1537, 2047, 2049, 5000]
        .iter()
        .map(|&n| vec![n])
        .chain([vec![], vec![3, 5, 137], vec![2, 1, 2, 1, 2, 1, 3, 5]])
        .collect();
    for shape in &shapes {
        let n = shape.iter().product::<u64>() as usize;
        for (da, db, out) in [(F32, F32, F32), (F16, F16, F16), (I8, I8, I32)] {
            let (a, b) = (
                long_input(da, n, 0).shaped(shape),
                long_input(db, n, 5).shaped(shape),
            );
            let op = if da == I8 { Bin::Sub } else { Bin::Add };
            let (_, want) = binary_ref(op, &a, &b, S::I(1), out);
            let form = if out == da { "binary" } else { "binary_out" };
            check(
                &format!("{op:?}({da:?}, {db:?}) -> {out:?} of {shape:?}"),
                call(form, &[&a, &b], &[S::I(1), S::I(op as i64)], out),
                &want,
            );
        }
        let h = long_input(F16, n, 2).shaped(shape);
        let (_, want) = tensor_scalar_ref(Bin::Mul, &h, S::F(1.7), S::I(1), F16);
        check(
            &format!("Half * 1.7 of {shape:?}"),
            call(
                "tensor_scalar",
                &[&h],
                &[S::F(1.7), S::I(1), S::I(Bin::Mul as i64)],
                F16,
            ),
            &want,
        );
        let e = long_input(U8, n, 1).shaped(shape);
        let want: Vec<V> = e.v.iter().map(|&y| V::I(powi(U8, 3, y.i()))).collect();
        check(
            &format!("3 ** Byte of {shape:?}"),
            call(
                "scalar_tensor",
                &[&e],
                &[S::I(3), S::I(Bin::Pow as i64)],
                U8,
            ),
            &want,
        );
        let s = long_input(I16, n, 3).shaped(shape);
        let want: Vec<V> =
            s.v.iter()
                .map(|&x| I16.cast(V::I(x.i().wrapping_abs())))
                .collect();
        check(
            &format!("abs(Short) of {shape:?}"),
            call("unary", &[&s], &[S::I(Un::Abs as i64)], I16),
            &want,
        );
    }
}

/// A tensor of no elements gives one of no elements.
#[q7_requires::needs(toolchain)]
#[test]
fn empty_tensors() {
    if lib().is_none() {
        return;
    }
    let e = T::new(F32, &[]).shaped(&[0]);
    check(
        "add of [0]",
        call("binary", &[&e, &e], &[S::I(1), S::I(0)], F32),
        &[],
    );
}

// ---- the ops in a kernel's surroundings ----

/// A library of `source` (in tests/programs/sdk) with `ops`, built once per test binary.
fn build_lib(source: &str, ops: &[&str], multicore: bool) -> Library {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("programs/sdk")
        .join(source);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("sdk-ops")
        .join(source.trim_end_matches(".cpp"));
    let mut k = Kernel::new(src);
    for op in ops {
        k = k.op(*op);
    }
    if multicore {
        k = k.multicore();
    }
    k.build(&dir)
        .unwrap_or_else(|e| panic!("building {source}: {e}"))
}

fn runtime_lib() -> Option<&'static Library> {
    static LIB: OnceLock<Option<Library>> = OnceLock::new();
    LIB.get_or_init(|| {
        toolchain_installed().then(|| {
            build_lib(
                "elementwise_runtime.cpp",
                &[
                    "in_place(Tensor a, Tensor b) -> Tensor",
                    "into_output(Tensor a, Tensor b) -> Tensor",
                    "squeezed(Tensor a, Tensor b, int keep) -> Tensor",
                    "misuse(Tensor a, int which) -> Tensor",
                ],
                false,
            )
        })
    })
    .as_ref()
}

fn multicore_lib() -> Option<&'static Library> {
    static LIB: OnceLock<Option<Library>> = OnceLock::new();
    LIB.get_or_init(|| {
        toolchain_installed().then(|| {
            build_lib(
                "elementwise_multicore.cpp",
                &[
                    "per_core(Tensor a, Tensor b) -> Tensor",
                    "core0(Tensor a, Tensor b) -> Tensor",
                ],
                true,
            )
        })
    })
    .as_ref()
}

fn floats_of(run: &q7_run::op::OpRun) -> Vec<V> {
    run.output.data.chunks(4).map(|b| F32.get(b)).collect()
}

/// An op's result may be one of its operands: each chunk is read before its result is
/// written (clamp(a + 2 b, -10, 10) computed over a copy of `a`, in place).
#[q7_requires::needs(toolchain)]
#[test]
fn results_may_overwrite_an_operand() {
    let Some(lib) = runtime_lib() else { return };
    let (a, b) = (long_input(F32, 1300, 0), long_input(F32, 1300, 8));
    let run = Run::new("in_place")
        .input(a.host())
        .input(b.host())
        .op_run(lib)
        .unwrap();
    let (lo, hi) = (V::F(-10.0), V::F(10.0));
    let want: Vec<V> =
        a.v.iter()
            .zip(&b.v)
            .map(|(&x, &y)| clamp(F32, V::F(x.f() + 2.0 * y.f()), lo, hi))
            .collect();
    check("in place", Ok(floats_of(&run)), &want);
}

/// SDMA traffic of add_out(Float) of 1000 elements into the op's output: each 512-element
/// chunk is one read per operand and one write (M2S 2 × 2 transfers of 8000 bytes in all, S2M
/// 2 of 4000); with the DATARAM heap held by the kernel but for 4 KiB the chunks shrink to 128
/// elements (16 and 8 transfers, the same bytes), and with none of it left the op stops with an
/// out-of-memory runtime error.
#[q7_requires::needs(toolchain)]
#[test]
fn chunks_are_sdma_transfers_and_shrink_with_the_dataram_heap() {
    let Some(lib) = runtime_lib() else { return };
    let (a, b) = (long_input(F32, 1000, 0), long_input(F32, 1000, 3));
    let (_, want) = binary_ref(Bin::Add, &a, &b, S::I(1), F32);
    let counts = |run: &q7_run::op::OpRun| {
        let p = &run.cores[0].platform;
        (
            p.sdma_m2s.transfers,
            p.sdma_m2s.bytes,
            p.sdma_s2m.transfers,
            p.sdma_s2m.bytes,
        )
    };
    let run = Run::new("into_output")
        .input(a.host())
        .input(b.host())
        .op_run(lib)
        .unwrap();
    check("into the output", Ok(floats_of(&run)), &want);
    assert_eq!(counts(&run), (4, 8000, 2, 4000));
    let run = Run::new("squeezed")
        .input(a.host())
        .input(b.host())
        .scalar(4)
        .op_run(lib)
        .unwrap();
    check("squeezed", Ok(floats_of(&run)), &want);
    assert_eq!(counts(&run), (16, 8000, 8, 4000));
    let err = Run::new("squeezed")
        .input(a.host())
        .input(b.host())
        .scalar(0)
        .op_run(lib)
        .unwrap_err();
    match err {
        TestingError::Run(e) => match *e {
            RunError::Device {
                source: FirmwareError::Aborted { code, message, .. },
                ..
            } => assert_eq!(
                (code, message.as_str()),
                (
                    5,
                    "kernel squeezed: add_out: the DATARAM heap cannot hold the op's 384 bytes \
                     of buffers"
                )
            ),
            e => panic!("{e}"),
        },
        e => panic!("{e}"),
    }
}

/// What a kernel can pass but the schema's arguments cannot: a bool alpha, refused as PyTorch
/// refuses it, and an undefined tensor, refused as every use of one is.
#[q7_requires::needs(toolchain)]
#[test]
fn a_bool_alpha_and_an_undefined_operand_are_refused() {
    let Some(lib) = runtime_lib() else { return };
    let a = T::new(F32, &[V::F(1.0); 3]);
    let run = |which: i64| match Run::new("misuse").input(a.host()).scalar(which).op_run(lib) {
        Err(TestingError::Run(e)) => match *e {
            RunError::Device {
                source: FirmwareError::Aborted { code, message, .. },
                ..
            } => (code, message),
            e => panic!("{e}"),
        },
        other => panic!("{other:?}"),
    };
    assert_eq!(
        run(0),
        (
            7,
            "kernel misuse: add: Boolean alpha only supported for Boolean results (alpha true)"
                .to_string()
        )
    );
    assert_eq!(
        run(1),
        (7, "kernel misuse: mul() of an undefined tensor".to_string())
    );
}

/// In a multicore library each core computes an op on the whole tensors (core c's a + (c + 1)
/// b, of which it keeps slice c), and an op only one core calls is computed by that core alone:
/// the other cores move nothing over SDMA.
#[q7_requires::needs(toolchain)]
#[test]
fn multicore_kernels_compute_each_op_on_the_calling_core() {
    let Some(lib) = multicore_lib() else { return };
    let n = 1203usize;
    let (a, b) = (long_input(F32, n, 0), long_input(F32, n, 6));
    let run = Run::new("per_core")
        .input(a.host())
        .input(b.host())
        .op_run(lib)
        .unwrap();
    let slice = n / 8;
    let want: Vec<V> = (0..n)
        .map(|i| {
            let core = (i / slice).min(7);
            V::F(a.v[i].f() + (core as f32 + 1.0) * b.v[i].f())
        })
        .collect();
    check("per core", Ok(floats_of(&run)), &want);
    let run = Run::new("core0")
        .input(a.host())
        .input(b.host())
        .op_run(lib)
        .unwrap();
    let want: Vec<V> =
        a.v.iter()
            .zip(&b.v)
            .map(|(&x, &y)| V::F(x.f() * y.f()))
            .collect();
    check("core 0", Ok(floats_of(&run)), &want);
    let m2s: Vec<u64> = run
        .cores
        .iter()
        .map(|c| c.platform.sdma_m2s.transfers)
        .collect();
    assert_eq!(m2s, [6, 0, 0, 0, 0, 0, 0, 0]);
}

/// sin, cos, tan, log, log2, log10 and exp of every dtype: integers compute in Float, Half and
/// BFloat16 in float; each element is the math library's result for the element's value in the
/// computation dtype (its host build's bits, which the device's equal), rounded once to the
/// computation dtype. The inputs reach sinf's large-argument reduction, logs of negatives,
/// zeros and subnormals, and expf's overflow.
#[q7_requires::needs(toolchain, host_cxx)]
#[test]
fn float_ops_give_the_math_librarys_results_rounded_to_the_dtype() {
    if lib().is_none() || math_support::native().is_none() {
        return;
    }
    for &d in &DTYPES {
        let a = input(d, 0);
        let c = d.floating();
        let args: Vec<(f32, f32)> = a.v.iter().map(|&x| (c.cast(x).f(), 0.0)).collect();
        for (op, name) in FLOAT_OPS {
            let want: Vec<V> = math(name, &args).iter().map(|&r| c.cast(V::F(r))).collect();
            check(
                &format!("{op:?}({d:?}) -> {c:?}"),
                call("unary", &[&a], &[S::I(op as i64)], c),
                &want,
            );
        }
    }
}

/// The float ops' _out forms store into any float dtype (rounded to the computation dtype
/// first), and refuse an integer result.
#[q7_requires::needs(toolchain, host_cxx)]
#[test]
fn float_ops_out_forms_cast_to_any_float_result() {
    if lib().is_none() || math_support::native().is_none() {
        return;
    }
    for (d, out) in [(I32, F16), (F16, F32), (Bf16, F16), (U8, Bf16), (F32, F16)] {
        let a = input(d, 3);
        let c = d.floating();
        let args: Vec<(f32, f32)> = a.v.iter().map(|&x| (c.cast(x).f(), 0.0)).collect();
        for (op, name) in [(Un::Exp, "expf"), (Un::Sin, "sinf")] {
            let want: Vec<V> = math(name, &args)
                .iter()
                .map(|&r| store(c, out, V::F(r)))
                .collect();
            check(
                &format!("{op:?}_out({d:?}) in {c:?} -> {out:?}"),
                call("unary_out", &[&a], &[S::I(op as i64)], out),
                &want,
            );
        }
    }
    fails(
        "log_out into Int",
        call("unary_out", &[&a_int()], &[S::I(Un::Log as i64)], I32),
        "kernel unary_out: log_out: result type Float can't be cast to the desired output type Int \
         (result Int [3])",
    );
}

/// pow computing in a float dtype is powf on the operands' values in that dtype: a scalar
/// exponent enters as the float nearest to it, a scalar base as the computation dtype's value
/// (rounded to Half first for a Half tensor); the result rounded once. Negative bases with
/// fractional exponents are NaN; integer tensors with a double scalar compute in Float.
#[q7_requires::needs(toolchain, host_cxx)]
#[test]
fn float_powers_are_powf_rounded_to_the_dtype() {
    if lib().is_none() || math_support::native().is_none() {
        return;
    }
    let powf = |c: D, pairs: &[(f32, f32)], out: D| -> Vec<V> {
        math("powf", pairs)
            .iter()
            .map(|&r| store(c, out, V::F(r)))
            .collect()
    };
    // Exponents: small integers and fractions, signed, zeros, ±inf, NaN (the inputs' other
    // rotation supplies large ones).
    for (da, db) in [
        (F32, F32),
        (F16, F16),
        (Bf16, Bf16),
        (I32, F32),
        (F16, I8),
        (U8, F16),
    ] {
        let (a, b) = (input(da, 0), input(db, 13));
        let c = da.promote(db);
        let pairs: Vec<(f32, f32)> =
            a.v.iter()
                .zip(&b.v)
                .map(|(&x, &y)| (c.cast(x).f(), c.cast(y).f()))
                .collect();
        for out in [c, F32] {
            let form = if out == c { "binary" } else { "binary_out" };
            check(
                &format!("pow({da:?}, {db:?}) in {c:?} -> {out:?}"),
                call(form, &[&a, &b], &[S::I(1), S::I(Bin::Pow as i64)], out),
                &powf(c, &pairs, out),
            );
        }
    }
    for (d, s) in [
        (F32, S::F(0.5)),
        (F32, S::I(-2)),
        (F16, S::F(-1.5)),
        (Bf16, S::I(3)),
        (I32, S::F(0.5)),
        (I8, S::F(-0.25)),
    ] {
        let a = input(d, 5);
        let c = with_scalar(d, s);
        let pairs: Vec<(f32, f32)> = a.v.iter().map(|&x| (c.cast(x).f(), s.f32())).collect();
        check(
            &format!("pow({d:?}, {s:?}) -> {c:?}"),
            call(
                "tensor_scalar",
                &[&a],
                &[s, S::I(1), S::I(Bin::Pow as i64)],
                c,
            ),
            &powf(c, &pairs, c),
        );
    }
    for (s, d) in [
        (S::F(2.5), F16),
        (S::F(0.1), F32),
        (S::I(2), F32),
        (S::F(-1.5), I32),
        (S::F(0.1), Bf16),
    ] {
        let e = input(d, 7);
        let c = with_scalar(d, s);
        let base = c.cast(V::F(s.f32())).f();
        let pairs: Vec<(f32, f32)> = e.v.iter().map(|&y| (base, c.cast(y).f())).collect();
        check(
            &format!("pow({s:?}, {d:?}) -> {c:?}"),
            call("scalar_tensor", &[&e], &[s, S::I(Bin::Pow as i64)], c),
            &powf(c, &pairs, c),
        );
    }
}
