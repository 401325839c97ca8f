"""The SDK the package carries (python/build.rs embeds examples/sdk in the extension): written
out under ``~/.cache/q7emu/sdk/<version>-<digest>/`` (``$Q7EMU_CACHE_DIR`` overrides the
``~/.cache/q7emu`` part) and made the default SDK of the process's builds, so that a wheel
installed anywhere builds against the SDK it was made with. ``$Q7EMU_SDK`` still names another
(examples/sdk/BUILD.md).

The written copy is checked against the carried files before every build (``ensure``): a file
deleted, truncated, changed, replaced by a link or a FIFO, or added is noticed, said in a
``SdkRewrittenWarning``, and the copy written again — a build never compiles against a
damaged SDK."""

import os
import shutil
import tempfile
import warnings

from . import _q7emu
from .errors import SdkRewrittenWarning

_set = False
_digest = None


def _carried_digest() -> str:
    """The digest of the carried SDK, asked of the extension once (``sdk_files`` copies every
    file into Python)."""
    global _digest
    if _digest is None:
        _, _digest = _q7emu.sdk_files()
    return _digest


def cache_root() -> str:
    return os.environ.get("Q7EMU_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "q7emu")


def _write(root: str, target: str) -> None:
    """Writes the carried SDK as ``target`` in ``root``: a complete copy made beside it and
    renamed into place (what was there first set aside and removed), so that a concurrent
    process sees a whole SDK or none."""
    files, _ = _q7emu.sdk_files()
    os.makedirs(root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".partial-", dir=root)
    try:
        for rel, data in files:
            path = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        if os.path.lexists(target):
            stale = tempfile.mkdtemp(prefix=".stale-", dir=root)
            try:
                os.rename(target, os.path.join(stale, "sdk"))
            except FileNotFoundError:
                pass  # another process set it aside first
            finally:
                shutil.rmtree(stale, ignore_errors=True)
        try:
            os.rename(tmp, target)
        except OSError:
            if _q7emu.sdk_difference(target) is not None:  # not another process's good copy
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ensure() -> str:
    """The SDK directory builds use now: ``$Q7EMU_SDK`` when set, else the carried SDK — written
    out first when it is not yet, and written again, with a ``SdkRewrittenWarning`` saying
    what differed, when the copy there is not the carried one file for file."""
    global _set
    digest = _carried_digest()
    root = os.path.join(cache_root(), "sdk")
    target = os.path.join(root, f"{_q7emu.__version__}-{digest}")
    difference = _q7emu.sdk_difference(target)
    if difference is not None:
        if os.path.lexists(target):
            warnings.warn(
                SdkRewrittenWarning(
                    f"q7emu: the SDK written at {target} is not the one this package carries "
                    f"({difference}): it is written again"
                ),
                stacklevel=3,
            )
        _write(root, target)
    if not _set:
        _q7emu.set_sdk_dir(target)
        _set = True
    return _q7emu.sdk_dir()
