"""Type stubs of the extension module q7emu._q7emu (python/src/lib.rs); the public API is the
q7emu package's (docs/python.md)."""

import os
from collections.abc import Sequence
from typing import Any, final

# What the module adds (PyO3 lists each in __all__ as it adds it).
__all__ = [
    "Library",
    "build",
    "digest_inputs",
    "read_load_record",
    "sdk_difference",
    "main",
    "sdk_dir",
    "toolchain_skip_reason",
    "sdk_files",
    "set_sdk_dir",
    "profile_tables",
    "__version__",
]

__version__: str

# (what, dtype name, shape, a C-contiguous numpy.ndarray of the tensor's bytes)
_Tensor = tuple[str, str, list[int], Any]

@final
class Library:
    def __new__(cls, path: str | os.PathLike[str], keep_loaded: bool = True) -> Library: ...
    @property
    def path(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def namespace(self) -> str | None: ...
    @property
    def multicore(self) -> bool: ...
    def ops(self) -> list[tuple[str, str, list[tuple[str, str]]]]: ...
    @staticmethod
    def check_tensor(what: str, dtype: str, shape: Sequence[int]) -> None: ...
    def run(
        self,
        op: str,
        tensors: Sequence[_Tensor],
        scalars: Sequence[bool | int | float],
        *,
        threads: int | None = None,
        max_cycles: int | None = None,
        check: bool | None = None,
        poison: str | None = None,
        out_dtype: str | None = None,
        out_shape: Sequence[int] | None = None,
        timing: None | str | os.PathLike[str] | dict[str, Any] = None,
        trace_dir: None | str | os.PathLike[str] = None,
        timeline: None | str | os.PathLike[str] = None,
        profile: None | str | os.PathLike[str] = None,
        jit: bool | None = None,
    ) -> dict[str, Any]: ...
    def output_spec(
        self,
        op: str,
        tensors: Sequence[tuple[str, Sequence[int]]],
        scalars: Sequence[bool | int | float],
    ) -> tuple[str, list[int]]: ...

def build(
    name: str,
    compute_srcs: Sequence[str | os.PathLike[str]],
    shape_srcs: Sequence[str | os.PathLike[str]],
    build_directory: str | os.PathLike[str],
    multicore: bool = False,
    extra_cflags: Sequence[str] = ...,
    extra_include_paths: Sequence[str | os.PathLike[str]] = ...,
    verbose: bool = False,
) -> tuple[Library, list[str]]: ...
def digest_inputs(text: str, files: Sequence[str | os.PathLike[str]]) -> str: ...
def read_load_record(path: str | os.PathLike[str]) -> bytes | None: ...
def sdk_difference(dir: str | os.PathLike[str]) -> str | None: ...
def sdk_dir() -> str: ...
def toolchain_skip_reason() -> str | None: ...
def sdk_files() -> tuple[list[tuple[str, bytes]], str]: ...
def set_sdk_dir(dir: str | os.PathLike[str]) -> bool: ...
def main(argv: Sequence[str]) -> int: ...
def profile_tables(
    dir: str | os.PathLike[str],
    *,
    top: int = 20,
    inclusive: bool = False,
    core: int | None = None,
    lines: bool = False,
    text: bool = False,
) -> str: ...
