# The project's torch-neuronx build script; `q7emu build --project examples/check/leaked_hbm_cells` reads
# the same call.
import os

from torch_neuronx.xla_impl import custom_op

custom_op.load(
    name='leaked_hbm_cells',
    compute_srcs=['leaked_hbm_cells.cpp'],
    shape_srcs=['shape.cpp'],
    build_directory=os.getcwd(),
    multicore=False,
)
