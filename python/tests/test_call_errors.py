"""A call's arguments and options, checked as ``q7emu run`` checks its flags (docs/python.md
"Calling ops", "Errors"): one call means the same thing from Python as on the command line,
and a bad argument is an exception of q7emu's naming what and where, never a raw Python or
PyO3 error, a hang or a silent wrong result. Most tests open the committed example builds (no
toolchain); the checked-mode ones build examples/check/overlapping_offsets."""

import hashlib
import json
import shutil
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from conftest import ROOT

import q7emu
from q7emu import _q7emu
from q7emu._library import _as_tensor

RELU_MULTICORE = ROOT / "examples/kernels/relu_multicore"
SCALED_TRANSPOSE = ROOT / "examples/kernels/scaled_transpose"
# The tensor limit: that of a .npy input (PLATFORM.md "Input file limits"), 1 GiB.
LIMIT = 1 << 30


@pytest.fixture(scope="module")
def relu():
    return q7emu.load_library(RELU_MULTICORE / "build")


@pytest.fixture(scope="module")
def scaled():
    return q7emu.load_library(SCALED_TRANSPOSE / "build")


def cli(*args):
    """``q7emu`` with ``args``: the finished process."""
    return subprocess.run([sys.executable, "-m", "q7emu", *map(str, args)], capture_output=True, text=True)


def test_a_0d_array_is_a_0d_tensor_as_the_command_line_gives_it(relu, tmp_path):
    x = np.array(-2.5, dtype=np.float32)
    run = relu.relu_forward.run(x, threads=1)
    assert run.output.shape == () and run.output.dtype == np.float32
    assert run.output[()] == 0.0
    assert relu.relu_forward(np.float32(1.5)).shape == ()
    assert relu.relu_forward(np.float32(1.5))[()] == 1.5
    # The command line on the same .npy: the same 0-d output, the same work on every core.
    np.save(tmp_path / "x.npy", x)
    done = cli(
        "run",
        RELU_MULTICORE / "build",
        "--op",
        "relu_forward",
        "--input",
        tmp_path / "x.npy",
        "--output",
        tmp_path / "y.npy",
        "--threads",
        1,
        "--json",
    )
    assert done.returncode == 0, done.stderr
    y = np.load(tmp_path / "y.npy")
    assert y.shape == () and np.array_equal(y, run.output)
    theirs = json.loads(done.stdout)["cores"]
    assert [(c["instructions"], c["cycles"]) for c in run.cores] == [(c["instructions"], c["cycles"]) for c in theirs]


def test_trace_paths_are_refused_as_the_command_line_refuses_them(relu, tmp_path, monkeypatch):
    # docs/tracing.md "Where the files go": one check, in the run, for both.
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    monkeypatch.chdir(tmp_path)
    for option, flag, message in [
        ("trace_dir", "--trace-dir", '--trace-dir "": an empty path names no directory'),
        ("timeline", "--timeline", '--timeline "": an empty path names no file'),
    ]:
        with pytest.raises(q7emu.BadInputError) as e:
            relu.relu_forward(x, **{option: ""})
        assert str(e.value) == message
        done = cli(
            "run", RELU_MULTICORE / "build", "--op", "relu_forward", "--input", RELU_MULTICORE / "input.npy", flag, ""
        )
        assert (done.returncode, done.stderr) == (1, f"q7emu: error: {message}\n")
        assert list(tmp_path.iterdir()) == [], "nothing written in the current directory"
    t = tmp_path / "t"
    same = "are the same file: each output needs a file of its own"
    cases = [
        (t / "core0.trace", f"--timeline {t}/core0.trace and --trace-dir {t}/core0.trace {same}"),
        (t / "sub/../core7.jsonl", f"--timeline {t}/sub/../core7.jsonl and --trace-dir {t}/core7.jsonl {same}"),
        (
            t,
            f"--timeline {t} is --trace-dir {t}, or a directory above it: a file cannot take the place "
            "of the directory the other writes in; write it elsewhere",
        ),
    ]
    for timeline, message in cases:
        with pytest.raises(q7emu.BadInputError) as e:
            relu.relu_forward(x, trace_dir=t, timeline=timeline)
        assert str(e.value) == message
        assert list(tmp_path.iterdir()) == [], f"{timeline}: nothing written"
    # A build file is an input: a timeline never replaces it.
    info = RELU_MULTICORE / "build/q7build.json"
    with pytest.raises(q7emu.BadInputError, match="an output must not replace an input"):
        relu.relu_forward(x, timeline=info)


