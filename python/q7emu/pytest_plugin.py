"""The q7emu pytest plugin (entry point ``q7emu``, docs/python.md "Testing kernels with pytest").

Fixtures:

- ``q7emu_build``: builds a library once per test session (``q7emu.load``'s arguments; the
  build directory is the session's own, so parallel workers of pytest-xdist never share one).
- ``q7emu_snapshot``: ``assert q7emu_snapshot == run`` compares the run's summary with the
  snapshot named after the test (``q7emu_snapshot(name=..., outputs_only=True) == run`` names
  it; ``q7emu_snapshot(run, name)`` asserts at once), ``<module>__<name>.snap`` in the snapshot
  folder, in the format of the Rust ``q7_testing`` snapshots. A missing or different snapshot
  fails the test with a diff; ``--q7emu-update-snapshots`` (or ``Q7EMU_UPDATE_SNAPSHOTS=1``)
  writes it instead. Snapshots of a module that no test used fail the session, and the update
  flag removes them (``_LedgerHooks``).

The snapshot folder is the ``q7emu_snapshot_dir`` ini option (relative to the rootdir), else
the nearest folder named ``snapshots`` in or above the test file's directory. A snapshot
belongs to one test: the rules are docs/python.md's, checked by ``_claim`` and ``_owner``.
"""

import difflib
import glob
import hashlib
import json
import os
import pathlib
import re
import tempfile
from typing import Optional

import pytest

UPDATE_ENV = "Q7EMU_UPDATE_SNAPSHOTS"
UPDATE_FLAG = "--q7emu-update-snapshots"

# Characters a snapshot name may not hold: path separators (the name is part of a file name
# in the snapshot folder) and control characters, NUL included.
_BAD_NAME_CHARS = re.compile(r"[/\\\x00-\x1f\x7f]")

# A header value written as it is; any other is written as a double-quoted YAML string.
_PLAIN_YAML = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_./+-]*")


def pytest_addoption(parser):
    group = parser.getgroup("q7emu")
    group.addoption(
        UPDATE_FLAG,
        action="store_true",
        default=False,
        help="write q7emu snapshots that are missing or differ instead of failing",
    )
    parser.addini(
        "q7emu_snapshot_dir",
        "the folder of q7emu snapshots, relative to the rootdir (default: the nearest snapshots/ above the test)",
    )


@pytest.fixture(scope="session")
def q7emu_build(tmp_path_factory):
    """``q7emu_build(name, compute_srcs, shape_srcs, multicore=False, **load_options)``: the
    library, built the first time it is asked for in the session."""
    from q7emu import load  # the package's extension, only when a test asks for this fixture

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
            built[key] = load(name, compute_srcs, shape_srcs, build_directory=directory, multicore=multicore, **options)
        return built[key]

    return build


def _find_snapshot_dir(config, test_file: pathlib.Path) -> Optional[pathlib.Path]:
    """The snapshot folder of the tests in ``test_file`` (resolved): the ini option's, made or
    not, else the nearest ``snapshots/`` in or above the test's folder; None without one."""
    configured = config.getini("q7emu_snapshot_dir")
    if configured:
        return pathlib.Path(config.rootpath, configured).resolve()
    for d in (test_file.parent, *test_file.parent.parents):
        if (d / "snapshots").is_dir():
            return (d / "snapshots").resolve()
    return None


def _snapshot_dir(config, test_file: pathlib.Path) -> pathlib.Path:
    """``_find_snapshot_dir``, a failure of the test when there is none or it is a file."""
    __tracebackhide__ = True
    folder = _find_snapshot_dir(config, test_file)
    if folder is None:
        pytest.fail(
            f"q7emu_snapshot: no snapshots/ folder in or above {test_file.parent}; make one or set q7emu_snapshot_dir"
        )
    if folder.exists() and not folder.is_dir():
        configured = config.getini("q7emu_snapshot_dir")
        pytest.fail(f"q7emu_snapshot: q7emu_snapshot_dir {configured!r} is not a folder: {folder}")
    return folder


def _source(config, test_file: pathlib.Path, folder: pathlib.Path) -> str:
    """The header's ``source``: the test file from the folder holding the snapshot folder (the
    repository root, as the Rust snapshots' headers name theirs), else from the rootdir, else
    its absolute path."""
    for base in (folder.parent, config.rootpath.resolve()):
        try:
            return test_file.relative_to(base).as_posix()
        except ValueError:
            pass
    return test_file.as_posix()


