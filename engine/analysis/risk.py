"""Re-identification risk from equivalence-class sizes: profile, attacker models, overview.

A record's risk is ``1 / size`` of its equivalence class (records with equal values of
the quasi-identifiers). Suppressed records are left out, as ARX does: they are not
released with their quasi-identifiers. With a research ``subset`` (the released
sample), classes are sized in the sample and, for the journalist, in the whole table
(the population the attacker links against); without one both sizes are the
sample's. Definitions (El Emam; ARX's ``RiskModelSampleSummary``), with ``f_k`` and
``F_k`` the sample and population sizes of sample class ``k``, ``n`` sample records:

* prosecutor: records at risk = share of records with ``1/f_k > threshold``; highest
  risk ``1/min f_k``; success rate ``#classes / n``;
* journalist: as prosecutor with ``F_k``; success rate
  ``max(#classes / sum F_k, sum (f_k / F_k) / n)``;
* marketer: success rate ``sum (f_k / F_k) / n``.

With ``[data] person`` (``persons``: each row's person code) a class's size is the
number of distinct persons in it, so every figure is per person: a person's risk in
a class is 1 / (persons in the class), and "records" in the figures are a person's
memberships of classes (a person whose rows fall into two classes counts in both:
docs/reference/person-level-models.md).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.analysis.statistics import Data, count_groups, group_codes, n_rows, row_weights

#: right-closed bins of the risk profile, ``]lower, upper]`` (as ARX's, in fractions)
RISK_EDGES = np.array([0.0, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06,
                       0.07, 0.08, 0.09, 0.1, 1 / 9, 1 / 8, 1 / 7, 1 / 6, 1 / 5, 1 / 4,
                       1 / 3, 1 / 2, 1.0])

#: ``estimator(class_sizes, sampling_fraction) -> share of population uniques``
PopulationEstimator = Callable[[np.ndarray, float], float]


@dataclass(frozen=True)
class ClassSizes:
    """Per class of the sample: its size there (``sample``) and in the population."""

    sample: np.ndarray
    population: np.ndarray

    @property
    def n_records(self) -> int:
        return int(self.sample.sum())

    @property
    def n_classes(self) -> int:
        return len(self.sample)


def class_sizes(data: Data, qis: Sequence[str], suppressed: np.ndarray | None = None,
                subset: np.ndarray | None = None,
                persons: np.ndarray | None = None) -> ClassSizes:
    """Class sizes of ``data`` grouped by ``qis``, leaving out ``suppressed`` rows.

    ``subset`` (bool mask) marks the sample; the population is every unsuppressed row.
    A weighted table (a frequency table) counts each row's records; with ``persons``
    (each row's person code, ``[data] person``) a class counts its distinct persons.
    """
    n = n_rows(data)
    kept = np.ones(n, bool) if suppressed is None else ~np.asarray(suppressed, dtype=bool)
    group_of, n_groups = group_codes(data, qis, kept)
    if persons is not None:
        return _person_sizes(group_of, n_groups, np.asarray(persons)[kept],
                             None if subset is None else np.asarray(subset, bool)[kept])
    population = count_groups(group_of, n_groups, data, kept)
    if subset is None:
        return ClassSizes(population, population)
    in_sample = np.asarray(subset, dtype=bool)[kept]
    w = row_weights(data)
    sample = np.bincount(group_of[in_sample], weights=None if w is None else w[kept][in_sample],
                         minlength=n_groups).astype(np.int64)
    present = sample > 0
    return ClassSizes(sample[present], population[present])


def distinct_per_group(group_of: np.ndarray, n_groups: int, persons: np.ndarray) -> np.ndarray:
    """Distinct persons per group (each (group, person) pair counted once)."""
    if len(group_of) == 0:
        return np.zeros(n_groups, np.int64)
    key = np.unique(group_of.astype(np.int64) * (int(persons.max()) + 1) + persons)
    return np.bincount(key // (int(persons.max()) + 1), minlength=n_groups).astype(np.int64)


def _person_sizes(group_of: np.ndarray, n_groups: int, persons: np.ndarray,
                  in_sample: np.ndarray | None) -> ClassSizes:
    population = distinct_per_group(group_of, n_groups, persons)
    if in_sample is None:
        return ClassSizes(population, population)
    sample = distinct_per_group(group_of[in_sample], n_groups, persons[in_sample])
    present = sample > 0
    return ClassSizes(sample[present], population[present])


def risk_profile(sizes: ClassSizes, edges: np.ndarray = RISK_EDGES) -> pd.DataFrame:
    """Records per risk interval ``]lower, upper]`` with shares and cumulative shares
    (share of records with risk at most ``upper``)."""
    risk = 1.0 / sizes.sample
    edges = np.asarray(edges, dtype=float)
    bins = np.clip(np.searchsorted(edges, risk, side="left"), 1, len(edges) - 1) - 1
    records = np.bincount(bins, weights=sizes.sample, minlength=len(edges) - 1).astype(np.int64)
    total = max(sizes.n_records, 1)
    return pd.DataFrame({"lower": edges[:-1], "upper": edges[1:], "records": records,
                         "share": records / total, "cumulative": np.cumsum(records) / total})


def class_size_profile(sizes: ClassSizes) -> pd.DataFrame:
    """One row per class size: number of classes, of records, and their risk."""
    size, classes = np.unique(sizes.sample, return_counts=True)
    records = size * classes
    return pd.DataFrame({"class_size": size, "classes": classes, "records": records,
                         "share": records / max(sizes.n_records, 1), "risk": 1.0 / size})


@dataclass(frozen=True)
class AttackerRisk:
    """One attacker model's figures (fractions); records at risk refer to a threshold."""

    records_at_risk: float
    highest_risk: float
    success_rate: float


