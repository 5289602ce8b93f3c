"""MDAV clustering for microaggregation (``clustering = "mdav"``).

Domingo-Ferrer and Mateo-Sanz's Maximum Distance to Average Vector, as in
sdcMicro: while at least 3k records are left, take the record farthest from
the centroid of those left and the k records nearest to it as one cluster,
then the record farthest from that one and its k nearest as another; with
2k..3k-1 left, one more cluster around the farthest record and the rest as the
last; fewer than 2k left form one cluster. Every cluster has k..2k-1 records.
Distances are Euclidean over the MDAV attributes, each scaled by its standard
deviation over the data (missing values at the attribute's mean). A class of
more than 10,000 records (MDAV's n^2/k distances would take minutes) is
instead sorted along its first principal axis and cut into consecutive groups
of k, the last taking the remainder: MDAV's univariate case.

In the release, each equivalence class of the generalized quasi-identifiers
with at least 2k records is split into MDAV clusters by similarity of the
MDAV attributes, and the attributes are aggregated per cluster instead of
per class. A class is split only if every cluster satisfies every privacy
model (recounted with the models' own class checks); otherwise it is
aggregated whole, as without clustering. Clusters are then the released
classes (the aggregate is part of the released quasi-identifiers).
"""
from __future__ import annotations

import numpy as np

from engine.classes import Classes, merge_aggregate


#: classes above this many records are partitioned along their first principal axis
#: (MDAV costs n^2/k distance evaluations: 9 s for 30,000 records in one class)
LARGE = 10_000


def sorted_groups(x: np.ndarray, k: int) -> np.ndarray:
    """Cluster labels for a large class: records sorted along the first principal axis
    of ``x`` (the value itself for one attribute) in consecutive groups of k, the last
    group taking the remainder (k..2k-1 records each)."""
    n = len(x)
    if x.shape[1] == 1:
        score = x[:, 0]
    else:
        centered = x - x.mean(axis=0)
        _, _, vt = np.linalg.svd(centered[:: max(1, n // 5000)], full_matrices=False)
        score = centered @ vt[0]
    order = np.argsort(score, kind="stable")
    groups = max(n // k, 1)
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.minimum(np.arange(n) // k, groups - 1)
    return labels


def mdav(x: np.ndarray, k: int) -> np.ndarray:
    """Cluster labels (0..) of the rows of ``x`` (records x attributes)."""
    n = len(x)
    labels = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return labels
    k = max(int(k), 1)
    if n > LARGE:
        return sorted_groups(x, k)
    left = np.arange(n)
    label = 0

    def take(center: np.ndarray) -> None:
        nonlocal left, label
        d = ((x[left] - center) ** 2).sum(axis=1)
        nearest = np.argpartition(d, k - 1)[:k] if len(left) > k else np.arange(len(left))
        labels[left[nearest]] = label
        label += 1
        keep = np.ones(len(left), dtype=bool)
        keep[nearest] = False
        left = left[keep]

    def farthest(center: np.ndarray) -> int:
        d = ((x[left] - center) ** 2).sum(axis=1)
        return int(left[int(np.argmax(d))])

    while len(left) >= 3 * k:
        r = farthest(x[left].mean(axis=0))
        take(x[r])
        s = farthest(x[r])
        take(x[s])
    if len(left) >= 2 * k:
        r = farthest(x[left].mean(axis=0))
        take(x[r])
    if len(left):
        labels[left] = label
    return labels


def scaled_matrix(columns: list[np.ndarray]) -> np.ndarray:
    """Attributes (float arrays, NaN missing) as columns scaled to unit deviation."""
    out = []
    for c in columns:
        c = np.asarray(c, dtype=float).copy()
        mean = np.nanmean(c) if np.isfinite(c).any() else 0.0
        c[~np.isfinite(c)] = mean
        sd = c.std()
        out.append((c - mean) / sd if sd > 0 else c - mean)
    return np.stack(out, axis=1) if out else np.zeros((0, 0))


def split_classes(problem, x: np.ndarray, row_class: np.ndarray, released: np.ndarray,
                  k: int) -> np.ndarray:
    """Per row its cluster id (a refinement of ``row_class`` over released rows): classes
    of at least 2k released records split by MDAV where every cluster passes every
    model; suppressed rows keep their class id."""
    out = np.asarray(row_class, dtype=np.int64).copy()
    rows = np.flatnonzero(released)
    if not len(rows):
        return out
    order = np.argsort(row_class[rows], kind="stable")
    sorted_rows = rows[order]
    bounds = np.flatnonzero(np.diff(row_class[sorted_rows])) + 1
    cluster = np.full(len(out), -1, dtype=np.int64)   # tentative cluster per row
    split = []                                          # (members, first id, clusters)
    n = 0
    for members in np.split(sorted_rows, bounds):
        if len(members) < 2 * k:
            continue
        labels = mdav(x[members], k)
        m = int(labels.max()) + 1
        if m < 2:
            continue
        cluster[members] = n + labels
        split.append((members, n, m))
        n += m
    if n == 0:
        return out
    bad = _violating_clusters(problem, cluster, n)
    next_id = int(out.max()) + 1
    for members, first, m in split:
        if not bad[first:first + m].any():
            out[members] = next_id + cluster[members]
    return out


def _violating_clusters(problem, cluster: np.ndarray, n: int) -> np.ndarray:
    """Which tentative clusters violate a model (rows outside any: one extra group)."""
    group = np.where(cluster >= 0, cluster, n)
    counts = np.bincount(group, minlength=n + 1).astype(np.int64)
    aggregates = {}
    for m in problem.models:
        aggregates.update(m.row_aggregates(problem.model_context))
    aggs = {key: merge_aggregate(v, group, n + 1) for key, v in aggregates.items()}
    q = len(problem.qis)
    classes = Classes(np.zeros(q, dtype=np.int64), np.zeros((n + 1, q), np.int32),
                      np.zeros((n + 1, q), np.int32), counts, aggs)
    bad = np.zeros(n + 1, dtype=bool)
    for m in problem.models:
        v = m.violating(classes)
        if v is not None:
            bad |= np.asarray(v, dtype=bool)
    return bad[:n]
