"""Ordering builder: values in natural or user-defined order, grouped level by level.

Levels of the result: 0 the values; one level per entry of ``levels`` (level 1
groups consecutive values, level 2 groups level-1 groups, ...); last the
``top_label``. Group sizes repeat along the order, as in the intervals builder.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from engine.data.datatypes import DataType, Kind, StringType
from engine.data.table import EncodedColumn
from engine.hierarchy.builders.base import (TOP, BuilderError, BuilderSpec, check_kind,
                                            check_parsable, column_values, finish,
                                            natural_order, take, type_from_json, type_to_json)
from engine.hierarchy.builders.grouping import Level, assign, levels_to_json, normalize_levels
from engine.hierarchy.builders.labels import NUMERIC_FUNCTIONS, GroupInfo, Label, apply_label
from engine.hierarchy.builders.scales import Scale
from engine.hierarchy.model import Hierarchy

NUMERIC_KINDS = frozenset({Kind.INTEGER, Kind.DECIMAL, Kind.DATE})


@dataclass(frozen=True)
class OrderingSpec(BuilderSpec):
    """Specification of a hierarchy grouping values in order.

    Parameters
    ----------
    data_type
        Gives the natural order (numbers by value, dates by time, ordinals by
        their order, strings alphabetically).
    order
        A user-defined order of values; empty means the natural order. Group
        positions count every listed value, present in the data or not, so
        a hierarchy built on a subset groups alike. Present values that are
        not listed are an error.
    levels
        Grouping levels: group sizes per level, ``[3, 2]`` or
        ``[[{"size": 2, "label": "set"}], ...]``; default label ``set``.
    top_label
        Label of the last level.
    """

    name: ClassVar[str] = "ordering"
    title: ClassVar[str] = "Ordering"

    data_type: DataType = field(default_factory=StringType)
    order: tuple[str, ...] = ()
    levels: tuple[Level, ...] = ()
    top_label: str = TOP

    def __post_init__(self) -> None:
        check_kind(self, self.data_type)
        object.__setattr__(self, "order", tuple(str(v) for v in self.order))
        object.__setattr__(self, "levels", normalize_levels(self.levels, Label("set")))
        if len(set(self.order)) != len(self.order):
            dup = next(v for v in self.order if self.order.count(v) > 1)
            raise BuilderError(f"the order lists '{dup}' more than once")
        if "" in self.order:
            raise BuilderError("the order must not list the missing value ''")
        if not self.top_label:
            raise BuilderError("the top label must not be empty (that is the missing value)")
        for level in self.levels:
            for g in level:
                if g.label.function == "interval":
                    raise BuilderError("the interval label needs the intervals builder; "
                                       "use bounds, set, prefix, constant or a mean")
                if g.label.function in NUMERIC_FUNCTIONS and (
                        self.data_type.kind not in NUMERIC_KINDS
                        or (g.label.function == "geometric_mean"
                            and self.data_type.kind is Kind.DATE)):
                    raise BuilderError(f"the {g.label.function} label does not apply to "
                                       f"{self.data_type.name} values")

    def ordered(self, values: Iterable[str]) -> list[str]:
        """The present ``values`` in this specification's order."""
        present = [v for v in dict.fromkeys(values) if v != ""]
        if not self.order:
            return natural_order(self.data_type, present)
        listed = set(self.order)
        missing = [v for v in present if v not in listed]
        if missing:
            shown = ", ".join(f"'{v}'" for v in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            raise BuilderError(f"the user-defined order does not list {len(missing)} "
                               f"value(s) of the data: {shown}{more}")
        there = set(present)
        return [v for v in self.order if v in there]

    def build(self, values: Iterable[Any] | EncodedColumn, attribute: str = "") -> Hierarchy:
        """The hierarchy of the distinct values of ``values`` (missing ``""`` stays ``""``)."""
        cv = column_values(values)
        ordered = self.ordered(cv.present)
        numeric = self.data_type.kind in NUMERIC_KINDS
        if self.data_type.kind is not Kind.STRING:
            check_parsable(self.data_type, ordered)
        scale = Scale(self.data_type)
        numbers = {v: scale.parse(v) for v in ordered} if numeric else {}
        position = ({v: i for i, v in enumerate(self.order)} if self.order
                    else {v: i for i, v in enumerate(ordered)})
        base = {v: position[v] for v in ordered}
        columns = []
        for depth, where in enumerate(assign(base, self.levels)):
            members: dict[int, list[str]] = {}
            for v in ordered:
                members.setdefault(where[v][0], []).append(v)
            named = {}
            for g, group in members.items():
                label = self.levels[depth][where[group[0]][1]].label
                nums: list[Decimal] | None = [numbers[v] for v in group] if numeric else None
                named[g] = apply_label(label, GroupInfo(group, nums,
                                                        format_number=scale.format_mean))
            columns.append({v: named[g] for v, (g, _) in where.items()})
        rows = [[v] + [col[v] for col in columns] + [self.top_label] for v in ordered]
        return finish(rows, len(columns) + 2, cv.has_missing, attribute, self.name)

    def _fields_to_json(self) -> dict[str, Any]:
        return {"data_type": type_to_json(self.data_type), "order": list(self.order),
                "levels": levels_to_json(self.levels), "top_label": self.top_label}

    @classmethod
    def _from_fields(cls, fields: dict[str, Any]) -> "OrderingSpec":
        f = take(fields, ("data_type", "order", "levels", "top_label"))
        return cls(type_from_json(f.get("data_type", "string")), tuple(f.get("order", ())),
                   f.get("levels", ()), str(f.get("top_label", TOP)))
