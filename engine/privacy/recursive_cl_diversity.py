"""Recursive-(c,l)-diversity (Machanavajjhala et al. 2007).

With a class's sensitive-value frequencies sorted descending r1 >= r2 >= ... >= rm,
the class is diverse when it has at least l distinct values and
r1 < c * (r_l + r_{l+1} + ... + r_m).
"""
from __future__ import annotations

import numpy as np

from engine.privacy.distribution_kernels import recursive_cl_violating
from engine.privacy.sensitive import SensitiveAttributeModel
from engine.kernel.sparse_counts import SparseCounts


class RecursiveCLDiversity(SensitiveAttributeModel):
    name = "recursive-cl-diversity"
    monotonic_without_suppression = True
    monotonic_with_suppression = False

    def __init__(self, attribute: str, c: float, l: int):
        super().__init__(attribute)
        c, l = float(c), int(l)
        if c <= 0:
            raise ValueError(f"c must be positive, got {c}")
        if l < 1:
            raise ValueError(f"l must be at least 1, got {l}")
        self.c = c
        self.l = l

    @classmethod
    def from_dict(cls, d: dict) -> "RecursiveCLDiversity":
        return cls(d["attribute"], d["c"], d["l"])

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        return recursive_cl_violating(dist.indptr, dist.count, self.c, self.l)

    def minimal_class_size(self) -> int:
        return self.l

    def to_dict(self) -> dict:
        return {"model": self.name, "attribute": self.attribute, "c": self.c, "l": self.l}

    def describe(self) -> str:
        return f"recursive-({self.c:g},{self.l})-diversity of '{self.attribute}'"
