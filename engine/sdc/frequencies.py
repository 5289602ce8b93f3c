"""Sample and population frequencies of each record's key (sdcMicro's ``freqCalc``).

``fk`` is the number of records sharing the record's key, ``Fk`` the sum of their
sampling weights (the estimated number of people in the population with that key;
without weights every weight is 1, so ``Fk = fk``). A missing value stands for any
value of its variable, as in sdcMicro (``alpha = 1``):

* a complete key counts itself and every key with missing values that agrees with it
  where that key has values, except keys missing in every variable;
* a key with missing values counts itself, every complete key that agrees with it
  where it has values, and every other key with missing values that agrees with it
  where both have values;
* a key missing in every variable counts every record;
* with one key variable, a present value counts itself and every missing one.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine.sdc.keys import Keys, group_ids


def frequencies(keys: Keys, weights: np.ndarray | None = None,
                counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(fk, Fk)`` per row of ``keys``, as float arrays (``Fk`` = ``fk`` without
    weights). A row stands for ``counts`` records (default 1: rows are records; a
    frequency table's rows give their counts and ``weights`` their weight sums)."""
    n, m = keys.n, keys.m
    c = np.ones(n) if counts is None else np.asarray(counts, dtype=float)
    w = c if weights is None else np.asarray(weights, dtype=float)
    ids, size = group_ids(keys.codes)
    f = np.bincount(ids, weights=c, minlength=size)
    W = np.bincount(ids, weights=w, minlength=size)
    first = np.full(size, n, dtype=np.int64)
    np.minimum.at(first, ids, np.arange(n))
    key = keys.codes[first]                      # one row of codes per distinct key
    miss = key < 0
    has_missing = miss.any(axis=1)
    if not has_missing.any():
        return f[ids], W[ids]
    fk, Fk = f.copy(), W.copy()
    if m == 1:  # sdcMicro's special case: every missing value counts for each key
        na = has_missing
        fk[~na] += f[na].sum()
        Fk[~na] += W[na].sum()
        fk[na], Fk[na] = f.sum(), W.sum()
        return fk[ids], Fk[ids]
    complete = np.flatnonzero(~has_missing)
    partial = np.flatnonzero(has_missing & ~miss.all(axis=1))
    all_missing = np.flatnonzero(miss.all(axis=1))
    # complete keys <-> keys with missing values, one pattern of missing values at a time
    pattern_of, n_patterns = group_ids(miss[partial].astype(np.int32))
    for pattern in range(n_patterns):
        rows = partial[pattern_of == pattern]
        cols = np.flatnonzero(~miss[rows[0]])
        comp = pd.DataFrame(key[complete][:, cols]).assign(_f=f[complete], _w=W[complete],
                                                           _i=complete)
        part = pd.DataFrame(key[rows][:, cols]).assign(_f=f[rows], _w=W[rows], _i=rows)
        on = list(range(len(cols)))
        joined = comp.merge(part, on=on, suffixes=("_c", "_p"))
        if len(joined):
            # the complete keys gain the records of the partial keys they agree with
            gain = joined.groupby("_i_c")[["_f_p", "_w_p"]].sum()
            fk[gain.index.to_numpy()] += gain["_f_p"].to_numpy()
            Fk[gain.index.to_numpy()] += gain["_w_p"].to_numpy()
            got = joined.groupby("_i_p")[["_f_c", "_w_c"]].sum()
            fk[got.index.to_numpy()] += got["_f_c"].to_numpy()
            Fk[got.index.to_numpy()] += got["_w_c"].to_numpy()
    # keys with missing values among themselves: agree where both have values
    others = np.concatenate([partial, all_missing])
    pk, pm = key[others], miss[others]
    for a, i in enumerate(partial):
        agree = np.all((pk == key[i]) | pm | miss[i], axis=1)
        agree[a] = False  # not itself
        fk[i] += f[others[agree]].sum()
        Fk[i] += W[others[agree]].sum()
    fk[all_missing], Fk[all_missing] = c.sum(), w.sum()
    return fk[ids], Fk[ids]
