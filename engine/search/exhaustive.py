"""Exhaustive search: checks every transformation (a reference for tests)."""
from __future__ import annotations

from engine.problem import Problem
from engine.search.outcome import SearchOutcome, better
from engine.progress import CancelCheck, ProgressCallback, Reporter
from engine.solution_space import SolutionSpace


def exhaustive_search(problem: Problem, progress: ProgressCallback | None = None,
                      cancel: CancelCheck | None = None) -> SearchOutcome:
    lattice = problem.lattice
    space = SolutionSpace(lattice, dense=True)
    reporter = Reporter(progress, lattice.size, cancel)
    best, best_id, checked, cancelled = None, None, 0, False
    for idx, levels in enumerate(space.levels):
        if reporter.cancelled():
            cancelled = True
            break
        ev = problem.evaluate(levels)
        checked += 1
        space.record(idx, ev.anonymous, ev.loss, ev.suppressed_records)
        if ev.anonymous and better(ev.loss, best):
            best, best_id = ev.loss, idx
        reporter.report(checked, space.levels[best_id] if best_id is not None else None, best)
    space.optimum_id = best_id
    optimum = problem.evaluate(space.levels[best_id]) if best_id is not None else None
    return SearchOutcome(space, optimum, checked, reporter.elapsed, cancelled, "exhaustive")
