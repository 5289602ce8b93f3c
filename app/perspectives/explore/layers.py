"""Graphics items of the lattice view that pyqtgraph lacks: edges with level of detail, labels."""
from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter

from app.perspectives.explore.raster import density_lut, rasterize_edges
from app.perspectives.explore.text import level_label

EDGE_RGB = (110, 122, 140)


class EdgeLayer(pg.GraphicsObject):
    """All edges, rasterized (numba) into one image of the view and its surroundings.

    A frame blits that image, so panning and zooming cost the same for any
    number of edges. The image covers the view plus a margin; it is redrawn at
    once when the view leaves it or the zoom changed a lot, and shortly after
    the view stops moving otherwise, so it is sharp again at rest.
    """

    def __init__(self, margin: float = 0.5, settle_ms: int = 120):
        super().__init__()
        self.margin = margin
        self.lut = density_lut(EDGE_RGB)
        self._x0 = self._y0 = self._x1 = self._y1 = np.zeros(0)
        self._bounds = QRectF()
        self._image: QImage | None = None
        self._pixels: np.ndarray | None = None  # keeps the QImage's memory alive
        self._image_rect = QRectF()
        self._image_scale = (0.0, 0.0)
        self._settle = QTimer()
        self._settle.setSingleShot(True)
        self._settle.setInterval(settle_ms)
        self._settle.timeout.connect(self._sharpen)
        self.renders = 0  # how many times the image was rasterized (benchmark)
        self.render_s = 0.0  # time of the last rasterization

    def set_segments(self, x0, y0, x1, y1) -> None:
        self.prepareGeometryChange()
        self._x0, self._y0 = np.asarray(x0, float), np.asarray(y0, float)
        self._x1, self._y1 = np.asarray(x1, float), np.asarray(y1, float)
        self._image = self._pixels = None
        if len(self._x0):
            left = float(min(self._x0.min(), self._x1.min()))
            right = float(max(self._x0.max(), self._x1.max()))
            top = float(min(self._y0.min(), self._y1.min()))
            bottom = float(max(self._y0.max(), self._y1.max()))
            self._bounds = QRectF(left, top, max(right - left, 1e-6), max(bottom - top, 1e-6))
        else:
            self._bounds = QRectF()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def _view(self):
        """(view rect, pixels per unit x, y) or None before the item is shown."""
        vb = self.getViewBox()
        if vb is None:
            return None
        r = vb.viewRect()
        px = vb.viewPixelSize()
        if not px[0] or not px[1] or r.width() <= 0 or r.height() <= 0:
            return None
        return r, 1.0 / px[0], 1.0 / px[1]

    def render(self) -> None:
        """Rasterize the edges for the current view (and margin) now."""
        view = self._view()
        if view is None or not len(self._x0):
            return
        r, ppx, ppy = view
        start = time.perf_counter()
        mx, my = r.width() * self.margin, r.height() * self.margin
        rect = r.adjusted(-mx, -my, mx, my)
        w = max(2, int(rect.width() * ppx))
        h = max(2, int(rect.height() * ppy))
        pixels = rasterize_edges(self._x0, self._y0, self._x1, self._y1,
                                 (rect.left(), rect.top(), rect.right(), rect.bottom()),
                                 (w, h), self.lut)
        self._pixels = np.ascontiguousarray(pixels)
        self._image = QImage(self._pixels.data, w, h, w * 4,
                             QImage.Format.Format_ARGB32_Premultiplied)
        self._image_rect = QRectF(rect.left(), rect.top(), (w - 1) / ppx, (h - 1) / ppy)
        self._image_scale = (ppx, ppy)
        self.renders += 1
        self.render_s = time.perf_counter() - start

    def _sharpen(self) -> None:
        view = self._view()
        if view is not None and (abs(view[1] / self._image_scale[0] - 1) > 1e-3
                                 or abs(view[2] / self._image_scale[1] - 1) > 1e-3):
            self.render()
            self.update()

    def paint(self, p: QPainter, *args) -> None:
        view = self._view()
        if view is None or not len(self._x0):
            return
        r, ppx, ppy = view
        if self._image is None:
            self.render()
        else:
            zoom = max(ppx / self._image_scale[0], self._image_scale[0] / ppx,
                       ppy / self._image_scale[1], self._image_scale[1] / ppy)
            if zoom > 1.6 or not self._image_rect.contains(r.intersected(self._bounds)):
                self.render()
            elif zoom > 1.001:
                self._settle.start()
        if self._image is not None:
            p.drawImage(self._image_rect, self._image)


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
