"""delta-presence (Nergiz, Atzori & Clifton 2007) over a research subset.

The released data are the research subset; the attacker knows the whole
table (the population). For every class, the share of its population records
that are in the subset must lie within [delta_min, delta_max].
"""
from __future__ import annotations

import numpy as np

from engine.classes import Classes
from engine.privacy.base import ModelContext, PrivacyModel
from engine.schema import Param


class DeltaPresence(PrivacyModel):
    name = "delta-presence"
    counts_persons = False  # not defined per person: refused with [data] person
    monotonic_without_suppression = True
    monotonic_with_suppression = False
    uses_subset = True
    params = (Param("delta_min", "float", 0.0, low=0, high=1, required=True, label="δ min",
                    help="the smallest share of a class's records that may be in the subset"),
              Param("delta_max", "float", 0.5, low=0, high=1, required=True, label="δ max",
                    help="the largest share of a class's records that may be in the subset"))
    label = "δ-presence"
    summary = ("Whoever knows the whole table cannot tell with certainty whether a person "
               "is in the released research subset.")

    def setup(self) -> None:
        delta_min, delta_max = self.delta_min, self.delta_max
        if not delta_min <= delta_max:
            raise ValueError(f"delta_min = {delta_min:g} must not exceed delta_max = "
                             f"{delta_max:g}")
        self.empty_classes_fatal = True
        if delta_min == 0.0 and delta_max == 1.0:
            # a bare research subset: nothing to enforce
            self.monotonic_with_suppression = True

    def bind(self, ctx: ModelContext) -> None:
        # A class without subset records tells the attacker its individuals are not in
        # the subset (delta = 0 < delta_min); suppressing it cannot help, as none of its
        # records is released. ARX checks a minimal class size (k-anonymity,
        # l-diversity...) first, which flags such classes as suppressed instead, so
        # with such a model they pass; the engine does the same to give ARX's answers.
        self.empty_classes_fatal = not any(
            m is not self and m.minimal_class_size() for m in ctx.models)

    def violating(self, classes: Classes) -> np.ndarray:
        in_subset = classes.aggregates["subset"]
        delta = in_subset / classes.counts
        return (delta < self.delta_min) | (delta > self.delta_max)

    def table_ok(self, classes: Classes, suppressed: np.ndarray) -> bool:
        if not self.empty_classes_fatal or self.delta_min == 0.0:
            return True
        return not bool((classes.aggregates["subset"] == 0).any())

    def describe(self) -> str:
        return f"({self.delta_min:g},{self.delta_max:g})-presence"
