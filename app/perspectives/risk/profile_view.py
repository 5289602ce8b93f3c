"""Risk profile: records per re-identification-risk interval, input beside output.

Both sides share the intervals, the y axis (linear or logarithmic) and the table
selection, so one row of the input lines up with the same row of the output.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QHBoxLayout, QHeaderView,
                               QSplitter, QTableView, QVBoxLayout, QWidget)

from engine.analysis.risk_comparison import RiskSide
from app.perspectives.risk.labels import upper_label
from app.perspectives.risk.common import BAR_BAD, BAR_OK, BarPlot, muted_label, side_header
from app.perspectives.risk.models import RiskProfileModel

#: labelled intervals when space is short (upper bounds, as fractions)
MAJOR = (1e-4, 0.001, 0.01, 0.05, 0.1, 0.2, 1 / 3, 0.5, 1.0)


def thin_labels(ticks: list[tuple[int, str]], px_per_bar: float, text_width,
                gap: float = 8.0) -> list[tuple[int, str]]:
    """The ``(position, text)`` labels whose texts keep ``gap`` pixels apart, taken from
    the right (the highest risks matter most): 100 % is always labelled."""
    kept: list[tuple[int, str, float]] = []
    for pos, text in sorted(ticks, reverse=True):
        width = text_width(text)
        if all(abs(pos - p) * px_per_bar >= (width + w) / 2 + gap for p, _t, w in kept):
            kept.append((pos, text, width))
    return sorted((p, t) for p, t, _w in kept)


class ProfilePlot(BarPlot):
    """Bars of the share of records per interval; red above the threshold."""

    def __init__(self, parent=None):
        super().__init__("records (%)", ("left", "bottom"), parent)
        self.setLabel("bottom", "re-identification risk (%), upper bound of the interval")
        self.setMinimumHeight(180)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.addItem(self.bars)
        self.line = pg.InfiniteLine(angle=90, pen=pg.mkPen(BAR_BAD, width=1.5,
                                                           style=Qt.PenStyle.DashLine))
        self.addItem(self.line)
        self.profile: pd.DataFrame | None = None
        self.labelled: list[tuple[int, str]] = []  # the major bounds labelled now
        self.selected = -1
        self.threshold = 0.2
        self.log = False
        self.floor = -3.0

    def set_profile(self, profile: pd.DataFrame | None) -> None:
        self.profile = profile
        if profile is not None:
            ticks = [(i, upper_label(u)) for i, u in enumerate(profile["upper"])]
            self._major = [t for t, u in zip(ticks, profile["upper"])
                           if any(math.isclose(u, m) for m in MAJOR)]
            self._ticks = ticks
            self._fit_ticks()
            self.setXRange(-0.7, len(profile) - 0.3, padding=0)
        self.redraw()

    def _fit_ticks(self) -> None:
        """Label the major bounds that fit the plot's width without touching: at 1280
        pixels "0.01 0.1 1" and "33.3 50 100" ran into each other."""
        if getattr(self, "profile", None) is None or not getattr(self, "_major", None):
            return
        axis = self.getAxis("bottom")
        font = axis.style.get("tickFont") or axis.font()
        metrics = QFontMetrics(font)
        px = max(axis.width(), 1.0) / (len(self.profile) + 0.4)
        self.labelled = thin_labels(self._major, px, metrics.horizontalAdvance)
        axis.setTicks([self.labelled, self._ticks])

    def set_threshold(self, threshold: float) -> None:
        self.threshold = threshold
        self.redraw()

    def highlight(self, row: int) -> None:
        """Outline the bar of the interval selected in the tables."""
        self.selected = row
        self.redraw()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._fit_ticks()
        # a range set before the plot was first laid out (its page not shown yet) is
        # distorted by that layout: set it again
        if getattr(self, "_scale", None) is not None:
            self.set_scale(*self._scale)

    def set_scale(self, log: bool, floor: float, top: float) -> None:
        """Linear (``top`` = largest share in %) or log scale (from 10**floor %)."""
        self._scale = (log, floor, top)
        self.log, self.floor = log, floor
        self.getAxis("left").setLogMode(False, log)
        if log:
            self.setYRange(floor, 2.0, padding=0.02)
        else:
            self.setYRange(0, max(top, 1e-9) * 1.08, padding=0)
        self.redraw()

    def redraw(self) -> None:
        p = self.profile
        if p is None or p.empty:
            self.bars.setOpts(x=[], height=[])
            self.line.hide()
            return
        share = p["share"].to_numpy() * 100.0
        above = p["lower"].to_numpy() >= self.threshold * (1 - 1e-9)
        if self.log:
            shown = share > 0
            height = np.where(shown, np.log10(np.where(shown, share, 1.0)) - self.floor, 0.0)
            base = self.floor
        else:
            height, base = share, 0.0
        brushes = [pg.mkBrush(BAR_BAD if a else BAR_OK) for a in above]
        self.bars.setOpts(x=np.arange(len(p)), height=height, y0=base, width=0.8,
                          brushes=brushes, pens=[pg.mkPen("#1f2933", width=2)
                                                 if i == self.selected else pg.mkPen(None)
                                                 for i in range(len(p))])
        first = int(np.argmax(above)) if above.any() else len(p)
        self.line.setValue(first - 0.5)
        self.line.setVisible(0 < first < len(p))


#: why the output side is empty
NOT_RUN = ("Nothing has been anonymized yet.\nPress Anonymize to see the output's risks "
           "beside the input's.")
NO_OPTIMUM = "No output: no transformation meets the privacy models."
PER_PERSON = ("Counted per person ([data] person): a class's size is its distinct persons, "
              "and a person with rows in two classes counts in each.")


class ProfileSide(QWidget):
    """One table's profile: plot above the interval table."""

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        header, self.caption = side_header(title)
        lay.addWidget(header)
        self.plot = ProfilePlot()
        lay.addWidget(self.plot, 3)
        self.placeholder = muted_label()
        self.placeholder.setObjectName("noOutput")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.hide()
        lay.addWidget(self.placeholder, 5)
        self.model = RiskProfileModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setAlternatingRowColors(True)
        lay.addWidget(self.table, 2)

    def set_side(self, side: RiskSide | None, missing: str = NOT_RUN) -> None:
        """Show ``side``; without one, say why (``missing``) instead of an empty chart."""
        self.model.set_profile(None if side is None else side.profile)
        self.plot.set_profile(None if side is None else side.profile)
        self.plot.setVisible(side is not None)
        self.table.setVisible(side is not None)
        self.placeholder.setVisible(side is None)
        if side is None:
            self.caption.setText("")
            self.placeholder.setText(missing)
        else:
            s = side.sizes
            self.caption.setText(f"{s.n_records:,} {side.unit} in {s.n_classes:,} classes")
            self.caption.setToolTip(PER_PERSON if side.unit == "persons" else "")

    def set_threshold(self, threshold: float) -> None:
        self.model.set_threshold(threshold)
        self.plot.set_threshold(threshold)


