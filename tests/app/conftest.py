"""GUI tests run offscreen; settings go to a temporary folder; no dialog ever blocks."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

from tests.shared_data import SHARED  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox  # noqa: E402

ADULT = SHARED / "data" / "adult"
QIS = ("age", "education", "marital-status", "native-country", "occupation", "race",
       "salary-class", "sex", "workclass")


@pytest.fixture(scope="session")
def qapp_args():
    return ["anonymist-tests"]


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, qapp):
    folder = tmp_path_factory.mktemp("settings")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    qapp.setOrganizationName("AnonymistTests")
    qapp.setApplicationName("AnonymistTests")
    QSettings().clear()
    yield


class Messages(list):
    """Every message box shown: (title, text). Answers with ``answer``."""

    answer = QMessageBox.StandardButton.Discard


@pytest.fixture(autouse=True)
def messages(monkeypatch):
    shown = Messages()

    def fake_exec(box):
        shown.append((box.windowTitle(), box.text()))
        if box.standardButtons() & shown.answer:
            return shown.answer
        return QMessageBox.StandardButton.Ok

    def refuse(*args, **kwargs):
        raise AssertionError("a blocking dialog was opened in a test")

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    monkeypatch.setattr(QMessageBox, "about", lambda *a: shown.append(("about", a[2])))
    monkeypatch.setattr(QDialog, "exec", refuse)
    for name in ("getOpenFileName", "getSaveFileName", "getExistingDirectory"):
        monkeypatch.setattr(QFileDialog, name, refuse)
    return shown


@pytest.fixture
def window(qtbot):
    from app.main_window import MainWindow
    from app.settings import AppSettings

    w = MainWindow(AppSettings())
    qtbot.addWidget(w)
    yield w
    w.search.wait_all(10_000)
    w.files.tasks.wait_all(10_000)


@pytest.fixture
def adult_dir() -> Path:
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    return ADULT


def open_sample(qtbot, window) -> None:
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.open_sample()


@pytest.fixture
def themed(qapp):
    """The app's look (``app.theme.apply_theme``: style, palette, stylesheet) as
    ``python -m app`` sets it, for tests of what fits on screen; restored afterwards."""
    from app.theme import apply_theme
    saved = saved_look(qapp)
    apply_theme(qapp)
    yield
    restore_look(qapp, saved)


def saved_look(qapp) -> tuple:
    """The application's palette, stylesheet and style name, for ``restore_look``."""
    return qapp.palette(), qapp.styleSheet(), qapp.style().name()


def restore_look(qapp, saved: tuple) -> None:
    """Put back what ``saved_look`` saved (and the system's colour scheme)."""
    hints = qapp.styleHints()
    if hasattr(hints, "unsetColorScheme"):
        hints.unsetColorScheme()
    qapp.setStyleSheet(saved[1])
    if qapp.style().name() != saved[2]:
        qapp.setStyle(saved[2])
    qapp.setPalette(saved[0])
