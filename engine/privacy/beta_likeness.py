"""beta-likeness (Cao & Karras 2012): no class raises the frequency of a sensitive value
too far above its overall frequency p.

Basic: for every value with class frequency q > p, (q - p) / p <= beta.
Enhanced: (q - p) / p <= min(beta, -ln p), which also bounds frequent values.
"""
from __future__ import annotations

import numpy as np

from engine.privacy.distribution_kernels import beta_likeness_violating
from engine.kernel.sparse_counts import SparseCounts
from engine.privacy.sensitive import ATTRIBUTE, SensitiveAttributeModel
from engine.schema import Param


class BetaLikeness(SensitiveAttributeModel):
    name = "beta-likeness"
    monotonic_without_suppression = True
    monotonic_with_suppression = False
    params = (ATTRIBUTE,
              Param("beta", "float", 1.0, low=0, low_open=True, required=True, label="β",
                    help="the largest relative increase (q - p) / p of a sensitive value's "
                         "frequency in a class over the whole table"),
              Param("enhanced", "bool", False, label="Enhanced",
                    help="also bound frequent values: the limit is min(β, -ln p)"))
    label = "β-likeness"
    summary = ("No class makes a sensitive value much more frequent than it is in the "
               "whole table.")

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        return (dist.distinct() == 0) | beta_likeness_violating(
            dist.indptr, dist.value, dist.count, self.overall, self.beta, self.enhanced)

    def describe(self) -> str:
        kind = "enhanced" if self.enhanced else "basic"
        return f"{kind}-{self.beta:g}-likeness of '{self.attribute}'"
