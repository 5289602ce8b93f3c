"""Top-down search (Meurers et al. 2021): Lightning's strategy started from the top.

See ``engine.search.best_first`` for the strategy and its pruning.
"""
from __future__ import annotations

from engine.problem import Problem
from engine.search.anytime import AnytimeSearch
from engine.search.best_first import BestFirstSearch
from engine.search.outcome import SearchOutcome
from engine.progress import CancelCheck, ProgressCallback


def top_down_search(problem: Problem, progress: ProgressCallback | None = None,
                    cancel: CancelCheck | None = None) -> SearchOutcome:
    """Best-first/greedy search down from the most generalized transformation.

    Honours ``time_limit_s`` and ``step_limit`` of the job; with neither,
    stops after ``anytime.DEFAULT_TIME_LIMIT_S``.
    """
    search = AnytimeSearch(problem, "top-down", progress, cancel, open_ended=True)
    return search.run(BestFirstSearch(search, upward=False).run)
