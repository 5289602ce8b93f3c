"""Re-identification risk of input beside output: what the app's Analyze-risk views show
(computed in worker threads).

A `RiskSide` is one table of the comparison (the input, or the output of a
transformation) with its class sizes; `Thresholds` say which figures are
acceptable; `PopulationModel` is the population the sample was drawn from (a region
preset or a sampling fraction); `uniqueness_curves` runs the population-uniqueness
estimators of ``engine.estimators`` over a range of sampling fractions.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engine.analysis.risk import (ClassSizes, PopulationEstimator, RiskSummary, class_sizes,
                                  risk_profile, risk_summary)
from engine.analysis.statistics import Data, n_rows, row_weights
from engine.data.table import EncodedTable
from engine.errors import Cancelled
from engine.progress import CancelCheck, ProgressCallback, Reporter

#: the estimators in the order ARX shows them
ESTIMATOR_NAMES = ("Pitman", "Zayatz", "SNB", "Dankar")
#: the estimator behind "population uniques" in the overview (ARX's decision rule)
DEFAULT_ESTIMATOR = "Dankar"
#: records the identifier detection reads of data too big for memory
IDENTIFIER_SAMPLE = 10_000


@dataclass(frozen=True)
class Thresholds:
    """Acceptable figures: the risk of one record, the share of records above it
    (records at risk) and an attacker's success rate."""

    highest_risk: float = 0.2
    records_at_risk: float = 0.05
    success_rate: float = 0.05


@dataclass(frozen=True)
class RiskSide:
    """One table of the comparison and its equivalence classes on the quasi-identifiers
    (suppressed records left out, as they are not released with their values)."""

    label: str
    data: Data
    qis: tuple[str, ...]
    sizes: ClassSizes
    suppressed: np.ndarray | None = None
    subset: np.ndarray | None = None
    #: for data too big for memory (``data`` a frequency table): ``records(n)`` gives
    #: the first ``n`` records of this side, every column, from the backend
    records: Callable[[int], pd.DataFrame] | None = field(default=None, repr=False,
                                                          compare=False)
    #: what a class's size counts: "records", or "persons" with ``[data] person``
    unit: str = "records"
    profile: pd.DataFrame = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "profile", risk_profile(self.sizes))

    @property
    def n_rows(self) -> int:
        return n_rows(self.data)

    @property
    def kept_rows(self) -> np.ndarray:
        """Rows released with their quasi-identifiers."""
        if self.suppressed is None:
            return np.ones(self.n_rows, bool)
        return ~np.asarray(self.suppressed, dtype=bool)

    @property
    def kept_records(self) -> int:
        """Records released with their quasi-identifiers (a frequency table's rows
        stand for their records)."""
        w, kept = row_weights(self.data), self.kept_rows
        return int(kept.sum()) if w is None else int(w[kept].sum())

    def identifier_data(self) -> Data:
        """What the identifier detection reads: the table, or for data too big for
        memory (a frequency table of the columns the job reads) the first records of
        every column, from the backend holding them."""
        return self.data if self.records is None else self.records(IDENTIFIER_SAMPLE)

    @property
    def columns(self) -> list[str]:
        if isinstance(self.data, EncodedTable):
            return list(self.data.names)
        return [str(c) for c in self.data.columns]

    def summary(self, threshold: float) -> RiskSummary:
        """Attacker models and overview (population uniques come from the worker)."""
        return risk_summary(self.sizes, threshold)


def make_side(label: str, data: Data, qis: Sequence[str], suppressed: np.ndarray | None = None,
              subset: np.ndarray | None = None, records=None,
              persons: np.ndarray | None = None, sizes: ClassSizes | None = None) -> RiskSide:
    """One side's class sizes (distinct persons per class with ``persons``, each row's
    person code: ``[data] person``; or ``sizes`` counted elsewhere)."""
    qis = tuple(qis)
    unit = "records" if persons is None and sizes is None else "persons"
    if sizes is None:
        sizes = class_sizes(data, qis, suppressed, subset, persons)
    return RiskSide(label, data, qis, sizes, suppressed, subset, records, unit)


def counted_sizes(persons) -> ClassSizes | None:
    """The class sizes ``persons()`` counted elsewhere (the distinct persons of each class
    of data out of core, ``OutOfCoreData.persons_per_class``); None without it."""
    if persons is None:
        return None
    counted = np.asarray(persons(), dtype=np.int64)
    return ClassSizes(counted, counted)


def counted_person_sizes(problem, levels=None,
                         suppressed_rows: np.ndarray | None = None) -> ClassSizes | None:
    """Distinct persons per class when the backend counted the persons (out of core:
    ``problem.person_tallies``, no person per row) and they repeat: the classes of
    ``levels`` (None: the data as it is) from the classifier's person counts, classes
    of ``suppressed_rows`` (rows of the frequency table) left out; else None."""
    from engine.privacy.base import PERSONS
    if getattr(problem, "person_tallies", None) is None or not problem.persons_repeat:
        return None
    classifier = problem.classifier
    if levels is None:
        persons = classifier.base.aggregates[PERSONS].persons()
        return ClassSizes(persons, persons)
    classes, row_class = classifier.classify_rows(levels)
    kept = np.zeros(classes.n_classes, bool)
    kept[row_class] = True
    if suppressed_rows is not None:
        kept[row_class[np.asarray(suppressed_rows, bool)]] = False
    persons = classes.aggregates[PERSONS].persons()[kept]
    return ClassSizes(persons, persons)


