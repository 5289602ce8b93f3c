"""Frequency distributions, contingency tables and summary statistics of one attribute.

Every function takes an `EncodedTable` or a DataFrame and column names, so the
input and the output of a transformation are analysed alike. A weighted table
(a backend's frequency table: one row per distinct combination, ``weights`` its
records; ``engine.analysis.sources``) is counted by records, so it gives the same
figures as the records themselves.

Rule for generalized values (summary statistics)
-------------------------------------------------
Missing (``""``) and suppressed (``"*"``) values are left out and counted in
``missing``. The attribute's scale follows its data type (string: nominal;
ordinal: ordinal; integer, decimal, date: interval/ratio). Statistics are
computed at the highest scale that *every* remaining value supports:

* interval/ratio: every value parses as a number (or date) -> mean, standard
  deviation (ddof=1), quartiles (linear interpolation, as pandas), range, plus
  the ordinal and nominal statistics;
* ordinal: values are ranks of an ordinal type, or numbers/dates generalized
  to intervals (``[20, 30[``, ``[21, 29]``, ``{21, 25}``, ``20-29``, ``<20``,
  ``>=70``) that do not overlap, so they are totally ordered -> median (lower
  median), minimum and maximum, reported as labels. Mean, deviation and
  quartiles are *not* computed from interval midpoints: that would invent
  precision the released data does not have;
* nominal otherwise: mode and number of distinct values.

``SummaryStatistics.note`` says when and why a lower scale was used.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np
import pandas as pd

from engine.data.datatypes import DataType, DateType, Kind, OrdinalType
from engine.data.order import (IGNORED, display_type, interval_bounds, numbers,
                               value_order)
from engine.data.table import EncodedColumn, EncodedTable
from engine.kernel.grouping import group_rows

Data = Union[EncodedTable, pd.DataFrame]
OTHER = "(other)"

# --- access to columns ----------------------------------------------------------------------
def column_of(data: Data, name: str) -> EncodedColumn:
    """The encoded column ``name`` of a table or DataFrame (missing values become ``""``)."""
    if isinstance(data, EncodedTable):
        return data.column(name)
    return EncodedTable.from_dataframe(data[[name]]).column(name)


def n_rows(data: Data) -> int:
    return data.n_rows if isinstance(data, EncodedTable) else len(data)


def row_weights(data: Data) -> np.ndarray | None:
    """Records each row stands for (a frequency table's ``weights``); None: one each."""
    return getattr(data, "weights", None) if isinstance(data, EncodedTable) else None


def n_records(data: Data) -> int:
    """Records the table stands for (its rows unless weighted)."""
    w = row_weights(data)
    return n_rows(data) if w is None else int(w.sum())


def record_counts(data: Data, name: str, col: EncodedColumn | None = None) -> np.ndarray:
    """Records per dictionary code of column ``name``."""
    col = column_of(data, name) if col is None else col
    return np.bincount(col.codes, weights=row_weights(data),
                       minlength=len(col.dictionary)).astype(np.int64)


def count_groups(group_of: np.ndarray, n_groups: int, data: Data,
                 rows: np.ndarray | None = None) -> np.ndarray:
    """Records per group of `group_codes` (``rows`` as given to it)."""
    w = row_weights(data)
    if w is not None and rows is not None:
        w = w[np.asarray(rows, dtype=bool)]
    return np.bincount(group_of, weights=w, minlength=n_groups).astype(np.int64)


def group_codes(data: Data, names: Sequence[str],
                rows: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """Each row's group of equal values in ``names`` (ids 0..n-1) and the number of groups;
    ``rows`` (bool mask) restricts the rows, the ids then refer to those rows only."""
    cols = [column_of(data, n) for n in names]
    codes = np.stack([c.codes for c in cols], axis=1).astype(np.int32) if cols else \
        np.zeros((n_rows(data), 0), np.int32)
    if rows is not None:
        codes = codes[np.asarray(rows, dtype=bool)]
    if len(codes) == 0:
        return np.zeros(0, np.int64), 0
    group_of, first = group_rows(codes, np.array([len(c.dictionary) for c in cols]))
    return group_of, len(first)


# --- values as numbers and intervals: engine.data.order ------------------------------------
def _resolve_type(column: EncodedColumn, data_type: DataType | None) -> DataType:
    """The given type, else the best type of the present values (`display_type`)."""
    if data_type is not None:
        return data_type
    return display_type(column.dictionary[column.value_counts() > 0])


# --- distributions ----------------------------------------------------------------------------
def frequencies(data: Data, attribute: str, data_type: DataType | None = None) -> pd.DataFrame:
    """Frequency distribution: one row per value present (``value``, ``count``, ``share``),
    in `value_order`; ``*`` and missing values are listed too."""
    col = column_of(data, attribute)
    counts = record_counts(data, attribute, col)
    present = np.flatnonzero(counts)
    values = col.dictionary[present].astype(str)
    order = value_order(values, _resolve_type(col, data_type))
    total = max(int(counts.sum()), 1)
    c = counts[present][order]
    return pd.DataFrame({"value": values[order], "count": c, "share": c / total})


def _top_values(col: EncodedColumn, counts: np.ndarray, limit: int | None,
                data_type: DataType | None) -> tuple[np.ndarray, np.ndarray]:
    """Labels in display order and a code -> label position map; rare values beyond
    ``limit`` share the position of ``(other)`` (last). ``counts``: records per code."""
    present = np.flatnonzero(counts)
    if limit is not None and len(present) > limit:
        keep = present[np.argsort(-counts[present], kind="stable")[:limit]]
    else:
        keep = present
    values = col.dictionary[keep].astype(str)
    keep = keep[value_order(values, _resolve_type(col, data_type))]
    pos = np.full(len(col.dictionary), len(keep), dtype=np.int64)
    pos[keep] = np.arange(len(keep))
    labels = list(col.dictionary[keep].astype(str))
    if len(keep) < len(present):
        labels.append(OTHER)
    return np.array(labels, dtype=object), pos


def contingency(data: Data, rows: str, columns: str,
                data_types: dict[str, DataType] | None = None, max_values: int | None = 50,
                normalize: bool = False) -> pd.DataFrame:
    """Counts (or shares of all records, ``normalize``) of the value pairs of two attributes.

    Index: values of ``rows``; columns: values of ``columns``, both in `value_order`.
    With more than ``max_values`` distinct values, the most frequent are kept and the
    rest summed into ``(other)``.
    """
    types = data_types or {}
    a, b = column_of(data, rows), column_of(data, columns)
    la, pa = _top_values(a, record_counts(data, rows, a), max_values, types.get(rows))
    lb, pb = _top_values(b, record_counts(data, columns, b), max_values, types.get(columns))
    key = pa[a.codes] * len(lb) + pb[b.codes]
    table = np.bincount(key, weights=row_weights(data),
                        minlength=len(la) * len(lb)).astype(np.int64).reshape(len(la), len(lb))
    values = table / max(table.sum(), 1) if normalize else table
    return pd.DataFrame(values, index=pd.Index(la, name=rows), columns=pd.Index(lb, name=columns))


# --- summary statistics -----------------------------------------------------------------------
@dataclass(frozen=True)
class SummaryStatistics:
    """Summary statistics of one attribute; fields a scale does not allow are None."""

    attribute: str
    scale: str
    count: int
    missing: int
    distinct: int
    mode: str | None
    median: Any = None
    minimum: Any = None
    maximum: Any = None
    mean: Any = None
    std: Any = None
    q1: Any = None
    q3: Any = None
    range: Any = None
    note: str = ""


def _scale_of(data_type: DataType) -> str:
    if data_type.kind in (Kind.INTEGER, Kind.DECIMAL, Kind.DATE):
        return "interval"
    return "ordinal" if data_type.kind is Kind.ORDINAL else "nominal"


def summary_statistics(data: Data, attribute: str, data_type: DataType | None = None,
                       ignore: Sequence[str] = IGNORED) -> SummaryStatistics:
    """Summary statistics of ``attribute`` at the scale its values allow (module docstring)."""
    col = column_of(data, attribute)
    dtype = _resolve_type(col, data_type)
    counts = record_counts(data, attribute, col)
    keep = (counts > 0) & np.isin(col.dictionary.astype(str), list(ignore), invert=True)
    values, counts = col.dictionary[keep].astype(str), counts[keep]
    order = value_order(values, dtype)
    values, counts = values[order], counts[order]
    n = int(counts.sum())
    base = dict(attribute=attribute, count=n, missing=n_records(data) - n, distinct=len(values),
                mode=str(values[np.argmax(counts)]) if n else None)
    wanted = _scale_of(dtype)
    if n == 0:
        return SummaryStatistics(scale=wanted, **base, note="no values")
    if wanted == "nominal":
        return SummaryStatistics(scale="nominal", **base)
    x = numbers(values, dtype)
    if wanted == "interval" and not np.isnan(x).any():
        return _interval(base, x, counts, dtype)
    ordered = _ordered(values, dtype)
    if ordered:
        cum = np.cumsum(counts)
        med = values[int(np.searchsorted(cum, (n - 1) // 2 + 1))]
        note = "" if wanted == "ordinal" else (
            "values are generalized to intervals: mean, deviation and quartiles are not "
            "computed (midpoints would invent precision)")
        return SummaryStatistics(scale="ordinal", **base, median=str(med), minimum=str(values[0]),
                                 maximum=str(values[-1]), note=note)
    return SummaryStatistics(scale="nominal", **base, note=(
        f"values do not all fit the {dtype.name} type or an order of non-overlapping "
        f"intervals: only nominal statistics"))


def _ordered(values: np.ndarray, dtype: DataType) -> bool:
    """Whether the sorted values are ranks of an ordinal type or non-overlapping intervals."""
    if isinstance(dtype, OrdinalType):
        return not np.isnan(dtype.parse(values)).any()
    b = interval_bounds(values, dtype)
    if np.isnan(b).any():
        return False
    return bool(np.all(b[1:, 0] >= b[:-1, 1]) and np.all(b[1:, 0] > b[:-1, 0]))


def weighted_quantile(x: np.ndarray, counts: np.ndarray, q: float) -> float:
    """Quantile ``q`` of the values ``x`` repeated ``counts`` times (ascending ``x``), as
    pandas computes it on the repeated values (linear interpolation between the
    values at positions ``floor`` and ``ceil`` of ``(n - 1) q``) without repeating."""
    n = int(counts.sum())
    pos = (n - 1) * q
    lo = int(np.floor(pos))
    cum = np.cumsum(counts)
    a, b = x[np.searchsorted(cum, lo, side="right")], x[np.searchsorted(
        cum, min(lo + 1, n - 1), side="right")]
    t = pos - lo
    return float(a + (b - a) * t) if t < 0.5 else float(b - (b - a) * (1 - t))  # numpy's lerp


def _interval(base: dict, x: np.ndarray, counts: np.ndarray,
              dtype: DataType) -> SummaryStatistics:
    """Interval statistics of the values ``x`` with their record counts (a value each,
    never one per record: a frequency table may stand for billions of records)."""
    order = np.argsort(x, kind="stable")
    x, counts = x[order], counts[order].astype(np.int64)
    n = int(counts.sum())
    mean = float((x * counts).sum() / n)
    std = float(np.sqrt((counts * (x - mean) ** 2).sum() / (n - 1))) if n > 1 else None
    dates = isinstance(dtype, DateType)  # computed in days, reported as dates and durations
    as_value = (lambda d: pd.Timestamp(0) + pd.Timedelta(days=float(d))) if dates else float
    spread = (lambda d: pd.Timedelta(days=float(d))) if dates else float
    return SummaryStatistics(
        scale="interval", **base, median=as_value(weighted_quantile(x, counts, 0.5)),
        minimum=as_value(x.min()), maximum=as_value(x.max()), mean=as_value(mean),
        std=spread(std) if std is not None else None,
        q1=as_value(weighted_quantile(x, counts, 0.25)),
        q3=as_value(weighted_quantile(x, counts, 0.75)), range=spread(x.max() - x.min()))
