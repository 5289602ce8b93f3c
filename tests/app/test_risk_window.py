"""The Analyze-risk perspective in the main window follows the document and Explore."""
from __future__ import annotations

import pytest

from app.perspectives.risk import RiskPerspective
from app.source import DataSource
from engine.backends.handle import MemoryData
from engine.config import QUASI_IDENTIFYING
from tests.app.test_risk import adult_result  # noqa: F401 - module fixture


def test_follows_document_and_applied_transformation(qtbot, window, adult_result):  # noqa: F811
    view = window.perspectives["risk"]
    assert isinstance(view, RiskPerspective)
    assert view.stack.currentIndex() == 0  # nothing to assess yet
    doc = window.document
    doc.set_data(MemoryData(adult_result.problem.table), DataSource())
    assert view.stack.currentIndex() == 0 and "quasi-identifying" in view.empty.text.text()
    with qtbot.waitSignal(view.sides_changed, timeout=60_000):
        doc.update_attributes(["sex", "age"], type=QUASI_IDENTIFYING)
    assert view.sides[0].qis == ("sex", "age") and view.sides[1] is None
    with qtbot.waitSignal(view.sides_changed, timeout=60_000):
        doc.set_result(adult_result)
    assert view.sides[1] is not None
    assert view.summaries[1].highest_risk <= 0.2 < view.summaries[0].highest_risk
    top = tuple(int(v) for v in adult_result.lattice.top)
    with qtbot.waitSignal(view.sides_changed, timeout=60_000):
        doc.apply_transformation(top)
    first = adult_result.problem.qis[0]
    shown = set(view.sides[1].data.column(first).values())
    assert shown <= {"*"} | set(adult_result.problem.hierarchies[0].labels[top[0]])
    assert f"{first} {top[0]}" in view.subtitle.text() and "(applied)" in view.subtitle.text()
    with qtbot.waitSignal(view.sides_changed, timeout=60_000):
        doc.set_result(None)
    view.shutdown()


def test_thresholds_and_population_are_kept_in_the_project(qtbot, window,
                                                          adult_result):  # noqa: F811
    """Thresholds are the perspective's (kept in the project's extras); the population
    is the job's [population], one value that Configure edits too."""
    view = window.perspectives["risk"]
    doc = window.document
    doc.set_result(adult_result)
    doc.set_modified(False)
    view.threshold_bar.highest.setValue(10.0)
    assert doc.extras["risk"]["thresholds"]["highest_risk"] == pytest.approx(0.1)
    assert doc.modified
    assert doc.settings.population is None  # thresholds do not set a population
    view.uniqueness.editor.fraction.setValue(0.2)
    n = adult_result.problem.table.n_rows
    assert doc.settings.population == {"size": round(n / 0.2)}
    configure = window.configure.privacy.population
    assert configure.model().fraction(n) == pytest.approx(0.2)
    configure.region.setCurrentIndex(configure.region.findData("UK"))
    assert doc.settings.population == {"region": "UK"}
    assert view.uniqueness.editor.model().region == "UK"
    doc.extras["risk"] = {"thresholds": {"highest_risk": 0.05, "records_at_risk": 0.01,
                                         "success_rate": 0.02}}
    doc.set_population({"region": "Canada"})
    doc.set_modified(False)
    doc.set_result(adult_result)  # as when a project is opened
    assert view.thresholds.highest_risk == pytest.approx(0.05)
    assert view.threshold_bar.highest.value() == pytest.approx(5.0)
    assert view.uniqueness.editor.model().region == "Canada"
    assert not doc.modified
    assert doc.build_job().population == {"region": "Canada"}
    view.shutdown()
