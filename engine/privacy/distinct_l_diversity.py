"""Distinct l-diversity: every class holds at least l distinct sensitive values."""
from __future__ import annotations

import numpy as np

from engine.kernel.sparse_counts import SparseCounts
from engine.privacy.sensitive import ATTRIBUTE, SensitiveAttributeModel
from engine.schema import Param


class DistinctLDiversity(SensitiveAttributeModel):
    name = "distinct-l-diversity"
    # merging classes never loses a value, and suppression removes whole classes
    monotonic_without_suppression = True
    monotonic_with_suppression = True
    # a value is in a class when one of its persons holds it, as with records
    monotonic_per_person = True
    params = (ATTRIBUTE, Param("l", "int", 2, low=1, required=True, label="l",
                               unit="distinct values",
                               help="the fewest distinct sensitive values in every class"))
    label = "Distinct l-diversity"
    summary = "Every class holds at least l different values of the sensitive attribute."

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        return dist.distinct() < self.l

    def minimal_class_size(self) -> int:
        return self.l

    def describe(self) -> str:
        return f"distinct-{self.l}-diversity of '{self.attribute}'"
