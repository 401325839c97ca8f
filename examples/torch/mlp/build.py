# The build script of the MLP example, in the layout of AWS's custom-op MLP projects: run in
# this directory, it builds librelu.so here. The import of custom_op is the one line that
# differs from the Trainium version (which imports it from torch_neuronx.xla_impl).
import os

from q7emu.torch import custom_op

custom_op.load(
    name='relu',
    compute_srcs=['relu.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
