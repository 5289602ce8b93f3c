"""Widgets shared by the wizard's pages: the options of the builder pages (label
functions, rows of levels, grouping levels, a value order and top/bottom coding; each
emits ``changed`` on every edit), the error label and the hierarchy table."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QAbstractItemModel, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFormLayout, QFrame,
                               QGridLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QListWidget,
                               QPushButton, QScrollArea, QTableView, QToolButton, QVBoxLayout,
                               QWidget)

from engine.hierarchy.builders import BuilderError, Group, Label

LABEL_TITLES = {
    "interval": "Interval [a, b[", "bounds": "Bounds [first, last]", "set": "Set {a, b, …}",
    "prefix": "Common prefix", "constant": "Constant text", "mean": "Arithmetic mean",
    "geometric_mean": "Geometric mean",
}


def error_label() -> QLabel:
    """A hidden, word-wrapped label for why a specification or an edit was refused."""
    label = QLabel()
    label.setObjectName("errorLabel")
    label.setWordWrap(True)
    label.hide()
    return label


def hierarchy_table(model: QAbstractItemModel, name: str) -> QTableView:
    """A hierarchy as a table, one column a level (the editor's and the preview's)."""
    table = QTableView()
    table.setObjectName(name)
    table.setModel(model)
    table.setAlternatingRowColors(True)
    table.verticalHeader().setDefaultSectionSize(22)
    header = table.horizontalHeader()
    header.setDefaultSectionSize(120)
    header.setStretchLastSection(True)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return table


def options_scroll(options: QWidget) -> QScrollArea:
    """``options`` at the top of a frameless scroll area showing the dialog's background."""
    scroll = QScrollArea()
    scroll.setObjectName("optionsScroll")
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setStyleSheet("QScrollArea#optionsScroll, QWidget#optionsHolder "
                         "{ background: transparent; }")
    holder = QWidget()
    holder.setObjectName("optionsHolder")
    inner = QVBoxLayout(holder)
    inner.setContentsMargins(0, 0, 8, 0)
    inner.addWidget(options)
    inner.addStretch()
    scroll.setWidget(holder)
    scroll.viewport().setAutoFillBackground(False)
    return scroll


def add_top_label(lay: QVBoxLayout) -> QLineEdit:
    """A "Top label" row at the end of ``lay``: the label of the last level ('*' at first)."""
    form = QFormLayout()
    edit = QLineEdit("*")
    edit.setObjectName("topLabel")
    form.addRow("Top label", edit)
    lay.addLayout(form)
    return edit


