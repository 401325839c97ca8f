"""``python -m q7emu`` and the ``q7emu`` command the package installs: the q7emu command line."""

import sys

from ._q7emu import main as _main


def main() -> int:
    """Runs the q7emu command line with this process's arguments and exits with its code."""
    sys.stdout.flush()
    # The command's name in its usage lines is q7emu however it was started.
    code = _main(["q7emu"] + sys.argv[1:])
    sys.exit(code)


if __name__ == "__main__":
    main()
