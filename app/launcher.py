"""The ``anonymist`` command: the engine's subcommands, or the desktop app.

- ``anonymist anonymize | verify | evaluate ...`` and ``anonymist --help`` run
  ``engine.cli`` without importing Qt;
- ``anonymist``, ``anonymist gui [PATH] [options]`` and ``anonymist PATH`` (an
  existing project, job or data file) open the desktop app;
- any other first word is an error (exit 2) with the closest command.

It lives in ``app`` because ``engine`` never imports the GUI; the engine's own
command line (``python -m engine.cli``) has the subcommands alone.
"""
from __future__ import annotations

import os
import sys


def _gui(argv: list[str]) -> int:
    from app.__main__ import main as gui_main
    return gui_main(argv)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        return _gui([])
    first = argv[0]
    if first == "gui":
        return _gui(argv[1:])
    from engine.cli import SUBCOMMANDS
    from engine.cli import main as cli_main
    if not first.startswith("-") and first not in SUBCOMMANDS and os.path.exists(first):
        return _gui(argv)
    return cli_main(argv)


def run() -> None:
    """The installed ``anonymist`` command: `main`, then a command line's subcommand
    ends its process at once (``engine.cli.exit_process``: no interpreter teardown);
    the desktop app exits as usual."""
    argv = sys.argv[1:]
    code = main(argv)
    if "engine.cli" in sys.modules and not _opens_gui(argv):
        from engine.cli import exit_process
        exit_process(code)
    sys.exit(code)


def _opens_gui(argv: list[str]) -> bool:
    return (not argv or argv[0] == "gui" or "app.__main__" in sys.modules)


if __name__ == "__main__":
    run()
