# The project's torch-neuronx build script; `q7emu build --project examples/check/empty_read` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='empty_read',
    compute_srcs=['empty_read.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
