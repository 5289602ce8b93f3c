"""Take the documentation's screenshots from the real app (offscreen).

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/screenshots.py [--out docs/images]

Opens the main window on the sample project (resources/sample/adult.anonymist), runs
the search, and grabs each perspective, the hierarchy wizard and the guided release's
result page with ``QWidget.grab()``. Settings go to a temporary folder, so the user's
recent files and preferences are untouched. Not part of the test run: run it after a
change to the app's look and commit the PNGs it writes (each about 100-200 KB).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import zipfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the checkout's app, not an installed one
    sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QEventLoop, QSettings, QSize, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget  # noqa: E402

SIZE = QSize(1280, 800)
WAIT_S = 600  # a guard against a hang only


def wait_until(condition, what: str) -> None:
    """Run the event loop until ``condition()`` holds (the app's workers report through
    it); fail after WAIT_S seconds."""
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(lambda: condition() and loop.quit())
    timer.start()
    guard = QTimer()
    guard.setSingleShot(True)
    guard.timeout.connect(loop.quit)
    guard.start(WAIT_S * 1000)
    if not condition():
        loop.exec()
    timer.stop()
    if not condition():
        raise SystemExit(f"screenshots: gave up waiting for {what}")


def wait_signal(signal, start, what: str) -> None:
    fired = []
    signal.connect(lambda *a: fired.append(a))
    start()
    wait_until(lambda: bool(fired), what)


def settle(ms: int = 300) -> None:
    """Let pending paints and layouts happen before a grab."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def save(widget: QWidget, path: Path) -> None:
    settle()
    image = widget.grab().toImage()
    if image.width() > SIZE.width():
        image = image.scaledToWidth(SIZE.width(), Qt.TransformationMode.SmoothTransformation)
    if not image.save(str(path), "PNG", 9):
        raise SystemExit(f"screenshots: could not write {path}")
    print(f"{path} ({path.stat().st_size // 1024} KB)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    app = QApplication.instance() or QApplication(["anonymist-screenshots"])
    settings_dir = tempfile.TemporaryDirectory()
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      settings_dir.name)
    app.setOrganizationName("AnonymistScreenshots")
    app.setApplicationName("AnonymistScreenshots")
    # no dialog may block a script: questions are answered with their default
    QMessageBox.exec = lambda box: box.defaultButton() and QMessageBox.StandardButton.Ok

    from app.main_window import MainWindow
    from app.settings import AppSettings
    from app.theme import apply_theme
    apply_theme(app)

    window = MainWindow(AppSettings())
    window.resize(SIZE)
    window.show()
    wait_signal(window.files.loaded, window.files.open_sample, "the sample project")
    window.configure.attributes.select(["age"])
    save(window, args.out / "configure.png")

    wait_signal(window.search.finished, window.actions["anonymize"].trigger, "the search")
    for index, key in ((1, "explore"), (2, "utility"), (3, "risk")):
        window.show_perspective(index)
        settle(1500)  # the analyses are computed in workers and drawn as they arrive
        save(window, args.out / f"{key}.png")
    window.show_perspective(0)

    hierarchy_wizard(window, args.out / "hierarchy-wizard.png")
    guided_release(window, args.out / "guide-result.png")
    window.close()
    return 0


def hierarchy_wizard(window, path: Path) -> None:
    from app.wizards.hierarchy import HierarchyWizard
    doc = window.document
    a = doc.attributes["age"]
    wizard = HierarchyWizard(doc.hierarchy_columns(["age"]), (a.data_type, a.format), None,
                             None, window)
    wizard.resize(QSize(1000, 700))
    wizard.show()
    wizard.start_page.choices["intervals"].setChecked(True)
    wizard.next()
    save(wizard, path)
    wizard.close()


def guided_release(window, path: Path) -> None:
    """The guide on the sample's own data, every proposal accepted, at its result page."""
    from app.wizards.guided.common import RESULT_PAGE
    folder = Path(tempfile.mkdtemp(prefix="anonymist-screenshots-"))
    sample = ROOT / "resources" / "sample" / "adult.anonymist"
    with zipfile.ZipFile(sample) as z:
        (folder / "adult.csv").write_bytes(z.read("data.csv"))
    wiz = window.guided_release(str(folder / "adult.csv"))
    wiz.resize(QSize(1000, 720))
    while wiz.currentId() != RESULT_PAGE:
        page = wiz.currentPage()
        if hasattr(page, "accept_all"):
            wait_until(lambda p=page: p.table.rowCount() > 0, "the attributes page")
            page.accept_all.click()
        wait_until(lambda p=page: p.isComplete(), f"page {wiz.currentId()}")
        wiz.next()
    result = wiz.currentPage()
    wait_until(lambda: result._data is not None, "the guide's result")
    save(wiz, path)
    wiz.close()


if __name__ == "__main__":
    sys.exit(main())
