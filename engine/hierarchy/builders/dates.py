"""Dates builder: one calendar granularity per level, each with its display format.

Each level names the period holding a date: its start is formatted with
``strftime`` and then ``{quarter}``, ``{start}`` and ``{end}`` (first and
last year of a decade, century or millennium) are filled in. A level must be
coarser than the one below so that it is a function of it: the chain
second < minute < hour < day < month < quarter < year < decade < century <
millennium, plus week (ISO, from Monday) and weekday, which follow day or
finer and can only be followed by the top level.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.data.datatypes import DateType, Kind
from engine.data.table import EncodedColumn
from engine.hierarchy.builders.base import (TOP, BuilderError, BuilderSpec, check_kind,
                                            check_parsable, column_values, finish, take,
                                            type_from_json, type_to_json)
from engine.hierarchy.model import Hierarchy

CHAIN = ("second", "minute", "hour", "day", "month", "quarter", "year", "decade", "century",
         "millennium")
SIDE = ("week", "weekday")
GRANULARITIES = CHAIN[:4] + SIDE + CHAIN[4:]
DEFAULT_FORMATS = {
    "second": "%Y-%m-%d %H:%M:%S", "minute": "%Y-%m-%d %H:%M", "hour": "%Y-%m-%d %H:00",
    "day": "%Y-%m-%d", "week": "%G-W%V", "weekday": "%A", "month": "%Y-%m",
    "quarter": "%Y-Q{quarter}", "year": "%Y", "decade": "{start}-{end}",
    "century": "{start}-{end}", "millennium": "{start}-{end}",
}
_YEARS = {"year": 1, "decade": 10, "century": 100, "millennium": 1000}


def follows(finer: str, coarser: str) -> bool:
    """Whether granularity ``coarser`` is a function of ``finer`` (may be the next level)."""
    if finer in SIDE:
        return False
    if coarser in SIDE:
        return CHAIN.index(finer) <= CHAIN.index("day")
    return CHAIN.index(finer) < CHAIN.index(coarser)


def period_start(when: dt.datetime, granularity: str) -> dt.datetime:
    """The first instant of the ``granularity`` period holding ``when``."""
    if granularity == "second":
        return when.replace(microsecond=0)
    if granularity == "minute":
        return when.replace(second=0, microsecond=0)
    if granularity == "hour":
        return when.replace(minute=0, second=0, microsecond=0)
    day = when.replace(hour=0, minute=0, second=0, microsecond=0)
    if granularity in ("day", "weekday"):
        return day
    if granularity == "week":
        return day - dt.timedelta(days=day.weekday())
    if granularity == "month":
        return day.replace(day=1)
    if granularity == "quarter":
        return day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)
    span = _YEARS[granularity]
    return day.replace(year=max(1, day.year // span * span), month=1, day=1)


@dataclass(frozen=True)
class DateLevel:
    """A granularity and its display format (default: `DEFAULT_FORMATS`)."""

    granularity: str
    format: str = ""

    def __post_init__(self) -> None:
        if self.granularity not in GRANULARITIES:
            raise BuilderError(f"unknown date granularity '{self.granularity}' "
                               f"(known: {', '.join(GRANULARITIES)})")
        if not self.format:
            object.__setattr__(self, "format", DEFAULT_FORMATS[self.granularity])

    @classmethod
    def of(cls, obj: Any) -> "DateLevel":
        if isinstance(obj, DateLevel):
            return obj
        if isinstance(obj, str):
            return cls(obj)
        if isinstance(obj, dict):
            take(obj, ("granularity", "format"))
            return cls(str(obj.get("granularity", "")), str(obj.get("format", "")))
        raise BuilderError(f"a date level is a granularity or {{'granularity', 'format'}}, "
                           f"not {obj!r}")

    def label(self, when: dt.datetime) -> str:
        start = period_start(when, self.granularity)
        span = _YEARS.get(self.granularity, 1)
        text = start.strftime(self.format)
        return (text.replace("{quarter}", str((start.month - 1) // 3 + 1))
                .replace("{start}", str(start.year))
                .replace("{end}", str(start.year // span * span + span - 1)))

    def to_json(self) -> dict[str, str]:
        return {"granularity": self.granularity, "format": self.format}


@dataclass(frozen=True)
class DateSpec(BuilderSpec):
    """Specification of a calendar hierarchy for dates.

    Parameters
    ----------
    data_type
        The `DateType` (its format parses the values and the coding bounds).
    levels
        Granularities from fine to coarse, each a name (``"month"``) or a
        `DateLevel` with a display format.
    bottom_coding, top_coding
        Optional dates in the data's format: earlier dates are labelled
        ``<bound``, dates at or after ``top_coding`` ``>=bound``, at every
        level but the top.
    top_label
        Label of the last level.
    """

    name: ClassVar[str] = "dates"
    title: ClassVar[str] = "Dates"
    kinds: ClassVar[frozenset[Kind]] = frozenset({Kind.DATE})

    data_type: DateType = field(default_factory=DateType)
    levels: tuple[DateLevel, ...] = ()
    bottom_coding: str | None = None
    top_coding: str | None = None
    top_label: str = TOP

    def __post_init__(self) -> None:
        check_kind(self, self.data_type)
        levels = tuple(DateLevel.of(lv) for lv in self.levels)
        object.__setattr__(self, "levels", levels)
        for lower, upper in zip(levels, levels[1:]):
            if not follows(lower.granularity, upper.granularity):
                raise BuilderError(f"level '{upper.granularity}' cannot follow "
                                   f"'{lower.granularity}': it is not coarser")
        if not self.top_label:
            raise BuilderError("the top label must not be empty (that is the missing value)")
        coding = []
        for name in ("bottom_coding", "top_coding"):
            bound = getattr(self, name)
            if bound is not None:
                bound = str(bound).strip()
                object.__setattr__(self, name, bound)
                bound = self._parse(bound)
            coding.append(bound)
        if None not in coding and coding[0] >= coding[1]:
            raise BuilderError(f"bottom coding date {self.bottom_coding} must be before the "
                               f"top coding date {self.top_coding}")
        object.__setattr__(self, "_coding", tuple(coding))

    def _parse(self, text: str) -> dt.datetime:
        try:
            return dt.datetime.strptime(text.strip(), self.data_type.format)
        except ValueError:
            raise BuilderError(f"'{text}' is not a date in the format "
                               f"{self.data_type.format}") from None

    def build(self, values: Iterable[Any] | EncodedColumn, attribute: str = "") -> Hierarchy:
        """The hierarchy of the distinct values of ``values`` (missing ``""`` stays ``""``)."""
        cv = column_values(values)
        check_parsable(self.data_type, cv.present)
        when = {v: self._parse(v) for v in cv.present}
        bottom, top = self._coding  # type: ignore[attr-defined]
        rows = []
        for v in sorted(cv.present, key=when.__getitem__):
            if bottom is not None and when[v] < bottom:
                labels = [f"<{self.bottom_coding}"] * len(self.levels)
            elif top is not None and when[v] >= top:
                labels = [f">={self.top_coding}"] * len(self.levels)
            else:
                labels = [lv.label(when[v]) for lv in self.levels]
            rows.append([v] + labels + [self.top_label])
        return finish(rows, len(self.levels) + 2, cv.has_missing, attribute, self.name)

    def _fields_to_json(self) -> dict[str, Any]:
        return {"data_type": type_to_json(self.data_type),
                "levels": [lv.to_json() for lv in self.levels],
                "bottom_coding": self.bottom_coding, "top_coding": self.top_coding,
                "top_label": self.top_label}

    @classmethod
    def _from_fields(cls, fields: dict[str, Any]) -> "DateSpec":
        f = take(fields, ("data_type", "levels", "bottom_coding", "top_coding", "top_label"))
        data_type = type_from_json(f.get("data_type", "date"))
        if not isinstance(data_type, DateType):
            raise BuilderError(f"the dates builder needs a date data_type, not {data_type.name}")
        return cls(data_type, tuple(DateLevel.of(lv) for lv in f.get("levels", ())),
                   f.get("bottom_coding"), f.get("top_coding"), str(f.get("top_label", TOP)))
