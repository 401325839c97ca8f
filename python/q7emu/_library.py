"""Libraries, ops and runs: a built library opened once, its ops called on numpy arrays, each
run's output and report (docs/python.md "Calling ops")."""

import contextlib
import json
import os
import sys
import types
import warnings
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np

from . import _q7emu
from .errors import BadInputError, CheckFailedError, CheckWarning

# The dtypes q7emu marshals (PLATFORM.md "ISA dtype codes"), by numpy name.
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


def _type_name(value: Any) -> str:
    """The qualified name of ``value``'s type (``int``, ``numpy.str_``)."""
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _as_tensor(value: Any, what: str):
    """An array argument in the extension's form, ``(what, dtype name, shape, bytes)``: its
    rank kept (a 0-d array is a 0-d tensor), its size checked against the tensor limit before
    anything is copied, its bytes a ``uint8`` view of C-contiguous little-endian data — the
    array itself when it is that already (no copy), else one copy of it."""
    try:
        a = np.asarray(value)
    except Exception as e:  # an object numpy cannot take
        raise BadInputError(f"{what}: not an array: {e}") from None
    if a.dtype.name not in _DTYPES:
        raise BadInputError(f"{what}: dtype {a.dtype.name} is not one q7emu marshals ({', '.join(_DTYPES)})")
    shape = [int(d) for d in a.shape]
    _q7emu.Library.check_tensor(what, a.dtype.name, shape)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"), order="C")
    elif not a.flags.c_contiguous:
        a = a.copy(order="C")
    return (what, a.dtype.name, shape, a.reshape(-1).view(np.uint8))


# Scalar kinds as schemas spell them.
_SPELLINGS = {"scalar": "Scalar", "float": "float", "int": "int", "bool": "bool"}


def _scalar(schema: str, arg: str, kind: str, value: Any):
    """Scalar argument ``arg`` (of kind ``kind``) of the op of ``schema`` as the extension
    takes it: a Python bool, int or float (a numpy bool, integer or floating scalar as its
    Python value); ``BadInputError`` naming the op, the argument and the type otherwise. Whether
    the value fits the argument's type is checked by the scalar grammar of ``q7emu run
    --scalar``."""
    if isinstance(value, np.generic):
        if isinstance(value, (np.bool_, np.integer, np.floating)):
            return value.item()
    elif isinstance(value, bool):
        return value
    elif isinstance(value, int):
        return int(value)
    elif isinstance(value, float):
        return float(value)
    raise BadInputError(
        f"op {schema}: argument {arg} ({_SPELLINGS.get(kind, kind)}) is a bool, int or float, not {_type_name(value)}"
    )


def _first_frame_outside() -> int:
    """The ``stacklevel`` of a warning issued by the caller that names the first frame outside
    this package (and outside torch's dispatcher, for a ``torch.ops`` call): the user's call."""
    inside = [os.path.dirname(os.path.abspath(__file__)) + os.sep]
    torch_file: Optional[str] = getattr(sys.modules.get("torch"), "__file__", None)
    if torch_file:
        inside.append(os.path.dirname(os.path.abspath(torch_file)) + os.sep)
    level = 1
    frame: Optional[types.FrameType] = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(tuple(inside)):
        frame = frame.f_back
        level += 1
    return level


