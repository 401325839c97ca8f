"""``torch_neuronx.xla_impl.custom_op`` for CPU PyTorch: ``load`` builds a custom-op library
for the emulated cluster and ``load_library`` registers its ops as ``torch.ops.<ns>.<op>``
(docs/python.md "PyTorch").

An op called on CPU tensors runs on the emulated cores: its tensors go in as they are (made
contiguous), its output comes back as a new CPU tensor of the dtype and shape its shape
function gives. ``q7emu.torch.options(...)`` sets how (cycle budget, checked mode, threads,
traces); ``q7emu.record()`` collects the runs (reports, cycles).
"""

import contextlib
import os
import threading
from collections.abc import Iterator, Sequence
from typing import Any, Optional

import torch

import q7emu
from q7emu import _q7emu
from q7emu._library import _scalar as _scalar_arg
from q7emu.errors import BadInputError

__all__ = ["load", "load_library", "options"]

# torch dtypes by the name q7emu gives the dtype (docs/python.md "Calling ops").
_TORCH_DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
}
_NAMES: dict[torch.dtype, str] = {d: n for n, d in _TORCH_DTYPES.items()}

# Run options of the ops' torch calls (q7emu.torch.options), per thread.
_local = threading.local()


def _options() -> dict[str, Any]:
    return getattr(_local, "options", {})


@contextlib.contextmanager
def options(**run_options: Any) -> Iterator[None]:
    """``with q7emu.torch.options(check=True, strict=True):`` — the options of ``Op.run``
    (``threads``, ``max_cycles``, ``check``, ``strict``, ``poison``, ``timing``,
    ``trace_dir``, ``timeline``, ``profile``, ``jit``) for every op called through ``torch.ops`` in the block, on
    this thread. Blocks nest, the inner one's options laid over the outer one's."""
    unknown = set(run_options) - {
        "threads",
        "max_cycles",
        "check",
        "strict",
        "poison",
        "timing",
        "trace_dir",
        "timeline",
        "profile",
        "jit",
    }
    if unknown:
        raise TypeError(f"q7emu.torch.options: unknown option(s) {', '.join(sorted(unknown))}")
    before = _options()
    _local.options = {**before, **run_options}
    try:
        yield
    finally:
        _local.options = before


class _Registered:
    """One op registered with torch: its schema, and the library whose op the torch kernel
    runs (a later load of a build of the same op takes over)."""

    def __init__(self, schema: str, op: "q7emu.Op"):
        self.schema = schema
        self.op = op


# Every op registered in this process, by `ns::op`, and the torch.library.Library objects
# holding the registrations (dropping one would unregister its ops).
_registered: dict[str, _Registered] = {}
_torch_libraries: dict[str, "torch.library.Library"] = {}


def _tensor(t: Any, what: str) -> tuple[str, str, list[int], Any]:
    """A tensor argument in the extension's form, ``(what, dtype name, shape, bytes)``: its
    size checked against the tensor limit before anything is copied, its bytes a ``uint8``
    numpy view of the tensor's data (made contiguous: copied only when it is not)."""
    if not isinstance(t, torch.Tensor):
        raise BadInputError(f"{what}: a torch.Tensor, not {type(t).__name__}")
    if t.device.type != "cpu":
        raise BadInputError(f"{what}: a {t.device.type} tensor: q7emu's ops take CPU tensors")
    name = _NAMES.get(t.dtype)
    if name is None:
        raise BadInputError(f"{what}: dtype {t.dtype} is not one q7emu marshals ({', '.join(_TORCH_DTYPES)})")
    shape = [int(d) for d in t.shape]
    _q7emu.Library.check_tensor(what, name, shape)
    flat = t.detach().contiguous().reshape(-1)
    return (what, name, shape, flat.view(torch.uint8).numpy())


def _scalar(op: "q7emu.Op", arg: str, kind: str, v: Any) -> Any:
    """A scalar argument as the extension takes it (``q7emu._library._scalar``): a 0-dim
    tensor is unwrapped first."""
    if isinstance(v, torch.Tensor) and v.dim() == 0:
        v = v.item()
    return _scalar_arg(op.schema, arg, kind, v)


def _output(run: "q7emu.Run") -> torch.Tensor:
    dtype, shape, data = run.raw_output
    t = _TORCH_DTYPES[dtype]
    if not data:
        return torch.empty(shape, dtype=t)
    return torch.frombuffer(bytearray(data), dtype=t).reshape(shape)


def _split(entry: _Registered, args: Sequence[Any]):
    op = entry.op
    tensors, scalars = [], []
    for (arg, kind), v in zip(op.args, args):
        if kind == "tensor":
            tensors.append(v)
        else:
            scalars.append(_scalar(op, arg, kind, v))
    return tensors, scalars


