"""Building and opening libraries: ``load`` (as ``torch_neuronx.xla_impl.custom_op.load``),
``load_library``, and the ``lib<name>.so`` record a build leaves (docs/python.md "Build and load").

``load(name, …, build_directory=D)`` builds library ``name`` into the folder ``D/q7emu-<name>``
and writes ``D/lib<name>.so``: a JSON record naming that folder, the library, the arguments of
the build and every file its compilers read (their ``-MD`` output) with a digest of them all.
Libraries sharing ``D`` — AWS's scripts build into the current directory — so keep their files
apart, and ``lib<name>.so`` always opens library ``name``. A later ``load`` with the same
arguments whose recorded files all hash as they did reuses the build.
"""

import contextlib
import fcntl
import json
import os
import re
import stat
from collections.abc import Sequence
from typing import Any, Optional, Union

from . import _q7emu, _sdk
from ._library import Library
from .errors import BadInputError, BuildError, Q7Error

__version__ = _q7emu.__version__

#: What a library name of ``load`` may be: it names ``lib<name>.so`` and the build's folder, so
#: letters, digits, ``_`` and ``-`` only (no path, no dot), starting with a letter, digit or ``_``.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*\Z")
#: The longest library name ``load`` takes (``lib<name>.so`` must fit a file name).
NAME_MAX = 200
#: The folder beside ``lib<name>.so`` that ``load`` builds library ``<name>`` into.
BUILD_FOLDER = "q7emu-{name}"
#: The lock file in that folder: loads of one library take turns.
LOCK_FILE = ".q7emu-load.lock"
#: The key a load record has, and the version of its layout.
RECORD_KEY = "q7emu_build"
RECORD_VERSION = 2

PathArg = Union[str, "os.PathLike[str]"]


def library_file(build_directory: PathArg, name: str) -> str:
    """The ``lib<name>.so`` that ``load`` writes in ``build_directory``: the file
    ``load_library`` is given as AWS's scripts give it (``custom_op.load_library('librelu.so')``).
    It is a JSON record naming the build folder beside it (``q7emu-<name>``) and the digest of
    what the build read."""
    return os.path.join(os.fspath(build_directory), f"lib{name}.so")


def _check_name(name: Any) -> str:
    if not isinstance(name, str):
        raise BadInputError(f"name: a str, not {type(name).__name__}")
    if not NAME_PATTERN.match(name) or len(name) > NAME_MAX:
        raise BadInputError(
            f"library name {name!r}: letters, digits, '_' and '-' only, starting with a letter, "
            f"digit or '_', at most {NAME_MAX} characters (it names lib<name>.so and the build's "
            "folder, so it cannot be a path)"
        )
    return name


def _path(value: Any, what: str) -> str:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    if not isinstance(value, str):
        raise BadInputError(f"{what}: a path, not {type(value).__name__}")
    if value == "" or "\0" in value:
        raise BadInputError(f"{what}: {value!r} is not a path")
    return value


