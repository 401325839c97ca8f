"""Libraries, ops and runs: a built library opened once, its ops called on numpy arrays, each
run's output and report (docs/python.md "Calling ops")."""

import json
import os
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from . import _q7emu
from .errors import BadInput, CheckFailed

# The dtypes q7emu marshals (docs/dtypes.md), by numpy name.
_DTYPES = ("float32", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64")


def _numpy_dtype(name: str) -> np.dtype:
    """The numpy dtype of a q7emu dtype name: bfloat16 is ``ml_dtypes.bfloat16`` when that
    package is installed (imported only here, when a bfloat16 output is made: it takes a
    second to import), else raw ``uint16``."""
    if name == "bfloat16":
        try:
            import ml_dtypes
        except ImportError:
            return np.dtype(np.uint16)
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def _as_tensor(value: Any, what: str):
    """``(dtype name, shape, bytes)`` of an array argument: C-contiguous little-endian data,
    copied when it is not already."""
    try:
        a = np.asarray(value)
    except Exception as e:  # an object numpy cannot take
        raise BadInput(f"{what}: not an array: {e}") from None
    if a.dtype.name not in _DTYPES:
        raise BadInput(
            f"{what}: dtype {a.dtype.name} is not one q7emu marshals ({', '.join(_DTYPES)})"
        )
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    a = np.ascontiguousarray(a)
    return (a.dtype.name, [int(d) for d in a.shape], a.tobytes())


class Run:
    """One run of an op: ``output`` (a numpy array), ``report`` (the dict ``q7emu run --json``
    prints: per-core instructions, cycles, stalls, SDMA, windows, I-cache, stack under
    ``cores``), ``console`` (each core's printed text) and ``findings`` (checked mode's
    ``check`` object, or None when the run was not checked)."""

    def __init__(self, raw: Dict[str, Any]):
        #: The output as the extension gives it: ``(dtype name, shape, bytes)``.
        self.raw_output = raw["output"]
        self._output: Optional[np.ndarray] = None
        self.report: Dict[str, Any] = json.loads(raw["report"])
        self.findings: Optional[Dict[str, Any]] = (
            json.loads(raw["findings"]) if raw["findings"] is not None else None
        )
        self.console: List[str] = list(raw["console"])
        self._summary = (raw["summary"], raw["summary_outputs_only"])

    @property
    def output(self) -> np.ndarray:
        """The output array."""
        if self._output is None:
            dtype, shape, data = self.raw_output
            self._output = np.frombuffer(bytearray(data), dtype=_numpy_dtype(dtype)).reshape(shape)
        return self._output

    def summary(self, outputs_only: bool = False) -> str:
        """The run's summary as a ``q7_host::testing`` snapshot holds it (docs/testing.md): the
        op, the output's dtype, shape and values (or digest, samples and statistics), and each
        core's instructions and cycles unless ``outputs_only``."""
        return self._summary[1] if outputs_only else self._summary[0]

    @property
    def cores(self) -> List[Dict[str, Any]]:
        """The per-core part of the report."""
        return self.report["cores"]

    @property
    def cycles(self) -> int:
        """The slowest core's cycles: the dispatch's length."""
        return max(c["cycles"] for c in self.cores)

    def __repr__(self) -> str:
        return f"<q7emu Run of {self.report['op']}: output {self.output.dtype}{list(self.output.shape)}, {self.cycles} cycles>"


# The lists `record()` blocks are filling: every run appends itself to each.
_recorders: List[List[Run]] = []


class record:
    """``with q7emu.record() as runs:`` — every op run inside the block (called directly, with
    ``run``, or through ``q7emu.torch``) is appended to ``runs`` as its ``Run``: its report,
    cycles and output. Blocks nest; each sees the runs made while it is open."""

    def __init__(self) -> None:
        self.runs: List[Run] = []

    def __enter__(self) -> List[Run]:
        _recorders.append(self.runs)
        return self.runs

    def __exit__(self, *exc: Any) -> None:
        _recorders.remove(self.runs)


class Op:
    """One op of a library. Call it with its arguments in schema order (arrays for tensors,
    Python numbers for scalars) for its output; ``run`` for the whole ``Run``."""

    def __init__(self, library: "Library", name: str, schema: str, args: Sequence[tuple]):
        self._library = library
        self.name = name
        self.schema = schema
        self.args = list(args)

    def _split(self, values: Sequence[Any]):
        if len(values) != len(self.args):
            raise BadInput(f"op {self.schema} takes {len(self.args)} argument(s), {len(values)} given")
        tensors, scalars = [], []
        for (arg, kind), v in zip(self.args, values):
            if kind == "tensor":
                tensors.append(_as_tensor(v, f"op {self.name}: argument {arg}"))
            elif isinstance(v, (bool, int, float, np.generic)):
                scalars.append(v.item() if isinstance(v, np.generic) else v)
            else:
                raise BadInput(
                    f"op {self.schema}: argument {arg} is a {kind} scalar, not {type(v).__name__}"
                )
        return tensors, scalars

    def run(
        self,
        *args: Any,
        threads: int = 2,
        max_cycles: Optional[int] = None,
        check: bool = False,
        strict: bool = False,
        poison: Optional[str] = None,
        out_dtype: Optional[str] = None,
        out_shape: Optional[Sequence[int]] = None,
        timing: "Optional[os.PathLike[str] | str | Dict[str, Any]]" = None,
        trace_dir: "Optional[os.PathLike[str] | str]" = None,
        timeline: "Optional[os.PathLike[str] | str]" = None,
    ) -> Run:
        """Runs the op on ``args``: the ``Run``. ``threads`` host threads run the cores (the
        results are the same for any number); ``max_cycles`` is each core's cycle budget;
        ``check`` runs checked mode (docs/checked-mode.md: the findings in ``Run.findings``,
        and with ``strict`` an error-class finding raises ``CheckFailed``); ``poison``
        (``"nan"`` or ``"pattern"``) fills fresh allocations; ``out_dtype``/``out_shape``
        override what the op's shape function says. ``timing`` is a timing profile (a
        ``.json``/``.toml`` file, or a dict of timing-model fields: docs/timing.md);
        ``trace_dir`` gets each core's instruction trace and ``timeline`` the run's Chrome
        trace-event timeline (docs/tracing.md), as ``q7emu run --trace-dir/--timeline``."""
        tensors, scalars = self._split(args)
        return self._run(
            tensors,
            scalars,
            threads=threads,
            max_cycles=max_cycles,
            check=check,
            strict=strict,
            poison=poison,
            out_dtype=out_dtype,
            out_shape=out_shape,
            timing=timing,
            trace_dir=trace_dir,
            timeline=timeline,
        )

    def _run(self, tensors, scalars, *, strict: bool = False, out_shape=None, trace_dir=None, timeline=None, **options) -> Run:
        """``run`` on arguments already in the extension's form: tensors as ``(dtype name,
        shape, bytes)``, scalars as Python numbers."""
        raw = self._library._lib.run(
            self.name,
            tensors,
            scalars,
            out_shape=list(out_shape) if out_shape is not None else None,
            trace_dir=os.fspath(trace_dir) if trace_dir is not None else None,
            timeline=os.fspath(timeline) if timeline is not None else None,
            **options,
        )
        run = Run(raw)
        for recorder in _recorders:
            recorder.append(run)
        if strict and run.findings is not None and run.findings["errors"]:
            raise CheckFailed(json.dumps(run.findings, indent=2))
        return run

    def __call__(self, *args: Any, **options: Any) -> np.ndarray:
        """Runs the op on ``args`` and returns its output (options as for ``run``)."""
        return self.run(*args, **options).output

    def __repr__(self) -> str:
        return f"<q7emu op {self.schema}>"


class Library:
    """A built library, loaded once: its ops are attributes (``lib.relu_forward``) and in
    ``lib.ops`` by name. Calls reuse the loaded images: no rebuild or reload per call."""

    def __init__(self, lib: "_q7emu.Library"):
        self._lib = lib
        self.ops: Dict[str, Op] = {
            name: Op(self, name, schema, args) for (name, schema, args) in lib.ops()
        }

    @property
    def path(self) -> str:
        """The build directory."""
        return os.fspath(self._lib.path)

    @property
    def name(self) -> str:
        """The library's name."""
        return self._lib.name

    @property
    def multicore(self) -> bool:
        """Whether its ops run on all 8 cores."""
        return self._lib.multicore

    def __getattr__(self, name: str) -> Op:
        ops = self.__dict__.get("ops", {})
        if name in ops:
            return ops[name]
        raise AttributeError(
            f"library {self.__dict__.get('_lib') and self._lib.name!s} has no op {name}; its ops: {', '.join(ops)}"
        )

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.ops))

    def __repr__(self) -> str:
        return f"<q7emu library {self.name} ({', '.join(self.ops)}) at {self.path}>"
