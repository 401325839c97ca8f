"""The pytest plugin (q7emu.pytest_plugin): session builds and summary snapshots in the format
of the Rust q7_testing snapshots (docs/python.md "Testing kernels with pytest")."""

import numpy as np
import pytest
from conftest import ROOT

import q7emu

RELU_MULTICORE = ROOT / "examples/kernels/relu_multicore"


def body(path):
    text = path.read_text()
    return text[text.index("\n---\n") + 5 :]


def test_a_run_matches_its_committed_snapshot(q7emu_snapshot):
    lib = q7emu.load_library(RELU_MULTICORE / "build")
    run = lib.relu_forward.run(np.load(RELU_MULTICORE / "input.npy"))
    q7emu_snapshot(run, "relu_multicore")
    # The same summary as the Rust snapshot of the same run (host-stub/tests/all/examples.rs).
    rust = ROOT / "snapshots/all__examples__relu_multicore-relu_forward.snap"
    assert body(ROOT / "snapshots/test_plugin__relu_multicore.snap") == body(rust)


def test_a_session_builds_a_library_once(q7emu_build, toolchain):
    project = ROOT / "examples/check/correct_multicore"
    args = ("correct_multicore", [project / "correct_multicore.cpp"], [project / "shape.cpp"])
    first = q7emu_build(*args, multicore=True)
    assert q7emu_build(*args, multicore=True) is first
    x = np.linspace(-1, 1, 1003, dtype=np.float32)
    assert np.array_equal(first.relu_forward(x), np.maximum(x, 0))


SNAPSHOT_TEST = f"""
import numpy as np, q7emu

def test_relu(q7emu_snapshot):
    lib = q7emu.load_library({str(RELU_MULTICORE / "build")!r})
    x = np.load({str(RELU_MULTICORE / "input.npy")!r})
    q7emu_snapshot(lib.relu_forward.run(x), "relu", outputs_only=True)
"""


def test_a_missing_or_changed_snapshot_fails_and_the_update_flag_writes_it(pytester):
    pytester.mkdir("snapshots")
    pytester.makepyfile(test_relu=SNAPSHOT_TEST)
    missing = pytester.runpytest()
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*no snapshot*test_relu__relu.snap*--q7emu-update-snapshots*"])
    pytester.runpytest("--q7emu-update-snapshots").assert_outcomes(passed=1)
    snap = pytester.path / "snapshots" / "test_relu__relu.snap"
    text = snap.read_text()
    assert text.startswith("---\nsource: test_relu.py\n---\nop: relu_forward\n")
    assert "core 0" not in text, "outputs_only leaves the counters out"
    pytester.runpytest().assert_outcomes(passed=1)
    snap.write_text(text.replace("op: relu_forward", "op: relu_backward"))
    changed = pytester.runpytest()
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(["*differs*", "*-op: relu_backward*", "*+op: relu_forward*"])


# A test file's head for the runs below: the committed 8-core ReLU build, run on n elements.
RELU_RUNS = f"""
import numpy as np, pytest, q7emu

lib = q7emu.load_library({str(RELU_MULTICORE / "build")!r})

def relu(n=1024):
    return lib.relu_forward.run(np.linspace(-1, 1, n, dtype=np.float32))
"""

ONE_SNAPSHOT = (
    RELU_RUNS
    + """
def test_relu(q7emu_snapshot):
    q7emu_snapshot(relu(), "relu", outputs_only=True)
"""
)


def files_under(path):
    return sorted(p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file())


def test_the_update_flag_writes_into_a_snapshot_folder_that_is_not_above_the_tests(pytester):
    # The header's source is then the test file from the rootdir; the folder is made.
    pytester.makeini("[pytest]\nq7emu_snapshot_dir = data/snapshots\n")
    pytester.makepyfile(**{"tests/test_relu": ONE_SNAPSHOT})
    pytester.runpytest("--q7emu-update-snapshots").assert_outcomes(passed=1)
    text = (pytester.path / "data/snapshots/test_relu__relu.snap").read_text()
    assert text.startswith("---\nsource: tests/test_relu.py\n---\nop: relu_forward\n")
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_snapshot_dir_that_is_a_file_fails_the_test_naming_it(pytester):
    pytester.makeini("[pytest]\nq7emu_snapshot_dir = data\n")
    (pytester.path / "data").write_text("not a folder\n")
    pytester.makepyfile(test_relu=ONE_SNAPSHOT)
    result = pytester.runpytest("--q7emu-update-snapshots")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["E   *Failed: q7emu_snapshot: q7emu_snapshot_dir 'data' is not a folder: */data"])
    assert (pytester.path / "data").read_text() == "not a folder\n"


