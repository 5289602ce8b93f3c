"""Predictive tagging over a dense lattice: flood the state of a checked transformation
to all its generalizations (anonymous) or specializations (not anonymous)."""
from __future__ import annotations

import numpy as np
from engine.kernel.jit import njit


@njit(cache=True, nogil=True)
def flood(states, start, state, radix, strides, upward):
    """Set ``state`` on every unknown (0) node reachable from ``start`` going up
    (``upward``) or down the lattice; stops at nodes already carrying ``state``.

    Node ids are mixed-radix numbers: digit ``j`` of an id is
    ``(id // strides[j]) % radix[j]`` (a level minus the attribute's minimum).
    Returns how many nodes were newly tagged.
    """
    n_dims = radix.shape[0]
    queue = np.empty(states.shape[0], dtype=np.int64)
    head = 0
    tail = 0
    queue[tail] = start
    tail += 1
    tagged = 0
    while head < tail:
        node = queue[head]
        head += 1
        for j in range(n_dims):
            digit = (node // strides[j]) % radix[j]
            if upward:
                if digit + 1 >= radix[j]:
                    continue
                nxt = node + strides[j]
            else:
                if digit == 0:
                    continue
                nxt = node - strides[j]
            if states[nxt] == 0:
                states[nxt] = state
                tagged += 1
                queue[tail] = nxt
                tail += 1
    return tagged


def strides_of(radix) -> np.ndarray:
    """Mixed-radix place values (last attribute varies fastest, as ``Lattice.id_of``)."""
    radix = np.asarray(radix, dtype=np.int64)
    strides = np.ones(len(radix), dtype=np.int64)
    for j in range(len(radix) - 2, -1, -1):
        strides[j] = strides[j + 1] * radix[j + 1]
    return strides
