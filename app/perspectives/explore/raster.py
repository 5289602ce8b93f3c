"""Edges and nodes rasterized into an image of the view (numba, no Qt).

Drawing tens of thousands of long lines with QPainter costs 50-500 ms a
frame; counting how many edges cross each pixel in a numba loop costs a few
milliseconds, and the view then blits one image per frame whatever the
number of edges. Overlapping edges darken, so dense regions read as texture.
"""
from __future__ import annotations

import numpy as np
from engine.kernel.jit import njit  # numba loads on the first drawing, not at start-up


@njit(cache=True, nogil=True)
def _clip(ax, ay, bx, by, w, h):
    """Liang-Barsky clip of a segment to the pixels' area [-0.5, w-0.5) x [-0.5, h-0.5);
    t0 > t1 when outside."""
    t0, t1 = 0.0, 1.0
    dx, dy = bx - ax, by - ay
    hi_x, hi_y = w - 0.5 - 1e-9, h - 0.5 - 1e-9
    for p, q in ((-dx, ax + 0.5), (dx, hi_x - ax), (-dy, ay + 0.5), (dy, hi_y - ay)):
        if p == 0.0:
            if q < 0.0:
                return 1.0, 0.0
        else:
            r = q / p
            if p < 0.0:
                if r > t1:
                    return 1.0, 0.0
                if r > t0:
                    t0 = r
            else:
                if r < t0:
                    return 1.0, 0.0
                if r < t1:
                    t1 = r
    return t0, t1


@njit(cache=True, nogil=True)
def count_crossings(x0, y0, x1, y1, left, top, sx, sy, width, height):
    """(height, width) uint16 counts of segments crossing each pixel (saturating)."""
    out = np.zeros((height, width), dtype=np.uint16)
    for i in range(x0.shape[0]):
        ax = (x0[i] - left) * sx
        ay = (y0[i] - top) * sy
        bx = (x1[i] - left) * sx
        by = (y1[i] - top) * sy
        t0, t1 = _clip(ax, ay, bx, by, width, height)
        if t0 > t1:
            continue
        cx, cy = ax + (bx - ax) * t0, ay + (by - ay) * t0
        ex, ey = ax + (bx - ax) * t1, ay + (by - ay) * t1
        n = int(max(abs(ex - cx), abs(ey - cy))) + 1
        lastx, lasty = -1, -1
        for k in range(n + 1):
            t = k / n
            px = int(np.floor(cx + (ex - cx) * t + 0.5))
            py = int(np.floor(cy + (ey - cy) * t + 0.5))
            if px == lastx and py == lasty:
                continue
            lastx, lasty = px, py
            if 0 <= px < width and 0 <= py < height and out[py, px] < 65535:
                out[py, px] += 1
    return out


@njit(cache=True, nogil=True)
def colorize(counts, lut):
    """ARGB32 pixels (uint32) of counts through a 256-entry lookup table."""
    h, w = counts.shape
    out = np.empty((h, w), dtype=np.uint32)
    for i in range(h):
        for j in range(w):
            c = counts[i, j]
            out[i, j] = lut[c if c < 255 else 255]
    return out


@njit(cache=True, nogil=True)
def stamp_nodes(px, py, style, stamps, width, height):
    """(height, width) premultiplied ARGB32 image of ``stamps[style[i]]`` centred at each
    (px, py) in pixels, composited source-over in the given order."""
    out = np.zeros((height, width), dtype=np.uint32)
    s = stamps.shape[1]
    r = s // 2
    for i in range(px.shape[0]):
        cx = int(np.floor(px[i] + 0.5)) - r
        cy = int(np.floor(py[i] + 0.5)) - r
        if cx >= width or cy >= height or cx + s <= 0 or cy + s <= 0:
            continue
        st = stamps[style[i]]
        for a in range(s):
            y = cy + a
            if y < 0 or y >= height:
                continue
            for b in range(s):
                x = cx + b
                if x < 0 or x >= width:
                    continue
                src = np.int64(st[a, b])
                sa = src >> 24
                if sa == 0:
                    continue
                if sa == 255:
                    out[y, x] = st[a, b]
                    continue
                dst = np.int64(out[y, x])
                inv = 255 - sa
                res = np.int64(0)
                for shift in (0, 8, 16, 24):
                    c = ((src >> shift) & 255) + (((dst >> shift) & 255) * inv + 127) // 255
                    res |= min(c, 255) << shift
                out[y, x] = np.uint32(res)
    return out


def density_lut(rgb: tuple[int, int, int], alpha_one: float = 110.0,
                alpha_max: float = 225.0) -> np.ndarray:
    """Premultiplied ARGB32 colours for 0..255 crossings: one edge ~ ``alpha_one``."""
    c = np.arange(256, dtype=float)
    alpha = alpha_max * (1.0 - np.exp(-c * alpha_one / alpha_max))
    a = alpha / 255.0
    r, g, b = (np.rint(v * a).astype(np.uint32) for v in rgb)
    return (np.rint(alpha).astype(np.uint32) << 24) | (r << 16) | (g << 8) | b


def rasterize_edges(x0, y0, x1, y1, rect: tuple[float, float, float, float],
                    size: tuple[int, int], lut: np.ndarray) -> np.ndarray:
    """(h, w) uint32 premultiplied ARGB image of the segments inside ``rect``.

    ``rect`` = (left, top, right, bottom) in view units; pixel row 0 is ``top``.
    """
    w, h = size
    left, top, right, bottom = rect
    sx = (w - 1) / max(right - left, 1e-12)
    sy = (h - 1) / max(bottom - top, 1e-12)
    counts = count_crossings(np.asarray(x0, np.float64), np.asarray(y0, np.float64),
                             np.asarray(x1, np.float64), np.asarray(y1, np.float64),
                             float(left), float(top), sx, sy, int(w), int(h))
    return colorize(counts, lut)
