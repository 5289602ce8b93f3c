"""delta-disclosure privacy (Brickell & Shmatikov 2008): for every sensitive value a
class contains, |ln(q / p)| < delta, q its frequency in the class and p overall."""
from __future__ import annotations

import numpy as np

from engine.privacy.distribution_kernels import delta_disclosure_violating
from engine.kernel.sparse_counts import SparseCounts
from engine.privacy.sensitive import ATTRIBUTE, SensitiveAttributeModel
from engine.schema import Param


class DeltaDisclosure(SensitiveAttributeModel):
    name = "delta-disclosure"
    # merging classes can dilute a value below p * exp(-delta): not monotonic
    monotonic_without_suppression = False
    monotonic_with_suppression = False
    params = (ATTRIBUTE,
              Param("delta", "float", 1.0, low=0, low_open=True, required=True, label="δ",
                    help="the largest |ln(class frequency / overall frequency)| of any "
                         "sensitive value (no upper limit)"))
    label = "δ-disclosure privacy"
    summary = ("Within every class, each sensitive value is neither much more nor much "
               "less frequent than in the whole table.")

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        return (dist.distinct() == 0) | delta_disclosure_violating(
            dist.indptr, dist.value, dist.count, self.overall, self.delta)

    def describe(self) -> str:
        return f"{self.delta:g}-disclosure privacy of '{self.attribute}'"
