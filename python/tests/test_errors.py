"""The exceptions of q7emu.errors (docs/python.md "Errors"): their names, the old names kept as
aliases, KernelFaultError's declared attributes, and the extension raising the classes it
imported once. None of these tests needs the toolchain."""

import pickle
import typing
from typing import Optional

import pytest

import q7emu
import q7emu.errors
from q7emu import _q7emu

# Each class, by its name, with the name of earlier versions that stays an alias of it.
RENAMED = {
    "KernelFaultError": "KernelFault",
    "RunawayError": "Runaway",
    "CheckFailedError": "CheckFailed",
    "BadInputError": "BadInput",
    "SdkRewrittenWarning": "SdkRewritten",
}
ERRORS = [
    "Q7Error",
    "BuildError",
    "KernelFaultError",
    "RunawayError",
    "ShapeFunctionError",
    "CheckFailedError",
    "BadInputError",
]
WARNINGS = ["CheckWarning", "SdkRewrittenWarning"]


def test_exceptions_end_in_error_and_warnings_in_warning_and_the_old_names_are_aliases():
    for name in ERRORS + WARNINGS:
        cls = getattr(q7emu, name)
        assert cls is getattr(q7emu.errors, name) and cls.__name__ == name
        assert name in q7emu.__all__ and name in q7emu.errors.__all__
    for name in ERRORS:
        assert issubclass(getattr(q7emu, name), q7emu.Q7Error)
    for name in WARNINGS:
        assert issubclass(getattr(q7emu, name), UserWarning)
    for name, old in RENAMED.items():
        assert getattr(q7emu, old) is getattr(q7emu, name), f"q7emu.{old} is q7emu.{name} itself"
        assert getattr(q7emu.errors, old) is getattr(q7emu, name)
        assert old in q7emu.__all__
    assert issubclass(q7emu.BadInputError, ValueError)


def test_kernel_fault_errors_attributes_are_declared_and_default_to_none():
    hints = typing.get_type_hints(q7emu.KernelFaultError)
    assert typing.get_type_hints(q7emu.RunawayError) == hints, "a runaway core's facts are a fault's"
    assert hints == {
        "core": Optional[int],
        "pc": Optional[int],
        "cause": Optional[str],
        "address": Optional[int],
        "disassembly": Optional[str],
        "function": Optional[str],
        "backtrace": list[str],
        "cycles": Optional[int],
    }
    # The runtime stopped the kernel, no core faulted: no fact to give.
    e = q7emu.KernelFaultError("the runtime stopped the kernel")
    assert str(e) == "the runtime stopped the kernel"
    assert [getattr(e, name) for name in hints] == [None] * 6 + [[], None]
    fault = q7emu.KernelFaultError("core 3 faulted", core=3, pc=0x40000A3C, backtrace=("0x40000a3c",), cycles=7)
    assert (fault.core, fault.pc, fault.backtrace, fault.cycles) == (3, 0x40000A3C, ["0x40000a3c"], 7)
    copy = pickle.loads(pickle.dumps(fault))
    assert type(copy) is q7emu.KernelFaultError
    assert (str(copy), copy.core, copy.backtrace) == (str(fault), 3, ["0x40000a3c"])
    assert typing.get_type_hints(q7emu.CheckFailedError) == {"findings": Optional[dict[str, typing.Any]]}


def test_the_extension_raises_the_classes_it_imported_once_not_a_name_looked_up(monkeypatch):
    # A dtype q7emu does not marshal: BadInputError, raised by the extension (python/src/args.rs).
    with pytest.raises(q7emu.BadInputError, match="complex128") as first:
        _q7emu.Library.check_tensor("t", "complex128", [1])
    assert type(first.value) is q7emu.BadInputError

    class Impostor(Exception):
        pass

    # The module's attribute replaced: the extension still raises the class it imported.
    monkeypatch.setattr(q7emu.errors, "BadInputError", Impostor)
    with pytest.raises(q7emu.BadInput) as again:
        _q7emu.Library.check_tensor("t", "complex128", [1])
    assert type(again.value) is first.type
