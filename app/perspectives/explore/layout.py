"""Where lattice nodes go and what the edges look like from afar (no Qt).

Nodes sit on rows by their level (bottom row: no generalization) and are
centred in their row, one unit apart, so the lattice keeps its diamond
shape. Within a row they are ordered by a key: the level vector (structure)
or state then loss, which puts the frontier between not anonymous and
anonymous in one place on every row.

Edges are drawn as lines when few are visible; from afar the tens of
thousands of edges are a texture, rasterized once into a density image
(``edge_density``) that the view scales, which costs the same for 74,000 or
600,000 edges.
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


def state_order_key(states: np.ndarray, percent: np.ndarray) -> np.ndarray:
    """Order within a row: not anonymous, not checked, anonymous; then by loss."""
    rank = np.select([states == 2, states == 0], [0.0, 1.0], 2.0)
    p = np.nan_to_num(percent, nan=100.0)
    return rank * 1000.0 + p


def visible_segments(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray,
                     rect: tuple[float, float, float, float]) -> np.ndarray:
    """Mask of segments whose bounding box meets ``rect`` = (left, top, right, bottom)."""
    left, top, right, bottom = rect
    return ((np.maximum(x0, x1) >= left) & (np.minimum(x0, x1) <= right)
            & (np.maximum(y0, y1) >= top) & (np.minimum(y0, y1) <= bottom))


def edge_density(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray,
                 bounds: tuple[float, float, float, float], size: tuple[int, int],
                 budget: int = 4_000_000) -> np.ndarray:
    """How many edges cross each pixel of a (height, width) image of ``bounds``.

    Each segment is sampled about once per pixel of its length (fewer when the
    total would exceed ``budget`` samples per chunk); returns float32 counts
    normalized so a lone edge counts about 1.
    """
    width, height = size
    left, top, right, bottom = bounds
    sx = (width - 1) / max(right - left, 1e-9)
    sy = (height - 1) / max(bottom - top, 1e-9)
    px0, py0 = (x0 - left) * sx, (y0 - top) * sy
    px1, py1 = (x1 - left) * sx, (y1 - top) * sy
    lengths = np.maximum(np.abs(px1 - px0), np.abs(py1 - py0))
    samples = np.clip(np.ceil(lengths), 2, None).astype(np.int64)
    total = int(samples.sum())
    thin = max(1.0, total / (budget * 4))  # very dense drawings: fewer samples per edge
    if thin > 1.0:
        samples = np.clip((samples / thin).astype(np.int64), 2, None)
    weight = np.maximum(lengths / samples, 1.0) if thin > 1.0 else None
    counts = np.zeros(width * height, dtype=np.float64)
    start = 0
    n = len(samples)
    while start < n:
        cum = np.cumsum(samples[start:])
        stop = start + max(1, int(np.searchsorted(cum, budget)))
        seg = slice(start, stop)
        k = samples[seg]
        idx = np.repeat(np.arange(stop - start), k)
        first = np.concatenate([[0], np.cumsum(k)[:-1]])
        t = (np.arange(len(idx)) - first[idx]) / (k[idx] - 1)
        xs = px0[seg][idx] + (px1[seg][idx] - px0[seg][idx]) * t
        ys = py0[seg][idx] + (py1[seg][idx] - py0[seg][idx]) * t
        pix = np.rint(ys).astype(np.int64) * width + np.rint(xs).astype(np.int64)
        w = None if weight is None else weight[seg][idx]
        counts += np.bincount(pix, weights=w, minlength=width * height)[: width * height]
        start = stop
    return counts.reshape(height, width).astype(np.float32)


def density_rgba(density: np.ndarray, color: tuple[int, int, int],
                 alpha_one: float = 70.0, alpha_max: float = 200.0) -> np.ndarray:
    """A premultiplied (h, w, 4) uint8 BGRA image: one edge ~ ``alpha_one``, saturating."""
    alpha = alpha_max * (1.0 - np.exp(-density * (alpha_one / alpha_max)))
    out = np.empty(density.shape + (4,), dtype=np.uint8)
    a = alpha / 255.0
    out[..., 0] = np.rint(color[2] * a)
    out[..., 1] = np.rint(color[1] * a)
    out[..., 2] = np.rint(color[0] * a)
    out[..., 3] = np.rint(alpha)
    return out
