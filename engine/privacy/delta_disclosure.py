"""delta-disclosure privacy (Brickell & Shmatikov 2008): for every sensitive value a
class contains, |ln(q / p)| < delta, q its frequency in the class and p overall."""
from __future__ import annotations

import numpy as np

from engine.privacy.distribution_kernels import delta_disclosure_violating
from engine.privacy.sensitive import SensitiveAttributeModel
from engine.kernel.sparse_counts import SparseCounts


class DeltaDisclosure(SensitiveAttributeModel):
    name = "delta-disclosure"
    # merging classes can dilute a value below p * exp(-delta): not monotonic
    monotonic_without_suppression = False
    monotonic_with_suppression = False

    def __init__(self, attribute: str, delta: float):
        super().__init__(attribute)
        delta = float(delta)
        if delta <= 0:
            raise ValueError(f"delta must be positive, got {delta}")
        self.delta = delta

    @classmethod
    def from_dict(cls, d: dict) -> "DeltaDisclosure":
        return cls(d["attribute"], d["delta"])

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        return (dist.distinct() == 0) | delta_disclosure_violating(
            dist.indptr, dist.value, dist.count, self.overall, self.delta)

    def to_dict(self) -> dict:
        return {"model": self.name, "attribute": self.attribute, "delta": self.delta}

    def describe(self) -> str:
        return f"{self.delta:g}-disclosure privacy of '{self.attribute}'"