class Profile:
    """An exact cycle profile a run wrote (docs/profiling.md): every cycle of every core
    attributed to its instruction, function, line and call path. ``dir`` is its directory;
    ``data`` its ``profile.json`` as a dict; ``top()`` the hottest functions as dicts, the
    rows ``q7emu profile report`` prints; ``report()`` that text."""

    def __init__(self, dir: "os.PathLike[str] | str"):
        self.dir = os.fspath(dir)
        self._data: Optional[dict[str, Any]] = None

    @property
    def data(self) -> dict[str, Any]:
        """``profile.json`` (docs/profiling.md "profile.json")."""
        data = self._data
        if data is None:
            with open(os.path.join(self.dir, "profile.json"), encoding="utf-8") as f:
                data = self._data = json.load(f)
        return data

    def tables(
        self, top: int = 20, inclusive: bool = False, core: Optional[int] = None, lines: bool = False
    ) -> list[dict[str, Any]]:
        """Every table of ``q7emu profile report``: each core's, then the cluster's (``core``
        None) when there is more than one core; each with ``cycles``, ``instructions``,
        ``dispatches`` and ``rows`` (source lines instead of functions with ``lines``)."""
        return json.loads(_q7emu.profile_tables(self.dir, top=top, inclusive=inclusive, core=core, lines=lines))

    def top(
        self, n: int = 20, inclusive: bool = False, core: Optional[int] = None, lines: bool = False
    ) -> list[dict[str, Any]]:
        """The ``n`` hottest functions (or ``lines``), by self cycles (or ``inclusive``), of the
        cluster (or of ``core``): dicts of ``function`` (a line as ``file:line (function)``),
        ``self`` and ``inclusive`` (counts: ``cycles``, ``issue``, ``stalls`` by category,
        ``instructions``…) and ``calls``."""
        return self.tables(n, inclusive, core, lines)[-1]["rows"]

    def report(self, top: int = 20, inclusive: bool = False, core: Optional[int] = None, lines: bool = False) -> str:
        """The text of ``q7emu profile report``."""
        return _q7emu.profile_tables(self.dir, top=top, inclusive=inclusive, core=core, lines=lines, text=True)

    def __repr__(self) -> str:
        return f"<q7emu Profile in {self.dir}>"


class Run:
    """One run of an op: ``output`` (a numpy array), ``report`` (the dict ``q7emu run --json``
    prints: per-core instructions, cycles, stalls, SDMA, windows, I-cache, stack under
    ``cores``), ``console`` (each core's printed text), ``findings`` (checked mode's
    ``check`` object, or None when the run was not checked) and ``findings_text`` (the
    findings as ``q7emu run --check`` prints them, or None)."""

    def __init__(self, raw: dict[str, Any]):
        #: The output as the extension gives it: ``(dtype name, shape, bytes)``.
        self.raw_output = raw["output"]
        self._output: Optional[np.ndarray] = None
        self.report: dict[str, Any] = json.loads(raw["report"])
        self.findings: Optional[dict[str, Any]] = json.loads(raw["findings"]) if raw["findings"] is not None else None
        self.findings_text: Optional[str] = raw["findings_text"]
        self.console: list[str] = list(raw["console"])
        self._summary = (raw["summary"], raw["summary_outputs_only"])
        #: The run's cycle profile when it was run with ``profile=DIR``, else None.
        self.profile: Optional[Profile] = Profile(raw["profile"]) if raw["profile"] is not None else None

    @property
    def output(self) -> np.ndarray:
        """The output array."""
        output = self._output
        if output is None:
            dtype, shape, data = self.raw_output
            # The bytearray the extension made for it: wrapped, not copied.
            output = self._output = np.frombuffer(data, dtype=_numpy_dtype(dtype)).reshape(shape)
        return output

    def summary(self, outputs_only: bool = False) -> str:
        """The run's summary as a ``q7_testing`` snapshot holds it (docs/testing.md): the
        op, the output's dtype, shape and values (or digest, samples and statistics), and each
        core's instructions and cycles unless ``outputs_only``."""
        return self._summary[1] if outputs_only else self._summary[0]

    @property
    def cores(self) -> list[dict[str, Any]]:
        """The per-core part of the report."""
        return self.report["cores"]

    @property
    def cycles(self) -> int:
        """The slowest core's cycles: the dispatch's length."""
        return max(c["cycles"] for c in self.cores)

    def __repr__(self) -> str:
        output = f"{self.output.dtype}{list(self.output.shape)}"
        return f"<q7emu Run of {self.report['op']}: output {output}, {self.cycles} cycles>"


# The lists `record()` blocks are filling: every run appends itself to each.
_recorders: list[list[Run]] = []