def test_a_source_that_is_not_a_plain_yaml_value_is_written_quoted(pytester):
    # insta reads the header as YAML: "a: b" unquoted would be a mapping.
    snapshots = pytester.mkdir("snapshots")
    pytester.makepyfile(**{"tests/a: b/test_relu": ONE_SNAPSHOT})
    pytester.runpytest("--q7emu-update-snapshots").assert_outcomes(passed=1)
    text = (snapshots / "test_relu__relu.snap").read_text()
    assert text.startswith('---\nsource: "tests/a: b/test_relu.py"\n---\nop: relu_forward\n')
    pytester.runpytest().assert_outcomes(passed=1)


def test_the_update_writes_through_a_temporary_file_of_its_own_and_leaves_none(pytester):
    # Another writer's temporary file beside the snapshot is neither used nor removed.
    snapshots = pytester.mkdir("snapshots")
    pytester.makepyfile(test_relu=ONE_SNAPSHOT)
    (snapshots / "test_relu__relu.snap.tmp").write_text("another writer's\n")
    pytester.runpytest("--q7emu-update-snapshots").assert_outcomes(passed=1)
    assert files_under(snapshots) == ["test_relu__relu.snap", "test_relu__relu.snap.tmp"]
    assert (snapshots / "test_relu__relu.snap.tmp").read_text() == "another writer's\n"
    assert "op: relu_forward\n" in (snapshots / "test_relu__relu.snap").read_text()


def test_two_workers_update_their_snapshots_and_leave_no_temporary_file(pytester):
    snapshots = pytester.mkdir("snapshots")
    tests = "".join(
        f"\ndef test_{n}(q7emu_snapshot):\n    q7emu_snapshot(relu({n}), 'relu-{n}', outputs_only=True)\n"
        for n in (256, 512, 1024, 2048)
    )
    pytester.makepyfile(test_relu=RELU_RUNS + tests)
    pytester.runpytest("-n", "2", "--q7emu-update-snapshots").assert_outcomes(passed=4)
    assert files_under(snapshots) == [f"test_relu__relu-{n}.snap" for n in (1024, 2048, 256, 512)]
    pytester.runpytest("-n", "2").assert_outcomes(passed=4)


def test_a_snapshot_name_used_by_two_tests_of_a_module_fails_the_second(pytester):
    pytester.mkdir("snapshots")
    pytester.makepyfile(
        test_relu=RELU_RUNS
        + """
@pytest.mark.xdist_group("one")
def test_one(q7emu_snapshot):
    q7emu_snapshot(relu(), "relu")

@pytest.mark.xdist_group("two")
def test_two(q7emu_snapshot):
    q7emu_snapshot(relu(), "relu")
"""
    )
    for args in (["--q7emu-update-snapshots"], []):
        result = pytester.runpytest(*args)
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines(
            ["*test_relu__relu.snap is used by test_relu.py::test_one already in this session*another name*"]
        )
    # Two workers, one test each: the second user fails too.
    result = pytester.runpytest("-n", "2", "--dist", "loadgroup", "-v")
    result.assert_outcomes(passed=1, failed=1)
    workers = {line.split("]")[0] for line in result.stdout.lines if line.startswith("[gw")}
    assert workers == {"[gw0", "[gw1"}
    result.stdout.fnmatch_lines(["*test_relu__relu.snap is used by test_relu.py::test_* already in this session*"])


def test_a_parametrized_test_needs_its_parameters_in_the_snapshot_name(pytester):
    snapshots = pytester.mkdir("snapshots")
    pytester.makepyfile(
        test_relu=RELU_RUNS
        + """
@pytest.mark.parametrize("n", [512, 1024])
def test_shared(q7emu_snapshot, n):
    q7emu_snapshot(relu(n), "relu")

@pytest.mark.parametrize("n", [512, 1024])
def test_own(q7emu_snapshot, n):
    q7emu_snapshot(relu(n), f"relu-{n}")
"""
    )
    result = pytester.runpytest("--q7emu-update-snapshots")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        ["*test_relu__relu.snap is used by test_relu.py::test_shared?512? already*put its parameters in the name*"]
    )
    assert files_under(snapshots) == ["test_relu__relu-1024.snap", "test_relu__relu-512.snap", "test_relu__relu.snap"]


def test_one_test_may_check_a_name_twice_but_only_with_one_summary(pytester):
    pytester.mkdir("snapshots")
    pytester.makepyfile(
        test_relu=RELU_RUNS
        + """
def test_same(q7emu_snapshot):
    q7emu_snapshot(relu(), "same")
    q7emu_snapshot(relu(), "same")

def test_different(q7emu_snapshot):
    q7emu_snapshot(relu(512), "different")
    q7emu_snapshot(relu(1024), "different")
"""
    )
    result = pytester.runpytest("--q7emu-update-snapshots")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*this test gave the snapshot 'different' two different summaries*its own name*", "*-output: float32 [[]512]*"]
    )


