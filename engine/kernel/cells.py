"""Kernels of cell-level local suppression (``engine.transform.cell_suppression``) and
of rank swapping (``engine.transform.perturbation``).

Cell suppression works on distinct keys with their record counts: ``pat[r, j]`` is the
code of quasi-identifier ``j`` in key ``r``, or -1 when the cell is suppressed. A
suppressed cell matches any value (sdcMicro's wildcard rule), so the frequency of a key
is the sum of the counts of every key that agrees with it wherever both are not
suppressed. Only the columns marked ``active`` take part (k-anonymity of a combination
of quasi-identifiers).
"""
from __future__ import annotations

import numpy as np

from engine.kernel.jit import njit


@njit(cache=True, nogil=True, inline="always")
def _compatible(pat, a, b, active):
    for j in range(pat.shape[1]):
        if active[j]:
            x = pat[a, j]
            y = pat[b, j]
            if x >= 0 and y >= 0 and x != y:
                return False
    return True


@njit(cache=True, nogil=True)
def wildcard_frequencies(pat, counts, active):
    """Per key: the records of every key it matches under the wildcard rule (itself
    included)."""
    n = pat.shape[0]
    fk = np.zeros(n, dtype=np.int64)
    for a in range(n):
        if counts[a] == 0:
            continue
        total = counts[a]
        for b in range(n):
            if b != a and counts[b] > 0 and _compatible(pat, a, b, active):
                total += counts[b]
        fk[a] = total
    return fk


@njit(cache=True, nogil=True)
def suppress_cells(pat, counts, k, preference, active, fk):
    """sdcMicro's greedy local suppression on the keys ``pat`` (changed in place), from
    their wildcard frequencies ``fk`` (changed in place too).

    While a key matches fewer than ``k`` records: for each such key, least frequent
    first, find the keys nearest to it (fewest differing cells where neither is
    suppressed, more than none) and suppress, in the order of ``preference`` (the
    least important quasi-identifier first), the first cell in which it differs from
    one of them; with no key at a positive distance, its first unsuppressed cell in
    that order. Frequencies are updated after every suppression: the keys that now
    match it are those that differed from it in that cell alone. Returns the number
    of cells suppressed, or -1 when a key is left below ``k`` with every cell
    suppressed (fewer than ``k`` records in all)."""
    n, m = pat.shape
    done = 0
    dist = np.zeros(n, dtype=np.int64)
    lone = np.zeros(n, dtype=np.int64)  # the one differing column of a key at distance 1
    differs = np.zeros(m, dtype=np.bool_)
    while True:
        low = 0
        for a in range(n):
            if counts[a] > 0 and fk[a] < k:
                low += 1
        if low == 0:
            return done
        todo = np.empty(low, dtype=np.int64)
        i = 0
        for a in range(n):
            if counts[a] > 0 and fk[a] < k:
                todo[i] = a
                i += 1
        order = np.argsort(fk[todo], kind="mergesort")
        for t in range(low):
            r = todo[order[t]]
            if fk[r] >= k:
                continue
            # one pass: every key's distance to r (and its differing column at distance 1)
            best = m + 1
            for b in range(n):
                dist[b] = -1
                if b == r or counts[b] == 0:
                    continue
                d = 0
                last = -1
                for j in range(m):
                    if active[j]:
                        x = pat[r, j]
                        y = pat[b, j]
                        if x >= 0 and y >= 0 and x != y:
                            d += 1
                            last = j
                            if d > best:  # farther than the nearest so far (and than 1)
                                break
                dist[b] = d
                lone[b] = last
                if 0 < d < best:
                    best = d
            col = -1
            if best <= m:
                for j in range(m):
                    differs[j] = False
                for b in range(n):
                    if dist[b] == best:
                        if best == 1:
                            differs[lone[b]] = True
                        else:
                            for j in range(m):
                                if active[j] and pat[r, j] >= 0 and pat[b, j] >= 0 and \
                                        pat[r, j] != pat[b, j]:
                                    differs[j] = True
                for p in range(len(preference)):
                    j = preference[p]
                    if pat[r, j] >= 0 and differs[j]:
                        col = j
                        break
            if col < 0:
                for p in range(len(preference)):
                    if pat[r, preference[p]] >= 0:
                        col = preference[p]
                        break
            if col < 0:
                return -1  # every cell suppressed and still fewer than k records
            # r now matches the keys it matched and those differing from it at col alone
            total = counts[r]
            for b in range(n):
                if dist[b] == 0:
                    total += counts[b]
                elif dist[b] == 1 and lone[b] == col:
                    total += counts[b]
                    fk[b] += counts[r]
            pat[r, col] = -1
            fk[r] = total
            done += 1


@njit(cache=True, nogil=True)
def rank_swap(values_sorted, window, u):
    """Moore's rank swapping on values sorted ascending: each value not yet swapped is
    swapped with a value not yet swapped whose rank is above it by at most ``window``,
    chosen by ``u`` (uniform draws in [0, 1), one per rank). Returns the swapped values
    in the same rank positions (a permutation of the input)."""
    n = len(values_sorted)
    out = values_sorted.copy()
    swapped = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if swapped[i]:
            continue
        top = min(n - 1, i + window)
        free = 0
        for j in range(i + 1, top + 1):
            if not swapped[j]:
                free += 1
        if free == 0:
            continue
        pick = int(u[i] * free)
        if pick >= free:
            pick = free - 1
        for j in range(i + 1, top + 1):
            if not swapped[j]:
                if pick == 0:
                    out[i] = values_sorted[j]
                    out[j] = values_sorted[i]
                    swapped[i] = True
                    swapped[j] = True
                    break
                pick -= 1
    return out