def _source_file(config, source: str, folder: pathlib.Path) -> Optional[pathlib.Path]:
    """The file a snapshot header's ``source`` names, from the folder holding the snapshot
    folder or from the rootdir, when it exists; else None."""
    for base in (folder.parent, config.rootpath):
        candidate = pathlib.Path(base, source)
        try:
            if candidate.is_file():
                return candidate
        except (OSError, ValueError):  # a name no file can have
            return None
    return None


def _owner(config, source: str, folder: pathlib.Path, test_file: pathlib.Path):
    """The test file a snapshot's header names as its ``source`` when that file exists and is
    not ``test_file``; else None (no header, this file, or a file since moved away)."""
    named = _source_file(config, source, folder)
    return None if named is None or named.resolve() == test_file else named


def _yaml_scalar(value: str) -> str:
    return value if _PLAIN_YAML.fullmatch(value) else json.dumps(value)


def _parse_yaml_scalar(value: str):
    """A header value: plain, double-quoted (JSON's escapes) or single-quoted; None if
    malformed."""
    value = value.strip()
    if value.startswith('"'):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        return parsed if isinstance(parsed, str) else None
    if value.startswith("'"):
        return value[1:-1].replace("''", "'") if len(value) >= 2 and value.endswith("'") else None
    return value


def _split(text: str):
    """``(source, body)`` of a snapshot file's text: the header's ``source`` (None without
    one) and what follows the header (``---`` … ``---``, as insta reads it: a header never
    closed leaves no body)."""
    lines = text.splitlines(True)
    if not lines or lines[0].rstrip() != "---":
        return None, text
    source = None
    for i, line in enumerate(lines[1:], 1):
        if line.rstrip() == "---":
            return source, "".join(lines[i + 1 :])
        key, sep, value = line.partition(":")
        if sep and key.strip() == "source":
            source = _parse_yaml_scalar(value)
    return source, ""


def _normal(text: str) -> str:
    """Text as insta compares snapshots: Windows line ends read as ``\\n``, trailing
    whitespace ignored."""
    return text.replace("\r\n", "\n").rstrip()


def _check_name(name) -> None:
    __tracebackhide__ = True
    if not isinstance(name, str):
        pytest.fail(f"q7emu_snapshot: the name must be a str, not {type(name).__name__} ({name!r})")
    if not name:
        pytest.fail("q7emu_snapshot: the name is empty; give the snapshot a name")
    bad = _BAD_NAME_CHARS.search(name)
    if bad:
        pytest.fail(
            f"q7emu_snapshot: the name {name!r} holds {bad.group()!r} at index {bad.start()}: a snapshot "
            "name is part of a file name in the snapshot folder, so it may not hold '/', '\\' or "
            "control characters"
        )


def _module_clash(path: pathlib.Path, whose: str, test_file: pathlib.Path) -> str:
    """The failure of a test whose snapshot another test file of the same module name uses."""
    return (
        f"q7emu_snapshot: the snapshot {path} {whose}, another test file named {test_file.name}: "
        f"snapshots are named <test module>__<name>.snap, so rename one of the two modules, or "
        f"give one a snapshot folder of its own (a snapshots/ folder nearer to it)"
    )


def _claims_dir(config, tmp_path_factory) -> pathlib.Path:
    """The folder recording which test uses which snapshot: the session's temporary folder,
    shared by the workers of ``pytest -n`` (their own are inside the controller's)."""
    base = tmp_path_factory.getbasetemp()
    worker = getattr(config, "workerinput", None)
    if worker is not None and base.name == f"popen-{worker['workerid']}":
        base = base.parent
    claims = base / "q7emu-snapshot-names"
    claims.mkdir(exist_ok=True)
    return claims


