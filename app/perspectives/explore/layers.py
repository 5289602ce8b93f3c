"""Graphics items of the lattice view that pyqtgraph lacks: edges with level of detail, labels."""
from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, QRectF, QRunnable, Qt, QThreadPool, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter

from app.perspectives.explore.raster import density_lut, rasterize_edges
from app.perspectives.explore.text import level_label

EDGE_RGB = (110, 122, 140)


class _Raster(QRunnable):
    """Rasterizes one view of the edges in the pool (numba releases the GIL)."""

    def __init__(self, done: Signal, generation: int, segments, rect: QRectF,
                 size: tuple[int, int], scale: tuple[float, float], lut: np.ndarray):
        super().__init__()
        self.done, self.generation = done, generation
        self.segments, self.rect, self.size, self.scale, self.lut = (
            segments, rect, size, scale, lut)

    def run(self) -> None:
        start = time.perf_counter()
        r = self.rect
        pixels = rasterize_edges(*self.segments, (r.left(), r.top(), r.right(), r.bottom()),
                                 self.size, self.lut)
        self.done.emit((self.generation, pixels, self.rect, self.scale,
                        time.perf_counter() - start))


class _Bridge(QObject):
    done = Signal(object)


class EdgeLayer(pg.GraphicsObject):
    """Edges of the nodes in view, rasterized (numba) into one image of the view.

    From afar tens of thousands of edges are only a grey mass that hides the
    nodes, so edges are drawn once at most ``max_edges`` touch the view (the
    selected node's edges are drawn by the view itself). A frame blits one
    image, so panning and zooming cost the same for any number of edges; when
    the view leaves the image or the zoom changes, a sharper image is drawn in
    a background thread and swapped in, so the GUI never waits for edges.
    """

    def __init__(self, max_edges: int = 6_000, margin: float = 0.5):
        super().__init__()
        self.max_edges = max_edges
        self.margin = margin
        self.lut = density_lut(EDGE_RGB)
        self._segments = (np.zeros(0),) * 4
        self._bounds = QRectF()
        self._image: QImage | None = None
        self._pixels: np.ndarray | None = None  # keeps the QImage's memory alive
        self._image_rect = QRectF()
        self._image_scale = (1.0, 1.0)
        self._generation = 0
        self._busy = False
        self._pending = False
        self._pool = QThreadPool()
        self._pool.setMaxThreadCount(1)
        self._bridge = _Bridge()
        self._bridge.done.connect(self._rendered)
        self.edges_in_view = 0  # edges touching the view in the last frame
        self.shown = False  # whether the last frame drew edges
        self.renders = 0  # images drawn so far (benchmark)
        self.render_s = 0.0  # time of the last one

    def set_segments(self, x0, y0, x1, y1) -> None:
        self.prepareGeometryChange()
        self._segments = tuple(np.ascontiguousarray(a, dtype=np.float64)
                               for a in (x0, y0, x1, y1))
        self._generation += 1
        self._image = self._pixels = None
        x0, y0, x1, y1 = self._segments
        if len(x0):
            left, right = float(min(x0.min(), x1.min())), float(max(x0.max(), x1.max()))
            top, bottom = float(min(y0.min(), y1.min())), float(max(y0.max(), y1.max()))
            self._bounds = QRectF(left, top, max(right - left, 1e-6), max(bottom - top, 1e-6))
        else:
            self._bounds = QRectF()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def wait(self, msecs: int = 5000) -> bool:
        """Wait for a background rasterization (tests, closing)."""
        return self._pool.waitForDone(msecs)

    def _target(self):
        """(rect, size, scale) of an image for the current view, or None before it is shown."""
        vb = self.getViewBox()
        if vb is None:
            return None
        r = vb.viewRect()
        px = vb.viewPixelSize()
        if not px[0] or not px[1] or r.width() <= 0 or r.height() <= 0:
            return None
        ppx, ppy = 1.0 / px[0], 1.0 / px[1]
        mx, my = r.width() * self.margin, r.height() * self.margin
        rect = r.adjusted(-mx, -my, mx, my)
        w, h = max(2, int(rect.width() * ppx)), max(2, int(rect.height() * ppy))
        rect = QRectF(rect.left(), rect.top(), (w - 1) / ppx, (h - 1) / ppy)
        return r, rect, (w, h), (ppx, ppy)

    def _touching(self, rect: QRectF) -> np.ndarray:
        """Mask of edges with an end inside ``rect``."""
        x0, y0, x1, y1 = self._segments
        left, right, top, bottom = rect.left(), rect.right(), rect.top(), rect.bottom()
        return (((x0 >= left) & (x0 <= right) & (y0 >= top) & (y0 <= bottom))
                | ((x1 >= left) & (x1 <= right) & (y1 >= top) & (y1 <= bottom)))

    def _job(self, rect: QRectF, size, scale) -> _Raster:
        m = self._touching(rect)
        return _Raster(self._bridge.done, self._generation,
                       tuple(np.ascontiguousarray(a[m]) for a in self._segments),
                       rect, size, scale, self.lut)

    def render(self) -> None:
        """Rasterize the edges for the current view now, in this thread."""
        target = self._target()
        if target is None or not len(self._segments[0]):
            return
        _, rect, size, scale = target
        job = self._job(rect, size, scale)
        start = time.perf_counter()
        pixels = rasterize_edges(*job.segments,
                                 (rect.left(), rect.top(), rect.right(), rect.bottom()),
                                 size, self.lut)
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
        self._pool.start(self._job(rect, size, scale))

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
        self.shown = False
        if not len(self._segments[0]):
            return
        target = self._target()
        if target is None:
            return
        view, _, _, (ppx, ppy) = target
        self.edges_in_view = int(self._touching(view).sum())
        if self.edges_in_view > self.max_edges:
            return
        if self._image is None:
            self.render()
        else:
            sx, sy = self._image_scale
            zoomed = max(abs(ppx / sx - 1.0), abs(ppy / sy - 1.0)) > 1e-3
            if zoomed or not self._image_rect.contains(view.intersected(self._bounds)):
                self._request()
        if self._image is not None:
            p.drawImage(self._image_rect, self._image)
            self.shown = True


