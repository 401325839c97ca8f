# The project's torch-neuronx build script; `q7emu build --project examples/check/five_streams` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='five_streams',
    compute_srcs=['five_streams.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
