"""q7emu for PyTorch: AWS's custom-op projects on CPU PyTorch, each op on the emulated cluster
(docs/python.md "PyTorch").

``q7emu.torch.custom_op`` mirrors ``torch_neuronx.xla_impl.custom_op``: a project's
``build.py`` and op wrapper run unchanged once their import of it reads::

    from q7emu.torch import custom_op

Loading a library registers every op of its ``NEURON_LIBRARY(ns, m)`` block as
``torch.ops.<ns>.<op>`` for CPU tensors (``torch.library``), with a fake (meta) kernel that
asks the op's shape function for the output. Only this module imports torch: ``import q7emu``
stays free of it.
"""

from .. import record
from . import custom_op

__all__ = ["custom_op", "record", "options"]

options = custom_op.options
