"""q7emu.testing (docs/fuzzing.md): fuzz finds the shape and the values that break a kernel and
shrinks them to the smallest call; its strategies draw the shapes and values the document
promises; its walk-through runs as written."""

import json
import math
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import hypothesis
import numpy as np
import pytest
from conftest import ROOT
from hypothesis import strategies as st

import q7emu
import q7emu.testing as qt

DOC = ROOT / "docs/fuzzing.md"
TUTORIAL = ROOT / "examples/fuzzing/relu_multicore"
RELU_MULTICORE = ROOT / "examples/kernels/relu_multicore/build"


def relu(x):
    """ReLU as the example kernels compute it: NaN and -0.0 give 0.0."""
    return np.where(x > 0, x, np.float32(0))


def fenced(text: str, info: str):
    """The bodies of the document's fenced blocks of language ``info`` ("" for none)."""
    blocks, body, language = [], None, None
    for line in text.splitlines(True):
        if body is None and line.startswith("```"):
            body, language = [], line[3:].strip()
        elif body is not None and line.rstrip() == "```":
            if language == info:
                blocks.append("".join(body))
            body = None
        elif body is not None:
            body.append(line)
    return blocks


def q7emu_command():
    """The ``q7emu`` command the package installed beside this Python."""
    return str(pathlib.Path(sys.executable).parent / "q7emu")


@pytest.fixture(scope="module")
def tutorial(q7emu_build):
    """The tutorial-partitioned ReLU of docs/fuzzing.md, as committed (the bug planted)."""
    return q7emu_build("relu_tutorial", [TUTORIAL / "relu_multicore.cpp"], [TUTORIAL / "shape.cpp"], multicore=True)


def test_fuzz_shrinks_the_tutorials_partition_bug_to_one_element(toolchain, tutorial, tmp_path):
    # docs/fuzzing.md: every element count 8 does not divide runs core 7 past the end; the
    # smallest such call is one element, 1x1 for a 2-d example.
    example = (np.ones((32, 4096), dtype=np.float32),)
    with pytest.raises(qt.Counterexample) as caught:
        qt.fuzz(tutorial.relu_forward, relu, example, max_examples=50, seed=0, repro_dir=tmp_path)
    c = caught.value
    assert isinstance(c, AssertionError)
    assert [a.shape for a in c.arguments] == [(1, 1)] and c.arguments[0].dtype == np.float32
    assert c.shape() == ((1, 1),)
    assert isinstance(c.error, q7emu.KernelFaultError) and c.difference is None
    assert c.finding is not None and c.finding.startswith(
        "core 7: kernel aborted with runtime error 7 (ABORT): kernel relu_forward: "
        "tensor_to_tcm: bytes [28, 32) lie outside the tensor's 4 bytes\n"
    )
    assert str(c).startswith("relu_forward(float32[1, 1]) fails: core 7: kernel aborted")
    # The repro: the input saved, and the command making the same call fails the same way.
    saved = tmp_path / "t_in.npy"
    assert np.array_equal(np.load(saved), c.arguments[0])
    assert c.repro == shlex.join(
        ["q7emu", "run", tutorial.path, "--op", "relu_forward", "--input", str(saved), "--check"]
    )
    rerun = subprocess.run([q7emu_command(), *shlex.split(c.repro)[1:]], capture_output=True, text=True)
    assert rerun.returncode != 0
    assert "tensor_to_tcm: bytes [28, 32) lie outside the tensor's 4 bytes" in rerun.stderr


def test_fuzz_passes_a_correct_kernel_for_max_examples_calls():
    # The committed 8-core ReLU partitions any element count right (its README).
    lib = q7emu.load_library(RELU_MULTICORE)
    shapes = []

    def reference(x):
        shapes.append(x.shape)
        return relu(x)

    qt.fuzz(lib.relu_forward, reference, (np.ones((16, 64), dtype=np.float32),), max_examples=100, seed=1)
    # The example first, then max_examples drawn calls, each within the example's 1024
    # elements, among them counts 8 does not divide.
    assert shapes[0] == (16, 64) and len(shapes) == 101
    assert all(len(s) == 2 and 1 <= math.prod(s) <= 1024 for s in shapes)
    assert any(math.prod(s) % 8 for s in shapes) and (1, 1) in shapes


