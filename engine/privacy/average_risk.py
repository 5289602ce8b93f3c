"""Average re-identification risk (prosecutor): the mean over released records of
1 / (size of the record's class), i.e. #classes / #records, is at most ``threshold``."""
from __future__ import annotations

import numpy as np

from engine.privacy.risk_based import RiskBasedModel


def average_risk(sizes: np.ndarray) -> float:
    n = int(np.sum(sizes))
    return float(np.count_nonzero(sizes)) / n if n else 0.0


class AverageRisk(RiskBasedModel):
    name = "average-risk"
    # merging classes lowers #classes for the same records
    monotonic_without_suppression = True
    monotonic_with_suppression = True

    def __init__(self, threshold: float):
        threshold = float(threshold)
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must lie in (0, 1], got {threshold}")
        self.threshold = threshold

    @classmethod
    def from_dict(cls, d: dict) -> "AverageRisk":
        return cls(d["threshold"])

    def fulfilled(self, sizes: np.ndarray) -> bool:
        return average_risk(sizes) <= self.threshold

    def to_dict(self) -> dict:
        return {"model": self.name, "threshold": self.threshold}

    def describe(self) -> str:
        return f"average risk <= {self.threshold:g}"
