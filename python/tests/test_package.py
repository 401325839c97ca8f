"""The q7emu package on the committed example builds and on kernels it builds itself
(docs/python.md)."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import ROOT

import q7emu

RELU_MULTICORE = ROOT / "examples/kernels/relu_multicore"


@pytest.fixture(scope="module")
def relu():
    return q7emu.load_library(RELU_MULTICORE / "build")


def test_an_op_is_an_attribute_and_returns_the_committed_expected_output(relu):
    x = np.load(RELU_MULTICORE / "input.npy")
    y = relu.relu_forward(x)
    assert y.dtype == np.float32 and y.shape == (32, 4096)
    assert np.array_equal(y, np.load(RELU_MULTICORE / "expected.npy"), equal_nan=True)
    assert list(relu.ops) == ["relu_forward"]
    assert relu.multicore and relu.name == "relu_multicore"


def test_a_run_reports_what_q7emu_run_json_reports(relu):
    x = np.load(RELU_MULTICORE / "input.npy")
    run = relu.relu_forward.run(x, threads=1)
    # The main job's figure (README.md): 8 cores, the slowest 966163 cycles.
    assert len(run.cores) == 8
    assert run.cycles == 966163
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "q7emu",
            "run",
            str(RELU_MULTICORE / "build"),
            "--op",
            "relu_forward",
            "--input",
            str(RELU_MULTICORE / "input.npy"),
            "--json",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    report = json.loads(cli.stdout)
    for mine, theirs in zip(run.cores, report["cores"]):
        assert (mine["instructions"], mine["cycles"]) == (theirs["instructions"], theirs["cycles"])
    assert run.findings is None


def test_a_non_contiguous_array_is_copied_and_gives_the_same_output(relu):
    x = np.load(RELU_MULTICORE / "input.npy")
    fortran = np.asfortranarray(x)
    assert not fortran.flags.c_contiguous
    assert np.array_equal(relu.relu_forward(fortran), relu.relu_forward(x), equal_nan=True)


def test_wrong_arguments_are_bad_input_a_value_error(relu):
    x = np.zeros((4, 4), dtype=np.float32)
    with pytest.raises(q7emu.BadInputError, match=r"takes 1 argument\(s\), 2 given"):
        relu.relu_forward(x, x)
    with pytest.raises(ValueError, match="dtype float64 is not one q7emu marshals"):
        relu.relu_forward(np.zeros(4))
    with pytest.raises(AttributeError, match="has no op relu_backward; its ops: relu_forward"):
        _ = relu.relu_backward
    with pytest.raises(q7emu.BadInputError, match="poison"):
        relu.relu_forward(x, poison="zeros")


def test_checked_mode_reports_no_finding_on_a_correct_kernel(relu):
    x = np.load(RELU_MULTICORE / "input.npy")
    run = relu.relu_forward.run(x, check=True, strict=True)
    assert run.findings == {"errors": 0, "warnings": 0, "findings": []}


def test_the_q7emu_command_is_installed_with_the_package():
    # Installed beside the environment's python (its bin/), on PATH once it is activated.
    q7emu_command = os.path.join(os.path.dirname(sys.executable), "q7emu")
    out = subprocess.run([q7emu_command, "--version"], check=True, capture_output=True, text=True)
    assert out.stdout.startswith("q7emu ")
    for command in ([q7emu_command], [sys.executable, "-m", "q7emu"]):
        bad = subprocess.run(command + ["run"], capture_output=True, text=True)
        assert bad.returncode == 2, "usage (docs/exit-codes.md)"
        assert "Usage: q7emu run --op <OP> <BUILD_DIR>" in bad.stderr


def write(path, text):
    path.write_text(textwrap.dedent(text))
    return path


SHAPE = """
    #include <torch/torch.h>
    #include "torchneuron/register.h"
    torch::Tensor same_shape(torch::Tensor t) { return torch::zeros(t.sizes(), torch::kFloat); }
    NEURON_LIBRARY(my_ops, m) { m.def("k", &same_shape, "k"); }
