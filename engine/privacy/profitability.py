"""Game-theoretic profitability (Wan et al. 2015): release only what pays off.

The adversary attacks a record when the expected gain exceeds the cost,
``adversary_gain * p - adversary_cost > 0``, ``p`` = 1 / the record's class size
(in the released data for a prosecutor; in the population, i.e. the whole
table around a research subset, for a journalist).

- ``allow_attack = false``: no record may be worth attacking, i.e. every class
  holds at least ``k = floor(gain / cost) + 1`` records: k-anonymity
  (prosecutor) or k-map (journalist).
- ``allow_attack = true``: a class is released when the publisher's expected
  payout for its records is positive: ``publisher_benefit * (1 - loss)``
  minus ``publisher_loss * p`` if attacked, ``loss`` the records' relative
  entropy-based information loss (``engine.metrics.game_theoretic``).
"""
from __future__ import annotations

import math

import numpy as np

from engine.classes import Classes
from engine.errors import JobError
from engine.hierarchy.encoded import EncodedHierarchy
from engine.metrics.game_theoretic import (ATTACKER, PAYOUT_PARAMS, EntropyInformationLoss,
                                           publisher_payout)
from engine.privacy.base import ModelContext, PrivacyModel
from engine.schema import Param


class Profitability(PrivacyModel):
    name = "profitability"
    counts_persons = False  # not defined per person: refused with [data] person
    monotonic_without_suppression = False
    monotonic_with_suppression = False
    params = (ATTACKER,
              Param("allow_attack", "bool", True, label="Allow attacks",
                    help="true: release a class when the publisher's expected payout is "
                         "positive; false: no record may be worth attacking"),
              *PAYOUT_PARAMS)
    label = "Game-theoretic profitability"
    summary = ("Release only what pays off for the publisher against a rational attacker "
               "who weighs the gain of re-identification against its cost.")

    def setup(self) -> None:
        self.uses_subset = self.attacker == "journalist"
        if not self.allow_attack:
            if self.adversary_cost <= 0:
                raise ValueError("adversary_cost must be positive when no attack is allowed")
            self.k = int(math.floor(self.adversary_gain / self.adversary_cost)) + 1
            self.monotonic_without_suppression = True
            self.monotonic_with_suppression = True
        else:
            self.k = None
        self.information_loss: EntropyInformationLoss | None = None
        self.hierarchies: dict = {}  # QI -> Hierarchy, for independent re-verification

    def bind(self, ctx: ModelContext) -> None:
        if not self.allow_attack:
            return
        hierarchies = []
        self.hierarchies = {}
        for q in ctx.qis:
            h = ctx.hierarchies.get(q)
            if h is None:
                raise JobError(f"profitability needs a hierarchy for '{q}'")
            self.hierarchies[q] = h
            hierarchies.append(EncodedHierarchy.build(h, ctx.table.column(q).dictionary, q))
        self.information_loss = EntropyInformationLoss(hierarchies)

    def _sizes(self, classes: Classes) -> np.ndarray:
        if self.attacker == "journalist":
            return classes.counts
        return classes.aggregates.get("subset", classes.counts)

    def violating(self, classes: Classes) -> np.ndarray:
        sizes = self._sizes(classes)
        if not self.allow_attack:
            return sizes < self.k
        success = 1.0 / np.maximum(sizes, 1)
        pay = publisher_payout(self.publisher_benefit, self.publisher_loss,
                               self.adversary_gain, self.adversary_cost,
                               self.information_loss.of_classes(classes), success)
        return (sizes == 0) | ~(pay > 0)

    def minimal_class_size(self) -> int | None:
        return self.k if not self.allow_attack and self.attacker == "prosecutor" else None

    def describe(self) -> str:
        kind = "profitability" if self.allow_attack else "no-attack profitability"
        return f"{kind} ({self.attacker})"
