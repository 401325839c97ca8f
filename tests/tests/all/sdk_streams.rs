//! Stream accessors and the coherence policy (examples/sdk/README.md "Stream accessors and
//! coherence") in kernels built with the SDK and run on the emulated core: streams move every
//! dtype and every length through their 4 KiB TCM buffer exactly, any number of streams work
//! but only four run at stream speed, misuse stops the kernel with a named runtime error, the
//! TCM pool is shared with `tcm_malloc`, and each coherence policy does what it says for each
//! pair of accessors. The kernels are `tests/programs/sdk/streams.cpp` and `coherence.cpp`.

use std::path::PathBuf;
use std::sync::OnceLock;

use q7_run::op::{OpRun, RunError};
use q7_runtime::firmware::FirmwareError;
use q7_tensor::HostTensor;
use q7_testing::{tensor, toolchain_installed, Kernel, Library, Run, TestingError};
use q7_tests::TempDir;

fn program(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("programs/sdk")
        .join(name)
}

/// Builds `source` with `schemas` once per test binary (`None`, with a notice, without the
/// toolchain).
fn build(
    cell: &'static OnceLock<Option<Library>>,
    source: &str,
    schemas: &[&str],
) -> Option<&'static Library> {
    cell.get_or_init(|| {
        if !toolchain_installed() {
            return None;
        }
        let dir = TempDir::new(&format!("sdk-{source}"));
        let mut k = Kernel::new(program(source));
        for s in schemas {
            k = k.op(*s);
        }
        Some(
            k.build(dir.join("build"))
                .unwrap_or_else(|e| panic!("{source}: {e}")),
        )
    })
    .as_ref()
}

fn streams() -> Option<&'static Library> {
    static LIB: OnceLock<Option<Library>> = OnceLock::new();
    build(
        &LIB,
        "streams.cpp",
        &[
            "stream_affine(Tensor x) -> Tensor",
            "stream_add(Tensor a, Tensor b) -> Tensor",
            "streams_sum(Tensor x, int n) -> Tensor",
            "element_sum(Tensor x) -> Tensor",
            "stream_misuse(Tensor x, int what) -> Tensor",
        ],
    )
}

/// streams.cpp built for eight cores.
fn streams_on_eight_cores() -> Option<&'static Library> {
    static LIB: OnceLock<Option<Library>> = OnceLock::new();
    LIB.get_or_init(|| {
        if !toolchain_installed() {
            return None;
        }
        let dir = TempDir::new("sdk-streams-8");
        Some(
            Kernel::new(program("streams.cpp"))
                .op("streams_sum(Tensor x, int n) -> Tensor")
                .multicore()
                .build(dir.join("build"))
                .unwrap_or_else(|e| panic!("streams.cpp --multicore: {e}")),
        )
    })
    .as_ref()
}

fn coherence() -> Option<&'static Library> {
    static LIB: OnceLock<Option<Library>> = OnceLock::new();
    build(
        &LIB,
        "coherence.cpp",
        &[
            "cohere(Tensor x, int pair, int policy) -> Tensor",
            "policy_of(Tensor x, int policy) -> Tensor",
        ],
    )
}

