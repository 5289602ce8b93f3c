"""An editable hierarchy: one row per original value, one column per level."""
from __future__ import annotations

from PySide6.QtCore import (QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt,
                            Signal)
from PySide6.QtGui import QColor

_Index = QModelIndex | QPersistentModelIndex


class HierarchyModel(QAbstractTableModel):
    """Rows of labels; ``edited`` fires after every change made through the model."""

    edited = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list[list[str]] = []
        self._missing: set[str] = set()

    def rows(self) -> list[list[str]]:
        return [list(r) for r in self._rows]

    @property
    def levels(self) -> int:
        return max((len(r) for r in self._rows), default=0)

    def set_rows(self, rows: list[list[str]] | None) -> None:
        self.beginResetModel()
        self._rows = [list(r) for r in (rows or [])]
        self.endResetModel()

    def set_missing(self, values) -> None:
        """Values of the data the hierarchy lacks (marked when they appear)."""
        self._missing = set(values)

    def add_level(self, fill: str = "*") -> None:
        """Append a level; on an empty hierarchy, nothing (the editor seeds the values)."""
        if not self._rows:
            return
        col = self.levels
        self.beginInsertColumns(QModelIndex(), col, col)
        for r in self._rows:
            r.extend([""] * (col - len(r)) + [fill])
        self.endInsertColumns()
        self.edited.emit()

    def remove_level(self) -> None:
        """Remove the highest level (level 0, the values, stays)."""
        col = self.levels - 1
        if col < 1:
            return
        self.beginRemoveColumns(QModelIndex(), col, col)
        for r in self._rows:
            del r[col:]
        self.endRemoveColumns()
        self.edited.emit()

    def add_values(self, values: list[str]) -> None:
        """Append rows for values the hierarchy lacks, generalizing to '*'."""
        if not values:
            return
        width = max(self.levels, 1)
        start = len(self._rows)
        self.beginInsertRows(QModelIndex(), start, start + len(values) - 1)
        for v in values:
            self._rows.append([v] + ["*"] * (width - 1))
        self.endInsertRows()
        self.edited.emit()

    # --- Qt model interface ---------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self.levels

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        value = row[index.column()] if index.column() < len(row) else ""
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return value
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0 \
                and value in self._missing:
            return QColor("#c0392b")
        return None

    def setData(self, index: _Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        row = self._rows[index.row()]
        while len(row) <= index.column():
            row.append("")
        text = str(value)
        if row[index.column()] == text:
            return False
        row[index.column()] = text
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.DisplayRole,
                                             Qt.ItemDataRole.EditRole])
        self.edited.emit()
        return True

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | \
            Qt.ItemFlag.ItemIsEditable

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return f"Level {section}"
        return str(section + 1)
