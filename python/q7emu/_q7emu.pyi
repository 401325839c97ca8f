"""Type stubs of the extension module q7emu._q7emu (python/src/lib.rs); the public API is the
q7emu package's (docs/python.md)."""

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

__version__: str

# (what, dtype name, shape, a C-contiguous numpy.ndarray of the tensor's bytes)
_Tensor = Tuple[str, str, List[int], Any]

class Library:
    def __init__(self, path: Union[str, "os.PathLike[str]"], keep_loaded: bool = True) -> None: ...
    @property
    def path(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def namespace(self) -> Optional[str]: ...
    @property
    def multicore(self) -> bool: ...
    def ops(self) -> List[Tuple[str, str, List[Tuple[str, str]]]]: ...
    @staticmethod
    def check_tensor(what: str, dtype: str, shape: Sequence[int]) -> None: ...
    def run(
        self,
        op: str,
        tensors: Sequence[_Tensor],
        scalars: Sequence[Union[bool, int, float]],
        *,
        threads: Optional[int] = None,
        max_cycles: Optional[int] = None,
        check: Optional[bool] = None,
        poison: Optional[str] = None,
        out_dtype: Optional[str] = None,
        out_shape: Optional[Sequence[int]] = None,
        timing: Union[None, str, "os.PathLike[str]", Dict[str, Any]] = None,
        trace_dir: Union[None, str, "os.PathLike[str]"] = None,
        timeline: Union[None, str, "os.PathLike[str]"] = None,
        profile: Union[None, str, "os.PathLike[str]"] = None,
        jit: Optional[bool] = None,
    ) -> Dict[str, Any]: ...
    def output_spec(
        self,
        op: str,
        tensors: Sequence[Tuple[str, Sequence[int]]],
        scalars: Sequence[Union[bool, int, float]],
    ) -> Tuple[str, List[int]]: ...

def build(
    name: str,
    compute_srcs: Sequence[Union[str, "os.PathLike[str]"]],
    shape_srcs: Sequence[Union[str, "os.PathLike[str]"]],
    build_directory: Union[str, "os.PathLike[str]"],
    multicore: bool = False,
    extra_cflags: Sequence[str] = ...,
    extra_include_paths: Sequence[Union[str, "os.PathLike[str]"]] = ...,
    verbose: bool = False,
) -> Tuple[Library, List[str]]: ...
def digest_inputs(text: str, files: Sequence[Union[str, "os.PathLike[str]"]]) -> str: ...
def read_load_record(path: Union[str, "os.PathLike[str]"]) -> Optional[bytes]: ...
def sdk_difference(dir: Union[str, "os.PathLike[str]"]) -> Optional[str]: ...
def sdk_dir() -> str: ...
def toolchain_skip_reason() -> Optional[str]: ...
def sdk_files() -> Tuple[List[Tuple[str, bytes]], str]: ...
def set_sdk_dir(dir: Union[str, "os.PathLike[str]"]) -> bool: ...
def main(argv: Sequence[str]) -> int: ...
def profile_tables(
    dir: Union[str, "os.PathLike[str]"],
    *,
    top: int = 20,
    inclusive: bool = False,
    core: Optional[int] = None,
    lines: bool = False,
    text: bool = False,
) -> str: ...
