"""With nothing loaded, nothing that needs data can be clicked (issue 27 item 7):
Anonymize (menu, toolbar and Configure's button), Save, Save as and Save job are off,
and come on as soon as data is loaded."""
from __future__ import annotations

from tests.app.conftest import open_sample

NEEDS_DATA = ("anonymize", "save", "save_as", "save_job")


def test_data_actions_wait_for_data(qtbot, window, messages):
    for key in NEEDS_DATA:
        assert not window.actions[key].isEnabled(), key
    assert not window.configure.anonymize_button.isEnabled()
    assert "data first" in window.configure.anonymize_button.toolTip()
    for key in ("open", "import_data", "new", "open_sample"):
        assert window.actions[key].isEnabled(), key
    open_sample(qtbot, window)
    for key in NEEDS_DATA:
        assert window.actions[key].isEnabled(), key
    assert window.configure.anonymize_button.isEnabled()
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
        assert not window.actions["anonymize"].isEnabled()  # no second run
    assert window.actions["anonymize"].isEnabled()
    window.new_project()
    for key in NEEDS_DATA:
        assert not window.actions[key].isEnabled(), key
    assert messages == [("Unsaved changes", "Save the changes to the project first?")]