def _claim(claims: pathlib.Path, path: pathlib.Path, nodeid: str):
    """Records that test ``nodeid`` uses the snapshot ``path``; returns the test that did
    first when it is another one, else None. Atomic across processes: the record is linked
    into place whole, and only the first link of a name succeeds."""
    record = claims / hashlib.sha256(os.fsencode(path)).hexdigest()
    fd, tmp = tempfile.mkstemp(dir=claims, prefix=".claim-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(nodeid)
        try:
            os.link(tmp, record)
            return None
        except FileExistsError:
            first = record.read_text(encoding="utf-8")
            return None if first == nodeid else first
    finally:
        os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write(path: pathlib.Path, text: str) -> None:
    """Writes ``path`` whole or not at all: into a temporary file of this writer's own in the
    same folder, then renamed over it; the temporary file never stays behind."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


@pytest.fixture(scope="session")
def _q7emu_snapshot_claims(request, tmp_path_factory):
    return _claims_dir(request.config, tmp_path_factory)


# ``q7emu_snapshot(name=...)`` given no run: a snapshot to compare with ``==``.
_NO_RUN = object()


class Snapshot:
    """What the ``q7emu_snapshot`` fixture gives a test: ``assert q7emu_snapshot == run``
    compares ``run``'s summary with the snapshot named after the test (``<test name>``, then
    ``<test name>-2``… for later comparisons in the same test), pytest showing the diff of a
    difference; ``q7emu_snapshot(name="…", outputs_only=True) == run`` names it and leaves the
    counters out; ``q7emu_snapshot(run, name, outputs_only=False)`` asserts at once."""

    def __init__(self, compare, default_name, name=None, outputs_only=False):
        self._compare = compare
        self._default_name = default_name
        self._name = name
        self._outputs_only = outputs_only
        #: The failure of the last ``==`` that did not hold, for pytest's report of it.
        self.failure = None

    def __call__(self, run=_NO_RUN, name=None, outputs_only=False):
        __tracebackhide__ = True
        if run is _NO_RUN:
            return Snapshot(self._compare, self._default_name, name, outputs_only)
        failure = self._compare(run, name, outputs_only)
        if failure is not None:
            pytest.fail(failure)
        return None

    def __eq__(self, run):
        __tracebackhide__ = True
        name = self._name if self._name is not None else self._default_name()
        self.failure = self._compare(run, name, self._outputs_only)
        return self.failure is None

    def __ne__(self, run):
        return not self == run

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self):
        return f"<q7emu snapshot {self._name or 'named after the test'}>"


def pytest_assertrepr_compare(config, op, left, right):
    """The report of a failed ``assert q7emu_snapshot == run`` (either way round): the
    snapshot's failure, its diff included."""
    snapshot = left if isinstance(left, Snapshot) else right if isinstance(right, Snapshot) else None
    if op != "==" or snapshot is None or snapshot.failure is None:
        return None
    first, _, rest = snapshot.failure.partition("\n")
    return [first, *rest.splitlines()]


def _safe_name(name: str) -> str:
    """A test's name as a snapshot name: characters a name may not hold become ``_``."""
    return _BAD_NAME_CHARS.sub("_", name)


