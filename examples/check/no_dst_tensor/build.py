# The project's torch-neuronx build script; `q7emu build --project examples/check/no_dst_tensor` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='no_dst_tensor',
    compute_srcs=['no_dst_tensor.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=True,
)
