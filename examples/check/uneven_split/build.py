# The project's torch-neuronx build script; `q7emu build --project examples/check/uneven_split` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='uneven_split',
    compute_srcs=['uneven_split.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=True,
)
