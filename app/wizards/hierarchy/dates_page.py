"""Dates: one calendar granularity per level, each with its display format."""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QVBoxLayout, QWidget

from app.wizards.hierarchy.base_page import BuilderPage
from app.wizards.hierarchy.widgets import CodingEditor, LevelRows, add_top_label
from engine.hierarchy.builders import GRANULARITIES, DateLevel, DateSpec
from engine.hierarchy.builders.dates import CHAIN, DEFAULT_FORMATS, follows

FORMAT_HELP = ("strftime codes (%Y year, %m month, %d day, %H hour, %A weekday, %V ISO "
               "week) and {quarter}, {start}, {end} for quarters and spans of years")


class DateLevelsEditor(LevelRows):
    """Rows ``Level n: granularity format``; "Add level" adds the next coarser one."""

    def editors(self, n: int, level: DateLevel) -> tuple[QComboBox, QLineEdit]:
        combo = QComboBox()
        combo.setObjectName(f"granularity{n}")
        combo.addItems(list(GRANULARITIES))
        combo.setCurrentText(level.granularity)
        fmt = QLineEdit(level.format)
        fmt.setObjectName(f"format{n}")
        fmt.setToolTip(FORMAT_HELP)

        def granularity_changed(name: str) -> None:
            fmt.setText(DEFAULT_FORMATS[name])  # the format of the old one rarely fits
            self.changed.emit()

        combo.currentTextChanged.connect(granularity_changed)
        fmt.textChanged.connect(self.changed)
        return combo, fmt

    def level_of(self, combo: QComboBox, fmt: QLineEdit) -> DateLevel:
        return DateLevel(combo.currentText(), fmt.text())

    def next_level(self) -> DateLevel:
        """The next granularity that can follow the current top one."""
        levels = self.row_levels()
        last = levels[-1].granularity if levels else None
        return DateLevel(next((g for g in CHAIN if last is None or follows(last, g)),
                              "millennium"))


class DatesPage(BuilderPage):
    builder = DateSpec
    subtitle = "Each level shows the calendar period holding a date, from fine to coarse."

    def options(self) -> QWidget:
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        title = QLabel("Levels")
        title.setObjectName("subTitle")
        lay.addWidget(title)
        self.levels = DateLevelsEditor()
        self.levels.setObjectName("levels")
        self.levels.changed.connect(self.changed)
        lay.addWidget(self.levels)
        help_text = QLabel(FORMAT_HELP)
        help_text.setObjectName("mutedLabel")
        help_text.setWordWrap(True)
        lay.addWidget(help_text)
        self.coding = CodingEditor()
        self.coding.changed.connect(self.changed)
        lay.addWidget(self.coding)
        self.top_label = add_top_label(lay)
        self.top_label.textChanged.connect(self.changed)
        return box

    def add_coarser_level(self) -> None:
        """Append the next granularity that can follow the current top one."""
        self.levels.add_next()

    def date_levels(self) -> list[DateLevel]:
        return self.levels.row_levels()

    def spec(self) -> DateSpec:
        bottom, top = self.coding.bounds()
        return DateSpec(self.wiz.data_type, self.date_levels(), bottom, top,
                        self.top_label.text())

    def fill(self, spec: DateSpec) -> None:  # type: ignore[override]
        self.levels.set_row_levels(list(spec.levels))
        self.coding.set_bounds(spec.bottom_coding, spec.top_coding)
        self.top_label.setText(spec.top_label)
