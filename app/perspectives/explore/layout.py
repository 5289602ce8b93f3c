"""Where lattice nodes go and what the edges look like from afar (no Qt).

Nodes sit on rows by their level (bottom row: no generalization) and are
centred in their row, one unit apart, so the lattice keeps its diamond
shape. Within a row they are ordered by a key: the level vector (structure)
or state then loss, which puts the frontier between not anonymous and
anonymous in one place on every row.

Edges are rasterized into an image of the view (``raster``).
"""
from __future__ import annotations

import numpy as np

ORDER_STRUCTURE = "structure"
ORDER_STATE = "state"
#: vertical distance between rows, in node spacings
ROW_SPACING_MIN = 6.0


def row_spacing(widest: int, rows: int) -> float:
    """Distance between rows so the drawing is about twice as wide as high."""
    return max(ROW_SPACING_MIN, widest / max(rows, 1) / 2.0)


def node_positions(heights: np.ndarray, sort_key: np.ndarray | None = None,
                   spacing: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of every node: rows by height, centred, ordered by ``sort_key`` then row index.

    Parameters
    ----------
    heights : (n,) int level of each node above the bottom
    sort_key : (n,) float, optional order within a row (default: given order)
    spacing : vertical distance between rows (default: ``row_spacing``)
    """
    n = len(heights)
    if n == 0:
        return np.zeros(0), np.zeros(0)
    heights = np.asarray(heights, dtype=np.int64)
    keys = [np.arange(n)]
    if sort_key is not None:
        keys.append(np.asarray(sort_key, dtype=float))
    keys.append(heights)
    order = np.lexsort(keys)
    counts = np.bincount(heights)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(n, dtype=np.float64)
    h_sorted = heights[order]
    rank[order] = np.arange(n) - starts[h_sorted]
    x = rank - (counts[heights] - 1) / 2.0
    if spacing is None:
        spacing = row_spacing(int(counts.max()), len(counts))
    y = heights.astype(np.float64) * spacing
    return x, y


def state_order_key(states: np.ndarray, checked: np.ndarray, percent: np.ndarray) -> np.ndarray:
    """Order within a row: not anonymous, not checked, anonymous; then checked ones
    by loss, then the others by their loss bound.

    The frontier between not anonymous and anonymous is then in one place on
    every row, with the best checked transformations next to it.
    """
    rank = np.select([states == 2, states == 0], [0.0, 1.0], 2.0)
    p = np.clip(np.nan_to_num(percent, nan=100.0), 0.0, 100.0)
    return rank * 1000.0 + np.where(checked, 0.0, 200.0) + p
