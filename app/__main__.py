"""``python -m app [PATH] [--anonymize]`` and the ``anonymist-gui`` entry point."""
from __future__ import annotations

import argparse
import logging
import sys


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="anonymist-gui", description="Anonymist desktop app")
    p.add_argument("path", nargs="?", help="a project (.anonymist), a job file (.toml) or a "
                   "data file (opens the import wizard)")
    p.add_argument("--anonymize", action="store_true",
                   help="start the anonymization as soon as PATH is loaded")
    p.add_argument("--quit-after", type=float, default=None, metavar="SECONDS",
                   help="quit after this many seconds (smoke checks of built bundles)")
    return p.parse_args(argv)


def create_application(argv: list[str] | None = None):
    """The QApplication with Anonymist's name, style and stylesheet."""
    from PySide6.QtWidgets import QApplication

    from app import APP_NAME, ORGANIZATION
    from app.theme import stylesheet

    qapp = QApplication.instance() or QApplication(argv or [sys.argv[0]])
    qapp.setOrganizationName(ORGANIZATION)
    qapp.setApplicationName(APP_NAME)
    qapp.setApplicationDisplayName(APP_NAME)
    qapp.setStyle("Fusion")
    qapp.setStyleSheet(stylesheet())
    return qapp


def main(argv: list[str] | None = None) -> int:
    """Start the GUI; ``argv`` without the program name (default: ``sys.argv[1:]``)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    qapp = create_application()
    from PySide6.QtCore import QTimer

    from app.main_window import MainWindow

    window = MainWindow()
    window.show()
    if args.path:
        QTimer.singleShot(0, lambda: window.open_path(args.path, anonymize=args.anonymize))
    if args.quit_after is not None:
        QTimer.singleShot(int(args.quit_after * 1000), window.close)
    return qapp.exec()


if __name__ == "__main__":
    sys.exit(main())
