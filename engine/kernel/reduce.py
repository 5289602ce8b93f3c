"""Per-attribute histograms of classes and sums that equal numpy's to the last bit.

A metric computed per check in numpy spends most of its time in Python (a fancy
index and a ``bincount`` per attribute); these kernels do the counting for all
attributes in one call. Sums use numpy's own pairwise summation (``pairwise_sum``
in numpy's ``loops_utils.h``), so that a loss is the same float as numpy gives and
ties between transformations break the same way.
"""
from __future__ import annotations

import numpy as np
from engine.kernel.jit import njit


@njit(cache=True, nogil=True)
def _pairwise(a, lo, n):
    """numpy's sum of ``a[lo:lo + n]`` (contiguous float64), bit for bit."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    if n <= 128:
        r0 = a[lo]
        r1 = a[lo + 1]
        r2 = a[lo + 2]
        r3 = a[lo + 3]
        r4 = a[lo + 4]
        r5 = a[lo + 5]
        r6 = a[lo + 6]
        r7 = a[lo + 7]
        i = 8
        end = n - (n % 8)
        while i < end:
            r0 += a[lo + i]
            r1 += a[lo + i + 1]
            r2 += a[lo + i + 2]
            r3 += a[lo + i + 3]
            r4 += a[lo + i + 4]
            r5 += a[lo + i + 5]
            r6 += a[lo + i + 6]
            r7 += a[lo + i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[lo + i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise(a, lo, n2) + _pairwise(a, lo + n2, n - n2)


@njit(cache=True, nogil=True)
def segment_sums(values, starts):
    """numpy's ``values[starts[j]:starts[j + 1]].sum()`` for each segment ``j``."""
    out = np.zeros(starts.shape[0] - 1)
    for j in range(out.shape[0]):
        out[j] = _pairwise(values, starts[j], starts[j + 1] - starts[j])
    return out


@njit(cache=True, nogil=True)
def selected_value_counts(gen, selected, weights, level_sizes, levels):
    """Per attribute ``j``, the weight of the selected classes per generalized value at
    ``levels[j]`` (``level_sizes[j, l]`` values), the values without weight left out:
    ``np.bincount(gen[selected, j], weights=weights[selected])``, then ``[... > 0]``,
    summed in the order ``bincount`` sums. Returns ``(counts, starts, total)``: all
    attributes' counts in one vector, attribute ``j``'s at ``starts[j]:starts[j + 1]``,
    and the selected classes' total weight."""
    q = gen.shape[1]
    offsets = np.zeros(q + 1, dtype=np.int64)
    for j in range(q):
        offsets[j + 1] = offsets[j] + level_sizes[j, levels[j]]
    per_value = np.zeros(offsets[q])
    total = 0.0
    for c in range(gen.shape[0]):
        if selected[c]:
            w = np.float64(weights[c])
            total += w
            for j in range(q):
                per_value[offsets[j] + gen[c, j]] += w
    starts = np.zeros(q + 1, dtype=np.int64)
    kept = np.empty(offsets[q])
    n = 0
    for j in range(q):
        for i in range(offsets[j], offsets[j + 1]):
            if per_value[i] > 0:
                kept[n] = per_value[i]
                n += 1
        starts[j + 1] = n
    return kept[:n], starts, total


@njit(cache=True, nogil=True)
def suppressed_and_released(counts, suppressed):
    """The records of the flagged classes, and how many unflagged classes have records."""
    total = counts.dtype.type(0)
    released = 0
    for c in range(counts.shape[0]):
        if suppressed[c]:
            total += counts[c]
        elif counts[c] > 0:
            released += 1
    return total, released
