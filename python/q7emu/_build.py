"""Building and opening libraries: ``load`` (as ``torch_neuronx.xla_impl.custom_op.load``),
``load_library`` and the ``lib<name>.so`` a build writes (docs/python.md "Building")."""

import fcntl
import hashlib
import json
import os
from typing import Optional, Sequence

from . import _q7emu, _sdk
from ._library import Library
from .errors import BadInput, BuildError, Q7Error

__version__ = _q7emu.__version__


def load_library(path: "os.PathLike[str] | str", keep_loaded: bool = True) -> Library:
    """Opens the library built in directory ``path`` (by ``q7emu build`` or ``load``), or the
    directory holding ``path`` when it names a file of the build (the ``lib<name>.so`` that
    ``load`` writes, as ``torch_neuronx.xla_impl.custom_op.load_library`` is given it).

    With ``keep_loaded`` (the default) the library is loaded on a cluster of its own by its
    first call and kept there: every call starts from the device as it was right after the
    load, with the outcome of a fresh ``q7emu run`` (docs/python.md "Calls per second").
    ``keep_loaded=False`` sets a cluster up for every call instead (less memory held between
    calls, much slower calls)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file or directory (a build directory, or the lib<name>.so in one)")
    if os.path.isfile(path):
        build = os.path.dirname(os.path.abspath(path))
        if not os.path.exists(os.path.join(build, "q7build.json")):
            raise BadInput(
                f"{path}: not a q7emu build: no q7build.json beside it (a library built for a "
                "Trainium host by torch-neuronx does not run here; build its sources with "
                "q7emu.load or q7emu.torch.custom_op.load)"
            )
        path = build
    return Library(_q7emu.Library(path, keep_loaded=keep_loaded))


def library_file(build_directory: "os.PathLike[str] | str", name: str) -> str:
    """The ``lib<name>.so`` that ``load`` writes in ``build_directory``: the file
    ``load_library`` is given as AWS's scripts give it (``custom_op.load_library('librelu.so')``).
    It holds the digest of the build (JSON) and stands for the build directory around it."""
    return os.path.join(os.fspath(build_directory), f"lib{name}.so")


def _default_build_directory(name: str) -> str:
    root = os.environ.get("Q7EMU_EXTENSIONS_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "q7emu", "extensions"
    )
    return os.path.join(root, name)


def _digest(name, compute_srcs, shape_srcs, multicore, extra_cflags, extra_include_paths) -> str:
    """What decides a build: q7emu's version, the SDK the build compiles against, the
    arguments, the contents of every source and of the headers beside them."""
    h = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        h.update(f"{label}:{len(data)}:".encode())
        h.update(data)

    add("version", __version__.encode())
    add("args", json.dumps([name, multicore, list(extra_cflags), [os.path.abspath(p) for p in extra_include_paths]]).encode())
    files = []
    for src in list(compute_srcs) + list(shape_srcs):
        files.append(os.path.abspath(src))
        d = os.path.dirname(os.path.abspath(src))
        files.extend(os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith((".h", ".hpp", ".hh")))
    try:
        sdk = _sdk.ensure()
    except OSError as e:
        raise BuildError(f"writing out the SDK the package carries: {e}") from None
    for root, dirs, names in os.walk(sdk):
        dirs.sort()
        files.extend(os.path.join(root, n) for n in sorted(names))
    for f in dict.fromkeys(files):
        try:
            with open(f, "rb") as fh:
                add(f, fh.read())
        except OSError as e:
            raise BuildError(f"{f}: {e.strerror}") from None
    return h.hexdigest()



def _built_digest(stamp: str) -> Optional[str]:
    """The digest a ``lib<name>.so`` of ``load`` holds; None when there is none. A file of
    that name that is not one (a torch-neuronx build's host library, say) is the user's: it
    is left alone and the build refused."""
    try:
        with open(stamp, "rb") as f:
            data = f.read(64 * 1024)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise BuildError(f"{stamp}: {e.strerror}") from None
    try:
        digest = json.loads(data).get("q7emu_build")
    except (ValueError, AttributeError):
        digest = None
    if not isinstance(digest, str):
        raise BuildError(
            f"{stamp} exists and is not the file a q7emu build writes (a torch-neuronx "
            "build's library?): it is left alone; move it or give another build_directory"
        )
    return digest


def load(
    name: str,
    compute_srcs: Sequence["os.PathLike[str] | str"],
    shape_srcs: Optional[Sequence["os.PathLike[str] | str"]] = None,
    build_directory: Optional["os.PathLike[str] | str"] = None,
    multicore: bool = False,
    extra_cflags: Sequence[str] = (),
    extra_include_paths: Sequence["os.PathLike[str] | str"] = (),
    verbose: bool = False,
) -> Library:
    """Builds a custom-op library and loads it, as ``torch_neuronx.xla_impl.custom_op.load``.

    name: the library's name (the build writes ``lib<name>.so``).
    compute_srcs: the kernels' C++ sources, compiled for the device.
    shape_srcs: the sources with the ``NEURON_LIBRARY(ns, m)`` block and the shape functions.
    build_directory: where the build goes (default ``~/.cache/q7emu/extensions/<name>``, or
        under ``$Q7EMU_EXTENSIONS_DIR``).
    multicore: run every op on all 8 cores.
    extra_cflags, extra_include_paths: added to every device compilation.
    verbose: echo every build command.

    The build writes ``lib<name>.so`` in ``build_directory`` beside its images: the file
    ``load_library`` takes, holding the digest of what decided the build. A build that is up
    to date (the same sources and the headers beside them, arguments, SDK and q7emu) is
    reused, not rebuilt; two processes loading the same build directory at once take turns (a
    lock file in it). Returns the ``Library``; raises ``BuildError`` with the compiler's output
    when the build fails.
    """
    if not compute_srcs:
        raise BuildError("compute_srcs is empty: a library needs a source file")
    if not shape_srcs:
        raise BuildError(
            "shape_srcs is empty: the ops come from the NEURON_LIBRARY block of a shape source"
        )
    compute_srcs = [os.fspath(s) for s in compute_srcs]
    shape_srcs = [os.fspath(s) for s in shape_srcs]
    extra_include_paths = [os.fspath(p) for p in extra_include_paths]
    build_directory = os.fspath(build_directory) if build_directory else _default_build_directory(name)
    os.makedirs(build_directory, exist_ok=True)
    digest = _digest(name, compute_srcs, shape_srcs, multicore, extra_cflags, extra_include_paths)
    stamp = library_file(build_directory, name)
    with open(os.path.join(build_directory, ".q7emu-load.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = _built_digest(stamp)
        if built == digest:
            try:
                return load_library(build_directory)
            except Q7Error:
                pass  # a build that no longer opens: built again
        if os.path.exists(stamp):
            os.remove(stamp)
        lib = _q7emu.build(
            name,
            compute_srcs,
            shape_srcs,
            build_directory,
            multicore=multicore,
            extra_cflags=list(extra_cflags),
            extra_include_paths=extra_include_paths,
            verbose=verbose,
        )
        tmp = stamp + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"q7emu_build": digest, "library": name}, f)
            f.write("\n")
        os.replace(tmp, stamp)
        return Library(lib)