"""


def elementwise(path, expression):
    """A one-core kernel `k` whose output element i is `expression` of input element a[i]."""
    return write(
        path,
        f"""
        #include <torch/torch.h>
        torch::Tensor k(const torch::Tensor &t) {{
            torch::Tensor out = torch::zeros(t.sizes(), torch::kFloat);
            auto a = t.accessor<float, 1>();
            auto o = out.accessor<float, 1>();
            for (int64_t i = 0; i < t.numel(); i++) o[i] = {expression};
            return out;
        }}
    """,
    )


def test_load_builds_once_and_rebuilds_only_when_a_source_changes(tmp_path, toolchain):
    src = elementwise(tmp_path / "k.cpp", "a[i] * 2.0f")
    shape = write(tmp_path / "shape.cpp", SHAPE)
    build = tmp_path / "build"
    lib = q7emu.load("twice", [src], [shape], build_directory=build)
    x = np.arange(8, dtype=np.float32)
    assert np.array_equal(lib.k(x), 2 * x)
    so = build / "q7emu-twice" / "twice.so"
    built = so.stat().st_mtime_ns
    again = q7emu.load("twice", [src], [shape], build_directory=build)
    assert so.stat().st_mtime_ns == built, "up to date: not rebuilt"
    assert np.array_equal(again.k(x), 2 * x)
    src.write_text(src.read_text().replace("2.0f", "3.0f"))
    changed = q7emu.load("twice", [src], [shape], build_directory=build)
    assert np.array_equal(changed.k(x), 3 * x)


def test_a_failed_build_is_a_build_error_with_the_compilers_output(tmp_path, toolchain):
    src = write(tmp_path / "k.cpp", "torch::Tensor k(const torch::Tensor &t) { return undeclared; }\n")
    shape = write(tmp_path / "shape.cpp", SHAPE)
    with pytest.raises(q7emu.BuildError, match="undeclared"):
        q7emu.load("broken", [src], [shape], build_directory=tmp_path / "build")


def test_a_fault_and_a_runaway_are_their_own_exceptions(tmp_path, toolchain):
    src = write(
        tmp_path / "k.cpp",
        """
        #include <torch/torch.h>
        torch::Tensor k(const torch::Tensor &t) {
            if (t.numel() == 1)
                for (volatile int i = 0;; i++) {}
            float v = *(volatile float *)0x40000;  // unmapped (PLATFORM.md "Per-core address map")
            return torch::full(t.sizes(), v, torch::kFloat);
        }
    """,
    )
    shape = write(tmp_path / "shape.cpp", SHAPE)
    lib = q7emu.load("faults", [src], [shape], build_directory=tmp_path / "build")
    with pytest.raises(q7emu.KernelFaultError, match=r"k\(at::Tensor const&\)\+0x[0-9a-f]+ \(k.cpp:6\)") as fault:
        lib.k(np.zeros(4, dtype=np.float32))
    e = fault.value
    assert (e.core, e.address) == (0, 0x40000)
    assert e.disassembly is not None and e.function is not None and e.cause is not None
    assert e.disassembly.startswith("l32i")
    assert e.function.startswith("k(at::Tensor const&)+0x") and e.function.endswith("(k.cpp:6)")
    assert e.backtrace[0] == f"{e.pc:#010x} in {e.function}"
    assert "wrapper.cpp" in e.backtrace[1], "the caller: the generated wrapper"
    assert e.cause == "LoadStoreErrorCause (3): load of unmapped address 0x00040000"
    assert isinstance(e.cycles, int) and e.cycles > 0
    with pytest.raises(q7emu.RunawayError) as runaway:
        lib.k(np.zeros(1, dtype=np.float32), max_cycles=100_000)
    # The spinning core's facts, as a fault's (python/q7emu/errors.py).
    r = runaway.value
    assert not isinstance(r, q7emu.KernelFaultError) and (r.core, r.address) == (0, None)
    assert r.cause is not None and r.function is not None
    assert r.cause.startswith("cycle budget of 100000 exhausted") and r.function.startswith("k(at::Tensor const&)+0x")
    assert r.backtrace[0] == f"{r.pc:#010x} in {r.function}"


def test_checked_mode_findings_and_strict_mode(tmp_path, toolchain):
    project = ROOT / "examples/check/uneven_split"
    lib = q7emu.load(
        "uneven_split",
        [project / "uneven_split.cpp"],
        [project / "shape.cpp"],
        build_directory=tmp_path / "build",
        multicore=True,
    )
    x = np.linspace(-1, 1, 1003, dtype=np.float32)
    # Without strict, the findings are warned (docs/python.md "Calling ops").
    with pytest.warns(q7emu.CheckWarning, match=r"^error\[out-of-bounds\]") as warned:
        run = lib.relu_forward.run(x, check=True)
    assert [str(w.message) for w in warned] == [run.findings_text]
    assert run.findings is not None
    kinds = sorted(f["kind"] for f in run.findings["findings"])
    assert kinds == ["api-misuse", "api-misuse", "out-of-bounds", "out-of-bounds"]
    with pytest.raises(q7emu.CheckFailedError, match="out-of-bounds"):
        lib.relu_forward.run(x, check=True, strict=True)


def run_python_block(document, monkeypatch):
    """Runs the first ```python block of `document` from the repository root: its globals."""
    text = (ROOT / document).read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    scope = {}
    exec(compile(code, document, "exec"), scope)
    return scope


def test_the_readmes_python_main_job_runs_as_written(monkeypatch):
    scope = run_python_block("README.md", monkeypatch)
    assert np.array_equal(scope["y"], np.load(RELU_MULTICORE / "expected.npy"), equal_nan=True)


def test_the_docs_example_runs_as_written(tmp_path, monkeypatch, toolchain):
    monkeypatch.setenv("Q7EMU_EXTENSIONS_DIR", str(tmp_path))
    scope = run_python_block("docs/python.md", monkeypatch)
    assert np.array_equal(scope["y"], np.load(RELU_MULTICORE / "expected.npy"), equal_nan=True)
    assert json.loads((tmp_path / "relu_multicore" / "librelu_multicore.so").read_text())["library"] == "relu_multicore"


def test_ctrl_c_stops_the_cores_raises_keyboard_interrupt_and_leaves_the_library_usable(tmp_path, toolchain):
    import signal
    import threading

    # A kernel that never ends for a 1-element input, with a budget it never reaches (2^60: how
    # soon compiled code spends the default one, 10^10 cycles, depends on the host's speed): the
    # signal always comes while it runs.
    src = write(
        tmp_path / "k.cpp",
        """
        #include <torch/torch.h>
        torch::Tensor k(const torch::Tensor &t) {
            if (t.numel() == 1)
                for (volatile int i = 0;; i++) {}
            return torch::full(t.sizes(), 1.0, torch::kFloat);
        }
    """,
    )
    lib = q7emu.load("spins", [src], [write(tmp_path / "shape.cpp", SHAPE)], build_directory=tmp_path / "build")
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt, match="interrupted"):
            lib.k(np.zeros(1, dtype=np.float32), threads=1, max_cycles=1 << 60)
    finally:
        timer.join()
    assert np.array_equal(lib.k(np.zeros(3, dtype=np.float32)), np.ones(3, dtype=np.float32))


def test_two_processes_loading_one_build_directory_take_turns(tmp_path, toolchain):
    src = elementwise(tmp_path / "k.cpp", "a[i] + 1.0f")
    shape = write(tmp_path / "shape.cpp", SHAPE)
    script = textwrap.dedent(f"""
        import numpy as np, q7emu
        lib = q7emu.load("plus_one", [{str(src)!r}], [{str(shape)!r}], build_directory={str(tmp_path / "build")!r})
        x = np.arange(5, dtype=np.float32)
        assert np.array_equal(lib.k(x), x + 1)
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    stamp = json.loads((tmp_path / "build" / "libplus_one.so").read_text())
    assert len(stamp["q7emu_build"]) == 64


def test_bfloat16_arrays_go_in_and_come_out_as_ml_dtypes_bfloat16(tmp_path, toolchain):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    src = write(
        tmp_path / "k.cpp",
        """
        #include <torch/torch.h>
        torch::Tensor k(const torch::Tensor &t) {
            torch::Tensor out = torch::zeros(t.sizes(), torch::kBFloat16);
            auto a = t.accessor<c10::BFloat16, 1>();
            auto o = out.accessor<c10::BFloat16, 1>();
            for (int64_t i = 0; i < t.numel(); i++) o[i] = c10::BFloat16(float(a[i]) * 2.0f);
            return out;
        }
    """,
    )
    shape = write(
        tmp_path / "shape.cpp",
        """
        #include <torch/torch.h>
        #include "torchneuron/register.h"
        torch::Tensor same(torch::Tensor t) { return torch::zeros(t.sizes(), torch::kBFloat16); }
        NEURON_LIBRARY(my_ops, m) { m.def("k", &same, "k"); }
    """,
    )
    lib = q7emu.load("twice_bf16", [src], [shape], build_directory=tmp_path / "build")
    x = np.array([1.5, -0.25, 3.0, 100.0], dtype=ml_dtypes.bfloat16)
    y = lib.k(x)
    assert y.dtype == np.dtype(ml_dtypes.bfloat16)
    assert np.array_equal(y.astype(np.float32), 2 * x.astype(np.float32))


def test_the_package_carries_the_sdk_it_was_built_with(tmp_path):
    # Written out once under the cache directory and made the builds' default (docs/python.md
    # "Install"); a fresh process, as the default is set once per process.
    env = {k: v for k, v in os.environ.items() if k not in ("Q7EMU_SDK", "Q7_SDK")}
    env["Q7EMU_CACHE_DIR"] = str(tmp_path)
    code = "import q7emu._sdk as s; print(s.ensure())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    sdk = pathlib.Path(out.stdout.strip())
    assert sdk.parent == tmp_path / "sdk"
    repo = ROOT / "examples/sdk"
    files = sorted(p.relative_to(repo) for p in repo.rglob("*") if p.is_file())
    assert sorted(p.relative_to(sdk) for p in sdk.rglob("*") if p.is_file()) == files
    for f in files:
        assert (sdk / f).read_bytes() == (repo / f).read_bytes(), f
    # A second process finds it written and writes nothing.
    before = {f: (sdk / f).stat().st_mtime_ns for f in files}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    assert {f: (sdk / f).stat().st_mtime_ns for f in files} == before


def test_timing_traces_and_timeline_are_run_options(relu, tmp_path):
    x = np.linspace(-1, 1, 1024, dtype=np.float32)
    base = relu.relu_forward.run(x)
    # A dict of timing-model fields is a profile as `q7emu run --timing` reads one: a slower
    # SDMA makes the same kernel (which stages its slices through TCM) take more cycles
    # (docs/timing.md).
    slow = relu.relu_forward.run(x, timing={"sdma_latency": 2 * base.report["timing"]["model"]["sdma_latency"]})
    assert slow.report["timing"]["model"]["sdma_latency"] == 2 * base.report["timing"]["model"]["sdma_latency"]
    assert slow.cycles > base.cycles and np.array_equal(slow.output, base.output)
    with pytest.raises(q7emu.BadInputError, match="no_such_field"):
        relu.relu_forward.run(x, timing={"no_such_field": 1})
    run = relu.relu_forward.run(x, trace_dir=tmp_path / "trace", timeline=tmp_path / "timeline.json")
    assert sorted(p.name for p in (tmp_path / "trace").iterdir()) == sorted(
        [f"core{i}.trace" for i in range(8)] + [f"core{i}.jsonl" for i in range(8)]
    )
    assert json.loads((tmp_path / "timeline.json").read_text())["traceEvents"]
    assert run.cycles == base.cycles, "observing does not change the counts"


def test_a_profiled_run_gives_its_profile_and_the_reports_rows(relu, tmp_path):
    # docs/profiling.md: the profile adds up to the run's counters per core, and Run.profile
    # gives the rows `q7emu profile report` prints, as dicts.
    x = np.linspace(-1, 1, 1024, dtype=np.float32)
    run = relu.relu_forward.run(x, profile=tmp_path / "prof")
    assert relu.relu_forward.run(x).profile is None
    data = run.profile.data
    assert data["format"] == "q7emu-profile" and data["version"] == 1
    assert [c["total"]["cycles"] for c in data["cores"]] == [c["cycles"] for c in run.cores]
    rows = run.profile.top(5)
    assert len(rows) == 5
    assert rows[0]["self"]["cycles"] >= rows[1]["self"]["cycles"] > 0
    cluster = run.profile.tables()[-1]
    assert cluster["core"] is None and cluster["cycles"] == sum(c["cycles"] for c in run.cores)
    assert run.profile.report(top=3).startswith("core 0: ")
    # The committed build keeps only its packed images: functions are named by address, and
    # without line tables there are no lines.
    assert not data["cores"][0]["lines_known"] and run.profile.top(1, lines=True) == []
    with pytest.raises(q7emu.BadInputError, match="profile.json"):
        q7emu.Profile(tmp_path).top()
    with pytest.raises(q7emu.BadInputError, match="profile: a path"):
        relu.relu_forward.run(x, profile=3)


def test_calls_run_on_the_library_kept_loaded_with_the_counts_of_a_fresh_run(relu):
    # docs/python.md "Calls per second": every call starts from the device as it was right
    # after the load, so repeated calls count alike, and as a checked run (which sets a fresh
    # cluster up) counts.
    x = np.linspace(-2, 2, 2048, dtype=np.float32)

    def device(run):
        # The host's side: wall time, speed, and the engine (a checked run is interpreted).
        return {k: v for k, v in run.report.items() if k not in ("wall_seconds", "mips", "engine", "jit")}

    runs = [relu.relu_forward.run(x) for _ in range(3)]
    fresh = relu.relu_forward.run(x, check=True)
    assert fresh.findings["errors"] == 0
    for r in runs:
        assert device(r) == device(fresh)
