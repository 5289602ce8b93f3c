"""Statistics of input beside output: distribution, contingency, summary statistics."""
from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QComboBox, QFrame, QHBoxLayout,
                               QHeaderView, QLabel, QSplitter, QStackedWidget, QTableView,
                               QToolButton, QVBoxLayout, QWidget)

from app.perspectives.utility.analysis import AttributeStatistics, ContingencyPair
from app.perspectives.utility.charts import (INPUT_COLOR, OUTPUT_COLOR, FrequencyChart,
                                             HeatMap)
from app.perspectives.utility.frame_model import FrameModel, fmt_number
from app.perspectives.utility.tables import segmented
from engine.analysis.statistics import SummaryStatistics


def small_table(model, stretch_last: bool = True) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(22)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    hh = view.horizontalHeader()
    hh.setStretchLastSection(stretch_last)
    hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    hh.setDefaultSectionSize(90)
    return view


def side_title(text: str, color: str) -> QLabel:
    label = QLabel(f"<span style='color:{color}'>■</span>&nbsp;{text}")
    label.setObjectName("subTitle")
    return label


class StatusLine(QLabel):
    """A muted line under a panel: computing…, errors, notes."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("mutedLabel")
        self.setWordWrap(True)


class _DistributionSide(QWidget):
    def __init__(self, title: str, color: str, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        head = QHBoxLayout()
        head.addWidget(side_title(title, color))
        self.caption = QLabel()
        self.caption.setObjectName("mutedLabel")
        head.addWidget(self.caption, 1)
        lay.addLayout(head)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.chart = FrequencyChart(color)
        self.model = FrameModel(self)
        self.table = small_table(self.model)
        split.addWidget(self.chart)
        split.addWidget(self.table)
        self.table.setMinimumWidth(240)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        lay.addWidget(split, 1)

    def show_frequencies(self, frame: pd.DataFrame, summary: SummaryStatistics) -> None:
        self.chart.set_frequencies(list(frame["value"]), frame["share"].to_numpy())
        self.model.set_frame(frame.rename(columns={"value": "Value", "count": "Count",
                                                   "share": "Share"}),
                             {"Value": "text", "Count": "count", "Share": "percent"})
        hh = self.table.horizontalHeader()
        hh.setStretchLastSection(False)
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for j, width in ((1, 72), (2, 72)):
            hh.setSectionResizeMode(j, QHeaderView.ResizeMode.Fixed)
            self.table.setColumnWidth(j, width)
        self.caption.setText(f"{summary.distinct:,} distinct · mode {summary.mode or '–'}")


class DistributionPanel(QWidget):
    """Frequency distribution of the selected attribute: bars and table, twice."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 4)
        lay.setSpacing(16)
        self.input = _DistributionSide("Input", INPUT_COLOR)
        self.output = _DistributionSide("Output", OUTPUT_COLOR)
        lay.addWidget(self.input, 1)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.VLine)
        line.setStyleSheet("color: #e3e7ed")
        lay.addWidget(line)
        lay.addWidget(self.output, 1)

    def show_statistics(self, s: AttributeStatistics) -> None:
        self.input.show_frequencies(s.input_frequencies, s.input_summary)
        self.output.show_frequencies(s.output_frequencies, s.output_summary)


SUMMARY_ROWS = (("scale", "Scale"), ("count", "Values"), ("missing", "Missing or suppressed"),
                ("distinct", "Distinct values"), ("mode", "Mode"), ("median", "Median"),
                ("minimum", "Minimum"), ("maximum", "Maximum"), ("mean", "Mean"),
                ("std", "Standard deviation"), ("q1", "1st quartile"), ("q3", "3rd quartile"),
                ("range", "Range"))


def summary_frame(a: SummaryStatistics, b: SummaryStatistics) -> pd.DataFrame:
    rows = [(label, fmt_number(getattr(a, key)), fmt_number(getattr(b, key)))
            for key, label in SUMMARY_ROWS]
    return pd.DataFrame(rows, columns=["Statistic", "Input", "Output"])


