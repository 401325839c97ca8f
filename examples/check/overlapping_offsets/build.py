# The project's torch-neuronx build script; `q7emu build --project examples/check/overlapping_offsets` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='overlapping_offsets',
    compute_srcs=['overlapping_offsets.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=True,
)