def _cpu_kernel(qualname: str):
    def kernel(*args: Any) -> torch.Tensor:
        entry = _registered[qualname]
        tensors, scalars = _split(entry, args)
        marshalled = [
            _tensor(t, f"torch.ops.{qualname.replace('::', '.')}: argument {i}") for i, t in enumerate(tensors)
        ]
        return _output(entry.op._run(marshalled, scalars, **_options()))

    return kernel


def _fake_kernel(qualname: str):
    def fake(*args: Any) -> torch.Tensor:
        entry = _registered[qualname]
        tensors, scalars = _split(entry, args)
        try:
            described = [(_NAMES[t.dtype], [int(d) for d in t.shape]) for t in tensors]
        except (KeyError, TypeError) as e:  # a dtype q7emu does not marshal, a symbolic size
            raise BadInputError(
                f"torch.ops.{qualname.replace('::', '.')}: "
                f"its shape function needs concrete sizes and q7emu dtypes ({e})"
            ) from None
        dtype, shape = entry.op._library._lib.output_spec(entry.op.name, described, scalars)
        device = tensors[0].device if tensors else torch.device("cpu")
        return torch.empty(shape, dtype=_TORCH_DTYPES[dtype], device=device)

    return fake


def _register(library: "q7emu.Library") -> None:
    ns = library._lib.namespace
    if ns is None:
        raise BadInputError(
            f"library {library.name} at {library.path} has no NEURON_LIBRARY namespace (built "
            "without a shape source): torch.ops needs one; build it with shape_srcs"
        )
    for name, op in library.ops.items():
        qualname = f"{ns}::{name}"
        entry = _registered.get(qualname)
        if entry is not None:
            if entry.schema != op.schema:
                raise BadInputError(
                    f"torch.ops.{ns}.{name} is already registered as {entry.schema}, not "
                    f"{op.schema}: torch keeps an op's first schema for the life of the process"
                )
            entry.op = op  # this build's op runs from now on
            continue
        tlib = _torch_libraries.get(ns)
        if tlib is None:
            tlib = _torch_libraries[ns] = torch.library.Library(ns, "FRAGMENT")
        tlib.define(op.schema)
        _registered[qualname] = _Registered(op.schema, op)
        tlib.impl(name, _cpu_kernel(qualname), "CPU")
        torch.library.register_fake(qualname, _fake_kernel(qualname), lib=tlib)


def load_library(path: "os.PathLike[str] | str") -> "q7emu.Library":
    """Loads a custom-op library, as ``torch_neuronx.xla_impl.custom_op.load_library``: the
    ``lib<name>.so`` that ``load`` wrote (or its build directory). Every op of its
    ``NEURON_LIBRARY(ns, m)`` block becomes ``torch.ops.<ns>.<op>`` for CPU tensors, run on
    the emulated cores. Loading a build of an op already registered (the same schema) makes
    the new build's op the one that runs. Returns the ``q7emu.Library``."""
    library = q7emu.load_library(path)
    _register(library)
    return library


def load(
    name: str,
    compute_srcs: Sequence["os.PathLike[str] | str"],
    shape_srcs: Sequence["os.PathLike[str] | str"],
    build_directory: Optional["os.PathLike[str] | str"] = None,
    multicore: bool = False,
    extra_cflags: Sequence[str] = (),
    extra_include_paths: Sequence["os.PathLike[str] | str"] = (),
    verbose: bool = False,
) -> "q7emu.Library":
    """Builds a custom-op library and loads it, as ``torch_neuronx.xla_impl.custom_op.load``.

    name: the library's name: the build writes ``lib<name>.so`` in ``build_directory``, the
        file ``load_library`` takes.
    compute_srcs: the kernels' C++ sources, compiled for the device.
    shape_srcs: the sources with the ``NEURON_LIBRARY(ns, m)`` block and the shape functions.
    build_directory: where the build goes (default ``~/.cache/q7emu/extensions/<name>``).
    multicore: run every op on all 8 cores.
    extra_cflags, extra_include_paths: added to every device compilation.
    verbose: echo every build command.

    An up-to-date build is reused (``q7emu.load``). The ops are registered as
    ``torch.ops.<ns>.<op>`` (``load_library``).
    """
    library = q7emu.load(
        name,
        compute_srcs,
        shape_srcs,
        build_directory=build_directory,
        multicore=multicore,
        extra_cflags=extra_cflags,
        extra_include_paths=extra_include_paths,
        verbose=verbose,
    )
    _register(library)
    return library