TEST_X = (
    RELU_RUNS
    + """
def test_relu(q7emu_snapshot):
    q7emu_snapshot(relu(), "relu")
"""
)


def test_two_test_files_of_one_module_name_may_not_share_a_snapshot(pytester):
    snapshots = pytester.mkdir("snapshots")
    pytester.makepyfile(
        **{"tests/a/__init__": "", "tests/a/test_x": TEST_X, "tests/b/__init__": "", "tests/b/test_x": TEST_X}
    )
    both = pytester.runpytest("--q7emu-update-snapshots")
    both.assert_outcomes(passed=1, failed=1)
    both.stdout.fnmatch_lines(
        [
            "*test_x__relu.snap is used by tests/a/test_x.py::test_relu already in this session, another test"
            " file named test_x.py*rename one of the two modules*snapshot folder of its own*"
        ]
    )
    snap = snapshots / "test_x__relu.snap"
    written = snap.read_text()
    assert written.startswith("---\nsource: tests/a/test_x.py\n---\n")
    # Run alone, the second file finds the snapshot's header naming the first, and leaves it.
    for args in ([], ["--q7emu-update-snapshots"]):
        alone = pytester.runpytest("tests/b", *args)
        alone.assert_outcomes(failed=1)
        alone.stdout.fnmatch_lines(["*test_x__relu.snap belongs to *tests/a/test_x.py (its header's source)*"])
    assert snap.read_text() == written
    # A snapshot whose source file was moved away is the test's that uses it now.
    (pytester.path / "tests/a/test_x.py").rename(pytester.path / "tests/a/test_y.py")
    pytester.runpytest("tests/b").assert_outcomes(passed=1)


def test_a_snapshot_that_is_not_text_fails_the_check_and_the_update_rewrites_it(pytester):
    snapshots = pytester.mkdir("snapshots")
    pytester.makepyfile(test_relu=ONE_SNAPSHOT)
    snap = snapshots / "test_relu__relu.snap"
    damaged = b"---\nsource: test_relu.py\n---\nop: relu_\xff\xfeforward\n"
    snap.write_bytes(damaged)
    check = pytester.runpytest()
    check.assert_outcomes(failed=1)
    check.stdout.fnmatch_lines(
        [
            f"*the snapshot *test_relu__relu.snap is not text (byte 0xff at offset {damaged.index(0xFF)} is not"
            " UTF-8)*restore it from version control, or run with --q7emu-update-snapshots*"
        ]
    )
    pytester.runpytest("--q7emu-update-snapshots").assert_outcomes(passed=1)
    assert snap.read_text().startswith("---\nsource: test_relu.py\n---\nop: relu_forward\n")
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_snapshot_with_windows_line_ends_matches_as_insta_reads_it(pytester):
    # insta compares snapshots with \r\n read as \n and trailing whitespace ignored.
    snapshots = pytester.mkdir("snapshots")
    pytester.makepyfile(test_relu=ONE_SNAPSHOT)
    pytester.runpytest("--q7emu-update-snapshots").assert_outcomes(passed=1)
    snap = snapshots / "test_relu__relu.snap"
    snap.write_bytes(snap.read_bytes().replace(b"\n", b"\r\n") + b"\r\n")
    pytester.runpytest().assert_outcomes(passed=1)


# A name is part of a file name in the snapshot folder: no path separators, no control characters.
BAD_NAMES = [("../escape", "/", 2), ("a/b", "/", 1), ("a\\b", "\\", 1), ("nul\x00", "\x00", 3), ("two\nlines", "\n", 3)]
BAD_ARGUMENTS = [(f"relu(), {n!r}", f"the name {n!r} holds {c!r} at index {i}*") for n, c, i in BAD_NAMES] + [
    ("relu(), ''", "the name is empty; give the snapshot a name"),
    ("relu(), 7", "the name must be a str, not int (7)"),
    ("relu(), 'x' * 300", "cannot read the snapshot *test_relu__xxx*.snap: File name too long"),
    ("relu().output, 'out'", "run must be a q7emu.Run (what op.run(...) returns), not ndarray"),
    ("relu(), 'relu', outputs_only='yes'", "outputs_only must be True or False, not 'yes'"),
]


def test_bad_arguments_fail_the_test_naming_what_is_wrong_and_write_nothing(pytester):
    snapshots = pytester.mkdir("snapshots")
    tests = "".join(
        f"\ndef test_{i}(q7emu_snapshot):\n    q7emu_snapshot({call})\n" for i, (call, _) in enumerate(BAD_ARGUMENTS)
    )
    pytester.makepyfile(test_relu=RELU_RUNS + tests)
    before = files_under(pytester.path)
    result = pytester.runpytest("--q7emu-update-snapshots", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=len(BAD_ARGUMENTS))
    result.stdout.fnmatch_lines([f"E   *Failed: q7emu_snapshot: {m}" for _, m in BAD_ARGUMENTS])
    assert files_under(pytester.path) == before
    assert list(snapshots.iterdir()) == []