def test_fuzz_finds_a_value_bug_only_nan_shows(tmp_path):
    # The example kernels' ReLU (x > 0 ? x : 0) gives 0.0 for NaN; numpy's maximum gives NaN.
    # They agree on every other value, so only a NaN in the input tells them apart. (The repro's
    # input goes to tmp_path, not a new directory left in the system's temporary one.)
    lib = q7emu.load_library(RELU_MULTICORE)
    reference = lambda x: np.maximum(x, np.float32(0))  # noqa: E731
    with pytest.raises(qt.Counterexample) as caught:
        qt.fuzz(lib.relu_forward, reference, (np.ones((16, 64), np.float32),), seed=1, repro_dir=tmp_path)
    c = caught.value
    (x,) = c.arguments
    assert x.shape == (1, 1) and np.isnan(x[0, 0])
    assert np.isnan(np.load(tmp_path / "t_in.npy")[0, 0])
    assert c.finding is None and c.error is None
    assert c.difference == (
        "1 of 1 output elements differ from the reference (rtol=1.3e-06, atol=1e-05); "
        "the first at index (0, 0): got 0.0, expected nan"
    )


def test_a_call_that_runs_out_of_cycles_is_a_runaway_counterexample(tmp_path):
    # The example runs first; a budget it cannot finish in (it takes 14320 cycles a core) makes
    # it the counterexample as it is.
    lib = q7emu.load_library(RELU_MULTICORE)
    example = (np.ones((16, 64), np.float32),)
    with pytest.raises(qt.Counterexample) as caught:
        qt.fuzz(lib.relu_forward, relu, example, max_cycles=9000, repro_dir=tmp_path)
    c = caught.value
    assert isinstance(c.error, q7emu.RunawayError) and c.arguments == example
    assert c.repro is not None and c.repro.endswith(f"--input {tmp_path / 't_in.npy'} --check")


def test_scalars_take_any_value_of_their_schema_type_and_the_scaled_transpose_matches_numpy():
    # scaled_transpose(Tensor x, Scalar scale, int bias): bias + scale * x^T in float32, as the
    # kernel computes it (examples/kernels/scaled_transpose). The Scalar is drawn as the
    # example's float, any double; the int as any int64.
    lib = q7emu.load_library(ROOT / "examples/kernels/scaled_transpose/build")
    calls = []

    def reference(x, scale, bias):
        calls.append((x.shape, scale, bias))
        with np.errstate(all="ignore"):
            return np.float32(bias) + x.T * np.float32(scale)

    x = np.load(ROOT / "examples/kernels/scaled_transpose/x.npy")
    qt.fuzz(lib.scaled_transpose, reference, (x, 2.0, 3), max_examples=60, seed=3)
    assert calls[0] == ((24, 40), 2.0, 3) and len(calls) == 61
    assert all(isinstance(scale, float) and isinstance(bias, int) for _, scale, bias in calls)
    assert all(-(2**63) <= bias < 2**63 for _, _, bias in calls)
    assert len({(scale, bias) for _, scale, bias in calls}) > 1, "the scalars were drawn"
    # What the scalars are drawn from: NaN and infinities are doubles, the int64 extremes ints.
    scale, bias = qt._scalar_strategy("scalar", 2.0), qt._scalar_strategy("int", 3)
    assert find(scale, lambda v: True) == 2.0 and find(bias, lambda v: True) == 3, "the example's first"
    assert np.isnan(find(scale, lambda v: v != v)) and find(scale, lambda v: v == -np.inf) == -np.inf
    assert find(bias, lambda v: v < -(2**62)) >= -(2**63) and find(bias, lambda v: v == 2**63 - 1) == 2**63 - 1
    assert find(qt._scalar_strategy("bool", True), lambda v: not v) is False


