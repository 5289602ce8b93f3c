"""Level vectors under the lattice's nodes once the user zoomed in far enough to read them."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter

from app.perspectives.explore.text import level_label


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
        if unit_px < 0.55 * self._width + 4:
            return
        stagger = unit_px < self._width + 6  # alternate below/above to fit twice as many
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
        gap = 4 + min(unit_px * 0.125, 7)  # clear of the node's disc
        for i in rows:
            pt = t.map(QPointF(self._x[i], self._y[i]))
            text = level_label(self._levels[i])
            w = self._metrics.horizontalAdvance(text)
            above = stagger and int(np.floor(self._x[i])) % 2 == 1
            top = pt.y() - gap - h if above else pt.y() + gap
            p.drawText(QRectF(pt.x() - w / 2 - 2, top, w + 4, h),
                       Qt.AlignmentFlag.AlignCenter, text)
        p.restore()
        self.drawn = len(rows)
