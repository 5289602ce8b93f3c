"""beta-likeness (Cao & Karras 2012): no class raises the frequency of a sensitive value
too far above its overall frequency p.

Basic: for every value with class frequency q > p, (q - p) / p <= beta.
Enhanced: (q - p) / p <= min(beta, -ln p), which also bounds frequent values.
"""
from __future__ import annotations

import numpy as np

from engine.privacy.distribution_kernels import beta_likeness_violating
from engine.privacy.sensitive import SensitiveAttributeModel
from engine.kernel.sparse_counts import SparseCounts


class BetaLikeness(SensitiveAttributeModel):
    name = "beta-likeness"
    monotonic_without_suppression = True
    monotonic_with_suppression = False

    def __init__(self, attribute: str, beta: float, enhanced: bool = False):
        super().__init__(attribute)
        beta = float(beta)
        if beta <= 0:
            raise ValueError(f"beta must be positive, got {beta}")
        self.beta = beta
        self.enhanced = bool(enhanced)

    @classmethod
    def from_dict(cls, d: dict) -> "BetaLikeness":
        return cls(d["attribute"], d["beta"], d.get("enhanced", False))

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        return (dist.distinct() == 0) | beta_likeness_violating(
            dist.indptr, dist.value, dist.count, self.overall, self.beta, self.enhanced)

    def to_dict(self) -> dict:
        return {"model": self.name, "attribute": self.attribute, "beta": self.beta,
                "enhanced": self.enhanced}

    def describe(self) -> str:
        kind = "enhanced" if self.enhanced else "basic"
        return f"{kind}-{self.beta:g}-likeness of '{self.attribute}'"
