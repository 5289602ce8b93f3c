"""Microaggregation: a quasi-identifier's values replaced by an aggregate per class.

As in ARX, a microaggregated attribute is a quasi-identifier that is not
generalized: the equivalence classes are formed by the other (generalized)
quasi-identifiers, and every record of a class releases the aggregate of the
class's original values. Since the aggregate is constant within a class, the
released table's classes (recounted over every quasi-identifier, the
aggregated one included) are exactly those classes. With ``clustering`` the
attribute is generalized by its own hierarchy first (ARX's "clustering and
microaggregation"): it then shapes the classes, whose values are aggregated.

Functions (ARX's ``DistributionAggregateFunction``):

- ``arithmetic-mean``, ``geometric-mean`` (``exp(mean(log(1 + x))) - 1``, ARX's
  offset of 1 so zeros are allowed), ``median`` (mean of the two middle values
  for an even count): numeric values;
- ``mode``: the most frequent value (the smallest of equally frequent ones);
- ``interval``: ``[min, max]`` of the class's numeric values.

With ``data_type = "integer"`` the numeric aggregates are rounded to whole numbers,
halves upwards as ARX rounds them (``round_half_up``: 37.5 -> 38, 36.5 -> 37);
otherwise they keep six decimals.

Missing values (empty, or ``NULL``) count as 0 in the means and the median
unless ``ignore_missing`` (ARX's ``ignoreMissingData``); ``mode`` counts a
missing value as a value unless ignored; ``interval`` always skips them. A
class with no value left releases the empty string.

Utility: the squared error of the released numbers against the originals
(``sse``, and ARX's normalized mean squared error ``nmse`` over the
attribute's range), and ARX's Loss per class: the class's distinct values over
the attribute's distinct values (``distinct_share``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.config import AGGREGATE_FUNCTIONS
from engine.errors import JobError

FUNCTIONS = AGGREGATE_FUNCTIONS  # declared with AttributeConfig.function
NUMERIC = ("arithmetic-mean", "geometric-mean", "median", "interval")
MISSING = ("", "NULL")


def micro_key(attribute: str) -> str:
    """The classifier aggregate holding each class's values of a microaggregated QI."""
    return f"micro:{attribute}"


@dataclass(frozen=True)
class MicroSpec:
    """One microaggregated attribute of a job."""

    attribute: str
    function: str
    ignore_missing: bool = False
    clustering: str = "none"  # none | hierarchy | mdav
    integer: bool = False  # round numeric aggregates to whole numbers (data_type integer)


def numbers(values: np.ndarray, attribute: str, first_row: dict | None = None) -> np.ndarray:
    """Strings as floats, NaN for missing values; a clear error for anything else."""
    out = np.empty(len(values), dtype=float)
    for i, v in enumerate(values):
        s = str(v).strip()
        if s in MISSING:
            out[i] = np.nan
            continue
        try:
            out[i] = float(s)
        except ValueError:
            where = f" (data row {first_row[str(v)] + 1})" if first_row and str(v) in first_row \
                else ""
            raise JobError(f"attribute '{attribute}': value {str(v)!r}{where} is not a number; "
                           f"this microaggregation function needs numbers (use 'mode' for "
                           f"categorical data)") from None
        if not math.isfinite(out[i]):
            raise JobError(f"attribute '{attribute}': value {str(v)!r} is not a finite number")
    return out


def round_half_up(x: float) -> int:
    """``x`` rounded to the nearest whole number, halves upwards (towards +infinity), as
    ARX rounds an aggregate of an integer attribute (Java's ``Math.round``): 37.5 -> 38,
    -2.5 -> -2. Python's ``round`` would take halves to the even neighbour (37.5 -> 38,
    36.5 -> 36). ``x - floor(x)`` is exact for a double, so no half is missed."""
    low = math.floor(x)
    return int(low) + (1 if x - low >= 0.5 else 0)


def format_number(x: float, integer: bool = False) -> str:
    if not math.isfinite(x):
        return ""
    if integer:
        return str(round_half_up(x))
    r = round(float(x), 6)
    if r == int(r) and abs(r) < 1e15:
        return str(int(r))
    return f"{r:.6f}".rstrip("0").rstrip(".")


def aggregate_values(values, spec: MicroSpec) -> str:
    """The aggregate of one class's original values (strings), as released."""
    values = np.asarray([str(v) for v in values], dtype=object)
    if spec.function == "mode":
        kept = [v for v in values if not (spec.ignore_missing and v.strip() in MISSING)]
        if not kept:
            return ""
        import pandas as pd
        counts = pd.Series(kept).value_counts()
        top = counts[counts == counts.max()].index
        return str(sorted(top, key=_sort_key)[0])
    x = numbers(values, spec.attribute)
    if spec.function == "interval":
        x = x[~np.isnan(x)]
        if not len(x):
            return ""
        return f"[{format_number(x.min(), spec.integer)}, {format_number(x.max(), spec.integer)}]"
    x = x[~np.isnan(x)] if spec.ignore_missing else np.nan_to_num(x, nan=0.0)
    if not len(x):
        return ""
    return format_number(_statistic(x, spec.function), spec.integer)


