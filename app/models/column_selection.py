"""The import wizard's column list: include box, name (editable: the imported column's
name), data type, detected type; rows move up and down to reorder the columns.

Wide sources (1,000+ columns) are shown one page at a time.
"""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal

from app.models.paged_model import PagedModel
from engine.data.datatypes import DATA_TYPES, ColumnChoice

_Index = QModelIndex | QPersistentModelIndex
HEADERS = ("Column", "Data type", "Detected")


class ColumnSelectionModel(PagedModel):
    selection_changed = Signal()
    #: a rename was refused: the reason
    refused = Signal(str)

    def __init__(self, page_size: int = 100, parent=None):
        super().__init__(page_size, parent)
        self._items: list[ColumnChoice] = []

    # --- content and pages ---------------------------------------------------------------
    def set_columns(self, items: list[ColumnChoice]) -> None:
        self.beginResetModel()
        self._items = list(items)
        self._page = 0
        self.endResetModel()
        self.page_changed.emit(self._page, self.page_count)
        self.selection_changed.emit()

    def items(self) -> list[ColumnChoice]:
        return list(self._items)

    def paged_count(self) -> int:
        return len(self._items)

    def _item(self, row: int) -> ColumnChoice:
        return self._items[self._page * self._page_size + row]

    def set_all(self, include: bool) -> None:
        for it in self._items:
            it.include = include
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, 0))
        self.selection_changed.emit()

    def move(self, position: int, delta: int) -> int:
        """Move the column at ``position`` (over all pages) by ``delta``; its new position."""
        target = max(0, min(len(self._items) - 1, position + delta))
        if target != position:
            self.beginResetModel()
            self._items.insert(target, self._items.pop(position))
            self.endResetModel()
            self.selection_changed.emit()
        return target

    def rename(self, position: int, name: str) -> bool:
        """Import the column at ``position`` as ``name`` (unique, not empty)."""
        name = str(name).strip()
        it = self._items[position]
        if not name:
            self.refused.emit(f"'{it.source}' needs a name")
            return False
        if any(o is not it and o.name == name for o in self._items):
            self.refused.emit(f"another column is already called '{name}'")
            return False
        it.name = name
        self.refused.emit("")
        return True

    def included(self) -> list[ColumnChoice]:
        return [it for it in self._items if it.include]

    # --- Qt model interface -------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        if parent.isValid():
            return 0
        start = self._page * self._page_size
        return max(0, min(self._page_size, len(self._items) - start))

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        it = self._item(index.row())
        col = index.column()
        if col == 0:
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
                return it.name
            if role == Qt.ItemDataRole.ToolTipRole and it.name != it.source:
                return f"'{it.source}' in the source"
            if role == Qt.ItemDataRole.CheckStateRole:
                return Qt.CheckState.Checked if it.include else Qt.CheckState.Unchecked
        elif col == 1 and role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if role == Qt.ItemDataRole.DisplayRole and it.format:
                return f"{it.data_type} ({it.format})"
            return it.data_type
        elif col == 2:
            if role == Qt.ItemDataRole.DisplayRole:
                return f"{it.detected} ({it.share:.0%})"
            if role == Qt.ItemDataRole.ToolTipRole:
                return "\n".join(f"{t}{f' ({f})' if f else ''}: {s:.1%} of values match"
                                 for t, f, s in it.candidates) or None
        return None

    def setData(self, index: _Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid():
            return False
        it = self._item(index.row())
        if index.column() == 0 and role == Qt.ItemDataRole.CheckStateRole:
            it.include = Qt.CheckState(value) == Qt.CheckState.Checked
            self.dataChanged.emit(index, index, [role])
            self.selection_changed.emit()
            return True
        if index.column() == 0 and role == Qt.ItemDataRole.EditRole:
            ok = self.rename(self._page * self._page_size + index.row(), value)
            if ok:
                self.dataChanged.emit(index, index)
            return ok
        if index.column() == 1 and role == Qt.ItemDataRole.EditRole and value in DATA_TYPES:
            it.data_type = str(value)
            it.format = next((f for t, f, _ in it.candidates if t == value), None)
            self.dataChanged.emit(index, index)
            return True
        return False

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        f = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == 0:
            f |= Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEditable
        if index.column() == 1:
            f |= Qt.ItemFlag.ItemIsEditable
        return f

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return HEADERS[section]
        return str(self._page * self._page_size + section + 1)
