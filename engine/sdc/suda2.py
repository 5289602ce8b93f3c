"""SUDA2: minimal sample uniques, SUDA and DIS-SUDA scores (sdcMicro's ``suda2``).

A *sample unique* of a record is a set of its key variables on which no other record
has the record's values; a *minimal sample unique* (MSU) is one no proper subset of
which is unique (Elliot et al., "SUDA: A program for detecting special uniques";
Manning, Haglin and Keane 2008). A missing value never takes part in an MSU and
matches no other value. With ``M`` key variables (at least 3: sdcMicro adds constant
dummies to one or two), every MSU of size ``k`` adds ``(M - k)!`` to its record's
SUDA score (sdcMicro's default ``original_scores = TRUE``); all subset sizes up to
``M`` are searched.

A record's contribution of a variable is the sum of the scores of its MSUs that
contain the variable, divided by its score; a variable's contribution in percent is
the sum over records of those sums divided by the sum of the scores. Where two values
of different variables occur in exactly the same records, sdcMicro's search counts
one of them (that of the first variable) and multiplies; its contributions then
follow its bookkeeping, which is reproduced here (`_contributions`).

The DIS-SUDA score maps the SUDA score to a probability of a correct match with the
sampling fraction ``dis_fraction`` (``DisFraction``, 0.01), as sdcMicro does, in single
precision where its C++ computes in single precision: with ``U`` the records it counts
as unique, ``P`` the records in pairs of equal keys,
``Dis = U f / (U f + P (1 - f))``, ``Q = 1 + (8 - M) / 20``,
``dis = 1 / (1 + (U / Dis - U) / (score**Q * sum_j score_j**-Q))`` for a record with a
positive score, else 0. sdcMicro counts a record as unique when no other record falls
into its 16-bit hash bucket (`_hash`), not when its key is unique; that is reproduced.

The search enumerates the subsets of the key variables, counting each subset's
classes over the distinct keys once (exponential in the number of key variables, as
every MSU search is; Adult's 8 take a second), and keeps a record's uniqueness per
subset to test minimality against the subsets one variable smaller.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from engine.errors import DataError
from engine.sdc.keys import Keys, group_ids

#: sdcMicro's default sampling fraction of the DIS-SUDA score
DIS_FRACTION = 0.01
#: the most key variables searched (2**16 subsets)
MAX_VARIABLES = 16
#: the most bytes the per-subset uniqueness of the single records may take (a bit each)
MAX_BYTES = 600_000_000


@dataclass(frozen=True)
class Suda2Result:
    """SUDA2 of ``n`` records over the key variables ``names``."""

    names: tuple[str, ...]
    #: each record's SUDA score
    score: np.ndarray
    #: each record's DIS-SUDA score
    dis_score: np.ndarray
    #: (n, m): each record's share of its score per variable (sdcMicro's
    #: ``contributionPercent``, a fraction; 0 where the score is 0)
    contribution: np.ndarray
    #: number of MSUs of each size 1..M
    msu_counts: np.ndarray
    dis_fraction: float
    #: M: the number of variables the scores are weighted with (dummies included)
    max_msu_size: int
    #: the records sdcMicro counts as unique (alone in their hash bucket) and in pairs
    unique_records: int
    pair_records: int
    extra: dict = field(default_factory=dict)

    @property
    def attribute_contributions(self) -> dict[str, float]:
        """Each variable's contribution to the total score, in percent (NaN when no
        record has a score)."""
        total = float(self.score.sum())
        raw = (self.contribution * self.score[:, None]).sum(axis=0)
        return {name: (100.0 * float(r) / total if total else math.nan)
                for name, r in zip(self.names, raw)}


def score_weights(M: int) -> np.ndarray:
    """``w[k]`` = the score of an MSU of size ``k`` (index 0 unused): ``(M - k)!``."""
    return np.array([0.0] + [float(math.factorial(M - k)) for k in range(1, M + 1)])


def suda2(keys: Keys, dis_fraction: float = DIS_FRACTION,
          counts: np.ndarray | None = None) -> Suda2Result:
    """SUDA2 scores, DIS-SUDA scores and contributions of the rows of ``keys``; a row
    stands for ``counts`` records (default 1; a frequency table's rows give their
    counts: a row of more than one record has no MSU)."""
    codes = np.asarray(keys.suda_codes)
    n, m = codes.shape
    c = np.ones(n, dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
    if m == 0:
        raise DataError("SUDA2 needs at least one quasi-identifier")
    if m > MAX_VARIABLES:
        raise DataError(f"SUDA2 over {m} quasi-identifiers: at most {MAX_VARIABLES} "
                        f"(the search visits every subset of them)")
    M = max(m, 3)
    w = score_weights(M)
    ids, D = group_ids(codes)
    mult = np.bincount(ids, weights=c, minlength=D).astype(np.int64)
    first = np.full(D, n, dtype=np.int64)
    np.minimum.at(first, ids, np.arange(n))
    K = codes[first]                                   # the distinct keys
    singles = np.flatnonzero(mult == 1)                # keys of one record only
    n1 = len(singles)
    if (1 << m) * ((max(n1, 1) + 7) // 8) > MAX_BYTES:
        raise DataError(f"SUDA2 over {m} quasi-identifiers and {n1:,} records with keys "
                        f"of their own needs more memory than allowed; give fewer "
                        f"quasi-identifiers")
    unique = _uniqueness(K, mult, singles, int(c.sum()))
    present = (K[singles] >= 0)
    vmask = (present * (1 << np.arange(m))).sum(axis=1)
    nb = np.zeros((n1, M + 1), dtype=np.int64)
    raw = np.zeros((n1, m))
    twins = _Twins(K, mult)  # over the distinct keys, each counted as often as it occurs
    Ks = K[singles]
    for S in range(1, 1 << m):
        bits = [v for v in range(m) if S >> v & 1]
        ok = _row(unique, S, n1) & ((vmask & S) == S)
        if not ok.any():
            continue
        for v in bits:
            ok &= ~_row(unique, S ^ (1 << v), n1)
        rows = np.flatnonzero(ok)
        if len(rows) == 0:
            continue
        k = len(bits)
        nb[rows, k] += 1
        _contributions(raw, rows, bits, Ks, twins, w[k])
    scores_single = (nb * w).sum(axis=1)
    score = np.zeros(n)
    contribution = np.zeros((n, m))
    # a key of one record is that record (mult == 1): scatter back by the record
    record = first[singles]
    score[record] = scores_single
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(scores_single[:, None] > 0, raw / scores_single[:, None], 0.0)
    contribution[record] = share
    r_values = np.asarray(keys.r_values)
    if m < 3:  # sdcMicro's constant dummies
        r_values = np.hstack([r_values, np.ones((n, 3 - m), dtype=np.int64)])
    # per distinct key (its records share their values): the hash buckets and pairs
    u, pairs = _dis_counts(r_values[first], mult)
    dis = _dis_scores(score, u, pairs, dis_fraction, M)
    return Suda2Result(names=keys.names, score=score, dis_score=dis,
                       contribution=contribution, msu_counts=nb.sum(axis=0)[1:],
                       dis_fraction=dis_fraction, max_msu_size=M, unique_records=u,
                       pair_records=pairs)


def _uniqueness(K: np.ndarray, mult: np.ndarray, singles: np.ndarray, n: int) -> np.ndarray:
    """``unique[S]``: for each single key ``singles[i]``, whether no other record has
    its values on the variables of subset ``S`` (a bit mask); packed 8 keys a byte
    when a byte each would take more than ``MAX_BYTES`` (`_row` reads a subset's). A missing value matches nothing;
    rows with a missing value in ``S`` are never asked about ``S``.

    Depth first over the subsets, each extending its parent by a variable of a higher
    index; a key alone in its group at a subset is alone in every superset and matches
    no other key there, so only the keys sharing their group go down (the search
    shrinks as keys become unique)."""
    D, m = K.shape
    n1 = len(singles)
    # a key that went no further down is unique there; a bit each when a byte each
    # would not fit
    packed = (1 << m) * max(n1, 1) > MAX_BYTES
    unique = (np.full((1 << m, (n1 + 7) // 8), 0xFF, dtype=np.uint8) if packed
              else np.ones((1 << m, n1), dtype=bool))
    # the empty set is never unique (sdcMicro: a lone record's values are 1-MSUs)
    unique[0] = 0
    shifted = [(K[:, j].astype(np.int64) + 1) for j in range(m)]   # missing -> 0
    card = [int(c.max(initial=0)) + 1 for c in shifted]
    weights = mult.astype(float)
    position = np.full(D, -1, dtype=np.int64)          # key -> its place in singles
    position[singles] = np.arange(len(singles))

    def visit(live: np.ndarray, gid: np.ndarray, mask: int, start: int) -> None:
        for j in range(start, m):
            g, size = pd.factorize(gid * card[j] + shifted[j][live], sort=False)
            g = g.astype(np.int64)
            new = mask | (1 << j)
            records = np.bincount(g, weights=weights[live], minlength=len(size))
            asked = position[live]
            single = asked >= 0
            if packed:
                row = np.ones(n1, dtype=bool)
                row[asked[single]] = records[g[single]] == 1
                unique[new] = np.packbits(row)
            else:
                unique[new, asked[single]] = records[g[single]] == 1
            # a new subset below every variable that can still join
            if j + 1 < m:
                keys = np.bincount(g, minlength=len(size))
                keep = keys[g] > 1
                if keep.any():
                    visit(live[keep], g[keep], new, j + 1)

    # at the root every key is in one group
    visit(np.arange(D), np.zeros(D, dtype=np.int64), 0, 0)
    return unique


def _row(unique: np.ndarray, S: int, n1: int) -> np.ndarray:
    """Subset ``S``'s uniqueness of the single keys (unpacked if packed)."""
    if unique.dtype == bool:
        return unique[S]
    return np.unpackbits(unique[S], count=n1).astype(bool)


class _Twins:
    """Values of different variables that occur in exactly the same records (sdcMicro's
    "correlated items"): per variable and code, the variable of the group's first
    value (its representative), the number of other values in the group, and the
    group's other variables."""

    def __init__(self, codes: np.ndarray, counts: np.ndarray):
        n, m = codes.shape
        self.rep: list[np.ndarray] = []
        self.others: list[np.ndarray] = []
        self.members: dict[tuple[int, int], list[int]] = {}
        freq = []
        for v in range(m):
            c = codes[:, v]
            size = int(c.max(initial=-1)) + 1
            f = np.bincount(c[c >= 0], weights=counts[c >= 0], minlength=size).astype(
                np.int64)
            freq.append(f)
            self.rep.append(np.full(size, v, dtype=np.int64))
            self.others.append(np.zeros(size, dtype=np.int64))
        for v1 in range(m):
            for v2 in range(v1 + 1, m):
                both = (codes[:, v1] >= 0) & (codes[:, v2] >= 0)
                if not both.any():
                    continue
                a, b = codes[both, v1], codes[both, v2]
                pair, inverse = np.unique(a.astype(np.int64) * (len(freq[v2]) + 1) + b,
                                          return_inverse=True)
                joint = np.bincount(inverse.ravel(), weights=counts[both],
                                    minlength=len(pair)).astype(np.int64)
                pa, pb = pair // (len(freq[v2]) + 1), pair % (len(freq[v2]) + 1)
                same = (joint == freq[v1][pa]) & (joint == freq[v2][pb]) & (joint >= 2)
                for x, y in zip(pa[same], pb[same]):
                    if self.rep[v2][y] != v2:  # already a twin of an earlier variable
                        continue
                    if self.rep[v1][x] != v1:  # v1's value is itself a twin
                        continue
                    self.rep[v2][y] = v1
                    self.others[v1][x] += 1
                    self.members.setdefault((v1, int(x)), []).append(v2)


def _contributions(raw: np.ndarray, rows: np.ndarray, bits: list[int], Ks: np.ndarray,
                   twins: _Twins, weight: float) -> None:
    """Add the MSUs of subset ``bits`` of single keys ``rows`` to the contributions as
    sdcMicro's search books them."""
    k = len(bits)
    if k == 1:
        raw[rows, bits[0]] += weight
        return
    values = [Ks[rows, v] for v in bits]
    is_rep = np.ones(len(rows), dtype=bool)
    extra = []
    for v, x in zip(bits, values):
        is_rep &= twins.rep[v][x] == v
        extra.append(twins.others[v][x])
    rows, values = rows[is_rep], [x[is_rep] for x in values]
    extra = [e[is_rep] for e in extra]
    if len(rows) == 0:
        return
    if k == 2:
        a, b = bits
        raw[rows, a] += (1 + extra[1]) * weight
        raw[rows, b] += (1 + extra[0]) * weight
        for v, x, e in zip(bits, values, extra):
            for i in np.flatnonzero(e):
                for other in twins.members.get((v, int(x[i])), []):
                    raw[rows[i], other] += weight
        return
    copies = np.ones(len(rows), dtype=np.int64)
    for e in extra:
        copies *= 1 + e
    for v in bits:
        raw[rows, v] += copies * weight


def _hash(r_values: np.ndarray) -> np.ndarray:
    """sdcMicro's 16-bit hash of each record's values (rotate left, add)."""
    h = np.zeros(r_values.shape[0], dtype=np.int64)
    for j in range(r_values.shape[1]):
        carry = (h & 0x8000) != 0
        h = ((h << 1) + r_values[:, j]) & 0xFFFF
        h = (h + carry) & 0xFFFF
    return h


def _dis_counts(r_values: np.ndarray, counts: np.ndarray) -> tuple[int, int]:
    """(records sdcMicro counts as unique, records in pairs of equal keys)."""
    h = _hash(r_values)
    _, inverse = np.unique(h, return_inverse=True)
    inverse = inverse.ravel()
    per_hash = np.bincount(inverse, weights=counts)
    alone = int(counts[per_hash[inverse] == 1].sum())
    columns = np.column_stack([np.unique(r_values[:, j], return_inverse=True)[1].ravel()
                               for j in range(r_values.shape[1])])
    ids, size = group_ids(columns)
    per_key = np.bincount(ids, weights=counts, minlength=size)
    pairs = int(counts[per_key[ids] == 2].sum())
    return alone, pairs


def _dis_scores(score: np.ndarray, u: int, pairs: int, dis_fraction: float,
                M: int) -> np.ndarray:
    f32 = np.float32
    fraction = f32(dis_fraction) if dis_fraction != 0 else f32(0.5)
    with np.errstate(all="ignore"):
        dis = (f32(u) * fraction) / (f32(u) * fraction + f32(pairs) * (f32(1.0) - fraction))
        q = float(f32(1.0) + (f32(8.0) - f32(M)) / f32(20.0))
        positive = score > 0
        powered = np.power(score[positive], q)
        adj = math.fsum(1.0 / powered)  # correctly rounded: the same in any order
        factor = float(f32(u) / dis - f32(u))
        out = np.zeros(len(score))
        out[positive] = 1.0 / (1.0 + factor / (powered * adj))
    return out
