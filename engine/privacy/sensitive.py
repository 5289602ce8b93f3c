"""Shared machinery of the attribute-disclosure models (l-diversity, t-closeness, ...).

Every such model names a sensitive ``attribute``. It asks the classifier for a
per-record distribution of that attribute (key ``"sensitive:<attribute>"``, a
sparse ``SparseCounts``), so each class carries the frequency of every
sensitive value it contains, merged during roll-up. Models on the same attribute share
the matrix because they use the same key.

When a research subset is present only subset records are released, so the
distributions count subset records only and the overall distribution (for
t-closeness, beta-likeness, delta-disclosure) is that of the subset.

With ``[data] person`` the distributions count persons: each value of a class
counts the distinct persons holding it there (a person with several values
counts once for each), and the overall distribution counts each person once per
value they hold (docs/reference/person-level-models.md).
"""
from __future__ import annotations

import numpy as np

from engine.classes import Classes
from engine.errors import JobError
from engine.privacy.base import ModelContext, PrivacyModel
from engine.kernel.person_counts import PersonCounts, PersonRows
from engine.kernel.sparse_counts import SparseCounts
from engine.schema import Param

#: the sensitive attribute every attribute-disclosure model names first
ATTRIBUTE = Param("attribute", "attribute", None, required=True, label="Sensitive attribute",
                  help="the attribute whose values the model protects (of type sensitive)")


def sensitive_key(attribute: str) -> str:
    return f"sensitive:{attribute}"


def check_sensitive_roles(models, attributes) -> None:
    """Refuse a model whose sensitive attribute is identifying, naming the model and the
    attribute (``attributes``: a job's name -> ``AttributeConfig``). An identifying
    column is removed from the release (or replaced by pseudonyms), so a model on it
    would hold trivially and protect nothing; a quasi-identifier in that place is
    refused when the model is bound (``SensitiveAttributeModel.bind``)."""
    for i, m in enumerate(models, start=1):
        attribute = getattr(m, "attribute", None) if isinstance(
            m, SensitiveAttributeModel) else None
        a = attributes.get(attribute) if attribute is not None else None
        if a is not None and a.type == "identifying":
            raise JobError(
                f"[[privacy]] #{i} ({m.name}): '{attribute}' is identifying (removed from "
                f"the release), so {m.name} on it would protect nothing; the sensitive "
                f"attribute must be of type 'sensitive'")


class SensitiveAttributeModel(PrivacyModel):
    """Base of models judging each class's distribution of one sensitive attribute."""

    monotonic_without_suppression = True
    monotonic_with_suppression = False

    def setup(self) -> None:
        self.codes: np.ndarray | None = None
        self.dictionary: np.ndarray | None = None
        self.overall: np.ndarray | None = None  # relative frequency of each code

    @property
    def key(self) -> str:
        return sensitive_key(self.attribute)

    def bind(self, ctx: ModelContext) -> None:
        if self.attribute not in ctx.table:
            raise JobError(f"{self.name}: sensitive attribute '{self.attribute}' is not a "
                           f"column of the data")
        if self.attribute in ctx.qis:
            raise JobError(f"{self.name}: '{self.attribute}' is a quasi-identifier; the "
                           f"sensitive attribute must be of type 'sensitive'")
        column = ctx.table.column(self.attribute)
        self.codes = column.codes
        self.dictionary = column.dictionary
        if not ctx.counts_persons:
            counts = ctx.table.value_counts(self.attribute, ctx.subset).astype(np.float64)
        else:  # the persons holding each value (once each)
            counts = self._person_rows(ctx).rollup(
                np.zeros(len(self.codes), np.int64), 1).by_value().dense()[0].astype(
                    np.float64)
        total = counts.sum()
        self.overall = counts / total if total > 0 else counts

    def _person_rows(self, ctx: ModelContext):
        """Each row's person and value (``PersonRows``), or out of core the persons
        the backend counted per value (``engine.kernel.person_tallies``)."""
        if ctx.person_tallies is not None:
            return ctx.person_tallies.of(self.attribute)
        return PersonRows(ctx.persons, ctx.n_persons, self.codes, len(self.dictionary),
                          ctx.subset)

    def row_aggregates(self, ctx: ModelContext) -> dict:
        if ctx.counts_persons:
            return {self.key: self._person_rows(ctx)}
        return {self.key: SparseCounts.from_codes(self.codes, len(self.dictionary), ctx.subset)}

    def distributions(self, classes: Classes) -> SparseCounts:
        """Each class's sensitive-value counts (of records, or of persons holding them)."""
        dist = classes.aggregates[self.key]
        return dist.by_value() if isinstance(dist, PersonCounts) else dist

    def violating(self, classes: Classes) -> np.ndarray:
        return self.violating_distributions(self.distributions(classes))

    def violating_distributions(self, dist: SparseCounts) -> np.ndarray:
        """Boolean mask of the classes (items of ``dist``) that violate the model."""
        raise NotImplementedError
