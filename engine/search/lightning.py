"""Lightning (Prasser et al. 2016): utility-guided best-first search from the bottom.

See ``engine.search.best_first`` for the strategy and its pruning.
"""
from __future__ import annotations

from engine.problem import Problem
from engine.search.anytime import AnytimeSearch
from engine.search.best_first import BestFirstSearch
from engine.search.outcome import SearchOutcome
from engine.progress import CancelCheck, ProgressCallback


def lightning_search(problem: Problem, progress: ProgressCallback | None = None,
                     cancel: CancelCheck | None = None) -> SearchOutcome:
    """Bottom-up Lightning until the lattice is exhausted or a limit is reached.

    Honours ``time_limit_s`` and ``step_limit`` (transformations checked) of
    the job; with neither, stops after ``anytime.DEFAULT_TIME_LIMIT_S``.
    """
    search = AnytimeSearch(problem, "lightning", progress, cancel, open_ended=True)
    return search.run(BestFirstSearch(search, upward=True).run)
