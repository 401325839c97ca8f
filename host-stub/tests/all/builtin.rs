//! The builtin SORT / TOPK library of `examples/builtin` (its README.md is the specification):
//!
//! - every op equals a reference computed here — a stable sort of the row's positions by
//!   PyTorch's order (NaN above +inf, -0 equal to +0) — for every supported dtype, both
//!   orders, row lengths that are and are not powers of two or multiples of 8, rows that fit
//!   one TCM block and rows that need merge passes through HBM, values bit for bit and int32
//!   indices exactly;
//! - NaNs go last ascending, first descending and first for `largest` top-k;
//! - the committed build is a builtin library set: eight images `libbuiltincustomop_cpu{i}`,
//!   `cpu_id` i, `total_cpus` 8, `is_builtin` true (PLATFORM.md "`ucode_lib.json` and the
//!   library registry");
//! - the committed `custom_op/` data directory stages as PLATFORM.md "NEFF bundle" says, its
//!   images being the packed images' device images; a missing directory is the seed's error;
//! - the committed build and data directory are what `q7_kernel_build::builtin::build` makes from
//!   `examples/builtin/sort.cpp`, byte for byte (with the toolchain; `Q7EMU_UPDATE_EXAMPLES=1`
//!   rewrites them);
//! - the cycle table of the README is what the runs cost.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use q7_kernel_build::builtin::{self, BuiltinOptions, LIBRARY, OPS};
use q7_loader::ucode_lib::Registry;
use q7_run::op::OpRun;
use q7_tensor::dtype::Dtype;
use q7_testing::{tensor_from_bytes, Library, Run, TestingError};
use q7_tests::{Rng, TempDir};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn example() -> PathBuf {
    Path::new(ROOT).join("examples/builtin")
}

fn library() -> Library {
    Library::open(&example().join("build")).expect("the committed builtin build opens")
}

// ---------------------------------------------------------------------------------------------
// Element types and the reference order.

/// A dtype the ops take: its ISA code (PLATFORM.md "ISA dtype codes") and element bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    F32,
    Bf16,
    F16,
    I32,
    I16,
    I8,
    U8,
}

const TYPES: [Ty; 7] = [Ty::F32, Ty::Bf16, Ty::F16, Ty::I32, Ty::I16, Ty::I8, Ty::U8];

impl Ty {
    fn dtype(self) -> Dtype {
        let code = match self {
            Ty::F32 => 0xC,
            Ty::Bf16 => 0xA,
            Ty::F16 => 0x8,
            Ty::I32 => 0x6,
            Ty::I16 => 0x4,
            Ty::I8 => 0x2,
            Ty::U8 => 0x3,
        };
        Dtype::from_code(code).unwrap()
    }
    fn bytes(self) -> usize {
        match self {
            Ty::F32 | Ty::I32 => 4,
            Ty::Bf16 | Ty::F16 | Ty::I16 => 2,
            Ty::I8 | Ty::U8 => 1,
        }
    }
    /// The element's value as PyTorch compares it: `None` for NaN.
    fn value(self, bits: u32) -> Option<f64> {
        let v = match self {
            Ty::F32 => f64::from(f32::from_bits(bits)),
            Ty::Bf16 => f64::from(f32::from_bits(bits << 16)),
            Ty::F16 => f64::from(half::f16::from_bits(bits as u16).to_f32()),
            Ty::I32 => f64::from(bits as i32),
            Ty::I16 => f64::from(bits as u16 as i16),
            Ty::I8 => f64::from(bits as u8 as i8),
            Ty::U8 => f64::from(bits as u8),
        };
        (!v.is_nan()).then_some(v)
    }
    /// PyTorch's ascending order: NaNs equal to each other and above everything, -0 == +0.
    fn cmp(self, a: u32, b: u32) -> Ordering {
        match (self.value(a), self.value(b)) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(x), Some(y)) => x.partial_cmp(&y).unwrap(),
        }
    }
    /// Interesting bit patterns: ties, zeros of both signs, infinities, NaNs with payloads,
    /// subnormals, the extremes.
    fn edges(self) -> &'static [u32] {
        match self {
            Ty::F32 => &[
                0x0000_0000,
                0x8000_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0xffc0_0001,
                0x7f80_0001,
                0x0000_0001,
                0x8000_0001,
                0x7f7f_ffff,
                0xff7f_ffff,
                0x3f80_0000,
                0xbf80_0000,
            ],
            Ty::Bf16 => &[
                0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81, 0x0001, 0x8001, 0x7f7f,
                0xff7f, 0x3f80, 0xbf80,
            ],
            Ty::F16 => &[
                0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0x0001, 0x8001, 0x7bff,
                0xfbff, 0x3c00, 0xbc00,
            ],
            Ty::I32 => &[0, 0x8000_0000, 0x7fff_ffff, 0xffff_ffff, 1],
            Ty::I16 => &[0, 0x8000, 0x7fff, 0xffff, 1],
            Ty::I8 | Ty::U8 => &[0, 0x80, 0x7f, 0xff, 1],
        }
    }
}

