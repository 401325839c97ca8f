"""Shared fixtures of the q7emu package's tests (docs/python.md "Testing kernels with pytest")."""

import pathlib

import pytest

from q7emu import _q7emu

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def toolchain():
    """Skips a test that builds kernels when the Xtensa toolchain is missing, unless
    Q7EMU_REQUIRE_TOOLCHAIN is set (as .ci/run sets it): then it fails. The rule and the
    toolchain's location are the Rust tests' own (q7_kernel_build::toolchain)."""
    try:
        reason = _q7emu.toolchain_skip_reason()
    except RuntimeError as e:
        pytest.fail(str(e))
    if reason is not None:
        pytest.skip(reason)


# pytest's own fixture for testing a plugin: runs pytest on test files a test writes.
pytest_plugins = ["pytester"]
