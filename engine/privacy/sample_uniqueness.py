"""Sample uniqueness: the share of released records that are unique in the released
data (classes of one record) is at most ``threshold``."""
from __future__ import annotations

import numpy as np

from engine.privacy.risk_based import RiskBasedModel


def sample_uniques_share(sizes: np.ndarray) -> float:
    n = int(np.sum(sizes))
    return float(np.count_nonzero(sizes == 1)) / n if n else 0.0


class SampleUniqueness(RiskBasedModel):
    name = "sample-uniqueness"
    monotonic_without_suppression = True
    monotonic_with_suppression = True

    def __init__(self, threshold: float):
        threshold = float(threshold)
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must lie between 0 and 1, got {threshold}")
        self.threshold = threshold

    @classmethod
    def from_dict(cls, d: dict) -> "SampleUniqueness":
        return cls(d["threshold"])

    def fulfilled(self, sizes: np.ndarray) -> bool:
        return sample_uniques_share(sizes) <= self.threshold

    def to_dict(self) -> dict:
        return {"model": self.name, "threshold": self.threshold}

    def describe(self) -> str:
        return f"({self.threshold:g})-sample-uniqueness"
