# The project's torch-neuronx build script; `q7emu build --project examples/check/shared_sites` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='shared_sites',
    compute_srcs=['shared_sites.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
