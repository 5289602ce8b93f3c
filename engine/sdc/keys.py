"""The key variables (quasi-identifiers) of a table as integer codes, missing values marked.

sdcMicro computes on numbers: a numeric column's values, a factor's level numbers
(levels sorted), and a missing value (``NA``) that matches any value in the
frequencies and never forms a sample unique in SUDA2. Here a column whose every
present value is a number is read as those numbers, any other column as its sorted
distinct values numbered from 1, and the values in ``missing`` (by default empty,
``NA`` and the suppression marker ``*``, the value a suppressed cell is released as)
are missing.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.errors import DataError
from engine.markers import SUPPRESSED

#: values read as missing unless told otherwise: empty, R's ``NA``, the suppression marker
DEFAULT_MISSING = ("", "NA", SUPPRESSED)
#: the number sdcMicro's C++ routines give a missing value (``missing = -999``)
R_MISSING = -999


@dataclass(frozen=True)
class Keys:
    """The key variables of ``n`` records: ``m`` columns of codes.

    ``codes`` groups the values as sdcMicro's frequencies do (equal numbers, or equal
    text); ``suda_codes`` as its SUDA2 does (numbers cut to integers, as its C++
    reads them); ``r_values`` are those integers themselves, ``R_MISSING`` for a
    missing value (SUDA2's hash of a record is built from them). Codes are ``-1``
    where the value is missing."""

    names: tuple[str, ...]
    codes: np.ndarray
    suda_codes: np.ndarray
    r_values: np.ndarray

    @property
    def n(self) -> int:
        return self.codes.shape[0]

    @property
    def m(self) -> int:
        return self.codes.shape[1]

    @property
    def missing(self) -> np.ndarray:
        return self.codes < 0


def _number(text: str) -> float | None:
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _column(series: pd.Series, missing: frozenset[str]):
    """(codes, suda_codes, r_values) of one column."""
    cat = series if isinstance(series.dtype, pd.CategoricalDtype) else series.astype("category")
    categories = [str(c) for c in cat.cat.categories]
    raw = np.asarray(cat.cat.codes, dtype=np.int64)
    present = [i for i, c in enumerate(categories) if c.strip() not in missing]
    numbers = [_number(categories[i]) for i in present]
    r_value = np.full(len(categories) + 1, R_MISSING, dtype=np.int64)  # last: pandas' NaN
    group = np.full(len(categories) + 1, -1, dtype=np.int64)
    if present and all(x is not None for x in numbers):
        # a numeric column: equal numbers are one value ("1" and "1.0"); SUDA2 reads
        # them as C integers (cut towards zero)
        distinct = sorted(set(numbers))
        index = {x: k for k, x in enumerate(distinct)}
        for i, x in zip(present, numbers):
            group[i] = index[x]
            r_value[i] = int(x)
    else:  # a factor: its sorted levels numbered from 1
        for rank, i in enumerate(sorted(present, key=lambda i: categories[i]), start=1):
            group[i] = rank - 1
            r_value[i] = rank
    # SUDA2's codes per category: its integers ranked (-999 is missing to sdcMicro)
    suda_of = np.full(len(categories) + 1, -1, dtype=np.int64)
    usable = (group >= 0) & (r_value != R_MISSING)
    if usable.any():
        suda_of[usable] = np.unique(r_value[usable], return_inverse=True)[1].ravel()
    raw = np.where(raw < 0, len(categories), raw)
    return (group[raw].astype(np.int32), suda_of[raw].astype(np.int32), r_value[raw])


def encode_keys(frame: pd.DataFrame, names: Sequence[str],
                missing: Sequence[str] = DEFAULT_MISSING) -> Keys:
    """The key variables ``names`` of ``frame`` (a ``DataError`` naming a column the
    table lacks)."""
    absent = [n for n in names if n not in frame.columns]
    if absent:
        shown = ", ".join(map(str, list(frame.columns)[:20]))
        raise DataError(f"quasi-identifier(s) not in the data: "
                        f"{', '.join(repr(str(a)) for a in absent)} "
                        f"(columns: {shown})")
    gone = frozenset(str(v).strip() for v in missing)
    n = len(frame)
    cols = [_column(frame[name], gone) for name in names]
    shape = (n, len(names))
    codes = np.empty(shape, np.int32)
    suda = np.empty(shape, np.int32)
    values = np.empty(shape, np.int64)
    for j, (c, s, v) in enumerate(cols):
        codes[:, j], suda[:, j], values[:, j] = c, s, v
    return Keys(tuple(names), codes, suda, values)


def group_ids(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """One id per distinct row of ``codes`` (missing ``-1`` a value of its own) and
    the number of ids."""
    if codes.shape[1] == 0:
        return np.zeros(codes.shape[0], np.int64), 1 if codes.shape[0] else 0
    ids = np.zeros(codes.shape[0], dtype=np.int64)
    size = 1
    for j in range(codes.shape[1]):
        col = codes[:, j].astype(np.int64) + 1
        ids = ids * (int(col.max(initial=0)) + 1) + col
        ids, size = _compact(ids)
    return ids, size


def _compact(ids: np.ndarray) -> tuple[np.ndarray, int]:
    codes, uniques = pd.factorize(ids, sort=False)
    return codes.astype(np.int64), len(uniques)
