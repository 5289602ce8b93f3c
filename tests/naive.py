"""Slow, obvious reference implementations (per record, plain Python/pandas).

Everything here follows the definitions in ../shared/oracle/README.md
directly, sharing no code with the engine's kernels and metrics.
"""
from __future__ import annotations

import math

import pandas as pd


def generalize(df: pd.DataFrame, hierarchies: dict, levels: dict) -> pd.DataFrame:
    """Each QI value replaced by its hierarchy label at the given level."""
    out = df.copy()
    for q, lvl in levels.items():
        rows = {r[0]: r for r in hierarchies[q]}
        out[q] = [rows[v][lvl] for v in df[q]]
    return out


def classes(df, hierarchies, levels) -> list[list[int]]:
    """Row indices of each equivalence class."""
    g = generalize(df, hierarchies, levels)
    qis = list(levels)
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(zip(*(g[q] for q in qis))):
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def factors(gs):
    s = 2 * gs if gs < 0.5 else 1.0
    g = 1.0 if gs <= 0.5 else 1 - 2 * (gs - 0.5)
    return g, s


def aggregate(values, weights, how):
    v = [x * w for x, w in zip(values, weights)]
    if how == "sum":
        return sum(v)
    if how == "arithmetic-mean":
        return sum(v) / len(v)
    if how == "geometric-mean":
        return math.prod(x + 1 for x in v) ** (1 / len(v)) - 1
    if how == "max":
        return max(v)
    return tuple(sorted((math.trunc(x / w * 1e10) / 1e10 * w if w else 0.0)
                        for x, w in zip(v, weights))[::-1])


def evaluate(df, hierarchies, levels, k, limit, metric, monotonic, gs, how, weights):
    """(anonymous, loss, suppressed records) of one transformation under k-anonymity."""
    qis = list(levels)
    n = len(df)
    cls = classes(df, hierarchies, levels)
    violating = [c for c in cls if len(c) < k]
    sup_rows = {i for c in violating for i in c}
    n_sup = len(sup_rows)
    anonymous = n_sup <= math.floor(limit * n + 1e-9)
    g, s = factors(gs)
    gen = generalize(df, hierarchies, levels)
    per = []
    for q in qis:
        h = hierarchies[q]
        lvl = levels[q]
        height = len(h[0]) - 1
        if metric == "loss":
            share = {}
            for r in h:
                share[r[lvl]] = share.get(r[lvl], 0) + 1 / len(h)
            x = 0.0
            for i, w in enumerate(gen[q]):
                sh = share[w]
                x += (sh + s * (1 - sh)) if i in sup_rows else g * sh
            m = g * n / len(h)
            per.append(max(0.0, (x - m) / (n - m)) if n > m else 0.0)
        elif metric == "entropy":
            cnt = df[q].value_counts().to_dict()
            up = {}
            for v, c in cnt.items():
                lab = {r[0]: r[lvl] for r in h}[v]
                up[lab] = up.get(lab, 0) + c
            labels = {r[0]: r[lvl] for r in h}
            x = -sum(c * math.log2(c / up[labels[v]]) for v, c in cnt.items()) * g
            if not monotonic and n_sup:
                sup_vals = pd.Series([gen[q][i] for i in sup_rows]).value_counts()
                x += s * -sum(c * math.log2(c / n_sup) for c in sup_vals)
            per.append(x)
        elif metric == "precision":
            r = lvl / height if height else 0.0
            per.append(r * g if monotonic else ((n - n_sup) * r * g + n_sup * s) / n)
        elif metric == "height":
            per.append(float(lvl))
    if metric == "height":
        return anonymous, float(sum(x * w for x, w in zip(per, weights))), n_sup
    if metric in ("loss", "entropy", "precision"):
        return anonymous, aggregate(per, weights, how), n_sup
    sizes = [len(c) for c in cls]
    if metric == "discernibility":
        if monotonic:
            return anonymous, float(sum(x * x for x in sizes)), n_sup
        return anonymous, float(sum(g * x * x if x >= k else s * n * x for x in sizes)), n_sup
    if metric == "aecs":
        kept = sum(1 for x in sizes if x >= k)
        denom = s * kept + g * (1 if n_sup else 0)
        return anonymous, (n / denom if denom else float(n)), n_sup
    raise ValueError(metric)
