# The project's torch-neuronx build script; `q7emu build --project examples/check/free_after_failed_malloc` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='free_after_failed_malloc',
    compute_srcs=['free_after_failed_malloc.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
