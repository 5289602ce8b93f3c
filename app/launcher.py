"""The ``anonymist`` command: engine subcommands run without Qt; anything else opens the GUI.

It lives in ``app`` because ``engine`` never imports the GUI; the engine's own
command line (``python -m engine.cli``) has the subcommands alone.
"""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from engine.cli import SUBCOMMANDS
    if argv and argv[0] in SUBCOMMANDS:
        from engine.cli import main as cli_main
        return cli_main(argv)
    from app.__main__ import main as gui_main
    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main())
