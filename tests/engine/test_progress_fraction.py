"""Progress shows the true share of the work and names its phase (GUI and CLI bars)."""
from __future__ import annotations

import io

import numpy as np

import engine
import engine.progress
from engine.cli import _Bar
from engine.progress import Progress
from engine.search.optimal import optimal_search
from engine.solution_space import UNKNOWN
from tests.engine.search_fixtures import synthetic_problem


_reporter_init = engine.progress.Reporter.__init__


def _every_report(self, callback, total, cancel=None, interval=0.1):
    _reporter_init(self, callback, total, cancel, interval=0.0)


def test_optimal_search_fraction_is_the_lattice_settled_and_ends_at_one(monkeypatch):
    # every report is sent (no 100 ms rate limit), so the test does not depend on speed
    monkeypatch.setattr(engine.progress.Reporter, "__init__", _every_report)
    problem = synthetic_problem(n_qis=6, rows=600, levels=4, k=4, suppression_limit=0.05)
    reports = []
    out = optimal_search(problem, progress=reports.append)
    fractions = [r.fraction for r in reports]
    assert len(fractions) > 2
    assert fractions == sorted(fractions)  # never goes back
    assert fractions[-1] == 1.0
    # it measures the lattice settled, not checks over lattice size (which stays small)
    assert out.checked / problem.lattice.size < 0.5
    assert any(f > r.checked / problem.lattice.size for f, r in zip(fractions, reports))
    # every report's share is at least what the space had classified by then
    classified = np.count_nonzero(out.space.states != UNKNOWN) / problem.lattice.size
    assert fractions[-1] >= classified


def test_anonymize_names_its_phases_in_order(adult_dir):
    reports = []
    result = engine.anonymize(None, adult_dir / "job.toml", progress=reports.append,
                              build_output=True)
    phases = [r.phase for r in reports]
    assert phases[0] == "preparing" and phases[-1] == "output"
    assert "search" in phases
    first = {p: phases.index(p) for p in ("preparing", "search", "output")}
    assert first["preparing"] < first["search"] < first["output"]
    assert reports[-1].fraction == 1.0 and reports[-1].phase_title == "Building the output"
    assert result._released is not None  # the released table was built in the call


def test_cli_bar_shows_percent_and_phase():
    out = io.StringIO()
    bar = _Bar(out, width=10)
    bar(Progress(5, 100, 1.0, None, None, "search", done=0.5))
    bar(Progress(0, 0, 2.0, None, None, "output", done=1.0))
    text = out.getvalue()
    assert "[#####.....]  50% Searching 5 checked" in text
    assert "[##########] 100% Building the output" in text


def test_cancel_while_the_output_is_built_returns_at_once(adult_dir, monkeypatch):
    """Building the released table cannot be interrupted (pandas): a cancel during that
    phase returns the result without waiting for it."""
    import threading

    from engine.result import AnonymizationResult
    release = threading.Event()
    started = threading.Event()
    state = {"cancel": False, "returned_before_release": None}

    def slow_transformed(self, levels=None):
        started.set()
        state["cancel"] = True  # the user presses Cancel while the table is built
        release.wait(30)

    monkeypatch.setattr(AnonymizationResult, "transformed", slow_transformed)
    reports = []
    result = engine.anonymize(None, adult_dir / "job.toml", progress=reports.append,
                              cancel=lambda: state["cancel"], build_output=True)
    state["returned_before_release"] = not release.is_set()
    release.set()
    assert started.is_set() and state["returned_before_release"]
    assert result.optimum is not None and not result.cancelled  # the search had finished
    assert reports[-1].phase == "output" and reports[-1].fraction < 1.0
