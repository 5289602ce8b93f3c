"""Priority builder: suppress the lowest-priority values first, one batch per level.

Values are ranked (by frequency, natural order or a user-defined list), and
split into ``min(n, max_levels)`` batches of about equal size. Level ``l``
keeps the values of the ``levels - l`` highest-priority batches and replaces
the others by ``top_label``; the top level replaces every value (as ARX's
priority-based builder does).
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.data.datatypes import DataType, Kind, StringType
from engine.data.table import EncodedColumn
from engine.hierarchy.builders.base import (TOP, BuilderError, BuilderSpec, ColumnValues,
                                            check_kind, check_parsable, column_values, finish,
                                            natural_order, take, type_from_json, type_to_json)
from engine.hierarchy.model import Hierarchy

PRIORITIES = ("frequency", "natural", "custom")


@dataclass(frozen=True)
class PrioritySpec(BuilderSpec):
    """Specification of a priority-based hierarchy.

    Parameters
    ----------
    data_type
        Gives the natural order (and the tie-break between equal frequencies).
    priority
        ``"frequency"`` (needs the whole column, not only distinct values),
        ``"natural"`` (the data type's order) or ``"custom"`` (``order``).
    highest_first
        Whether the first value of the ranking (the most frequent, the
        largest, or the first listed) has the highest priority, i.e. is kept
        longest. ``False`` reverses the ranking.
    order
        The custom ranking; present values not listed are an error.
    max_levels
        At most this many generalization levels above level 0.
    top_label
        The label that replaces a suppressed value.
    """

    name: ClassVar[str] = "priority"
    title: ClassVar[str] = "Priority"

    data_type: DataType = field(default_factory=StringType)
    priority: str = "frequency"
    highest_first: bool = True
    order: tuple[str, ...] = ()
    max_levels: int = 10
    top_label: str = TOP

    def __post_init__(self) -> None:
        check_kind(self, self.data_type)
        object.__setattr__(self, "order", tuple(str(v) for v in self.order))
        if self.priority not in PRIORITIES:
            raise BuilderError(f"priority must be one of {', '.join(PRIORITIES)}, "
                               f"not '{self.priority}'")
        if self.priority == "custom" and not self.order:
            raise BuilderError("a custom priority needs an order of values")
        if len(set(self.order)) != len(self.order):
            raise BuilderError("the priority order lists a value more than once")
        if (isinstance(self.max_levels, bool) or not isinstance(self.max_levels, int)
                or self.max_levels < 1):
            raise BuilderError(f"max_levels must be a whole number >= 1, not {self.max_levels!r}")
        if not self.top_label:
            raise BuilderError("the top label must not be empty (that is the missing value)")

    def ranking(self, values: Iterable[Any] | EncodedColumn) -> list[str]:
        """Present distinct values of ``values`` from highest to lowest priority."""
        return self._ranking(column_values(values))

    def _ranking(self, cv: ColumnValues) -> list[str]:
        if self.data_type.kind is not Kind.STRING:
            check_parsable(self.data_type, cv.present)
        natural = natural_order(self.data_type, cv.present)
        if self.priority == "natural":
            ranked = natural[::-1]
        elif self.priority == "frequency":
            count = cv.count_of()
            ranked = sorted(natural, key=lambda v: -count[v])  # stable: ties in natural order
        else:
            listed = set(self.order)
            unlisted = [v for v in cv.present if v not in listed]
            if unlisted:
                shown = ", ".join(f"'{v}'" for v in unlisted[:5])
                raise BuilderError(f"the priority order does not list {len(unlisted)} "
                                   f"value(s) of the data: {shown}")
            there = set(cv.present)
            ranked = [v for v in self.order if v in there]
        return ranked if self.highest_first else ranked[::-1]

    def build(self, values: Iterable[Any] | EncodedColumn, attribute: str = "") -> Hierarchy:
        """The hierarchy of the distinct values of ``values`` (missing ``""`` stays ``""``)."""
        cv = column_values(values)
        ranked = self._ranking(cv)
        levels = min(len(ranked), self.max_levels)
        share = len(ranked) / levels if levels else 1.0
        rows = []
        for i, v in enumerate(ranked):
            # The value is kept below this level (the top batch: up to the top level).
            kept_below = levels - math.floor(i / share)
            rows.append([v] + [v if level < kept_below else self.top_label
                               for level in range(1, levels + 1)])
        order = {v: i for i, v in enumerate(natural_order(self.data_type, ranked))}
        rows.sort(key=lambda r: order[r[0]])
        return finish(rows, levels + 1, cv.has_missing, attribute, self.name)

    def _fields_to_json(self) -> dict[str, Any]:
        return {"data_type": type_to_json(self.data_type), "priority": self.priority,
                "highest_first": self.highest_first, "order": list(self.order),
                "max_levels": self.max_levels, "top_label": self.top_label}

    @classmethod
    def _from_fields(cls, fields: dict[str, Any]) -> "PrioritySpec":
        f = take(fields, ("data_type", "priority", "highest_first", "order", "max_levels",
                          "top_label"))
        if not isinstance(f.get("highest_first", True), bool):
            raise BuilderError("highest_first must be true or false")
        return cls(type_from_json(f.get("data_type", "string")), str(f.get("priority",
                   "frequency")), f.get("highest_first", True), tuple(f.get("order", ())),
                   f.get("max_levels", 10), str(f.get("top_label", TOP)))

