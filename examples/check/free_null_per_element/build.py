# The project's torch-neuronx build script; `q7emu build --project examples/check/free_null_per_element` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='free_null_per_element',
    compute_srcs=['free_null_per_element.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
