"""q7emu from Python: build and run AWS Trainium GPSIMD custom-op kernels on an emulated
Vision-Q7 (ncore2gp) cluster, numpy arrays in and out (docs/python.md).

    import numpy as np, q7emu
    lib = q7emu.load("relu", ["relu.cpp"], ["shape.cpp"])
    y = lib.relu_forward(np.linspace(-1, 1, 1024, dtype=np.float32))

``load`` has the signature of ``torch_neuronx.xla_impl.custom_op.load``; ``load_library`` opens
a build made earlier (``q7emu build``). Each op of a library is an attribute: calling it runs
the op on the emulated cores and returns its output; ``op.run(...)`` returns a ``Run`` with the
output, the per-core report, the console and checked mode's findings.
"""

from . import _q7emu
from ._build import library_file, load, load_library
from ._library import Library, Op, Profile, Run, record
from .errors import (
    BadInput,
    BadInputError,
    BuildError,
    CheckFailed,
    CheckFailedError,
    CheckWarning,
    KernelFault,
    KernelFaultError,
    Q7Error,
    Runaway,
    RunawayError,
    SdkRewritten,
    SdkRewrittenWarning,
    ShapeFunctionError,
)

__all__ = [
    "load",
    "load_library",
    "library_file",
    "record",
    "Library",
    "Op",
    "Profile",
    "Run",
    "Q7Error",
    "BuildError",
    "KernelFaultError",
    "RunawayError",
    "CheckFailedError",
    "BadInputError",
    "ShapeFunctionError",
    "CheckWarning",
    "SdkRewrittenWarning",
    # The names of earlier versions, aliases of the classes above (q7emu.errors).
    "KernelFault",
    "Runaway",
    "CheckFailed",
    "BadInput",
    "SdkRewritten",
]

__version__ = _q7emu.__version__