/// `n` elements: a third edges, a third few distinct small values (many ties), a third random
/// bits.
fn elements(ty: Ty, n: usize, rng: &mut Rng) -> Vec<u32> {
    let mask = if ty.bytes() == 4 {
        u32::MAX
    } else {
        (1u32 << (8 * ty.bytes())) - 1
    };
    let edges = ty.edges();
    (0..n)
        .map(|_| match rng.below(3) {
            0 => edges[rng.below(edges.len() as u32) as usize],
            1 => {
                let small = rng.below(5);
                match ty {
                    Ty::F32 => (small as f32 - 2.0).to_bits(),
                    Ty::Bf16 => (small as f32 - 2.0).to_bits() >> 16,
                    Ty::F16 => u32::from(half::f16::from_f32(small as f32 - 2.0).to_bits()),
                    _ => (small.wrapping_sub(2)) & mask,
                }
            }
            _ => rng.next_u32() & mask,
        })
        .collect()
}

fn to_bytes(ty: Ty, v: &[u32]) -> Vec<u8> {
    v.iter()
        .flat_map(|b| b.to_le_bytes()[..ty.bytes()].to_vec())
        .collect()
}

fn from_bytes(size: usize, data: &[u8]) -> Vec<u32> {
    data.chunks(size)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..size].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

/// The reference permutation of one row: positions stably sorted by PyTorch's order,
/// ascending, or descending with equal elements in input order (`torch.sort(stable=True)`).
fn reference_order(ty: Ty, row: &[u32], descending: bool) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..row.len() as u32).collect();
    idx.sort_by(|&a, &b| {
        let o = ty.cmp(row[a as usize], row[b as usize]);
        if descending {
            o.reverse()
        } else {
            o
        }
    });
    idx
}

// ---------------------------------------------------------------------------------------------
// Running the ops.

fn input(ty: Ty, shape: &[u64], v: &[u32]) -> q7_tensor::HostTensor {
    tensor_from_bytes(ty.dtype(), shape, to_bytes(ty, v)).unwrap()
}

fn run_sort(
    lib: &Library,
    ty: Ty,
    shape: &[u64],
    v: &[u32],
    descending: bool,
    indices: bool,
) -> OpRun {
    let mut run = Run::new(if indices {
        "sort_indices"
    } else {
        "sort_values"
    })
    .input(input(ty, shape, v))
    .scalar(descending);
    if indices {
        run = run.output_dtype(Ty::I32.dtype());
    }
    run.op_run(lib).unwrap()
}

fn run_topk(
    lib: &Library,
    ty: Ty,
    shape: &[u64],
    v: &[u32],
    k: u64,
    largest: bool,
    indices: bool,
) -> Result<OpRun, TestingError> {
    let mut out_shape = shape.to_vec();
    *out_shape.last_mut().unwrap() = k;
    let mut run = Run::new(if indices {
        "topk_indices"
    } else {
        "topk_values"
    })
    .input(input(ty, shape, v))
    .scalar(k as i64)
    .scalar(largest)
    .output_shape(&out_shape);
    if indices {
        run = run.output_dtype(Ty::I32.dtype());
    }
    run.op_run(lib)
}