def result_sides(result, levels=None) -> tuple[RiskSide, RiskSide | None]:
    """Input and output of an ``AnonymizationResult`` (no output without an optimum
    unless ``levels`` names a transformation)."""
    problem = result.problem
    subset = getattr(getattr(problem, "model_context", None), "subset", None)
    if subset is not None and bool(np.asarray(subset).all()):
        subset = None
    # microaggregated quasi-identifiers are not generalized but still identify
    qis = list(getattr(problem, "released_qis", problem.qis))
    # out of core the tables are the frequency table and its release (weighted)
    rows = getattr(getattr(problem, "backend", None), "rows", None)
    head = None if rows is None else (lambda n: rows(0, n))
    persons = getattr(problem, "person_codes", None)  # figures per person
    # out of core the backend counted the persons (no person per row): the classes'
    # persons from the classifier (the quasi-identifiers it groups by are the released)
    counted = (counted_person_sizes(problem) if list(problem.qis) == qis else None)
    data_in = make_side("Input", problem.table, qis, None, subset, head, persons, counted)
    if levels is None and result.optimum is None:
        return data_in, None
    out = result.transformed(levels)  # the released table, as exported
    released_head = None if rows is None else (lambda n: rows(0, n, out.plan()))
    if counted is not None:
        counted = counted_person_sizes(problem, result.levels_of(levels),
                                       out.suppressed_rows)
    # a subset job releases the subset's records only: every output row is one of them
    return data_in, make_side("Output", out.encoded(), qis, out.suppressed_rows,
                              None if getattr(out, "subset_release", False) else subset,
                              released_head, persons, counted)


def result_levels(result, levels=None) -> dict[str, int] | None:
    """The levels of the shown transformation, by attribute."""
    if levels is None:
        return None if result.optimum is None else dict(result.optimum.levels)
    if isinstance(levels, Mapping):
        return {str(k): int(v) for k, v in levels.items()}
    return {q: int(v) for q, v in zip(result.problem.qis, levels)}


# --- population uniqueness ------------------------------------------------------------------
def estimators() -> dict[str, PopulationEstimator]:
    """The population-uniqueness estimators of ``engine.estimators`` by ARX's names, as
    ``f(class_sizes, sampling_fraction) -> share of population uniques`` (imported
    when first used: they load scipy)."""
    from engine import estimators as engine_estimators
    return {name: engine_estimators.ESTIMATORS[name.lower()] for name in ESTIMATOR_NAMES}


def sampling_fractions(n_records: int, current: float | None = None,
                       points: int = 17) -> np.ndarray:
    """Fractions from a population of a billion (at most 1e-4) up to 1, log-spaced,
    with the current fraction among them."""
    low = min(1e-4, max(n_records, 1) / 1e9)
    grid = np.geomspace(low, 1.0, points)
    if current is not None and 0 < current <= 1:
        grid = np.union1d(grid, [current])
    return grid


def uniqueness_curves(sides: Sequence[RiskSide], fractions: Sequence[np.ndarray],
                      found: Mapping[str, PopulationEstimator],
                      progress: ProgressCallback | None = None,
                      cancel: CancelCheck | None = None) -> list[pd.DataFrame]:
    """Each estimator's share of population uniques per sampling fraction, per side.

    Returns one frame per side, indexed by fraction, one column per estimator (NaN
    where an estimator has no answer: no convergence, or no classes).
    """
    rule = _dankar_rule(found)
    computed = {k: v for k, v in found.items() if not (rule is not None and k == "Dankar")}
    total = sum(len(f) for f in fractions) * max(len(computed), 1)
    reporter = Reporter(progress, total, cancel)
    done, out = 0, []
    for side, grid in zip(sides, fractions):
        sizes = side.sizes.sample
        frame = pd.DataFrame(index=pd.Index(np.asarray(grid, float), name="fraction"),
                             columns=list(found), dtype=float)
        for name, fn in computed.items():
            for fraction in frame.index:
                if reporter.cancelled():
                    raise Cancelled("population uniqueness cancelled")
                frame.loc[fraction, name] = _estimate(fn, sizes, float(fraction))
                done += 1
                reporter.report(done, None, None, phase="uniqueness")
        if rule is not None:
            frame["Dankar"] = rule(frame.index.to_numpy(), frame["Pitman"].to_numpy(),
                                   frame["Zayatz"].to_numpy(), frame["SNB"].to_numpy())
        out.append(frame)
    reporter.report(total, None, None, force=True, phase="uniqueness")
    return out


def _dankar_rule(found: Mapping[str, PopulationEstimator]):
    """The engine's Dankar rule combines the Pitman, Zayatz and SNB estimates: when
    ``found`` holds the engine's own four estimators, its curve is derived from
    theirs by the engine's ``dankar_rule`` instead of fitting each model twice.
    Returns ``f(fractions, pitman, zayatz, snb) -> dankar`` or None."""
    from engine import estimators as engine_estimators
    if all(found.get(name) is engine_estimators.ESTIMATORS[name.lower()]
           for name in ESTIMATOR_NAMES):
        return engine_estimators.dankar_rule
    return None


def _estimate(fn: PopulationEstimator, sizes: np.ndarray, fraction: float) -> float:
    if len(sizes) == 0:
        return math.nan
    try:
        value = float(fn(sizes, fraction))
    except (ArithmeticError, ValueError, RuntimeError):
        return math.nan
    return value if math.isfinite(value) else math.nan


def population_uniques(side: RiskSide, fraction: float,
                       found: Mapping[str, PopulationEstimator],
                       name: str = DEFAULT_ESTIMATOR) -> float | None:
    """The overview's population uniques: ``name``'s estimate at ``fraction``."""
    fn = found.get(name) or next(iter(found.values()), None)
    if fn is None:
        return None
    value = _estimate(fn, side.sizes.sample, fraction)
    return None if math.isnan(value) else value
