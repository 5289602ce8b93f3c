"""Lattice layers drawn as one image of the view: edges and nodes, rasterized by numba.

QPainter costs about 0.5 µs per node sprite and far more per long edge, so
100,000 nodes or 74,000 edges cost 30-60 ms a frame. These layers rasterize
what is in view (plus a margin) into an image and blit it: a pan within the
margin costs one ``drawImage``, whatever the number of nodes or edges.
"""
from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen

from app.perspectives.explore.raster import density_lut, rasterize_edges, stamp_nodes
from app.workers import SerialWorker

EDGE_RGB = (110, 122, 140)


def _ltrb(r: QRectF) -> tuple[float, float, float, float]:
    return r.left(), r.top(), r.right(), r.bottom()


class ViewImageLayer(pg.GraphicsObject):
    """Base: keeps an image of the view and a margin; subclasses say what to draw.

    ``prepare(rect)`` picks the data (GUI thread, cheap); ``draw(payload, rect,
    size)`` returns (h, w) premultiplied ARGB32 pixels, row 0 at ``rect.top()``
    and may run in a worker when ``background`` is set.
    """

    def __init__(self, margin: float, background: bool, sync_uncovered: bool = False):
        super().__init__()
        self.margin = margin
        self.background = background  # refresh a stale image in a worker
        self.sync_uncovered = sync_uncovered  # ... unless it leaves part of the view blank
        self._bounds = QRectF()
        self._image: QImage | None = None
        self._pixels: np.ndarray | None = None  # keeps the QImage's memory alive
        self._image_rect = QRectF()
        self._image_scale = (1.0, 1.0)
        self._generation = 0
        self._busy = self._pending = False
        self._worker = SerialWorker()  # draws in the background (numba releases the GIL)
        self._worker.done.connect(lambda _tag, payload: self._rendered(payload))
        self._worker.failed.connect(self._render_failed)
        self.renders = 0  # images drawn so far (benchmark)
        self.render_s = 0.0  # time of the last one

    # --- for subclasses --------------------------------------------------------------------
    def prepare(self, rect: QRectF, scale: tuple[float, float]):
        raise NotImplementedError

    @staticmethod
    def draw(payload, rect: QRectF, size: tuple[int, int]) -> np.ndarray:
        raise NotImplementedError

    def wanted(self, view: QRectF) -> bool:
        """Whether to draw at all for this view."""
        return True

    def invalidate(self, bounds: QRectF) -> None:
        """The data changed: drop the image (late background images are ignored)."""
        self.prepareGeometryChange()
        self._bounds = bounds
        self._generation += 1
        self._image = self._pixels = None
        self.update()

    # --- machinery ------------------------------------------------------------------------------
    def boundingRect(self) -> QRectF:
        return self._bounds

    def wait(self, msecs: int = 5000) -> bool:
        """Wait for a background image (tests, closing)."""
        return self._worker.wait(msecs)

    def _dpr(self) -> float:
        views = self.scene().views() if self.scene() is not None else []
        return float(views[0].devicePixelRatioF()) if views else 1.0

    def _target(self):
        """(view, image rect, size in device pixels, device pixels per unit) or None."""
        vb = self.getViewBox()
        if vb is None:
            return None
        r = vb.viewRect()
        px = vb.viewPixelSize()
        if not px[0] or not px[1] or r.width() <= 0 or r.height() <= 0:
            return None
        dpr = self._dpr()
        ppx, ppy = dpr / px[0], dpr / px[1]
        mx, my = r.width() * self.margin, r.height() * self.margin
        rect = r.adjusted(-mx, -my, mx, my)
        w, h = max(2, int(rect.width() * ppx)), max(2, int(rect.height() * ppy))
        rect = QRectF(rect.left(), rect.top(), (w - 1) / ppx, (h - 1) / ppy)
        return r, rect, (w, h), (ppx, ppy)

    def render(self) -> None:
        """Draw the image for the current view now, in this thread."""
        target = self._target()
        if target is None:
            return
        _, rect, size, scale = target
        start = time.perf_counter()
        pixels = self.draw(self.prepare(rect, scale), rect, size)
        self._take(self._generation, pixels, rect, scale, time.perf_counter() - start,
                   repaint=False)

    def _request(self) -> None:
        if self._busy:
            self._pending = True
            return
        target = self._target()
        if target is None:
            return
        _, rect, size, scale = target
        self._busy, self._pending = True, False
        generation, draw, payload = self._generation, self.draw, self.prepare(rect, scale)

        def job():
            start = time.perf_counter()
            pixels = draw(payload, rect, size)
            return generation, pixels, rect, scale, time.perf_counter() - start

        self._worker.submit(job)

    def _render_failed(self, _tag, _message: str) -> None:
        self._busy = False  # the worker logged it; the next view change tries again

    def _rendered(self, payload) -> None:
        self._busy = False
        self._take(*payload)
        if self._pending:
            self._request()

    def _take(self, generation, pixels, rect, scale, seconds, repaint: bool = True) -> None:
        if generation != self._generation:
            return
        self._pixels = np.ascontiguousarray(pixels)
        h, w = self._pixels.shape
        self._image = QImage(self._pixels.data, w, h, w * 4,
                             QImage.Format.Format_ARGB32_Premultiplied)
        self._image_rect, self._image_scale = rect, scale
        self.renders += 1
        self.render_s = seconds
        if repaint:
            self.update()

    def paint(self, p: QPainter, *args) -> None:
        target = self._target()
        if target is None or self._bounds.isEmpty() or not self.wanted(target[0]):
            return
        view, _, _, (ppx, ppy) = target
        if self._image is None:
            self.render()
        else:
            sx, sy = self._image_scale
            zoomed = max(abs(ppx / sx - 1.0), abs(ppy / sy - 1.0)) > 1e-3
            covered = self._image_rect.contains(view.intersected(self._bounds))
            if not covered and (self.sync_uncovered or not self.background):
                self.render()
            elif zoomed or not covered:
                if self.background:
                    self._request()
                else:
                    self.render()
        if self._image is not None:
            p.drawImage(self._image_rect, self._image)


