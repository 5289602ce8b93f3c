"""HIPAA Safe Harbor identifiers found in the input and in the output."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QSplitter, QTableView,
                               QVBoxLayout, QWidget)

from engine.analysis.risk_comparison import RiskSide
from app.perspectives.risk.common import RunBar, input_and_output, muted_label
from app.perspectives.risk.jobs import AnalysisJob
from app.perspectives.risk.models import Column, FrameModel
from engine.analysis.hipaa import detect_identifiers, identifiers_frame

COLUMNS = (Column("attribute", "Attribute"), Column("category", "Category"),
           Column("source", "Matched by"), Column("reason", "Why"))


def identifier_table() -> tuple[QTableView, FrameModel]:
    model = FrameModel(COLUMNS)
    view = QTableView()
    view.setModel(model)
    view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setWordWrap(False)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(24)
    view.setAlternatingRowColors(True)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    for col, width in ((0, 150), (1, 330), (2, 100)):
        header.resizeSection(col, width)
    return view, model


class IdentifierView(QWidget):
    """Attribute, category and reason of every match, input beside output."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 10, 10, 10)
        lay.addWidget(muted_label(
            "Attributes that hold one of the 18 identifier categories of the HIPAA Safe "
            "Harbor method, found by their names and by a sample of their values. Remove "
            "or transform them before a release under Safe Harbor."))
        self.bar = RunBar("Detect")
        lay.addWidget(self.bar)
        split = QSplitter(Qt.Orientation.Vertical)  # full width for the reasons
        self.tables, self.captions = input_and_output(split, lambda: identifier_table()[0])
        self.models = [view.model() for view in self.tables]
        lay.addWidget(split, 1)
        self.job = AnalysisJob(self.bar, self)
        self.job.succeeded.connect(self._detected)
        self.bar.run_requested.connect(self.run)
        self.sides: list[RiskSide | None] = [None, None]

    def set_sides(self, before: RiskSide | None, after: RiskSide | None,
                  missing: str = "no output") -> None:
        """``missing``: the output side's caption when there is no output."""
        self.job.forget()
        self.sides = [before, after]
        for model, caption, side in zip(self.models, self.captions, self.sides):
            model.set_frame(None)
            caption.setText("" if side is not None else missing)
        self.bar.finish("")

    def auto_run(self) -> None:
        self.run()

    def run(self) -> None:
        sides = [s for s in self.sides if s is not None]
        if not sides:
            return
        data = [s.identifier_data for s in sides]  # out of core: read in the worker

        def task(report, cancelled):
            frames = []
            for d in data:
                if cancelled():
                    return None
                frames.append(identifiers_frame(detect_identifiers(d())))
            return frames

        self.job.start("Detecting identifiers…", task)

    def _detected(self, frames) -> None:
        if frames is None:
            return
        for model, caption, frame in zip(self.models, self.captions, frames):
            model.set_frame(frame)
            n = frame["attribute"].nunique()
            caption.setText(f"{n} attribute{'s' if n != 1 else ''} with identifiers"
                            if n else "no identifiers found")
