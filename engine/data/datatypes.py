"""Data types of attribute values: string, integer, decimal, date, ordinal.

Detection works on a column's distinct values weighted by their counts, so a
dictionary-encoded column of a million rows costs as much as its dictionary. Missing
values (``""`` unless told otherwise) are left out of every share; surrounding
whitespace is ignored when matching and parsing.
"""
from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from engine.data.table import EncodedColumn
from engine.errors import DataError

MISSING = ""
#: the data types a column can be declared as (the job file's ``data_type``)
DATA_TYPES = ("string", "integer", "decimal", "date", "ordinal")
DATE_FORMATS = (
    "%Y-%m-%d", "%d.%m.%Y", "%m/%d/%Y", "%d/%m/%Y", "%Y/%m/%d", "%d-%m-%Y", "%d.%m.%y",
    "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%d.%m.%Y %H:%M:%S",
    "%d.%m.%Y %H:%M", "%m/%d/%Y %H:%M:%S", "%m/%d/%Y %H:%M", "%H:%M:%S", "%H:%M",
)
_SAMPLE = 2_000  # with more distinct values, date formats are first tried on a sample


class Kind(enum.IntEnum):
    """The families of data types; the value orders ties in detection."""

    INTEGER = 0
    DECIMAL = 1
    DATE = 2
    ORDINAL = 3
    STRING = 4


def _strings(values: Iterable[Any]) -> np.ndarray:
    """Values as an object array of str, with None/NaN as missing."""
    if isinstance(values, EncodedColumn):
        return values.values()
    if not isinstance(values, (pd.Series, np.ndarray)):
        values = list(values)
    series = pd.Series(values, dtype=object)
    return series.where(series.notna(), MISSING).astype(str).to_numpy(dtype=object)


def _regex_mask(pattern: re.Pattern[str], values: np.ndarray) -> np.ndarray:
    return np.fromiter((pattern.fullmatch(v) is not None for v in values), bool, len(values))


@dataclass(frozen=True)
class DataType:
    """Base of the data types: matching, parsing and sorting of string values."""

    kind: ClassVar[Kind] = Kind.STRING

    @property
    def name(self) -> str:
        """Short label, e.g. ``"integer"`` or ``"date(%d.%m.%Y)"``."""
        return self.kind.name.lower()

    def __str__(self) -> str:
        return self.name

    def valid(self, values: np.ndarray) -> np.ndarray:
        """Boolean mask of the values (object array of str) this type can parse."""
        return np.ones(len(values), dtype=bool)

    def matches(self, value: str) -> bool:
        """Whether ``value`` is a non-missing value of this type."""
        return value != MISSING and bool(self.valid(np.array([value], dtype=object))[0])

    def parse(self, values: Iterable[Any]) -> np.ndarray:
        """Values as numbers, dates or strings; NaN/NaT for missing and non-matching ones."""
        return _strings(values)

    def parse_column(self, column: EncodedColumn) -> np.ndarray:
        """`parse` of a whole encoded column, parsing each distinct value once."""
        return self.parse(column.dictionary)[column.codes]

    def sort_key(self, value: str) -> tuple:
        """Sort key: matching values in this type's order, then others as text, then missing."""
        if value == MISSING:
            return (2, "")
        parsed = self.parse([value])[0]
        return (1, value) if pd.isna(parsed) else (0, parsed)

    def argsort(self, values: Iterable[Any]) -> np.ndarray:
        """Stable permutation that sorts ``values`` as `sort_key` does, parsing them once."""
        values = _strings(values)
        parsed = self.parse(values)
        group = np.where(values == MISSING, 2, np.where(pd.isna(parsed), 1, 0))
        parts = []
        for g, keys in ((0, parsed), (1, values), (2, values)):
            rows = np.flatnonzero(group == g)
            parts.append(rows[np.argsort(keys[rows], kind="stable")])
        return np.concatenate(parts)


@dataclass(frozen=True)
class StringType(DataType):
    """Any text; every value matches, and `parse` keeps missing values as ``""``."""


@dataclass(frozen=True)
class _NumberType(DataType):
    """Numbers matched by a regular expression, parsed to float64 so NaN can mark gaps."""

    separator: ClassVar[str] = "."

    def _pattern(self) -> re.Pattern[str]:
        raise NotImplementedError

    def valid(self, values: np.ndarray) -> np.ndarray:
        return _regex_mask(self._pattern(), values)

    def parse(self, values: Iterable[Any]) -> np.ndarray:
        values = _strings(values)
        out = np.full(len(values), np.nan)
        ok = self.valid(values)
        picked = values[ok]
        if self.separator != ".":
            picked = np.array([v.replace(self.separator, ".") for v in picked], dtype=object)
        out[ok] = picked.astype(np.float64)
        return out


