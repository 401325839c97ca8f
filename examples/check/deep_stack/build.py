# The project's torch-neuronx build script; `q7emu build --project examples/check/deep_stack` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='deep_stack',
    compute_srcs=['deep_stack.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
