"""Sample uniqueness: the share of released records that are unique in the released
data (classes of one record) is at most ``threshold``."""
from __future__ import annotations

import numpy as np

from engine.privacy.risk_based import RiskBasedModel
from engine.schema import Param


def sample_uniques_share(sizes: np.ndarray) -> float:
    n = int(np.sum(sizes))
    return float(np.count_nonzero(sizes == 1)) / n if n else 0.0


class SampleUniqueness(RiskBasedModel):
    name = "sample-uniqueness"
    monotonic_without_suppression = True
    monotonic_with_suppression = True
    params = (Param("threshold", "float", 0.05, low=0, high=1, required=True,
                    label="Highest share of uniques",
                    help="the largest share of released records that are unique in the "
                         "released data"),)
    label = "Sample uniqueness"
    summary = "Few released records are the only one of their kind in the released data."

    def fulfilled(self, sizes: np.ndarray) -> bool:
        return sample_uniques_share(sizes) <= self.threshold

    def describe(self) -> str:
        return f"({self.threshold:g})-sample-uniqueness"
