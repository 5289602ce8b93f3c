"""(epsilon, delta)-differential privacy by sampling and generalization (SafePub:
Bild, Kuhn & Prasser, PETS 2018; Li, Qardaji & Su 2012).

1. Every record is kept independently with probability
   ``beta = 1 - exp(-epsilon_anon)`` (a seeded generator: ``seed``).
2. Quasi-identifiers are generalized with one transformation for all records:
   fixed in advance (``generalization = "low" | "low-medium" | "medium" |
   "medium-high" | "high" | "complete" | "none"``: each attribute at that
   fraction of its hierarchy's height, rounded half up) or chosen from the
   data (``"data-dependent"``) by the exponential mechanism with a budget
   ``search_budget`` taken from epsilon (``epsilon_anon = epsilon - search_budget``).
3. Every class of the sample with fewer than k records is suppressed, k the
   smallest size for which the sampling, generalization and suppression is
   (epsilon_anon, delta)-differentially private (Li et al.'s bound d(k)).

The sample becomes the research subset (N = its size); the search is
``engine.search.safepub`` (one transformation when fixed; otherwise the
exponential mechanism on the job metric's SafePub score, ``Metric.safepub_score``).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from engine.classes import Classes
from engine.errors import JobError
from engine.privacy.base import ModelContext, PrivacyModel
from engine.schema import Param

DEGREES = {"none": 0.0, "low": 0.2, "low-medium": 0.4, "medium": 0.5, "medium-high": 0.6,
           "high": 0.8, "complete": 1.0}
DATA_DEPENDENT = "data-dependent"


def _tail_bound(k: int, beta: float, epsilon: float) -> float:
    """d(k, beta, epsilon) = max over n >= n_m of P(Bin(n, beta) > gamma n).

    The tail decays geometrically once past its peak: the scan over n stops at the
    first n beyond n_m + 50 whose tail is below 1e-4 of the largest so far (or after
    200,000 terms). Tails are computed in blocks of n (one vectorized call each)."""
    from scipy.stats import binom  # scipy.stats takes seconds to import: only where used

    gamma = (math.exp(epsilon) - 1 + beta) / math.exp(epsilon)
    n_m = max(1, math.ceil(k / gamma - 1))
    last = n_m + 200_001
    best, lo, size = 0.0, n_m, 256
    while lo <= last:
        n = np.arange(lo, min(lo + size, last + 1), dtype=np.float64)
        tails = binom.sf(np.floor(gamma * n), n, beta)
        running = np.maximum(np.maximum.accumulate(tails), best)
        stop = np.flatnonzero((n > n_m + 50) & (tails < running * 1e-4))
        if len(stop):
            return float(running[stop[0]])
        best, lo, size = float(running[-1]), lo + len(n), size * 2
    return best


@functools.lru_cache(maxsize=64)
def derive_k(epsilon_anon: float, delta: float) -> int:
    """The class size SafePub enforces on the sample for (epsilon_anon, delta).

    Li et al.'s bound holds for the smallest k with d(k) <= delta; ARX enforces one
    more, and so do we (its published k for every oracle setting).
    """
    beta = 1 - math.exp(-epsilon_anon)
    k = 1
    while _tail_bound(k, beta, epsilon_anon) > delta:
        k += 1
    return k + 1


def java_round(x: float) -> int:
    return int(math.floor(x + 0.5))


class DifferentialPrivacy(PrivacyModel):
    name = "differential-privacy"
    counts_persons = False  # not defined per person: refused with [data] person
    monotonic_without_suppression = False
    monotonic_with_suppression = False
    uses_subset = True
    #: the job's suppression limit does not apply: every small class goes
    suppresses_freely = True

    params = (
        Param("epsilon", "float", 2.0, low=0, high=100, low_open=True, required=True,
              label="ε", help="the privacy budget: smaller is more private (ARX suggests 2)"),
        Param("delta", "float", 1e-6, low=0, high=1, low_open=True, high_open=True,
              required=True, label="δ",
              help="the probability that ε does not hold (far below 1 / records)"),
        Param("generalization", "choice", DATA_DEPENDENT, choices=(DATA_DEPENDENT, *DEGREES),
              label="Generalization",
              help="data-dependent: chosen privately from the data; otherwise every "
                   "attribute at that share of its hierarchy's height"),
        Param("seed", "int", None, low=0, label="Random seed",
              help="seeds the random sample and search (absent: a new draw each run)"),
        Param("search_budget", "float", 0.1, low=0, low_open=True, label="Search budget",
              help="the part of ε spent on choosing the generalization (data-dependent "
                   "only; less than ε)"),
        Param("search_steps", "int", 100, low=0, label="Search steps",
              help="how many transformations the private search visits (data-dependent "
                   "only)"))
    label = "(ε, δ)-differential privacy"
    summary = ("SafePub: release a random sample, generalized and with small classes "
               "suppressed, so that any one person's presence changes little.")

    def setup(self) -> None:
        if self.data_dependent and not self.search_budget < self.epsilon:
            raise ValueError(f"search_budget = {self.search_budget:g} must be less than "
                             f"epsilon = {self.epsilon:g}")
        self.epsilon_anon = (self.epsilon - self.search_budget if self.data_dependent
                             else self.epsilon)
        self.beta = 1 - math.exp(-self.epsilon_anon)
        self.k = derive_k(self.epsilon_anon, self.delta)
        self.fixed_levels: tuple[int, ...] | None = None
        self.sample: np.ndarray | None = None

    @property
    def data_dependent(self) -> bool:
        return self.generalization == DATA_DEPENDENT

    def bind(self, ctx: ModelContext) -> None:
        if ctx.table.weights is not None:  # a backend's count: it drew the sample
            if ctx.table.row_sample is None:
                raise JobError("differential privacy draws its sample record by record: run "
                               "it with the in-memory backend ([engine] backend = "
                               "\"memory\") or DuckDB")
            self.sample = ctx.table.row_sample if ctx.subset is None else \
                ctx.subset & ctx.table.row_sample
        else:
            base = np.ones(ctx.n_rows, dtype=bool) if ctx.subset is None else ctx.subset
            rng = np.random.default_rng(self.seed)
            self.sample = base & (rng.random(ctx.n_rows) < self.beta)
        ctx.subset = self.sample  # the released records
        if not self.data_dependent:
            levels = []
            for q in ctx.qis:
                h = ctx.hierarchies.get(q)
                if h is None:
                    raise JobError(f"differential privacy needs a hierarchy for '{q}'")
                levels.append(java_round(DEGREES[self.generalization] * h.height))
            self.fixed_levels = tuple(levels)

    def violating(self, classes: Classes) -> np.ndarray:
        return classes.aggregates["subset"] < self.k

    def table_ok(self, classes: Classes, suppressed: np.ndarray) -> bool:
        # a fixed generalization admits exactly one transformation
        return self.fixed_levels is None or tuple(int(x) for x in classes.levels) == \
            self.fixed_levels

    def minimal_class_size(self) -> int:
        return self.k

    def describe(self) -> str:
        return f"({self.epsilon:g},{self.delta:g})-differential privacy"


def sample_bits(n_rows: int, beta: float, seed: int | None,
                subset: np.ndarray | None = None, chunk: int = 1 << 22) -> bytes:
    """SafePub's sample of ``n_rows`` records as `bind` draws it (the same generator,
    seed and draws, taken ``chunk`` at a time: the same stream), within the sorted row
    numbers ``subset`` if given, packed one bit a record (most significant bit first):
    for a backend that counts and releases the records where they are."""
    rng = np.random.default_rng(seed)
    parts = []
    for start in range(0, n_rows, chunk):
        stop = min(n_rows, start + chunk)
        kept = rng.random(stop - start) < beta
        if subset is not None:
            inside = np.zeros(stop - start, dtype=bool)
            lo, hi = np.searchsorted(subset, [start, stop])
            inside[subset[lo:hi] - start] = True
            kept &= inside
        parts.append(np.packbits(kept).tobytes())  # chunk is a multiple of 8
    return b"".join(parts)


# --- lookup (SafePub's search is engine.search.safepub) ------------------------------
def dp_model(problem) -> DifferentialPrivacy | None:
    return next((m for m in problem.models if isinstance(m, DifferentialPrivacy)), None)
