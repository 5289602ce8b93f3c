"""Quasi-identifier analysis: how well combinations of attributes tell records apart.

For a combination of attributes, with ``n`` records and ``f_k`` the sizes of the
groups of equal values:

* distinction = number of distinct value combinations / ``n`` (1: every record is
  unique on these attributes);
* separation = share of the ``n (n - 1) / 2`` record pairs that differ in at least
  one attribute, ``1 - sum f_k (f_k - 1) / (n (n - 1))``.

Combinations are visited depth first, each grouping its prefix's group ids with one
more column, so a combination costs one pass over the rows whatever its size and at
most one id array per attribute is held.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.analysis.statistics import Data, column_of, n_rows, row_weights
from engine.errors import Cancelled
from engine.kernel.grouping import group_rows
from engine.progress import CancelCheck, ProgressCallback, Reporter

#: above this many combinations the GUI should warn before running
WARN_COMBINATIONS = 20
#: hard bound on the combinations of one analysis
MAX_COMBINATIONS = 4095


def count_combinations(n_attributes: int, max_size: int | None = None) -> int:
    """Number of non-empty combinations of at most ``max_size`` of ``n_attributes``."""
    top = n_attributes if max_size is None else min(max_size, n_attributes)
    return sum(math.comb(n_attributes, k) for k in range(1, top + 1))


def combination_warning(n_attributes: int, max_size: int | None = None) -> str | None:
    """A warning text when the analysis would cover more than `WARN_COMBINATIONS`."""
    count = count_combinations(n_attributes, max_size)
    if count <= WARN_COMBINATIONS:
        return None
    return (f"{n_attributes} attributes give {count} combinations; this may take a while "
            f"(limit the combination size or select fewer attributes)")


@dataclass(frozen=True)
class QIAnalysis:
    """Distinction and separation per combination, most separating first."""

    table: pd.DataFrame
    warning: str | None


def distinction_separation(sizes: np.ndarray) -> tuple[float, float]:
    """Distinction and separation of groups of the given sizes."""
    n = float(sizes.sum())
    if n == 0:
        return 0.0, 0.0
    if n == 1:
        return 1.0, 1.0
    same_pairs = float((sizes.astype(float) * (sizes - 1)).sum())
    return len(sizes) / n, 1.0 - same_pairs / (n * (n - 1))


def _combinations(m: int, max_size: int) -> Iterator[tuple[int, ...]]:
    """Depth-first: (0), (0, 1), (0, 1, 2), ..., (0, 2), ..., (1), ..."""
    stack = [(i,) for i in range(m - 1, -1, -1)]
    while stack:
        combo = stack.pop()
        yield combo
        if len(combo) < max_size:
            stack.extend(combo + (j,) for j in range(m - 1, combo[-1], -1))


def qi_analysis(data: Data, attributes: Sequence[str], max_size: int | None = None,
                rows: np.ndarray | None = None, progress: ProgressCallback | None = None,
                cancel: CancelCheck | None = None) -> QIAnalysis:
    """Distinction and separation of every combination of ``attributes``.

    Parameters
    ----------
    data
        `EncodedTable` or DataFrame.
    attributes
        Attributes to combine (at most `MAX_COMBINATIONS` combinations in all).
    max_size
        Largest combination size (default: all attributes).
    rows
        Boolean mask of the records to analyse (e.g. the unsuppressed ones).
    progress, cancel
        Called with `engine.progress.Progress` (phase ``"qi-analysis"``) about
        every 100 ms; ``cancel()`` returning True raises `engine.errors.Cancelled`.

    Returns
    -------
    QIAnalysis
        ``table`` columns: ``attributes`` (tuple), ``size``, ``distinction``,
        ``separation``, sorted by separation, then distinction (both descending), then
        size (ascending).
    """
    attributes = list(dict.fromkeys(attributes))
    m = len(attributes)
    top = m if max_size is None else max(1, min(max_size, m))
    total = count_combinations(m, top)
    if total > MAX_COMBINATIONS:
        raise ValueError(f"{total} combinations exceed the limit of {MAX_COMBINATIONS}: "
                         f"select fewer attributes or a smaller max_size")
    mask = np.ones(n_rows(data), bool) if rows is None else np.asarray(rows, dtype=bool)
    cols = [column_of(data, a) for a in attributes]
    codes = [c.codes[mask].astype(np.int64) for c in cols]
    w = row_weights(data)  # a frequency table's rows stand for their records
    weights = None if w is None else w[mask]
    cards = [len(c.dictionary) for c in cols]
    reporter = Reporter(progress, total, cancel)
    prefix: dict[tuple[int, ...], tuple[np.ndarray, int]] = {}
    out = []
    for done, combo in enumerate(_combinations(m, top)):
        if reporter.cancelled():
            raise Cancelled("quasi-identifier analysis cancelled")
        parent = prefix.get(combo[:-1])
        last = combo[-1]
        if parent is None:
            ids, n_ids = codes[last], cards[last]
        else:
            pair = np.stack([parent[0], codes[last]], axis=1).astype(np.int32)
            ids, first = group_rows(pair, np.array([parent[1], cards[last]]))
            n_ids = len(first)
        sizes = np.bincount(ids, weights=weights, minlength=n_ids)
        sizes = sizes[sizes > 0]
        out.append((tuple(attributes[i] for i in combo), len(combo),
                    *distinction_separation(sizes)))
        # keep only the ids of the current path: children follow right after (depth first)
        for key in [k for k in prefix if k != combo[:len(k)]]:
            del prefix[key]
        if len(combo) < top and last < m - 1:
            prefix[combo] = (ids, n_ids)
        reporter.report(done + 1, None, None, phase="qi-analysis")
    reporter.report(total, None, None, force=True, phase="qi-analysis")
    table = pd.DataFrame(out, columns=["attributes", "size", "distinction", "separation"])
    table = table.sort_values(["separation", "distinction", "size"],
                              ascending=[False, False, True], kind="stable")
    return QIAnalysis(table.reset_index(drop=True), combination_warning(m, top))
