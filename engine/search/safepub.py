"""SafePub's search (Bild, Kuhn & Prasser, PETS 2018) for differential privacy: the
fixed transformation, or a private walk down the lattice by the exponential mechanism
on the job metric's SafePub score. The model itself (sampling, the derived k) is
``engine.privacy.differential_privacy``."""
from __future__ import annotations

import time

import numpy as np

from engine.errors import JobError
from engine.metrics import METRICS
from engine.privacy.differential_privacy import dp_model
from engine.progress import Reporter
from engine.search.outcome import SearchOutcome
from engine.solution_space import SolutionSpace


def safepub_score(problem, levels) -> float:
    """The job metric's SafePub score of a transformation on the sample, already divided
    by its sensitivity (``Metric.safepub_score``; higher is better)."""
    model = dp_model(problem)
    classes = problem.classifier.classify(levels)
    return problem.metric.safepub_score(classes, problem.violating(classes),
                                        problem.record_counts(classes), model.k)


def _exponential_mechanism(rng, scores: np.ndarray, epsilon: float) -> int:
    """McSherry and Talwar: index ``i`` with probability proportional to
    ``exp(epsilon * scores[i] / 2)`` (scores are divided by their sensitivity)."""
    weights = np.exp(0.5 * epsilon * (scores - scores.max()))
    return int(rng.choice(len(scores), p=weights / weights.sum()))


def safepub_search(problem, progress=None, cancel=None):
    """SafePub's search: the fixed transformation, or a private walk down the lattice.

    The walk starts at the top transformation. Each of ``search_steps`` steps adds
    the predecessors of the current pivot to the candidates, removes the pivot,
    and draws the next pivot from the candidates by the exponential mechanism on
    the job metric's SafePub score, each draw spending ``search_budget /
    search_steps``. The result is the best-scoring pivot (as in SafePub and ARX).
    """
    model = dp_model(problem)
    if model is None:
        raise JobError("safepub_search needs a differential-privacy model")
    start = time.perf_counter()
    space = SolutionSpace(problem.lattice, dense=problem.lattice.size <= 5_000_000)
    lattice = problem.lattice
    if not model.data_dependent:
        levels = tuple(min(max(l, lo), hi) for l, lo, hi in
                       zip(model.fixed_levels, lattice.min_levels, lattice.max_levels))
        ev = problem.evaluate(levels)
        return SearchOutcome(space, ev if ev.anonymous else None, 1,
                             time.perf_counter() - start, algorithm="safepub")
    metric = problem.metric
    if not metric.has_safepub_score:
        able = ", ".join(n for n, c in METRICS.items() if c.has_safepub_score)
        raise JobError(f"data-dependent differential privacy needs a metric with a SafePub "
                       f"score ({able}); '{metric.name}' has none")
    rng = np.random.default_rng(None if model.seed is None else model.seed + 1)
    steps = model.search_steps
    eps_each = model.search_budget / steps if steps else 0.0
    reporter = Reporter(progress, max(steps, 1), cancel)
    pivot = tuple(lattice.top)
    best, best_score = pivot, safepub_score(problem, pivot)
    candidates: dict[tuple, float] = {pivot: best_score}
    scored = 1
    for step in range(steps):
        if cancel is not None and cancel():
            break
        for t in lattice.predecessors(pivot):
            if t not in candidates:
                candidates[t] = safepub_score(problem, t)
                scored += 1
        del candidates[pivot]
        if not candidates:
            break
        pool = sorted(candidates)
        pivot = pool[_exponential_mechanism(rng, np.array([candidates[t] for t in pool]),
                                            eps_each)]
        if candidates[pivot] > best_score:
            best, best_score = pivot, candidates[pivot]
        reporter.report(step + 1, best, None)
    ev = problem.evaluate(best)
    return SearchOutcome(space, ev if ev.anonymous else None, scored,
                         time.perf_counter() - start, algorithm="safepub")
