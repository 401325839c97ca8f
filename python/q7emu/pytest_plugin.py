"""The q7emu pytest plugin (entry point ``q7emu``, docs/python.md "Testing kernels with pytest").

Fixtures:

- ``q7emu_build``: builds a library once per test session (``q7emu.load``'s arguments; the
  build directory is the session's own, so parallel workers of pytest-xdist never share one).
- ``q7emu_snapshot``: ``q7emu_snapshot(run, name, outputs_only=False)`` compares the run's
  summary with ``<module>__<name>.snap`` in the snapshot folder, in the format of the Rust
  ``q7_host::testing`` snapshots. A missing or different snapshot fails the test with a diff;
  ``--q7emu-update-snapshots`` (or ``Q7EMU_UPDATE_SNAPSHOTS=1``) writes it instead.

The snapshot folder is the ``q7emu_snapshot_dir`` ini option, else the nearest folder named
``snapshots`` in or above the test file's directory.
"""

import difflib
import os
import pathlib

import pytest

import q7emu

UPDATE_ENV = "Q7EMU_UPDATE_SNAPSHOTS"


def pytest_addoption(parser):
    group = parser.getgroup("q7emu")
    group.addoption(
        "--q7emu-update-snapshots",
        action="store_true",
        default=False,
        help="write q7emu snapshots that are missing or differ instead of failing",
    )
    parser.addini("q7emu_snapshot_dir", "the folder of q7emu snapshots (default: the nearest snapshots/ above the test)")


@pytest.fixture(scope="session")
def q7emu_build(tmp_path_factory):
    """``q7emu_build(name, compute_srcs, shape_srcs, multicore=False, **load_options)``: the
    library, built the first time it is asked for in the session."""
    built = {}

    def build(name, compute_srcs, shape_srcs, multicore=False, **options):
        key = (
            name,
            tuple(os.fspath(s) for s in compute_srcs),
            tuple(os.fspath(s) for s in shape_srcs),
            multicore,
            repr(sorted(options.items())),
        )
        if key not in built:
            directory = tmp_path_factory.mktemp(f"q7emu-{name}")
            built[key] = q7emu.load(
                name, compute_srcs, shape_srcs, build_directory=directory, multicore=multicore, **options
            )
        return built[key]

    return build


def _snapshot_dir(request) -> pathlib.Path:
    configured = request.config.getini("q7emu_snapshot_dir")
    if configured:
        return pathlib.Path(request.config.rootpath, configured)
    here = pathlib.Path(request.path).resolve().parent
    for d in (here, *here.parents):
        if (d / "snapshots").is_dir():
            return d / "snapshots"
    raise pytest.UsageError(
        "q7emu_snapshot: no snapshots/ folder in or above the test's directory; make one or set q7emu_snapshot_dir"
    )


def _body(text: str) -> str:
    """A snapshot file's content after its header (``---`` … ``---``)."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 3)
        if end >= 0:
            return text[end + 5 :]
    return text


@pytest.fixture
def q7emu_snapshot(request):
    """``q7emu_snapshot(run, name, outputs_only=False)``: asserts that ``run``'s summary is
    the committed snapshot ``<module>__<name>.snap``."""
    update = request.config.getoption("--q7emu-update-snapshots") or os.environ.get(UPDATE_ENV, "0") not in ("", "0")

    def check(run, name, outputs_only=False):
        summary = run.summary(outputs_only=outputs_only)
        if not summary.endswith("\n"):
            summary += "\n"
        path = _snapshot_dir(request).resolve() / f"{pathlib.Path(request.path).stem}__{name}.snap"
        try:
            committed = _body(path.read_text())
        except FileNotFoundError:
            committed = None
        if committed == summary:
            return
        if update:
            # The header names the test file from the folder holding the snapshot folder (the
            # repository root), as insta's headers do.
            try:
                source = pathlib.Path(request.path).resolve().relative_to(path.parent.parent.resolve())
            except ValueError:
                source = pathlib.Path(request.path).name
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(f"---\nsource: {source.as_posix()}\n---\n{summary}")
            os.replace(tmp, path)
            return
        if committed is None:
            pytest.fail(f"no snapshot {path}: run with --q7emu-update-snapshots to write it\n{summary}")
        diff = "".join(
            difflib.unified_diff(
                committed.splitlines(True), summary.splitlines(True), f"{path.name} (committed)", "this run"
            )
        )
        pytest.fail(f"snapshot {path} differs (--q7emu-update-snapshots accepts the new one):\n{diff}")

    return check
