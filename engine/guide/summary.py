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
            return (f"kept as it is ({self.distinct_before:,} "
                    f"value{'' if self.distinct_before == 1 else 's'})")
        if self.level >= self.height:
            return "removed: every record shows '*'"
        before, after = self.example
        return (f"level {self.level} of {self.height}: {self.distinct_before:,} values → "
                f"{self.distinct_after:,} groups, e.g. '{before}' → '{after}'")


@dataclass(frozen=True)
class Alternative:
    """Another anonymous transformation that keeps one attribute finer, and what it
    costs: the attribute made coarser in exchange, if any, said in the text."""

    attribute: str
    levels: tuple[int, ...]
    information_loss_percent: float | None
    suppressed_records: int
    #: (attribute, its new level, its height) when another attribute is made coarser
    coarser: tuple[str, int, int] | None = None

    def text(self, current_percent: float | None, current_suppressed: int) -> str:
        def pct(x):
            return "?" if x is None else f"{x:.1f} %"
        head = f"Keep {self.attribute} finer"
        if self.coarser is not None:
            name, level, height = self.coarser
            head += (f", {name} removed (every record shows '*')" if level >= height
                     else f", {name} coarser (level {level} of {height})")
        same_loss = pct(self.information_loss_percent) == pct(current_percent)
        loss = (f"the same information loss ({pct(current_percent)})" if same_loss
                else f"information loss {pct(self.information_loss_percent)} instead of "
                     f"{pct(current_percent)}")
        suppressed = (f"{self.suppressed_records:,} records suppressed"
                      + ("" if self.suppressed_records == current_suppressed
                         else f" instead of {current_suppressed:,}"))
        return f"{head}: {loss}, {suppressed}"


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


def _same_release(problem, a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether two transformations show every present value with the same label (the
    released quasi-identifiers would be identical)."""
    for j, name in enumerate(problem.qis):
        if a[j] == b[j]:
            continue
        h = problem.hierarchies[j]
        present = problem.table.column(name).value_counts() > 0
        la = h.labels[a[j]][h.maps[a[j]]][present].astype(str)
        lb = h.labels[b[j]][h.maps[b[j]]][present].astype(str)
        if not np.array_equal(la, lb):
            return False
    return True


def finer_alternatives(result, levels: Sequence[int]) -> list[Alternative]:
    """For each generalized quasi-identifier, the anonymous transformation with least
    loss that keeps it one level finer (others as they are, or one of them one level
    coarser, which the alternative names): checked on demand, within the job's
    suppression limit. An alternative whose release would show the same values as the
    current one (a level that changes no present value) is left out."""
    problem = result.problem
    base = [int(x) for x in levels]
    lattice = problem.lattice
    found = []
    for j, name in enumerate(problem.qis):
        if base[j] <= lattice.min_levels[j]:
            continue
        finer = list(base)
        finer[j] -= 1
        if _same_release(problem, finer, base):
            continue  # the finer level shows the same values: nothing would change
        candidates: list[tuple[list[int], int | None]] = [(finer, None)]
        for i in range(len(base)):
            if i != j and finer[i] < lattice.max_levels[i]:
                c = list(finer)
                c[i] += 1
                candidates.append((c, i))
        best = None
        for c, coarser in candidates:
            t = result.evaluate(c)
            if not t.anonymous:
                continue
            key = t.information_loss
            if best is None or key < best[0]:
                best = (key, t, c, coarser)
            if coarser is None:
                break  # the plain one-level-finer transformation is the natural choice
        if best is not None:
            _, t, c, i = best
            trade = (None if i is None else
                     (problem.qis[i], int(c[i]), len(problem.hierarchies[i].labels) - 1))
            found.append(Alternative(name, tuple(c), t.information_loss_percent,
                                     t.suppressed_records, trade))
    return found
