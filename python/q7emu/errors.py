"""The exceptions q7emu raises, each carrying q7emu's own message (docs/python.md "Errors").

Every exception's name ends in ``Error`` and every warning's in ``Warning``; the names of
earlier versions (``KernelFault``, ``Runaway``, ``CheckFailed``, ``BadInput``,
``SdkRewritten``) are aliases of the same classes. The extension module raises these classes
themselves (python/src/errors.rs), so ``except q7emu.KernelFaultError`` catches every kernel
fault, whichever name a caller uses.
"""

from collections.abc import Sequence
from typing import Any, Optional

__all__ = [
    "Q7Error",
    "BuildError",
    "KernelFaultError",
    "RunawayError",
    "ShapeFunctionError",
    "CheckFailedError",
    "BadInputError",
    "CheckWarning",
    "SdkRewrittenWarning",
    "KernelFault",
    "Runaway",
    "CheckFailed",
    "BadInput",
    "SdkRewritten",
]


class Q7Error(Exception):
    """Base of every q7emu error."""


class BuildError(Q7Error):
    """A library could not be built: the message holds the failing step and the compiler's output."""


class _CoreStopError(Q7Error):
    """A core stopped where it should not have: the facts of where and why are attributes,
    None (``backtrace`` empty) when no core's report gives them. The base of
    ``KernelFaultError`` and ``RunawayError``; not raised itself."""

    #: The index of the core that stopped (0 to 7).
    core: Optional[int]
    #: The program counter where it stopped.
    pc: Optional[int]
    #: Why, as the report says it: the cause and what it means
    #: (``LoadStoreErrorCause (3): load of unmapped address 0x00040000``).
    cause: Optional[str]
    #: The address the faulting access reached, or None when the stop has none.
    address: Optional[int]
    #: The instruction at ``pc``, disassembled.
    disassembly: Optional[str]
    #: ``pc`` as ``name+0xoff (file:line)``, or None when the build has no symbols.
    function: Optional[str]
    #: The frames of the backtrace, innermost first (``pc``'s first), each the pc and, where
    #: the symbols place it, its function: ``0x40000a3c in name+0xoff (file:line)``.
    backtrace: list[str]
    #: The cycles the core had run.
    cycles: Optional[int]

    def __init__(
        self,
        message: str,
        *,
        core: Optional[int] = None,
        pc: Optional[int] = None,
        cause: Optional[str] = None,
        address: Optional[int] = None,
        disassembly: Optional[str] = None,
        function: Optional[str] = None,
        backtrace: Sequence[str] = (),
        cycles: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.core = core
        self.pc = pc
        self.cause = cause
        self.address = address
        self.disassembly = disassembly
        self.function = function
        self.backtrace = list(backtrace)
        self.cycles = cycles


class KernelFaultError(_CoreStopError):
    """A core faulted or the runtime stopped the kernel: the message names the core, the pc as
    function+offset with its source line, the disassembly and the backtrace, and what the
    failing core printed. For a core's fault the facts are attributes too: ``core``, ``pc``,
    ``cause``, ``address`` (or None), ``disassembly``, ``function``, ``backtrace`` and
    ``cycles``; when the runtime, not a fault, stopped the kernel they are None (``backtrace``
    empty)."""


class RunawayError(_CoreStopError):
    """A core spent its cycle budget (``max_cycles``) without finishing: the message is the
    core's report, and the attributes of ``KernelFaultError`` say where it was stopped
    (``cause`` the budget spent)."""


class ShapeFunctionError(Q7Error):
    """The op's shape function could not say what the output is: it crashed, exited with a
    failure, did not answer in time, or answered something else than a dtype and a shape.
    Raised by a call, and by the fake (meta) kernel of a ``torch.ops`` op, before any core
    runs; the message names the shape executable, the op and its shape function, and what it
    printed on stderr."""


class CheckFailedError(Q7Error):
    """Checked mode (``check=True`` with ``strict=True``) found an error-class bug: the message
    is the findings as ``q7emu run --check`` prints them (``error[write-race]: ...``), and
    ``findings`` is the ``check`` object of the JSON report (``Run.findings``)."""

    #: The findings as a dict: ``errors``, ``warnings`` and each of the ``findings``.
    findings: Optional[dict[str, Any]]

    def __init__(self, message: str, findings: Optional[dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.findings = findings


class BadInputError(Q7Error, ValueError):
    """The call itself is wrong: an unknown op, a wrong count, dtype or rank of tensors, a
    scalar its argument's type does not take, an array q7emu cannot marshal."""


class CheckWarning(UserWarning):
    """Checked mode found something in a call that does not raise (``check=True`` without
    ``strict``, or only warning-class findings): the message is the findings as ``q7emu run
    --check`` prints them on stderr; ``Run.findings`` holds them as a dict."""


class SdkRewrittenWarning(UserWarning):
    """The SDK the package wrote out was not the one it carries (a file deleted, truncated,
    changed, replaced or added): the message says what differed; it was written again before
    the build."""


# The names of earlier versions, kept: each is the class above, not a subclass.
KernelFault = KernelFaultError
Runaway = RunawayError
CheckFailed = CheckFailedError
BadInput = BadInputError
SdkRewritten = SdkRewrittenWarning
