"""Shared machinery of the risk-based models (average risk, sample and population
uniqueness): they judge the released table as a whole.

When the table does not fulfil the model, classes are suppressed as ARX 3.9
does (``HashGroupifyDistribution``):

- the released classes are ordered by size, classes of the same size by their
  own information loss under the job's metric when the metric has one per class
  (``Metric.class_losses``: the least lossy first), then by their first record;
- the risk is measured on the released records only: suppressed records leave
  the denominator and the class-size histogram (and, for population uniqueness,
  the sample the sampling fraction is computed from);
- the number of classes to suppress (a prefix of that order) is found by ARX's
  binary search, probe for probe, so that models whose risk is not monotonic in
  the prefix (population uniqueness: the estimators are refitted at each probe)
  end where ARX ends.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from engine.classes import Classes
from engine.privacy.base import PrivacyModel


def suppression_order(counts: np.ndarray, candidates: np.ndarray,
                      tiebreak: np.ndarray | None = None) -> np.ndarray:
    """``candidates`` (class indices) in ARX's suppression order: size, then the class's
    information loss (numbers, or rows compared lexicographically), then index (= first
    record)."""
    keys: list[np.ndarray] = [candidates]
    if tiebreak is not None:
        t = np.asarray(tiebreak)[candidates]
        if t.ndim == 1:
            keys.append(t)
        else:  # lexsort takes its primary key last
            keys.extend(t[:, c] for c in range(t.shape[1] - 1, -1, -1))
    keys.append(counts[candidates])
    return candidates[np.lexsort(keys)]


def _half(a: int, b: int) -> int:
    """Java's ``(a + b) / 2`` (rounds towards zero)."""
    s = a + b
    return s // 2 if s >= 0 else -((-s) // 2)


def arx_binary_search(n_entries: int, fulfilled: Callable[[np.ndarray], bool]) -> np.ndarray:
    """ARX's search for the entries (in suppression order) to suppress, probe for probe.

    ``fulfilled(mask)`` says whether the model holds with the entries flagged in
    ``mask`` suppressed. For a predicate that is monotonic in the number of
    suppressed entries this finds the fewest; for others it ends where ARX does.
    Returns the mask of suppressed entries.
    """
    sup = np.zeros(n_entries, dtype=bool)
    if n_entries == 0:
        return sup
    low, high = 0, n_entries - 1
    mid = _half(low, high)
    sup[low:mid + 1] = True
    while low <= high:
        if fulfilled(sup):
            high = mid - 1
            mid = _half(low, high)
            start = mid + 1
            if start < n_entries:  # clear the run of suppressed entries from mid + 1
                run = sup[start:]
                stop = start + (int(np.argmin(run)) if not run.all() else len(run))
                sup[start:stop] = False
        else:
            low = mid + 1
            mid = _half(low, high)
            if low <= mid:
                sup[low:mid + 1] = True
    # finally ARX checks mid + 1
    if not fulfilled(sup) and 0 <= mid + 1 < n_entries and not sup[mid + 1]:
        sup[mid + 1] = True
    return sup


class RiskBasedModel(PrivacyModel):
    """Base of table-level models fulfilled by suppressing the smallest classes."""

    monotonic_without_suppression = True
    monotonic_with_suppression = True

    def fulfilled(self, sizes: np.ndarray) -> bool:
        """Whether released classes of these sizes (records per class) fulfil the model."""
        raise NotImplementedError

    def enforce(self, classes: Classes, counts: np.ndarray, suppressed: np.ndarray,
                metric=None) -> np.ndarray:
        released = np.flatnonzero(~suppressed & (counts > 0))
        if self.fulfilled(counts[released]):
            return suppressed
        tiebreak = None if metric is None else metric.class_losses(classes, counts)
        order = suppression_order(counts, released, tiebreak)
        sizes = counts[order]
        gone = arx_binary_search(len(order), lambda mask: self.fulfilled(sizes[~mask]))
        out = suppressed.copy()
        out[order[gone]] = True
        return out

    def table_ok(self, classes: Classes, suppressed: np.ndarray) -> bool:
        return True
