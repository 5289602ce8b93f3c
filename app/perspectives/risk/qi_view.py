"""Quasi-identifier analysis: distinction and separation of attribute combinations, so
users see which attributes make records unique; input beside output."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel,
                               QListWidget, QListWidgetItem, QSpinBox, QSplitter,
                               QStyledItemDelegate, QTableView, QVBoxLayout, QWidget)

from engine.analysis.risk_comparison import RiskSide
from app.perspectives.risk.labels import percent
from app.perspectives.risk.common import Card, RunBar, input_and_output, muted_label
from app.perspectives.risk.jobs import AnalysisJob
from app.perspectives.risk.models import USER, Column, FrameModel
from app.theme import ACCENT
from engine.analysis.qi_analysis import (MAX_COMBINATIONS, WARN_COMBINATIONS,
                                         combination_warning, count_combinations, qi_analysis)

COLUMNS = (Column("attributes", "Attributes", lambda a: ", ".join(a)),
           Column("size", "Size", str, numeric=True),
           Column("distinction", "Distinction", percent, numeric=True),
           Column("separation", "Separation", percent, numeric=True))


class ShareBarDelegate(QStyledItemDelegate):
    """A pale bar of the cell's share (0..1) behind its text."""

    def paint(self, painter: QPainter, option, index) -> None:
        value = index.data(USER)
        if isinstance(value, (float, np.floating)) and np.isfinite(value):
            rect = QRectF(option.rect).adjusted(3, 4, -3, -4)
            rect.setWidth(rect.width() * max(0.0, min(1.0, float(value))))
            color = QColor(ACCENT)
            color.setAlpha(45)
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            painter.drawRoundedRect(rect, 3, 3)
            painter.restore()
        super().paint(painter, option, index)


def result_table(delegate: QStyledItemDelegate) -> tuple[QTableView, FrameModel]:
    model = FrameModel(COLUMNS)
    view = QTableView()
    view.setModel(model)
    view.horizontalHeader().setSortIndicator(3, Qt.SortOrder.DescendingOrder)  # as computed
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(24)
    view.setWordWrap(False)
    header = view.horizontalHeader()
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for col, width in ((1, 48), (2, 110), (3, 110)):
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
        header.resizeSection(col, width)
    for col in (2, 3):
        view.setItemDelegateForColumn(col, delegate)
    return view, model


