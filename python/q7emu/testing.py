"""Property-based kernel testing: find the shape and the values that break an op, shrunk to the
smallest, with Hypothesis (docs/fuzzing.md). Installed with the ``testing`` extra
(``pip install "./python[testing]"``).

    import numpy as np, q7emu, q7emu.testing

    lib = q7emu.load_library("examples/kernels/relu_multicore/build")
    x = np.load("examples/kernels/relu_multicore/input.npy")
    q7emu.testing.fuzz(lib.relu_forward, lambda t: np.where(t > 0, t, np.float32(0)), (x,))

``fuzz`` draws calls around one example call: every tensor keeps its dtype and rank and takes
shapes of the sizes partition bugs live at (1, primes, counts the cores do not divide, one
dimension alone, up to the example's element count) and values from the whole range of its
dtype (NaN, ±inf, −0.0, subnormals, the integer extremes); each call runs in checked mode
against the reference. The first failure is shrunk to the smallest call that still fails and
raised as a ``Counterexample``. ``tensors``, ``shapes_like`` and ``assert_matches`` are the
pieces, for tests of one's own with ``@given``.
"""

import math
import os
import shlex
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

try:
    import hypothesis
    from hypothesis import HealthCheck, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        'q7emu.testing needs Hypothesis: install the testing extra, pip install "./python[testing]" '
        f"(or pip install hypothesis): {e}"
    ) from None

from ._library import Op, Run, _numpy_dtype
from .errors import CheckWarning, KernelFaultError, RunawayError, ShapeFunctionError

__all__ = [
    "CI_PROFILE",
    "Counterexample",
    "assert_matches",
    "fuzz",
    "shapes_like",
    "tensors",
    "tolerance",
]

#: The Hypothesis settings profile for CI (``--hypothesis-profile q7emu-ci``, or
#: ``hypothesis.settings.load_profile``): derandomized, so a run draws the same calls every
#: time, and without a wall-time deadline; the time bound of each call is its cycle budget
#: (``fuzz``'s ``max_cycles``), counted in emulated cycles, the same on every machine.
CI_PROFILE = "q7emu-ci"
settings.register_profile(CI_PROFILE, derandomize=True, deadline=None, print_blob=True)

# Small sizes partition bugs live at, besides the ones a core count gives (``_sizes``).
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 31, 61, 127, 257, 1021, 4093)

# The default tolerance per float dtype, (rtol, atol): torch.testing.assert_close's defaults.
_TOLERANCE = {
    "float32": (1.3e-6, 1e-5),
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
}

# The cycle budget of a drawn call: this many times the example call's slowest core, plus
# ``_BUDGET_FLOOR`` (the runtime's own set-up and return, for a call far smaller than the example).
_BUDGET_FACTOR = 8
_BUDGET_FLOOR = 2_000_000


def _sizes(extent: int, cores: int, cap: int) -> list[int]:
    """The sizes of a dimension whose example size is ``extent`` worth trying first, at most
    ``cap``: 1, primes, the sizes around the core count and its double that it does not
    divide, and the example's own size and its neighbours."""
    around = (cores - 1, cores + 1, 2 * cores - 1, 2 * cores + 1, extent - 1, extent, extent + 1)
    return sorted({s for s in (1, *_PRIMES, *around) if 1 <= s <= cap})


