"""Opening a project or importing data shows that it works (a busy bar in the status bar)
and can be cancelled: the document stays as it was and the late result is dropped."""
from __future__ import annotations

import threading

from app import file_operations
from tests.app.conftest import open_sample

GUARD = 60  # seconds: a hang guard only; the test releases the reader itself


def held_reader(monkeypatch, name: str):
    """Replace ``file_operations.<name>`` by the real one held until the event is set."""
    real = getattr(file_operations, name)
    entered, release = threading.Event(), threading.Event()

    def held(*args, **kwargs):
        entered.set()
        release.wait(GUARD)
        return real(*args, **kwargs)

    monkeypatch.setattr(file_operations, name, held)
    return entered, release


def test_opening_a_project_shows_progress_and_cancel_leaves_the_document(
        qtbot, window, monkeypatch, qapp):
    entered, release = held_reader(monkeypatch, "read_project")
    progress = window.io_progress
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    assert not progress.bar.isVisibleTo(window)
    window.files.open_sample()
    assert entered.wait(GUARD)
    assert progress.bar.isVisibleTo(window) and progress.cancel.isVisibleTo(window)
    assert progress.label.text() == "Opening project…"
    # said once (not also on the left), and Cancel is a button, not a 200-pixel bar
    assert window.statusBar().currentMessage() == ""
    qtbot.waitUntil(lambda: progress.cancel.width() > 0, timeout=60_000)
    assert progress.cancel.width() <= progress.cancel.sizeHint().width()
    assert not window.actions["open"].isEnabled()  # no second open meanwhile
    loaded = []
    window.files.loaded.connect(loaded.append)
    progress.cancel.click()
    assert not progress.bar.isVisibleTo(window)
    assert "cancelled" in window.statusBar().currentMessage()
    assert window.actions["open"].isEnabled()
    release.set()
    assert window.files.tasks.wait_all(GUARD * 1000)
    qapp.processEvents()
    assert not window.document.has_data and loaded == []
    # the next open works as ever, and its progress ends with it
    monkeypatch.undo()
    open_sample(qtbot, window)
    assert window.document.has_data
    assert not progress.bar.isVisibleTo(window)


def test_saving_shows_progress_without_cancel(qtbot, window, monkeypatch, tmp_path):
    open_sample(qtbot, window)
    entered, release = held_reader(monkeypatch, "write_project")
    window.files.save_to(tmp_path / "p.anonymist")
    assert entered.wait(GUARD)
    progress = window.io_progress
    assert progress.bar.isVisibleTo(window)
    assert not progress.cancel.isVisibleTo(window)  # a write is never abandoned half-way
    window.files.abandon()  # nothing to abandon
    with qtbot.waitSignal(window.files.saved, timeout=GUARD * 1000):
        release.set()
    assert not progress.bar.isVisibleTo(window)
    assert (tmp_path / "p.anonymist").stat().st_size > 0


def test_search_progress_names_its_loss_raw():
    """During the search the loss is a raw score, not the percent shown after it."""
    from app.widgets.progress_status import progress_text
    from engine.progress import Progress
    text = progress_text(Progress(776, 12_960, 1.25, (0, 1), 0.2661, "search"))
    assert text == "Searching · 776 checked · 1.2 s · best loss (raw) 0.2661"


def test_idle_progress_leaves_the_status_bar_its_room(qtbot, window):
    """After a run, the status bar's message ("Optimum found: …") is shown whole: the
    idle progress widgets take no room."""
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    open_sample(qtbot, window)
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.anonymize()
    bar = window.statusBar()
    message = bar.currentMessage()
    assert message.startswith("Optimum found")
    assert not window.progress.isVisible() and not window.io_progress.isVisible()
    qtbot.waitUntil(lambda: window.data_label.width() > 0, timeout=60_000)
    room = window.data_label.geometry().left()
    assert bar.fontMetrics().horizontalAdvance(message) + 12 <= room, (message, room)
