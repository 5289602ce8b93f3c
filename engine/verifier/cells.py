"""The verifier's check of cell-level local suppression (``[transformation] suppression =
"cells"``): k-anonymity under the wildcard rule, recounted from the released classes.

A suppressed cell (the suppression string) matches any value, as in sdcMicro: a
released key matches every key that agrees with it wherever neither has the marker.
Every released record must match at least k records (on all quasi-identifiers, or on
each combination of ``combinations`` of them). Written apart from the engine's greedy
kernel and by another method: the keys are grouped by which cells are suppressed, and
for each pair of such patterns the keys are matched on the columns both keep, by
hashing (no pairwise scan of keys).
"""
from __future__ import annotations

import itertools
from collections import defaultdict


def cells_job(job) -> bool:
    return getattr(job.transformation, "suppression", "records") == "cells"


def wildcard_frequencies(sizes: dict[tuple, int], marker: str,
                         columns: tuple[int, ...]) -> dict[tuple, int]:
    """Per released key: the records of every key it matches on ``columns`` (positions
    in the key) with the marker matching anything (the key itself included)."""
    by_pattern: dict[tuple, list[tuple]] = defaultdict(list)
    for key in sizes:
        pattern = tuple(j for j in columns if key[j] == marker)
        by_pattern[pattern].append(key)
    out = {key: 0 for key in sizes}
    for pa, keys_a in by_pattern.items():
        for pb, keys_b in by_pattern.items():
            kept = tuple(j for j in columns if j not in pa and j not in pb)
            totals: dict[tuple, int] = defaultdict(int)
            for kb in keys_b:
                totals[tuple(kb[j] for j in kept)] += sizes[kb]
            for ka in keys_a:
                out[ka] += totals.get(tuple(ka[j] for j in kept), 0)
    return out


def wildcard_violations(sizes: dict[tuple, int], qis: list[str], marker: str, k: int,
                        combinations: int | None) -> list[str]:
    """Violations of k-anonymity with wildcards among the released classes ``sizes``."""
    m = len(qis)
    groups = ([tuple(range(m))] if combinations is None or combinations >= m
              else list(itertools.combinations(range(m), combinations)))
    found = []
    for group in groups:
        fk = wildcard_frequencies(sizes, marker, group)
        bad = [key for key, f in fk.items() if f < k and sizes[key] > 0]
        if bad:
            records = sum(sizes[key] for key in bad)
            where = ("" if len(group) == m else
                     " on (" + ", ".join(qis[j] for j in group) + ")")
            shown = "; ".join("(" + ", ".join(map(str, key)) + f") matches {fk[key]}"
                              for key in bad[:3])
            found.append(f"{records} record(s) in {len(bad)} key(s) match fewer than {k} "
                         f"records with suppressed cells as wildcards{where}: {shown}")
    return found


def treated_records(sizes: dict[tuple, int], marker: str, label_columns: set[int]) -> int:
    """Records with at least one suppressed cell (a marker in a column whose level
    does not hold the marker as a label)."""
    return sum(n for key, n in sizes.items()
               if any(v == marker and j not in label_columns for j, v in enumerate(key)))
