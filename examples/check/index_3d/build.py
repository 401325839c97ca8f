# The project's torch-neuronx build script; `q7emu build --project examples/check/index_3d` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='index_3d',
    compute_srcs=['index_3d.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