_INTEGER = re.compile(r"\s*[-+]?\d+\s*")


@dataclass(frozen=True)
class IntegerType(_NumberType):
    """Whole numbers such as ``-12`` or ``+7``; `parse` gives float64 (NaN for gaps)."""

    kind: ClassVar[Kind] = Kind.INTEGER

    def _pattern(self) -> re.Pattern[str]:
        return _INTEGER


@dataclass(frozen=True)
class DecimalType(_NumberType):
    """Numbers such as ``-1.5``, ``.5`` or ``2.5e-3``, with ``separator`` as decimal point."""

    kind: ClassVar[Kind] = Kind.DECIMAL
    separator: str = "."  # type: ignore[misc]

    def __post_init__(self) -> None:
        if self.separator not in (".", ","):
            raise DataError(f"decimal separator must be '.' or ',', not '{self.separator}'")

    @property
    def name(self) -> str:
        return "decimal" if self.separator == "." else f"decimal({self.separator})"

    def _pattern(self) -> re.Pattern[str]:
        s = re.escape(self.separator)
        return re.compile(rf"\s*[-+]?(?:\d+(?:{s}\d*)?|{s}\d+)(?:[eE][-+]?\d+)?\s*")


@dataclass(frozen=True)
class DateType(DataType):
    """Dates and times in one ``strptime`` format, e.g. ``"%d.%m.%Y"``."""

    kind: ClassVar[Kind] = Kind.DATE
    format: str = "%Y-%m-%d"

    @property
    def name(self) -> str:
        return f"date({self.format})"

    def parse(self, values: Iterable[Any]) -> np.ndarray:
        stripped = pd.Series(_strings(values), dtype=object).str.strip()
        parsed = pd.to_datetime(stripped, format=self.format, errors="coerce")
        return parsed.to_numpy().astype("datetime64[us]")

    def valid(self, values: np.ndarray) -> np.ndarray:
        return ~np.isnat(self.parse(values))


@dataclass(frozen=True)
class OrdinalType(DataType):
    """Values with a given order, e.g. ``("low", "medium", "high")``."""

    kind: ClassVar[Kind] = Kind.ORDINAL
    order: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "order", tuple(str(v) for v in self.order))
        seen: set[str] = set()
        for v in self.order:
            if v in seen:
                raise DataError(f"the ordinal order lists '{v}' more than once")
            seen.add(v)

    @property
    def name(self) -> str:
        return f"ordinal({len(self.order)} values)"

    def valid(self, values: np.ndarray) -> np.ndarray:
        listed = set(self.order)
        return np.fromiter((v.strip() in listed for v in values), bool, len(values))

    def parse(self, values: Iterable[Any]) -> np.ndarray:
        """Each value's position in the order (0, 1, ...), NaN if it is not listed."""
        rank = {v: float(i) for i, v in enumerate(self.order)}
        return np.array([rank.get(v.strip(), np.nan) for v in _strings(values)], dtype=np.float64)


STRING, INTEGER, DECIMAL = StringType(), IntegerType(), DecimalType()


@dataclass(frozen=True)
class TypeCandidate:
    """A data type with how many non-missing rows it matches."""

    data_type: DataType
    matching: int
    total: int

    @property
    def share(self) -> float:
        """Share of the non-missing rows that match (0 when every row is missing,
        except for string, which always matches fully)."""
        if self.total == 0:
            return 1.0 if self.data_type.kind is Kind.STRING else 0.0
        return self.matching / self.total


