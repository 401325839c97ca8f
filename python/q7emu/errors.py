"""The exceptions q7emu raises, each carrying q7emu's own message (docs/python.md "Errors")."""

from typing import Any, Dict, Optional


class Q7Error(Exception):
    """Base of every q7emu error."""


class BuildError(Q7Error):
    """A library could not be built: the message holds the failing step and the compiler's output."""


class KernelFault(Q7Error):
    """A core faulted or the runtime stopped the kernel: the message names the core, the pc as
    function+offset with its source line, the disassembly and the backtrace, and what the
    failing core printed. For a core's fault the facts are attributes too: ``core``, ``pc``,
    ``cause``, ``address`` (or None), ``disassembly``, ``function``
    (``name+0xoff (file:line)``), ``backtrace`` (frames, innermost first) and ``cycles``."""


class Runaway(Q7Error):
    """A core spent its cycle budget (``max_cycles``) without finishing."""


class ShapeFunctionError(Q7Error):
    """The op's shape function could not say what the output is: it crashed, exited with a
    failure, did not answer in time, or answered something else than a dtype and a shape.
    Raised by a call, and by the fake (meta) kernel of a ``torch.ops`` op, before any core
    runs; the message names the shape executable, the op and its shape function, and what it
    printed on stderr."""


class CheckFailed(Q7Error):
    """Checked mode (``check=True`` with ``strict=True``) found an error-class bug: the message
    is the findings as ``q7emu run --check`` prints them (``error[write-race]: ...``), and
    ``findings`` is the ``check`` object of the JSON report (``Run.findings``)."""

    def __init__(self, message: str, findings: "Optional[Dict[str, Any]]" = None) -> None:
        super().__init__(message)
        #: The findings as a dict: ``errors``, ``warnings`` and each of the ``findings``.
        self.findings = findings


class CheckWarning(UserWarning):
    """Checked mode found something in a call that does not raise (``check=True`` without
    ``strict``, or only warning-class findings): the message is the findings as ``q7emu run
    --check`` prints them on stderr; ``Run.findings`` holds them as a dict."""


class BadInput(Q7Error, ValueError):
    """The call itself is wrong: an unknown op, a wrong count, dtype or rank of tensors, a
    scalar its argument's type does not take, an array q7emu cannot marshal."""


class SdkRewritten(UserWarning):
    """The SDK the package wrote out was not the one it carries (a file deleted, truncated,
    changed, replaced or added): the message says what differed; it was written again before
    the build."""
