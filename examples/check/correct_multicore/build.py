# The project's torch-neuronx build script; `q7emu build --project examples/check/correct_multicore` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='correct_multicore',
    compute_srcs=['correct_multicore.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=True,
)