def _paths(value: Any, what: str) -> list[str]:
    """A list of paths as ``load`` takes them: one path (a ``str`` or path-like) is a list of
    one, as in ``torch.utils.cpp_extension.load``; any other iterable of paths is taken
    element by element."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, os.PathLike)):
        return [_path(value, what)]
    try:
        items = list(value)
    except TypeError:
        raise BadInputError(f"{what}: a path or a list of paths, not {type(value).__name__}") from None
    return [_path(v, f"{what}[{i}]") for i, v in enumerate(items)]


def _flags(value: Any) -> list[str]:
    """``extra_cflags``: a list of flags; one ``str`` is one flag."""
    if isinstance(value, str):
        value = [value]
    try:
        items = list(value)
    except TypeError:
        raise BadInputError(f"extra_cflags: a list of flags, not {type(value).__name__}") from None
    for i, f in enumerate(items):
        if not isinstance(f, str) or f == "" or "\0" in f:
            raise BadInputError(f"extra_cflags[{i}]: {f!r} is not a compiler flag")
    return items


def _directory(path: str, what: str) -> None:
    """Makes directory ``path`` (and its parents) unless it is one: ``BuildError`` when it is
    something else or cannot be made."""
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise BuildError(f"{what} {path}: exists and is not a directory") from None
    except OSError as e:
        raise BuildError(f"{what} {path}: {e.strerror}") from None
    if not os.path.isdir(path):
        raise BuildError(f"{what} {path}: exists and is not a directory")


def _default_build_directory(name: str) -> str:
    root = os.environ.get("Q7EMU_EXTENSIONS_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "q7emu", "extensions"
    )
    return os.path.join(root, name)


def _not_ours(path: str) -> BadInputError:
    return BadInputError(
        f"{path} is not a library q7emu.load wrote (a library built for a Trainium host by "
        "torch-neuronx does not run here; build its sources with q7emu.load or "
        "q7emu.torch.custom_op.load): it is left alone"
    )


def _read_record(path: str) -> Optional[dict[str, Any]]:
    """The load record ``path`` holds; None when there is no such file. Read through the
    extension's bounded reader (a FIFO or device is refused, not waited on); ``BadInputError``
    when it is not one ``load`` wrote."""
    data = _q7emu.read_load_record(path)
    if data is None:
        return None
    try:
        record = json.loads(data)
    except (ValueError, RecursionError):
        raise _not_ours(path) from None
    if (
        not isinstance(record, dict)
        or not isinstance(record.get(RECORD_KEY), str)
        or not isinstance(record.get("library"), str)
    ):
        raise _not_ours(path)
    return record


def _open_recorded(path: str, record: dict[str, Any], keep_loaded: bool) -> Library:
    """The library record ``path`` names, checked to be that library."""
    name = record["library"]
    folder = record.get("build")
    if folder is None:
        # A record of an earlier q7emu, whose build is the directory holding it.
        build = os.path.dirname(os.path.abspath(path))
    elif isinstance(folder, str) and folder == BUILD_FOLDER.format(name=name):
        build = os.path.join(os.path.dirname(os.path.abspath(path)), folder)
    else:
        raise _not_ours(path)
    library = Library(_q7emu.Library(build, keep_loaded=keep_loaded))
    if library.name != name:
        raise BadInputError(
            f"{path} stands for library {name}, but the build it names ({build}) holds library "
            f"{library.name}: build {name} again with q7emu.load"
        )
    return library


def _records_in(directory: str) -> list[str]:
    """The ``lib<name>.so`` files in ``directory`` that are load records (names only)."""
    found: list[str] = []
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return found
    for n in names:
        if n.startswith("lib") and n.endswith(".so"):
            try:
                if _read_record(os.path.join(directory, n)) is not None:
                    found.append(n)
            except Q7Error:
                pass
    return found


def load_library(path: PathArg, keep_loaded: bool = True, jit: Optional[bool] = None) -> Library:
    """Opens a library: ``path`` is the ``lib<name>.so`` that ``load`` wrote (as
    ``torch_neuronx.xla_impl.custom_op.load_library`` is given it), or a build directory of
    ``q7emu build`` (the one holding ``q7build.json``).

    With ``keep_loaded`` (the default) the library is loaded on a cluster of its own by its
    first call and kept there: every call starts from the device as it was right after the
    load, with the outcome of a fresh ``q7emu run`` (docs/python.md "Calls per second").
    ``keep_loaded=False`` sets a cluster up for every call instead (less memory held between
    calls, much slower calls). ``jit=False`` runs its calls on the interpreter alone, as
    ``q7emu run --jit off`` (docs/jit.md; the default compiles hot code, unless
    ``Q7EMU_JIT=off``); results are the same either way, and a call's own ``jit`` wins."""
    if jit is not None and not isinstance(jit, bool):
        raise BadInputError(f"jit: a bool, not {type(jit).__name__}")
    library = _load_library(path, keep_loaded)
    library._jit = jit
    return library


def _load_library(path: PathArg, keep_loaded: bool) -> Library:
    """``load_library`` but for its ``jit``."""
    path = _path(path, "load_library")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise BadInputError(
            f"{path}: no such file or directory (the lib<name>.so of q7emu.load, or a build directory of q7emu build)"
        ) from None
    except OSError as e:
        raise BadInputError(f"{path}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        if not os.path.exists(os.path.join(path, "q7build.json")):
            records = _records_in(path)
            if records:
                raise BadInputError(
                    f"{path} is where q7emu.load built {', '.join(records)}: give "
                    "load_library the lib<name>.so of the library to open"
                )
        return Library(_q7emu.Library(path, keep_loaded=keep_loaded))
    record = _read_record(path)  # refuses a FIFO, a device, an oversized file
    if record is None:  # gone since the stat
        raise BadInputError(f"{path}: no such file or directory")
    return _open_recorded(path, record, keep_loaded)


class _locked:
    """``with _locked(path):`` holds an exclusive lock on file ``path`` (created if missing):
    opened without blocking, so that a FIFO put there is refused rather than waited on."""

    def __init__(self, path: str):
        self.path = path
        self.fd = -1

    def __enter__(self) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            self.fd = os.open(self.path, flags, 0o644)
        except OSError as e:
            raise BuildError(f"{self.path}: {e.strerror}") from None
        if not stat.S_ISREG(os.fstat(self.fd).st_mode):
            os.close(self.fd)
            raise BuildError(f"{self.path}: not a regular file (the lock file of q7emu.load)")
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: Any) -> None:
        os.close(self.fd)


def _sdk_files(sdk: str) -> list[str]:
    """Every file under the SDK directory, in walk order (what a build may read of it)."""
    files: list[str] = []
    for root, dirs, names in os.walk(sdk):
        dirs.sort()
        files.extend(os.path.join(root, n) for n in sorted(names))
    return files