@dataclass(frozen=True)
class RiskSummary:
    """Overview of the re-identification risks of one table."""

    n_records: int
    n_classes: int
    threshold: float
    lowest_risk: float
    records_with_lowest_risk: float
    average_risk: float
    highest_risk: float
    records_with_highest_risk: float
    sample_uniques: float
    population_uniques: float | None
    prosecutor: AttackerRisk
    journalist: AttackerRisk
    marketer: float


def _attacker(f: np.ndarray, size: np.ndarray, threshold: float, success: float) -> AttackerRisk:
    n = f.sum()
    at_risk = float(f[1.0 / size > threshold].sum() / n)
    return AttackerRisk(at_risk, float(1.0 / size.min()), float(success))


def risk_summary(sizes: ClassSizes, threshold: float = 0.2,
                 sampling_fraction: float | None = None,
                 estimator: PopulationEstimator | None = None) -> RiskSummary:
    """Prosecutor, journalist and marketer risk and the overview figures.

    Parameters
    ----------
    sizes
        From `class_sizes`.
    threshold
        Highest acceptable risk of a single record (e.g. 0.2 for class size 5);
        records above it are "at risk".
    sampling_fraction, estimator
        Population model: when both are given, ``population_uniques`` is
        ``estimator(sizes.sample, sampling_fraction)`` (for instance an estimator of
        ``engine.estimators``); otherwise None.
    """
    f, big_f = sizes.sample.astype(float), sizes.population.astype(float)
    n = float(f.sum())
    if n == 0:
        zero = AttackerRisk(0.0, 0.0, 0.0)
        return RiskSummary(0, 0, threshold, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, None, zero, zero, 0.0)
    classes = len(f)
    marketer = float((f / big_f).sum() / n)
    journalist_rate = max(classes / big_f.sum(), marketer)
    lowest, highest = 1.0 / f.max(), 1.0 / f.min()
    pop_uniques = None
    if estimator is not None and sampling_fraction is not None:
        pop_uniques = float(estimator(sizes.sample, sampling_fraction))
    return RiskSummary(
        n_records=int(n), n_classes=classes, threshold=threshold,
        lowest_risk=float(lowest), records_with_lowest_risk=float(f[f == f.max()].sum() / n),
        average_risk=classes / n, highest_risk=float(highest),
        records_with_highest_risk=float(f[f == f.min()].sum() / n),
        sample_uniques=float(f[f == 1].sum() / n), population_uniques=pop_uniques,
        prosecutor=_attacker(f, f, threshold, classes / n),
        journalist=_attacker(f, big_f, threshold, journalist_rate), marketer=marketer)


def analyze_risk(data: Data, qis: Sequence[str], threshold: float = 0.2,
                 suppressed: np.ndarray | None = None, subset: np.ndarray | None = None,
                 sampling_fraction: float | None = None,
                 estimator: PopulationEstimator | None = None,
                 persons: np.ndarray | None = None
                 ) -> tuple[RiskSummary, pd.DataFrame]:
    """`risk_summary` and `risk_profile` of one table in one call (per person with
    ``persons``, each row's person code)."""
    sizes = class_sizes(data, qis, suppressed, subset, persons)
    return risk_summary(sizes, threshold, sampling_fraction, estimator), risk_profile(sizes)
