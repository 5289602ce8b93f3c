"""Optimal search: classifies the lattice with monotonicity and prunes with loss bounds.

Transformations are visited in ascending order of a lower bound of their loss
(or of their height when the metric has none). A transformation known not to
be anonymous is skipped; when models are monotonic a check tags all
generalizations of an anonymous transformation anonymous and all
specializations of a non-anonymous one not anonymous (Flash's predictive
tagging). When the metric is monotonic, a transformation tagged anonymous
cannot beat the specialization it was tagged from, so it is skipped too. The
search stops as soon as the next lower bound is no better than the best loss
found, which proves optimality.
"""
from __future__ import annotations

import numpy as np

from engine.metrics.base import loss_sort_keys
from engine.problem import Problem
from engine.search.outcome import SearchOutcome, better
from engine.search.progress import CancelCheck, ProgressCallback, Reporter
from engine.solution_space import ANONYMOUS, NOT_ANONYMOUS, SolutionSpace

#: the largest lattice the optimal search will enumerate
MAX_DENSE_LATTICE = 5_000_000


def _bound_value(bounds: np.ndarray, i: int):
    b = bounds[i]
    return tuple(float(x) for x in b) if np.ndim(b) else float(b)


def optimal_search(problem: Problem, progress: ProgressCallback | None = None,
                   cancel: CancelCheck | None = None) -> SearchOutcome:
    lattice = problem.lattice
    if lattice.size > MAX_DENSE_LATTICE:
        raise ValueError(f"the lattice has {lattice.size:,} transformations; the optimal "
                         f"search handles at most {MAX_DENSE_LATTICE:,}: use a heuristic")
    space = SolutionSpace(lattice, dense=True)
    levels = space.levels
    bounds = problem.metric.lower_bounds(levels)
    space.lower_bounds = bounds
    if bounds is not None:
        order = loss_sort_keys(bounds)
    else:
        order = np.argsort(levels.sum(axis=1, dtype=np.int64), kind="stable")
    tag = problem.models_monotonic
    skip_tagged = problem.models_monotonic and problem.metric_monotonic
    reporter = Reporter(progress, lattice.size, cancel)
    best, best_id = None, None
    checked = 0
    cancelled = False
    for idx in order:
        idx = int(idx)
        if reporter.cancelled():
            cancelled = True
            break
        if bounds is not None and best is not None and not better(_bound_value(bounds, idx), best):
            break
        state = space.states[idx]
        if state == NOT_ANONYMOUS or (state == ANONYMOUS and skip_tagged):
            continue
        ev = problem.evaluate(levels[idx])
        checked += 1
        space.record(idx, ev.anonymous, ev.loss, ev.suppressed_records)
        if ev.anonymous:
            if better(ev.loss, best):
                best, best_id = ev.loss, idx
            if tag:
                space.tag_generalizations(idx)
        elif tag:
            space.tag_specializations(idx)
        reporter.report(checked, levels[best_id] if best_id is not None else None, best)
    space.optimum_id = best_id
    optimum = problem.evaluate(levels[best_id]) if best_id is not None else None
    reporter.report(checked, levels[best_id] if best_id is not None else None, best, force=True)
    return SearchOutcome(space, optimum, checked, reporter.elapsed, cancelled, "optimal")
