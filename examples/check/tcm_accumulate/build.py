# The project's torch-neuronx build script; `q7emu build --project examples/check/tcm_accumulate` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='tcm_accumulate',
    compute_srcs=['tcm_accumulate.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
