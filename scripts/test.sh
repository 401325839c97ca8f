#!/usr/bin/env bash
# The whole test suite: installs the windowed Xtensa toolchain and QEMU when missing
# (scripts/setup-toolchain.sh, idempotent), then formatting, lints, cargo deny (installed when
# missing), the fuzz targets' build,
# doc links and every test; then the Python package (python/, docs/python.md), built into the
# project-local virtual environment .venv (pinned by python/constraints.txt), linted, type-checked
# and tested with pytest. Each stage's wall time is
# printed as it ends, and all of them at the end (DEVELOPING.md "Tests" states the usual ones).
#
#   scripts/test.sh           the whole suite
#   scripts/test.sh --quick   the edit loop: formatting, lints, unit tests (no toolchain needed)
#
# Toolchain-dependent tests show as ignored when the toolchain is absent, unless
# Q7EMU_REQUIRE_TOOLCHAIN=1 (its old name Q7_REQUIRE_TOOLCHAIN, which .ci/run sets, is
# accepted), which makes them fail instead.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
  "") ;;
  --quick) quick=1 ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

# The old names of the two variables that had one (docs/cli.md "Environment").
export Q7EMU_REQUIRE_TOOLCHAIN="${Q7EMU_REQUIRE_TOOLCHAIN:-${Q7_REQUIRE_TOOLCHAIN:-0}}"
if [ -z "${Q7EMU_SDK:-}" ] && [ -n "${Q7_SDK:-}" ]; then export Q7EMU_SDK="$Q7_SDK"; fi

times=()
# stage NAME COMMAND...: runs COMMAND, then prints and records how long it took.
stage() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  local took=$((SECONDS - start))
  times+=("$(printf '%-14s %5d s' "$name" "$took")")
  echo "test.sh: stage $name: $took s" >&2
}
summary() {
  echo "test.sh: stage times:" >&2
  printf '  %s\n' "${times[@]}" >&2
  # The disk the suite's builds and environment take (DEVELOPING.md "Disk").
  echo "test.sh: disk used:" >&2
  du -sh target fuzz/target .venv 2>/dev/null | sed 's/^/  /' >&2 || true
}

setup_toolchain() {
  if ! scripts/setup-toolchain.sh >&2; then
    if [ "$Q7EMU_REQUIRE_TOOLCHAIN" != 0 ]; then
      echo "test.sh: toolchain set-up failed and Q7EMU_REQUIRE_TOOLCHAIN is set" >&2
      exit 1
    fi
    echo "test.sh: NOTICE: toolchain set-up failed; toolchain tests will be skipped" >&2
  fi
}

lint() {
  cargo fmt --all --check
  cargo clippy --workspace --all-targets -- -D warnings
}

if [ "$quick" = 1 ]; then
  stage lint lint
  stage unit cargo test --workspace --lib --quiet
  summary
  exit 0
fi

# The fuzz targets (fuzz/, outside the workspace) build against the same crates: check that
# they still compile and are formatted, so a changed API cannot break them unseen.
fuzz_build() {
  cargo fmt --manifest-path fuzz/Cargo.toml --check
  # The workspace's target directory: the crates clippy has just checked are not checked again.
  CARGO_TARGET_DIR="$PWD/target" cargo check --quiet --manifest-path fuzz/Cargo.toml --all-targets
}

# The Python package: its extension crate is a workspace of its own (python/Cargo.toml), so
# it gets its own format and lint checks; pip builds and installs it into .venv, with the test
# environment pinned by python/constraints.txt; pytest runs its tests on two processes.
python_package() {
  cargo fmt --manifest-path python/Cargo.toml --check
  CARGO_TARGET_DIR=target/python cargo clippy --quiet --manifest-path python/Cargo.toml --all-targets -- -D warnings
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
    # Debian keeps venv's pip bootstrap in a package of its own.
    if [ "$(id -u)" = 0 ]; then apt-get install -y -qq python3-venv >&2; else sudo apt-get install -y -qq python3-venv >&2; fi
  fi
  [ -x .venv/bin/python ] || python3 -m venv .venv
  # Every package at the version python/constraints.txt pins (with all their dependencies),
  # so that a run tests what the last one did; an upgrade is a change to that file
  # (DEVELOPING.md "Tests"). torch for the q7emu.torch tests (its Linux wheel brings CUDA
  # libraries, 4 GB a CPU-only machine never runs but libtorch links, so `import torch` needs
  # them), hypothesis for q7emu.testing, ruff, pyright and mypy (its stubtest) for
  # python_lint. No download cache: a clean machine installs once, and the cache would add
  # the wheels' size again (DEVELOPING.md "Disk").
  local pip=(.venv/bin/python -m pip install --quiet --no-cache-dir -c python/constraints.txt)
  "${pip[@]}" 'pip>=23'
  "${pip[@]}" 'pytest>=7' 'pytest-xdist>=3' 'ml_dtypes>=0.3' 'torch>=2.4' 'hypothesis>=6.100' \
    ruff pyright mypy
  # The install docs/python.md shows (maturin builds the wheel with the release profile of
  # the CLI; the shared target directory keeps the Rust build incremental between runs).
  CARGO_TARGET_DIR="$PWD/target/python" "${pip[@]}" ./python
}

# The package's Python code (python/pyproject.toml configures each tool): ruff's lints and
# formatting, pyright's type check of the package and its tests, and stubtest's check of the
# extension's stubs (python/q7emu/_q7emu.pyi, read from the tree) against the module built.
python_lint() {
  .venv/bin/ruff check python
  .venv/bin/ruff format --check python
  .venv/bin/pyright -p python --pythonpath .venv/bin/python
  MYPYPATH=python .venv/bin/python -m mypy.stubtest q7emu._q7emu
}

# cargo deny (deny.toml): licences, banned and duplicate crates, sources, of both workspaces.
# The advisory database cannot be fetched on these machines, so advisories are not checked.
# The graph covers every target platform, whose crates a build does not download: fetched
# first (as Cargo.lock pins them), so that the check itself runs offline.
deny() {
  command -v cargo-deny >/dev/null || cargo install --quiet --locked cargo-deny@0.20.2
  cargo fetch --locked --quiet
  cargo fetch --locked --quiet --manifest-path python/Cargo.toml
  cargo deny --frozen check licenses bans sources
  cargo deny --frozen --manifest-path python/Cargo.toml --config deny.toml check licenses bans sources
}

stage toolchain setup_toolchain
stage lint lint
stage deny deny
stage fuzz-build fuzz_build
stage rustdoc env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
stage rust-tests cargo test --workspace
stage python-build python_package
stage python-lint python_lint
# The package's pytest configuration (warnings are errors, strict xfail), named rather than
# found, so that a run from anywhere uses it.
stage pytest .venv/bin/python -m pytest -q -n 2 -c python/pyproject.toml -p no:cacheprovider python/tests
summary
