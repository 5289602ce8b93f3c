"""Genetic search (Meurers et al. 2021, after Wan et al.).

Individuals are level vectors (one gene per quasi-identifier). Two equally
sized subpopulations evolve side by side. How they start depends on
``top_down_start`` (``[transformation.genetic]``):

- 0 (ARX's start): the first starts with the "triangle pattern" of lowest and
  highest levels, the rest of it and all of the second at random;
- N > 0 (the default, 150): the top-down search (``engine.search.top_down``)
  first checks N transformations, and goes on while it improves (until one
  check per quasi-identifier in a row found nothing better); the best
  half-population of what it checked starts both subpopulations, the rest of
  each is mutants of them (the first's of the ten best). Checks near the top are cheap (few classes) and
  the top-down search finds good transformations within its first few hundred
  checks, where random and triangle individuals (many classes: slow checks,
  mostly poor) take thousands of checks to get there: on credit card (24 QIs)
  the loss after 600 checks is about 0.60 instead of 0.67. When the top-down
  search ends by itself within N checks it has searched the whole lattice and
  its result is the optimum.

Each iteration, per subpopulation:

1. sort by fitness (anonymous first, then lower loss: the loss of the
   transformation's output, suppression included);
2. copy the elite fraction unchanged;
3. fill the crossover fraction with children of two parents drawn from the
   production fraction, with probability proportional to fitness (fitness =
   rank, best = highest), each gene taken from either parent at random;
4. fill the rest with mutants of random individuals: 1 to
   ``max(1, mutation_probability * genes)`` genes set to other random levels;
5. every ``immigration_interval`` iterations the fittest
   ``immigration_fraction`` of each subpopulation change places.

The search stops after ``iterations`` iterations, or at the job's time or step
limit. ``iterations`` defaults to 50 when the job sets neither limit;
otherwise the limit decides unless ``iterations`` is given explicitly. It also
stops when 20 iterations in a row produced no transformation it had not
checked before (the population has converged; no step limit would be reached).
"""
from __future__ import annotations

import numpy as np

from engine.problem import Problem
from engine.search.anytime import AnytimeSearch, best_first, count_limit, sort_key
from engine.search.best_first import BestFirstSearch
from engine.search.genetic_settings import GeneticParameters
from engine.search.outcome import SearchOutcome
from engine.progress import CancelCheck, ProgressCallback


# --- operators (pure functions on level arrays, tested on their own) -------------------
def triangle_population(lows: np.ndarray, highs: np.ndarray, size: int) -> np.ndarray:
    """The "triangle pattern": row ``i`` has genes ``0..i`` at their highest level and
    the rest at their lowest; then row ``n + i`` has genes ``i+1..n-1`` highest.

    Returns at most ``size`` rows (``2n - 1`` when ``size`` allows).
    """
    n = len(lows)
    rows = []
    for i in range(n):
        rows.append(np.where(np.arange(n) <= i, highs, lows))
    for i in range(n - 1):
        rows.append(np.where(np.arange(n) > i, highs, lows))
    return np.asarray(rows[:size], dtype=np.int64).reshape(-1, n)


def random_population(rng: np.random.Generator, lows: np.ndarray, highs: np.ndarray,
                      size: int) -> np.ndarray:
    return rng.integers(lows, highs + 1, size=(size, len(lows)), dtype=np.int64)


