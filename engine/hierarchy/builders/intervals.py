"""Intervals builder: base intervals repeated across the domain, then groups of groups.

Levels of the result: 0 the values; 1 the base interval holding each value;
one level per entry of ``levels`` (groups of the level below); last the
``top_label``. Values below ``bottom_coding`` are labelled ``<bound`` and
values at or above ``top_coding`` ``>=bound`` at every level but the top.
"""
from __future__ import annotations

import datetime as dt

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from engine.data.datatypes import DataType, IntegerType, Kind
from engine.data.table import EncodedColumn
from engine.hierarchy.builders.base import (TOP, BuilderError, BuilderSpec, check_kind,
                                            check_parsable, column_values, finish, take,
                                            type_from_json, type_to_json)
from engine.hierarchy.builders.grouping import (Group, Level, assign, levels_to_json,
                                                normalize_levels, span)
from engine.hierarchy.builders.labels import GroupInfo, Label, apply_label
from engine.hierarchy.builders.repeat import Repetition
from engine.hierarchy.builders.scales import Scale, from_seconds, to_seconds
from engine.hierarchy.model import Hierarchy


def _text(x: Any) -> str:
    if isinstance(x, bool):
        raise BuilderError(f"a bound must be a number or a value string, not {x!r}")
    return str(x).strip()


@dataclass(frozen=True)
class BaseInterval:
    """``[lower, upper[`` (as value strings of the data type, or numbers) and its label."""

    lower: str
    upper: str
    label: Label = field(default_factory=Label)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lower", _text(self.lower))
        object.__setattr__(self, "upper", _text(self.upper))
        object.__setattr__(self, "label", Label.of(self.label))

    def to_json(self) -> dict[str, Any]:
        return {"lower": self.lower, "upper": self.upper, "label": self.label.to_json()}

    @classmethod
    def of(cls, obj: Any) -> "BaseInterval":
        if isinstance(obj, BaseInterval):
            return obj
        if isinstance(obj, dict):
            take(obj, ("lower", "upper", "label"))
            return cls(obj["lower"], obj["upper"], Label.of(obj.get("label", "interval")))
        lower, upper, *rest = obj
        return cls(lower, upper, Label.of(rest[0]) if rest else Label())


