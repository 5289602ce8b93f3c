"""KGEN (De Pascale et al. 2023): a genetic search with lattice preprocessing.

Preprocessing raises each attribute's minimum level to the lowest level at
which that attribute on its own could still be part of an anonymous
transformation. The paper's rule is "the attribute alone is k-anonymous";
it is only sound without suppression (the paper's section 7 shows a dataset
that is k-anonymous below the raised minimum once rows may be suppressed).
We apply the sound form of it: a record whose value of attribute ``j`` at
level ``l`` occurs fewer than ``k`` times lies in a class smaller than ``k``
in *every* transformation with that level, so it is always suppressed; if
such records outnumber the suppression limit, no transformation with level
``l`` is anonymous. At a 0% limit this is exactly the paper's rule; with a
100% limit it never prunes; models without a minimal class size, or jobs on a
research subset, are not preprocessed.

Then a population of random individuals evolves: parents are chosen by
tournament selection with an age penalty, the crossover builds the minimum
and maximum of two parents and keeps offspring by the paper's three cases,
and offspring undergo standard and horizontal mutation. The union of
population and offspring is reduced to the population size by the same
selection; survivors age by one (age 10: never selected again). The search
stops after ``max_evaluations`` offspring (default 5000 when the job sets no
time or step limit), at the job's limits, or when 20 generations in a row
brought no transformation it had not checked before.

With a loss that is not monotonic (a suppression limit above 0 and a metric
counting suppression), an anonymous minimum node is not necessarily better
than its parents; crossover case 1 then keeps it only when it is better than
both, and otherwise draws the two random nodes below the parents.
"""
from __future__ import annotations

import numpy as np

from engine.problem import Problem
from engine.search.anytime import AnytimeSearch, best_first, count_limit, sort_key
from engine.search.genetic_settings import KgenParameters
from engine.search.outcome import SearchOutcome
from engine.progress import CancelCheck, ProgressCallback

MAX_AGE = 10


# --- preprocessing ----------------------------------------------------------------------
def preprocess_min_levels(problem: Problem) -> tuple[int, ...]:
    """Raised minimum levels (see the module docstring for when and why this is sound)."""
    lattice = problem.lattice
    sizes = [m.minimal_class_size() for m in problem.models]
    sizes = [s for s in sizes if s is not None]
    if not sizes or problem.uses_subset:
        return lattice.min_levels
    k = max(sizes)
    base = problem.classifier.base
    out = []
    for j, h in enumerate(problem.hierarchies):
        lo, hi = lattice.min_levels[j], lattice.max_levels[j]
        level = lo
        while level < hi:
            codes = h.maps[level][base.rep[:, j]]
            per_value = np.bincount(codes, weights=base.counts, minlength=h.level_size(level))
            always_suppressed = per_value[(per_value > 0) & (per_value < k)].sum()
            if always_suppressed <= problem.max_suppressed:
                break
            level += 1
        out.append(level)
    return tuple(out)


# --- operators ----------------------------------------------------------------------------
def selection_probabilities(keys: list, ages: np.ndarray) -> np.ndarray:
    """Selection probability per individual: fitness (rank, best = n) times the age
    weight ``1 - age / 10`` (age 10: 0), normalized."""
    n = len(keys)
    fitness = np.empty(n)
    fitness[best_first(keys)] = np.arange(n, 0, -1, dtype=float)
    w = fitness * np.clip(1.0 - ages / MAX_AGE, 0.0, 1.0)
    total = w.sum()
    if total <= 0:
        return np.full(n, 1.0 / n)
    return w / total


def tournament(rng: np.random.Generator, keys: list, probabilities: np.ndarray,
               size: int) -> int:
    """Index of the best of ``size`` contestants drawn by ``probabilities``."""
    contestants = rng.choice(len(keys), size=size, p=probabilities)
    return int(min(contestants, key=lambda i: (keys[i], i)))