class QIAnalysisView(QWidget):
    """Signals: ``analyzed()`` when results are shown, ``cancelled()``."""

    analyzed = Signal()
    cancelled = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 10, 10, 10)
        lay.setSpacing(10)
        side = Card("Attributes", "Combinations of the checked attributes are analyzed.")
        side.setFixedWidth(250)
        self.attributes = QListWidget()
        self.attributes.setObjectName("attributeChoice")
        self.attributes.itemChanged.connect(lambda _i: self._update_count())
        side.body.addWidget(self.attributes, 1)
        size_row = QHBoxLayout()
        size_row.addWidget(QLabel("Largest combination"))
        self.max_size = QSpinBox()
        self.max_size.setRange(1, 1)
        self.max_size.valueChanged.connect(lambda _v: self._update_count())
        size_row.addWidget(self.max_size)
        side.body.addLayout(size_row)
        self.count = muted_label()
        side.body.addWidget(self.count)
        self.warning = QLabel()
        self.warning.setObjectName("warningLabel")
        self.warning.setWordWrap(True)
        side.body.addWidget(self.warning)
        lay.addWidget(side)
        right = QVBoxLayout()
        right.addWidget(muted_label(
            "Distinction: distinct value combinations per record (100 %: every record is "
            "unique). Separation: share of record pairs told apart. Sorted by separation: "
            "the top rows identify records best."))
        self.bar = RunBar("Analyze")
        right.addWidget(self.bar)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.delegate = ShareBarDelegate(self)
        self.tables, self.captions = input_and_output(
            split, lambda: result_table(self.delegate)[0])
        self.models = [view.model() for view in self.tables]
        right.addWidget(split, 1)
        lay.addLayout(right, 1)
        for a, b in ((0, 1), (1, 0)):
            self.tables[a].selectionModel().currentRowChanged.connect(
                lambda cur, _prev, a=a, b=b: self._select_same(a, b, cur.row()))
        self.job = AnalysisJob(self.bar, self)
        self.job.succeeded.connect(self._analyzed)
        self.job.cancelled.connect(self.cancelled)
        self.bar.run_requested.connect(self.run)
        self.sides: list[RiskSide | None] = [None, None]

    # --- selection -----------------------------------------------------------------------
    def selected(self) -> list[str]:
        items = (self.attributes.item(i) for i in range(self.attributes.count()))
        return [it.text() for it in items if it.checkState() == Qt.CheckState.Checked]

    def set_selected(self, names, max_size: int | None = None) -> None:
        chosen = set(names)
        self.attributes.blockSignals(True)
        for i in range(self.attributes.count()):
            item = self.attributes.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in chosen
                               else Qt.CheckState.Unchecked)
        self.attributes.blockSignals(False)
        if max_size is not None:
            self.max_size.setValue(max_size)
        self._update_count()

    def combinations(self) -> int:
        return count_combinations(len(self.selected()), self.max_size.value())

    def _update_count(self) -> None:
        n = len(self.selected())
        self.max_size.setMaximum(max(1, n))
        total = self.combinations() if n else 0
        self.count.setText(f"{total:,} combination{'s' if total != 1 else ''}")
        warning = combination_warning(n, self.max_size.value()) if n else None
        if total > MAX_COMBINATIONS:
            warning = f"{total:,} combinations exceed the limit of {MAX_COMBINATIONS:,}."
        self.warning.setText(warning or "")
        self.warning.setVisible(bool(warning))
        self.bar.run.setEnabled(0 < total <= MAX_COMBINATIONS and not self.job.running)

    # --- data ----------------------------------------------------------------------------
    def set_sides(self, before: RiskSide | None, after: RiskSide | None,
                  missing: str = "no output") -> None:
        """``missing``: the output side's caption when there is no output."""
        self.job.forget()
        previous = set(self.selected())
        self.sides = [before, after]
        self.attributes.blockSignals(True)
        self.attributes.clear()
        if before is not None:
            chosen = previous & set(before.columns) or set(before.qis)
            for name in before.columns:
                item = QListWidgetItem(name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if name in chosen
                                   else Qt.CheckState.Unchecked)
                self.attributes.addItem(item)
        self.attributes.blockSignals(False)
        if not previous and before is not None:
            self.max_size.setMaximum(max(1, len(self.selected())))
            self.max_size.setValue(min(2, len(self.selected()) or 1))
        for model, caption, side in zip(self.models, self.captions, self.sides):
            model.set_frame(None)
            caption.setText("" if side is not None else missing)
        self._update_count()
        self.bar.finish("")

    def auto_run(self) -> None:
        """Run at once when the selection is small, else wait to be asked."""
        if self.sides[0] is None:
            return
        if 0 < self.combinations() <= WARN_COMBINATIONS:
            self.run()
        else:
            self.bar.finish("Choose attributes and press Analyze.")

    def run(self) -> None:
        names = self.selected()
        if self.sides[0] is None or not names or self.combinations() > MAX_COMBINATIONS:
            return
        top = self.max_size.value()
        jobs = [(s.data, [n for n in names if n in s.columns], s.kept_rows)
                for s in self.sides if s is not None]
        total = sum(count_combinations(len(a), top) for _, a, _ in jobs)

        def task(report, cancelled):
            out, offset = [], 0
            for data, attrs, rows in jobs:
                shift = offset
                out.append(qi_analysis(
                    data, attrs, top, rows, cancel=cancelled,
                    progress=lambda p, s=shift: report(replace(p, checked=p.checked + s,
                                                               total=total))).table)
                offset += count_combinations(len(attrs), top)
            return out

        self.job.start(f"Analyzing {self.combinations():,} combinations…", task)
        self.bar.run.setEnabled(False)

    def _select_same(self, source: int, target: int, row: int) -> None:
        """Select the same combination in the other table (sorted differently)."""
        if row < 0 or self.models[target].rowCount() == 0:
            return
        combo = self.models[source].row_values(row)["attributes"]
        model, view = self.models[target], self.tables[target]
        current = view.currentIndex().row()
        if current >= 0 and model.row_values(current)["attributes"] == combo:
            return
        for r in range(model.rowCount()):
            if model.row_values(r)["attributes"] == combo:
                view.selectRow(r)
                view.scrollTo(model.index(r, 0))
                return

    def _analyzed(self, tables) -> None:
        for model, caption, side, table in zip(self.models, self.captions, self.sides, tables):
            model.set_frame(table)
            rows = side.kept_records
            caption.setText(f"{len(table):,} combinations over {rows:,} records")
        self._update_count()
        self.analyzed.emit()
