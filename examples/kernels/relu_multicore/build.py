# The project's build script, as torch-neuronx runs it on a Trainium host; `q7emu build
# --project examples/kernels/relu_multicore` reads the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='relu_multicore',
    compute_srcs=['relu_multicore.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=True,
)