def random_between(rng: np.random.Generator, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return rng.integers(low, high + 1, dtype=np.int64)


def crossover(rng: np.random.Generator, a: np.ndarray, b: np.ndarray, a_anonymous: bool,
              b_anonymous: bool, is_anonymous) -> list[np.ndarray]:
    """KGEN's crossover of parents ``a`` and ``b``.

    ``is_anonymous(levels)`` checks a transformation. Case 1, both parents
    anonymous: the minimum node if it is anonymous, else one random node
    between the minimum and each parent. Case 2, neither anonymous: the
    maximum node. Case 3, one anonymous: a random node between the minimum and
    the anonymous parent.
    """
    low, high = np.minimum(a, b), np.maximum(a, b)
    if a_anonymous and b_anonymous:
        if is_anonymous(low):
            return [low]
        return [random_between(rng, low, a), random_between(rng, low, b)]
    if not a_anonymous and not b_anonymous:
        return [high]
    return [random_between(rng, low, a if a_anonymous else b)]


def standard_mutation(rng: np.random.Generator, x: np.ndarray, lows: np.ndarray,
                      highs: np.ndarray) -> np.ndarray:
    """One gene one level up or down (staying on the same generalization strategy path)."""
    child = x.copy()
    movable = np.flatnonzero(highs > lows)
    if len(movable) == 0:
        return child
    j = int(rng.choice(movable))
    if child[j] == lows[j]:
        child[j] += 1
    elif child[j] == highs[j]:
        child[j] -= 1
    else:
        child[j] += 1 if rng.random() < 0.5 else -1
    return child


def horizontal_mutation(rng: np.random.Generator, x: np.ndarray, lows: np.ndarray,
                        highs: np.ndarray, fraction: float) -> np.ndarray:
    """Move to another strategy path: change ``max(2, fraction * genes)`` genes,
    alternately raising one (to a level between its own and the highest) and
    lowering the next (to a level between the lowest and its own)."""
    n = len(x)
    child = x.copy()
    count = min(n, max(2, int(fraction * n)))
    for t, j in enumerate(rng.choice(n, size=count, replace=False)):
        if t % 2 == 0:
            child[j] = int(rng.integers(x[j], highs[j] + 1))
        else:
            child[j] = int(rng.integers(lows[j], x[j] + 1))
    return child


# --- the search -------------------------------------------------------------------------
class KgenSearch:
    def __init__(self, search: AnytimeSearch, params: KgenParameters,
                 max_evaluations: int | None, lows: tuple[int, ...]):
        self.search = search
        self.params = params
        self.max_evaluations = max_evaluations
        self.lows = np.asarray(lows, dtype=np.int64)
        self.highs = np.asarray(search.lattice.max_levels, dtype=np.int64)
        self.rng = search.rng
        # with a non-monotonic loss an anonymous minimum node need not be better
        self.min_must_improve = not search.problem.metric_monotonic

    def _crossover(self, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
        check = self.search.check
        ea, eb = check(a), check(b)

        def is_anonymous(levels: np.ndarray) -> bool:
            ev = check(levels)
            if self.min_must_improve and ev.anonymous:
                return ev.loss < min(ea.loss, eb.loss)
            return ev.anonymous

        return crossover(self.rng, a, b, ea.anonymous, eb.anonymous, is_anonymous)

    def _ranked(self, population: list[np.ndarray]) -> tuple[list, np.ndarray]:
        """Sort keys and each individual's rank (0 = best)."""
        evs = self.search.check_many(population)
        keys = [sort_key(ev) for ev in evs]
        rank = np.empty(len(keys), dtype=np.int64)
        rank[best_first(keys)] = np.arange(len(keys))
        return keys, rank

    def _tournaments(self, rank: np.ndarray, weights: np.ndarray, count: int) -> np.ndarray:
        """Winners of ``count`` tournaments among contestants drawn by ``weights``."""
        contestants = self.rng.choice(len(rank), size=(count, self.params.tournament_size),
                                      p=weights)
        return contestants[np.arange(count), np.argmin(rank[contestants], axis=1)]

    def _survivors(self, population: list[np.ndarray], ages: np.ndarray,
                   count: int) -> list[int]:
        """``count`` distinct survivors by tournament with age penalty."""
        keys, rank = self._ranked(population)
        weights = selection_probabilities(keys, ages)
        chosen: list[int] = []
        while len(chosen) < min(count, len(keys)):
            total = weights.sum()
            if total <= 0:  # only individuals of age 10 are left: take them by fitness
                weights = np.ones(len(keys))
                weights[chosen] = 0.0
                total = weights.sum()
            pick = int(self._tournaments(rank, weights / total, 1)[0])
            chosen.append(pick)
            weights[pick] = 0.0
        return chosen

    def _offspring(self, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
        p, rng = self.params, self.rng
        children = self._crossover(a, b) if rng.random() < p.crossover_rate \
            else [a.copy(), b.copy()]
        out = []
        for c in children:
            if rng.random() < p.mutation_rate:
                c = standard_mutation(rng, c, self.lows, self.highs)
            if rng.random() < p.horizontal_mutation_rate:
                c = horizontal_mutation(rng, c, self.lows, self.highs,
                                        p.horizontal_mutation_fraction)
            out.append(c)
        return out

    def run(self) -> None:
        p = self.params
        self.search.phase = "search"
        population = [random_between(self.rng, self.lows, self.highs)
                      for _ in range(p.population_size)]
        ages = np.zeros(len(population))
        evaluations = 0
        while self.max_evaluations is None or evaluations < self.max_evaluations:
            self.search.ensure_budget()
            if self.search.converged():
                return
            keys, rank = self._ranked(population)
            pairs = (p.population_size + 1) // 2
            parents = self._tournaments(rank, selection_probabilities(keys, ages), 2 * pairs)
            offspring: list[np.ndarray] = []
            for i in range(pairs):
                offspring.extend(self._offspring(population[parents[2 * i]],
                                                 population[parents[2 * i + 1]]))
                evaluations += 2
            self.search.check_many(offspring)
            union = population + offspring
            union_ages = np.concatenate([ages, np.zeros(len(offspring))])
            survivors = self._survivors(union, union_ages, p.population_size)
            population = [union[i] for i in survivors]
            ages = np.minimum(union_ages[survivors] + 1, MAX_AGE)


def kgen_search(problem: Problem, progress: ProgressCallback | None = None,
                cancel: CancelCheck | None = None) -> SearchOutcome:
    """KGEN with the parameters of ``[transformation.genetic]`` (``population_size``,
    ``crossover_rate``, ``mutation_rate``, ``horizontal_mutation_rate``,
    ``max_evaluations`` default 5000), seedable by ``seed``."""
    params = KgenParameters.from_dict(dict(problem.job.transformation.genetic))
    search = AnytimeSearch(problem, "kgen", progress, cancel)
    max_evaluations = count_limit(params.max_evaluations, 5000, search)
    if max_evaluations is not None and search.step_limit is None:
        search.reporter.total = max_evaluations
    search.phase = "preprocessing"
    search.report(force=True)
    lows = preprocess_min_levels(problem)
    return search.run(KgenSearch(search, params, max_evaluations, lows).run)
