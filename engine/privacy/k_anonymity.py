"""k-anonymity: every equivalence class holds at least k records."""
from __future__ import annotations

import numpy as np

from engine.classes import Classes
from engine.privacy.base import PrivacyModel


class KAnonymity(PrivacyModel):
    name = "k-anonymity"
    monotonic_without_suppression = True
    monotonic_with_suppression = True

    def __init__(self, k: int):
        k = int(k)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        self.k = k

    @classmethod
    def from_dict(cls, d: dict) -> "KAnonymity":
        return cls(k=d["k"])

    def violating(self, classes: Classes) -> np.ndarray:
        # with a research subset only subset records are released
        return classes.aggregates.get("subset", classes.counts) < self.k

    def minimal_class_size(self) -> int:
        return self.k

    def to_dict(self) -> dict:
        return {"model": self.name, "k": self.k}

    def describe(self) -> str:
        return f"{self.k}-anonymity"
