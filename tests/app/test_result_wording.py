""""Optimum" is said only of a proven optimum: after a heuristic search the result card
and the status bar say "best found ... not proven optimal", as the result file's
``proven_optimal`` does (issue 27 item 4)."""
from __future__ import annotations

import json

from app.perspectives.configure.result_summary import headline, summary_text
from tests.app.conftest import open_sample


def _run(qtbot, window, algorithm: str):
    s = window.configure.search
    s.algorithm.setCurrentIndex(s.algorithm.findData(algorithm))
    s.algorithm.activated.emit(s.algorithm.currentIndex())
    if algorithm != "optimal":
        s.step_limit.setValue(1500)
    with qtbot.waitSignal(window.search.finished, timeout=120_000):
        window.actions["anonymize"].trigger()
    return window.document.result


def test_a_heuristic_result_is_not_called_an_optimum(qtbot, window, messages):
    open_sample(qtbot, window)
    result = _run(qtbot, window, "lightning")
    assert result.optimum is not None and not result.proven_optimal
    summary = json.loads(json.dumps(result.to_dict()))  # as the result file says it
    assert summary["proven_optimal"] is False
    card = window.configure.result.headline.text()
    assert "Optimum" not in card and "not proven optimal" in card
    status = window.statusBar().currentMessage()
    assert not status.startswith("Optimum") and "not proven optimal" in status


def test_the_optimal_search_finds_an_optimum(qtbot, window, messages):
    open_sample(qtbot, window)
    result = _run(qtbot, window, "optimal")
    assert result.proven_optimal and result.to_dict()["proven_optimal"] is True
    assert window.configure.result.headline.text() == "Optimum found"


def test_headlines_for_every_ending():
    assert headline(True, False, "optimal") == "Optimum found"
    assert "cancelling" in headline(False, True, "optimal")
    assert "genetic" in headline(False, False, "genetic")
    assert "SafePub" in headline(False, False, "safepub")
    # a summary saved before proven_optimal existed is judged by its algorithm
    old = {"optimum": {"levels": {"age": 1}, "information_loss": 0.1,
                       "information_loss_percent": 10.0, "suppressed_records": 0},
           "algorithm": "top-down", "cancelled": False}
    assert "not proven optimal" in summary_text(old)[0]
    old["algorithm"] = "optimal"
    assert summary_text(old)[0] == "Optimum found"
