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
import pandas as pd

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


def format_number(x: float, integer: bool = False) -> str:
    if not math.isfinite(x):
        return ""
    if integer:
        return str(int(round(x)))
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
                       spec: MicroSpec) -> np.ndarray:
    """Each released row's class aggregate (object array of strings; others "")."""
    out = np.full(len(values), "", dtype=object)
    rows = np.flatnonzero(released)
    if not len(rows):
        return out
    classes = row_class[rows]
    v = np.asarray(values)[rows].astype(str)
    if spec.function == "mode" or spec.function == "interval":
        frame = pd.DataFrame({"c": classes, "v": v})
        agg = {c: aggregate_values(g.to_numpy(), spec)
               for c, g in frame.groupby("c", sort=False)["v"]}
        out[rows] = [agg[c] for c in classes]
        return out
    x = numbers(v, spec.attribute)
    if spec.ignore_missing:
        keep = ~np.isnan(x)
    else:
        x = np.nan_to_num(x, nan=0.0)
        keep = np.ones(len(x), dtype=bool)
    frame = pd.DataFrame({"c": classes[keep], "x": x[keep]})
    if spec.function == "geometric-mean":
        if (frame["x"] <= -1).any():
            raise JobError(f"attribute '{spec.attribute}': the geometric mean needs values "
                           f"greater than -1")
        stat = np.expm1(np.log1p(frame["x"]).groupby(frame["c"]).mean())
    elif spec.function == "arithmetic-mean":
        stat = frame.groupby("c")["x"].mean()
    else:
        stat = frame.groupby("c")["x"].median()
    text = {c: format_number(s, spec.integer) for c, s in stat.items()}
    out[rows] = [text.get(c, "") for c in classes]
    return out


def utility(original: np.ndarray, released_values: np.ndarray, released: np.ndarray,
            spec: MicroSpec) -> dict:
    """Squared error of the released aggregates (numeric functions) and statistics of
    the released values, over the released records."""
    out: dict = {"function": spec.function, "ignore_missing": spec.ignore_missing,
                 "clustering": spec.clustering}
    rows = np.flatnonzero(released)
    if spec.function == "interval":
        out["records"] = int(len(rows))
        return out
    try:
        orig = numbers(np.asarray(original)[rows].astype(str), spec.attribute)
        rel = numbers(np.asarray(released_values)[rows].astype(str), spec.attribute)
    except JobError:
        out["records"] = int(len(rows))
        return out
    both = ~np.isnan(orig) & ~np.isnan(rel)
    err = (orig[both] - rel[both]) ** 2
    everything = numbers(np.asarray(original).astype(str), spec.attribute)
    lo, hi = np.nanmin(everything), np.nanmax(everything)
    span = hi - lo
    out.update({
        "records": int(len(rows)),
        "sse": float(err.sum()),
        "nmse": float(err.sum() / span ** 2 / max(int(both.sum()), 1)) if span > 0 else 0.0,
        "released_mean": float(np.nanmean(rel)) if len(rel) else None,
        "released_median": float(np.nanmedian(rel)) if len(rel) else None,
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
