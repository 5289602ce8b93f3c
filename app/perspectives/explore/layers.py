"""Graphics items of the lattice view that pyqtgraph lacks: edges with level of detail, labels."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter, QPen
from pyqtgraph.graphicsItems.PlotCurveItem import arrayToLineSegments

from app.perspectives.explore.layout import density_rgba, edge_density, visible_segments
from app.perspectives.explore.text import level_label

EDGE_RGB = (110, 122, 140)


class EdgeLayer(pg.GraphicsObject):
    """All edges: exact lines when at most ``max_lines`` are in view, else a density image.

    The image is rasterized once per set of edges, so a frame costs the same
    for any number of edges; lines take over when the user zooms in.
    """

    def __init__(self, max_lines: int = 12_000, image_width: int = 2048):
        super().__init__()
        self.max_lines = max_lines
        self.image_width = image_width
        self.pen = QPen(QColor(*EDGE_RGB, 90))
        self.pen.setCosmetic(True)
        self.pen.setWidth(1)
        self._x0 = self._y0 = self._x1 = self._y1 = np.zeros(0)
        self._bounds = QRectF()
        self._image: QImage | None = None
        self._pixels: np.ndarray | None = None  # keeps the QImage's memory alive
        self._segments = None
        self.drew_lines = 0  # lines in the last frame (0 when the image was drawn)

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
            if len(self._x0) > self.max_lines:
                self._rasterize(left, top, right, bottom)
        else:
            self._bounds = QRectF()
        self.update()

    def _rasterize(self, left: float, top: float, right: float, bottom: float) -> None:
        w = self.image_width
        aspect = (bottom - top) / max(right - left, 1e-9)
        h = int(np.clip(round(w * aspect), 64, 2048))
        dens = edge_density(self._x0, self._y0, self._x1, self._y1,
                            (left, top, right, bottom), (w, h))
        self._pixels = np.ascontiguousarray(density_rgba(dens, EDGE_RGB))
        self._image = QImage(self._pixels.data, w, h, w * 4,
                             QImage.Format.Format_ARGB32_Premultiplied)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, p: QPainter, *args) -> None:
        if not len(self._x0):
            return
        vb = self.getViewBox()
        if vb is None:
            return
        r = vb.viewRect()
        mask = visible_segments(self._x0, self._y0, self._x1, self._y1,
                                (r.left(), r.top(), r.right(), r.bottom()))
        n = int(mask.sum())
        if n > self.max_lines and self._image is not None:
            self.drew_lines = 0
            p.drawImage(self._bounds, self._image)
            return
        self.drew_lines = n
        if n == 0:
            return
        xs = np.empty(2 * n)
        ys = np.empty(2 * n)
        xs[0::2], xs[1::2] = self._x0[mask], self._x1[mask]
        ys[0::2], ys[1::2] = self._y0[mask], self._y1[mask]
        self._segments = arrayToLineSegments(xs, ys, "pairs", False, self._segments)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.setPen(self.pen)
        p.drawLines(*self._segments.drawargs())


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
