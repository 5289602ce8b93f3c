"""Attacker models (prosecutor, journalist, marketer) and the risk overview, input beside
output, each figure green or red against the user's thresholds."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QGridLayout, QHBoxLayout, QHeaderView,
                               QLabel, QTableView, QVBoxLayout, QWidget)

from engine.analysis.risk_comparison import Thresholds
from app.perspectives.risk.labels import percent
from app.perspectives.risk.common import (BAR_OK, MUTED, BarPlot, Card, muted_label, set_state,
                                          state, title_label)
from app.perspectives.risk.models import OverviewModel
from engine.analysis.risk import RiskSummary


@dataclass(frozen=True)
class Figure:
    label: str
    value: Callable[[RiskSummary], float]
    limit: Callable[[Thresholds], float]
    tip: str


RECORDS = "Share of records whose risk is above the highest-risk threshold."
HIGHEST = "Risk of the records in the smallest equivalence class."
SUCCESS = "Expected share of records the attacker re-identifies."

def linking_figures(attacker: Callable[[RiskSummary], object]) -> tuple[Figure, ...]:
    """The figures of an attacker who targets records (``attacker(summary)``: its risks)."""
    return (Figure("Records at risk", lambda s: attacker(s).records_at_risk,
                   lambda t: t.records_at_risk, RECORDS),
            Figure("Highest risk", lambda s: attacker(s).highest_risk,
                   lambda t: t.highest_risk, HIGHEST),
            Figure("Success rate", lambda s: attacker(s).success_rate,
                   lambda t: t.success_rate, SUCCESS))


ATTACKERS: dict[str, tuple[str, tuple[Figure, ...]]] = {
    "Prosecutor": (
        "Knows that the target is in the data and links on the quasi-identifiers.",
        linking_figures(lambda s: s.prosecutor)),
    "Journalist": (
        "Links against a population register: the full table around a released "
        "research subset; without a subset, as the prosecutor.",
        linking_figures(lambda s: s.journalist)),
    "Marketer": (
        "Re-identifies as many records as possible, without a particular target.",
        (Figure("Success rate", lambda s: s.marketer, lambda t: t.success_rate, SUCCESS),)),
}


class AttackerCard(Card):
    """One attacker model: its figures for the input and the output."""

    def __init__(self, name: str, parent=None):
        caption, figures = ATTACKERS[name]
        super().__init__(name, caption, parent)
        self.figures = figures
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(6)
        for col, text in ((1, "Input"), (2, "Output")):
            head = muted_label(text, wrap=False)
            head.setAlignment(Qt.AlignmentFlag.AlignRight)
            grid.addWidget(head, 0, col)
        self.labels: list[tuple[QLabel, QLabel]] = []
        for row, f in enumerate(figures, start=1):
            name_label = QLabel(f.label)
            name_label.setToolTip(f.tip)
            grid.addWidget(name_label, row, 0)
            pair = []
            for col in (1, 2):
                value = QLabel("–")
                value.setObjectName("figure")
                value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                value.setMinimumWidth(84)
                grid.addWidget(value, row, col)
                pair.append(value)
            self.labels.append(tuple(pair))
        grid.setColumnStretch(0, 1)
        self.body.addLayout(grid)
        self.body.addStretch(1)

    def show_figures(self, summaries: list[RiskSummary | None], thresholds: Thresholds) -> None:
        for f, pair in zip(self.figures, self.labels):
            for s, label in zip(summaries, pair):
                value = None if s is None else f.value(s)
                label.setText(percent(value) if value is not None else "–")
                set_state(label, state(value, f.limit(thresholds)))


#: what the comparison chart shows: label, value of a summary
COMPARED = (("At risk", lambda s: s.prosecutor.records_at_risk),
            ("Highest", lambda s: s.highest_risk),
            ("Average", lambda s: s.average_risk),
            ("Marketer", lambda s: s.marketer),
            ("Sample uniq.", lambda s: s.sample_uniques),
            ("Pop. uniq.", lambda s: s.population_uniques))
INPUT_BAR = "#b8c2cf"


class ComparisonPlot(BarPlot):
    """Input and output side by side for the main figures (in %)."""

    def __init__(self, parent=None):
        super().__init__("%", parent=parent)
        self.getAxis("bottom").setTicks([[(i, t) for i, (t, _f) in enumerate(COMPARED)]])
        self.setXRange(-0.6, len(COMPARED) - 0.4, padding=0)
        self.setYRange(0, 100, padding=0.02)
        self.setMinimumHeight(160)
        self.bars = [pg.BarGraphItem(x=[], height=[], width=0.36, brush=color,
                                     pen=pg.mkPen(None)) for color in (INPUT_BAR, BAR_OK)]
        for bar in self.bars:
            self.addItem(bar)

    def set_summaries(self, summaries: list[RiskSummary | None]) -> None:
        x = np.arange(len(COMPARED), dtype=float)
        for offset, bar, s in zip((-0.19, 0.19), self.bars, summaries):
            values = [None if s is None else f(s) for _t, f in COMPARED]
            shown = [i for i, v in enumerate(values) if v is not None]
            bar.setOpts(x=x[shown] + offset, height=[values[i] * 100 for i in shown],
                        width=0.36)


class AttackerView(QWidget):
    """The three attacker models above the overview table."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 10, 10, 10)
        lay.setSpacing(10)
        lay.addWidget(muted_label(
            "Re-identification risk under three attacker models. Green: within the "
            "thresholds above; red: above them."))
        cards = QHBoxLayout()
        cards.setSpacing(10)
        self.cards = {name: AttackerCard(name) for name in ATTACKERS}
        for card in self.cards.values():
            cards.addWidget(card, 1)
        lay.addLayout(cards)
        bottom = QHBoxLayout()
        bottom.setSpacing(10)
        left = QVBoxLayout()
        left.addWidget(title_label("Overview"))
        self.model = OverviewModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
            header.resizeSection(col, 140)
        rows = self.model.rowCount()
        self.table.setFixedHeight(rows * 24 + header.sizeHint().height() + 4)
        self.table.setMinimumWidth(480)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        left.addWidget(self.table)
        left.addWidget(muted_label(
            "A record's risk is 1 / the size of its equivalence class (records with the "
            "same quasi-identifier values). Suppressed records are not released with their "
            "values and are not counted. Population uniques are estimated with the "
            "population model of the Population uniqueness tab."))
        left.addStretch(1)
        bottom.addLayout(left, 1)
        right = QVBoxLayout()
        right.addWidget(title_label("Input and output"))
        right.addWidget(muted_label(
            f"<span style='color:{INPUT_BAR}'>■</span> Input &nbsp; "
            f"<span style='color:{BAR_OK}'>■</span> Output &nbsp; "
            f"<span style='color:{MUTED}'>· at risk: prosecutor's records at risk; highest, "
            f"average: risk; marketer: success rate; uniques: sample and population</span>"))
        self.chart = ComparisonPlot()
        right.addWidget(self.chart, 1)
        bottom.addLayout(right, 1)
        lay.addLayout(bottom, 1)
        self.summaries: list[RiskSummary | None] = [None, None]
        self.thresholds = Thresholds()

    def set_summaries(self, before: RiskSummary | None, after: RiskSummary | None,
                      thresholds: Thresholds) -> None:
        self.summaries, self.thresholds = [before, after], thresholds
        self.model.set_summaries(before, after, thresholds)
        for card in self.cards.values():
            card.show_figures(self.summaries, thresholds)
        self.chart.set_summaries(self.summaries)