fn ok(run: Result<OpRun, TestingError>, what: &str) -> OpRun {
    run.unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// The runtime error a run stopped with: code, name, message.
fn aborted(run: Result<OpRun, TestingError>, what: &str) -> (u32, &'static str, String) {
    match run {
        Err(TestingError::Run(e)) => match *e {
            RunError::Device {
                source:
                    FirmwareError::Aborted {
                        code,
                        name,
                        message,
                        ..
                    },
                ..
            } => (code, name, message),
            other => panic!("{what}: not a runtime error: {other}"),
        },
        Err(e) => panic!("{what}: not a runtime error: {e}"),
        Ok(_) => panic!("{what}: the kernel ran to its end"),
    }
}

/// What core 0 printed.
fn console(run: &OpRun) -> &str {
    &run.console[0].text
}

fn floats(t: &HostTensor) -> Vec<f32> {
    t.data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn ints(t: &HostTensor) -> Vec<i32> {
    t.data
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Streams move every dtype and length exactly.

/// `n` values of a SplitMix64 stream seeded with `seed`, as the test's inputs.
fn words(seed: u64, n: usize) -> Vec<u64> {
    let mut r = q7_tests::Rng(seed);
    (0..n).map(|_| r.next_u64()).collect()
}

/// Runs stream_affine on `input` and requires the output bytes to be `want`'s.
fn affine_case(lib: &Library, input: HostTensor, want: HostTensor, what: &str) {
    let run = ok(Run::new("stream_affine").input(input).op_run(lib), what);
    assert_eq!(run.output.shape, want.shape, "{what}");
    if let Some(i) = (0..want.data.len()).find(|&i| run.output.data[i] != want.data[i]) {
        panic!(
            "{what}: byte {i} (element {}) differs",
            i / usize::from(want.dtype.bytes)
        );
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_read_and_a_write_stream_map_every_dtype_and_length_exactly() {
    let Some(lib) = streams() else { return };
    // Lengths around a buffer half (2048 bytes) and the whole buffer (4096 bytes) of each
    // element size, and longer ones that are no multiple of either.
    let lengths = |elem: usize| {
        let half = 2048 / elem;
        [1, half - 1, half, half + 1, 2 * half, 4 * half + 1, 10_000]
    };
    for n in lengths(4) {
        // float32: 2x + 1, each operation rounded to nearest even as numpy's float32.
        let x: Vec<f32> = words(1, n)
            .iter()
            .map(|w| (*w as i32 >> 8) as f32 / 4096.0)
            .collect();
        let want: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
        affine_case(
            lib,
            tensor(&[n as u64], &x).unwrap(),
            tensor(&[n as u64], &want).unwrap(),
            &format!("float32 × {n}"),
        );
        // int32: 3x - 7, wrapping as numpy's int32.
        let x: Vec<i32> = words(2, n).iter().map(|w| *w as i32).collect();
        let want: Vec<i32> = x
            .iter()
            .map(|v| v.wrapping_mul(3).wrapping_sub(7))
            .collect();
        affine_case(
            lib,
            tensor(&[n as u64], &x).unwrap(),
            tensor(&[n as u64], &want).unwrap(),
            &format!("int32 × {n}"),
        );
    }
    for n in lengths(8) {
        let x: Vec<i64> = words(3, n).iter().map(|w| *w as i64).collect();
        let want: Vec<i64> = x
            .iter()
            .map(|v| v.wrapping_mul(3).wrapping_sub(7))
            .collect();
        affine_case(
            lib,
            tensor(&[n as u64], &x).unwrap(),
            tensor(&[n as u64], &want).unwrap(),
            &format!("int64 × {n}"),
        );
    }
    for n in lengths(2) {
        let x: Vec<i16> = words(4, n).iter().map(|w| *w as i16).collect();
        let want: Vec<i16> = x
            .iter()
            .map(|v| v.wrapping_mul(3).wrapping_sub(7))
            .collect();
        affine_case(
            lib,
            tensor(&[n as u64], &x).unwrap(),
            tensor(&[n as u64], &want).unwrap(),
            &format!("int16 × {n}"),
        );
    }
    for n in lengths(1) {
        // A 2-D uint8 tensor: streams walk storage order whatever the shape.
        let x: Vec<u8> = words(5, 2 * n).iter().map(|w| *w as u8).collect();
        let want: Vec<u8> = x
            .iter()
            .map(|v| v.wrapping_mul(3).wrapping_sub(7))
            .collect();
        affine_case(
            lib,
            tensor(&[2, n as u64], &x).unwrap(),
            tensor(&[2, n as u64], &want).unwrap(),
            &format!("uint8 × 2×{n}"),
        );
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn the_tutorials_add_runs_on_two_read_streams_and_a_write_stream() {
    let Some(lib) = streams() else { return };
    let n = 3001;
    let a: Vec<f32> = words(6, n)
        .iter()
        .map(|w| (*w as i32) as f32 / 65536.0)
        .collect();
    let b: Vec<f32> = words(7, n)
        .iter()
        .map(|w| (*w as i32 >> 4) as f32 / 3.0)
        .collect();
    let run = ok(
        Run::new("stream_add")
            .input(tensor(&[n as u64], &a).unwrap())
            .input(tensor(&[n as u64], &b).unwrap())
            .op_run(lib),
        "stream_add",
    );
    let got = floats(&run.output);
    let want: Vec<f32> = a.iter().zip(&b).map(|(a, b)| a + b).collect();
    assert!(
        got.iter()
            .zip(&want)
            .all(|(g, w)| g.to_bits() == w.to_bits()),
        "a + b, bit for bit"
    );
}

// ---------------------------------------------------------------------------------------------
// Four streams at stream speed, any further one at the element accessor's.

/// The sum of `n` read streams over `x`: the output and core 0's cycles.
fn streams_sum(lib: &Library, x: &[i32], n: u32) -> (i32, u64) {
    let run = ok(
        Run::new("streams_sum")
            .input(tensor(&[x.len() as u64], x).unwrap())
            .scalar(n)
            .output_shape(&[1])
            .op_run(lib),
        &format!("streams_sum n = {n}"),
    );
    let sum = i32::from_le_bytes(run.output.data[..4].try_into().unwrap());
    (sum, run.cores[0].stats.cycles)
}

fn element_sum(lib: &Library, x: &[i32]) -> (i32, u64) {
    let run = ok(
        Run::new("element_sum")
            .input(tensor(&[x.len() as u64], x).unwrap())
            .output_shape(&[1])
            .op_run(lib),
        "element_sum",
    );
    let sum = i32::from_le_bytes(run.output.data[..4].try_into().unwrap());
    (sum, run.cores[0].stats.cycles)
}

#[q7_requires::needs(toolchain)]
#[test]
fn any_number_of_streams_work_but_the_fifth_runs_at_element_accessor_speed() {
    let Some(lib) = streams() else { return };
    let x: Vec<i32> = words(8, 4096).iter().map(|w| *w as i32 >> 3).collect();
    let sum = x.iter().fold(0i32, |a, v| a.wrapping_add(*v));
    let mut cycles = vec![0u64];
    for n in 1..=6u32 {
        let (got, c) = streams_sum(lib, &x, n);
        assert_eq!(
            got,
            sum.wrapping_mul(n as i32),
            "{n} streams, each read whole"
        );
        cycles.push(c);
    }
    // What one more stream costs over the 4096 elements, per element.
    let marginal = |n: usize| (cycles[n] - cycles[n - 1]) as f64 / 4096.0;
    let buffered = marginal(4);
    let unbuffered = marginal(5);
    // The element accessor's cost of an element: the difference between two lengths.
    let (_, e1) = element_sum(lib, &x[..2048]);
    let (_, e2) = element_sum(lib, &x);
    let element = (e2 - e1) as f64 / 2048.0;
    eprintln!(
        "cycles per element: stream 2..4 {:.1} {:.1} {:.1}, stream 5 and 6 {:.1} {:.1}, element accessor {element:.1}",
        marginal(2),
        marginal(3),
        buffered,
        unbuffered,
        marginal(6)
    );
    for n in 2..=4 {
        assert!(
            (marginal(n) - buffered).abs() < 0.5,
            "streams 2 to 4 cost alike: {n}: {}",
            marginal(n)
        );
    }
    assert!(
        unbuffered > 4.0 * buffered,
        "the fifth stream costs {unbuffered:.1} cycles per element, the fourth {buffered:.1}"
    );
    assert!(
        (marginal(6) - unbuffered).abs() < 0.5,
        "the sixth stream costs what the fifth does"
    );
    assert!(
        unbuffered > 0.75 * element && unbuffered < 1.5 * element,
        "an unbuffered stream ({unbuffered:.1}) costs about what the element accessor does \
         ({element:.1}) per element"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn in_multicore_mode_streams_work_on_each_core_as_on_one() {
    let Some(lib) = streams_on_eight_cores() else {
        return;
    };
    // Every core sums the whole input over six streams (two unbuffered) and returns it; each
    // copies the same value to the output.
    let x: Vec<i32> = words(9, 3000).iter().map(|w| *w as i32 >> 4).collect();
    let run = ok(
        Run::new("streams_sum")
            .input(tensor(&[3000], &x).unwrap())
            .scalar(6)
            .output_shape(&[1])
            .op_run(lib),
        "streams_sum on eight cores",
    );
    let sum = x
        .iter()
        .fold(0i32, |a, v| a.wrapping_add(*v))
        .wrapping_mul(6);
    assert_eq!(ints(&run.output), [sum]);
    assert_eq!(run.cores.len(), 8);
    let cycles: Vec<u64> = run.cores.iter().map(|c| c.stats.cycles).collect();
    assert!(
        cycles
            .iter()
            .all(|&c| c.abs_diff(cycles[0]) * 100 < cycles[0]),
        "each core does the same work: {cycles:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Misuse and the TCM pool.

fn misuse(lib: &Library, what: u32) -> Result<OpRun, TestingError> {
    let x: Vec<i32> = vec![10, 20, 30, 40];
    Run::new("stream_misuse")
        .input(tensor(&[4], &x).unwrap())
        .scalar(what)
        .op_run(lib)
}

#[q7_requires::needs(toolchain)]
#[test]
fn past_the_end_and_closed_streams_stop_the_kernel_naming_the_stream() {
    let Some(lib) = streams() else { return };
    let abort = |what, message: &str| {
        assert_eq!(
            aborted(misuse(lib, what), &format!("misuse {what}")),
            (7, "ABORT", message.to_string()),
            "misuse {what}"
        );
    };
    abort(
        0,
        "kernel stream_misuse: argument 0 (x): read() past the end of a read stream of 4 elements",
    );
    abort(
        1,
        "kernel stream_misuse: argument 0 (x): write() past the end of a write stream of 4 elements",
    );
    abort(
        2,
        "kernel stream_misuse: argument 0 (x): read() on a closed read stream",
    );
    abort(
        3,
        "kernel stream_misuse: argument 0 (x): write() on a closed write stream",
    );
    // close() says 0 when it closed the stream, -1 when it was closed already.
    let run = ok(misuse(lib, 4), "close twice");
    assert_eq!(console(&run), "close: 0, then -1\n");
}

#[q7_requires::needs(toolchain)]
#[test]
fn streams_and_tcm_malloc_share_the_16_kib_tcm_pool() {
    let Some(lib) = streams() else { return };
    // All 16 KiB to tcm_malloc: the first stream cannot have its 4 KiB.
    let r = misuse(lib, 5);
    let printed = match &r {
        Err(TestingError::Run(e)) => match &**e {
            RunError::Device { console, .. } => console.first().map(|c| c.text.clone()),
            _ => None,
        },
        _ => None,
    };
    assert_eq!(
        aborted(r, "tcm_malloc(16384), then a stream"),
        (
            5,
            "OUT_OF_MEMORY",
            "kernel stream_misuse: argument 0 (x): a read stream needs a 4096-byte buffer from \
             the 16 KiB TCM pool, whose largest free block is 0 bytes (tcm_malloc holds 16384 \
             bytes of it, open streams 0)"
                .to_string()
        )
    );
    assert_eq!(
        printed.as_deref(),
        Some(
            "tcm_malloc(16384): a block\nq7 runtime error: kernel stream_misuse: argument 0: a \
             read stream needs a 4096-byte buffer from the 16 KiB TCM pool, whose largest free \
             block is 0 bytes (tcm_malloc holds 16384 bytes of it, open streams 0)\n"
        ),
        "the console: what the kernel printed, then the runtime's line (with the index only)"
    );
    // Four open streams hold all of it; closed, they give it back.
    let run = ok(misuse(lib, 6), "four streams, then tcm_malloc");
    assert_eq!(
        console(&run),
        "with four streams open, tcm_malloc(64): null\n\
         once they are closed, tcm_malloc(16384): a block\n"
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn a_write_stream_writes_back_what_it_was_given_when_it_closes() {
    let Some(lib) = streams() else { return };
    // get_dst_tensor() of 4 zeroed int32: a stream writes its first one (4 - 3), closes, and an
    // element accessor reads it back; the rest of the output is untouched.
    let run = ok(misuse(lib, 7), "a short write stream");
    assert_eq!(console(&run), "close: 0\nout[0] = 0, out[1] = 0\n");
    let x: Vec<i32> = (0..600).map(|i| i * 7 - 1000).collect();
    let run = ok(
        Run::new("stream_misuse")
            .input(tensor(&[600], &x).unwrap())
            .scalar(7)
            .op_run(lib),
        "597 of 600 elements",
    );
    assert_eq!(console(&run), "close: 0\nout[596] = 355216, out[597] = 0\n");
    let out = ints(&run.output);
    let want: Vec<i32> = (0..600).map(|i| if i < 597 { i * i } else { 0 }).collect();
    assert_eq!(out, want);
}

// ---------------------------------------------------------------------------------------------
// The coherence policy.

const COHERENT: u32 = 0;
const INCOHERENT_VERBOSE: u32 = 1;
const INCOHERENT_QUIET: u32 = 2;

fn cohere(lib: &Library, pair: u32, policy: u32) -> Result<OpRun, TestingError> {
    Run::new("cohere")
        .input(tensor(&[8], &[1.5f32, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5]).unwrap())
        .scalar(pair)
        .scalar(policy)
        .op_run(lib)
}

/// The pairs of accessors open at once on argument 0 that may be incoherent, and what the
/// runtime says of each (after "kernel cohere: argument 0 (x): ").
const INCOHERENT: [(u32, &str); 10] = [
    (
        0,
        "a read stream opened while an element accessor is open on it",
    ),
    (
        1,
        "an element accessor opened while a read stream is open on it",
    ),
    (
        2,
        "a write stream opened while an element accessor is open on it",
    ),
    (
        3,
        "an element accessor opened while a write stream is open on it",
    ),
    (4, "a write stream opened while a read stream is open on it"),
    (5, "a read stream opened while a write stream is open on it"),
    (
        6,
        "a write stream opened while a write stream is open on it",
    ),
    (10, "item() reads while a write stream is open on it"),
    (11, "fill_() writes while a read stream is open on it"),
    // An element accessor stays open while it lives, whatever became of its copies.
    (
        15,
        "a write stream opened while an element accessor is open on it",
    ),
];

/// "made at 0x…" of pairs 10 and 13: the tensor the kernel made, as messages name it.
fn made(console: &str) -> String {
    let addr = console
        .lines()
        .find_map(|l| l.strip_prefix("made at "))
        .expect("the kernel says where its tensor is");
    format!("the tensor at HBM {addr}")
}

#[q7_requires::needs(toolchain)]
#[test]
fn coherent_stops_the_kernel_at_a_possibly_incoherent_pair_naming_tensor_and_accessors() {
    let Some(lib) = coherence() else { return };
    for (pair, what) in INCOHERENT {
        let r = cohere(lib, pair, COHERENT);
        let tensor = match pair {
            10 => match &r {
                Err(TestingError::Run(e)) => match &**e {
                    RunError::Device { console, .. } => made(&console[0].text),
                    other => panic!("pair {pair}: {other}"),
                },
                _ => panic!("pair {pair} ran to its end"),
            },
            _ => "argument 0 (x)".to_string(),
        };
        assert_eq!(
            aborted(r, &format!("pair {pair}")),
            (
                7,
                "ABORT",
                format!(
                    "kernel cohere: {tensor}: {what}: possibly incoherent access (coherence policy COHERENT)"
                )
            ),
            "pair {pair}"
        );
    }
    // The output and a tensor the kernel made are named as such.
    let (_, _, message) = aborted(cohere(lib, 12, COHERENT), "pair 12");
    assert_eq!(
        message,
        "kernel cohere: the output: a write stream opened while a read stream is open on it: \
         possibly incoherent access (coherence policy COHERENT)"
    );
    let r = cohere(lib, 13, COHERENT);
    let tensor = match &r {
        Err(TestingError::Run(e)) => match &**e {
            RunError::Device { console, .. } => made(&console[0].text),
            other => panic!("pair 13: {other}"),
        },
        _ => panic!("pair 13 ran to its end"),
    };
    assert_eq!(
        aborted(r, "pair 13").2,
        format!(
            "kernel cohere: {tensor}: a write stream opened while a read stream is open on it: \
             possibly incoherent access (coherence policy COHERENT)"
        )
    );
}

#[q7_requires::needs(toolchain)]
#[test]
fn incoherent_verbose_warns_on_the_console_and_goes_on() {
    let Some(lib) = coherence() else { return };
    for (pair, what) in INCOHERENT {
        let run = ok(
            cohere(lib, pair, INCOHERENT_VERBOSE),
            &format!("pair {pair}"),
        );
        let text = console(&run);
        let (made_line, tensor) = if pair == 10 {
            (format!("{}\n", text.lines().next().unwrap()), made(text))
        } else {
            (String::new(), "argument 0".to_string())
        };
        assert_eq!(
            text,
            format!(
                "{made_line}q7 warning: kernel cohere: {tensor}: {what}: possibly incoherent access \
                 (coherence policy INCOHERENT_VERBOSE)\ndone\n"
            ),
            "pair {pair}"
        );
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn incoherent_quiet_says_nothing() {
    let Some(lib) = coherence() else { return };
    for (pair, _) in INCOHERENT {
        let run = ok(cohere(lib, pair, INCOHERENT_QUIET), &format!("pair {pair}"));
        let text = console(&run);
        let made_line = if pair == 10 {
            format!("{}\n", text.lines().next().unwrap())
        } else {
            String::new()
        };
        assert_eq!(text, format!("{made_line}done\n"), "pair {pair}");
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn read_streams_together_element_accessors_together_the_tcm_accessor_and_closed_accessors_are_coherent(
) {
    let Some(lib) = coherence() else { return };
    // 7: two read streams; 8: two element accessors; 9: a TCM accessor and a write stream;
    // 14: an element accessor destroyed before a write stream opens.
    for pair in [7, 8, 9, 14] {
        let run = ok(cohere(lib, pair, COHERENT), &format!("pair {pair}"));
        assert_eq!(console(&run), "done\n", "pair {pair}");
    }
}

#[q7_requires::needs(toolchain)]
#[test]
fn the_policy_is_coherent_until_set_and_only_the_three_policies_are_accepted() {
    let Some(lib) = coherence() else { return };
    let x = tensor(&[1], &[0f32]).unwrap();
    for policy in [COHERENT, INCOHERENT_VERBOSE, INCOHERENT_QUIET] {
        let run = ok(
            Run::new("policy_of")
                .input(x.clone())
                .scalar(policy)
                .op_run(lib),
            "policy_of",
        );
        assert_eq!(console(&run), format!("policy 0, then {policy}\n"));
    }
    let r = Run::new("policy_of").input(x).scalar(3).op_run(lib);
    // The kernel's unfinished line is ended before the runtime's.
    let printed = match &r {
        Err(TestingError::Run(e)) => match &**e {
            RunError::Device { console, .. } => console[0].text.clone(),
            other => panic!("{other}"),
        },
        _ => panic!("policy 3 was accepted"),
    };
    assert_eq!(
        printed,
        "policy 0\nq7 runtime error: kernel policy_of: set_accessor_coherence_policy(3): not a \
         CoherencyEnforcer::Policy (0 COHERENT, 1 INCOHERENT_VERBOSE, 2 INCOHERENT_QUIET)\n"
    );
    assert_eq!(
        aborted(r, "policy 3"),
        (
            7,
            "ABORT",
            "kernel policy_of: set_accessor_coherence_policy(3): not a CoherencyEnforcer::Policy \
             (0 COHERENT, 1 INCOHERENT_VERBOSE, 2 INCOHERENT_QUIET)"
                .to_string()
        )
    );
}
