"""The pytest plugin (q7emu.pytest_plugin): session builds and summary snapshots in the format
of the Rust q7_host::testing snapshots (docs/python.md "Testing kernels with pytest")."""

import numpy as np

import q7emu
from conftest import ROOT

RELU_MULTICORE = ROOT / "examples/kernels/relu_multicore"


def body(path):
    text = path.read_text()
    return text[text.index("\n---\n") + 5 :]


def test_a_run_matches_its_committed_snapshot(q7emu_snapshot):
    lib = q7emu.load_library(RELU_MULTICORE / "build")
    run = lib.relu_forward.run(np.load(RELU_MULTICORE / "input.npy"))
    q7emu_snapshot(run, "relu_multicore")
    # The same summary as the Rust snapshot of the same run (host-stub/tests/examples.rs).
    rust = ROOT / "snapshots/examples__relu_multicore-relu_forward.snap"
    assert body(ROOT / "snapshots/test_plugin__relu_multicore.snap") == body(rust)


def test_a_session_builds_a_library_once(q7emu_build, toolchain):
    project = ROOT / "examples/check/correct_multicore"
    args = ("correct_multicore", [project / "correct_multicore.cpp"], [project / "shape.cpp"])
    first = q7emu_build(*args, multicore=True)
    assert q7emu_build(*args, multicore=True) is first
    x = np.linspace(-1, 1, 1003, dtype=np.float32)
    assert np.array_equal(first.relu_forward(x), np.maximum(x, 0))


SNAPSHOT_TEST = f"""
import numpy as np, q7emu

def test_relu(q7emu_snapshot):
    lib = q7emu.load_library({str(RELU_MULTICORE / "build")!r})
    x = np.load({str(RELU_MULTICORE / "input.npy")!r})
    q7emu_snapshot(lib.relu_forward.run(x), "relu", outputs_only=True)
"""


def test_a_missing_or_changed_snapshot_fails_and_the_update_flag_writes_it(pytester):
    pytester.mkdir("snapshots")
    pytester.makepyfile(test_relu=SNAPSHOT_TEST)
    missing = pytester.runpytest()
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*no snapshot*test_relu__relu.snap*--q7emu-update-snapshots*"])
    pytester.runpytest("--q7emu-update-snapshots").assert_outcomes(passed=1)
    snap = pytester.path / "snapshots" / "test_relu__relu.snap"
    text = snap.read_text()
    assert text.startswith("---\nsource: test_relu.py\n---\nop: relu_forward\n")
    assert "core 0" not in text, "outputs_only leaves the counters out"
    pytester.runpytest().assert_outcomes(passed=1)
    snap.write_text(text.replace("op: relu_forward", "op: relu_backward"))
    changed = pytester.runpytest()
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(["*differs*", "*-op: relu_backward*", "*+op: relu_forward*"])