def test_the_ci_profile_is_derandomized_without_a_wall_time_deadline():
    profile = hypothesis.settings.get_profile(qt.CI_PROFILE)
    assert qt.CI_PROFILE == "q7emu-ci" and profile.derandomize is True and profile.deadline is None


def test_assert_matches_returns_the_run_of_a_matching_call():
    lib = q7emu.load_library(RELU_MULTICORE)
    x = np.array([[-1.0, 0.5, np.inf, -0.0]], np.float32)
    run = qt.assert_matches(lib.relu_forward, relu, (x,))
    assert isinstance(run, q7emu.Run) and run.findings == {"errors": 0, "warnings": 0, "findings": []}
    assert run.output.tolist() == [[0.0, 0.5, np.inf, 0.0]]


def test_fuzz_refuses_an_example_of_the_wrong_length():
    lib = q7emu.load_library(RELU_MULTICORE)
    with pytest.raises(
        TypeError, match=r"the example has 2 argument\(s\), op relu_forward\(Tensor t_in\) -> Tensor takes 1"
    ):
        qt.fuzz(lib.relu_forward, relu, (np.ones(8, np.float32), 1.0))


# The strategies, checked with Hypothesis's own `find`: each promised shape or value is drawn.


def find(strategy, condition):
    return hypothesis.find(strategy, condition, settings=hypothesis.settings(max_examples=2000, database=None))


def test_shapes_like_keeps_the_rank_and_the_element_count_bound():
    @hypothesis.given(qt.shapes_like((32, 4096)))
    @hypothesis.settings(max_examples=300, database=None)
    def within(shape):
        assert len(shape) == 2 and all(d >= 1 for d in shape) and math.prod(shape) <= 32 * 4096

    within()
    assert find(qt.shapes_like(()), lambda s: True) == ()


def test_shapes_like_draws_the_sizes_partition_bugs_live_at():
    shapes = qt.shapes_like((32, 4096), cores=8)
    assert find(shapes, lambda s: True) == (1, 1), "it shrinks towards every dimension 1"
    assert find(shapes, lambda s: s[0] == 32 and s[1] % 8 != 0)[0] == 32, "one dimension alone"
    assert find(shapes, lambda s: s[1] in (7, 9, 15, 17, 13, 4093))[1] in (7, 9, 13, 15, 17, 4093)
    big = find(shapes, lambda s: math.prod(s) > 100_000)
    assert math.prod(big) <= 32 * 4096


def test_tensors_draw_the_whole_range_of_the_dtype():
    floats = qt.tensors(np.float32, (4,))
    assert np.isnan(find(floats, lambda a: np.isnan(a).any())).any()
    assert np.isposinf(find(floats, lambda a: np.isposinf(a).any())).any()
    negative_zero = find(floats, lambda a: bool(((a == 0) & np.signbit(a)).any()))
    assert ((negative_zero == 0) & np.signbit(negative_zero)).any()
    tiny = np.finfo(np.float32).smallest_normal
    assert find(floats, lambda a: bool(((a != 0) & (np.abs(a) < tiny)).any())).dtype == np.float32
    ints = qt.tensors(np.int8, (3,))
    assert -128 in find(ints, lambda a: (a == -128).any()) and 127 in find(ints, lambda a: (a == 127).any())
    assert find(qt.tensors(np.int16, st.just((2, 3))), lambda a: True).shape == (2, 3)


