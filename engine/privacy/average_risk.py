"""Average re-identification risk (prosecutor): the mean over released records of
1 / (size of the record's class), i.e. #classes / #records, is at most ``threshold``."""
from __future__ import annotations

import numpy as np

from engine.privacy.risk_based import RiskBasedModel
from engine.schema import Param


def average_risk(sizes: np.ndarray) -> float:
    n = int(np.sum(sizes))
    return float(np.count_nonzero(sizes)) / n if n else 0.0


class AverageRisk(RiskBasedModel):
    name = "average-risk"
    # merging classes lowers #classes for the same records
    monotonic_without_suppression = True
    monotonic_with_suppression = True
    params = (Param("threshold", "float", 0.05, low=0, high=1, low_open=True, required=True,
                    label="Highest average risk",
                    help="the largest mean re-identification risk of the released records "
                         "(0.05: one in twenty)"),)
    label = "Average re-identification risk"
    summary = ("A prosecutor's chance of re-identifying a record, averaged over all "
               "released records, stays below the threshold.")

    def fulfilled(self, sizes: np.ndarray) -> bool:
        return average_risk(sizes) <= self.threshold

    def describe(self) -> str:
        return f"average risk <= {self.threshold:g}"