@dataclass(frozen=True)
class IntervalSpec(BuilderSpec):
    """Specification of an interval hierarchy for integers, decimals or dates.

    Parameters
    ----------
    data_type
        An integer, decimal or date `DataType`; bounds are written in it.
    intervals
        Contiguous base intervals ``[lower, upper[``; the sequence repeats with
        period ``last.upper - first.lower`` in both directions. Pairs
        ``(lower, upper)`` or ``(lower, upper, label)`` are accepted.
    levels
        Grouping levels, each a sequence of group sizes (fan-out) that repeats,
        anchored at the first base interval: ``[2, 2]`` or ``[[2, 3], [5]]``.
    bottom_coding, top_coding
        Optional bounds: values below ``bottom_coding`` (at or above
        ``top_coding``) share one label, ``<bound`` (``>=bound``).
    top_label
        Label of the last level, holding every present value.
    """

    name: ClassVar[str] = "intervals"
    title: ClassVar[str] = "Intervals"
    kinds: ClassVar[frozenset[Kind]] = frozenset({Kind.INTEGER, Kind.DECIMAL, Kind.DATE})

    data_type: DataType = field(default_factory=IntegerType)
    intervals: tuple[BaseInterval, ...] = ()
    levels: tuple[Level, ...] = ()
    bottom_coding: str | None = None
    top_coding: str | None = None
    top_label: str = TOP

    def __post_init__(self) -> None:
        check_kind(self, self.data_type)
        intervals = tuple(BaseInterval.of(i) for i in self.intervals)
        object.__setattr__(self, "intervals", intervals)
        object.__setattr__(self, "levels", normalize_levels(self.levels, Label("interval")))
        for name in ("bottom_coding", "top_coding"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _text(getattr(self, name)))
        if not intervals:
            raise BuilderError("the intervals builder needs at least one base interval")
        if not self.top_label:
            raise BuilderError("the top label must not be empty (that is the missing value)")
        scale = Scale(self.data_type)
        bounds = [(scale.parse(i.lower), scale.parse(i.upper)) for i in intervals]
        for i, (lo, hi) in zip(intervals, bounds):
            if lo >= hi:
                raise BuilderError(f"interval [{i.lower}, {i.upper}[ is empty: lower >= upper")
        for a, (_, hi), nxt in zip(intervals, bounds, bounds[1:]):
            if hi != nxt[0]:
                raise BuilderError(f"base intervals must be contiguous: [{a.lower}, {a.upper}[ "
                                   f"is not followed by an interval starting at {a.upper}")
        labels = [i.label for i in intervals] + [g.label for lv in self.levels for g in lv]
        if self.data_type.kind is Kind.DATE and any(
                lb.function == "geometric_mean" for lb in labels):
            raise BuilderError("the geometric mean label is for numbers, not dates")
        coding = [scale.parse(b) if b is not None else None
                  for b in (self.bottom_coding, self.top_coding)]
        if None not in coding and coding[0] >= coding[1]:
            raise BuilderError(f"bottom coding bound {self.bottom_coding} must be below the "
                               f"top coding bound {self.top_coding}")
        object.__setattr__(self, "_bounds", bounds)
        object.__setattr__(self, "_coding", coding)

    # --- geometry ---

    def repetition(self) -> Repetition:
        """Where the repeated copies of the base intervals lie (see `Repetition`)."""
        return Repetition(Scale(self.data_type), self._bounds)  # type: ignore[attr-defined]

    # --- building ---

    def build(self, values: Iterable[Any] | EncodedColumn, attribute: str = "") -> Hierarchy:
        """The hierarchy of the distinct values of ``values`` (missing ``""`` stays ``""``)."""
        cv = column_values(values)
        present = cv.present
        check_parsable(self.data_type, present)
        scale = Scale(self.data_type)
        rep = self.repetition()
        numbers = {v: scale.parse(v) for v in present}
        ordered = sorted(present, key=numbers.__getitem__)
        bottom, top = self._coding  # type: ignore[attr-defined]
        coded: dict[str, str] = {}
        base: dict[str, int] = {}
        for v in ordered:
            x = numbers[v]
            if bottom is not None and x < bottom:
                coded[v] = f"<{self.bottom_coding}"
            elif top is not None and x >= top:
                coded[v] = f">={self.top_coding}"
            else:
                base[v] = rep.index(x)
        placed = [{v: (g, g % len(self.intervals)) for v, g in base.items()}]
        placed += assign(base, self.levels)
        columns = [self._labels(depth, where, numbers, scale, rep)
                   for depth, where in enumerate(placed)]
        rows = []
        for v in ordered:
            if v in coded:
                rows.append([v] + [coded[v]] * len(columns) + [self.top_label])
            else:
                rows.append([v] + [col[v] for col in columns] + [self.top_label])
        return finish(rows, len(columns) + 2, cv.has_missing, attribute, self.name)

    def _labels(self, depth: int, where: dict[str, tuple[int, int]],
                numbers: dict[str, Decimal], scale: Scale, rep: Repetition) -> dict[str, str]:
        """Labels at level ``depth + 1``: depth 0 is the base intervals."""
        members: dict[int, list[str]] = {}
        for v, (g, _) in where.items():
            members.setdefault(g, []).append(v)
        named: dict[int, str] = {}
        for g, group in members.items():
            pos = where[group[0]][1]
            if depth == 0:
                label = self.intervals[pos].label
                lo, hi = rep.interval(g)
            else:
                label = self.levels[depth - 1][pos].label
                first, last = span(g, self.levels, depth - 1)
                lo, hi = rep.interval(first)[0], rep.interval(last)[1]
            info = GroupInfo(group, [numbers[v] for v in group], scale.format(lo),
                             scale.format(hi), scale.format_mean)
            named[g] = apply_label(label, info)
        return {v: named[g] for v, (g, _) in where.items()}

    # --- JSON ---

    def _fields_to_json(self) -> dict[str, Any]:
        return {"data_type": type_to_json(self.data_type),
                "intervals": [i.to_json() for i in self.intervals],
                "levels": levels_to_json(self.levels),
                "bottom_coding": self.bottom_coding, "top_coding": self.top_coding,
                "top_label": self.top_label}

    @classmethod
    def _from_fields(cls, fields: dict[str, Any]) -> "IntervalSpec":
        f = take(fields, ("data_type", "intervals", "levels", "bottom_coding", "top_coding",
                          "top_label"))
        return cls(type_from_json(f.get("data_type", "integer")),
                   tuple(BaseInterval.of(i) for i in f.get("intervals", ())),
                   f.get("levels", ()), f.get("bottom_coding"), f.get("top_coding"),
                   str(f.get("top_label", TOP)))

    @classmethod
    def regular(cls, data_type: DataType, start: Any, width: Any,
                fanouts: Sequence[int] = (), label: str | Label = "interval",
                **kwargs: Any) -> "IntervalSpec":
        """One numeric base interval ``[start, start + width[`` and levels of ``fanouts``."""
        scale = Scale(data_type)
        if data_type.kind is Kind.DATE:
            raise BuilderError("regular() takes numbers; give date intervals explicitly")
        lo = scale.parse(_text(start))
        hi = lo + scale.parse(_text(width))
        label = Label.of(label)
        return cls(data_type, (BaseInterval(scale.format(lo), scale.format(hi), label),),
                   tuple((Group(f, label),) for f in fanouts), **kwargs)

    @classmethod
    def suggest(cls, data_type: DataType, values: Iterable[Any] | EncodedColumn = ()
                ) -> "IntervalSpec":
        """A starting point for a wizard: about ten intervals of a round width over the
        values (numbers), or calendar years grouped by 5 and 10 (dates)."""
        scale = Scale(data_type)
        present = column_values(values).present
        check_parsable(data_type, present)
        numbers = [scale.parse(v) for v in present]
        if data_type.kind is Kind.DATE:
            year = from_seconds(min(numbers)).year if numbers else 2000
            lo, hi = dt.datetime(year, 1, 1), dt.datetime(year + 1, 1, 1)
            return cls(data_type, [(scale.format(to_seconds(lo)), scale.format(to_seconds(hi)))],
                       [5, 2])
        low, high = (min(numbers), max(numbers)) if numbers else (Decimal(0), Decimal(10))
        rough = max((high - low) / 10, Decimal(1) if data_type.kind is Kind.INTEGER
                    else Decimal("1e-6"))
        exponent = rough.adjusted()
        width = next(m * Decimal(10) ** exponent for m in (1, 2, 5, 10)
                     if m * Decimal(10) ** exponent >= rough)
        start = Scale(data_type).floor_div(low, width) * width
        return cls.regular(data_type, scale.format(start), scale.format(width), (2, 2))
