"""A reopened project (like a search cancelled before its output was built) holds a
result whose released table is not built yet: Analyze utility and Analyze risk build
it in worker threads, never on the GUI thread, and then show what the export writes."""
from __future__ import annotations

import threading

import pytest

import engine.result as result_module
from tests.app.conftest import open_sample
from tests.app.test_project_result import new_window


def test_reopened_result_is_built_off_the_gui_thread(qtbot, window, tmp_path, monkeypatch,
                                                    messages):
    open_sample(qtbot, window)
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(tmp_path / "p.anonymist")
    real = result_module.transform
    built = []

    def recording(problem, levels):
        built.append(threading.current_thread())
        return real(problem, levels)

    monkeypatch.setattr(result_module, "transform", recording)
    again = new_window(qtbot)
    risk, utility = again.perspectives["risk"], again.perspectives["utility"]
    with qtbot.waitSignal(again.files.loaded, timeout=30_000):
        again.files.open_path(tmp_path / "p.anonymist")
    doc = again.document
    assert doc.result is not None and not messages
    qtbot.waitUntil(lambda: risk.sides[1] is not None and utility.comparison is not None
                    and not risk.output_task.running and not utility.output_task.running,
                    timeout=60_000)
    assert built and all(t is not threading.main_thread() for t in built)
    # what the views show, recounted from the released table the export writes
    released = doc.released()
    frame = released.frame
    qis = list(doc.result.problem.qis)
    sizes = frame[~released.suppressed_rows].groupby(qis, observed=True).size()
    assert risk.summaries[1].highest_risk == pytest.approx(1 / sizes.min())
    assert risk.sides[1].sizes.n_classes == len(sizes)
    assert utility.tables.output_model.view.levels == released.levels
    caption = utility.tables.output_side.caption.text()
    assert f"{int(released.suppressed_rows.sum()):,} suppressed" in caption
    again.files.tasks.wait_all(10_000)
    again.search.wait_all(10_000)
