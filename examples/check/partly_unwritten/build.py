# The project's torch-neuronx build script; `q7emu build --project examples/check/partly_unwritten` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='partly_unwritten',
    compute_srcs=['partly_unwritten.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