class EdgeLayer(ViewImageLayer):
    """Edges of the nodes in view; drawn in the background, shown once few enough.

    From afar tens of thousands of edges are only a grey mass that hides the
    nodes, so edges appear once at most ``max_edges`` touch the view (the
    selected node's edges are drawn by the view itself).
    """

    def __init__(self, max_edges: int = 6_000, margin: float = 0.5):
        super().__init__(margin, background=True)
        self.max_edges = max_edges
        self.lut = density_lut(EDGE_RGB)
        self._segments = (np.zeros(0),) * 4
        self.edges_in_view = 0  # edges touching the view in the last frame (or an estimate)

    def set_segments(self, x0, y0, x1, y1) -> None:
        self._segments = tuple(np.ascontiguousarray(a, dtype=np.float64)
                               for a in (x0, y0, x1, y1))
        x0, y0, x1, y1 = self._segments
        bounds = QRectF()
        if len(x0):
            left, right = float(min(x0.min(), x1.min())), float(max(x0.max(), x1.max()))
            top, bottom = float(min(y0.min(), y1.min())), float(max(y0.max(), y1.max()))
            bounds = QRectF(left, top, max(right - left, 1e-6), max(bottom - top, 1e-6))
        self.invalidate(bounds)

    def _touching(self, rect: QRectF) -> np.ndarray:
        """Mask of edges with an end inside ``rect``."""
        x0, y0, x1, y1 = self._segments
        left, top, right, bottom = _ltrb(rect)
        return (((x0 >= left) & (x0 <= right) & (y0 >= top) & (y0 <= bottom))
                | ((x1 >= left) & (x1 <= right) & (y1 >= top) & (y1 <= bottom)))

    def wanted(self, view: QRectF) -> bool:
        n = len(self._segments[0])
        seen = view.intersected(self._bounds)
        share = seen.width() * seen.height() / max(
            self._bounds.width() * self._bounds.height(), 1e-12)
        if n * share > 4 * self.max_edges:  # clearly too many: skip the exact count
            self.edges_in_view = int(n * share)
            return False
        self.edges_in_view = int(self._touching(view).sum())
        return self.edges_in_view <= self.max_edges

    def prepare(self, rect: QRectF, scale):
        m = self._touching(rect)
        return tuple(np.ascontiguousarray(a[m]) for a in self._segments), self.lut

    @staticmethod
    def draw(payload, rect: QRectF, size) -> np.ndarray:
        segments, lut = payload
        return rasterize_edges(*segments, _ltrb(rect), size, lut)