def test_the_tensor_limit_is_the_npy_inputs_and_is_checked_before_any_copy(relu, tmp_path):
    # The limit comes from the extension, which has it from q7_loader::input::LIMITS.
    _q7emu.Library.check_tensor("x", "float32", [LIMIT // 4])
    _q7emu.Library.check_tensor("x", "int8", [1 << 15, 1 << 15])
    over = (
        "op relu_forward: argument t_in: shape [268435457] of float32: 1073741828 bytes, over the "
        '1073741824-byte limit of a tensor (that of a .npy input, PLATFORM.md "Input file limits")'
    )
    with pytest.raises(q7emu.BadInputError) as e:
        _q7emu.Library.check_tensor("op relu_forward: argument t_in", "float32", [LIMIT // 4 + 1])
    assert str(e.value) == over
    # Just over the limit, in 4 bytes of memory (a broadcast, not contiguous): refused before
    # it is made contiguous, in a process whose memory never passes 256 MB (VmHWM, the peak
    # resident size of its own image: ru_maxrss would count the parent it was forked from).
    code = textwrap.dedent(f"""
        import numpy as np, q7emu
        lib = q7emu.load_library({str(RELU_MULTICORE / "build")!r})
        x = np.broadcast_to(np.float32(1), ({LIMIT // 4 + 1},))
        try:
            lib.relu_forward(x)
        except q7emu.BadInputError as e:
            print(e)
        with open("/proc/self/status") as status:
            print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    message, peak_kib = done.stdout.splitlines()
    assert message == over
    assert int(peak_kib) < 256 * 1024, f"peak RSS {int(peak_kib) // 1024} MiB"
    # A C-contiguous little-endian array goes to the extension as it is (a view: no copy);
    # another is copied once, into C order and little-endian.
    x = np.linspace(-1, 1, 4096, dtype=np.float32).reshape(64, 64)
    what, dtype, shape, data = _as_tensor(x, "x")
    assert (what, dtype, shape) == ("x", "float32", [64, 64])
    assert np.shares_memory(data, x) and data.dtype == np.uint8 and data.size == x.nbytes
    for other in (np.asfortranarray(x), x.astype(">f4")):
        copied = _as_tensor(other, "x")[3]
        assert not np.shares_memory(copied, other)
        assert copied.tobytes() == x.tobytes()
        assert np.array_equal(relu.relu_forward(other), np.maximum(x, 0))


def shape_build(tmp_path, script):
    """The committed 8-core ReLU build with its shape executable replaced by the shell
    ``script`` (q7build.json's digest of it updated), its ops in torch namespace
    ``q7emu_call_errors``."""
    build = tmp_path / "build"
    shutil.copytree(RELU_MULTICORE / "build", build)
    exe = build / "relu_multicore.shape"
    exe.write_text("#!/bin/sh\ncat > /dev/null\n" + script)
    info = json.loads((build / "q7build.json").read_text())
    info["shape"]["sha256"] = hashlib.sha256(exe.read_bytes()).hexdigest()
    info["namespace"] = "q7emu_call_errors"
    (build / "q7build.json").write_text(json.dumps(info))
    return build, exe


def test_a_failing_shape_function_is_a_shape_function_error_not_a_kernel_fault(tmp_path):
    what = "(op relu_forward, shape function relu_fwd_shape)"
    cases = [
        (
            "echo 'no such shape' >&2\nexit 3\n",
            "{exe}: the shape executable exited with status 3 " + what + ":\nno such shape",
        ),
        ("kill -SEGV $$\n", "{exe}: the shape executable crashed with signal 11 (SIGSEGV) " + what),
        ("sleep 30\n", "{exe}: the shape executable did not answer within 5 s " + what + ": it was stopped"),
        (
            'echo \'{"dtype": 12, "shape": [-1]}\'\n',
            "{exe}: the shape executable's answer " + what + ' is not {{"dtype": ISA code of an accepted dtype, '
            '"shape": [dims ≥ 0]}}: "{{\\"dtype\\": 12, \\"shape\\": [-1]}}\\n"',
        ),
        (
            'echo \'{"dtype": 12, "shape": [1, 1, 1, 1, 1, 1, 1, 1, 1]}\'\n',
            "output (from shape function relu_fwd_shape): shape [1, 1, 1, 1, 1, 1, 1, 1, 1] cannot be described: "
            "at most 8 dims of <= 65535 each, or at most 4 dims of <= 4294967295 each",
        ),
    ]
    x = np.ones(8, dtype=np.float32)
    for n, (script, message) in enumerate(cases):
        build, exe = shape_build(tmp_path / str(n), script)
        lib = q7emu.load_library(build)
        want = message.format(exe=exe)
        with pytest.raises(q7emu.ShapeFunctionError) as e:
            lib.relu_forward(x)
        assert str(e.value) == want
        assert not isinstance(e.value, q7emu.KernelFaultError)
        # What a torch fake kernel asks: the same error.
        with pytest.raises(q7emu.ShapeFunctionError) as e:
            lib._lib.output_spec("relu_forward", [("float32", [8])], [])
        assert str(e.value) == want


def test_the_fake_kernel_of_a_torch_op_raises_the_shape_function_error(tmp_path):
    torch = pytest.importorskip("torch")
    from q7emu.torch import custom_op

    build, exe = shape_build(tmp_path, "exit 3\n")
    custom_op.load_library(build)
    with pytest.raises(q7emu.ShapeFunctionError, match="the shape executable exited with status 3"):
        torch.ops.q7emu_call_errors.relu_forward(torch.empty(8, device="meta"))


def test_scalars_are_read_by_the_command_lines_grammar_and_odd_ones_refused(scaled, relu, tmp_path):
    schema = "op scaled_transpose(Tensor x, Scalar scale, int bias) -> Tensor"
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "x.npy", x)
    for odd in (np.str_("2"), np.complex64(1), np.datetime64("2020-01-01"), np.void(b"ab"), "2", None):
        name = type(odd).__name__ if type(odd).__module__ == "builtins" else f"numpy.{type(odd).__name__}"
        with pytest.raises(q7emu.BadInputError) as e:
            scaled.scaled_transpose(x, odd, 1)
        assert str(e.value) == f"{schema}: argument scale (Scalar) is a bool, int or float, not {name}"
    # Past int64: refused naming the integer exactly, as `--scalar` refuses it.
    ints = (
        "an int is an integer, decimal or 0x hex with an optional sign (-3, 0x10, -0x10), "
        "from -9223372036854775808 to 9223372036854775807"
    )
    for big in (2**63, -(2**63) - 1):
        want = f'{schema}: argument bias (int) cannot be "{big}": out of the range of an int64: {ints}'
        with pytest.raises(q7emu.BadInputError) as e:
            scaled.scaled_transpose(x, 2.0, big)
        assert str(e.value) == want
        done = cli(
            "run",
            SCALED_TRANSPOSE / "build",
            "--op",
            "scaled_transpose",
            "--input",
            tmp_path / "x.npy",
            "--scalar",
            "2.0",
            "--scalar",
            big,
        )
        assert done.stderr == f"q7emu: error: {want}\n"
    with pytest.raises(
        q7emu.BadInputError,
        match=r'argument scale \(Scalar\) cannot be "9223372036854775808": '
        r"out of the range of an int64 \(a larger number is a float",
    ):
        scaled.scaled_transpose(x, 2**63, 1)
    # A numpy bool is a bool: `true` to a Scalar, which takes it as 1 (docs/cli.md "Scalars").
    assert np.array_equal(scaled.scaled_transpose(x, np.bool_(True), 1), scaled.scaled_transpose(x, 1, 1))
    assert np.array_equal(scaled.scaled_transpose(x, np.bool_(True), 1), scaled.scaled_transpose(x, True, 1))
    # A timing dict's field that is no finite number is named.
    for bad in (float("nan"), float("inf")):
        with pytest.raises(q7emu.BadInputError) as e:
            relu.relu_forward(x, timing={"sdma_latency": bad})
        assert (
            str(e.value)
            == f"timing (a dict): field sdma_latency: {'NaN' if bad != bad else 'inf'} is not a finite number"
        )
    with pytest.raises(q7emu.BadInputError) as e:
        relu.relu_forward(x, timing={"sdma_latency": object()})
    assert str(e.value) == "timing (a dict): field sdma_latency: a object, not a number, str, bool, list or dict"


def test_bad_options_and_arguments_are_bad_input_naming_them(relu):
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    decimal = "(expected a 64-bit number, decimal or 0x-hex)"
    cases = [
        (dict(threads=0), 'threads: "0": at least 1 host thread runs the cores'),
        (dict(threads=-1), 'threads: "-1": invalid digit found in string (expected a thread count, decimal or 0x-hex)'),
        (
            dict(threads=10**30),
            'threads: "1000000000000000000000000000000": number too large to fit in target type '
            "(expected a thread count, decimal or 0x-hex)",
        ),
        (dict(threads=1.5), "threads: an int, not float"),
        (dict(threads=True), "threads: an int, not bool"),
        (dict(max_cycles=-1), f'max_cycles: "-1": invalid digit found in string {decimal}'),
        (dict(max_cycles="5"), "max_cycles: an int, not str"),
        (dict(out_shape=[-1, 64]), f'out_shape[0]: "-1": invalid digit found in string {decimal}'),
        (dict(out_shape=[2.5]), "out_shape[0]: an int, not float"),
        (dict(out_shape="64"), "out_shape: a list or tuple of ints, not str"),
        (
            dict(out_dtype="float64"),
            "out_dtype float64: not a dtype q7emu marshals "
            "(float32, float16, bfloat16, int8, uint8, int16, int32, int64)",
        ),
        (dict(out_dtype=3), "out_dtype: a dtype name (str), not int"),
        (dict(check="yes"), "check: a bool, not str"),
        (dict(check=True, strict="yes"), "strict: a bool, not str"),
        (
            dict(strict=True),
            "strict=True without check=True: strict raises on checked mode's findings; pass check=True too",
        ),
        (dict(poison="zeros"), 'poison "zeros": the poison is "nan" or "pattern"'),
        (dict(poison=1), 'poison: "nan" or "pattern", not int'),
        (dict(trace_dir=3), "trace_dir: a path (str or os.PathLike), not int"),
        (dict(timeline=3.0), "timeline: a path (str or os.PathLike), not float"),
        (dict(timing=3), "timing: a profile file's path or a dict of timing-model fields, not int"),
    ]
    for options, message in cases:
        with pytest.raises(q7emu.BadInputError) as e:
            relu.relu_forward(x, **options)
        assert str(e.value) == message, options
    # A numpy dtype is an out_dtype too; a cycle budget of 0 runs out at once, as --max-cycles 0.
    assert relu.relu_forward(x, out_dtype=np.float32).dtype == np.float32
    with pytest.raises(q7emu.RunawayError, match="cycle budget of 0 exhausted"):
        relu.relu_forward(x, max_cycles=0)
    marshals = "(float32, float16, bfloat16, int8, uint8, int16, int32, int64)"
    arguments = [
        # numpy makes a list of a number and a string an array of strings (str<bits>).
        ([1.0, "a"], "op relu_forward: argument t_in: dtype str", f" is not one q7emu marshals {marshals}"),
        (
            np.array([1, None], dtype=object),
            f"op relu_forward: argument t_in: dtype object is not one q7emu marshals {marshals}",
            "",
        ),
        (
            [[1.0], [1.0, 2.0]],
            "op relu_forward: argument t_in: not an array: setting an array element with a sequence.",
            "",
        ),
    ]
    for value, start, end in arguments:
        with pytest.raises(q7emu.BadInputError) as e:
            relu.relu_forward(value)
        assert str(e.value).startswith(start) and str(e.value).endswith(end)
    with pytest.raises(q7emu.BadInputError) as e:
        relu._lib.run(3, [], [])
    assert str(e.value) == "op: a name (str), not int"


def test_torch_tensors_that_cannot_go_in_are_bad_input(relu, tmp_path):
    torch = pytest.importorskip("torch")
    from q7emu.torch import custom_op

    build, _ = shape_build(tmp_path, 'echo \'{"dtype": 12, "shape": [8]}\'\n')
    custom_op.load_library(build)
    op = torch.ops.q7emu_call_errors.relu_forward
    x = torch.linspace(-1, 1, 8, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: the op has no autograd formula
        assert torch.equal(op(x).detach(), torch.relu(x.detach()))
    with pytest.raises(q7emu.BadInputError) as e:
        op(torch.empty(LIMIT // 4 + 1))
    assert str(e.value).startswith(
        "torch.ops.q7emu_call_errors.relu_forward: argument 0: "
        "shape [268435457] of float32: 1073741828 bytes, over the 1073741824-byte limit"
    )
    # Plain calls take numpy's view of a tensor: a tensor numpy cannot view is named.
    with pytest.raises(q7emu.BadInputError, match="op relu_forward: argument t_in: not an array: Can't call numpy"):
        relu.relu_forward(x)
    with pytest.raises(q7emu.BadInputError, match="op relu_forward: argument t_in: not an array: can't convert meta"):
        relu.relu_forward(torch.empty(8, device="meta"))


@pytest.fixture
def overlapping(tmp_path, toolchain):
    """examples/check/overlapping_offsets built: seven write races and an unwritten output."""
    project = ROOT / "examples/check/overlapping_offsets"
    return q7emu.load(
        "overlapping_offsets",
        [project / "overlapping_offsets.cpp"],
        [project / "shape.cpp"],
        build_directory=tmp_path / "build",
        multicore=True,
    )


def test_checked_mode_findings_read_as_the_command_line_prints_them(overlapping, tmp_path):
    x = np.linspace(-1, 1, 16 * 64, dtype=np.float32).reshape(16, 64)
    np.save(tmp_path / "x.npy", x)
    done = cli("run", overlapping.path, "--op", "relu_rows", "--input", tmp_path / "x.npy", "--check", "--json")
    assert done.returncode == 132, "checked mode found an error (docs/exit-codes.md)"
    text, findings = done.stderr, json.loads(done.stdout)["check"]
    assert text.startswith("error[write-race]: cores 0 and 1 ")
    with pytest.raises(q7emu.CheckFailedError) as e:
        overlapping.relu_rows(x, check=True, strict=True)
    assert str(e.value) == text
    assert e.value.findings == findings
    # What examples/check/overlapping_offsets/README.md says --check finds.
    kinds = sorted(f["kind"] for f in findings["findings"])
    assert kinds == ["api-misuse"] * 2 + ["unwritten-output"] + ["write-race"] * 7
    # Without strict, the same text is a CheckWarning, pointing at the caller.
    with pytest.warns(q7emu.CheckWarning) as warned:
        overlapping.relu_rows(x, check=True)
    assert [str(w.message) for w in warned] == [text]
    assert warned[0].filename == __file__
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        run = overlapping.relu_rows.run(x, check=True)
    assert run.findings == findings and run.findings_text == text
    assert [w.category for w in seen] == [q7emu.CheckWarning]


def test_a_checked_torch_call_warns_its_findings(overlapping):
    torch = pytest.importorskip("torch")
    import q7emu.torch
    from q7emu.torch import custom_op

    custom_op.load_library(overlapping.path)
    x = torch.linspace(-1, 1, 16 * 64).reshape(16, 64)
    with (
        q7emu.torch.options(check=True),
        pytest.warns(q7emu.CheckWarning, match=r"^error\[write-race\]: cores 0 and 1 ") as warned,
    ):
        torch.ops.my_ops.relu_rows(x)
    assert warned[0].filename == __file__
    with (
        q7emu.torch.options(check=True, strict=True),
        pytest.raises(q7emu.CheckFailedError, match=r"^error\[write-race\]"),
    ):
        torch.ops.my_ops.relu_rows(x)
