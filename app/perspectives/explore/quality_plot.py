"""Best information loss found so far over time, fed by the search's progress reports."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.perspectives.explore.text import format_loss


def scalar_loss(loss) -> float | None:
    """A number to plot: the loss, or the mean of a rank aggregate's entries."""
    if loss is None:
        return None
    if isinstance(loss, (tuple, list, np.ndarray)):
        return float(np.mean(np.asarray(loss, dtype=float)))
    return float(loss)


#: the vertical axis while the search runs (its raw scores: the bounds that make them
#: percent are known at the end) and after it (percent, as every other view shows loss)
RAW_AXIS = "loss (score)"
PERCENT_AXIS = "loss (%)"


class QualityPlot(QWidget):
    """Keeps the curve of the last run until the next one begins."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        title = QLabel("Search progress")
        title.setObjectName("sectionTitle")
        lay.addWidget(title)
        self.caption = QLabel("Best information loss found so far, over time.")
        self.caption.setObjectName("mutedLabel")
        self.caption.setWordWrap(True)
        lay.addWidget(self.caption)
        self.plot = pg.PlotWidget(background="#ffffff")
        self.plot.setMenuEnabled(False)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setLabel("bottom", "elapsed", units="s")
        self.plot.setLabel("left", RAW_AXIS)
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.setMinimumHeight(120)
        self.curve = self.plot.plot([], [], pen=pg.mkPen("#2f6fd6", width=2))
        lay.addWidget(self.plot, 1)
        self.times: list[float] = []  # when the best loss improved
        self.losses: list[float] = []  # the improved best loss
        self._raw: list = []  # the same, as the engine reported it (rank: a tuple)
        self.percent = False  # losses drawn as the result's percent (after a run)
        self.percents: list[float] = []
        self.checked = 0
        self.last_time = 0.0

    def begin_run(self) -> None:
        self.times, self.losses, self.checked, self.last_time = [], [], 0, 0.0
        self._raw, self.percent, self.percents = [], False, []
        self.plot.setLabel("left", RAW_AXIS)
        self.curve.setData([], [])
        self.caption.setText("Searching…")

    def state(self) -> dict:
        """The curve as JSON (kept in the project: a reopened project shows it again)."""
        def plain(raw):
            return [float(x) for x in raw] if isinstance(raw, (tuple, list, np.ndarray)) \
                else float(raw)
        return {"times": [float(t) for t in self.times],
                "losses": [plain(r) for r in self._raw], "checked": int(self.checked),
                "last_time": float(self.last_time)}

    def restore(self, state: dict | None) -> None:
        """Show a curve saved by `state` (None: none); the result's `finish` closes it."""
        self.begin_run()
        self.caption.setText("Best information loss found so far, over time.")
        if not state:
            return
        raws = [tuple(r) if isinstance(r, list) else r for r in state.get("losses", [])]
        self.times = [float(t) for t in state.get("times", [])][:len(raws)]
        self._raw = raws[:len(self.times)]
        self.losses = [scalar_loss(r) for r in self._raw]
        self.checked = int(state.get("checked", 0))
        self.last_time = float(state.get("last_time", self.times[-1] if self.times else 0.0))
        self._redraw()

    def add_progress(self, progress) -> None:
        """Add an ``engine.search.Progress`` (reports without a best loss are counted only)."""
        self.checked = max(self.checked, int(getattr(progress, "checked", 0)))
        t = float(getattr(progress, "elapsed_s", 0.0))
        self.last_time = max(self.last_time, t)
        loss = scalar_loss(getattr(progress, "best_loss", None))
        if loss is None:
            return
        if not self.losses or loss < self.losses[-1]:
            self.times.append(t)
            self.losses.append(loss)
            self._raw.append(progress.best_loss)
        self._redraw()
        self.caption.setText(f"{self.checked:,} transformations checked, best loss (raw) "
                             f"{format_loss(progress.best_loss)} after {t:.1f} s")

    def finish(self, result) -> None:
        """Close the curve at the run's end with the result's optimum."""
        opt = getattr(result, "optimum", None)
        self.last_time = max(self.last_time, float(result.elapsed_s))
        if opt is None:
            self.caption.setText("No transformation meets the privacy models.")
            self._redraw()
            return
        loss = scalar_loss(opt.information_loss)
        if not self.losses or loss < self.losses[-1]:
            self.times.append(self.last_time)
            self.losses.append(loss)
            self._raw.append(opt.information_loss)
        self._to_percent(result)
        self._redraw()
        self.caption.setText(
            f"{result.transformations_checked:,} of {result.lattice_size:,} checked in "
            f"{result.elapsed_s:.2f} s; optimum loss {opt.information_loss_percent:.2f} %")

    def _to_percent(self, result) -> None:
        """Draw the curve in the result's percent (0 % the data as it is, 100 % everything
        generalized), the unit of the caption, the lattice and the other perspectives."""
        to_percent = getattr(result, "relative_percent", None)
        if to_percent is None or len(self._raw) != len(self.losses):
            return
        self.percents = [float(to_percent(raw)) for raw in self._raw]
        self.percent = True
        self.plot.setLabel("left", PERCENT_AXIS)

    def _redraw(self) -> None:
        # best-so-far is a step function: hold each value until the next improvement
        if not self.times:
            self.curve.setData([], [])
            return
        t = np.asarray(self.times + [max(self.last_time, self.times[-1])])
        values = self.percents if self.percent else self.losses
        v = np.asarray(values + [values[-1]])
        self.curve.setData(np.repeat(t, 2)[1:], np.repeat(v, 2)[:-1])
