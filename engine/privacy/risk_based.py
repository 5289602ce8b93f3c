"""Shared machinery of the risk-based models (average risk, sample and population
uniqueness): they judge the released table as a whole.

When the table does not fulfil the model, classes are suppressed smallest
first (their records carry the highest re-identification risk) until it does:
the fewest such classes are found by binary search, which is exact because
every risk measure here only improves as more of the smallest classes go.
Ties between classes of the same size keep the classes' order (first
appearance in the data).
"""
from __future__ import annotations

import numpy as np

from engine.classes import Classes
from engine.privacy.base import PrivacyModel


class RiskBasedModel(PrivacyModel):
    """Base of table-level models fulfilled by suppressing the smallest classes."""

    monotonic_without_suppression = True
    monotonic_with_suppression = True

    def fulfilled(self, sizes: np.ndarray) -> bool:
        """Whether released classes of these sizes (records per class) fulfil the model."""
        raise NotImplementedError

    def enforce(self, classes: Classes, counts: np.ndarray,
                suppressed: np.ndarray) -> np.ndarray:
        released = np.flatnonzero(~suppressed & (counts > 0))
        order = released[np.argsort(counts[released], kind="stable")]
        sizes = counts[order]
        if self.fulfilled(sizes):
            return suppressed
        lo, hi = 1, len(order)  # suppressing everything always fulfils the model
        while lo < hi:
            mid = (lo + hi) // 2
            if self.fulfilled(sizes[mid:]):
                hi = mid
            else:
                lo = mid + 1
        out = suppressed.copy()
        out[order[:lo]] = True
        return out

    def table_ok(self, classes: Classes, suppressed: np.ndarray) -> bool:
        return True