class SummaryPanel(QWidget):
    """Summary statistics at the scale the values allow, input beside output."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 4)
        self.model = FrameModel(self)
        self.table = small_table(self.model)
        hh = self.table.horizontalHeader()
        hh.setStretchLastSection(False)
        lay.addWidget(self.table, 1)
        self.note = StatusLine()
        lay.addWidget(self.note)

    def show_statistics(self, s: AttributeStatistics) -> None:
        self.model.set_frame(summary_frame(s.input_summary, s.output_summary),
                             {"Statistic": "text", "Input": "text", "Output": "text"})
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Fixed)
        self.table.setColumnWidth(0, 200)
        for j in (1, 2):
            hh.setSectionResizeMode(j, QHeaderView.ResizeMode.Stretch)
        notes = []
        if s.input_summary.note:
            notes.append(f"Input: {s.input_summary.note}.")
        if s.output_summary.note:
            notes.append(f"Output: {s.output_summary.note}.")
        notes.append("Statistics use the highest scale every released value supports; "
                     "missing and suppressed values are left out.")
        self.note.setText(" ".join(notes))


class _ContingencySide(QWidget):
    def __init__(self, title: str, color: str, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        lay.addWidget(side_title(title, color))
        self.stack = QStackedWidget()
        self.heat = HeatMap(color)
        self.model = FrameModel(self)
        self.table = small_table(self.model, stretch_last=False)
        self.table.horizontalHeader().setDefaultSectionSize(80)
        self.stack.addWidget(self.heat)
        self.stack.addWidget(self.table)
        lay.addWidget(self.stack, 1)

    def show_table(self, frame: pd.DataFrame, rows: str, columns: str) -> None:
        self.heat.set_table(frame.to_numpy(), [str(v) for v in frame.index],
                            [str(v) for v in frame.columns], (rows, columns))
        shown = frame.copy()
        shown.columns = [str(c) for c in shown.columns]
        label = f"{rows} \\ {columns}"
        self.model.set_frame(shown, {c: "count" for c in shown.columns}, index_header=label)
        self.table.setColumnWidth(0, 150)


class ContingencyPanel(QWidget):
    """Two attributes against each other: heat maps (or tables) of input and output.

    Signals
    -------
    attributes_changed(str, str)
        The user chose another pair (rows, columns).
    """

    attributes_changed = Signal(str, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 4)
        lay.setSpacing(6)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Rows"))
        self.rows = QComboBox()
        self.rows.setMinimumWidth(150)
        bar.addWidget(self.rows)
        bar.addWidget(QLabel("against columns"))
        self.columns = QComboBox()
        self.columns.setMinimumWidth(150)
        bar.addWidget(self.columns)
        bar.addSpacing(12)
        self.as_heat = QToolButton(text="Heat map")
        self.as_table = QToolButton(text="Table")
        self.mode = QButtonGroup(self)
        bar.addLayout(segmented(self.mode, (self.as_heat, self.as_table)))
        self.as_heat.setChecked(True)
        bar.addStretch()
        self.status = StatusLine()
        bar.addWidget(self.status)
        lay.addLayout(bar)
        sides = QHBoxLayout()
        sides.setSpacing(16)
        self.input = _ContingencySide("Input", INPUT_COLOR)
        self.output = _ContingencySide("Output", OUTPUT_COLOR)
        sides.addWidget(self.input, 1)
        sides.addWidget(self.output, 1)
        lay.addLayout(sides, 1)
        self.rows.currentTextChanged.connect(self._changed)
        self.columns.currentTextChanged.connect(self._changed)
        self.mode.idToggled.connect(lambda i, on: on and self._set_mode(i))
        self._filling = False

    def set_attributes(self, names: list[str], rows: str | None, columns: str | None) -> None:
        self._filling = True
        try:
            for combo, value in ((self.rows, rows), (self.columns, columns)):
                combo.clear()
                combo.addItems(names)
                if value in names:
                    combo.setCurrentText(value)
        finally:
            self._filling = False

    def pair(self) -> tuple[str, str] | None:
        r, c = self.rows.currentText(), self.columns.currentText()
        return (r, c) if r and c else None

    def _changed(self, _text: str) -> None:
        if not self._filling and self.pair():
            self.attributes_changed.emit(*self.pair())

    def _set_mode(self, i: int) -> None:
        for side in (self.input, self.output):
            side.stack.setCurrentIndex(i)

    def show_pair(self, p: ContingencyPair) -> None:
        self.input.show_table(p.input, p.rows, p.columns)
        self.output.show_table(p.output, p.rows, p.columns)
        self.status.setText("")