class RiskProfileView(QWidget):
    """The risk profile of the input beside the output's."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 10, 10, 10)
        top = QHBoxLayout()
        top.addWidget(muted_label("Share of records per risk interval (risk = 1 / size of the "
                                  "record's equivalence class). Red: above the risk threshold."),
                      1)
        self.log_scale = QCheckBox("Logarithmic scale")
        self.log_scale.toggled.connect(lambda _on: self._rescale())
        top.addWidget(self.log_scale)
        lay.addLayout(top)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.input, self.output = ProfileSide("Input"), ProfileSide("Output")
        split.addWidget(self.input)
        split.addWidget(self.output)
        lay.addWidget(split, 1)
        self.output.plot.setYLink(self.input.plot)
        self.sides: list[RiskSide | None] = [None, None]
        for a, b in ((self.input, self.output), (self.output, self.input)):
            a.table.selectionModel().currentRowChanged.connect(
                lambda cur, _prev, b=b: self._select(b, cur.row()))
            a.table.verticalScrollBar().valueChanged.connect(b.table.verticalScrollBar().setValue)

    def set_sides(self, before: RiskSide | None, after: RiskSide | None,
                  missing: str = NOT_RUN) -> None:
        """``missing``: why there is no output (nothing has run, or nothing met the models)."""
        self.sides = [before, after]
        self.input.set_side(before)
        self.output.set_side(after, missing)
        self.output.setEnabled(after is not None)
        self._rescale()

    def set_threshold(self, threshold: float) -> None:
        self.input.set_threshold(threshold)
        self.output.set_threshold(threshold)

    def _rescale(self) -> None:
        shares = np.concatenate([s.profile["share"].to_numpy() * 100 for s in self.sides if s]
                                or [np.zeros(1)])
        positive = shares[shares > 0]
        floor = math.floor(np.log10(positive.min())) if len(positive) else -3.0
        for side in (self.input, self.output):
            side.plot.set_scale(self.log_scale.isChecked(), float(floor), float(shares.max()))

    def _select(self, other: ProfileSide, row: int) -> None:
        for side in (self.input, self.output):
            side.plot.highlight(row)
        if row < 0 or other.table.currentIndex().row() == row:
            return
        other.table.selectionModel().setCurrentIndex(
            other.model.index(row, 0),
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
