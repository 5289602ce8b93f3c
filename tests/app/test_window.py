"""Perspectives, shortcuts, menus, remembered state, command line."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from app.__main__ import parse_args
from app.main_window import MainWindow
from app.perspectives import PERSPECTIVES
from app.settings import AppSettings
from app.widgets.empty_state import EmptyState
from tests.app.conftest import open_sample


def test_perspectives_switch_with_ctrl_numbers(qtbot, window):
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    for i, spec in enumerate(PERSPECTIVES):
        action = window.actions[f"show_{spec.key}"]
        assert action.shortcut() == QKeySequence(f"Ctrl+{i + 1}")
    for i in (1, 2, 3, 0):
        qtbot.keyClick(window, Qt.Key(Qt.Key.Key_1 + i), Qt.KeyboardModifier.ControlModifier)
        if window.stack.currentIndex() != i:  # some offscreen setups drop shortcuts
            window.actions[f"show_{PERSPECTIVES[i].key}"].trigger()
        assert window.stack.currentIndex() == i
        assert window.actions[f"show_{PERSPECTIVES[i].key}"].isChecked()
    for key in ("explore", "utility", "risk"):
        widget = window.perspectives[key]
        if isinstance(widget, EmptyState):
            assert widget.title.text() and widget.buttons


def test_menus_hold_every_command(window):
    texts = {a.text().replace("&", "") for m in window.menuBar().findChildren(type(
        window.menus["file"])) for a in m.actions()}
    for needed in ("New project", "Open…", "Open recent", "Save", "Save as…", "Import data…",
                   "Export data…", "Import hierarchy…", "Export hierarchy…", "Quit",
                   "Anonymize", "Settings…", "About Anonymist", "Open sample project"):
        assert needed in texts, needed


def test_empty_state_offers_sample_and_recent_and_geometry(qtbot, window):
    assert window.configure.stack.currentIndex() == 0
    labels = [b.text() for b in window.configure.empty.buttons]
    assert "Open sample project" in labels
    open_sample(qtbot, window)
    assert window.configure.stack.currentIndex() == 1
    assert window.document.path is None  # the sample is never overwritten
    window.resize(611, 477)
    window.document.set_modified(False)
    window.close()
    again = MainWindow(AppSettings())
    qtbot.addWidget(again)
    assert again.size().width() == 611
    assert not AppSettings().first_start


def test_anonymize_from_command_line_path(qtbot, window, adult_dir):
    args = parse_args(["resources/sample/adult.anonymist", "--anonymize"])
    assert args.anonymize and args.path.endswith("adult.anonymist")
    with qtbot.waitSignal(window.search.finished, timeout=60_000):
        window.open_path(args.path, anonymize=args.anonymize)
    assert window.document.result.optimum is not None
    assert window.settings.recent_files()


def test_data_file_path_opens_prefilled_wizard(qtbot, window, adult_dir, monkeypatch):
    seen = {}

    def fake_import(path=None, then=None):
        seen["wizard"] = window.files.make_import_wizard(path)

    monkeypatch.setattr(window.files, "import_dialog", fake_import)
    window.open_path(adult_dir / "adult.csv")
    wizard = seen["wizard"]
    qtbot.addWidget(wizard)
    assert wizard.source_page.location.text().endswith("adult.csv")
    assert wizard.source_page.kind == "csv"


def test_create_hierarchy_hook_opens_the_wizard(qtbot, window, monkeypatch):
    import pytest
    wizards = pytest.importorskip("app.wizards.hierarchy")
    from engine.hierarchy.model import Hierarchy
    open_sample(qtbot, window)
    window.configure.attributes.select(["sex"])
    calls = []

    def fake(parent, columns, data_type=None, existing=None, spec=None):
        calls.append(list(columns))
        return {"sex": (Hierarchy.from_rows([["Male", "M", "*"], ["Female", "F", "*"]],
                                            "sex"), None)}

    monkeypatch.setattr(wizards, "run_hierarchy_wizard", fake)
    window.actions["create_hierarchy"].trigger()
    assert calls == [["sex"]]
    assert window.document.hierarchy_status("sex").height == 2
    assert window.configure.hierarchy.model.levels == 3


def test_analyze_perspectives_are_built_when_first_shown_and_show_the_result(qtbot, window):
    """Analyze utility and Analyze risk are not built with the window (most of its
    start-up); built after a run, they show that run's optimum, as if they had followed
    it."""
    assert set(dict(window.perspectives)) == {"configure", "explore"}
    open_sample(qtbot, window)
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    assert set(dict(window.perspectives)) == {"configure", "explore"}
    optimum = window.document.result.optimum.levels
    expected = " · ".join(f"{q} {v}" for q, v in optimum.items()) + " (optimum)"
    for index, key in ((3, "risk"), (2, "utility")):
        window.show_perspective(index)
        widget = window.perspectives[key]
        assert window.stack.currentWidget() is widget
        assert widget.objectName() == f"perspective_{key}"
        assert window.stack.count() == len(PERSPECTIVES)
    risk, utility = window.perspectives["risk"], window.perspectives["utility"]
    qtbot.waitUntil(lambda: risk.subtitle.text().endswith(expected), timeout=60_000)
    qtbot.waitUntil(lambda: getattr(utility.tables.output_model.view, "levels", None)
                    == tuple(optimum.values()), timeout=60_000)
    # each in its perspective's place: Ctrl+2..4 and the toolbar show the right page
    assert [window.stack.widget(i).objectName() for i in range(1, len(PERSPECTIVES))] == \
        [f"perspective_{s.key}" for s in PERSPECTIVES[1:]]