class record:
    """``with q7emu.record() as runs:`` — every op run inside the block (called directly, with
    ``run``, or through ``q7emu.torch``) is appended to ``runs`` as its ``Run``: its report,
    cycles and output. Blocks nest; each sees the runs made while it is open."""

    def __init__(self) -> None:
        self.runs: list[Run] = []

    def __enter__(self) -> list[Run]:
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
            raise BadInputError(f"op {self.schema} takes {len(self.args)} argument(s), {len(values)} given")
        tensors, scalars = [], []
        for (arg, kind), v in zip(self.args, values):
            if kind == "tensor":
                tensors.append(_as_tensor(v, f"op {self.name}: argument {arg}"))
            else:
                scalars.append(_scalar(self.schema, arg, kind, v))
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
        timing: "Optional[os.PathLike[str] | str | dict[str, Any]]" = None,
        trace_dir: "Optional[os.PathLike[str] | str]" = None,
        timeline: "Optional[os.PathLike[str] | str]" = None,
        profile: "Optional[os.PathLike[str] | str]" = None,
        jit: Optional[bool] = None,
    ) -> Run:
        """Runs the op on ``args``: the ``Run``. ``threads`` host threads run the cores (the
        results are the same for any number); ``max_cycles`` is each core's cycle budget;
        ``check`` runs checked mode (docs/checked-mode.md: the findings in ``Run.findings``,
        and with ``strict`` an error-class finding raises ``CheckFailedError``); ``poison``
        (``"nan"`` or ``"pattern"``) fills fresh allocations; ``out_dtype``/``out_shape``
        override what the op's shape function says. ``timing`` is a timing profile (a
        ``.json``/``.toml`` file, or a dict of timing-model fields: docs/timing.md);
        ``trace_dir`` gets each core's instruction trace and ``timeline`` the run's Chrome
        trace-event timeline (docs/tracing.md), as ``q7emu run --trace-dir/--timeline``;
        ``profile`` gets the run's exact cycle profile (docs/profiling.md), as ``q7emu run
        --profile``, and ``Run.profile`` reads it.
        ``jit=False`` runs the interpreter alone, as ``--jit off`` (default: the library's,
        from ``load_library``, else compiled hot code; the results are the same). Each option
        is checked as ``q7emu run`` checks its flag: a bad one is ``BadInputError`` naming it.
        Findings of a checked run that does not raise are a ``CheckWarning``."""
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
            profile=profile,
            jit=jit,
        )

    def _run(self, tensors, scalars, *, strict: Any = False, out_dtype: Any = None, **options: Any) -> Run:
        """``run`` on arguments already in the extension's form (``_as_tensor``,
        ``_scalar``); the options go to the extension, which checks each. A checked run's
        findings raise ``CheckFailedError`` (``strict`` and an error among them) or are warned as
        a ``CheckWarning``, as ``q7emu run --check`` prints them."""
        if not isinstance(strict, (bool, np.bool_)):
            raise BadInputError(f"strict: a bool, not {_type_name(strict)}")
        if strict and not options.get("check"):
            raise BadInputError(
                "strict=True without check=True: strict raises on checked mode's findings; pass check=True too"
            )
        dtype_name: Any = out_dtype  # a name, or anything else the extension refuses naming its type
        if isinstance(out_dtype, (np.dtype, type)):
            with contextlib.suppress(TypeError):
                dtype_name = np.dtype(out_dtype).name
        if options.get("jit") is None:
            options["jit"] = self._library._jit
        options = {k: v for k, v in options.items() if v is not None}
        raw = self._library._lib.run(self.name, tensors, scalars, out_dtype=dtype_name, **options)
        run = Run(raw)
        for recorder in _recorders:
            recorder.append(run)
        if run.findings is not None and run.findings_text is not None and run.findings["findings"]:
            if strict and run.findings["errors"]:
                raise CheckFailedError(run.findings_text, findings=run.findings)
            warnings.warn(run.findings_text, CheckWarning, stacklevel=_first_frame_outside())
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
        # The calls' default engine: None for the process's (docs/jit.md "Switch").
        self._jit: Optional[bool] = None
        self.ops: dict[str, Op] = {name: Op(self, name, schema, args) for (name, schema, args) in lib.ops()}

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