EQUALS = (
    RELU_RUNS
    + """
def test_relu(q7emu_snapshot):
    assert q7emu_snapshot == relu()
    assert relu(512) == q7emu_snapshot(outputs_only=True)
    assert q7emu_snapshot(name="small", outputs_only=True) == relu(256)
"""
)


def test_assert_snapshot_equals_run_names_the_snapshot_after_the_test(pytester):
    # syrupy's style: the first comparison of a test is named after it, later ones -2, -3...
    snapshots = pytester.mkdir("snapshots")
    pytester.makepyfile(test_relu=EQUALS)
    pytester.runpytest().assert_outcomes(failed=1)
    pytester.runpytest("--q7emu-update-snapshots").assert_outcomes(passed=1)
    assert files_under(snapshots) == [
        "test_relu__small.snap",
        "test_relu__test_relu-2.snap",
        "test_relu__test_relu.snap",
    ]
    assert "core 0" in (snapshots / "test_relu__test_relu.snap").read_text()
    assert "core 0" not in (snapshots / "test_relu__test_relu-2.snap").read_text(), "outputs_only"
    assert "output: float32 [256], 256 elements" in (snapshots / "test_relu__small.snap").read_text()
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_failed_snapshot_equality_shows_the_diff_through_pytests_assertion(pytester):
    snapshots = pytester.mkdir("snapshots")
    pytester.makepyfile(test_relu=EQUALS)
    pytester.runpytest("--q7emu-update-snapshots").assert_outcomes(passed=1)
    snap = snapshots / "test_relu__test_relu.snap"
    snap.write_text(snap.read_text().replace("op: relu_forward", "op: relu_backward"))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*assert q7emu_snapshot == relu()",
            "E       assert snapshot */test_relu__test_relu.snap differs"
            " (--q7emu-update-snapshots accepts the new one):",
            "E         --- test_relu__test_relu.snap (committed)",
            "E         +++ this run",
            "E         -op: relu_backward",
            "E         +op: relu_forward",
        ]
    )


UNUSED = (
    RELU_RUNS
    + """
def test_kept(q7emu_snapshot):
    assert q7emu_snapshot == relu()

def test_other():
    pass
"""
)


def test_snapshots_no_test_used_fail_the_session_and_the_update_flag_removes_them(pytester):
    snapshots = pytester.mkdir("snapshots")
    pytester.makepyfile(test_relu=UNUSED)
    pytester.runpytest("--q7emu-update-snapshots").assert_outcomes(passed=2)
    # A snapshot of a test since renamed, and a Rust snapshot sharing the folder.
    kept = (snapshots / "test_relu__test_kept.snap").read_text()
    (snapshots / "test_relu__test_gone.snap").write_text(kept)
    (snapshots / "all__examples__relu.snap").write_text("---\nsource: tests/all/examples.rs\n---\nop: x\n")

    for args in ([], ["-n", "2"]):
        result = pytester.runpytest(*args)
        result.assert_outcomes(passed=2)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(
            [
                "*q7emu: 1 snapshot(s) no test used*",
                f"unused {snapshots / 'test_relu__test_gone.snap'}",
                "--q7emu-update-snapshots removes them*",
            ]
        )

    # Not when only some of the module's tests ran, or one of them failed or was skipped.
    assert pytester.runpytest("-k", "kept").ret == pytest.ExitCode.OK
    assert pytester.runpytest("test_relu.py::test_kept").ret == pytest.ExitCode.OK
    pytester.makepyfile(test_relu=UNUSED.replace("    pass", "    pytest.skip('not here')"))
    assert pytester.runpytest().ret == pytest.ExitCode.OK
    pytester.makepyfile(test_relu=UNUSED)

    result = pytester.runpytest("--q7emu-update-snapshots")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*q7emu: removed 1 snapshot(s) no test used*"])
    assert files_under(snapshots) == ["all__examples__relu.snap", "test_relu__test_kept.snap"]
    pytester.runpytest().assert_outcomes(passed=2)


def test_the_plugin_imports_the_extension_only_when_a_test_uses_a_fixture(pytester):
    # The plugin is loaded in every pytest session of an environment with the package; a session
    # whose tests use none of its fixtures never loads the extension module.
    pytester.makepyfile(
        test_plain="""
import sys

def test_plain():
    assert "q7emu.pytest_plugin" in sys.modules
    assert "q7emu._q7emu" not in sys.modules
""",
        test_fixture="""
import sys

def test_fixture(q7emu_build):
    assert "q7emu._q7emu" in sys.modules
""",
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "test_plain.py").assert_outcomes(passed=1)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "test_fixture.py").assert_outcomes(passed=1)
