"""The clipboard: candidate transformations kept with a comment, to compare and apply.

Its state is plain JSON-able data (``ClipboardModel.state``) so the project
file stores it and ``restore`` brings it back, with or without a result.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import (QAbstractTableModel, QItemSelectionModel, QModelIndex,
                            QPersistentModelIndex, Qt, Signal)
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QTableView, QToolButton, QVBoxLayout,
                               QWidget)

from app.perspectives.explore.text import format_percent, level_label

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class ClipboardEntry:
    """One kept transformation; ``levels`` are in the order of ``attributes``."""

    attributes: tuple[str, ...]
    levels: tuple[int, ...]
    comment: str = ""
    percent: float | None = None
    loss: object = None  # float, list (rank) or None, as JSON keeps it
    state: str = ""

    def to_dict(self) -> dict:
        return {"levels": dict(zip(self.attributes, self.levels)), "comment": self.comment,
                "information_loss": self.loss, "information_loss_percent": self.percent,
                "state": self.state}

    @classmethod
    def from_dict(cls, d: dict) -> "ClipboardEntry":
        levels = d["levels"]
        if not isinstance(levels, dict):
            raise ValueError("clipboard entry levels must map attributes to levels")
        pct = d.get("information_loss_percent")
        return cls(tuple(str(k) for k in levels), tuple(int(v) for v in levels.values()),
                   str(d.get("comment", "")), None if pct is None else float(pct),
                   d.get("information_loss"), str(d.get("state", "")))


class ClipboardModel(QAbstractTableModel):
    HEADERS = ("Transformation", "Loss", "State", "Comment")
    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.entries: list[ClipboardEntry] = []

    def state(self) -> list[dict]:
        return [e.to_dict() for e in self.entries]

    def restore(self, state: list[dict] | None) -> None:
        """Replace the entries by ``state`` (entries that cannot be read are skipped)."""
        entries = []
        for d in state or []:
            try:
                entries.append(ClipboardEntry.from_dict(d))
            except (KeyError, TypeError, ValueError):
                continue
        self.beginResetModel()
        self.entries = entries
        self.endResetModel()
        self.changed.emit()

    def find(self, levels) -> int:
        levels = tuple(int(v) for v in levels)
        return next((i for i, e in enumerate(self.entries) if e.levels == levels), -1)

    def add(self, entry: ClipboardEntry) -> int:
        """Append ``entry`` unless the transformation is kept already; returns its row."""
        row = self.find(entry.levels)
        if row >= 0:
            return row
        row = len(self.entries)
        self.beginInsertRows(QModelIndex(), row, row)
        self.entries.append(entry)
        self.endInsertRows()
        self.changed.emit()
        return row

    def remove(self, row: int) -> None:
        if 0 <= row < len(self.entries):
            self.beginRemoveRows(QModelIndex(), row, row)
            del self.entries[row]
            self.endRemoveRows()
            self.changed.emit()

    def move(self, row: int, delta: int) -> int:
        """Move an entry up (-1) or down (+1); returns its new row."""
        new = row + delta
        if not (0 <= row < len(self.entries) and 0 <= new < len(self.entries)):
            return row
        dest = new + 1 if delta > 0 else new  # Qt counts the destination before removal
        self.beginMoveRows(QModelIndex(), row, row, QModelIndex(), dest)
        self.entries.insert(new, self.entries.pop(row))
        self.endMoveRows()
        self.changed.emit()
        return new

    def sort_by_loss(self) -> None:
        self.layoutAboutToBeChanged.emit()
        old = list(self.entries)
        self.entries.sort(key=lambda e: (e.percent is None, e.percent or 0.0))
        where = {id(e): i for i, e in enumerate(self.entries)}
        for idx in self.persistentIndexList():
            new_row = where[id(old[idx.row()])]
            self.changePersistentIndex(idx, self.index(new_row, idx.column()))
        self.layoutChanged.emit()
        self.changed.emit()

    # --- Qt model ------------------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        f = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return f | Qt.ItemFlag.ItemIsEditable if index.column() == 3 else f

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        e = self.entries[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return (level_label(e.levels), format_percent(e.percent), e.state.replace("-", " "),
                    e.comment)[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            return ", ".join(f"{a} {v}" for a, v in zip(e.attributes, e.levels))
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def setData(self, index: _Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or index.column() != 3 or role != Qt.ItemDataRole.EditRole:
            return False
        row = index.row()
        self.entries[row] = replace(self.entries[row], comment=str(value))
        self.dataChanged.emit(index, index, [role])
        self.changed.emit()
        return True


class ClipboardPanel(QWidget):
    """Signals: ``apply_requested(levels)``, ``entry_selected(levels)``, ``add_requested()``."""

    apply_requested = Signal(tuple)
    entry_selected = Signal(tuple)
    add_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = ClipboardModel(self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        title = QLabel("Clipboard")
        title.setObjectName("sectionTitle")
        head.addWidget(title)
        head.addStretch()
        self.add_button = QPushButton("Keep selected")
        self.add_button.setToolTip("Keep the selected transformation here (with a comment)")
        self.add_button.clicked.connect(self.add_requested)
        head.addWidget(self.add_button)
        lay.addLayout(head)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        for col in range(3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        lay.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        self.up = QToolButton(text="↑", toolTip="Move up")
        self.down = QToolButton(text="↓", toolTip="Move down")
        self.sort = QToolButton(text="Sort by loss", toolTip="Order by information loss")
        self.remove = QToolButton(text="Remove", toolTip="Remove from the clipboard")
        self.apply = QPushButton("Apply")
        self.apply.setToolTip("Make this transformation the output")
        for b in (self.up, self.down, self.sort, self.remove):
            buttons.addWidget(b)
        buttons.addStretch()
        buttons.addWidget(self.apply)
        lay.addLayout(buttons)
        self.up.clicked.connect(lambda: self._move(-1))
        self.down.clicked.connect(lambda: self._move(1))
        self.sort.clicked.connect(self.model.sort_by_loss)
        self.remove.clicked.connect(lambda: self.model.remove(self.current_row()))
        self.apply.clicked.connect(self._apply)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        self.model.modelReset.connect(self._update_buttons)
        self.model.rowsInserted.connect(self._update_buttons)
        self.model.rowsRemoved.connect(self._update_buttons)
        self._update_buttons()

    def current_row(self) -> int:
        idx = self.table.selectionModel().currentIndex()
        return idx.row() if idx.isValid() else -1

    def select(self, row: int) -> None:
        if 0 <= row < self.model.rowCount():
            self.table.selectionModel().setCurrentIndex(
                self.model.index(row, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows)

    def _move(self, delta: int) -> None:
        row = self.current_row()
        if row >= 0:
            self.select(self.model.move(row, delta))

    def _apply(self) -> None:
        row = self.current_row()
        if row >= 0:
            self.apply_requested.emit(self.model.entries[row].levels)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._update_buttons()
        if current.isValid():
            self.entry_selected.emit(self.model.entries[current.row()].levels)

    def _update_buttons(self, *args) -> None:
        has = self.current_row() >= 0
        for b in (self.up, self.down, self.remove, self.apply):
            b.setEnabled(has)
        self.sort.setEnabled(self.model.rowCount() > 1)