def shapes_like(shape: Sequence[int], cores: int = 8, max_elements: Optional[int] = None) -> "st.SearchStrategy":
    """A strategy of shapes of ``shape``'s rank around it, at most ``max_elements`` elements
    (default: ``shape``'s own count): either every dimension drawn, or one dimension alone
    with the others as in ``shape``. A dimension is at least 1 and is drawn from any size up
    to what the bound leaves, or from the sizes partition bugs live at — 1, primes, the
    neighbours of ``cores`` and of its double, the example's size and its neighbours. It
    shrinks towards every dimension 1."""
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"shapes_like: a shape's dimensions are not negative: {shape}")
    if not isinstance(cores, int) or cores < 1:
        raise ValueError(f"shapes_like: cores is a count of at least 1, not {cores!r}")
    bound = max(math.prod(shape), 1) if max_elements is None else int(max_elements)
    if bound < 1:
        raise ValueError(f"shapes_like: max_elements is at least 1, not {max_elements!r}")
    rank = len(shape)
    if rank == 0:
        return st.just(())
    example = [max(d, 1) for d in shape]
    # Each dimension is drawn whatever the mode, from the same choices, so that shrinking the
    # mode to 0 (every dimension drawn) keeps the sizes drawn: a failure at one dimension alone
    # shrinks on to the smallest shape of all.
    choices = [st.one_of(st.integers(1, bound), st.sampled_from(_sizes(e, cores, bound))) for e in shape]

    @st.composite
    def shapes(draw: Any) -> tuple[int, ...]:
        mode = draw(st.integers(0, rank if rank > 1 else 0))  # 0: every dimension; i: the i-th alone
        drawn = [draw(choice) for choice in choices]
        others = math.prod(example) // example[mode - 1] if mode else 1
        if mode == 0 or others > bound:  # (the others alone over the bound: every dimension)
            dims, left = [], bound
            for d in drawn:
                d = min(d, max(left, 1))
                dims.append(d)
                left //= d
            return tuple(dims)
        dims = list(example)
        dims[mode - 1] = min(drawn[mode - 1], bound // others)
        return tuple(dims)

    return shapes()


def tensors(dtype: Any, shapes: Any) -> "st.SearchStrategy":
    """A strategy of arrays of ``dtype`` (a numpy dtype, or ``"bfloat16"``, which needs
    ml_dtypes) whose shape is drawn from ``shapes`` (a strategy such as ``shapes_like``, or
    one shape), with values from the whole range of the dtype: NaN, ±inf, −0.0 and subnormals
    for floats, the extremes for integers. A bfloat16 array's values are float32 values
    rounded to bfloat16."""
    dt = _numpy_dtype(dtype) if isinstance(dtype, str) else np.dtype(dtype)
    if dt.name == "bfloat16":
        wide = hnp.arrays(np.float32, shapes, elements=hnp.from_dtype(np.dtype(np.float32)))
        return wide.map(lambda a: a.astype(dt))
    # from_dtype draws every value of the dtype: for a float NaN, ±inf, −0.0 and subnormals too.
    return hnp.arrays(dt, shapes, elements=hnp.from_dtype(dt))


def _float_kind(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype.name == "bfloat16"


@dataclass(frozen=True)
class Tolerance:
    """When an output element matches the reference's (``tolerance``)."""

    rtol: float
    atol: float
    ulps: Optional[int]

    def __str__(self) -> str:
        parts = []
        if self.rtol or self.atol:
            parts.append(f"rtol={self.rtol:g}, atol={self.atol:g}")
        if self.ulps is not None:
            parts.append(f"ulps={self.ulps}")
        return " or ".join(parts) if parts else "exact"


def tolerance(
    dtype: Any, rtol: Optional[float] = None, atol: Optional[float] = None, ulps: Optional[int] = None
) -> Tolerance:
    """The tolerance of an output of ``dtype``: integers and bools exactly; floats within
    ``atol + rtol·|expected|`` or within ``ulps`` units in the last place. With none given a
    float dtype takes torch.testing's defaults (float32 1.3e-6 and 1e-5, float16 1e-3 and
    1e-5, bfloat16 1.6e-2 and 1e-5); with one of ``rtol``/``atol`` given the other is 0."""
    dt = _numpy_dtype(dtype) if isinstance(dtype, str) else np.dtype(dtype)
    if ulps is not None and (not isinstance(ulps, int) or ulps < 0):
        raise ValueError(f"ulps is a count of at least 0, not {ulps!r}")
    if not _float_kind(dt):
        return Tolerance(0.0, 0.0, None)
    if rtol is None and atol is None and ulps is None:
        r, a = _TOLERANCE.get(dt.name, (0.0, 0.0))
        return Tolerance(r, a, None)
    return Tolerance(float(rtol or 0.0), float(atol or 0.0), ulps)


def _ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """IEEE bit patterns as integers in the order of the values they encode (+0 and −0 both
    0), so that the distance of two is their distance in units in the last place."""
    b = bits.astype(np.int64)
    sign = np.int64(1) << (width - 1)
    return np.where(b & sign, -(b & (sign - 1)), b)


def _mismatches(got: np.ndarray, want: np.ndarray, tol: Tolerance) -> np.ndarray:
    """A boolean array: where ``got`` does not match ``want`` (same shape and dtype)."""
    if not _float_kind(got.dtype):
        return got != want
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        close = np.isfinite(g) & np.isfinite(w) & (np.abs(g - w) <= tol.atol + tol.rtol * np.abs(w))
    ok = same | close
    if tol.ulps is not None:
        width = got.dtype.itemsize * 8
        raw = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
        distance = np.abs(_ordered(got.view(raw), width) - _ordered(want.view(raw), width))
        ok |= np.isfinite(g) & np.isfinite(w) & (distance <= tol.ulps)
    return ~ok


def _as_array(value: Any, dtype: np.dtype) -> np.ndarray:
    """The reference's result as an array of the output's dtype: a numpy array or scalar, a
    torch tensor (bfloat16 through float32), or anything numpy takes."""
    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor
        t = value.detach().cpu()
        if str(t.dtype) == "torch.bfloat16":
            t = t.float()
        value = t.numpy()
    a = np.asarray(value)
    return a if a.dtype == dtype else a.astype(dtype)


def _describe_value(v: Any) -> str:
    return repr(v.item()) if isinstance(v, np.generic) else repr(v)


def _difference(got: np.ndarray, want: np.ndarray, tol: Tolerance) -> Optional[str]:
    """What differs between the op's output and the reference's, or None when they match."""
    if got.shape != want.shape:
        return f"the output's shape is {tuple(got.shape)}, the reference's {tuple(want.shape)}"
    bad = _mismatches(got, want, tol)
    count = int(np.count_nonzero(bad))
    if count == 0:
        return None
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    at = first if got.ndim else ()
    return (
        f"{count} of {got.size} output elements differ from the reference ({tol}); the first at index "
        f"{at}: got {_describe_value(got[at])}, expected {_describe_value(want[at])}"
    )


def _describe(argument: Any) -> str:
    if isinstance(argument, np.ndarray):
        return f"{argument.dtype.name}{list(argument.shape)}"
    return repr(argument)


class Counterexample(AssertionError):
    """A call that breaks the op, the smallest ``fuzz`` found: ``arguments`` is the tuple to
    call the op with; ``finding`` checked mode's findings (as ``q7emu run --check`` prints
    them), the fault or the runaway, or None; ``difference`` how the output differs from the
    reference, or None; ``error`` the exception the call raised (a ``KernelFaultError``,
    ``RunawayError``…), or None; ``repro`` the command that runs the call again, the inputs saved
    with ``np.save`` in ``fuzz``'s ``repro_dir`` (None from ``assert_matches``)."""

    def __init__(
        self,
        op: Op,
        arguments: tuple[Any, ...],
        finding: Optional[str] = None,
        difference: Optional[str] = None,
        error: Optional[BaseException] = None,
        repro: Optional[str] = None,
    ) -> None:
        self.op = op
        self.arguments = arguments
        self.finding = finding
        self.difference = difference
        self.error = error
        self.repro = repro
        super().__init__(self._message())

    def shape(self) -> tuple[tuple[int, ...], ...]:
        """The shapes of the tensor arguments."""
        return tuple(tuple(a.shape) for a in self.arguments if isinstance(a, np.ndarray))

    def _message(self) -> str:
        call = ", ".join(_describe(a) for a in self.arguments)
        what = self.finding if self.finding is not None else self.difference
        text = f"{self.op.name}({call}) fails: {what}"
        if self.repro is not None:
            text += f"\nrepro: {self.repro}"
        return text

    def with_repro(self, repro: str) -> "Counterexample":
        """The same counterexample with its ``repro`` command."""
        return Counterexample(self.op, self.arguments, self.finding, self.difference, self.error, repro)


def _save_repro(op: Op, arguments: Sequence[Any], directory: "os.PathLike[str] | str", check: bool = True) -> str:
    """Saves the tensor arguments of a call into ``directory`` (one ``.npy`` per argument,
    named after it) and returns the ``q7emu run`` command that makes the same call."""
    directory = os.fspath(directory)
    os.makedirs(directory, exist_ok=True)
    words = ["q7emu", "run", op._library.path, "--op", op.name]
    for (name, kind), value in zip(op.args, arguments):
        if kind == "tensor":
            path = os.path.join(directory, f"{name}.npy")
            np.save(path, np.asarray(value))
            words += ["--input", path]
        else:
            scalar = value.item() if isinstance(value, np.generic) else value
            text = str(scalar).lower() if isinstance(scalar, bool) else repr(scalar)
            words += ["--scalar", {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(text, text)]
    if check:
        words.append("--check")
    return shlex.join(words)


def _first_lines(text: str, n: int = 12) -> str:
    lines = text.strip().splitlines()
    return "\n".join(lines[:n] + (["…"] if len(lines) > n else []))


def _call(
    op: Op, arguments: tuple[Any, ...], check: bool, max_cycles: Optional[int], threads: int
) -> tuple[Optional[Run], Optional[Counterexample]]:
    """Runs the call: its ``Run``, or the ``Counterexample`` of a fault, a runaway or a
    shape function that failed."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CheckWarning)
            return op.run(*arguments, check=check, max_cycles=max_cycles, threads=threads), None
    except (KernelFaultError, RunawayError, ShapeFunctionError) as e:
        return None, Counterexample(op, arguments, finding=_first_lines(str(e)), error=e)


def assert_matches(
    op: Op,
    reference: Callable[..., Any],
    args: Sequence[Any],
    *,
    check: bool = True,
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    ulps: Optional[int] = None,
    max_cycles: Optional[int] = None,
    threads: int = 1,
) -> Run:
    """Runs ``op`` on ``args`` (in checked mode unless ``check=False``) and raises a
    ``Counterexample`` when a core faults, spends ``max_cycles``, checked mode finds anything,
    or the output differs from ``reference(*args)`` beyond ``tolerance(dtype, rtol, atol,
    ulps)``; else returns the ``Run``. The reference gets copies of the arrays."""
    __tracebackhide__ = True
    arguments = tuple(args)
    run, failure = _call(op, arguments, check, max_cycles, threads)
    if failure is not None:
        raise failure
    assert run is not None
    if run.findings is not None and run.findings["findings"]:
        raise Counterexample(op, arguments, finding=run.findings_text)
    got = run.output
    want = _as_array(reference(*(a.copy() if isinstance(a, np.ndarray) else a for a in arguments)), got.dtype)
    difference = _difference(got, want, tolerance(got.dtype, rtol, atol, ulps))
    if difference is not None:
        raise Counterexample(op, arguments, difference=difference)
    return run


def _scalar_strategy(kind: str, value: Any) -> "st.SearchStrategy":
    """The example's scalar first, then any value its schema type takes: an ``int`` any int64,
    a ``float`` any double (NaN and ±inf too), a ``bool`` either; a ``Scalar`` as the example
    value's Python type."""
    if isinstance(value, np.generic):
        value = value.item()
    if kind == "bool" or isinstance(value, bool):
        return st.sampled_from([value, not value])
    if kind == "int" or (kind == "scalar" and isinstance(value, int)):
        return st.one_of(st.just(value), st.integers(-(2**63), 2**63 - 1))
    return st.one_of(st.just(value), st.floats(width=64))


def _arguments(op: Op, example: tuple[Any, ...], cores: int) -> "st.SearchStrategy":
    """The strategy of calls around ``example``: a tensor whose example shape an earlier
    tensor has takes that tensor's drawn shape (so element-wise ops get matching operands),
    others draw their own."""

    @st.composite
    def calls(draw: Any) -> tuple[Any, ...]:
        drawn: dict[tuple[int, ...], tuple[int, ...]] = {}
        out: list[Any] = []
        for (name, kind), value in zip(op.args, example):
            if kind == "tensor":
                a = np.asarray(value)
                if a.shape not in drawn:
                    drawn[a.shape] = draw(shapes_like(a.shape, cores), label=f"{name}.shape")
                out.append(draw(tensors(a.dtype, drawn[a.shape]), label=name))
            else:
                out.append(draw(_scalar_strategy(kind, value), label=name))
        return tuple(out)

    return calls()


def fuzz(
    op: Op,
    reference: Callable[..., Any],
    example: Sequence[Any],
    *,
    max_examples: int = 200,
    check: bool = True,
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    ulps: Optional[int] = None,
    seed: Optional[int] = None,
    max_cycles: Optional[int] = None,
    cores: Optional[int] = None,
    repro_dir: "Optional[os.PathLike[str] | str]" = None,
) -> None:
    """Fuzzes ``op`` against ``reference`` around one ``example`` call (a tuple of arrays and
    scalars, in schema order); returns when ``max_examples`` calls all pass, else raises the
    smallest failing call Hypothesis shrinks to, as a ``Counterexample``.

    - Tensors keep their dtype and rank; shapes come from ``shapes_like(shape, cores)``
      (``cores``: 8 for a multicore library, else 1), values from the dtype's whole range.
    - Scalars start at the example's and take any value of their schema type.
    - Each call runs in checked mode (``check``) with a cycle budget per core of
      ``max_cycles`` (default: 8 times the example call's slowest core, plus 2,000,000): a
      finding, a fault, a runaway, or an output beyond the tolerance (``tolerance``) fails.
    - The example call runs first; it failing is the counterexample as it is.
    - ``seed`` fixes the draws; the settings profile in force (``CI_PROFILE`` for CI) gives
      the rest, with no wall-time deadline. Failures go to Hypothesis's example database (by
      default ``.hypothesis/`` in the working directory), per op and example, and are tried
      first next time.
    - The counterexample's inputs are saved with ``np.save`` in ``repro_dir`` (default: a new
      temporary directory) and its ``repro`` is the ``q7emu run`` command of the same call.
    """
    __tracebackhide__ = True
    if not isinstance(op, Op):
        raise TypeError(f"fuzz: op is a q7emu op (lib.<op>), not {type(op).__name__}")
    example = tuple(example)
    if len(example) != len(op.args):
        raise TypeError(f"fuzz: the example has {len(example)} argument(s), op {op.schema} takes {len(op.args)}")
    if cores is None:
        cores = 8 if op._library.multicore else 1
    options = {"check": check, "rtol": rtol, "atol": atol, "ulps": ulps}

    def failed(c: Counterexample) -> Counterexample:
        directory = repro_dir if repro_dir is not None else tempfile.mkdtemp(prefix="q7emu-counterexample-")
        return c.with_repro(_save_repro(op, c.arguments, directory, check))

    try:
        first = assert_matches(op, reference, example, max_cycles=max_cycles, **options)
    except Counterexample as c:
        raise failed(c) from None
    budget = max_cycles if max_cycles is not None else _BUDGET_FACTOR * first.cycles + _BUDGET_FLOOR

    def call(arguments: tuple[Any, ...]) -> None:
        assert_matches(op, reference, arguments, max_cycles=budget, **options)

    test = hypothesis.given(_arguments(op, example, cores))(call)
    # One entry of the example database per op and example, not one for every fuzz call.
    shapes = [(np.asarray(v).dtype.str, np.shape(v)) for v in example]
    test._hypothesis_internal_add_digest = repr((op._library.path, op.schema, shapes)).encode()  # type: ignore[attr-defined]
    test = settings(
        max_examples=max_examples,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )(test)
    if seed is not None:
        test = hypothesis.seed(seed)(test)
    try:
        test()
    except Counterexample as c:
        raise failed(c) from None
