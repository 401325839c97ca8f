"""q7emu.torch: AWS-style custom-op projects on CPU PyTorch (docs/python.md "PyTorch")."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import ROOT  # noqa: E402

import q7emu  # noqa: E402
import q7emu.torch  # noqa: E402
from q7emu.torch import custom_op  # noqa: E402

RELU_MULTICORE = ROOT / "examples/kernels/relu_multicore"
MLP = ROOT / "examples/torch/mlp"  # and its eight-core twin, examples/torch/mlp_multicore


@pytest.fixture(scope="module")
def relu_multicore():
    return custom_op.load_library(RELU_MULTICORE / "build")


def test_importing_q7emu_imports_neither_torch_nor_ml_dtypes():
    code = "import sys, q7emu; print(sorted(m for m in ('torch', 'ml_dtypes') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_load_library_registers_the_neuron_library_block_as_torch_ops(relu_multicore):
    x = torch.from_numpy(np.load(RELU_MULTICORE / "input.npy"))
    with q7emu.record() as runs:
        y = torch.ops.my_ops.relu_forward(x)
    assert torch.equal(y, torch.from_numpy(np.load(RELU_MULTICORE / "expected.npy")))
    assert y.dtype == torch.float32 and y.shape == x.shape
    # One run on the library's 8 cores, with the report of `q7emu run --json`.
    assert [r.report["op"] for r in runs] == ["relu_forward"]
    assert len(runs[0].cores) == 8
    assert str(torch.ops.my_ops.relu_forward.default._schema) == "my_ops::relu_forward(Tensor t_in) -> Tensor"


def test_a_non_contiguous_tensor_is_copied_and_gives_the_same_output(relu_multicore):
    x = torch.linspace(-3, 3, 64).reshape(8, 8)
    assert torch.equal(torch.ops.my_ops.relu_forward(x.t()), torch.relu(x.t()))


def test_the_fake_kernel_asks_the_shape_function(relu_multicore):
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        out = torch.ops.my_ops.relu_forward(torch.empty(3, 5, 7))
    assert (out.shape, out.dtype) == (torch.Size([3, 5, 7]), torch.float32)
    meta = torch.ops.my_ops.relu_forward(torch.empty(4, 2, device="meta"))
    assert (meta.shape, meta.device.type) == (torch.Size([4, 2]), "meta")
    # torch's own checks of a custom op's schema and fake kernel against its real one.
    torch.library.opcheck(
        torch.ops.my_ops.relu_forward.default,
        (torch.linspace(-1, 1, 16),),
        test_utils=("test_schema", "test_faketensor"),
    )


def test_torch_compile_traces_through_the_op(relu_multicore):
    f = torch.compile(lambda a: torch.ops.my_ops.relu_forward(a) * 2, backend="eager", fullgraph=True)
    x = torch.linspace(-1, 1, 40)
    assert torch.equal(f(x), torch.relu(x) * 2)


def test_bad_tensors_are_bad_input_naming_the_op_and_argument(relu_multicore):
    with pytest.raises(
        q7emu.BadInputError,
        match=r"torch.ops.my_ops.relu_forward: argument 0: dtype torch.float64 is not one q7emu marshals",
    ):
        torch.ops.my_ops.relu_forward(torch.ones(3, dtype=torch.float64))


def test_options_apply_to_the_ops_called_in_their_block(relu_multicore):
    x = torch.linspace(-1, 1, 4096)
    with q7emu.torch.options(max_cycles=1000), pytest.raises(q7emu.RunawayError, match="1000"):
        torch.ops.my_ops.relu_forward(x)
    with q7emu.torch.options(check=True), q7emu.record() as runs:
        torch.ops.my_ops.relu_forward(x)
    assert runs[0].findings is not None and runs[0].findings["errors"] == 0
    with pytest.raises(TypeError, match="unknown option"), q7emu.torch.options(cycles=5):
        pass


def test_a_file_that_is_not_a_q7emu_build_is_refused_and_left_alone(tmp_path):
    lib = tmp_path / "librelu.so"
    lib.write_bytes(b"\x7fELF host library")
    with pytest.raises(q7emu.BadInputError, match="librelu.so is not a library q7emu.load wrote"):
        custom_op.load_library(lib)
    with pytest.raises(q7emu.BuildError, match="left alone"):
        custom_op.load(
            "relu", [RELU_MULTICORE / "relu_multicore.cpp"], [RELU_MULTICORE / "shape.cpp"], build_directory=tmp_path
        )
    assert lib.read_bytes() == b"\x7fELF host library"


def run_script(cwd, *args):
    out = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.mark.parametrize("example", ["mlp", "mlp_multicore"])
def test_the_aws_layout_mlp_example_trains_with_the_losses_of_torch_relu(tmp_path, toolchain, example):
    # build.py builds librelu.so into its own directory, my_ops.py loads it by that name: the
    # example runs in a copy, as a user runs AWS's projects in theirs. mlp's ReLU runs on one
    # core with element accessors, mlp_multicore's on eight through TCM.
    work = tmp_path / example
    shutil.copytree(MLP.parent / example, work, symlinks=False)
    run_script(work, "build.py")
    assert json.loads((work / "librelu.so").read_text())["library"] == "relu"
    steps = [json.loads(line) for line in run_script(work, "train.py", "--steps", "3", "--json").splitlines()]
    assert [s["step"] for s in steps] == [0, 1, 2]
    for s in steps:
        assert s["equal"] and s["loss"] == s["torch_relu_loss"]
        # Two forward ReLUs, then the backward pass's two, each a run on the emulated core.
        assert s["runs"] == ["relu_forward", "relu_forward", "relu_backward", "relu_backward"]
        assert s["cycles"] > 0
        assert s["cores"] == (8 if example == "mlp_multicore" else 1)
    assert steps[2]["loss"] < steps[0]["loss"], "the model learns"
    # The build is reused: a second build.py compiles nothing.
    before = os.stat(work / "q7emu-relu" / "q7build.json").st_mtime_ns
    run_script(work, "build.py")
    assert os.stat(work / "q7emu-relu" / "q7build.json").st_mtime_ns == before
