"""pyqtgraph charts of the Analyze utility perspective: bars, heat maps, ROC curves."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.theme import ACCENT
from engine.markers import SUPPRESSED

INPUT_COLOR = "#7b8ca3"
OUTPUT_COLOR = ACCENT
BACKGROUND = "#ffffff"
AXIS_PEN = pg.mkPen("#98a2b3")
TEXT_COLOR = "#3b4754"
MAX_LABEL_CHARS = 22
MIN_BAR_ROWS = 8


def elide(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


class CategoryAxis(pg.AxisItem):
    """An axis with one text label per integer position; labels are thinned out so
    they never overlap, whatever the number of categories."""

    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self.labels: list[str] = []
        self.setPen(AXIS_PEN)
        self.setTextPen(pg.mkPen(TEXT_COLOR))
        font = QFont()
        font.setPointSizeF(8.5)
        # a label that would stick out of the axis is left out, not cut in half by the
        # chart's edge (the top value of Adult's 72 ages showed as half a "17")
        self.setStyle(tickFont=font, tickLength=0, hideOverlappingLabels=True)
        self._font = font

    def set_labels(self, labels: Sequence[str]) -> None:
        self.labels = [elide(str(v)) for v in labels]
        if self.orientation in ("left", "right"):
            fm = QFontMetrics(self._font)
            width = max((fm.horizontalAdvance(v) for v in self.labels), default=20)
            self.setWidth(min(220, width + 32))  # the labels and the axis title
        self.picture = None
        self.update()

    def _min_spacing_px(self) -> float:
        if self.orientation in ("left", "right"):
            # one line of the tick font: 15 px dropped every other label of a short chart
            # (the guided result's two-category 'sex' showed 'Male' only)
            return float(QFontMetrics(self._font).height())
        longest = max((len(v) for v in self.labels), default=4)
        return min(150.0, 6.5 * longest + 10)

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 - pyqtgraph override
        n = len(self.labels)
        if n == 0 or size <= 0:
            return []
        minVal, maxVal = min(minVal, maxVal), max(minVal, maxVal)  # inverted axes
        lo, hi = max(0, math.ceil(minVal)), min(n - 1, math.floor(maxVal))
        if hi < lo:
            return []
        per_category = size / max(maxVal - minVal, 1e-9)
        step = max(1, math.ceil(self._min_spacing_px() / max(per_category, 1e-9)))
        return [(step, list(range(lo, hi + 1, step)))]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph override
        return [self.labels[int(round(v))] if 0 <= int(round(v)) < len(self.labels) else ""
                for v in values]


def _plot_widget(left: pg.AxisItem | None = None, bottom: pg.AxisItem | None = None):
    axes = {}
    if left is not None:
        axes["left"] = left
    if bottom is not None:
        axes["bottom"] = bottom
    w = pg.PlotWidget(background=BACKGROUND, axisItems=axes)
    w.setMenuEnabled(False)
    w.hideButtons()
    for name in ("left", "bottom"):
        ax = w.getAxis(name)
        ax.setPen(AXIS_PEN)
        ax.setTextPen(pg.mkPen(TEXT_COLOR))
    return w


class FrequencyChart(QWidget):
    """Horizontal bars: one per value (top to bottom in display order), length = share."""

    def __init__(self, color: str, parent=None):
        super().__init__(parent)
        self.color = color
        self.marker = SUPPRESSED  # bars of suppressed values are drawn red
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.axis = CategoryAxis("left")
        self.plot = _plot_widget(left=self.axis)
        self.plot.setMouseEnabled(x=False, y=True)
        self.plot.invertY(True)
        self.plot.showGrid(x=True, y=False, alpha=0.2)
        self.plot.setLabel("bottom", "share of records", units="%")
        self.plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.bars: pg.BarGraphItem | None = None
        lay.addWidget(self.plot)

    def set_frequencies(self, values: Sequence[str], shares: np.ndarray) -> None:
        if self.bars is not None:
            self.plot.removeItem(self.bars)
            self.bars = None
        shares = np.asarray(shares, dtype=float) * 100.0
        self.axis.set_labels(values)
        n = len(values)
        if n:
            y = np.arange(n)
            brushes = [pg.mkBrush("#e07a73" if v == self.marker else self.color)
                       for v in values]
            self.bars = pg.BarGraphItem(x0=0, y=y, height=0.72, width=shares,
                                        brushes=brushes, pen=pg.mkPen(None))
            self.plot.addItem(self.bars)
        top = float(shares.max()) if n else 1.0
        self.plot.setXRange(0, top * 1.05 if top > 0 else 1.0, padding=0)
        rows = max(n, MIN_BAR_ROWS)  # a few values: slim bars at the top, not slabs
        self.plot.setLimits(yMin=-0.6, yMax=rows - 0.4, xMin=0)
        self.plot.setYRange(-0.6, rows - 0.4, padding=0)


class HeatMap(QWidget):
    """A contingency table as an image: rows of one attribute against columns of
    another; hovering shows the pair and its count below the map."""

    def __init__(self, color: str, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.left = CategoryAxis("left")
        self.bottom = CategoryAxis("bottom")
        self.plot = _plot_widget(left=self.left, bottom=self.bottom)
        self.plot.invertY(True)
        self.plot.setAspectLocked(False)
        self.image = pg.ImageItem()
        self.plot.addItem(self.image)
        base = QColor(color)
        light = QColor(*(round(255 + (c - 255) * 0.35) for c in base.getRgb()[:3]))
        cmap = pg.ColorMap([0.0, 0.12, 1.0], [QColor("#f7f9fc"), light, base.darker(130)])
        self.image.setLookupTable(cmap.getLookupTable(nPts=256))
        lay.addWidget(self.plot, 1)
        self.hover = QLabel(" ")
        self.hover.setObjectName("mutedLabel")
        lay.addWidget(self.hover)
        self._values = np.zeros((0, 0))
        self._rows: list[str] = []
        self._cols: list[str] = []
        self._names = ("", "")
        self.plot.scene().sigMouseMoved.connect(self._moved)

    def set_table(self, values: np.ndarray, rows: Sequence[str], columns: Sequence[str],
                  names: tuple[str, str]) -> None:
        self._values = np.asarray(values, dtype=float)
        self._rows, self._cols, self._names = list(rows), list(columns), names
        self.left.set_labels(self._rows)
        self.bottom.set_labels(self._cols)
        if self._values.size:
            top = self._values.max()
            self.image.setImage(self._values.T, levels=(0, top if top > 0 else 1))
            self.image.setRect(-0.5, -0.5, self._values.shape[1], self._values.shape[0])
        else:
            self.image.clear()
        h, w = self._values.shape if self._values.ndim == 2 else (0, 0)
        self.plot.setXRange(-0.5, max(w, 1) - 0.5, padding=0)
        self.plot.setYRange(-0.5, max(h, 1) - 0.5, padding=0)
        self.plot.setLimits(xMin=-0.5, xMax=max(w, 1) - 0.5, yMin=-0.5, yMax=max(h, 1) - 0.5)
        self.plot.setLabel("left", names[0])
        self.plot.setLabel("bottom", names[1])
        self.hover.setText("Point at a cell to see its count")

    def _moved(self, pos: QPointF) -> None:
        if not self._values.size or not self.plot.sceneBoundingRect().contains(pos):
            return
        p = self.plot.getPlotItem().vb.mapSceneToView(pos)
        c, r = int(round(p.x())), int(round(p.y()))
        if 0 <= r < self._values.shape[0] and 0 <= c < self._values.shape[1]:
            total = max(self._values.sum(), 1)
            v = self._values[r, c]
            self.hover.setText(f"{self._names[0]} = {self._rows[r]}, {self._names[1]} = "
                               f"{self._cols[c]}: {int(v):,} records ({v / total:.1%})")


class RocChart(QWidget):
    """ROC curves of the model on input (grey) and output (blue)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = _plot_widget()
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setXRange(0, 1, padding=0.02)
        self.plot.setYRange(0, 1, padding=0.02)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.setLabel("bottom", "false positive rate")
        self.plot.setLabel("left", "true positive rate")
        self.legend = self.plot.addLegend(offset=(-10, 10), labelTextColor=TEXT_COLOR,
                                          brush=pg.mkBrush(255, 255, 255, 220))
        lay.addWidget(self.plot)
        self.clear()

    def clear(self) -> None:
        self.plot.clear()
        self.legend.clear()
        self.plot.plot([0, 1], [0, 1], pen=pg.mkPen("#c3cad5", width=1,
                                                     style=Qt.PenStyle.DashLine))

    def set_curves(self, input_roc: dict, output_roc: dict) -> None:
        """``{class: (fpr, tpr)}`` of input and output; several classes: lighter
        lines per class (one-vs-rest)."""
        self.clear()
        single = len(input_roc) <= 1
        for roc, color, side in ((input_roc, INPUT_COLOR, "input"),
                                 (output_roc, OUTPUT_COLOR, "output")):
            for i, (label, (fpr, tpr)) in enumerate(roc.items()):
                name = side if single else f"{side}: {elide(label, 16)}"
                pen = pg.mkPen(color, width=2.2 if single else 1.4,
                               style=Qt.PenStyle.SolidLine if i == 0 or single
                               else Qt.PenStyle.DotLine)
                self.plot.plot(np.asarray(fpr), np.asarray(tpr), pen=pen,
                               name=name if single or i < 3 else None)