def detect_distinct(values: np.ndarray, counts: np.ndarray,
                    missing: Sequence[str] = (MISSING,)) -> list[TypeCandidate]:
    """Candidate types of distinct ``values`` occurring ``counts`` times, best first.

    Integer, decimal and string are always listed; dates once per format that matches
    some value (or ``%Y-%m-%d`` at share 0 if none does); decimal with a comma only if
    it beats the point. Ties are broken integer, decimal, date, string. With more than
    2,000 distinct values a date format is tried in full only if it matches one of a
    random sample of 2,000 of them.
    """
    values = np.asarray(values, dtype=object)
    counts = np.asarray(counts, dtype=np.int64)
    absent = set(missing)
    keep = np.fromiter((v not in absent for v in values), bool, len(values)) & (counts > 0)
    values, counts = values[keep], counts[keep]
    total = int(counts.sum())

    def count(t: DataType, vals: np.ndarray = values, cnt: np.ndarray = counts) -> int:
        return int(cnt[t.valid(vals)].sum()) if len(vals) else 0

    found = [TypeCandidate(t, count(t), total) for t in (INTEGER, DECIMAL)]
    comma = TypeCandidate(DecimalType(","), count(DecimalType(",")), total)
    if comma.matching > found[1].matching:
        found.append(comma)
    sample = values
    if len(values) > _SAMPLE:
        sample = values[np.random.default_rng(0).choice(len(values), _SAMPLE, replace=False)]
    dates = [TypeCandidate(DateType(f), count(DateType(f)), total) for f in DATE_FORMATS
             if len(sample) == len(values) or DateType(f).valid(sample).any()]
    dates = [d for d in dates if d.matching] or [TypeCandidate(DateType(), 0, total)]
    found += dates + [TypeCandidate(STRING, total, total)]
    order = {f: i for i, f in enumerate(DATE_FORMATS)}
    return sorted(found, key=lambda c: (-c.share, c.data_type.kind,
                                        order.get(getattr(c.data_type, "format", ""), 0)))


def detect_types(values: Iterable[Any] | EncodedColumn,
                 missing: Sequence[str] = (MISSING,)) -> list[TypeCandidate]:
    """Candidate types of a sequence of values (or an encoded column), best first.

    See `detect_distinct` for the candidates listed and their order.
    """
    if isinstance(values, EncodedColumn):
        return detect_column_types(values, missing)
    strings = _strings(values)
    uniques, counts = np.unique(strings.astype(str), return_counts=True) if len(strings) \
        else (np.array([], dtype=object), np.array([], dtype=np.int64))
    return detect_distinct(uniques.astype(object), counts, missing)


def detect_column_types(column: EncodedColumn,
                        missing: Sequence[str] = (MISSING,)) -> list[TypeCandidate]:
    """Candidate types of an encoded column, from its dictionary and value counts."""
    return detect_distinct(column.dictionary, column.value_counts(), missing)


def choose_type(candidates: Sequence[TypeCandidate], threshold: float = 1.0) -> DataType:
    """The most specific candidate (integer, decimal, date, ordinal, string) whose share
    reaches ``threshold``; among dates, the best-matching format."""
    fit = [c for c in candidates if c.share >= threshold]
    return min(fit, key=lambda c: (c.data_type.kind, -c.share)).data_type if fit else STRING


def best_type(values: Iterable[Any] | EncodedColumn, threshold: float = 1.0,
              missing: Sequence[str] = (MISSING,)) -> DataType:
    """The most specific type matching at least ``threshold`` of the non-missing values.

    The default 1.0 never assigns a type that would turn a present value into NaN.
    """
    return choose_type(detect_types(values, missing), threshold)


# --- the columns of a source as an import detects them ------------------------------------
@dataclass
class ColumnChoice:
    """One column of a source being imported: whether it is included, the name it is
    imported as, its data type (and format), the detected type and its share, and
    the candidate types ``(type, format, share)``."""

    name: str
    include: bool = True
    data_type: str = "string"
    format: str | None = None
    detected: str = "string"
    share: float = 1.0
    candidates: list[tuple[str, str | None, float]] = field(default_factory=list)
    #: the column's name in the source (``name`` is what it is imported as)
    source: str = ""

    def __post_init__(self):
        if not self.source:
            self.source = self.name


def split_type_name(type_name: str) -> tuple[str, str | None]:
    """'date(%d.%m.%Y)' -> ('date', '%d.%m.%Y')."""
    if "(" in type_name and type_name.endswith(")"):
        base, fmt = type_name[:-1].split("(", 1)
        return base, fmt
    return type_name, None


def column_choices(frame: pd.DataFrame) -> list[ColumnChoice]:
    """Each column of ``frame`` (a preview of the source) with its detected type: the
    most specific matching all values, and its share."""
    items = []
    for name in frame.columns:
        cands = detect_types(frame[name].to_numpy(dtype=object))
        best = choose_type(cands)
        base, fmt = split_type_name(best.name)
        share = next((c.share for c in cands if c.data_type == best), 1.0)
        split = [(*split_type_name(c.data_type.name), c.share) for c in cands]
        items.append(ColumnChoice(str(name), True, base if base in DATA_TYPES else "string",
                                  fmt, best.name, share, split))
    return items


def declared_types(frame: pd.DataFrame) -> dict[str, tuple[str | None, str | None]]:
    """``{column: (data type, format)}`` detected from ``frame`` (None: string), as a
    source opened without the import wizard declares its columns."""
    return {c.name: (None if c.data_type == "string" else c.data_type, c.format)
            for c in column_choices(frame)}
