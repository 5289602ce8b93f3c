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
    p.add_argument("--guide", action="store_true",
                   help="open the guided release wizard (on PATH, a data file, if given)")
    p.add_argument("--quit-after", type=float, default=None, metavar="SECONDS",
                   help="quit after this many seconds (smoke checks of built bundles)")
    p.add_argument("--smoke-check", action="store_true",
                   help="print the run's outcome and quit (for checks of built bundles); "
                        "messages go to stderr instead of dialogs")
    return p.parse_args(argv)


def create_application(argv: list[str] | None = None):
    """The QApplication with Anonymist's name, style and stylesheet."""
    from PySide6.QtWidgets import QApplication

    from app import APP_NAME, ORGANIZATION
    from app.theme import apply_theme

    qapp = QApplication.instance() or QApplication(argv or [sys.argv[0]])
    qapp.setOrganizationName(ORGANIZATION)
    qapp.setApplicationName(APP_NAME)
    qapp.setApplicationDisplayName(APP_NAME)
    apply_theme(qapp)
    return qapp


def main(argv: list[str] | None = None) -> int:
    """Start the GUI; ``argv`` without the program name (default: ``sys.argv[1:]``)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from app.platform_check import EXIT_NO_DISPLAY, problem
    cannot_open = problem()
    if cannot_open:  # Qt would abort (exit 134) with a misleading message
        print(f"anonymist: {cannot_open}", file=sys.stderr)
        return EXIT_NO_DISPLAY
    qapp = create_application()
    from PySide6.QtCore import QTimer

    from app.main_window import MainWindow

    window = MainWindow()
    if args.smoke_check:
        _smoke_check(window, qapp)
    window.show()
    from engine.warmup import is_warm
    if not args.smoke_check:
        window.warm_up(compile=not is_warm())
    qapp.aboutToQuit.connect(window.shutdowns.run)
    # temporary copies a killed earlier run left behind (its own go at exit)
    from engine.backends.temp_folders import sweep_stale_folders
    QTimer.singleShot(0, sweep_stale_folders)
    if args.guide:
        QTimer.singleShot(0, lambda: window.guided_release(args.path))
    elif args.path:
        QTimer.singleShot(0, lambda: window.open_path(args.path, anonymize=args.anonymize))
    if args.quit_after is not None:
        QTimer.singleShot(int(args.quit_after * 1000), window.close)
    return qapp.exec()


def _smoke_check(window, qapp) -> None:
    """Report the outcome of ``PATH --anonymize`` on stdout and quit with its status."""
    from app.widgets import dialogs

    dialogs.NON_INTERACTIVE = True

    def finished(outcome) -> None:
        opt = outcome.value.optimum
        print(f"smoke check: optimum {opt.levels if opt else None}, "
              f"{outcome.value.transformations_checked} checked", flush=True)
        window.document.set_modified(False)
        qapp.exit(0)

    def failed(label: str, message: str) -> None:
        print(f"smoke check failed: {label}: {message}", file=sys.stderr, flush=True)
        window.document.set_modified(False)
        qapp.exit(1)

    window.search.finished.connect(finished)
    window.search.failed.connect(failed)
    window.files.tasks.failed.connect(failed)


if __name__ == "__main__":
    sys.exit(main())