def test_the_tolerance_is_dtype_aware():
    assert str(qt.tolerance(np.float32)) == "rtol=1.3e-06, atol=1e-05"
    assert str(qt.tolerance(np.float16)) == "rtol=0.001, atol=1e-05"
    assert str(qt.tolerance(np.int32)) == "exact"
    assert str(qt.tolerance(np.float32, ulps=1)) == "ulps=1"
    assert str(qt.tolerance(np.float32, atol=0.5)) == "rtol=0, atol=0.5"
    one = np.array([1.0], np.float32)
    next_up = np.nextafter(one, np.float32(2))
    assert qt._difference(next_up, one, qt.tolerance(np.float32, ulps=1)) is None
    apart = qt._difference(next_up, one, qt.tolerance(np.float32, ulps=0))
    assert apart is not None and apart.startswith("1 of 1 output elements differ")
    assert (
        qt._difference(np.array([-0.0], np.float32), np.array([0.0], np.float32), qt.tolerance(np.float32, ulps=0))
        is None
    )
    assert qt._difference(np.array([1, 2]), np.array([1, 3]), qt.tolerance(np.int64)) == (
        "1 of 2 output elements differ from the reference (exact); the first at index (1,): got 2, expected 3"
    )


# A conftest.py for the walk-through's copy: records the shape of every call fuzz makes.
RECORD_SHAPES = """
import json, pathlib
import q7emu.testing

_fuzz = q7emu.testing.fuzz


def recording(op, reference, example, **options):
    shapes = []

    def recorded(*args):
        shapes.append(list(args[0].shape))
        return reference(*args)

    try:
        _fuzz(op, recorded, example, **options)
    finally:
        pathlib.Path(__file__).with_name("shapes.json").write_text(json.dumps(shapes))


q7emu.testing.fuzz = recording
"""


def test_the_docs_walk_through_runs_as_written(toolchain, tmp_path):
    doc = DOC.read_text()
    (test_file,) = fenced(doc, "python")[:1]
    assert test_file == (TUTORIAL / "test_relu.py").read_text(), "the document shows the committed test whole"
    (excerpt,) = fenced(doc, "cpp")
    assert excerpt in (TUTORIAL / "relu_multicore.cpp").read_text()
    (command,) = fenced(doc, "sh")
    assert command == "cd examples/fuzzing/relu_multicore && pytest -q test_relu.py\n"

    work = tmp_path / "relu_multicore"
    shutil.copytree(TUTORIAL, work)
    (work / "conftest.py").write_text(RECORD_SHAPES)
    pytest_command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_relu.py"]

    failing = subprocess.run(pytest_command, cwd=work, capture_output=True, text=True)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    plain = [b for b in fenced(doc, "") if b.startswith("E  ")]
    headline, repro = (block[1:].strip() for block in plain[:2])
    # pytest's lines of the exception, "E" and the indentation of its frame taken off.
    raised = [line[1:].strip() for line in failing.stdout.splitlines() if line.startswith("E ")]
    assert headline in raised, failing.stdout
    pattern = re.escape(repro).replace("…", r"\S*")
    assert any(re.fullmatch(pattern, line) for line in raised), failing.stdout
    assert "relu_forward(at::Tensor const&)+0xc4 (relu_multicore.cpp:30)" in failing.stdout

    (diff,) = fenced(doc, "diff")
    old = "".join(line[1:] + "\n" for line in diff.splitlines() if line[0] in " -")
    new = "".join(line[1:] + "\n" for line in diff.splitlines() if line[0] in " +")
    source = work / "relu_multicore.cpp"
    assert old in source.read_text()
    source.write_text(source.read_text().replace(old, new))
    passing = subprocess.run(pytest_command, cwd=work, capture_output=True, text=True)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "1 passed" in passing.stdout and fenced(doc, "")[-1] == "1 passed\n"

    # The shapes the document names are among the 50 calls of the passing run.
    drawn = [tuple(s) for s in json.loads((work / "shapes.json").read_text())]
    assert len(drawn) == 51 and drawn[0] == (32, 4096), "the example, then 50 drawn calls"
    named = re.search(r"of shapes such as (.*?), each\s+checked", doc, re.S)
    assert named is not None
    named = named.group(1)
    for text in re.split(r",\s*|\s+and\s+", named):
        assert tuple(int(d) for d in text.split("×")) in drawn, text
