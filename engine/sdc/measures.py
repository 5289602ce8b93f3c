"""Every survey risk measure of a table at once (``engine.risk``, ``anonymist risk``).

`measure_risk` takes a DataFrame, its quasi-identifiers (sdcMicro's key variables),
optionally a sampling-weight and a household column and sensitive attributes, and
returns `SurveyRisk`: one row per record in input order (`PER_RECORD_COLUMNS` first)
and a summary (its keys are the ``--json`` file's, docs/reference/risk-command.md).
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.errors import DataError
from engine.sdc.frequencies import frequencies
from engine.sdc.individual import (METHODS, global_threshold, household_risk,
                                   individual_risk, risky_by_default)
from engine.sdc.keys import DEFAULT_MISSING, Keys, encode_keys, group_ids
from engine.sdc.roles import household_values, weight_values
from engine.sdc.suda2 import DIS_FRACTION, Suda2Result, suda2

#: the per-record columns every output has, in this order (a contract)
PER_RECORD_COLUMNS = ("record", "class_size", "population_frequency", "individual_risk",
                      "at_risk", "suda2_score", "dis_suda_score")
#: k of the k-anonymity violation counts (sdcMicro reports 2, 3 and 5)
K_VIOLATIONS = (2, 3, 5)
#: the DIS-SUDA table's intervals (sdcMicro's ``print.suda2``)
DIS_BINS = ("== 0", "(0.0, 0.1]", "(0.1, 0.2]", "(0.2, 0.3]", "(0.3, 0.4]", "(0.4, 0.5]",
            "(0.5, 0.6]", "(0.6, 0.7]", "> 0.7")
#: sdcMicro's ``max_global_risk``: the global risk its ``global_threshold`` aims at
MAX_GLOBAL_RISK = 0.01
#: risky cells: every combination of up to this many quasi-identifiers ...
RISKY_CELLS_DIMENSIONS = 2
#: ... and a cell is risky when at most this many records fall into it
RISKY_CELLS_THRESHOLD = 3


@dataclass(frozen=True)
class SurveyRisk:
    """The measures of one table: ``per_record`` (one row per record, input order)
    and ``summary`` (JSON-ready)."""

    per_record: pd.DataFrame
    summary: dict
    suda: Suda2Result | None = None


def _json_number(x) -> float | None:
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


def _check_names(frame: pd.DataFrame, qis: Sequence[str], weight, household,
                 sensitive: Sequence[str]) -> None:
    if not qis:
        raise DataError("give at least one quasi-identifier")
    seen = set()
    for q in qis:
        if q in seen:
            raise DataError(f"quasi-identifier '{q}' is named twice")
        seen.add(q)
    for key, column in (("weight", weight), ("household", household)):
        if column is not None and column in seen:
            raise DataError(f"the {key} column '{column}' cannot also be a quasi-identifier")
    for s in sensitive:
        if s in seen:
            raise DataError(f"sensitive attribute '{s}' cannot also be a quasi-identifier")
        if s not in frame.columns:
            raise DataError(f"sensitive attribute '{s}' is not in the data")
    if len(frame) == 0:
        raise DataError("the data has no records")


def check_options(method: str, threshold: float | None, dis_fraction: float) -> None:
    if method not in METHODS:
        raise DataError(f"method '{method}': one of {', '.join(METHODS)}")
    if threshold is not None and not (0 <= threshold <= 1):
        raise DataError(f"threshold {threshold}: a risk between 0 and 1")
    if not (0 < dis_fraction < 1):
        raise DataError(f"DIS fraction {dis_fraction}: a sampling fraction between 0 and 1")


def measure_risk(frame: pd.DataFrame, quasi_identifiers: Sequence[str],
                 weight: str | None = None, household: str | None = None,
                 method: str = "approx", sensitive: Sequence[str] = (),
                 threshold: float | None = None, dis_fraction: float = DIS_FRACTION,
                 missing: Sequence[str] = DEFAULT_MISSING, suda: bool = True,
                 risky_cells_dimensions: int = RISKY_CELLS_DIMENSIONS,
                 risky_cells_threshold: int = RISKY_CELLS_THRESHOLD) -> SurveyRisk:
    """The survey risk measures of ``frame`` (docs/reference/risk-command.md).

    ``threshold`` None counts as at risk the records sdcMicro flags (individual risk
    above median + 3 MAD and above 0.1); a number counts those above it."""
    qis = list(quasi_identifiers)
    _check_names(frame, qis, weight, household, sensitive)
    check_options(method, threshold, dis_fraction)
    keys = encode_keys(frame, qis, missing)
    w = weight_values(frame, weight) if weight is not None else None
    hh = household_values(frame, household) if household is not None else None
    out, summary, result = measure_keys(
        keys, None, w, method=method, threshold=threshold, dis_fraction=dis_fraction,
        suda=suda, risky_cells_dimensions=risky_cells_dimensions,
        risky_cells_threshold=risky_cells_threshold)
    summary.update(quasi_identifiers=qis, weight=weight, household=household,
                   missing_values=list(missing))
    n = keys.n
    if hh is not None:
        out["household_risk"] = household_risk(out["individual_risk"], hh)
        summary["household_risk"] = household_summary(
            out["household_risk"], len(np.unique(hh)), n)
    ldiv = {}
    for s in sensitive:
        ldiv[s] = l_diversity(keys, frame[s], missing)
        distinct, entropy, recursive = ldiv[s]
        out[f"l_diversity_{s}"] = distinct
        out[f"entropy_l_diversity_{s}"] = entropy
        out[f"recursive_l_diversity_{s}"] = recursive
    if sensitive:
        summary["l_diversity"] = {
            s: {"lowest": int(d.min()), "records_below_2": int((d < 2).sum()),
                "records_below_3": int((d < 3).sum()),
                "lowest_entropy": _json_number(e.min()),
                "lowest_recursive_c2": int(r.min())}
            for s, (d, e, r) in ldiv.items()}
    out = {"record": np.arange(1, n + 1), **out}
    return SurveyRisk(pd.DataFrame(out), _ordered(summary), result)


#: the summary's keys in the order the JSON file lists them
SUMMARY_ORDER = ("records", "quasi_identifiers", "weight", "household", "method", "weighted",
                 "missing_values", "global_risk", "global_risk_percent",
                 "expected_reidentifications", "records_at_risk", "records_at_risk_rule",
                 "threshold", "highest_individual_risk", "global_threshold",
                 "max_global_risk", "records_risk_not_a_number", "k_anonymity",
                 "k_anonymity_percent", "k_anonymity_weighted", "household_risk", "suda2",
                 "l_diversity", "risky_cells")


def _ordered(summary: dict) -> dict:
    first = {k: summary[k] for k in SUMMARY_ORDER if k in summary}
    return {**first, **{k: v for k, v in summary.items() if k not in first}}


def household_summary(h_risk: np.ndarray, households: int, n: int) -> dict:
    expected = float(np.nansum(h_risk))
    return {"households": int(households),
            "global_risk": _json_number(expected / n),
            "global_risk_percent": _json_number(100 * expected / n),
            "expected_reidentifications": _json_number(expected),
            "highest": _json_number(np.nanmax(h_risk))}


def measure_keys(keys: Keys, counts: np.ndarray | None, weights: np.ndarray | None, *,
                 method: str = "approx", threshold: float | None = None,
                 dis_fraction: float = DIS_FRACTION, suda: bool = True,
                 risky_cells_dimensions: int = RISKY_CELLS_DIMENSIONS,
                 risky_cells_threshold: int = RISKY_CELLS_THRESHOLD):
    """The measures of the rows of ``keys``, each standing for ``counts`` records
    (None: one each) with the weight sums ``weights`` (None: no weight): per-row
    columns (``PER_RECORD_COLUMNS`` but ``record``, SUDA2's contributions), the
    summary's figures, and SUDA2's result (None without ``suda``)."""
    c = np.ones(keys.n) if counts is None else np.asarray(counts, dtype=float)
    fk, Fk = frequencies(keys, weights, c)
    risk = individual_risk(fk, Fk, weighted=weights is not None, method=method)
    at_risk = (risky_by_default(risk, None if counts is None else c)
               if threshold is None else risk > threshold)
    n = float(c.sum())
    out = {"class_size": _integral(fk), "population_frequency": Fk, "individual_risk": risk,
           "at_risk": at_risk.astype(np.int8)}
    result = None
    if suda:
        result = suda2(keys, dis_fraction, None if counts is None else c.astype(np.int64))
        out["suda2_score"] = result.score
        out["dis_suda_score"] = result.dis_score
        for j, q in enumerate(keys.names):
            out[f"suda2_contribution_{q}"] = result.contribution[:, j]
    expected = float(np.nansum(c * risk))
    summary: dict = {
        "records": int(n),
        "method": method,
        "weighted": weights is not None,
        "global_risk": _json_number(expected / n),
        "global_risk_percent": _json_number(100 * expected / n),
        "expected_reidentifications": _json_number(expected),
        "records_at_risk": int(c[at_risk].sum()),
        "records_at_risk_rule": (f"individual_risk > {threshold:g}" if threshold is not None
                                 else "individual_risk > median + 3 MAD and > 0.1"),
        "threshold": threshold,
        "highest_individual_risk": _json_number(np.nanmax(risk)),
        "global_threshold": global_threshold(risk, MAX_GLOBAL_RISK,
                                             None if counts is None else c),
        "max_global_risk": MAX_GLOBAL_RISK,
        # the exact method overflows for large classes, in sdcMicro as here
        "records_risk_not_a_number": int(c[np.isnan(risk)].sum()),
        "k_anonymity": {f"violating_{k}": int(c[fk < k].sum()) for k in K_VIOLATIONS},
        "k_anonymity_percent": {
            f"violating_{k}": 100 * float(c[fk < k].sum()) / n for k in K_VIOLATIONS},
    }
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        summary["k_anonymity_weighted"] = {
            f"violating_{k}": float(w[fk < k].sum()) for k in K_VIOLATIONS}
    if result is not None:
        scored = result.score > 0  # rows of one record each
        summary["suda2"] = {
            "contributions": {k: _json_number(v)
                              for k, v in result.attribute_contributions.items()},
            "dis_fraction": dis_fraction,
            "max_msu_size": result.max_msu_size,
            "msu_counts": {str(k + 1): int(x) for k, x in enumerate(result.msu_counts)},
            "records_with_msu": int(scored.sum()),
            "total_score": float(result.score.sum()),
            "highest_score": float(result.score.max(initial=0)),
            "highest_dis_suda_score": _json_number(np.nanmax(result.dis_score)),
            "dis_suda_table": dis_table(result.dis_score, c),
            "unique_records_counted": result.unique_records,
            "pair_records_counted": result.pair_records}
    summary["risky_cells"] = risky_cells(keys, risky_cells_dimensions, risky_cells_threshold,
                                         None if counts is None else c)
    return out, summary, result


def _integral(x: np.ndarray) -> np.ndarray:
    """Integer frequencies as integers (they are, with sdcMicro's alpha = 1)."""
    r = np.rint(x)
    return r.astype(np.int64) if np.allclose(r, x) else x


def dis_table(dis: np.ndarray, counts: np.ndarray | None = None) -> dict[str, int]:
    """The number of records per DIS-SUDA interval, as sdcMicro prints them."""
    eps = np.finfo(float).eps
    edges = np.concatenate([[-1.0], np.arange(0, 0.71, 0.1) + eps, [np.inf]])
    d = np.asarray(dis, dtype=float)
    c = np.ones(len(d)) if counts is None else np.asarray(counts, dtype=float)
    d, c = d[~np.isnan(d)], c[~np.isnan(d)]
    # R's cut: right-closed intervals (-1, eps], (eps, 0.1 + eps], ..., (0.7 + eps, Inf]
    idx = np.searchsorted(edges, d, side="left") - 1
    counts = np.bincount(np.clip(idx, 0, len(DIS_BINS) - 1), weights=c,
                         minlength=len(DIS_BINS))
    return dict(zip(DIS_BINS, (int(c) for c in counts)))


def l_diversity(keys: Keys, values: pd.Series, missing: Sequence[str] = DEFAULT_MISSING,
                recursive_c: float = 2.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each record's distinct, entropy and recursive (c, l) l-diversity of a sensitive
    attribute in its class (records with equal keys; a missing key value is a value of
    its own here), as sdcMicro's ``ldiversity`` computes them for a class: distinct =
    the number of values present, a missing value counted once when there are others;
    entropy = ``exp(-sum p log p)`` over the values and the missing ones; recursive =
    the largest ``l`` with ``r_1 < c * (r_l + ... + r_m)`` over the values' counts in
    decreasing order (sdcMicro's single-precision sum, ``c = 2``)."""
    ids, size = group_ids(keys.codes)
    text = values.astype(str).str.strip()
    gone = np.isin(text.to_numpy(), [str(v).strip() for v in missing])
    s_codes, _ = pd.factorize(text.where(~gone, None))
    counts = pd.DataFrame({"c": ids, "s": s_codes}).value_counts().reset_index(name="n")
    present = counts[counts["s"] >= 0]
    n_class = np.bincount(ids, minlength=size).astype(float)
    n_missing = np.bincount(ids[gone], minlength=size).astype(float)
    distinct = np.bincount(present["c"], minlength=size)
    distinct = distinct + ((n_missing > 0) & (distinct > 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = present["n"].to_numpy(float) / n_class[present["c"].to_numpy()]
        plogp = np.bincount(present["c"], weights=p * np.log(p), minlength=size)
        pm = n_missing / n_class
        plogp += np.where((n_missing > 0) & (distinct > 0), pm * np.log(pm), 0.0)
    entropy = np.exp(-plogp)
    recursive = np.ones(size, dtype=np.int64)
    c = np.float32(recursive_c)
    ordered = present.sort_values(["c", "n"], ascending=[True, False])
    for cls, group in ordered.groupby("c", sort=False)["n"]:
        r = group.to_numpy()
        if len(r) < 2:
            continue
        total = np.float32(0.0)
        for x in r[1:]:
            total = np.float32(total + np.float32(x))
        total = np.float32(total * c)
        j = 1
        while j < len(r) and total > r[0]:
            total = np.float32(total - np.float32(c * np.float32(r[j])))
            j += 1
        recursive[cls] = j
    return distinct[ids], entropy[ids], recursive[ids]


def risky_cells(keys: Keys, max_dim: int, threshold: int,
                counts: np.ndarray | None = None) -> list[dict]:
    """sdcMicro's ``riskyCells``: for every combination of up to ``max_dim``
    quasi-identifiers, the number of its cells (value combinations present, missing
    one value) with at most ``threshold`` records."""
    out = []
    names = keys.names
    for dim in range(1, min(max_dim, keys.m) + 1):
        for combo in itertools.combinations(range(keys.m), dim):
            ids, size = group_ids(keys.codes[:, list(combo)])
            cells = np.bincount(ids, weights=counts, minlength=size)
            out.append({"variables": [names[j] for j in combo], "threshold": threshold,
                        "unsafe_cells": int((cells <= threshold).sum())})
    return out


#: SUDA2 in the release report only up to this many quasi-identifiers (its search
#: is exponential in them); `anonymist risk` goes up to `suda2.MAX_VARIABLES`
REPORT_SUDA_VARIABLES = 10


def release_section(before: pd.DataFrame, after: pd.DataFrame, qis: Sequence[str],
                    weight: str, household: str | None = None) -> dict:
    """The survey measures of a release's input and released table for the report
    (``survey_risk``): the figures of `measure_risk`'s summary that compare."""
    suda = len(qis) <= REPORT_SUDA_VARIABLES
    after = with_survey_columns(after, before, [weight, household])
    keep = ("expected_reidentifications", "global_risk_percent", "records_at_risk",
            "records_at_risk_rule", "highest_individual_risk", "k_anonymity",
            "household_risk")

    def figures(frame: pd.DataFrame) -> dict:
        s = measure_risk(frame, qis, weight=weight, household=household, suda=suda,
                         risky_cells_dimensions=0).summary
        out = {k: s[k] for k in keep if k in s}
        if suda:
            out["suda2_contributions"] = s["suda2"]["contributions"]
            out["records_with_msu"] = s["suda2"]["records_with_msu"]
        return out

    return {"weight": weight, "household": household, "quasi_identifiers": list(qis),
            "method": "approx", "before": figures(before), "after": figures(after)}


def with_survey_columns(released: pd.DataFrame, source: pd.DataFrame,
                        columns: Sequence[str | None]) -> pd.DataFrame:
    """``released`` with the weight and household columns of ``source`` (its records,
    row for row) where the release leaves them out (an identifying weight is not
    released, but its records keep their weights)."""
    absent = [c for c in columns if c is not None and c not in released.columns
              and c in source.columns]
    if not absent or len(released) != len(source):
        return released
    released = released.copy()
    for c in absent:
        released[c] = source[c].to_numpy()
    return released
