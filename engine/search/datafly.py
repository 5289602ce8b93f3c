"""DataFly (Sweeney 1997): generalize the attribute with most distinct values until anonymous.

A baseline for comparison tables: it walks up from the bottom one attribute
level at a time and stops at the first anonymous transformation (minimal
anonymization), so with a 100% suppression limit it returns the bottom.
"""
from __future__ import annotations

import numpy as np

from engine.problem import Problem
from engine.search.anytime import AnytimeSearch
from engine.search.outcome import SearchOutcome
from engine.progress import CancelCheck, ProgressCallback


def distinct_values(problem: Problem) -> list[np.ndarray]:
    """Per attribute, per level: how many distinct generalized values the records have."""
    rep = problem.classifier.base.rep
    return [np.array([len(np.unique(h.maps[level][rep[:, j]])) for level in range(h.levels)])
            for j, h in enumerate(problem.hierarchies)]


def datafly_choice(levels: tuple[int, ...], max_levels: tuple[int, ...],
                   distinct: list[np.ndarray], candidates=None) -> int | None:
    """The attribute DataFly generalizes next: most distinct values at its current
    level among those below their maximum (first such attribute on ties)."""
    best, best_j = -1, None
    for j, (v, hi) in enumerate(zip(levels, max_levels)):
        if v >= hi or (candidates is not None and j not in candidates):
            continue
        d = int(distinct[j][v])
        if d > best:
            best, best_j = d, j
    return best_j


def datafly_search(problem: Problem, progress: ProgressCallback | None = None,
                   cancel: CancelCheck | None = None) -> SearchOutcome:
    lattice = problem.lattice
    search = AnytimeSearch(problem, "datafly", progress, cancel,
                           expected_checks=lattice.height + 1)
    distinct = distinct_values(problem)

    def body() -> None:
        levels = lattice.bottom
        while not search.check(levels).anonymous:
            j = datafly_choice(levels, lattice.max_levels, distinct)
            if j is None:
                return
            levels = tuple(v + 1 if i == j else v for i, v in enumerate(levels))

    return search.run(body)