def _sort_key(v: str):
    try:
        return (0, float(v), v)
    except ValueError:
        return (1, 0.0, v)


def _statistic(x: np.ndarray, function: str) -> float:
    if function == "arithmetic-mean":
        return float(np.mean(x))
    if function == "geometric-mean":
        if (x <= -1).any():
            raise JobError("the geometric mean needs values greater than -1")
        return float(np.exp(np.mean(np.log1p(x))) - 1.0)
    return float(np.median(x))


def aggregate_by_class(values: np.ndarray, row_class: np.ndarray, released: np.ndarray,
                       spec: MicroSpec, weights: np.ndarray | None = None) -> np.ndarray:
    """Each released row's class aggregate (object array of strings; others ""). With
    ``weights`` each row stands for that many records (a backend's frequency table)."""
    out = np.full(len(values), "", dtype=object)
    rows = np.flatnonzero(released)
    if not len(rows):
        return out
    classes = np.asarray(row_class)[rows]
    import pandas as pd
    codes, dictionary = pd.factorize(pd.Series(np.asarray(values)[rows]).astype(str),
                                     sort=True)
    w = np.ones(len(rows), np.int64) if weights is None else np.asarray(weights)[rows]
    ids, labels = class_aggregates(classes, codes, np.asarray(dictionary, dtype=object), w,
                                   spec)
    text = dict(zip(ids.tolist(), labels))
    out[rows] = [text.get(c, "") for c in classes.tolist()]
    return out


def class_aggregates(classes: np.ndarray, codes: np.ndarray, dictionary: np.ndarray,
                     weights: np.ndarray, spec: MicroSpec) -> tuple[np.ndarray, list[str]]:
    """The released aggregate of every class given its records as (class, value code
    into ``dictionary``, weight) triples: the class ids that have one, and their labels.

    The triples are first summed per (class, distinct value), so the result depends on
    the multiset of records alone, not on how they are split into rows or ordered:
    the in-memory records and a backend's frequency table give the same labels. Sums
    are exactly rounded (``math.fsum`` of value x count), the median is the middle of
    the sorted records (the mean of the two middle ones for an even count)."""
    dictionary = np.asarray([str(v) for v in dictionary], dtype=object)
    n_values = max(len(dictionary), 1)
    key = np.asarray(classes, np.int64) * n_values + np.asarray(codes, np.int64)
    pairs, inverse = np.unique(key, return_inverse=True)
    count = np.bincount(inverse, weights=np.asarray(weights, np.float64)).astype(np.int64)
    cls, code = pairs // n_values, pairs % n_values
    if spec.function in ("mode", "interval"):
        x = None
    else:
        x = numbers(dictionary, spec.attribute)
        if spec.function == "geometric-mean" and (x[~np.isnan(x)] <= -1).any():
            raise JobError(f"attribute '{spec.attribute}': the geometric mean needs values "
                           f"greater than -1")
    missing = np.array([v.strip() in MISSING for v in dictionary], dtype=bool)
    starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]]) if len(cls) else np.zeros(0, int)
    ends = np.r_[starts[1:], len(cls)]
    ids, labels = [], []
    for a, b in zip(starts.tolist(), ends.tolist()):
        label = _class_label(code[a:b], count[a:b], dictionary, x, missing, spec)
        if label is not None:
            ids.append(int(cls[a]))
            labels.append(label)
    return np.asarray(ids, dtype=np.int64), labels