def uniform_crossover(rng: np.random.Generator, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A child taking every gene from either parent with equal probability."""
    return np.where(rng.random(len(a)) < 0.5, a, b)


def mutate(rng: np.random.Generator, individual: np.ndarray, lows: np.ndarray,
           highs: np.ndarray, mutation_probability: float) -> np.ndarray:
    """Set 1 to ``max(1, floor(p * genes))`` genes that can change to other random levels."""
    child = individual.copy()
    movable = np.flatnonzero(highs > lows)
    if len(movable) == 0:
        return child
    upper = max(1, int(mutation_probability * len(individual)))
    count = int(rng.integers(1, min(upper, len(movable)) + 1))
    for j in rng.choice(movable, size=count, replace=False):
        # a different level, uniformly among the others
        v = int(rng.integers(lows[j], highs[j]))
        child[j] = v if v < individual[j] else v + 1
    return child


def parent_weights(n: int) -> np.ndarray:
    """Selection probabilities of ``n`` parents sorted best first (proportional to rank)."""
    w = np.arange(n, 0, -1, dtype=float)
    return w / w.sum()


#: the seeds whose mutants fill the first subpopulation of a seeded start
SEED_PARENTS = 10


# --- the search --------------------------------------------------------------------------
class GeneticSearch:
    def __init__(self, search: AnytimeSearch, params: GeneticParameters,
                 iterations: int | None):
        self.search = search
        self.params = params
        self.iterations = iterations
        lattice = search.lattice
        self.lows = np.asarray(lattice.min_levels, dtype=np.int64)
        self.highs = np.asarray(lattice.max_levels, dtype=np.int64)
        self.rng = search.rng

    def _sorted(self, population: np.ndarray) -> np.ndarray:
        evs = self.search.check_many(population, prime=False)
        return population[best_first([sort_key(ev) for ev in evs])]

    def _next_generation(self, population: np.ndarray) -> np.ndarray:
        """One iteration on a subpopulation sorted best first."""
        p, rng, size = self.params, self.rng, len(population)
        n_elite = int(round(p.elite_fraction * size))
        n_cross = int(round(p.crossover_fraction * size))
        n_prod = max(2, int(round(p.production_fraction * size)))
        parents = population[:n_prod]
        weights = parent_weights(len(parents))
        out = [population[i] for i in range(n_elite)]
        for _ in range(n_cross):
            i, j = rng.choice(len(parents), size=2, replace=False, p=weights)
            out.append(uniform_crossover(rng, parents[i], parents[j]))
        while len(out) < size:
            k = int(rng.integers(size))
            out.append(mutate(rng, population[k], self.lows, self.highs,
                              p.mutation_probability))
        return np.asarray(out, dtype=np.int64)

    def _immigrate(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m = int(round(self.params.immigration_fraction * min(len(a), len(b))))
        if m == 0:
            return a, b
        return (np.concatenate([b[:m], a[m:]]), np.concatenate([a[:m], b[m:]]))

    def _arx_start(self) -> tuple[np.ndarray, np.ndarray]:
        """The triangle pattern and random individuals, random individuals."""
        size = self.params.subpopulation_size
        tri = triangle_population(self.lows, self.highs, size)
        first = np.concatenate([tri, random_population(self.rng, self.lows, self.highs,
                                                       size - len(tri))])
        return first, random_population(self.rng, self.lows, self.highs, size)

    def _seeded_start(self, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Both subpopulations from ``seeds`` (best first): the seeds, then mutants of
        the ten best (first) or of any seed (second)."""
        size, rng, p = self.params.subpopulation_size, self.rng, self.params
        seeds = seeds[:max(1, size // 2)]
        pops = []
        for pool in (min(SEED_PARENTS, len(seeds)), len(seeds)):
            rows = list(seeds)
            while len(rows) < size:
                parent = seeds[int(rng.integers(pool))]
                rows.append(mutate(rng, parent, self.lows, self.highs, p.mutation_probability))
            pops.append(np.asarray(rows[:size], dtype=np.int64))
        return pops[0], pops[1]

    def _top_down_seeds(self) -> np.ndarray | None:
        """Run the top-down search for ``top_down_start`` checks (more while it improves);
        the transformations it checked, best first, or None when it searched the whole
        lattice (its best is then the optimum)."""
        search = self.search
        complete = search.for_checks(self.params.top_down_start,
                                     BestFirstSearch(search, upward=False).run,
                                     patience=len(self.lows))
        search.phase = "search"
        if complete:
            return None
        evs = sorted(search.checked_evaluations(), key=sort_key)
        return np.asarray([ev.levels for ev in evs], dtype=np.int64).reshape(-1, len(self.lows))

    def run(self) -> None:
        if self.params.top_down_start > 0:
            seeds = self._top_down_seeds()
            if seeds is None:
                return
            first, second = (self._seeded_start(seeds) if len(seeds) else self._arx_start())
        else:
            first, second = self._arx_start()
        pops = [self._sorted(first), self._sorted(second)]
        iteration = 0
        while self.iterations is None or iteration < self.iterations:
            self.search.ensure_budget()
            if self.search.converged():
                return
            iteration += 1
            pops = [self._sorted(self._next_generation(pop)) for pop in pops]
            if iteration % self.params.immigration_interval == 0:
                a, b = self._immigrate(*pops)
                pops = [self._sorted(a), self._sorted(b)]


def genetic_search(problem: Problem, progress: ProgressCallback | None = None,
                   cancel: CancelCheck | None = None) -> SearchOutcome:
    """The genetic algorithm with the parameters of ``[transformation.genetic]``
    (see ``GeneticParameters``; ``iterations`` default 50), seedable by ``seed``."""
    params = GeneticParameters.from_dict(dict(problem.job.transformation.genetic))
    size = params.subpopulation_size
    search = AnytimeSearch(problem, "genetic", progress, cancel)
    iterations = count_limit(params.iterations, 50, search)
    if iterations is not None:
        search.reporter.total = search.step_limit or 2 * size * (iterations + 1)
    return search.run(GeneticSearch(search, params, iterations).run)
