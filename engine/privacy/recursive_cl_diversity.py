"""Recursive-(c,l)-diversity (Machanavajjhala et al. 2007).

With a class's sensitive-value frequencies sorted descending r1 >= r2 >= ... >= rm,
the class is diverse when it has at least l distinct values and
r1 < c * (r_l + r_{l+1} + ... + r_m).
"""
from __future__ import annotations

import numpy as np

from engine.privacy.distribution_kernels import recursive_cl_violating
from engine.kernel.sparse_counts import SparseCounts
from engine.privacy.sensitive import ATTRIBUTE, SensitiveAttributeModel
from engine.schema import Param


class RecursiveCLDiversity(SensitiveAttributeModel):
    name = "recursive-cl-diversity"
    monotonic_without_suppression = True
    monotonic_with_suppression = False
    params = (ATTRIBUTE,
              Param("c", "float", 3.0, low=0, low_open=True, required=True, label="c",
                    help="the most frequent value must be rarer than c times the l-th "
                         "and rarer values together"),
              Param("l", "int", 2, low=1, required=True, label="l", unit="distinct values",
                    help="the fewest distinct sensitive values in every class"))
    label = "Recursive (c,l)-diversity"
    summary = ("No sensitive value dominates a class: the most frequent one is rarer than "
               "c times the less frequent ones together.")

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        return recursive_cl_violating(dist.indptr, dist.count, self.c, self.l)

    def minimal_class_size(self) -> int:
        return self.l

    def describe(self) -> str:
        return f"recursive-({self.c:g},{self.l})-diversity of '{self.attribute}'"