def node_stamps(fills, outlines, size: int, dpr: float = 1.0) -> np.ndarray:
    """(styles, s, s) premultiplied ARGB32 discs drawn by QPainter (antialiased)."""
    s = int(np.ceil((size + 2) * dpr)) | 1  # odd, so the disc has a centre pixel
    out = np.zeros((len(fills), s, s), dtype=np.uint32)
    for k, (fill, outline) in enumerate(zip(fills, outlines)):
        img = QImage(s, s, QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(Qt.GlobalColor.transparent)
        p = QPainter(img)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(QColor(outline)) if outline else QPen(Qt.PenStyle.NoPen)
        pen.setWidthF(1.0 * dpr)
        p.setPen(pen)
        p.setBrush(QColor(fill))
        d = size * dpr
        p.drawEllipse(QRectF((s - d) / 2, (s - d) / 2, d, d))
        p.end()
        ptr = img.constBits()
        out[k] = np.frombuffer(ptr, dtype=np.uint32, count=s * s).reshape(s, s)
    return out


class NodeLayer(ViewImageLayer):
    """Every node as a disc of its style (3 ms for Adult, 30 ms for 100,000 nodes).

    While zooming the last image is scaled and a sharp one drawn in the worker;
    the image is redrawn at once only when it would leave part of the view blank.
    """

    def __init__(self, fills, outlines, size: int, margin: float = 0.5):
        super().__init__(margin, background=True, sync_uncovered=True)
        self.fills, self.outlines, self.size = fills, outlines, size
        self._stamps: dict[tuple[float, int], np.ndarray] = {}
        self._x = self._y = np.zeros(0)
        self._style = np.zeros(0, dtype=np.int64)

    def set_nodes(self, x: np.ndarray, y: np.ndarray, style: np.ndarray) -> None:
        """Nodes at (x, y) with a style index each; later styles are drawn on top."""
        order = np.argsort(style, kind="stable")
        self._x = np.ascontiguousarray(x[order], dtype=np.float64)
        self._y = np.ascontiguousarray(y[order], dtype=np.float64)
        self._style = np.ascontiguousarray(style[order], dtype=np.int64)
        bounds = QRectF()
        if len(self._x):  # padded: discs stick out of the centres by a few pixels
            px, py = 0.05 * np.ptp(self._x) + 1.0, 0.05 * np.ptp(self._y) + 1.0
            bounds = QRectF(self._x.min() - px, self._y.min() - py,
                            np.ptp(self._x) + 2 * px, np.ptp(self._y) + 2 * py)
        self.invalidate(bounds)

    def node_size(self, pixels_per_unit: float) -> int:
        """Disc diameter in pixels: ``size`` from afar, growing to twice that zoomed in."""
        return int(np.clip(round(0.25 * pixels_per_unit), self.size, 2 * self.size - 1))

    def prepare(self, rect: QRectF, scale):
        dpr = round(self._dpr() * 4) / 4
        key = (dpr, self.node_size(scale[0] / dpr))
        if key not in self._stamps:
            self._stamps[key] = node_stamps(self.fills, self.outlines, key[1], dpr)
        return self._x, self._y, self._style, self._stamps[key]

    @staticmethod
    def draw(payload, rect: QRectF, size) -> np.ndarray:
        x, y, style, stamps = payload
        w, h = size
        left, top, right, bottom = _ltrb(rect)
        sx = (w - 1) / max(right - left, 1e-12)
        sy = (h - 1) / max(bottom - top, 1e-12)
        return stamp_nodes((x - left) * sx, (y - top) * sy, style, stamps, w, h)