class LabelLayer(pg.GraphicsObject):
    """Level vectors under the nodes once the user zoomed in far enough to read them."""

    def __init__(self, max_labels: int = 800):
        super().__init__()
        self.max_labels = max_labels
        self.font = QFont()
        self.font.setPointSizeF(8.0)
        self._metrics = QFontMetrics(self.font)
        self._x = self._y = np.zeros(0)
        self._levels = np.zeros((0, 0), dtype=np.int16)
        self._bounds = QRectF()
        self.drawn = 0  # labels drawn in the last frame

    def set_labels(self, x: np.ndarray, y: np.ndarray, levels: np.ndarray) -> None:
        """Label the node at (x[i], y[i]) with ``levels[i]`` (formatted when drawn)."""
        self.prepareGeometryChange()
        self._x, self._y, self._levels = np.asarray(x, float), np.asarray(y, float), levels
        if len(self._x):
            self._bounds = QRectF(self._x.min() - 1, self._y.min() - 1,
                                  self._x.max() - self._x.min() + 2,
                                  self._y.max() - self._y.min() + 2)
        else:
            self._bounds = QRectF()
        self._width = (self._metrics.horizontalAdvance(level_label(levels[0]))
                       if len(levels) else 0)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, p: QPainter, *args) -> None:
        self.drawn = 0
        vb = self.getViewBox()
        if vb is None or not len(self._x):
            return
        r = vb.viewRect()
        t = p.transform()
        unit_px = abs(t.m11())  # horizontal pixels per node spacing
        if unit_px < self._width + 6:
            return
        m = ((self._x >= r.left()) & (self._x <= r.right())
             & (self._y >= r.top()) & (self._y <= r.bottom()))
        rows = np.flatnonzero(m)
        if len(rows) > self.max_labels:
            return
        p.save()
        p.resetTransform()
        p.setFont(self.font)
        p.setPen(QColor("#3b4754"))
        h = self._metrics.height()
        for i in rows:
            pt = t.map(QPointF(self._x[i], self._y[i]))
            text = level_label(self._levels[i])
            w = self._metrics.horizontalAdvance(text)
            p.drawText(QRectF(pt.x() - w / 2 - 2, pt.y() + 7, w + 4, h),
                       Qt.AlignmentFlag.AlignCenter, text)
        p.restore()
        self.drawn = len(rows)
