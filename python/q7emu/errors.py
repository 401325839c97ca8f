"""The exceptions q7emu raises, each carrying q7emu's own message (docs/python.md "Errors")."""


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


class CheckFailed(Q7Error):
    """Checked mode (``check=True`` with ``strict=True``) found an error-class bug: the message
    is the findings as ``q7emu run --check`` prints them."""


class BadInput(Q7Error, ValueError):
    """The call itself is wrong: an unknown op, a wrong count, dtype or rank of tensors, a
    scalar its argument's type does not take, an array q7emu cannot marshal."""
