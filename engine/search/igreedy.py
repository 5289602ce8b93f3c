"""IGreedy (Babu et al. 2013, as described by Prasser et al. 2016).

From the bottom, each step checks every direct generalization (one attribute
one level up) and moves to the one whose smallest equivalence class is
smallest, falling back on DataFly's rule (most distinct values) on ties. It
stops at the first anonymous transformation, like DataFly.
"""
from __future__ import annotations

from engine.problem import Problem
from engine.search.anytime import AnytimeSearch
from engine.search.datafly import datafly_choice, distinct_values
from engine.search.outcome import SearchOutcome
from engine.progress import CancelCheck, ProgressCallback


def igreedy_search(problem: Problem, progress: ProgressCallback | None = None,
                   cancel: CancelCheck | None = None) -> SearchOutcome:
    lattice = problem.lattice
    search = AnytimeSearch(problem, "igreedy", progress, cancel,
                           expected_checks=lattice.height * lattice.dimensions + 1)
    distinct = distinct_values(problem)

    def min_class_size(levels: tuple[int, ...]) -> int:
        counts = problem.record_counts(problem.classifier.classify(levels))
        return int(counts.min()) if len(counts) else 0

    def body() -> None:
        levels = lattice.bottom
        while not search.check(levels).anonymous:
            successors = lattice.successors(levels)
            if not successors:
                return
            search.check_many(successors)
            by_attribute = {}
            for s in successors:
                j = next(i for i, (a, b) in enumerate(zip(s, levels)) if a != b)
                by_attribute[j] = (min_class_size(s), s)
            smallest = min(size for size, _ in by_attribute.values())
            tied = {j for j, (size, _) in by_attribute.items() if size == smallest}
            j = datafly_choice(levels, lattice.max_levels, distinct, tied)
            levels = by_attribute[j][1]

    return search.run(body)
