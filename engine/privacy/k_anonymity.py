"""k-anonymity: every equivalence class holds at least k records."""
from __future__ import annotations

import numpy as np

from engine.classes import Classes
from engine.privacy.base import PrivacyModel, class_sizes
from engine.schema import Param

K = Param("k", "int", 5, low=1, required=True, label="k", unit="records",
          help="the fewest records an equivalence class may hold")


class KAnonymity(PrivacyModel):
    name = "k-anonymity"
    monotonic_without_suppression = True
    monotonic_with_suppression = True
    monotonic_per_person = True
    params = (K,)
    label = "k-anonymity"
    summary = "Every record is indistinguishable from at least k-1 others on its quasi-identifiers."

    def violating(self, classes: Classes) -> np.ndarray:
        # with a research subset only subset records are released; with [data] person
        # a class holds at least k distinct persons
        return class_sizes(classes) < self.k

    def minimal_class_size(self) -> int:
        return self.k

    def describe(self) -> str:
        return f"{self.k}-anonymity"
