# The build script of the eight-core MLP example: as examples/torch/mlp's, with multicore=True
# (every op runs on all eight cores). Run in this directory, it builds librelu.so here.
import os

from q7emu.torch import custom_op

custom_op.load(
    name='relu',
    compute_srcs=['relu.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=True,
)
