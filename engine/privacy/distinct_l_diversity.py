"""Distinct l-diversity: every class holds at least l distinct sensitive values."""
from __future__ import annotations

import numpy as np

from engine.privacy.sensitive import SensitiveAttributeModel
from engine.kernel.sparse_counts import SparseCounts


class DistinctLDiversity(SensitiveAttributeModel):
    name = "distinct-l-diversity"
    # merging classes never loses a value, and suppression removes whole classes
    monotonic_without_suppression = True
    monotonic_with_suppression = True

    def __init__(self, attribute: str, l: int):
        super().__init__(attribute)
        l = int(l)
        if l < 1:
            raise ValueError(f"l must be at least 1, got {l}")
        self.l = l

    @classmethod
    def from_dict(cls, d: dict) -> "DistinctLDiversity":
        return cls(d["attribute"], d["l"])

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        return dist.distinct() < self.l

    def minimal_class_size(self) -> int:
        return self.l

    def to_dict(self) -> dict:
        return {"model": self.name, "attribute": self.attribute, "l": self.l}

    def describe(self) -> str:
        return f"distinct-{self.l}-diversity of '{self.attribute}'"
