"""Shared fixtures of the q7emu package's tests (docs/python.md "Testing kernels with pytest")."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def toolchain_installed() -> bool:
    prefix = os.environ.get("Q7_XTENSA_PREFIX") or os.path.expanduser("~/.cache/xtensa-dc233c")
    return os.path.isfile(os.path.join(prefix, "bin", "xtensa-elf-g++"))


@pytest.fixture
def toolchain():
    """Skips a test that builds kernels when the Xtensa toolchain is missing, unless
    Q7_REQUIRE_TOOLCHAIN is set (as .ci/run sets it): then it fails."""
    if not toolchain_installed():
        if os.environ.get("Q7_REQUIRE_TOOLCHAIN", "0") not in ("", "0"):
            pytest.fail("the Xtensa toolchain is missing: run scripts/setup-toolchain.sh")
        pytest.skip("the Xtensa toolchain is missing: run scripts/setup-toolchain.sh")

# pytest's own fixture for testing a plugin: runs pytest on test files a test writes.
pytest_plugins = ["pytester"]
