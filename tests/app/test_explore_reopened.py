"""A reopened project's Explore is as it was left (issue 27 item 7): the search's
progress curve drawn again, and the applied transformation selected, not the optimum."""
from __future__ import annotations

import numpy as np

from tests.app.conftest import open_sample
from tests.app.test_project_result import new_window


def test_reopened_project_shows_its_curve_and_applied_transformation(qtbot, window, tmp_path,
                                                                      messages):
    open_sample(qtbot, window)
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    doc = window.document
    explore = window.perspectives["explore"]
    curve = explore.quality.state()
    assert curve["times"] and len(curve["times"]) == len(curve["losses"])
    # apply another anonymous transformation than the optimum
    result = doc.result
    optimum = tuple(result.optimum.levels[q] for q in result.problem.qis)
    lat = result.lattice
    other = next(tuple(int(x) for x in s) for s in lat.successors(optimum)
                 if result.evaluate(list(s)).anonymous)
    doc.apply_transformation(other)
    assert doc.applied_levels == other
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(tmp_path / "p.anonymist")

    again = new_window(qtbot)
    with qtbot.waitSignal(again.files.loaded, timeout=60_000):
        again.files.open_path(tmp_path / "p.anonymist")
    qtbot.waitUntil(lambda: again.document.result is not None, timeout=60_000)
    view = again.perspectives["explore"]
    assert view.quality.state()["times"] == curve["times"]
    assert view.quality.state()["losses"] == curve["losses"]
    x, y = view.quality.curve.getData()
    assert x is not None and len(x) > 0 and np.isfinite(y).all()
    assert view.current_row >= 0
    assert view.nodes.levels_of(view.current_row) == other


def test_a_damaged_progress_curve_refuses_the_project():
    import pytest

    from app.project_file import ProjectError, check_extras
    check_extras({"explore.progress": {"times": [0.1, 0.5], "losses": [0.4, [1.0, 2.0]]}}, "p")
    for bad in ({"times": [0.1], "losses": []}, {"times": ["x"], "losses": [0.2]},
                {"times": [0.1], "losses": [None]}, [1, 2],
                {"times": [0.1], "losses": [0.2], "checked": "many"}):
        with pytest.raises(ProjectError, match="explore.progress"):
            check_extras({"explore.progress": bad}, "p")