def _class_label(codes: np.ndarray, counts: np.ndarray, dictionary: np.ndarray,
                 x: np.ndarray | None, missing: np.ndarray, spec: MicroSpec) -> str | None:
    """One class's aggregate from its distinct values (codes, sorted) and their counts;
    "" when no value is left, None for a class without records."""
    if not counts.sum():
        return None
    if spec.function == "mode":
        keep = ~missing[codes] if spec.ignore_missing else np.ones(len(codes), bool)
        if not keep.any():
            return ""
        c, n = codes[keep], counts[keep]
        top = [str(dictionary[v]) for v in c[n == n.max()]]
        return sorted(top, key=_sort_key)[0]
    if spec.function == "interval":
        v = numbers(dictionary[codes], spec.attribute)
        v = v[~np.isnan(v)]
        if not len(v):
            return ""
        return f"[{format_number(v.min(), spec.integer)}, {format_number(v.max(), spec.integer)}]"
    v = x[codes]
    n = counts
    if spec.ignore_missing:
        keep = ~np.isnan(v)
        v, n = v[keep], n[keep]
    else:
        v = np.nan_to_num(v, nan=0.0)
    total = int(n.sum())
    if not total:
        return ""
    if spec.function == "arithmetic-mean":
        stat = math.fsum((v * n).tolist()) / total
    elif spec.function == "geometric-mean":
        stat = math.expm1(math.fsum((np.log1p(v) * n).tolist()) / total)
    else:  # the median of the records: the sorted values repeated by their counts
        order = np.argsort(v, kind="stable")
        v, cum = v[order], np.cumsum(n[order])
        lo = float(v[np.searchsorted(cum, (total - 1) // 2, side="right")])
        hi = float(v[np.searchsorted(cum, total // 2, side="right")])
        stat = lo if lo == hi else (lo + hi) / 2
    return format_number(stat, spec.integer)


def utility(original: np.ndarray, released_values: np.ndarray, released: np.ndarray,
            spec: MicroSpec, weights: np.ndarray | None = None) -> dict:
    """Squared error of the released aggregates (numeric functions) and statistics of
    the released values, over the released records (``weights``: records per row, for
    a backend's frequency table)."""
    out: dict = {"function": spec.function, "ignore_missing": spec.ignore_missing,
                 "clustering": spec.clustering}
    rows = np.flatnonzero(released)
    w = None if weights is None else np.asarray(weights, dtype=np.int64)
    out["records"] = int(len(rows)) if w is None else int(w[rows].sum())
    if spec.function == "interval":
        return out
    try:
        orig = numbers(np.asarray(original)[rows].astype(str), spec.attribute)
        rel = numbers(np.asarray(released_values)[rows].astype(str), spec.attribute)
    except JobError:
        return out
    both = ~np.isnan(orig) & ~np.isnan(rel)
    err = (orig[both] - rel[both]) ** 2
    everything = numbers(np.asarray(original).astype(str), spec.attribute)
    lo, hi = np.nanmin(everything), np.nanmax(everything)
    span = hi - lo
    if w is None:
        sse, n_both = float(err.sum()), int(both.sum())
        stats = {"released_mean": float(np.nanmean(rel)) if len(rel) else None,
                 "released_median": float(np.nanmedian(rel)) if len(rel) else None}
    else:
        rw = w[rows]
        sse, n_both = float((err * rw[both]).sum()), int(rw[both].sum())
        known = ~np.isnan(rel)
        v, vw = rel[known], rw[known]
        order = np.argsort(v, kind="stable")
        v, cum = v[order], np.cumsum(vw[order])
        total = int(cum[-1]) if len(cum) else 0
        stats = {"released_mean": float((v * vw[order]).sum() / total) if total else None,
                 "released_median": float((v[np.searchsorted(cum, (total - 1) // 2, "right")]
                                           + v[np.searchsorted(cum, total // 2, "right")]) / 2)
                 if total else None}
    out.update({
        "sse": sse,
        "nmse": float(sse / span ** 2 / max(n_both, 1)) if span > 0 else 0.0,
        **stats,
        "released_min": float(np.nanmin(rel)) if len(rel) else None,
        "released_max": float(np.nanmax(rel)) if len(rel) else None,
    })
    return out


def micro_specs(job) -> list[MicroSpec]:
    """The job's microaggregated quasi-identifiers, in job order."""
    out = []
    for name, a in job.attributes.items():
        if a.type == "quasi-identifying" and a.transformation == "microaggregation":
            out.append(MicroSpec(name, a.function, a.ignore_missing, a.clustering,
                                 (a.data_type or "").lower() in ("integer", "int")))
    return out


def check_values(specs: list[MicroSpec], table) -> None:
    """Refuse before any search a microaggregated column whose function (or MDAV
    clustering) needs numbers but holds other values, naming the first such value and
    its data row."""
    for spec in specs:
        if spec.function in NUMERIC or spec.clustering == "mdav":
            column = table.column(spec.attribute)
            x = numbers(column.dictionary, spec.attribute, column.first_rows())
            if spec.function == "geometric-mean" and (x[~np.isnan(x)] <= -1).any():
                raise JobError(f"attribute '{spec.attribute}': the geometric mean needs "
                               f"values greater than -1")


def is_aggregated_only(job, name: str) -> bool:
    """A microaggregated QI that is not generalized (no clustering): not in the lattice."""
    a = job.attributes.get(name)
    return (a is not None and a.type == "quasi-identifying"
            and a.transformation == "microaggregation" and a.clustering != "hierarchy")


def micro_dimensions(metric, specs: list[MicroSpec], table) -> list[tuple]:
    """(attribute, distinct values, per-record value counts) for the microaggregated
    attributes the metric measures (ARX's Loss does; others ignore them, as ARX's
    "cold" attributes)."""
    from engine.kernel.sparse_counts import SparseCounts
    if not getattr(metric, "handles_microaggregation", False):
        return []
    out = []
    for spec in specs:
        if spec.clustering == "hierarchy":
            continue  # measured through its hierarchy, as ARX does
        column = table.column(spec.attribute)
        n = len(column.dictionary)
        out.append((spec.attribute, n, SparseCounts.from_codes(column.codes, n)))
    return out
