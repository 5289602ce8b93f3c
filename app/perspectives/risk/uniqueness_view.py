"""Population uniqueness: the Pitman, Zayatz, SNB and Dankar estimates of the share of
records unique in the population, against the sampling fraction, input beside output.

The curves depend only on the class sizes; the population model (region preset or
sampling fraction) marks where the data lies on them and gives the overview's
"population uniques".
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from engine.analysis.risk_comparison import DEFAULT_ESTIMATOR, ESTIMATOR_NAMES, RiskSide, estimators, population_uniques, sampling_fractions, uniqueness_curves
from engine.privacy.population import PopulationModel
from app.perspectives.risk.labels import percent
from app.perspectives.risk.common import (CURVE_COLORS, MUTED, RunBar, input_and_output,
                                          muted_label)
from app.perspectives.risk.jobs import AnalysisJob
from app.widgets.population_editor import PopulationEditor


CAPTION = ("Estimated share of records that are unique in the population, for every "
           "sampling fraction. Dashed line: the population model above.")


def unsolved_note(curves: list[pd.DataFrame]) -> str:
    """Names the estimators whose equations have no root at some fractions (their curves
    have gaps there)."""
    notes = []
    for name in ESTIMATOR_NAMES:
        frames = [f for f in curves if f is not None and name in f]
        if not frames:
            continue
        missing = max(int(f[name].isna().sum()) for f in frames)
        if missing:
            notes.append(f"{name} has no solution at {missing} of {len(frames[0])} "
                         "fractions (not drawn there).")
    return (" " + " ".join(notes)) if notes else ""


class UniquenessPlot(pg.PlotWidget):
    """Estimates against the sampling fraction (log x), with the model's fraction marked."""

    def __init__(self, parent=None):
        super().__init__(parent, background="#ffffff")
        self.setMenuEnabled(False)
        self.hideButtons()
        self.showGrid(x=True, y=True, alpha=0.2)
        self.setLogMode(x=True, y=False)
        self.setLabel("bottom", "sampling fraction")
        self.setLabel("left", "population uniques (%)")
        font = QFont()
        font.setPointSizeF(8)
        for axis in ("left", "bottom"):
            self.getAxis(axis).setTickFont(font)
            self.getAxis(axis).enableAutoSIPrefix(False)
        self.setYRange(0, 100, padding=0.02)
        self.setMinimumHeight(200)
        self.curves = {name: self.plot([], [], pen=pg.mkPen(CURVE_COLORS[name], width=2),
                                       name=name) for name in ESTIMATOR_NAMES}
        self.marker = pg.InfiniteLine(angle=90, pen=pg.mkPen(MUTED, width=1.2,
                                                             style=Qt.PenStyle.DashLine))
        self.addItem(self.marker)
        self.frame: pd.DataFrame | None = None

    def set_curves(self, frame: pd.DataFrame | None) -> None:
        self.frame = frame
        for name, curve in self.curves.items():
            if frame is None or name not in frame:
                curve.setData([], [])
                continue
            y = frame[name].to_numpy(dtype=float) * 100.0
            ok = np.isfinite(y)
            curve.setData(frame.index.to_numpy()[ok], y[ok])
            # a lone solution is no line: mark it
            curve.setSymbol("o" if ok.sum() == 1 else None)
            curve.setSymbolBrush(CURVE_COLORS[name])
            curve.setSymbolSize(6)
        if frame is not None and len(frame):
            self.set_span(float(frame.index.min()))

    def set_span(self, low: float) -> None:
        """Show sampling fractions from ``low`` to 1."""
        self.setXRange(math.log10(low), 0.0, padding=0.02)

    def set_fraction(self, fraction: float | None) -> None:
        self.marker.setVisible(fraction is not None)
        if fraction:
            self.marker.setValue(math.log10(fraction))


