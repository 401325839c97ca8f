//! The SDK's math library (`examples/sdk/rt/math`, whose README.md states each function's
//! contract and its error bound in ulps, the table "Functions" these tests read):
//!
//! - its constants are what `math_support/tables.rs` computes in exact integer arithmetic;
//! - compiled for the host (`-DQ7_MATH_HOST`, `tests/programs/math/native.cpp`), every function
//!   stays within its documented bound against the host's libm one format wider on a
//!   deterministic sample — every 4099th float bit pattern for the unary float functions,
//!   generated arguments for the others, every edge case (and pair of edge cases) for all —
//!   with no class mismatch (NaN, infinity, signed zero); and the exact results of the README's
//!   "Edge cases" hold;
//! - compiled for the device by the build driver (`q7emu build`'s steps) into a kernel and run
//!   on the emulator, every function gives the host build's bits on edge cases and a spread of
//!   arguments;
//! - the README's exhaustive results ("Measured") are within the bounds and cover every
//!   function.
//!
//! The exhaustive run over all 2^32 floats is `scripts/math-exhaustive.sh` (DEVELOPING.md).

use crate::math_support;

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use math_support::{bounds, functions, host_values, native, parse_measured, programs, Function};
use q7_tensor::HostTensor;
use q7_testing::{tensor, toolchain_installed, Kernel, Run};
use q7_tests::{Rng, TempDir};

/// Unary float functions are sampled at every STEP-th bit pattern (about a million cases).
const STEP: u64 = 4099;
/// Generated arguments per function of two arguments or of double precision.
const GENERATED: u64 = 200_000;
/// The sample's fixed seed (the sample is the same on every run).
const SEED: u64 = 1;

/// examples/sdk/rt/math/tables.h is what tests/tests/all/math_support/tables.rs computes.
#[test]
fn the_constant_tables_are_what_the_generator_computes() {
    q7_tests::generated::check_file(
        "examples/sdk/rt/math/tables.h",
        &math_support::tables::render(),
        &q7_tests::generated::regenerate("q7-tests", "all sdk_math::"),
    );
}

/// The README's table "Functions" lists exactly the functions the harness measures.
#[test]
fn the_readme_bounds_every_measured_function() {
    let measured: Vec<String> = functions().into_iter().map(|f| f.name).collect();
    let documented: Vec<String> = bounds().into_keys().collect();
    let mut sorted = measured.clone();
    sorted.sort();
    assert_eq!(sorted, documented, "functions.h against the README's table");
    for (name, bound) in bounds() {
        assert!(
            (0.5..=2.0).contains(&bound),
            "{name}: a bound of {bound} ulps"
        );
    }
}

/// The README's "Measured" is the long run of `scripts/math-exhaustive.sh`: one row per
/// function of functions.h, in its order; each row's error buckets add up to its cases, no
/// result is of another class than the reference's, the largest error is within the
/// function's bound; a unary float function was measured on all 2^32 arguments, a float
/// function of two arguments on at least 10^8, a double one on at least 10^7.
#[test]
fn the_readmes_exhaustive_results_are_within_the_bounds_and_cover_every_function() {
    let readme =
        std::fs::read_to_string(q7_tests::doc::root().join("examples/sdk/rt/math/README.md"))
            .unwrap();
    let rows = q7_tests::doc::table_after(&readme, "## Measured");
    let names: Vec<String> = functions().into_iter().map(|f| f.name).collect();
    let listed: Vec<&str> = rows.iter().map(|r| r[0].trim_matches('`')).collect();
    assert_eq!(
        listed, names,
        "one row per function of functions.h, in order"
    );
    let bounds = bounds();
    for (row, f) in rows.iter().zip(functions()) {
        // | function | arguments | cases | max error | ≤ 0.5 | (0.5, 1] | (1, 1.5] | (1.5, 2] | > 2 | class | at |
        let n = |i: usize| -> u64 {
            row[i]
                .parse()
                .unwrap_or_else(|_| panic!("{}: column {i} {:?}", f.name, row[i]))
        };
        let cases = n(2);
        let max: f64 = row[3].parse().unwrap();
        let buckets: u64 = (4..9).map(n).sum();
        assert_eq!(
            buckets, cases,
            "{}: the buckets add up to the cases",
            f.name
        );
        assert_eq!(n(9), 0, "{}: no class mismatch", f.name);
        assert!(
            max <= bounds[&f.name],
            "{}: {max} ulps over the bound {}",
            f.name,
            bounds[&f.name]
        );
        let least = match (f.double, f.binary) {
            (false, false) => 1 << 32,
            (false, true) => 100_000_000,
            (true, _) => 10_000_000,
        };
        assert!(
            cases >= least,
            "{}: {cases} cases, at least {least}",
            f.name
        );
        if !f.double && !f.binary {
            assert_eq!(cases, 1 << 32, "{}: every float argument once", f.name);
        }
    }
}

