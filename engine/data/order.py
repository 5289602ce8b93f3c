"""The order of a column's values for display and sorting, and values read as numbers
or intervals (a generalized number column: ``[20, 30[``, ``{21, 25}``, ``20-29``, ``<20``).

Values of the data type come in its order, then intervals by their bounds, then other
text, then the suppression marker ``*``, then missing (``""``). In-memory tables, the
out-of-core sort (``engine.backends.browse``) and the statistics
(``engine.analysis.statistics``) order values by these functions alike.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from engine.data.datatypes import DECIMAL, DataType, DateType, Kind, OrdinalType, best_type
from engine.markers import SUPPRESSED

MISSING = ""
IGNORED = (MISSING, SUPPRESSED)

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_BRACKETS = re.compile(r"\s*[\[\(]\s*([^,;\[\]()]+?)\s*[,;]\s*([^,;\[\]()]+?)\s*[\]\[\)]\s*")
_SET = re.compile(r"\s*\{(.*)\}\s*")
_DASH = re.compile(rf"\s*({_NUM})\s*-\s*({_NUM})\s*")
_BELOW, _ABOVE = re.compile(r"\s*(<=?)\s*(.+?)\s*"), re.compile(r"\s*(>=?)\s*(.+?)\s*")


def numbers(values: np.ndarray, data_type: DataType | None) -> np.ndarray:
    """Values parsed by a number or date type as float (dates: days), NaN otherwise."""
    if data_type is None or data_type.kind not in (Kind.INTEGER, Kind.DECIMAL, Kind.DATE):
        return np.full(len(values), np.nan)
    parsed = data_type.parse(values)
    if isinstance(data_type, DateType):
        out = parsed.astype("datetime64[us]").astype(np.int64) / 86_400e6
        return np.where(np.isnat(parsed), np.nan, out)
    return parsed.astype(float)


def interval_bounds(labels: Sequence[str], data_type: DataType | None) -> np.ndarray:
    """``(lower, upper)`` per label as floats (dates: days since 1970), NaN if not an interval.

    Understood: plain values ``x`` -> ``(x, x)``; ``[a, b[``, ``[a, b]``, ``(a, b)``;
    sets ``{a, b, c}`` -> ``(min, max)``; ``a-b`` (numbers only); ``<a``, ``<=a``
    -> ``(-inf, a)``; ``>a``, ``>=a`` -> ``(a, inf)``.
    """
    labels = np.asarray([str(v) for v in labels], dtype=object)
    out = np.full((len(labels), 2), np.nan)
    if data_type is None or data_type.kind not in (Kind.INTEGER, Kind.DECIMAL, Kind.DATE):
        return out
    out[:, 0] = out[:, 1] = numbers(labels, data_type)
    pending: list[tuple[int, int, str]] = []  # (label, 0 lower / 1 upper / 2 set member, text)
    for i in np.flatnonzero(np.isnan(out[:, 0])):
        v = labels[i]
        if m := _BRACKETS.fullmatch(v):
            pending += [(i, 0, m.group(1)), (i, 1, m.group(2))]
        elif m := _SET.fullmatch(v):
            out[i] = np.inf, -np.inf
            pending += [(i, 2, p) for p in m.group(1).split(",")]
        elif data_type.kind is not Kind.DATE and (m := _DASH.fullmatch(v)):
            out[i] = float(m.group(1)), float(m.group(2))
        elif m := _BELOW.fullmatch(v):
            out[i, 0] = -np.inf
            pending.append((i, 1, m.group(2)))
        elif m := _ABOVE.fullmatch(v):
            out[i, 1] = np.inf
            pending.append((i, 0, m.group(2)))
    if pending:  # parse every bound text in one call
        rows, sides, texts = map(np.array, zip(*pending))
        x = numbers(texts.astype(object), data_type)
        for side in (0, 1):
            out[rows[sides == side], side] = x[sides == side]
        np.minimum.at(out[:, 0], rows[sides == 2], x[sides == 2])
        np.maximum.at(out[:, 1], rows[sides == 2], x[sides == 2])
    out[np.isnan(out).any(axis=1)] = np.nan
    return out


def display_type(values: Sequence[str], data_type: DataType | None = None) -> DataType:
    """The given type, else the best type of ``values`` (missing and ``*`` aside); text
    that is all numeric intervals (a generalized number column) counts as decimal."""
    if data_type is not None:
        return data_type
    values = np.asarray([str(v) for v in values], dtype=object)
    values = values[np.isin(values, IGNORED, invert=True)]
    found = best_type(values)
    if found.kind is Kind.STRING and len(values) and \
            not np.isnan(interval_bounds(values, DECIMAL)).any():
        return DECIMAL
    return found


def value_order(values: Sequence[str], data_type: DataType | None = None) -> np.ndarray:
    """Permutation ordering distinct ``values`` for display: values of the data type in
    its order, then intervals by their bounds, then other text, then ``*``, then missing."""
    values = np.asarray([str(v) for v in values], dtype=object)
    bounds = interval_bounds(values, data_type)
    ranks = np.full(len(values), np.nan)
    if isinstance(data_type, OrdinalType):
        ranks = data_type.parse(values)
    group = np.where(values == MISSING, 4, np.where(values == SUPPRESSED, 3, 2))
    group = np.where(~np.isnan(bounds[:, 0]), 1, group)
    group = np.where(~np.isnan(ranks), 0, group)
    keys = [(g, r if g == 0 else 0.0, *(b if g == 1 else (0.0, 0.0)), v if g >= 2 else "")
            for g, r, b, v in zip(group, ranks, bounds, values)]
    return np.array(sorted(range(len(values)), key=keys.__getitem__), dtype=np.int64)


def value_ranks(values: Sequence[str], data_type: DataType | None = None) -> np.ndarray:
    """Each value's position in `value_order` (display order; sort keys of tables)."""
    order = value_order(values, data_type)
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank
