"""Dates: one calendar granularity per level, each with its display format."""
from __future__ import annotations

from PySide6.QtWidgets import (QComboBox, QGridLayout, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QToolButton, QVBoxLayout, QWidget)

from app.wizards.hierarchy.base_page import BuilderPage
from app.wizards.hierarchy.widgets import CodingEditor, add_top_label
from engine.hierarchy.builders import GRANULARITIES, DateLevel, DateSpec
from engine.hierarchy.builders.dates import CHAIN, DEFAULT_FORMATS, follows

FORMAT_HELP = ("strftime codes (%Y year, %m month, %d day, %H hour, %A weekday, %V ISO "
               "week) and {quarter}, {start}, {end} for quarters and spans of years")


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
        self.grid = QGridLayout()
        self.grid.setColumnStretch(1, 1)
        self.grid.setColumnStretch(2, 2)
        lay.addLayout(self.grid)
        self.rows: list[tuple[QLabel, QComboBox, QLineEdit, QToolButton]] = []
        buttons = QHBoxLayout()
        add = QPushButton("Add level")
        add.setObjectName("addLevel")
        add.clicked.connect(self.add_coarser_level)
        buttons.addWidget(add)
        buttons.addStretch()
        lay.addLayout(buttons)
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

    def _add_row(self, level: DateLevel) -> None:
        n = len(self.rows) + 1
        title = QLabel(f"Level {n}")
        combo = QComboBox()
        combo.setObjectName(f"granularity{n}")
        combo.addItems(list(GRANULARITIES))
        combo.setCurrentText(level.granularity)
        fmt = QLineEdit(level.format)
        fmt.setObjectName(f"format{n}")
        fmt.setToolTip(FORMAT_HELP)
        remove = QToolButton(text="✕")
        remove.setToolTip("Remove this level")
        row = (title, combo, fmt, remove)
        self.rows.append(row)
        for col, w in enumerate(row):
            self.grid.addWidget(w, n - 1, col)

        def granularity_changed(name: str) -> None:
            fmt.setText(DEFAULT_FORMATS[name])  # the format of the old one rarely fits
            self.changed()

        combo.currentTextChanged.connect(granularity_changed)
        fmt.textChanged.connect(self.changed)
        remove.clicked.connect(lambda: self._remove(row))

    def _set_rows(self, levels: list[DateLevel]) -> None:
        for row in self.rows:
            for w in row:
                self.grid.removeWidget(w)
                w.deleteLater()
        self.rows = []
        for level in levels:
            self._add_row(level)

    def _remove(self, row) -> None:
        levels = self.date_levels()
        del levels[self.rows.index(row)]
        self._set_rows(levels)
        self.changed()

    def add_coarser_level(self) -> None:
        """Append the next granularity that can follow the current top one."""
        levels = self.date_levels()
        last = levels[-1].granularity if levels else None
        nxt = next((g for g in CHAIN if last is None or follows(last, g)), "millennium")
        self._add_row(DateLevel(nxt))
        self.changed()

    def date_levels(self) -> list[DateLevel]:
        return [DateLevel(c.currentText(), f.text()) for _, c, f, _ in self.rows]

    def spec(self) -> DateSpec:
        bottom, top = self.coding.bounds()
        return DateSpec(self.wiz.data_type, self.date_levels(), bottom, top,
                        self.top_label.text())

    def fill(self, spec: DateSpec) -> None:  # type: ignore[override]
        self._set_rows(list(spec.levels))
        self.coding.set_bounds(spec.bottom_coding, spec.top_coding)
        self.top_label.setText(spec.top_label)