#[q7_requires::needs(host_cxx)]
#[test]
fn every_function_is_within_its_bound_on_the_deterministic_sample() {
    let Some(exe) = native() else {
        return;
    };
    // Two processes, each half of the functions.
    let names: Vec<String> = functions().into_iter().map(|f| f.name).collect();
    let halves = [
        names.iter().step_by(2).cloned().collect::<Vec<_>>(),
        names.iter().skip(1).step_by(2).cloned().collect::<Vec<_>>(),
    ];
    let children: Vec<_> = halves
        .iter()
        .map(|half| {
            Command::new(exe)
                .args(["sample", &STEP.to_string(), &GENERATED.to_string()])
                .arg(SEED.to_string())
                .arg(half.join(","))
                .stdout(Stdio::piped())
                .spawn()
                .expect("native harness")
        })
        .collect();
    let mut out = String::new();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success());
        out.push_str(&String::from_utf8_lossy(&o.stdout));
    }
    let classes: Vec<&str> = out.lines().filter(|l| l.starts_with("CLASS")).collect();
    assert!(
        classes.is_empty(),
        "results of another class than the reference's:\n{}",
        classes.join("\n")
    );
    let measured = parse_measured(&out);
    for (name, bound) in bounds() {
        let m = measured
            .get(&name)
            .unwrap_or_else(|| panic!("{name}: no result line in\n{out}"));
        assert!(
            m.max <= bound,
            "{name}: {} ulps at {} exceeds the documented bound of {bound}",
            m.max,
            m.at
        );
        assert_eq!(m.class, 0, "{name}");
        eprintln!(
            "{name:<8} {} cases, max {:.4} ulps (bound {bound})",
            m.cases, m.max
        );
    }
}

/// The exact results of the README's "Edge cases": C99 Annex F's special values, exact
/// results, the NaN policy.
#[q7_requires::needs(host_cxx)]
#[test]
fn edge_cases_give_their_exact_results() {
    let Some(exe) = native() else {
        return;
    };
    let out = Command::new(exe).arg("edges").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.ends_with(" failed\n") && text.contains(" checks, 0 failed"),
        "{text}"
    );
}

/// The arguments of the device comparison: every edge case (unary; binary: each edge case as
/// x with 8 edge cases as y, and as y with 8 as x, cycling through them), then a spread: evenly
/// spaced bit patterns, and random ones from a fixed seed.
fn device_arguments(f: &Function, edges: &[u64]) -> Vec<(u64, u64)> {
    let mut args = Vec::new();
    if f.binary {
        let n = edges.len();
        for (i, &e) in edges.iter().enumerate() {
            for k in 0..8 {
                let other = edges[(i * 5 + k * 13 + 1) % n];
                args.push((e, other));
                args.push((other, e));
            }
        }
    } else {
        args.extend(edges.iter().map(|&x| (x, 0)));
    }
    let mut rng = Rng(0x6d61_7468 ^ f.name.len() as u64);
    for k in 0..256u64 {
        let spaced = if f.double {
            k.wrapping_mul(0x0100_0000_0000_0001 * 0xff)
        } else {
            k * 16_777_259
        };
        let y = if f.double {
            rng.next_u64()
        } else {
            u64::from(rng.next_u32())
        };
        args.push((spaced, y));
        let x = if f.double {
            rng.next_u64()
        } else {
            u64::from(rng.next_u32())
        };
        args.push((x, y));
    }
    args
}

#[q7_requires::needs(toolchain)]
#[test]
fn the_device_computes_the_host_builds_bits() {
    if !toolchain_installed() {
        return;
    }
    let dir = TempDir::new("math-device");
    // The kernel builds while the native harness does.
    let (lib, exe) = std::thread::scope(|s| {
        let lib = s.spawn(|| {
            Kernel::new(programs().join("device.cpp"))
                .op("probe_float(Tensor args, int fn) -> Tensor")
                .op("probe_double(Tensor args, int fn) -> Tensor")
                .include(programs())
                .build(dir.join("build"))
                .unwrap()
        });
        (lib.join().unwrap(), native())
    });
    let Some(exe) = exe else {
        return;
    };
    let edge_list = |format: &str| -> Vec<u64> {
        let out = q7_tests::run(Command::new(exe).args(["edge-list", format]));
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| u64::from_str_radix(l, 16).unwrap())
            .collect()
    };
    let edges = [edge_list("float"), edge_list("double")];
    let mut instructions = BTreeMap::new();
    for (index, f) in functions().iter().enumerate() {
        let args = device_arguments(f, &edges[f.double as usize]);
        let n = args.len() as u64;
        let (input, op) = if f.double {
            let v: Vec<i64> = args
                .iter()
                .flat_map(|&(x, y)| [x as i64, y as i64])
                .collect();
            (tensor(&[n, 2], &v).unwrap(), "probe_double")
        } else {
            let v: Vec<i32> = args
                .iter()
                .flat_map(|&(x, y)| [x as u32 as i32, y as u32 as i32])
                .collect();
            (tensor(&[n, 2], &v).unwrap(), "probe_float")
        };
        let dtype = if f.double { "int64" } else { "int32" };
        let run = Run::new(op)
            .input(input)
            .scalar(index as i64)
            .output_shape(&[n])
            .output_dtype(q7_tensor::dtype::Dtype::from_name(dtype).unwrap())
            .op_run(&lib)
            .unwrap_or_else(|e| panic!("{}: {e}", f.name));
        let device = words(&run.output, f.double);
        let host = host_values(exe, f, &args);
        assert_eq!(host.len(), args.len(), "{}: host values", f.name);
        for (k, ((x, y), (d, h))) in args.iter().zip(device.iter().zip(&host)).enumerate() {
            assert_eq!(
                d, h,
                "{} case {k} (x 0x{x:x}, y 0x{y:x}): device 0x{d:x}, host build 0x{h:x}",
                f.name
            );
        }
        let count = run.cores[0].stats.instructions;
        instructions.insert(f.name.clone(), count);
        eprintln!(
            "{:<8} {n} cases on the emulator, bit-identical to the host build",
            f.name
        );
    }
    assert_eq!(instructions.len(), functions().len());
}

/// The output's elements as bit patterns.
fn words(t: &HostTensor, double: bool) -> Vec<u64> {
    if double {
        t.data
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    } else {
        t.data
            .chunks_exact(4)
            .map(|c| u64::from(u32::from_le_bytes(c.try_into().unwrap())))
            .collect()
    }
}
