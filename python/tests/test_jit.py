"""Tier 2 from Python (docs/jit.md "Switch"): ``jit=False`` on a call, on ``load_library`` and in
``q7emu.torch.options`` runs the interpreter alone; outputs and every core's counters are the
same either way, and the report says which engine ran."""

import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT

import q7emu

RELU_ELEMENT = ROOT / "examples" / "kernels" / "relu_element"


def _input() -> np.ndarray:
    return np.load(ROOT / "examples" / "kernels" / "relu_multicore" / "input.npy")[:, :512].copy()


def _hot_input() -> np.ndarray:
    """The whole 32x4096 input: hot enough that blocks reach the tier-up count (docs/jit.md
    "Tier-up") within one call."""
    return np.load(ROOT / "examples" / "kernels" / "relu_multicore" / "input.npy")


def _counters(run: q7emu.Run) -> list:
    return [{k: v for k, v in core.items() if k != "console"} for core in run.report["cores"]]


def test_a_call_with_jit_off_counts_what_the_compiled_call_counts():
    lib = q7emu.load_library(RELU_ELEMENT / "build")
    x = _hot_input()
    compiled = lib.relu_forward.run(x)
    interpreted = lib.relu_forward.run(x, jit=False)
    assert compiled.report["engine"] == "tier2"
    assert compiled.report["jit"]["executed"] > 0
    assert interpreted.report["engine"] == "interpreter"
    assert interpreted.report["jit"]["executed"] == 0
    assert np.array_equal(compiled.output, interpreted.output)
    assert _counters(compiled) == _counters(interpreted)
    # The kept-loaded library goes back to compiled code for the next call.
    assert lib.relu_forward.run(x).report["engine"] == "tier2"


def test_load_library_with_jit_off_interprets_every_call_unless_one_says_otherwise():
    lib = q7emu.load_library(RELU_ELEMENT / "build", jit=False)
    x = _input()
    assert lib.relu_forward.run(x).report["engine"] == "interpreter"
    assert lib.relu_forward.run(x, jit=True).report["engine"] == "tier2"


def test_jit_takes_a_bool():
    lib = q7emu.load_library(RELU_ELEMENT / "build")
    with pytest.raises(q7emu.BadInputError, match="jit: a bool, not str"):
        lib.relu_forward.run(_input(), jit="off")  # pyright: ignore[reportArgumentType]
    with pytest.raises(q7emu.BadInputError, match="jit: a bool, not str"):
        q7emu.load_library(RELU_ELEMENT / "build", jit="off")  # pyright: ignore[reportArgumentType]


# Run in a process of its own: a pytest worker (torch loaded, xdist) may be too large to fork.
_FORKED = """
import multiprocessing, sys
import numpy as np
import q7emu

build, data = sys.argv[1], sys.argv[2]
x = np.load(data)


def hot(queue):
    queue.put(q7emu.load_library(build).relu_forward.run(x).report["jit"]["ahead"])


parent = q7emu.load_library(build).relu_forward.run(x[:, :1024].copy()).report["jit"]
assert parent["ahead"] > 0, parent
fork = multiprocessing.get_context("fork")
queue = fork.Queue()
child = fork.Process(target=hot, args=(queue,))
child.start()
child.join(120)
if child.is_alive():
    child.kill()
    sys.exit("the forked child hung")
assert child.exitcode == 0, child.exitcode
print(queue.get(timeout=10))
"""


def test_a_process_forked_after_compiling_ahead_compiles_ahead_itself():
    # The compiling thread (docs/jit.md "Compiling ahead") is not in a forked child; the
    # child starts its own rather than wait on its parent's queue for ever.
    data = ROOT / "examples" / "kernels" / "relu_multicore" / "input.npy"
    done = subprocess.run(
        [sys.executable, "-c", _FORKED, str(RELU_ELEMENT / "build"), str(data)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 0, "blocks compiled ahead in the child"
