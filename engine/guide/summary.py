"""A result in plain words: what each quasi-identifier became, and alternatives.

Used by the guided release wizard; everything here works on an
`AnonymizationResult` and the levels of the released transformation.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AttributeChange:
    """What one quasi-identifier looks like in the release."""

    attribute: str
    level: int
    height: int
    distinct_before: int
    distinct_after: int
    example: tuple[str, str]  # the most frequent value and its released label

    def text(self) -> str:
        if self.level == 0:
            return f"kept as it is ({self.distinct_before:,} values)"
        if self.level >= self.height:
            return "removed: every record shows '*'"
        before, after = self.example
        return (f"level {self.level} of {self.height}: {self.distinct_before:,} values → "
                f"{self.distinct_after:,} groups, e.g. '{before}' → '{after}'")


@dataclass(frozen=True)
class Alternative:
    """Another anonymous transformation that keeps one attribute finer."""

    attribute: str
    levels: tuple[int, ...]
    information_loss_percent: float | None
    suppressed_records: int

    def text(self, current_percent: float | None, current_suppressed: int) -> str:
        def pct(x):
            return "?" if x is None else f"{x:.1f} %"
        return (f"Keep {self.attribute} finer: information loss {pct(self.information_loss_percent)}"
                f" instead of {pct(current_percent)}, {self.suppressed_records:,} records "
                f"suppressed instead of {current_suppressed:,}")


def attribute_changes(result, levels: Sequence[int]) -> list[AttributeChange]:
    """One `AttributeChange` per quasi-identifier at ``levels``."""
    problem = result.problem
    changes = []
    for j, name in enumerate(problem.qis):
        h = problem.hierarchies[j]
        level = int(levels[j])
        col = problem.table.column(name)
        counts = col.value_counts()
        present = counts > 0
        mapped = h.maps[level]
        labels = h.labels[level][mapped].astype(str)
        groups = len(np.unique(mapped[present])) if present.any() else 0
        # the most frequent value that changes (the most frequent one if none does)
        changed = present & (labels != col.dictionary.astype(str))
        pool = np.where(changed if changed.any() else present, counts, -1)
        top = int(np.argmax(pool))
        example = (str(col.dictionary[top]), str(labels[top]))
        changes.append(AttributeChange(name, level, len(h.labels) - 1, int(present.sum()),
                                       int(groups), example))
    return changes


def finer_alternatives(result, levels: Sequence[int]) -> list[Alternative]:
    """For each generalized quasi-identifier, the anonymous transformation with least
    loss that keeps it one level finer (others as they are, or one of them one level
    coarser): checked on demand, within the job's suppression limit."""
    problem = result.problem
    base = [int(x) for x in levels]
    lattice = problem.lattice
    found = []
    for j, name in enumerate(problem.qis):
        if base[j] <= lattice.min_levels[j]:
            continue
        finer = list(base)
        finer[j] -= 1
        candidates = [finer]
        for i in range(len(base)):
            if i != j and finer[i] < lattice.max_levels[i]:
                c = list(finer)
                c[i] += 1
                candidates.append(c)
        best = None
        for c in candidates:
            t = result.evaluate(c)
            if not t.anonymous:
                continue
            key = t.information_loss
            if best is None or key < best[0]:
                best = (key, t, c)
            if c is finer:
                break  # the plain one-level-finer transformation is the natural choice
        if best is not None:
            t = best[1]
            found.append(Alternative(name, tuple(best[2]), t.information_loss_percent,
                                     t.suppressed_records))
    return found