def load(
    name: str,
    compute_srcs: Union[PathArg, Sequence[PathArg]],
    shape_srcs: Optional[Union[PathArg, Sequence[PathArg]]] = None,
    build_directory: Optional[PathArg] = None,
    multicore: bool = False,
    extra_cflags: Union[str, Sequence[str]] = (),
    extra_include_paths: Union[PathArg, Sequence[PathArg]] = (),
    verbose: bool = False,
) -> Library:
    """Builds a custom-op library and loads it, as ``torch_neuronx.xla_impl.custom_op.load``.

    name: the library's name: letters, digits, ``_`` and ``-``.
    compute_srcs: the kernels' C++ sources, compiled for the device (a path, or a list).
    shape_srcs: the sources with the ``NEURON_LIBRARY(ns, m)`` block and the shape functions.
    build_directory: where the build goes (default ``~/.cache/q7emu/extensions/<name>``, or
        under ``$Q7EMU_EXTENSIONS_DIR``): the folder ``q7emu-<name>`` in it, beside
        ``lib<name>.so``, so that libraries built into one directory stay apart.
    multicore: run every op on all 8 cores.
    extra_cflags, extra_include_paths: added to every device compilation.
    verbose: echo every build command.

    ``lib<name>.so`` is the file ``load_library`` takes. A build is reused, not rebuilt, when
    the arguments are the same and every file the compilers read last time (sources, every
    header wherever it was found, the SDK) is unchanged; two processes loading the same library
    at once take turns (a lock file in its folder). Returns the ``Library``; raises
    ``BuildError`` with the compiler's output when the build fails.
    """
    name = _check_name(name)
    compute = _paths(compute_srcs, "compute_srcs")
    shape = _paths(shape_srcs, "shape_srcs")
    includes = _paths(extra_include_paths, "extra_include_paths")
    cflags = _flags(extra_cflags)
    if not compute:
        raise BuildError("compute_srcs is empty: a library needs a source file")
    if not shape:
        raise BuildError("shape_srcs is empty: the ops come from the NEURON_LIBRARY block of a shape source")
    directory = (
        _path(build_directory, "build_directory") if build_directory is not None else _default_build_directory(name)
    )
    try:
        sdk = _sdk.ensure()
    except OSError as e:
        raise BuildError(f"writing out the SDK the package carries: {e}") from None
    _directory(directory, "build_directory")
    folder_name = BUILD_FOLDER.format(name=name)
    folder = os.path.join(directory, folder_name)
    _directory(folder, "the build folder")
    record_path = library_file(directory, name)
    # What decides the build besides the files it reads.
    arguments = json.dumps(
        {
            "version": __version__,
            "name": name,
            "multicore": bool(multicore),
            "extra_cflags": cflags,
            "compute_srcs": [os.path.abspath(p) for p in compute],
            "shape_srcs": [os.path.abspath(p) for p in shape],
            "extra_include_paths": [os.path.abspath(p) for p in includes],
            "sdk": os.path.abspath(sdk),
        },
        sort_keys=True,
    )
    with _locked(os.path.join(folder, LOCK_FILE)):
        try:
            record = _read_record(record_path)
        except BadInputError as e:  # a file of that name that is not ours stops the build
            raise BuildError(str(e)) from None
        if (
            record is not None
            and record.get("version") == RECORD_VERSION
            and record.get("arguments") == arguments
            and isinstance(record.get("inputs"), list)
            and all(isinstance(p, str) for p in record["inputs"])
            and _q7emu.digest_inputs(arguments, record["inputs"]) == record[RECORD_KEY]
        ):
            try:
                return _open_recorded(record_path, record, keep_loaded=True)
            except Q7Error:
                pass  # a build that no longer opens: built again
        if record is not None:
            os.remove(record_path)  # no record stands for a build under way or failed
        lib, read = _q7emu.build(
            name,
            compute,
            shape,
            folder,
            multicore=bool(multicore),
            extra_cflags=cflags,
            extra_include_paths=includes,
            verbose=bool(verbose),
        )
        inputs = sorted(dict.fromkeys([os.fspath(p) for p in read] + _sdk_files(sdk)))
        record = {
            RECORD_KEY: _q7emu.digest_inputs(arguments, inputs),
            "version": RECORD_VERSION,
            "library": name,
            "build": folder_name,
            "arguments": arguments,
            "inputs": inputs,
        }
        tmp = f"{record_path}.{os.getpid()}.tmp"
        try:
            with open(tmp, "w") as f:
                json.dump(record, f, indent=1)
                f.write("\n")
            os.replace(tmp, record_path)
        except OSError as e:
            with contextlib.suppress(OSError):
                os.remove(tmp)
            raise BuildError(f"{record_path}: {e.strerror}") from None
        return Library(lib)
