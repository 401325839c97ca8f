#!/usr/bin/env bash
# The whole test suite: installs the windowed Xtensa toolchain and QEMU when missing
# (scripts/setup-toolchain.sh, idempotent), then formatting, lints, the fuzz targets' build,
# doc links and every test; then the Python package (python/, docs/python.md), built into the
# project-local virtual environment .venv and tested with pytest.
# Toolchain-dependent tests skip with a notice when the toolchain is absent, unless
# Q7_REQUIRE_TOOLCHAIN=1 (as .ci/run sets it), which makes them fail instead.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! scripts/setup-toolchain.sh >&2; then
  if [ "${Q7_REQUIRE_TOOLCHAIN:-0}" != 0 ]; then
    echo "test.sh: toolchain set-up failed and Q7_REQUIRE_TOOLCHAIN is set" >&2
    exit 1
  fi
  echo "test.sh: NOTICE: toolchain set-up failed; toolchain tests will be skipped" >&2
fi

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
# The fuzz targets (fuzz/, outside the workspace) build against the same crates: check that
# they still compile and are formatted, so a changed API cannot break them unseen.
cargo fmt --manifest-path fuzz/Cargo.toml --check
cargo check --quiet --manifest-path fuzz/Cargo.toml --all-targets
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace

# The Python package: its extension crate is a workspace of its own (python/Cargo.toml), so
# it gets its own format and lint checks; pip builds and installs it into .venv, pytest runs
# its tests on two processes.
cargo fmt --manifest-path python/Cargo.toml --check
CARGO_TARGET_DIR=target/python cargo clippy --quiet --manifest-path python/Cargo.toml --all-targets -- -D warnings
if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
  # Debian keeps venv's pip bootstrap in a package of its own.
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq python3-venv >&2; else sudo apt-get install -y -qq python3-venv >&2; fi
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
# torch for the q7emu.torch tests (a large download the first time: its Linux wheels bring
# CUDA libraries, unused on a CPU-only machine).
.venv/bin/python -m pip install --quiet --upgrade 'pip>=23' 'pytest>=7' 'pytest-xdist>=3' 'ml_dtypes>=0.3' 'torch>=2.4'
# The install docs/python.md shows (maturin builds the wheel; the shared target directory keeps
# the Rust build incremental between runs).
CARGO_TARGET_DIR="$PWD/target/python" .venv/bin/python -m pip install --quiet ./python
.venv/bin/python -m pytest -q -n 2 -p no:cacheprovider python/tests
