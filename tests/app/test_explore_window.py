"""Explore inside the main window: a run fills it, its clipboard survives saving and
reopening the project, applying reaches the document."""
from __future__ import annotations

import numpy as np

from app.perspectives.explore import CLIPBOARD_KEY
from tests.app.conftest import open_sample


def test_run_fills_explore_and_the_clipboard_survives_the_project(qtbot, window, tmp_path,
                                                                    messages):
    open_sample(qtbot, window)
    explore = window.perspectives["explore"]
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    result = window.document.result
    assert explore.result is result
    assert explore.lattice.node_count() == result.lattice.size
    assert np.array_equal(explore.lattice.shown_states(), result.space.states)
    assert explore.quality.losses  # the run's progress was plotted
    explore.checker.wait()

    nodes = explore.nodes
    explore.keep_levels(nodes.levels_of(nodes.optimum))
    model = explore.clipboard.model
    model.setData(model.index(0, 3), "the optimum")
    assert window.document.extras[CLIPBOARD_KEY][0]["comment"] == "the optimum"
    assert window.document.modified
    state = explore.clipboard_state()

    path = tmp_path / "explored.anonymist"
    with qtbot.waitSignal(window.files.saved, timeout=30_000):
        window.files.save_to(path)
    window.document.set_modified(False)
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.open_path(path)
    # the project keeps the result and the solution space as explored, and the clipboard
    assert explore.result is not None and explore.result is not result
    assert np.array_equal(explore.lattice.shown_states(), result.space.states)
    assert explore.clipboard_state() == state
    assert not window.document.modified


def test_applying_in_explore_reaches_the_document(qtbot, window, messages):
    open_sample(qtbot, window)
    explore = window.perspectives["explore"]
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    explore.checker.wait()
    nodes = explore.nodes
    levels = nodes.levels_of(int(np.flatnonzero(~nodes.checked)[0]))
    with qtbot.waitSignal(explore.transformation_applied, timeout=60_000) as blocker:
        explore.apply_levels(levels)
    assert blocker.args == [levels]
    doc = window.document
    assert doc.applied_levels == levels
