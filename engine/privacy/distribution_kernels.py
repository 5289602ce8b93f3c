"""numba kernels over per-class sensitive-value distributions (CSR layout of
``SparseCounts``: class ``g`` holds ``value[indptr[g]:indptr[g+1]]`` with their
``count``). Each returns one number or flag per class."""
from __future__ import annotations

import numpy as np
from engine.kernel.jit import njit


def segment_sum(x: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Sum of ``x`` over each CSR segment."""
    cs = np.zeros(len(x) + 1, dtype=np.float64)
    np.cumsum(x, out=cs[1:])
    return cs[indptr[1:]] - cs[indptr[:-1]]


@njit(cache=True, nogil=True, inline="always")
def _segment_total(count, a, b):
    """Records of one class: the sum of its sparse counts ``count[a:b]``."""
    total = 0.0
    for p in range(a, b):
        total += count[p]
    return total


@njit(cache=True, nogil=True)
def recursive_cl_violating(indptr, count, c, l):
    """With frequencies sorted descending r1 >= r2 >= ..., a class violates unless it
    has l values and r1 < c * (r_l + ... + r_m). The tail is the class total minus
    its l - 1 largest frequencies, kept by insertion in one pass (no sort)."""
    n = len(indptr) - 1
    out = np.zeros(n, dtype=np.bool_)
    kk = max(l - 1, 1)
    top = np.empty(kk, dtype=np.int64)
    for g in range(n):
        a, b = indptr[g], indptr[g + 1]
        if b - a < l:
            out[g] = True
            continue
        for i in range(kk):
            top[i] = -1
        total = 0
        for p in range(a, b):
            x = count[p]
            total += x
            if x > top[kk - 1]:
                i = kk - 1
                while i > 0 and top[i - 1] < x:
                    top[i] = top[i - 1]
                    i -= 1
                top[i] = x
        head = 0
        for i in range(l - 1):
            head += top[i]
        out[g] = not (top[0] < c * (total - head))
    return out


@njit(cache=True, nogil=True)
def shannon_entropy(indptr, count):
    """Natural-log plug-in entropy per class."""
    n = len(indptr) - 1
    out = np.zeros(n)
    for g in range(n):
        a, b = indptr[g], indptr[g + 1]
        total = _segment_total(count, a, b)
        h = 0.0
        for p in range(a, b):
            q = count[p] / total
            h -= q * np.log(q)
        out[g] = h
    return out


@njit(cache=True, nogil=True)
def equal_emd(indptr, value, count, overall):
    """1/2 sum |q - p| per class; values absent from a class contribute p."""
    n = len(indptr) - 1
    out = np.zeros(n)
    for g in range(n):
        a, b = indptr[g], indptr[g + 1]
        total = _segment_total(count, a, b)
        s = 1.0
        for p in range(a, b):
            v = value[p]
            s += abs(count[p] / total - overall[v]) - overall[v]
        out[g] = 0.5 * s
    return out


@njit(cache=True, nogil=True)
def ordered_emd(indptr, value, count, overall_ranked, rank):
    """1/(m-1) sum_i |sum_{j<=i} (q_j - p_j)| with values in ``rank`` order."""
    n = len(indptr) - 1
    m = len(overall_ranked)
    out = np.zeros(n)
    q = np.zeros(m)
    for g in range(n):
        a, b = indptr[g], indptr[g + 1]
        total = _segment_total(count, a, b)
        for p in range(a, b):
            q[rank[value[p]]] = count[p] / total
        cum = 0.0
        s = 0.0
        for i in range(m):
            cum += q[i] - overall_ranked[i]
            s += abs(cum)
        for p in range(a, b):
            q[rank[value[p]]] = 0.0
        out[g] = s / (m - 1) if m > 1 else 0.0
    return out


#: what the floor below takes off a distance over t: far above the kernels' rounding
FLOOR_MARGIN = 1e-9


@njit(cache=True, nogil=True)
def closeness_verdict(indptr, value, count, dist, point, t):
    """Per class: whether it violates t-closeness (no values, or distance ``dist`` over
    t), and its floor: for a distance over t, its records times (d - t) / (D - t), D
    the largest ``point`` distance of a value it holds (both with a margin)."""
    n = len(indptr) - 1
    violating = np.zeros(n, dtype=np.bool_)
    floor = np.zeros(n)
    for g in range(n):
        a, b = indptr[g], indptr[g + 1]
        if b == a:
            violating[g] = True
            continue
        if dist[g] > t:
            violating[g] = True
        excess = dist[g] - t - FLOOR_MARGIN
        if not excess > 0.0:
            continue
        most = 0.0
        for p in range(a, b):
            most = max(most, point[value[p]])
        span = most - t + FLOOR_MARGIN
        if span > excess:  # else rounding broke d <= D: no floor
            floor[g] = _segment_total(count, a, b) * (excess / span)
    return violating, floor


@njit(cache=True, nogil=True)
def hierarchical_emd(indptr, value, count, overall, parent_flat, parent_off, n_nodes,
                     mass_flat, node_off):
    """Hierarchical-distance EMD per class.

    ``parent_flat[parent_off[k] + i]`` is the level-(k+1) node of level-k node i
    (level 0 = the values); ``n_nodes[k]`` is the number of nodes of level k and
    ``mass_flat[node_off[k] + i]`` the overall probability under level-k node i.
    Surplus and deficit flowing up into a level-(k+1) node are matched at a
    cost of (k+1) / height per unit. Only ancestors of the values a class
    contains are visited: every other node has a pure deficit (its overall
    mass) and matches nothing.
    """
    n = len(indptr) - 1
    height = len(parent_off)
    out = np.zeros(n)
    total_nodes = len(mass_flat)
    stamp = np.full(total_nodes, -1, dtype=np.int64)
    pos = np.zeros(total_nodes)
    neg_touched = np.zeros(total_nodes)
    mass_touched = np.zeros(total_nodes)
    width = 0
    for k in range(height + 1):
        width = max(width, n_nodes[k])
    cur_nodes = np.empty(width, dtype=np.int64)
    cur_carry = np.empty(width)
    next_nodes = np.empty(width, dtype=np.int64)
    for g in range(n):
        a, b = indptr[g], indptr[g + 1]
        total = _segment_total(count, a, b)
        n_cur = 0
        for p in range(a, b):
            v = value[p]
            cur_nodes[n_cur] = v
            cur_carry[n_cur] = count[p] / total - overall[v]
            n_cur += 1
        cost = 0.0
        for k in range(height):
            off = parent_off[k]
            up = node_off[k + 1]
            here = node_off[k]
            n_next = 0
            for t in range(n_cur):
                c = cur_nodes[t]
                par = parent_flat[off + c]
                slot = up + par
                if stamp[slot] != g:
                    stamp[slot] = g
                    pos[slot] = 0.0
                    neg_touched[slot] = 0.0
                    mass_touched[slot] = 0.0
                    next_nodes[n_next] = par
                    n_next += 1
                e = cur_carry[t]
                if e > 0:
                    pos[slot] += e
                else:
                    neg_touched[slot] -= e
                mass_touched[slot] += mass_flat[here + c]
            level_cost = 0.0
            for t in range(n_next):
                par = next_nodes[t]
                slot = up + par
                untouched = mass_flat[slot] - mass_touched[slot]
                if untouched < 0.0:
                    untouched = 0.0
                neg = neg_touched[slot] + untouched
                level_cost += min(pos[slot], neg)
                cur_nodes[t] = par
                cur_carry[t] = pos[slot] - neg
            n_cur = n_next
            cost += (k + 1) / height * level_cost
        out[g] = cost
    return out


@njit(cache=True, nogil=True)
def beta_likeness_violating(indptr, value, count, overall, beta, enhanced):
    """A class violates when a value's relative gain (q - p) / p exceeds beta
    (enhanced: min(beta, -ln p))."""
    n = len(indptr) - 1
    out = np.zeros(n, dtype=np.bool_)
    for g in range(n):
        a, b = indptr[g], indptr[g + 1]
        total = _segment_total(count, a, b)
        for p in range(a, b):
            pv = overall[value[p]]
            q = count[p] / total
            if q > pv:
                limit = beta
                if enhanced:
                    limit = min(beta, -np.log(pv))
                if (q - pv) / pv > limit:
                    out[g] = True
                    break
    return out


@njit(cache=True, nogil=True)
def delta_disclosure_violating(indptr, value, count, overall, delta):
    """A class violates when |ln(q / p)| >= delta for a value it contains."""
    n = len(indptr) - 1
    out = np.zeros(n, dtype=np.bool_)
    for g in range(n):
        a, b = indptr[g], indptr[g + 1]
        total = _segment_total(count, a, b)
        for p in range(a, b):
            q = count[p] / total
            if abs(np.log(q / overall[value[p]])) >= delta:
                out[g] = True
                break
    return out
