"""Calls per second of ops from Python (docs/python.md "Calls per second"), run by
scripts/bench.sh with the test command's .venv.

Two ops — the one-core element-accessor ReLU of examples/kernels/relu_element on 8 elements
and the 8-core ReLU of examples/kernels/relu_multicore on 4096 — each called on its library
kept loaded (the default) and on one that sets a cluster up for every call
(``keep_loaded=False``), alternating so that both see the same host load, each the best of
REPEAT rounds (Q7EMU_BENCH_CALLS_REPEAT, default 3). Prints calls per second of both and their
ratio. Gates on correctness (the same report, wall time aside, in both modes) and on the
ratio measured side by side here, never on an absolute rate: the kept library must be at
least its case's floor times as fast (Q7EMU_BENCH_MIN_CALLS_RATIO overrides both). A fresh
one-core cluster is cheap to set up, so the one-core op gains less (about x1.5 with the host
busy, the 8-core one about x4.5): the floors, x1.2 and x2, catch a collapse, not noise.

Then tier 2 on a kept library (docs/jit.md "Kept code"): the element-accessor ReLU on the main
job's 32x4096 input, called on one library kept loaded with ``jit=False`` and on one with tier 2,
alternating call by call, each the best of 3 × REPEAT calls after a first call that compiles (as
the CLI rows of scripts/bench.sh take the best of single runs: a mean over calls keeps the host's
noisy spells). Gates on
the same report (engine and ``jit`` aside) and on tier 2 being at least JIT_FLOOR times as fast
(Q7EMU_BENCH_MIN_KEPT_JIT_RATIO overrides): x7.0 to x7.2 measured on a shared host, where the
issue's bound is x5; the floor, x3, leaves room for a noisy host and catches a regression.
"""

import os
import sys
import time

import numpy as np

import q7emu

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
REPEAT = int(os.environ.get("Q7EMU_BENCH_CALLS_REPEAT", "3"))
FLOOR = os.environ.get("Q7EMU_BENCH_MIN_CALLS_RATIO")
# (example, input, floor of loaded / fresh calls per second)
CASES = [
    ("relu_element", np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4), 1.2),
    ("relu_multicore", np.linspace(-1, 1, 4096, dtype=np.float32), 2.0),
]


def device(run):
    return {k: v for k, v in run.report.items() if k not in ("wall_seconds", "mips", "jit")}


def seconds_per_call(op, x, calls):
    start = time.perf_counter()
    for _ in range(calls):
        run = op.run(x)
    return (time.perf_counter() - start) / calls, run


JIT_FLOOR = float(os.environ.get("Q7EMU_BENCH_MIN_KEPT_JIT_RATIO", "3"))


def kept_jit():
    """Tier 2 against the interpreter on kept libraries: whether it failed."""
    build = os.path.join(ROOT, "examples/kernels/relu_element/build")
    x = np.load(os.path.join(ROOT, "examples/kernels/relu_multicore/input.npy"))
    ops = {
        "interpreter": q7emu.load_library(build, jit=False).relu_forward,
        "tier2": q7emu.load_library(build).relu_forward,
    }
    for op in ops.values():
        op.run(x)  # the load, the checkpoint, and tier 2's compiles
    best = {k: float("inf") for k in ops}
    runs = {}
    for _ in range(3 * REPEAT):
        for mode, op in ops.items():
            s, runs[mode] = seconds_per_call(op, x, 1)
            best[mode] = min(best[mode], s)
    ratio = best["interpreter"] / best["tier2"]
    same = {k: v for k, v in device(runs["tier2"]).items() if k != "engine"} == {
        k: v for k, v in device(runs["interpreter"]).items() if k != "engine"
    }
    failed = not same or ratio < JIT_FLOOR
    verdict = f"tier 2 / interpreter = x{ratio:.2f} (floor x{JIT_FLOOR})"
    if not same:
        verdict = "reports differ between tier 2 and the interpreter FAILED"
    elif ratio < JIT_FLOOR:
        verdict += " RATIO BELOW FLOOR"
    print(
        f"\n{'relu_element[32, 4096] kept':<30} {runs['tier2'].cycles:>9} "
        f"interpreter {best['interpreter']:.3f} s, tier 2 {best['tier2']:.3f} s a call; {verdict}"
    )
    return failed


def main():
    failed = False
    print(f"\n{'op':<30} {'cycles':>9} {'loaded/s':>9} {'fresh/s':>8} {'ratio':>6} verdict")
    for example, x, floor in CASES:
        floor = float(FLOOR) if FLOOR else floor
        build = os.path.join(ROOT, "examples/kernels", example, "build")
        kept = q7emu.load_library(build).relu_forward
        fresh = q7emu.load_library(build, keep_loaded=False).relu_forward
        kept.run(x)  # the load and the checkpoint: once per library, not per call
        best = {"loaded": float("inf"), "fresh": float("inf")}
        runs = {}
        for _ in range(REPEAT):
            for mode, op, calls in (("loaded", kept, 20), ("fresh", fresh, 5)):
                s, runs[mode] = seconds_per_call(op, x, calls)
                best[mode] = min(best[mode], s)
        ratio = best["fresh"] / best["loaded"]
        verdict = f"same report; loaded / fresh = x{ratio:.1f} (floor x{floor})"
        if device(runs["loaded"]) != device(runs["fresh"]):
            verdict, failed = "reports differ between loaded and fresh FAILED", True
        elif ratio < floor:
            verdict, failed = verdict + f" RATIO BELOW x{floor}", True
        name = f"{example}.relu_forward{list(x.shape)}"
        print(f"{name:<30} {runs['loaded'].cycles:>9} {1 / best['loaded']:>9.1f} {1 / best['fresh']:>8.1f} {ratio:>6.1f} {verdict}")
    failed = kept_jit() or failed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