/// Checks sort and top-k outputs of one input against the reference, row by row.
fn check(lib: &Library, ty: Ty, rows: usize, n: usize, seed: u64) {
    let mut rng = Rng(seed);
    let v = elements(ty, rows * n, &mut rng);
    let shape = [rows as u64, n as u64];
    for descending in [false, true] {
        let what = format!("{ty:?} [{rows}, {n}] descending={descending} seed={seed}");
        let values = from_bytes(
            ty.bytes(),
            &run_sort(lib, ty, &shape, &v, descending, false).output.data,
        );
        let indices = from_bytes(
            4,
            &run_sort(lib, ty, &shape, &v, descending, true).output.data,
        );
        let k = (n / 3 + 1).min(n) as u64;
        let top_values = from_bytes(
            ty.bytes(),
            &run_topk(lib, ty, &shape, &v, k, descending, false)
                .unwrap()
                .output
                .data,
        );
        let top_indices = from_bytes(
            4,
            &run_topk(lib, ty, &shape, &v, k, descending, true)
                .unwrap()
                .output
                .data,
        );
        for r in 0..rows {
            let row = &v[r * n..(r + 1) * n];
            let order = reference_order(ty, row, descending);
            let want_values: Vec<u32> = order.iter().map(|&i| row[i as usize]).collect();
            assert_eq!(
                &indices[r * n..(r + 1) * n],
                &order[..],
                "sort_indices {what} row {r}"
            );
            assert_eq!(
                &values[r * n..(r + 1) * n],
                &want_values[..],
                "sort_values {what} row {r}"
            );
            let k = k as usize;
            assert_eq!(
                &top_indices[r * k..(r + 1) * k],
                &order[..k],
                "topk_indices {what} row {r}"
            );
            assert_eq!(
                &top_values[r * k..(r + 1) * k],
                &want_values[..k],
                "topk_values {what} row {r}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Results.

#[test]
fn every_dtype_sorts_as_the_reference_in_both_orders_for_short_rows() {
    let lib = library();
    for (i, ty) in TYPES.into_iter().enumerate() {
        // One element, not a multiple of 8, a power of two, one TCM block exactly; three to
        // eleven rows spread over the eight cores.
        for (j, (rows, n)) in [(3, 1), (11, 13), (9, 64), (3, 100), (2, 512)]
            .into_iter()
            .enumerate()
        {
            check(&lib, ty, rows, n, (i * 16 + j) as u64 + 1);
        }
    }
}

#[test]
fn rows_longer_than_a_tcm_block_merge_through_hbm() {
    let lib = library();
    // 513: one block and one element; 1024: two blocks; 2500: five runs, three merge passes
    // with an odd run left over.
    for (i, ty) in [Ty::F32, Ty::Bf16, Ty::I16, Ty::U8].into_iter().enumerate() {
        check(&lib, ty, 2, 513, 100 + i as u64);
    }
    check(&lib, Ty::F16, 1, 1024, 200);
    check(&lib, Ty::I32, 3, 2500, 201);
    check(&lib, Ty::I8, 1, 2500, 202);
}

#[test]
fn a_tensor_of_rank_3_sorts_each_row_of_its_last_dimension() {
    let lib = library();
    let v: Vec<u32> = [3i32, 1, 2, 1, 0, -1, 5, 5, 4, 9, -9, 0]
        .iter()
        .map(|&x| x as u32)
        .collect();
    let out = run_sort(&lib, Ty::I32, &[2, 2, 3], &v, false, false);
    assert_eq!(out.output.shape, [2, 2, 3]);
    let got: Vec<i32> = from_bytes(4, &out.output.data)
        .into_iter()
        .map(|b| b as i32)
        .collect();
    assert_eq!(got, [1, 2, 3, -1, 0, 1, 4, 5, 5, -9, 0, 9]);
    // A 0-d tensor is one row of one element.
    let out = run_sort(&lib, Ty::I32, &[], &[7], true, true);
    assert_eq!(
        (out.output.shape.len(), out.output.data.as_slice()),
        (0, &[0u8, 0, 0, 0][..])
    );
}

#[test]
fn nan_sorts_above_infinity_and_zeros_of_both_signs_are_equal() {
    let lib = library();
    let f = |x: f32| x.to_bits();
    let nan = 0x7fc0_0000u32;
    let neg_nan = 0xffc0_0001u32;
    // [NaN, 1, -0, -inf, -NaN, +0, inf, -1]
    let v = [
        nan,
        f(1.0),
        f(-0.0),
        f(f32::NEG_INFINITY),
        neg_nan,
        f(0.0),
        f(f32::INFINITY),
        f(-1.0),
    ];
    let idx = |d| from_bytes(4, &run_sort(&lib, Ty::F32, &[8], &v, d, true).output.data);
    let val = |d| from_bytes(4, &run_sort(&lib, Ty::F32, &[8], &v, d, false).output.data);
    // Ascending: NaNs last in input order; -0 (index 2) before +0 (index 5), their input order.
    assert_eq!(idx(false), [3, 7, 2, 5, 1, 6, 0, 4]);
    assert_eq!(
        val(false),
        [
            f(f32::NEG_INFINITY),
            f(-1.0),
            f(-0.0),
            f(0.0),
            f(1.0),
            f(f32::INFINITY),
            nan,
            neg_nan
        ]
    );
    // Descending: NaNs first, equal elements still in input order.
    assert_eq!(idx(true), [0, 4, 6, 1, 2, 5, 7, 3]);
    assert_eq!(
        val(true),
        [
            nan,
            neg_nan,
            f(f32::INFINITY),
            f(1.0),
            f(-0.0),
            f(0.0),
            f(-1.0),
            f(f32::NEG_INFINITY)
        ]
    );
    // topk largest puts NaN first; smallest leaves it out.
    let top = |k, largest| {
        from_bytes(
            4,
            &run_topk(&lib, Ty::F32, &[8], &v, k, largest, true)
                .unwrap()
                .output
                .data,
        )
    };
    assert_eq!(top(3, true), [0, 4, 6]);
    assert_eq!(top(3, false), [3, 7, 2]);
    assert_eq!(top(0, true), Vec::<u32>::new());
    assert_eq!(top(8, false), [3, 7, 2, 5, 1, 6, 0, 4]);
}

#[test]
fn k_beyond_the_row_and_a_wrong_output_dtype_stop_the_kernel_with_a_message() {
    let lib = library();
    let v = [1u32, 2, 3];
    let err = run_topk(&lib, Ty::I32, &[3], &v, 4, true, false).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("topk_values: selected index k out of range"),
        "{text}"
    );
    // Without --out-dtype int32 the output takes the float32 input's dtype.
    let floats = [1.0f32.to_bits(), 0, 2.0f32.to_bits()];
    let err = Run::new("sort_indices")
        .input(input(Ty::F32, &[3], &floats))
        .scalar(false)
        .op_run(&lib)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("sort_indices: the output must be int32"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// The library set: registry, staging, bundle.

#[test]
fn the_committed_registry_lists_eight_builtin_libraries_with_the_four_ops() {
    let text = std::fs::read_to_string(example().join("build/ucode_lib.json")).unwrap();
    let registry = Registry::from_json(&text).unwrap();
    let libs = registry.libraries();
    assert_eq!(libs.len(), 8);
    for (i, lib) in libs.iter().enumerate() {
        assert_eq!(
            lib.file_name,
            format!("libbuiltincustomop_cpu{i}.packed.so")
        );
        assert_eq!(
            (lib.cpu_id, lib.total_cpus, lib.is_builtin),
            (i as u8, 8, true)
        );
        assert_eq!(
            lib.functions,
            [
                ("sort_values".to_string(), 0),
                ("sort_indices".to_string(), 1),
                ("topk_values".to_string(), 2),
                ("topk_indices".to_string(), 3)
            ]
        );
    }
    // The ops of q7build.json are the module's table, in FunctionId order.
    let lib = library();
    for (id, (name, schema)) in OPS.iter().enumerate() {
        let op = lib.op(name).unwrap();
        assert_eq!((op.function_id as usize, op.schema.as_str()), (id, *schema));
    }
}

#[test]
fn the_data_directory_stages_the_eight_device_images() {
    let dir = example().join("custom_op");
    let (registry, staged) = builtin::stage(&dir).unwrap();
    assert_eq!(
        staged
            .iter()
            .map(|s| (s.cpu, s.file_name.as_str()))
            .collect::<Vec<_>>(),
        (0..8u8)
            .map(|i| (i, format!("libbuiltincustomop_cpu{i}.stripped.so")))
            .collect::<Vec<_>>()
            .iter()
            .map(|(i, n)| (*i, n.as_str()))
            .collect::<Vec<_>>()
    );
    for s in &staged {
        // Each staged image is the device image its packed library carries.
        let packed =
            std::fs::read(example().join(format!("build/{LIBRARY}_cpu{}.packed.so", s.cpu)))
                .unwrap();
        assert_eq!(
            q7_loader::packed::device_image(&packed).unwrap(),
            s.bytes.as_slice(),
            "{}",
            s.file_name
        );
        let lib = &registry.libraries()[usize::from(s.cpu)];
        assert_eq!(
            (
                lib.file_name.as_str(),
                lib.cpu_id,
                lib.total_cpus,
                lib.is_builtin
            ),
            (s.file_name.as_str(), s.cpu, 8, true)
        );
        assert_eq!(lib.functions.len(), 4);
    }
}

#[test]
fn staging_takes_the_images_that_are_files_and_needs_the_directory() {
    let tmp = TempDir::new("builtin-staging");
    let missing = tmp.join("custom_op");
    assert_eq!(
        builtin::stage(&missing).unwrap_err().to_string(),
        "Custom op data directory not found"
    );
    std::fs::create_dir(&missing).unwrap();
    let src = example().join("custom_op");
    for i in [2, 6] {
        let name = format!("libbuiltincustomop_cpu{i}.stripped.so");
        std::fs::copy(src.join(&name), missing.join(&name)).unwrap();
    }
    // A directory under an image's name is not staged.
    std::fs::create_dir(missing.join("libbuiltincustomop_cpu3.stripped.so")).unwrap();
    let (registry, staged) = builtin::stage(&missing).unwrap();
    assert_eq!(staged.iter().map(|s| s.cpu).collect::<Vec<_>>(), [2, 6]);
    assert_eq!(
        registry
            .libraries()
            .iter()
            .map(|l| (l.cpu_id, l.total_cpus, l.is_builtin))
            .collect::<Vec<_>>(),
        [(2, 8, true), (6, 8, true)]
    );
}

#[test]
fn the_bundle_holds_def_json_the_eight_images_and_the_registry() {
    let mut tar_bytes = Vec::new();
    builtin::bundle(&example().join("custom_op"), &mut tar_bytes).unwrap();
    let mut archive = tar::Archive::new(tar_bytes.as_slice());
    let mut names = Vec::new();
    let mut def = String::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().display().to_string();
        if name == "def.json" {
            std::io::Read::read_to_string(&mut entry, &mut def).unwrap();
        }
        names.push(name);
    }
    let mut want = vec!["def.json".to_string()];
    want.extend((0..8).map(|i| format!("libbuiltincustomop_cpu{i}.stripped.so")));
    want.push("ucode_lib.json".to_string());
    assert_eq!(names, want);
    let def: serde_json::Value = serde_json::from_str(&def).unwrap();
    assert_eq!(def["neff_features"], q7_loader::neff::FEATURE_CUSTOM_OPS);
    assert_eq!(def["ucode_lib"].as_array().unwrap().len(), 8);
    assert_eq!(def["ucode_lib"][7]["is_builtin"], true);
}

// ---------------------------------------------------------------------------------------------
// Rebuilding.

fn updating() -> bool {
    std::env::var_os("Q7EMU_UPDATE_EXAMPLES").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The committed files of a directory: what `q7emu run` reads and the registry in a build
/// directory, every file in the data directory.
fn committed_files(dir: &Path, all: bool) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    all || n.ends_with(".packed.so") || n == "ucode_lib.json" || n == "q7build.json"
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[q7_requires::needs(toolchain)]
#[test]
fn the_committed_build_and_data_directory_rebuild_byte_identical() {
    if q7_tests::tool("g++").is_none() {
        return;
    }
    let tmp = TempDir::new("builtin-rebuild");
    let opts = BuiltinOptions {
        sources: vec![example().join("sort.cpp")],
        build_dir: tmp.join("build"),
        data_dir: tmp.join("custom_op"),
        ..BuiltinOptions::default()
    };
    builtin::build(&opts).unwrap();
    for (sub, all) in [("build", false), ("custom_op", true)] {
        let rebuilt_dir = tmp.join(sub);
        let committed_dir = example().join(sub);
        let rebuilt = committed_files(&rebuilt_dir, all);
        if updating() {
            for stale in committed_files(&committed_dir, all) {
                std::fs::remove_file(committed_dir.join(stale)).unwrap();
            }
            std::fs::create_dir_all(&committed_dir).unwrap();
            for f in &rebuilt {
                std::fs::copy(rebuilt_dir.join(f), committed_dir.join(f)).unwrap();
            }
        }
        assert_eq!(
            committed_files(&committed_dir, all),
            rebuilt,
            "examples/builtin/{sub}"
        );
        for f in &rebuilt {
            assert!(
                std::fs::read(rebuilt_dir.join(f)).unwrap()
                    == std::fs::read(committed_dir.join(f)).unwrap(),
                "examples/builtin/{sub}/{f} differs from a rebuild: run Q7EMU_UPDATE_EXAMPLES=1 \
                 cargo test -p q7-host --test all builtin:: and commit it"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Cycles.

/// The README's cycle table: (op, rows, row length, k) on float32 elements of fixed seed 7.
const CYCLE_RUNS: [(&str, u64, u64, u64); 6] = [
    ("sort_values", 1, 512, 512),
    ("sort_values", 1, 4096, 4096),
    ("sort_values", 1, 32768, 32768),
    ("sort_values", 8, 4096, 4096),
    ("sort_indices", 1, 4096, 4096),
    ("topk_values", 1, 4096, 16),
];

#[test]
fn the_readmes_cycle_table_is_what_the_runs_cost() {
    let lib = library();
    let mut lines = Vec::new();
    for (op, rows, n, k) in CYCLE_RUNS {
        let v = elements(Ty::F32, (rows * n) as usize, &mut Rng(7));
        let mut run = Run::new(op).input(input(Ty::F32, &[rows, n], &v));
        if op.starts_with("topk") {
            run = run.scalar(k as i64).scalar(true).output_shape(&[rows, k]);
        } else {
            run = run.scalar(false);
        }
        if op.ends_with("indices") {
            run = run.output_dtype(Ty::I32.dtype());
        }
        let out = run.op_run(&lib).unwrap();
        let slowest = out.cores.iter().map(|c| c.stats.cycles).max().unwrap();
        let busy = out
            .cores
            .iter()
            .filter(|c| c.platform.sdma_m2s.transfers > 0)
            .count();
        lines.push(vec![
            format!("`{op}`"),
            format!("{rows} × {n}"),
            if op.starts_with("topk") {
                k.to_string()
            } else {
                "—".to_string()
            },
            busy.to_string(),
            slowest.to_string(),
            format!("{:.1}", slowest as f64 / (rows * n) as f64 * busy as f64),
        ]);
    }
    let path = example().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    if updating() {
        let text = q7_tests::doc::with_table_after(&readme, "## Cycles", &lines);
        std::fs::write(&path, text).unwrap();
        return;
    }
    let table = q7_tests::doc::table_after(&readme, "## Cycles");
    assert_eq!(
        table, lines,
        "examples/builtin/README.md \"Cycles\" (Q7EMU_UPDATE_EXAMPLES=1 rewrites it)"
    );
}
