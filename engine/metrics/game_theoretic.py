"""Game-theoretic utility (Wan et al. 2015; Prasser et al. 2017): entropy-based
information loss and the publisher's payout.

A record's entropy-based information loss is, summed over the
quasi-identifiers, log10 of the number of hierarchy rows its generalized
value stands for, divided by its maximum (every value ``*``): 0 for original
values, 1 for a suppressed record.

The publisher earns ``benefit * (1 - loss)`` for a released record; an
adversary attacks it when ``gain * p - cost > 0`` (``p`` = 1 / the size of the
record's class: in the released data for a prosecutor, in the population for
a journalist), and the publisher then also loses ``loss * p``. Suppressed
records earn nothing.
"""
from __future__ import annotations

import math

import numpy as np

from engine.classes import Classes
from engine.hierarchy.encoded import EncodedHierarchy
from engine.metrics.base import Loss, Metric
from engine.schema import Param

ATTACKERS = ("prosecutor", "journalist")

#: the attacker and the costs and benefits of publishing, shared by the profitability
#: model and the publisher-payout metric (defaults: ARX's examples)
ATTACKER = Param("attacker", "choice", "prosecutor", choices=ATTACKERS, label="Attacker",
                 help="prosecutor: knows the person is in the data; journalist: only that "
                      "the person is in the population (needs [subset])")
PAYOUT_PARAMS = (
    Param("publisher_benefit", "float", 1200.0, low=0, label="Publisher benefit",
          unit="per record", help="what the publisher earns for each record released"),
    Param("publisher_loss", "float", 300.0, low=0, label="Publisher loss",
          unit="per record", help="what the publisher loses when a record is re-identified"),
    Param("adversary_gain", "float", 300.0, low=0, label="Adversary gain",
          unit="per record", help="what an attacker gains by re-identifying a record"),
    Param("adversary_cost", "float", 4.0, low=0, label="Adversary cost",
          unit="per attack", help="what an attack on one record costs the attacker"),
)


class EntropyInformationLoss:
    """Per-class relative entropy-based information loss for a list of QI hierarchies."""

    def __init__(self, hierarchies: list[EncodedHierarchy]):
        self.log_rows = [[np.log10(np.maximum(c, 1)).astype(float) for c in h.rows_per_label]
                         for h in hierarchies]
        self.maximum = float(sum(math.log10(max(h.n_rows, 1)) for h in hierarchies))

    def of_classes(self, classes: Classes) -> np.ndarray:
        total = np.zeros(classes.n_classes)
        for j, table in enumerate(self.log_rows):
            total += table[int(classes.levels[j])][classes.gen[:, j]]
        return total / self.maximum if self.maximum > 0 else total


def publisher_payout(benefit: float, loss: float, gain: float, cost: float,
                     information_loss: np.ndarray, success: np.ndarray) -> np.ndarray:
    """The publisher's expected payout per released record."""
    attacked = gain * success - cost > 0
    return benefit * (1.0 - information_loss) - np.where(attacked, loss * success, 0.0)


class EntropyBasedLoss(Metric):
    """Sum over records of their relative entropy-based information loss
    (suppressed records count 1)."""

    name = "entropy-based-loss"
    label = "Entropy-based information loss"
    summary = ("Each record's loss is the share of its values' possible originals, on a log scale (suppressed: 1).")
    has_monotonic_variant = False
    floored = False

    def prepare(self) -> None:
        self.loss = EntropyInformationLoss(self.ctx.hierarchies)

    def is_monotonic(self, suppression_limit: float) -> bool:
        return suppression_limit == 0.0

    def evaluate(self, classes: Classes, suppressed: np.ndarray,
                 counts: np.ndarray | None = None) -> Loss:
        counts = (classes.counts if counts is None else counts).astype(float)
        il = self.loss.of_classes(classes)
        return float((counts * np.where(suppressed, 1.0, il)).sum())

    def class_losses(self, classes: Classes, counts: np.ndarray) -> np.ndarray:
        """The class's records times their relative entropy-based loss."""
        return counts * self.loss.of_classes(classes)


class PublisherPayout(Metric):
    """The payout the publisher forgoes: ``N * benefit`` minus the expected payout."""

    name = "publisher-payout"
    has_monotonic_variant = False
    floored = False

    extra_params = (ATTACKER, *PAYOUT_PARAMS)
    label = "Publisher payout"
    summary = ("What the publisher forgoes against releasing every record unchanged, "
               "with the costs and benefits of a game against an attacker.")

    def prepare(self) -> None:
        self.loss = EntropyInformationLoss(self.ctx.hierarchies)

    def is_monotonic(self, suppression_limit: float) -> bool:
        return False

    def _payout(self, classes: Classes, counts: np.ndarray) -> np.ndarray:
        """The expected payout per record of each class."""
        sizes = classes.counts if self.attacker == "journalist" else counts
        success = np.where(sizes > 0, 1.0 / np.maximum(sizes, 1), 0.0)
        return publisher_payout(self.publisher_benefit, self.publisher_loss,
                                self.adversary_gain, self.adversary_cost,
                                self.loss.of_classes(classes), success)

    def evaluate(self, classes: Classes, suppressed: np.ndarray,
                 counts: np.ndarray | None = None) -> Loss:
        counts = (classes.counts if counts is None else counts).astype(float)
        pay = self._payout(classes, counts)
        released = ~suppressed & (counts > 0)
        return float(counts.sum() * self.publisher_benefit
                     - (counts[released] * pay[released]).sum())

    def class_losses(self, classes: Classes, counts: np.ndarray) -> np.ndarray:
        """What the class's records forgo: ``benefit - payout`` each."""
        return counts * (self.publisher_benefit - self._payout(classes, counts))
