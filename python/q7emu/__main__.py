"""``python -m q7emu`` and the ``q7emu`` command the package installs: the q7emu command line."""

import sys

from . import _sdk
from ._q7emu import main as _main


def main() -> int:
    """Runs the q7emu command line with this process's arguments and exits with its code."""
    sys.stdout.flush()
    try:  # `q7emu build` compiles against the SDK the package carries
        _sdk.ensure()
    except OSError as e:
        print(
            f"q7emu: warning: cannot write out the SDK the package carries ({e}); "
            "builds use the one q7emu was built from",
            file=sys.stderr,
        )
    # The command's name in its usage lines is q7emu however it was started.
    code = _main(["q7emu"] + sys.argv[1:])
    sys.exit(code)


if __name__ == "__main__":
    main()
