"""The SDK the package carries (python/build.rs embeds examples/sdk in the extension): written
out once per content digest under ``~/.cache/q7emu/sdk/`` (``$Q7EMU_CACHE_DIR`` overrides the
``~/.cache/q7emu`` part) and made the default SDK of the process's builds, so that a wheel
installed anywhere builds against the SDK it was made with. ``$Q7_SDK`` still names another
(examples/sdk/BUILD.md)."""

import os
import shutil
import tempfile

from . import _q7emu

_ready = None


def cache_root() -> str:
    return os.environ.get("Q7EMU_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "q7emu")


def ensure() -> str:
    """The SDK directory builds use now: ``$Q7_SDK`` when set, else the carried SDK, written
    out first if it is not yet (atomically: a complete copy is renamed into place, so a
    concurrent process sees either none or all of it)."""
    global _ready
    if _ready is None:
        files, digest = _q7emu.sdk_files()
        root = os.path.join(cache_root(), "sdk")
        target = os.path.join(root, f"{_q7emu.__version__}-{digest}")
        if not os.path.isdir(target):
            os.makedirs(root, exist_ok=True)
            tmp = tempfile.mkdtemp(prefix=".partial-", dir=root)
            try:
                for rel, data in files:
                    path = os.path.join(tmp, rel)
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "wb") as f:
                        f.write(data)
                try:
                    os.rename(tmp, target)
                except OSError:
                    if not os.path.isdir(target):  # not another process's copy: a real failure
                        raise
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        _q7emu.set_sdk_dir(target)
        _ready = target
    return _q7emu.sdk_dir()
