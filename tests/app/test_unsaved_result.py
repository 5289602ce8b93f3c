"""A result is unsaved work (issue 27 item 3): after a run, closing the window asks to
save the project; closing while a search runs asks before stopping it."""
from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from tests.app.conftest import open_sample

B = QMessageBox.StandardButton


def _anonymize(qtbot, window):
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()


def test_a_finished_run_counts_as_unsaved_work(qtbot, window, messages):
    open_sample(qtbot, window)
    assert not window.document.modified
    _anonymize(qtbot, window)
    assert window.document.modified
    assert " * — " in window.windowTitle()
    messages.answer = B.Cancel
    window.show()
    assert not window.close()  # "Save the changes to the project first?" Cancel: stays
    assert messages[-1][0] == "Unsaved changes"
    assert window.isVisible()
    messages.answer = B.Discard
    assert window.close()


def test_closing_during_a_search_asks_first(qtbot, window, messages):
    open_sample(qtbot, window)
    window.show()
    messages.answer = B.Cancel
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
        assert window.search.running
        assert not window.close()  # the search goes on
        assert messages[-1][0] == "A search is running"
    assert window.document.result is not None and window.document.modified
    # a second run, closed with "Close": the search is stopped and the window closes
    messages.answer = B.Close
    window.actions["anonymize"].trigger()
    assert window.search.running
    assert not window.close()  # stopped; then the unsaved result is asked about
    assert [t for t, _ in messages][-2:] == ["A search is running", "Unsaved changes"]
    assert not window.search.running
    messages.answer = B.Discard
    assert window.close()