@pytest.fixture
def q7emu_snapshot(request, _q7emu_snapshot_claims):
    """The test's ``Snapshot``: ``assert q7emu_snapshot == run``, or
    ``q7emu_snapshot(run, name, outputs_only=False)``, compares ``run``'s summary with the
    committed snapshot ``<module>__<name>.snap``."""
    from q7emu import Run  # the package, and its extension, only when a test asks for this

    config = request.config
    ledger = _ledger(config)
    update = config.getoption(UPDATE_FLAG) or os.environ.get(UPDATE_ENV, "0") not in ("", "0")
    test_file = pathlib.Path(request.path).resolve()
    given = {}  # name -> the summary this test gave it
    unnamed = [0]  # the comparisons named after the test so far

    def default_name():
        unnamed[0] += 1
        base = _safe_name(request.node.name)
        return base if unnamed[0] == 1 else f"{base}-{unnamed[0]}"

    def compare(run, name, outputs_only):
        """None when ``run``'s summary is the snapshot's (or was written, updating); else the
        failure, diff included. A broken rule of names fails the test at once."""
        __tracebackhide__ = True
        if not isinstance(run, Run):
            pytest.fail(f"q7emu_snapshot: run must be a q7emu.Run (what op.run(...) returns), not {type(run).__name__}")
        _check_name(name)
        if not isinstance(outputs_only, bool):
            pytest.fail(f"q7emu_snapshot: outputs_only must be True or False, not {outputs_only!r}")
        summary = run.summary(outputs_only=outputs_only)
        if not summary.endswith("\n"):
            summary += "\n"

        if name in given and _normal(given[name]) != _normal(summary):
            diff = "".join(difflib.unified_diff(given[name].splitlines(True), summary.splitlines(True), "first", "now"))
            pytest.fail(
                f"q7emu_snapshot: this test gave the snapshot {name!r} two different summaries; a "
                f"snapshot holds one: give the second its own name\n{diff}"
            )
        given[name] = summary

        folder = _snapshot_dir(config, test_file)
        path = folder / f"{test_file.stem}__{name}.snap"
        try:
            first = _claim(_q7emu_snapshot_claims, path, request.node.nodeid)
        except OSError as e:
            pytest.fail(f"q7emu_snapshot: cannot record the use of {path}: {e}")
        if first is not None:
            if first.split("::")[0] != request.node.nodeid.split("::")[0]:
                pytest.fail(_module_clash(path, f"is used by {first} already in this session", test_file))
            pytest.fail(
                f"q7emu_snapshot: the snapshot {path.name} is used by {first} already in this session: "
                f"a snapshot belongs to one test, so give this one another name (a parametrized "
                f"test: put its parameters in the name)"
            )
        ledger.used.add(str(path))

        source = _source(config, test_file, folder)
        data = error = None
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            pass
        except OSError as e:
            error = e.strerror or str(e)
        if error:
            pytest.fail(f"q7emu_snapshot: cannot read the snapshot {path}: {error}")
        committed = not_text = None
        if data is not None:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as e:
                not_text = f"byte 0x{data[e.start]:02x} at offset {e.start} is not UTF-8"
            else:
                written_by, committed = _split(text)
                other = written_by and _owner(config, written_by, folder, test_file)
                if other:
                    pytest.fail(_module_clash(path, f"belongs to {other} (its header's source)", test_file))
        if committed is not None and _normal(committed) == _normal(summary):
            return None
        if update:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                _write(path, f"---\nsource: {_yaml_scalar(source)}\n---\n{summary}")
            except OSError as e:
                error = e.strerror or str(e)
                if e.filename is not None and os.fspath(e.filename) != str(path):
                    error += f": {e.filename}"
            if error:
                pytest.fail(f"q7emu_snapshot: cannot write the snapshot {path}: {error}")
            return None
        if not_text is not None:
            pytest.fail(
                f"q7emu_snapshot: the snapshot {path} is not text ({not_text}): it is damaged; "
                f"restore it from version control, or run with {UPDATE_FLAG} to replace it with this run's summary"
            )
        if committed is None:
            return f"no snapshot {path}: run with {UPDATE_FLAG} to write it\n{summary}"
        diff = "".join(
            difflib.unified_diff(
                (_normal(committed) + "\n").splitlines(True),
                (_normal(summary) + "\n").splitlines(True),
                f"{path.name} (committed)",
                "this run",
            )
        )
        return f"snapshot {path} differs ({UPDATE_FLAG} accepts the new one):\n{diff}"

    return Snapshot(compare, default_name)


# Snapshots no test used: reported at the end of a session, removed with the update flag.


class _Ledger:
    """What a pytest process saw of the session's snapshots: the paths its tests used, and the
    snapshot files of each test module it collected whole (``_Module``); the controller of
    ``pytest -n`` gathers its workers' too."""

    def __init__(self):
        self.used = set()
        self.modules = {}  # test file -> _Module
        self.partial = set()  # test files not collected whole (a test selected or deselected)
        self.outcomes = {}  # nodeid -> True while every phase of it passed
        self.unused = []  # the snapshots no test used (the controller's, at the session's end)
        self.removed = []  # those the update flag removed


class _Module:
    def __init__(self, file, nodeids, snapshots):
        self.file = file
        self.nodeids = nodeids
        self.snapshots = snapshots  # the snapshot files its tests own

    def as_json(self):
        return {"file": self.file, "nodeids": self.nodeids, "snapshots": self.snapshots}


_LEDGER = pytest.StashKey()


def _ledger(config):
    if _LEDGER not in config.stash:
        config.stash[_LEDGER] = _Ledger()
    return config.stash[_LEDGER]


