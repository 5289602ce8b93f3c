"""Data quality per attribute and overall (``engine.analysis.quality``) as a table."""
from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.perspectives.utility.frame_model import FrameModel
from app.perspectives.utility.statistics_panel import StatusLine, small_table
from engine.analysis.quality import QualityReport

COLUMNS = {
    "missing": ("Missing / suppressed", "Share of records whose value is lost (suppressed "
                "or missing)."),
    "generalization_intensity": ("Generalization intensity", "Mean over records of level / "
                                 "height of the hierarchy level the released value is at."),
    "granularity": ("Granularity", "Mean over records of (leaves - 1) / (domain - 1): how "
                    "many original values a released value stands for (Iyengar's loss)."),
    "non_uniform_entropy": ("Non-uniform entropy", "H(input | output) / H(input): the share "
                            "of the attribute's information the output no longer tells."),
    "squared_error": ("Squared error", "Numbers and dates: squared distance of each value to "
                      "the bounds of its released interval, relative to the worst case."),
}


class Card(QFrame):
    """A number with a caption."""

    def __init__(self, caption: str, tooltip: str = "", parent=None):
        super().__init__(parent)
        self.setObjectName("resultCard")
        self.setToolTip(tooltip)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 8, 12, 8)
        lay.setSpacing(0)
        self.value = QLabel("–")
        self.value.setObjectName("cardValue")
        self.value.setStyleSheet("font-size: 14pt; font-weight: 600;")
        self.caption = QLabel(caption)
        self.caption.setObjectName("mutedLabel")
        lay.addWidget(self.value)
        lay.addWidget(self.caption)

    def set_value(self, text: str) -> None:
        self.value.setText(text)


class QualityPanel(QWidget):
    """Losses per quasi-identifier (0 = nothing lost, 100 % = all lost) and the
    class-based measures of the output."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 4)
        lay.setSpacing(8)
        cards = QHBoxLayout()
        cards.setSpacing(8)
        self.cards = {
            "classes": Card("equivalence classes", "Classes of the released records"),
            "average_class_size": Card("average class size",
                                       "Unsuppressed records per class"),
            "suppressed_records": Card("suppressed records",
                                       "Records removed because their class violates the "
                                       "privacy models"),
            "discernibility_normalized": Card(
                "discernibility (normalized)",
                "(DM - N) / (N² - N), DM = Σ|E|² + N · suppressed: 0 when every record is "
                "its own class, 100 % when all are in one class or suppressed"),
            "overall": Card("mean granularity loss",
                            "Granularity loss averaged over the quasi-identifiers"),
        }
        for card in self.cards.values():
            cards.addWidget(card)
        cards.addStretch()
        lay.addLayout(cards)
        self.model = FrameModel(self)
        self.table = small_table(self.model)
        lay.addWidget(self.table, 1)
        self.status = StatusLine("Losses per quasi-identifier: 0 % keeps all the input's "
                                 "information, 100 % keeps none. Hover a column for its "
                                 "definition.")
        lay.addWidget(self.status)

    def show_report(self, report: QualityReport) -> None:
        frame = report.to_frame()
        frame = frame[[c for c in COLUMNS if c in frame.columns]]
        frame = frame.rename(columns={k: v[0] for k, v in COLUMNS.items()})
        frame.index = [("Overall (mean)" if i == "(overall)" else i) for i in frame.index]
        tips = {v[0]: v[1] for v in COLUMNS.values()}
        self.model.set_frame(frame, {c: "percent" for c in frame.columns},
                             index_header="Attribute", tint=tuple(frame.columns),
                             tooltips=tips, bold_last=True)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        self.table.setColumnWidth(0, 170)
        # the measures share the width (fixed 185 px left a blank strip at the right)
        header.setMinimumSectionSize(150)
        for j in range(1, self.model.columnCount()):
            header.setSectionResizeMode(j, header.ResizeMode.Stretch)
        c = self.cards
        c["classes"].set_value(f"{report.classes:,}")
        c["average_class_size"].set_value(f"{report.average_class_size:,.1f}")
        c["suppressed_records"].set_value(f"{report.suppressed_records:,}")
        c["discernibility_normalized"].set_value(f"{100 * report.discernibility_normalized:.2f} %")
        c["overall"].set_value(f"{100 * report.overall.get('granularity', float('nan')):.2f} %")
        c["discernibility_normalized"].setToolTip(
            c["discernibility_normalized"].toolTip() + f"\nDM = {report.discernibility:,.0f}")
