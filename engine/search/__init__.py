"""Search algorithms over the generalization lattice, and the dispatcher ``run_search``."""
from __future__ import annotations

from engine.errors import JobError
from engine.privacy.differential_privacy import dp_model
from engine.problem import Problem
from engine.search.exhaustive import exhaustive_search
from engine.search.optimal import optimal_search
from engine.search.outcome import SearchOutcome
from engine.search.safepub import safepub_search
from engine.progress import CancelCheck, Progress, ProgressCallback

EXACT = {"optimal": optimal_search, "exhaustive": exhaustive_search}
#: the heuristic the optimal search hands over to above ``heuristic_threshold``: on the
#: high-dimensional benchmarks (tests/benchmarks/README_heuristics.md) the genetic
#: search, started from the top-down search, is below Lightning at every limit (credit
#: card, 24 QIs, 100 % suppression: 0.60 against 0.96 after 2 s; at 0 % Lightning
#: found no anonymous transformation in 600 checks, the genetic search 0.80)
HANDOVER = "genetic"


def heuristic_algorithms() -> dict:
    """Heuristic searches by job-file name (they live in their own modules)."""
    from engine.search.heuristics import HEURISTICS
    return HEURISTICS


def run_search(problem: Problem, progress: ProgressCallback | None = None,
               cancel: CancelCheck | None = None) -> SearchOutcome:
    """Run the job's algorithm; the optimal search hands over to a heuristic
    (``HANDOVER``) when the lattice is larger than the job's ``heuristic_threshold``."""
    if dp_model(problem) is not None:  # SafePub brings its own (private) search
        return safepub_search(problem, progress, cancel)
    tr = problem.job.transformation
    name = tr.algorithm
    found = heuristic_algorithms()
    if name == "optimal" and problem.lattice.size > tr.heuristic_threshold and HANDOVER in found:
        name = HANDOVER
    if name in EXACT:
        return EXACT[name](problem, progress, cancel)
    if name in found:
        return found[name](problem, progress, cancel)
    known = ", ".join(list(EXACT) + list(found))
    raise JobError(f"[transformation] algorithm = '{name}' is not available (one of {known})")


__all__ = ["run_search", "SearchOutcome", "Progress", "ProgressCallback", "CancelCheck",
           "optimal_search", "exhaustive_search"]