def _is_worker(config):
    return hasattr(config, "workerinput")


def _owned_snapshots(config, test_file: pathlib.Path):
    """The snapshot files of test module ``test_file``: ``<module>__*.snap`` in its snapshot
    folder whose header's ``source`` is that file (the Rust snapshots sharing the folder, and
    another module's of the same name, are not its)."""
    folder = _find_snapshot_dir(config, test_file)
    if folder is None or not folder.is_dir():
        return []
    owned = []
    for path in sorted(folder.glob(f"{glob.escape(test_file.stem)}__*.snap")):
        try:
            source, _ = _split(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        named = _source_file(config, source, folder) if source is not None else None
        if named is not None and named.resolve() == test_file:
            owned.append(str(path))
    return owned


class _LedgerHooks:
    """The hooks keeping the session's ``_Ledger`` (registered by ``pytest_configure``)."""

    def __init__(self, config):
        self.config = config
        self.ledger = _ledger(config)

    def pytest_deselected(self, items):
        for item in items:
            self.ledger.partial.add(str(pathlib.Path(item.path).resolve()))

    def pytest_collection_finish(self, session):
        config = self.config
        # A test named on the command line (file::test) leaves the rest of its file uncollected.
        for arg in config.args:
            if "::" in arg:
                self.ledger.partial.add(str(pathlib.Path(config.invocation_params.dir, arg.split("::")[0]).resolve()))
        by_file = {}
        for item in session.items:
            by_file.setdefault(pathlib.Path(item.path).resolve(), []).append(item.nodeid)
        for file, nodeids in by_file.items():
            snapshots = _owned_snapshots(config, file)
            if snapshots:
                self.ledger.modules[str(file)] = _Module(str(file), nodeids, snapshots)

    def pytest_runtest_logreport(self, report):
        ok = report.passed and not hasattr(report, "wasxfail")
        self.ledger.outcomes[report.nodeid] = self.ledger.outcomes.get(report.nodeid, True) and ok

    def pytest_testnodedown(self, node, error):
        """The controller of ``pytest -n`` gathers a worker's ledger."""
        seen = getattr(node, "workeroutput", {}).get("q7emu_snapshots")
        if not seen:
            return
        self.ledger.used.update(seen["used"])
        self.ledger.partial.update(seen["partial"])
        for m in seen["modules"]:
            module = self.ledger.modules.setdefault(m["file"], _Module(m["file"], [], m["snapshots"]))
            module.nodeids = sorted(set(module.nodeids) | set(m["nodeids"]))

    def pytest_sessionfinish(self, session, exitstatus):
        config, ledger = self.config, self.ledger
        if _is_worker(config):
            config.workeroutput["q7emu_snapshots"] = {
                "used": sorted(ledger.used),
                "partial": sorted(ledger.partial),
                "modules": [m.as_json() for m in ledger.modules.values()],
            }
            return
        unused = []
        for module in ledger.modules.values():
            if module.file in ledger.partial:
                continue
            if not all(ledger.outcomes.get(n) for n in module.nodeids):
                continue  # a test that failed or was skipped may not have reached its snapshots
            unused += [p for p in module.snapshots if p not in ledger.used]
        ledger.unused = sorted(unused)
        if not unused:
            return
        if config.getoption(UPDATE_FLAG) or os.environ.get(UPDATE_ENV, "0") not in ("", "0"):
            for path in ledger.unused:
                try:
                    os.unlink(path)
                    ledger.removed.append(path)
                except FileNotFoundError:
                    pass
        elif session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_configure(config):
    config.pluginmanager.register(_LedgerHooks(config), "q7emu-snapshot-ledger")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    ledger = _ledger(config)
    unused = ledger.unused
    if not unused:
        return
    removed = ledger.removed
    if removed:
        terminalreporter.write_sep("-", f"q7emu: removed {len(removed)} snapshot(s) no test used")
        for path in removed:
            terminalreporter.write_line(f"removed {path}")
        return
    terminalreporter.write_sep("-", f"q7emu: {len(unused)} snapshot(s) no test used", red=True)
    for path in unused:
        terminalreporter.write_line(f"unused {path}")
    terminalreporter.write_line(f"{UPDATE_FLAG} removes them (or delete them yourself); until then the session fails")
