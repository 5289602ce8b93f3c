"""The optimal search's walk over its visiting order, without Python per transformation.

Most transformations in the visiting order are already settled when the walk reaches
them (tagged by monotonicity, or checked): ``next_to_visit`` passes over those in one
call and stops only where the search has something to do. ``climb_path`` builds the
path of unknown transformations a binary search classifies.
"""
from __future__ import annotations

import numpy as np
from engine.kernel.jit import njit

#: what ``next_to_visit`` found at the position it returns
END, STOP, ACT = 0, 1, 2


@njit(cache=True, nogil=True, inline="always")
def _lower(a, b):
    """Whether row ``a`` is lexicographically below ``b`` (Python's tuple ``<``)."""
    for i in range(a.shape[0]):
        if a[i] == b[i]:
            continue
        return a[i] < b[i]
    return False


@njit(cache=True, nogil=True)
def next_to_visit(order, states, part, checked, sorted_bounds, best, has_best, pos,
                  tag, prune, skip_tagged, doomed, floors):
    """The first position at or after ``pos`` in ``order`` where the search acts, and
    what it found there: ``(position, END | STOP | ACT)``.

    STOP: the position's lower bound (``sorted_bounds[position]``, a row; no rows:
    the search has no bounds) is not below the best loss ``best`` (when ``has_best``).
    ACT: the transformation must be climbed from (unknown state while ``tag``, unknown
    monotonic part while ``prune``) or checked. Positions passed over are exactly those
    the search would leave alone: not anonymous (by state, by the monotonic part, or
    ``doomed`` by the models' floors while ``floors``), already checked, or tagged
    anonymous while ``skip_tagged``.
    States are 0 unknown, 1 anonymous, 2 not anonymous.
    """
    n = order.shape[0]
    bounded = sorted_bounds.shape[0] > 0
    while pos < n:
        if bounded and has_best and not _lower(sorted_bounds[pos], best):
            return pos, STOP
        idx = order[pos]
        s = states[idx]
        if floors and doomed[idx]:
            pos += 1
            continue
        if s == 0 and tag:
            return pos, ACT
        if prune:
            if part[idx] == 0:
                return pos, ACT
            if part[idx] == 2:
                pos += 1
                continue
        if s == 2 or checked[idx] or (s == 1 and skip_tagged):
            pos += 1
            continue
        return pos, ACT
    return n, END


@njit(cache=True, nogil=True)
def climb_path(start, states, radix, strides, rank):
    """From ``start`` up the lattice through unknown (0) transformations, each step to
    the direct generalization first in the visiting order (lowest ``rank``), until none
    is unknown. Returns the path's ids, ``start`` first."""
    dims = radix.shape[0]
    longest = 1
    for j in range(dims):
        longest += radix[j] - 1
    path = np.empty(longest, dtype=np.int64)
    path[0] = start
    length = 1
    node = start
    while True:
        best_next = -1
        for j in range(dims):
            if (node // strides[j]) % radix[j] + 1 < radix[j]:
                nxt = node + strides[j]
                if states[nxt] == 0 and (best_next < 0 or rank[nxt] < rank[best_next]):
                    best_next = nxt
        if best_next < 0:
            break
        path[length] = best_next
        length += 1
        node = best_next
    return path[:length]


@njit(cache=True, nogil=True)
def doom_path(start, states, doomed, part, prune, radix, strides, rank, sorted_bounds,
              best, has_best):
    """Like ``climb_path``, through transformations unchecked (state 0), not ``doomed``,
    not ruled out by the monotonic ``part`` (while ``prune``) and, once there is a best
    loss, with a lower bound below it (``sorted_bounds`` by ``rank``)."""
    dims = radix.shape[0]
    bounded = sorted_bounds.shape[0] > 0 and has_best
    longest = 1
    for j in range(dims):
        longest += radix[j] - 1
    path = np.empty(longest, dtype=np.int64)
    path[0] = start
    length = 1
    node = start
    while True:
        best_next = -1
        for j in range(dims):
            if (node // strides[j]) % radix[j] + 1 < radix[j]:
                nxt = node + strides[j]
                if (states[nxt] != 0 or doomed[nxt] or (prune and part[nxt] == 2)
                        or (bounded and not _lower(sorted_bounds[rank[nxt]], best))):
                    continue
                if best_next < 0 or rank[nxt] < rank[best_next]:
                    best_next = nxt
        if best_next < 0:
            break
        path[length] = best_next
        length += 1
        node = best_next
    return path[:length]
