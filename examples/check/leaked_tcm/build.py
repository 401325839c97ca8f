# The project's torch-neuronx build script; `q7emu build --project examples/check/leaked_tcm` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='leaked_tcm',
    compute_srcs=['leaked_tcm.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
