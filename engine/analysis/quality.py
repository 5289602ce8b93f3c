"""Data quality of a transformation, per attribute and overall (see ``QUALITY.md``).

Every per-attribute value is a *loss* in [0, 1]: 0 means the output keeps all
the input's information about the attribute, 1 that it keeps none. They are
computed from the input and output columns themselves (the pairs of input
value and output value, grouped once), so any output can be judged, also one
not produced by a hierarchy.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from engine.analysis.statistics import (Data, _resolve_type, column_of, count_groups,
                                        group_codes, n_records, n_rows, row_weights)
from engine.data.datatypes import DataType, Kind
from engine.data.order import interval_bounds, numbers
from engine.errors import DataError
from engine.hierarchy.model import Hierarchy

MEASURES = ("missing", "generalization_intensity", "granularity", "non_uniform_entropy",
            "squared_error")


@dataclass(frozen=True)
class AttributeQuality:
    """Loss values of one attribute (NaN where a measure does not apply)."""

    attribute: str
    missing: float
    generalization_intensity: float
    granularity: float
    non_uniform_entropy: float
    squared_error: float


@dataclass(frozen=True)
class QualityReport:
    """Per-attribute losses, their means, and the class-based measures of the output."""

    attributes: tuple[AttributeQuality, ...]
    overall: dict[str, float]
    discernibility: float
    discernibility_normalized: float
    average_class_size: float
    classes: int
    suppressed_records: int

    def to_frame(self) -> pd.DataFrame:
        """One row per attribute and a last row ``(overall)`` with the means."""
        rows = [asdict(a) for a in self.attributes]
        rows.append({"attribute": "(overall)", **self.overall})
        return pd.DataFrame(rows).set_index("attribute")


@dataclass(frozen=True)
class _Pairs:
    """The distinct (input value, output value) pairs of one column and their counts."""

    inputs: np.ndarray   # input dictionary code per pair
    outputs: np.ndarray  # output dictionary code per pair, -1 where the record is lost
    counts: np.ndarray
    in_values: np.ndarray
    out_values: np.ndarray
    n: int


def _pairs(input: Data, output: Data, name: str, suppressed: np.ndarray | None,
           missing: Sequence[str]) -> _Pairs:
    a, b = column_of(input, name), column_of(output, name)
    out_codes = b.codes.astype(np.int64)
    lost = np.isin(b.dictionary.astype(str), list(missing))[out_codes]
    if suppressed is not None:
        lost = lost | suppressed
    out_codes = np.where(lost, len(b.dictionary), out_codes)
    key = a.codes.astype(np.int64) * (len(b.dictionary) + 1) + out_codes
    uniq, inverse = np.unique(key, return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=row_weights(input),
                         minlength=len(uniq)).astype(np.int64)
    ins, outs = np.divmod(uniq, len(b.dictionary) + 1)
    outs = np.where(outs == len(b.dictionary), -1, outs)
    return _Pairs(ins, outs, counts, a.dictionary.astype(str), b.dictionary.astype(str),
                  int(counts.sum()))


def _weighted_mean(per_pair: np.ndarray, p: _Pairs) -> float:
    return float((per_pair * p.counts).sum() / p.n) if p.n else 0.0


def _levels(p: _Pairs, h: Hierarchy) -> np.ndarray:
    """Per pair: the lowest hierarchy level whose label of the input value is the output
    value (-1 if lost or not a generalization of it)."""
    row_of = {r[0]: r for r in h.rows}
    out = np.full(len(p.counts), -1, dtype=np.int64)
    for i, (v, o) in enumerate(zip(p.inputs, p.outputs)):
        row = row_of.get(p.in_values[v])
        if o >= 0 and row is not None and p.out_values[o] in row:
            out[i] = row.index(p.out_values[o])
    return out


def generalization_intensity(p: _Pairs, h: Hierarchy | None) -> float:
    """Mean over records of ``level / height`` of the hierarchy level the output value
    is at; lost records (suppressed, missing, not found in the hierarchy) count 1."""
    if h is None:
        return float("nan")
    levels = _levels(p, h)
    ratio = levels / h.height if h.height else np.zeros(len(levels))
    return _weighted_mean(np.where(levels < 0, 1.0, ratio), p)


def granularity(p: _Pairs, h: Hierarchy | None) -> float:
    """Mean over records of ``(leaves - 1) / (domain - 1)``: how many original values
    the output value stands for. With a hierarchy, leaves are its rows under the label
    and the domain its number of rows; without one, the distinct input values seen with
    the output value and all distinct input values. Lost records count 1."""
    kept = p.outputs >= 0
    if h is not None:
        levels = _levels(p, h)
        per_level = [Counter(r[lv] for r in h.rows) for lv in range(h.levels)]
        leaves = np.ones(len(p.counts))
        for i in np.flatnonzero(levels >= 0):
            leaves[i] = per_level[levels[i]][p.out_values[p.outputs[i]]]
        domain, kept = len(h.rows), levels >= 0
    else:
        leaves = np.bincount(p.outputs[kept], minlength=len(p.out_values))[
            np.where(kept, p.outputs, 0)].astype(float)
        domain = len(np.unique(p.inputs))
    share = (leaves - 1) / (domain - 1) if domain > 1 else np.zeros(len(leaves))
    return _weighted_mean(np.where(kept, share, 1.0), p)


def non_uniform_entropy(p: _Pairs) -> float:
    """``H(input | output) / H(input)`` in record terms: each record loses
    ``-log2(c(v) / c(cover(o)))`` bits, ``c`` counting input records, ``cover(o)`` the
    input values seen with output value ``o`` (all values for lost records); divided by
    the loss when every record is lost, ``-sum c(v) log2(c(v) / N)``."""
    c_in = np.bincount(p.inputs, weights=p.counts, minlength=len(p.in_values))
    kept = p.outputs >= 0
    cover = np.zeros(len(p.out_values))
    # each (input value, output value) pair adds the input value's count once to the cover
    np.add.at(cover, p.outputs[kept], c_in[p.inputs[kept]])
    denominator = np.where(kept, cover[np.where(kept, p.outputs, 0)], p.n)
    lost_bits = -(p.counts * np.log2(c_in[p.inputs] / denominator)).sum()
    present = c_in[c_in > 0]
    top = -(present * np.log2(present / p.n)).sum()
    return float(lost_bits / top) if top > 0 else 0.0


def squared_error(p: _Pairs, data_type: DataType | None) -> float:
    """For number and date attributes: ``sum d / sum dmax`` over records with an input
    value, ``d`` the largest squared distance of the input value to the bounds of its
    output value's interval (`interval_bounds`; 0 if unchanged), ``dmax`` the largest
    squared distance to the input's minimum or maximum (also used for lost or
    non-interval output values, and as a cap). NaN for other types."""
    if data_type is None or data_type.kind not in (Kind.INTEGER, Kind.DECIMAL, Kind.DATE):
        return float("nan")
    x = numbers(p.in_values, data_type)[p.inputs]
    has = ~np.isnan(x)
    if not has.any():
        return float("nan")
    lo, hi = np.nanmin(x), np.nanmax(x)
    bounds = interval_bounds(p.out_values, data_type)
    b = np.where(p.outputs[:, None] >= 0, bounds[np.maximum(p.outputs, 0)], np.nan)
    dmax = np.maximum((x - lo) ** 2, (x - hi) ** 2)
    with np.errstate(invalid="ignore"):
        d = np.maximum((x - b[:, 0]) ** 2, (x - b[:, 1]) ** 2)
    d = np.where(np.isnan(d), dmax, np.minimum(d, dmax))
    total = float((dmax * p.counts)[has].sum())
    return float((d * p.counts)[has].sum() / total) if total > 0 else 0.0


def attribute_quality(input: Data, output: Data, attribute: str,
                      hierarchy: Hierarchy | None = None, data_type: DataType | None = None,
                      suppressed: np.ndarray | None = None,
                      missing: Sequence[str] = ("",)) -> AttributeQuality:
    """Loss values of one attribute; see `quality` for the parameters."""
    if n_rows(input) != n_rows(output):
        raise DataError(f"input has {n_rows(input)} rows but output {n_rows(output)}: "
                        f"quality compares the same records")
    p = _pairs(input, output, attribute, suppressed, missing)
    dtype = _resolve_type(column_of(input, attribute), data_type)
    lost = float(p.counts[p.outputs < 0].sum() / p.n) if p.n else 0.0
    return AttributeQuality(attribute, lost, generalization_intensity(p, hierarchy),
                            granularity(p, hierarchy), non_uniform_entropy(p),
                            squared_error(p, dtype))


def quality(input: Data, output: Data, attributes: Sequence[str],
            hierarchies: Mapping[str, Hierarchy] | None = None,
            data_types: Mapping[str, DataType] | None = None,
            suppressed: np.ndarray | None = None,
            missing: Sequence[str] = ("",)) -> QualityReport:
    """Quality of ``output`` (same records, same order as ``input``) for ``attributes``.

    Parameters
    ----------
    input, output
        The original and the released table (`EncodedTable` or DataFrame); weighted
        tables (a frequency table and its release) count each row's records.
    attributes
        Attributes to assess; the class-based measures group the output by all of them
        (pass the quasi-identifiers).
    hierarchies
        Hierarchies by attribute, for generalization intensity (NaN without one) and
        the hierarchy's domain in granularity.
    data_types
        Data types by attribute (detected from the input when not given); squared error
        applies to integer, decimal and date attributes.
    suppressed
        Boolean mask of suppressed records (e.g. ``ReleasedTable.suppressed_rows``);
        they count as fully lost and outside any class.
    missing
        Output values that mean "no value".

    Returns
    -------
    QualityReport
    """
    hierarchies, data_types = hierarchies or {}, data_types or {}
    sup = None if suppressed is None else np.asarray(suppressed, dtype=bool)
    per = tuple(attribute_quality(input, output, a, hierarchies.get(a), data_types.get(a),
                                  sup, missing) for a in attributes)
    overall = {m: float(np.nanmean([getattr(a, m) for a in per]))
               if any(not np.isnan(getattr(a, m)) for a in per) else float("nan")
               for m in MEASURES}
    n = n_records(output)
    kept = np.ones(n_rows(output), bool) if sup is None else ~sup
    group_of, n_classes = group_codes(output, list(attributes), kept)
    sizes = count_groups(group_of, n_classes, output, kept).astype(float)
    n_sup = int(n - sizes.sum())
    dm = float((sizes ** 2).sum() + n_sup * n)
    dm_norm = (dm - n) / (n * n - n) if n > 1 else 0.0
    aecs = float(sizes.sum() / n_classes) if n_classes else float("nan")
    return QualityReport(per, overall, dm, dm_norm, aecs, n_classes, n_sup)