class LabelPicker(QWidget):
    """A label function and, for ``constant``, its text."""

    changed = Signal()

    def __init__(self, functions: Sequence[str], parent: QWidget | None = None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.function = QComboBox()
        self.function.setObjectName("labelFunction")
        for f in functions:
            self.function.addItem(LABEL_TITLES[f], f)
        self.text = QLineEdit()
        self.text.setObjectName("labelText")
        self.text.setPlaceholderText("label text")
        self.text.setVisible(False)
        lay.addWidget(self.function, 1)
        lay.addWidget(self.text, 1)
        self.function.currentIndexChanged.connect(self._function_changed)
        self.text.textChanged.connect(self.changed)

    def _function_changed(self) -> None:
        self.text.setVisible(self.function.currentData() == "constant")
        self.changed.emit()

    def label(self) -> Label:
        f = self.function.currentData()
        return Label(f, self.text.text().strip() if f == "constant" else "")

    def set_label(self, label: Label) -> None:
        blocked = self.blockSignals(True)
        i = self.function.findData(label.function)
        self.function.setCurrentIndex(max(i, 0))
        self.text.setText(label.text)
        self.text.setVisible(label.function == "constant")
        self.blockSignals(blocked)


def parse_sizes(text: str, level: int) -> list[int]:
    """``"2, 3"`` -> ``[2, 3]``; a `BuilderError` names the level."""
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    if not parts:
        raise BuilderError(f"level {level}: enter at least one group size")
    try:
        sizes = [int(p) for p in parts]
    except ValueError:
        raise BuilderError(f"level {level}: group sizes are whole numbers, like 2 or 2, 3") \
            from None
    if any(s < 1 for s in sizes):
        raise BuilderError(f"level {level}: a group holds at least 1 item")
    return sizes


class LevelRows(QWidget):
    """Numbered rows ``Level n  <editor> <editor>  ✕`` above an "Add level" button.

    A subclass makes a row's two editors for a level (`editors`, connecting their edits
    to ``changed``), reads a level back from them (`level_of`) and names the level the
    button adds (`next_level`). Adding or removing a row emits ``changed``.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.grid = QGridLayout()
        self.grid.setColumnStretch(1, 1)
        self.grid.setColumnStretch(2, 2)
        lay.addLayout(self.grid)
        self.rows: list[tuple[QLabel, QWidget, QWidget, QToolButton]] = []
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add level")
        self.add_button.setObjectName("addLevel")
        self.add_button.clicked.connect(self.add_next)
        buttons.addWidget(self.add_button)
        buttons.addStretch()
        lay.addLayout(buttons)

    # --- for subclasses --------------------------------------------------------------------
    def editors(self, n: int, level) -> tuple[QWidget, QWidget]:
        """The editors of level ``n`` (from 1) showing ``level``."""
        raise NotImplementedError

    def level_of(self, first: QWidget, second: QWidget):
        """The level a row's editors show."""
        raise NotImplementedError

    def next_level(self):
        """The level "Add level" appends."""
        raise NotImplementedError

    # --- rows --------------------------------------------------------------------------------
    def add_row(self, level) -> None:
        n = len(self.rows) + 1
        title = QLabel(f"Level {n}")
        first, second = self.editors(n, level)
        remove = QToolButton(text="✕")
        remove.setToolTip("Remove this level")
        row = (title, first, second, remove)
        self.rows.append(row)
        for col, w in enumerate(row):
            self.grid.addWidget(w, n - 1, col)
        remove.clicked.connect(lambda: self._remove(row))

    def add_next(self) -> None:
        self.add_row(self.next_level())
        self.changed.emit()

    def _remove(self, row) -> None:
        levels = self.row_levels()
        del levels[self.rows.index(row)]
        self.set_row_levels(levels)
        self.changed.emit()

    def row_levels(self) -> list:
        return [self.level_of(first, second) for _, first, second, _ in self.rows]

    def set_row_levels(self, levels: Sequence) -> None:
        for row in self.rows:
            for w in row:
                self.grid.removeWidget(w)
                w.deleteLater()
        self.rows = []
        for level in levels:
            self.add_row(level)


class LevelsEditor(LevelRows):
    """Grouping levels as rows ``Level n: sizes [label]``; one label per level."""

    def __init__(self, functions: Sequence[str], default: str = "set",
                 parent: QWidget | None = None):
        self._functions = list(functions)
        self._default = default
        super().__init__(parent)

    def editors(self, n: int, level: tuple[str, Label]) -> tuple[QLineEdit, LabelPicker]:
        text, label = level
        sizes_edit = QLineEdit(text)
        sizes_edit.setObjectName(f"levelSizes{n}")
        sizes_edit.setToolTip("Items of the level below per group; several sizes repeat "
                              "in turn (2, 3 groups 2 items, then 3, then 2, …)")
        picker = LabelPicker(self._functions)
        picker.setObjectName(f"levelLabel{n}")
        picker.set_label(label)
        sizes_edit.textChanged.connect(self.changed)
        picker.changed.connect(self.changed)
        return sizes_edit, picker

    def level_of(self, sizes_edit: QLineEdit, picker: LabelPicker) -> tuple[str, Label]:
        return sizes_edit.text(), picker.label()

    def next_level(self) -> tuple[str, Label]:
        return "2", Label(self._default)

    def levels(self) -> list[list[Group]]:
        """The levels as `Group` lists; raises `BuilderError` on invalid sizes."""
        return [[Group(s, label) for s in parse_sizes(text, i)]
                for i, (text, label) in enumerate(self.row_levels(), start=1)]

    def set_levels(self, levels: Sequence[Sequence[Group]]) -> None:
        """Fill from a specification; a level's label is its first group's."""
        self.set_row_levels([(", ".join(str(g.size) for g in lv), lv[0].label)
                             for lv in levels])


class ValueOrder(QWidget):
    """A user-defined order of values: drag to reorder, or move with the buttons."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.list = QListWidget()
        self.list.setObjectName("valueOrder")
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.model().rowsMoved.connect(self.changed)
        lay.addWidget(self.list, 1)
        side = QVBoxLayout()
        self.buttons = {}
        for key, text, step in (("top", "To top", -10**9), ("up", "Up", -1),
                                ("down", "Down", 1), ("bottom", "To bottom", 10**9)):
            b = QPushButton(text)
            b.clicked.connect(lambda _=False, s=step: self.move_selected(s))
            side.addWidget(b)
            self.buttons[key] = b
        side.addStretch()
        lay.addLayout(side)

    def set_values(self, values: Sequence[str]) -> None:
        self.list.clear()
        self.list.addItems(list(values))

    def values(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def move_selected(self, step: int) -> None:
        rows = sorted(self.list.row(i) for i in self.list.selectedItems())
        if not rows:
            return
        values = self.values()
        chosen = [values[r] for r in rows]
        rest = [v for i, v in enumerate(values) if i not in set(rows)]
        at = max(0, min(len(rest), rows[0] + step))
        new = rest[:at] + chosen + rest[at:]
        self.set_values(new)
        for r in range(at, at + len(chosen)):
            self.list.item(r).setSelected(True)
        self.changed.emit()


class CodingEditor(QWidget):
    """Optional bottom and top coding bounds (``None`` when unchecked)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        lay = QGridLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.bottom_check = QCheckBox("Bottom coding: below")
        self.bottom = QLineEdit()
        self.bottom.setObjectName("bottomCoding")
        self.top_check = QCheckBox("Top coding: from")
        self.top = QLineEdit()
        self.top.setObjectName("topCoding")
        for row, (check, edit, tip) in enumerate((
                (self.bottom_check, self.bottom, "Values below this bound get one label, <bound"),
                (self.top_check, self.top, "Values from this bound up get one label, >=bound"))):
            check.setToolTip(tip)
            edit.setEnabled(False)
            lay.addWidget(check, row, 0)
            lay.addWidget(edit, row, 1)
            check.toggled.connect(edit.setEnabled)
            check.toggled.connect(self.changed)
            edit.textChanged.connect(self.changed)
        lay.setColumnStretch(1, 1)

    def bounds(self) -> tuple[str | None, str | None]:
        def one(check: QCheckBox, edit: QLineEdit, what: str) -> str | None:
            if not check.isChecked():
                return None
            if not edit.text().strip():
                raise BuilderError(f"enter the {what} coding bound, or uncheck it")
            return edit.text().strip()
        return one(self.bottom_check, self.bottom, "bottom"), one(self.top_check, self.top, "top")

    def set_bounds(self, bottom: str | None, top: str | None) -> None:
        blocked = self.blockSignals(True)
        for check, edit, value in ((self.bottom_check, self.bottom, bottom),
                                   (self.top_check, self.top, top)):
            check.setChecked(value is not None)
            if value is not None:
                edit.setText(value)
        self.blockSignals(blocked)

