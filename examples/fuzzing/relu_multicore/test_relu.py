# The fuzz test of docs/fuzzing.md: AWS's multicore ReLU against numpy's, at every shape
# Hypothesis draws around a 32x4096 float32 call.
import numpy as np

import q7emu
import q7emu.testing


def relu(x):
    return np.where(x > 0, x, np.float32(0))


def test_relu_forward_at_any_shape(tmp_path):
    lib = q7emu.load(
        "relu_multicore", ["relu_multicore.cpp"], ["shape.cpp"], build_directory=tmp_path, multicore=True
    )
    example = (np.ones((32, 4096), dtype=np.float32),)
    q7emu.testing.fuzz(lib.relu_forward, relu, example, max_examples=50, seed=0, repro_dir=tmp_path / "repro")