class UniquenessView(QWidget):
    """Signals: ``estimated(tuple)`` with the population uniques of input and output
    (None where unknown); ``population_changed(PopulationModel)``."""

    estimated = Signal(tuple)
    population_changed = Signal(object)

    def __init__(self, population: PopulationModel = PopulationModel(), parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 10, 10, 10)
        self.editor = PopulationEditor(population)
        lay.addWidget(self.editor)
        self.bar = RunBar("Estimate")
        lay.addWidget(self.bar)
        self.caption = muted_label(CAPTION)
        lay.addWidget(self.caption)
        legend = QHBoxLayout()
        for name in ESTIMATOR_NAMES:
            label = QLabel(f"<span style='color:{CURVE_COLORS[name]}'>━━</span> {name}")
            legend.addWidget(label)
        legend.addStretch(1)
        lay.addLayout(legend)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.plots, self.captions = input_and_output(split, UniquenessPlot)
        self.plots[1].setYLink(self.plots[0])
        lay.addWidget(split, 1)
        self.job = AnalysisJob(self.bar, self)
        self.job.succeeded.connect(self._estimated)
        self.bar.run_requested.connect(self.run)
        self.editor.model_changed.connect(self._population_changed)
        self.sides: list[RiskSide | None] = [None, None]
        self.found: dict = {}  # loaded by the first estimate's worker (scipy: 0.5 s)
        self.curves: list[pd.DataFrame | None] = [None, None]
        self.uniques: tuple = (None, None)
        self._estimating_curves = False

    @property
    def fraction(self) -> float:
        n = self.sides[0].sizes.n_records if self.sides[0] is not None else 1
        return self.editor.model().fraction(n)

    def set_estimators(self, found: dict) -> None:
        """Use these estimators (``name -> f(class_sizes, fraction)``)."""
        self.found = dict(found)

    def set_sides(self, before: RiskSide | None, after: RiskSide | None,
                  missing: str = "no output") -> None:
        """``missing``: the output side's caption when there is no output."""
        self.job.forget()
        self.sides = [before, after]
        self.curves, self.uniques = [None, None], (None, None)
        if before is not None:
            self.editor.set_records(before.sizes.n_records)
        for plot, caption, side in zip(self.plots, self.captions, self.sides):
            plot.set_curves(None)
            plot.set_fraction(self.fraction if side is not None else None)
            if side is not None:
                plot.set_span(float(sampling_fractions(before.sizes.n_records)[0]))
            caption.setText("" if side is not None else missing)
        self.bar.finish("")

    @property
    def has_curves(self) -> bool:
        return self.curves[0] is not None

    def auto_run(self) -> None:
        self.run()

    def run(self, curves: bool = True) -> None:
        """Estimate the uniques at the model's fraction and (once per data, unless
        ``curves`` is False) the curves."""
        if self.sides[0] is None:
            return
        sides = [s for s in self.sides if s is not None]
        fraction, given = self.fraction, dict(self.found)
        # a running curve estimate is not given up for a new population model
        curves = curves or (self.job.running and self._estimating_curves)
        need = curves and self.curves[0] is None
        self._estimating_curves = need
        grid = sampling_fractions(sides[0].sizes.n_records, fraction)  # one x for both
        grids = [grid] * len(sides)

        def task(report, cancelled):
            found = given or estimators()  # imported here, off the GUI thread
            if not need:
                return found, None, tuple(population_uniques(s, fraction, found)
                                          for s in sides)
            curves = uniqueness_curves(sides, grids, found, report, cancelled)
            name = DEFAULT_ESTIMATOR if DEFAULT_ESTIMATOR in found else next(iter(found))
            at = [float(c.loc[fraction, name]) for c in curves]  # the grid holds the fraction
            return found, curves, tuple(None if np.isnan(u) else u for u in at)

        self.job.start("Estimating population uniqueness…" if need else
                       "Estimating population uniques…", task)

    def _estimated(self, value) -> None:
        found, curves, uniques = value
        self.found = found
        if curves is not None:
            self.curves = list(curves) + [None] * (2 - len(curves))
            for plot, frame in zip(self.plots, self.curves):
                plot.set_curves(frame)
            values = np.concatenate([f.to_numpy(dtype=float).ravel() for f in curves])
            top = float(np.nanmax(values)) if np.isfinite(values).any() else 0.01
            self.plots[0].setYRange(0, max(top * 100 * 1.08, 1.0), padding=0)  # y is linked
            self.caption.setText(CAPTION + unsolved_note(curves))
        self.uniques = tuple(uniques) + (None,) * (2 - len(uniques))
        name = DEFAULT_ESTIMATOR if DEFAULT_ESTIMATOR in self.found else next(iter(self.found))
        for caption, side, u in zip(self.captions, self.sides, self.uniques):
            if side is not None:
                caption.setText(f"{name} at the model's fraction: {percent(u)} population "
                                f"uniques")
        self.estimated.emit(self.uniques)

    def _population_changed(self, model: PopulationModel) -> None:
        for plot, side in zip(self.plots, self.sides):
            plot.set_fraction(self.fraction if side is not None else None)
        self.population_changed.emit(model)
        if self.sides[0] is not None and (self.has_curves or self.uniques != (None, None)):
            self.run(curves=False)
