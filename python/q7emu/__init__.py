"""q7emu from Python: build and run AWS Trainium GPSIMD custom-op kernels on an emulated
Vision-Q7 (ncore2gp) cluster, numpy arrays in and out (docs/python.md).

    import numpy as np, q7emu
    lib = q7emu.load("relu", ["relu.cpp"], ["shape.cpp"])
    y = lib.relu_forward(np.linspace(-1, 1, 1024, dtype=np.float32))

``load`` has the signature of ``torch_neuronx.xla_impl.custom_op.load``; ``load_library`` opens
a build made earlier (``q7emu build``). Each op of a library is an attribute: calling it runs
the op on the emulated cores and returns its output; ``op.run(...)`` returns a ``Run`` with the
output, the per-core report, the console and checked mode's findings.

Importing the package does not load its extension module: the names that need it are imported
on first use (``_LAZY``), so a pytest session with the plugin installed pays for the extension
only when a test uses one of its fixtures.
"""

import importlib
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from . import _q7emu as _q7emu
    from ._build import library_file, load, load_library
    from ._library import Library, Op, Profile, Run, record

# The names needing the extension module, and the module each is in.
_LAZY = {
    "load": "._build",
    "load_library": "._build",
    "library_file": "._build",
    "record": "._library",
    "Library": "._library",
    "Op": "._library",
    "Profile": "._library",
    "Run": "._library",
    "__version__": "._q7emu",
}

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


def __getattr__(name: str) -> Any:
    """A name of ``_LAZY``, imported on first use (then a plain attribute); the extension
    module itself as ``_q7emu``."""
    if name == "_q7emu":
        return importlib.import_module("._q7emu", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'q7emu' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
