"""``q7emu.load`` and ``load_library`` against what users' projects hold (docs/python.md
"Building"): libraries sharing a build directory, headers anywhere, files that are not
regular, names that are paths, a damaged SDK cache."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from test_package import SHAPE, elementwise, write

import q7emu

X = np.arange(6, dtype=np.float32)


@pytest.fixture
def within_a_minute():
    """Turns a hang into a failure: SIGALRM after 60 s (the loads here take seconds)."""

    def hung(signum, frame):
        raise AssertionError("still running after 60 s: a hang")

    before = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, before)


def test_two_libraries_built_into_one_directory_stay_apart(tmp_path, toolchain, monkeypatch):
    # AWS's build scripts build every library into os.getcwd().
    monkeypatch.chdir(tmp_path)
    twice = elementwise(tmp_path / "twice.cpp", "a[i] * 2.0f")
    plus = elementwise(tmp_path / "plus.cpp", "a[i] + 1.0f")
    shape = write(tmp_path / "shape.cpp", SHAPE)
    q7emu.load("twice", [twice], [shape], build_directory=os.getcwd())
    q7emu.load("plus", [plus], [shape], build_directory=os.getcwd())
    # Each lib<name>.so opens the library it names, whichever was built last.
    assert q7emu.load_library("libtwice.so").name == "twice"
    assert np.array_equal(q7emu.load_library("libtwice.so").k(X), X * 2)
    assert np.array_equal(q7emu.load_library("libplus.so").k(X), X + 1)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("lib", "q7emu-"))) == [
        "libplus.so",
        "libtwice.so",
        "q7emu-plus",
        "q7emu-twice",
    ]
    # Both builds are up to date: a second run of the build script rebuilds neither.
    images = [tmp_path / "q7emu-twice" / "twice.so", tmp_path / "q7emu-plus" / "plus.so"]
    before = [p.stat().st_mtime_ns for p in images]
    q7emu.load("twice", [twice], [shape], build_directory=os.getcwd())
    q7emu.load("plus", [plus], [shape], build_directory=os.getcwd())
    assert [p.stat().st_mtime_ns for p in images] == before
    # The directory itself is not one library: load_library says which files to give it.
    with pytest.raises(
        q7emu.BadInputError,
        match=r"is where q7emu.load built libplus.so, libtwice.so: give load_library the lib<name>.so",
    ):
        q7emu.load_library(tmp_path)


def test_a_record_naming_another_library_is_refused(tmp_path, toolchain):
    twice = elementwise(tmp_path / "twice.cpp", "a[i] * 2.0f")
    shape = write(tmp_path / "shape.cpp", SHAPE)
    q7emu.load("twice", [twice], [shape], build_directory=tmp_path)
    # A record of an earlier q7emu (no "build" folder: the build beside it) whose directory
    # holds another library's build.
    forged = tmp_path / "q7emu-twice"
    (forged / "libother.so").write_text(json.dumps({"q7emu_build": "0" * 64, "library": "other"}))
    with pytest.raises(
        q7emu.BadInputError,
        match=r"libother.so stands for library other, but the build it names .* holds library twice",
    ):
        q7emu.load_library(forged / "libother.so")
    # A record whose folder is not its library's (a path out of the directory, say).
    record = json.loads((tmp_path / "libtwice.so").read_text())
    record["build"] = "../elsewhere"
    (tmp_path / "libtwice.so").write_text(json.dumps(record))
    with pytest.raises(q7emu.BadInputError, match=r"is not a library q7emu.load wrote"):
        q7emu.load_library(tmp_path / "libtwice.so")


def test_an_edited_header_rebuilds_wherever_the_compiler_found_it(tmp_path, toolchain):
    # One header in an include directory, one in a subdirectory of the sources: both are in
    # the compiler's dependency output, so editing either makes the build stale.
    inc = tmp_path / "inc"
    (tmp_path / "src" / "detail").mkdir(parents=True)
    inc.mkdir()
    write(inc / "factor.h", "#define FACTOR 2.0f\n")
    write(tmp_path / "src" / "detail" / "offset.h", "#define OFFSET 0.0f\n")
    src = write(
        tmp_path / "src" / "k.cpp",
        """
        #include <torch/torch.h>
        #include "factor.h"
        #include "detail/offset.h"
        torch::Tensor k(const torch::Tensor &t) {
            torch::Tensor out = torch::zeros(t.sizes(), torch::kFloat);
            auto a = t.accessor<float, 1>();
            auto o = out.accessor<float, 1>();
            for (int64_t i = 0; i < t.numel(); i++) o[i] = a[i] * FACTOR + OFFSET;
            return out;
        }
    """,
    )
    shape = write(tmp_path / "shape.cpp", SHAPE)

    def load():
        return q7emu.load("hdr", src, shape, build_directory=tmp_path / "b", extra_include_paths=str(inc))

    assert np.array_equal(load().k(X), X * 2)
    record = json.loads((tmp_path / "b" / "libhdr.so").read_text())
    assert str(inc / "factor.h") in record["inputs"]
    assert str(tmp_path / "src" / "detail" / "offset.h") in record["inputs"]
    write(inc / "factor.h", "#define FACTOR 3.0f\n")
    assert np.array_equal(load().k(X), X * 3)
    write(tmp_path / "src" / "detail" / "offset.h", "#define OFFSET 1.0f\n")
    assert np.array_equal(load().k(X), X * 3 + 1)
    # A file the compiler did not read changes nothing.
    image = tmp_path / "b" / "q7emu-hdr" / "hdr.so"
    built = image.stat().st_mtime_ns
    write(inc / "unused.h", "#error never included\n")
    load()
    assert image.stat().st_mtime_ns == built


def test_files_beside_the_sources_that_the_compiler_does_not_read_are_ignored(tmp_path, toolchain, within_a_minute):
    src = elementwise(tmp_path / "k.cpp", "a[i] * 2.0f")
    shape = write(tmp_path / "shape.cpp", SHAPE)
    (tmp_path / "dangling.h").symlink_to(tmp_path / "nowhere.h")
    os.mkfifo(tmp_path / "pipe.h")
    lib = q7emu.load("beside", [src], [shape], build_directory=tmp_path / "b")
    assert np.array_equal(lib.k(X), X * 2)


def test_a_source_that_is_not_a_regular_file_is_refused_not_read(tmp_path, toolchain, within_a_minute):
    shape = write(tmp_path / "shape.cpp", SHAPE)
    os.mkfifo(tmp_path / "fifo.cpp")
    with pytest.raises(q7emu.BuildError, match=r"fifo.cpp.*(FIFO|not a regular file)"):
        q7emu.load("fifo", [tmp_path / "fifo.cpp"], [shape], build_directory=tmp_path / "b")
    with pytest.raises(q7emu.BuildError, match=r"/dev/zero"):
        q7emu.load("zero", ["/dev/zero"], [shape], build_directory=tmp_path / "b")


def test_a_lib_so_that_is_not_a_regular_file_or_not_json_is_refused(tmp_path, within_a_minute):
    os.mkfifo(tmp_path / "libfifo.so")
    with pytest.raises(q7emu.BadInputError, match=r"libfifo.so: not a regular file \(a FIFO\)"):
        q7emu.load_library(tmp_path / "libfifo.so")
    (tmp_path / "libdeep.so").write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(q7emu.BadInputError, match=r"libdeep.so is not a library q7emu.load wrote"):
        q7emu.load_library(tmp_path / "libdeep.so")
    (tmp_path / "libbig.so").write_bytes(b"\0")
    os.truncate(tmp_path / "libbig.so", (1 << 20) + 1)
    with pytest.raises(
        q7emu.BadInputError, match=r"libbig.so: 1048577 bytes, over the 1048576-byte limit for load records"
    ):
        q7emu.load_library(tmp_path / "libbig.so")


@pytest.mark.parametrize("name", ["../escaped", "/tmp/absolute", "", "a/b", ".hidden", "lib.x", "-x"])
def test_a_name_that_is_not_a_plain_name_is_refused_before_anything_is_made(tmp_path, monkeypatch, name):
    monkeypatch.setenv("Q7EMU_EXTENSIONS_DIR", str(tmp_path / "ext"))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(q7emu.BadInputError, match=r"letters, digits, '_' and '-' only"):
        q7emu.load(name, ["k.cpp"], ["shape.cpp"])
    assert list(tmp_path.iterdir()) == []


def test_one_path_where_a_list_is_expected_is_a_list_of_one(tmp_path, toolchain):
    src = elementwise(tmp_path / "k.cpp", "a[i] * 2.0f")
    shape = write(tmp_path / "shape.cpp", SHAPE)
    lib = q7emu.load("one", str(src), shape, build_directory=tmp_path / "b", extra_cflags="-DUNUSED=1")
    assert np.array_equal(lib.k(X), X * 2)
    record = json.loads((tmp_path / "b" / "libone.so").read_text())
    assert json.loads(record["arguments"])["extra_cflags"] == ["-DUNUSED=1"]
    with pytest.raises(q7emu.BadInputError, match=r"compute_srcs\[0\]: a path, not int"):
        q7emu.load("one", [3], [shape], build_directory=tmp_path / "b")  # pyright: ignore[reportArgumentType]
    with pytest.raises(q7emu.BadInputError, match=r"extra_include_paths: a path or a list of paths, not int"):
        q7emu.load("one", src, shape, build_directory=tmp_path / "b", extra_include_paths=5)  # pyright: ignore[reportArgumentType]


def test_a_build_directory_that_is_a_file_is_a_build_error(tmp_path):
    (tmp_path / "file").write_text("mine")
    with pytest.raises(q7emu.BuildError, match=r"build_directory .*file: exists and is not a directory"):
        q7emu.load("k", ["k.cpp"], ["shape.cpp"], build_directory=tmp_path / "file")
    assert (tmp_path / "file").read_text() == "mine"


def _ensure(cache: pathlib.Path) -> subprocess.CompletedProcess:
    """``q7emu._sdk.ensure()`` in a fresh process (the default SDK is set once per process)
    with its cache under ``cache``: its stdout is the SDK directory, its stderr the warnings."""
    env = {k: v for k, v in os.environ.items() if k not in ("Q7EMU_SDK", "Q7_SDK")}
    env["Q7EMU_CACHE_DIR"] = str(cache)
    code = "import q7emu._sdk as s; print(s.ensure())"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=60)


@pytest.mark.parametrize(
    "damage, said",
    [
        (lambda sdk: (sdk / "include/torch/torch.h").unlink(), "include/torch/torch.h is missing"),
        (lambda sdk: os.truncate(sdk / "include/torch/torch.h", 10), "include/torch/torch.h has 10 bytes"),
        (
            lambda sdk: (
                (sdk / "include/torch/torch.h").unlink(),
                (sdk / "include/torch/torch.h").symlink_to("/etc/hostname"),
            ),
            "include/torch/torch.h is a symbolic link",
        ),
        (
            lambda sdk: ((sdk / "include/torch/torch.h").unlink(), os.mkfifo(sdk / "include/torch/torch.h")),
            "include/torch/torch.h is not a regular file",
        ),
        (lambda sdk: os.mkfifo(sdk / "include/extra.h"), "include/extra.h is not a file of the SDK"),
        (lambda sdk: [p.unlink() for p in sorted(sdk.rglob("*"), reverse=True) if p.is_file()], "is missing"),
    ],
    ids=["deleted", "truncated", "symlinked", "fifo", "added", "emptied"],
)
def test_a_damaged_sdk_cache_is_noticed_said_and_written_again(tmp_path, damage, said):
    sdk = pathlib.Path(_ensure(tmp_path).stdout.strip())
    good = {p.relative_to(sdk): p.read_bytes() for p in sdk.rglob("*") if p.is_file()}
    damage(sdk)
    again = _ensure(tmp_path)
    assert pathlib.Path(again.stdout.strip()) == sdk
    assert "SdkRewrittenWarning: q7emu: the SDK written at" in again.stderr
    assert said in again.stderr
    assert "it is written again" in again.stderr
    now = {p.relative_to(sdk): p.read_bytes() for p in sdk.rglob("*") if p.is_file() and not p.is_symlink()}
    assert now == good
    # Whole again: the next process has nothing to say.
    assert _ensure(tmp_path).stderr == ""


def test_a_deleted_linker_script_is_written_again_and_the_build_works(tmp_path, toolchain):
    env = {k: v for k, v in os.environ.items() if k not in ("Q7EMU_SDK", "Q7_SDK")}
    env["Q7EMU_CACHE_DIR"] = str(tmp_path / "cache")
    sdk = pathlib.Path(_ensure(tmp_path / "cache").stdout.strip())
    scripts = list(sdk.rglob("*.ld"))
    assert scripts, "the SDK has a linker script"
    for s in scripts:
        s.unlink()
    src = elementwise(tmp_path / "k.cpp", "a[i] * 2.0f")
    shape = write(tmp_path / "shape.cpp", SHAPE)
    code = textwrap.dedent(f"""
        import numpy as np, q7emu
        lib = q7emu.load("ld", [{str(src)!r}], [{str(shape)!r}], build_directory={str(tmp_path / "b")!r})
        x = np.arange(4, dtype=np.float32)
        assert np.array_equal(lib.k(x), 2 * x)
    """)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "is missing): it is written again" in out.stderr
