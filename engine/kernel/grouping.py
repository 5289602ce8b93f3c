"""Group items (distinct records or classes) by their generalized quasi-identifiers.

Leaf kernels are ``@njit(cache=True, nogil=True)`` so a worker thread running
them leaves the GUI thread free.
"""
from __future__ import annotations

import numpy as np
from engine.kernel.jit import njit

_EMPTY = -1


@njit(cache=True, nogil=True)
def _generalize(rep, maps_flat, offsets, levels, out):
    m, q = rep.shape
    base = np.empty(q, dtype=np.int64)
    for j in range(q):
        base[j] = offsets[j, levels[j]]
    for i in range(m):  # row by row: both arrays are row-major
        for j in range(q):
            out[i, j] = maps_flat[base[j] + rep[i, j]]


@njit(cache=True, nogil=True, inline="always")
def _empty_slots(m):
    """An open-addressing table for ``m`` keys: a power of two of at least 2m slots
    (at most half full), every slot empty (-1)."""
    size = 16
    while size < 2 * m:
        size *= 2
    return np.full(size, -1, dtype=np.int64)


@njit(cache=True, nogil=True)
def _group_by_rows(gen):
    """Group ids for rows of ``gen`` compared as tuples (any width), first-appearance
    order, via open addressing on a 64-bit hash of each row."""
    m, q = gen.shape
    table = _empty_slots(m)
    mask = len(table) - 1
    group_hash = np.empty(m, dtype=np.int64)
    group_of = np.empty(m, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    n = 0
    for i in range(m):
        h = np.int64(1469598103934665603)
        for j in range(q):
            h = (h ^ np.int64(gen[i, j])) * np.int64(1099511628211)
        h ^= h >> np.int64(31)
        slot = h & mask
        while True:
            g = table[slot]
            if g == -1:
                table[slot] = n
                group_hash[n] = h
                first[n] = i
                group_of[i] = n
                n += 1
                break
            if group_hash[g] == h:
                f = first[g]
                same = True
                for j in range(q):
                    if gen[f, j] != gen[i, j]:
                        same = False
                        break
                if same:
                    group_of[i] = g
                    break
            slot = (slot + 1) & mask
    return group_of, first[:n].copy(), n


@njit(cache=True, nogil=True)
def _keys(gen, strides):
    m, q = gen.shape
    out = np.zeros(m, dtype=np.int64)
    for i in range(m):
        k = np.int64(0)
        for j in range(q):
            k += np.int64(gen[i, j]) * strides[j]
        out[i] = k
    return out


@njit(cache=True, nogil=True)
def _sum_by_group(values, group_of, n):
    out = np.zeros(n, dtype=values.dtype)
    for i in range(values.shape[0]):
        out[group_of[i]] += values[i]
    return out


@njit(cache=True, nogil=True)
def _sum_rows_by_group(values, group_of, n):
    out = np.zeros((n, values.shape[1]), dtype=values.dtype)
    for i in range(values.shape[0]):
        g = group_of[i]
        for j in range(values.shape[1]):
            out[g, j] += values[i, j]
    return out


@njit(cache=True, nogil=True)
def _add_key_column(keys, codes, stride):
    """``keys += codes * stride`` (one attribute's share of mixed-radix keys)."""
    for i in range(keys.shape[0]):
        keys[i] += np.int64(codes[i]) * stride


@njit(cache=True, nogil=True)
def _group_keys(keys):
    """Group ids of integer keys in order of first appearance, and each group's first
    index. The open-addressing table grows with the groups found (not with the
    keys), so it stays in cache when many keys share few groups."""
    m = keys.shape[0]
    size = 1 << 12
    table = np.full(size, -1, dtype=np.int64)
    mask = size - 1
    group_key = np.empty(min(m, size // 2) + 1, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    group_of = np.empty(m, dtype=np.int64)
    n = 0
    for i in range(m):
        key = keys[i]
        h = (key * np.int64(-7046029254386353131)) ^ (key >> np.int64(29))
        slot = (h ^ (h >> np.int64(32))) & mask
        while True:
            g = table[slot]
            if g == -1:
                if 2 * (n + 1) > size:  # keep the table at most half full: grow
                    size *= 2
                    mask = size - 1
                    table = np.full(size, -1, dtype=np.int64)
                    grown = np.empty(min(m, size // 2) + 1, dtype=np.int64)
                    grown[:n] = group_key[:n]
                    group_key = grown
                    for e in range(n):
                        k = group_key[e]
                        hh = (k * np.int64(-7046029254386353131)) ^ (k >> np.int64(29))
                        sl = (hh ^ (hh >> np.int64(32))) & mask
                        while table[sl] != -1:
                            sl = (sl + 1) & mask
                        table[sl] = e
                    slot = (h ^ (h >> np.int64(32))) & mask
                    continue
                table[slot] = n
                group_key[n] = key
                first[n] = i
                g = n
                n += 1
                break
            if group_key[g] == key:
                break
            slot = (slot + 1) & mask
        group_of[i] = g
    return group_of, first[:n].copy()


def _key_strides(radix) -> np.ndarray | None:
    """Mixed-radix place values for columns with ``radix`` codes (last fastest), or
    None when their product reaches 2**62."""
    strides = np.ones(len(radix), dtype=np.int64)
    total = 1
    for j in range(len(radix) - 1, -1, -1):
        strides[j] = total
        total *= int(max(radix[j], 1))
        if total >= 2**62:
            return None
    return strides


def group_columns(columns: list[np.ndarray], radix, m: int) -> tuple[np.ndarray, np.ndarray]:
    """``group_rows`` for ``m`` rows given column by column (no rows x attributes copy
    when the mixed-radix key fits)."""
    strides = _key_strides(radix) if columns else None
    if strides is None:
        stacked = (np.stack(columns, axis=1) if columns else np.zeros((m, 0), np.int32))
        return group_rows(np.ascontiguousarray(stacked, dtype=np.int32), radix)
    keys = np.zeros(m, dtype=np.int64)
    for codes, stride in zip(columns, strides):
        _add_key_column(keys, codes, stride)
    return _group_keys(keys)


def group_rows(gen: np.ndarray, radix: np.ndarray | None = None):
    """Group the rows of ``gen`` (int32, items x attributes).

    ``radix`` gives each column's number of distinct codes; when their
    product fits into 63 bits a mixed-radix integer key is hashed instead of
    the whole row. Returns ``(group_of_item, first_item_of_group)``.
    """
    if gen.shape[1] == 0:
        m = gen.shape[0]
        return np.zeros(m, np.int64), np.zeros(min(m, 1), np.int64)
    strides = _key_strides(radix) if radix is not None else None
    if strides is not None:  # one mixed-radix key per row: hash and compare one integer
        return _group_keys(_keys(gen, strides))
    group_of, first, _ = _group_by_rows(np.ascontiguousarray(gen))
    return group_of, first


def generalize(rep: np.ndarray, maps_flat: np.ndarray, offsets: np.ndarray,
               levels: np.ndarray) -> np.ndarray:
    """Generalized codes of representative original codes at ``levels``."""
    out = np.empty(rep.shape, dtype=np.int32)
    _generalize(rep, maps_flat, offsets, np.asarray(levels, dtype=np.int64), out)
    return out


def sum_by_group(values: np.ndarray, group_of: np.ndarray, n: int) -> np.ndarray:
    """Sum per group of a vector (n groups) or, row-wise, of a matrix."""
    if values.ndim == 1:
        return _sum_by_group(values, group_of, n)
    return _sum_rows_by_group(values, group_of, n)


#: a roll-up indexes classes directly by key (no hashing) when the key space has at
#: most this many keys per item rolled up (or at most ``DIRECT_MIN`` keys)
DIRECT_PER_ITEM = 4
DIRECT_MIN = 1 << 12


@njit(cache=True, nogil=True)
def _rollup_keyed(rep_t, counts, maps_flat, offsets, levels, sizes, need_groups):
    """Roll items up to the classes of ``levels`` in one call, when the generalized
    codes fit a 62-bit mixed-radix key (``sizes[j, l]``: codes of attribute ``j`` at
    level ``l``). ``rep_t[j, i]`` is item ``i``'s original code of attribute ``j``
    (one contiguous row per attribute), ``counts[i]`` its records.

    The keys are computed attribute by attribute through the level maps (a loop the
    compiler vectorizes; no generalized copy of the items). Keys index a table of
    classes directly when the key space is small (``DIRECT_PER_ITEM``), else they
    are grouped by open addressing. Returns ``(fits, group_of, first, class_counts,
    gen, class_rep_t)``, classes in order of first appearance, ``gen`` their
    generalized codes, ``class_rep_t`` their first items' codes (as ``rep_t``);
    ``group_of`` (each item's class) is empty unless ``need_groups``. When the keys
    do not fit, ``fits`` is False and nothing else is set.
    """
    q, m = rep_t.shape
    base = np.empty(q, dtype=np.int64)
    strides = np.empty(q, dtype=np.int64)
    total = np.int64(1)
    fits = True
    for j in range(q - 1, -1, -1):
        base[j] = offsets[j, levels[j]]
        strides[j] = total
        r = max(np.int64(sizes[j, levels[j]]), np.int64(1))
        if total > (np.int64(1) << 62) // r:
            fits = False
            break
        total *= r
    group_of = np.empty(m if fits and need_groups else 0, dtype=np.int64)
    if not fits:
        return (False, group_of, group_of, group_of, np.empty((0, q), dtype=np.int32),
                np.empty((q, 0), dtype=rep_t.dtype))
    keys = np.empty(m, dtype=np.int64)
    started = False  # the first attribute that counts sets the keys (no zeroing pass)
    for j in range(q):
        if sizes[j, levels[j]] <= 1:  # one value (suppressed): adds nothing to a key
            continue
        o = base[j]
        stride = strides[j]
        codes = rep_t[j]
        if started:
            for i in range(m):
                keys[i] += np.int64(maps_flat[o + codes[i]]) * stride
        else:
            for i in range(m):
                keys[i] = np.int64(maps_flat[o + codes[i]]) * stride
            started = True
    if not started:
        keys[:] = 0
    first = np.empty(m, dtype=np.int64)
    class_counts = np.empty(m, dtype=counts.dtype)  # set when a class is found
    n = 0
    if total <= max(DIRECT_PER_ITEM * m, DIRECT_MIN):
        table = np.full(total, -1, dtype=np.int32)  # items (m) fit 31 bits
        for i in range(m):
            g = table[keys[i]]
            if g < 0:
                g = n
                table[keys[i]] = g
                first[n] = i
                class_counts[n] = 0
                n += 1
            class_counts[g] += counts[i]
            if need_groups:
                group_of[i] = g
    else:
        size = 16  # open addressing, at most half full; classes (< m) fit 31 bits
        while size < 2 * m:
            size *= 2
        table = np.full(size, -1, dtype=np.int32)
        mask = size - 1
        class_key = np.empty(m, dtype=np.int64)
        for i in range(m):
            key = keys[i]
            h = (key * np.int64(-7046029254386353131)) ^ (key >> np.int64(29))
            slot = (h ^ (h >> np.int64(32))) & mask
            while True:
                g = table[slot]
                if g == -1:
                    table[slot] = n
                    class_key[n] = key
                    first[n] = i
                    class_counts[n] = 0
                    g = n
                    n += 1
                    break
                if class_key[g] == key:
                    break
                slot = (slot + 1) & mask
            class_counts[g] += counts[i]
            if need_groups:
                group_of[i] = g
    first = first[:n].copy()
    class_counts = class_counts[:n].copy()
    gen = np.empty((n, q), dtype=np.int32)
    class_rep_t = np.empty((q, n), dtype=rep_t.dtype)
    for j in range(q):  # one pass per attribute: first items' codes and their labels
        codes = rep_t[j]
        o = base[j]
        for c in range(n):
            r = codes[first[c]]
            class_rep_t[j, c] = r
            gen[c, j] = maps_flat[o + r]
    return True, group_of, first, class_counts, gen, class_rep_t


def rollup_classes(rep: np.ndarray, counts: np.ndarray, maps_flat: np.ndarray,
                   offsets: np.ndarray, levels: np.ndarray, sizes: np.ndarray,
                   need_groups: bool = True):
    """Classes of items ``rep`` (original codes, items x attributes; fastest when
    stored column by column, ``Classes.rep``) at ``levels``: ``(group_of, first,
    class_counts, gen, class_rep)``, as ``group_rows`` on the generalized codes and
    ``sum_by_group`` of ``counts`` would give (``gen``: each class's generalized
    codes; ``class_rep``: ``rep[first]`` stored column by column), mostly without
    materializing the items' generalized codes. Without ``need_groups``,
    ``group_of`` may be left empty."""
    levels = np.asarray(levels, dtype=np.int64)
    if rep.shape[1] > 0:
        fits, group_of, first, class_counts, gen, class_rep_t = _rollup_keyed(
            np.ascontiguousarray(rep.T), counts, maps_flat, offsets, levels, sizes,
            need_groups)
        if fits:
            return group_of, first, class_counts, gen, class_rep_t.T
    gen = generalize(np.ascontiguousarray(rep), maps_flat, offsets, levels)
    radix = sizes[np.arange(len(levels)), levels] if len(levels) else None
    group_of, first = group_rows(gen, radix)
    return (group_of, first, sum_by_group(counts, group_of, len(first)), gen[first],
            np.ascontiguousarray(rep[first].T).T)
