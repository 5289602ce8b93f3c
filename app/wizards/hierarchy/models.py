"""Item models of the hierarchy wizard: the hierarchy as a table, its groups as a tree.

Both read an immutable `Hierarchy`; an edit is a request (a signal) that the
editor page turns into a new hierarchy with `engine.hierarchy.editing`, then
hands back with ``set_hierarchy``.
"""
from __future__ import annotations

from PySide6.QtCore import (QAbstractItemModel, QAbstractTableModel, QByteArray, QMimeData,
                            QModelIndex, QPersistentModelIndex, Qt, Signal)
from PySide6.QtGui import QColor, QFont

from engine.hierarchy.model import Hierarchy

_Index = QModelIndex | QPersistentModelIndex
_DISPLAY, _EDIT = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole
MISSING_TEXT = "(missing)"
MIME_ITEMS = "application/x-anonymist-hierarchy-items"


def level_title(level: int, height: int) -> str:
    if level == 0:
        return "Values"
    return f"Level {level}" + (" (top)" if level == height and level > 0 else "")


class HierarchyTableModel(QAbstractTableModel):
    """One row per original value, one column per level, read on demand from the rows.

    With ``editable`` the cells of levels 1 and up can be edited; an edit emits
    ``label_edited(level, old, new)`` (renaming the label in every row is up to
    the listener) and leaves the model unchanged.
    """

    label_edited = Signal(int, str, str)

    def __init__(self, editable: bool = False, parent=None):
        super().__init__(parent)
        self._editable = editable
        self._hierarchy: Hierarchy | None = None
        self._rows: tuple[tuple[str, ...], ...] = ()
        self._uncovered: set[str] = set()

    def hierarchy(self) -> Hierarchy | None:
        return self._hierarchy

    def set_hierarchy(self, hierarchy: Hierarchy | None, uncovered=()) -> None:
        self.beginResetModel()
        self._hierarchy = hierarchy
        self._rows = hierarchy.rows if hierarchy is not None else ()
        self._uncovered = set(uncovered)
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() or not self._rows else len(self._rows[0])

    def data(self, index: _Index, role: int = _DISPLAY):
        if not index.isValid():
            return None
        text = self._rows[index.row()][index.column()]
        if role == _DISPLAY:
            return text if text else MISSING_TEXT
        if role == _EDIT:
            return text
        if role == Qt.ItemDataRole.ForegroundRole and not text:
            return QColor("#98a2b3")
        if role == Qt.ItemDataRole.FontRole and not text:
            font = QFont()
            font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 0 \
                and text in self._uncovered:
            return "This value is not in the data"
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if self._editable and index.column() > 0 and self._rows[index.row()][index.column()]:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def setData(self, index: _Index, value, role: int = _EDIT) -> bool:
        if not (index.isValid() and role == _EDIT and self._editable and index.column() > 0):
            return False
        old = self._rows[index.row()][index.column()]
        new = str(value).strip()
        if not old or not new or new == old:
            return False
        self.label_edited.emit(index.column(), old, new)
        return True

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY):
        if role != _DISPLAY:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return level_title(section, len(self._rows[0]) - 1 if self._rows else 0)
        return str(section + 1)


class GroupsModel(QAbstractItemModel):
    """The groups of one level as a two-level tree: each label of ``level``, and under
    it the labels of ``level - 1`` (the original values at level 1) it holds.

    Members can be dragged onto another group; a drop emits
    ``regroup_requested(level, [items], target)``.
    """

    regroup_requested = Signal(int, list, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._level = 0
        self._groups: list[str] = []
        self._members: list[list[str]] = []

    @property
    def level(self) -> int:
        return self._level

    def set_level(self, hierarchy: Hierarchy | None, level: int) -> None:
        self.beginResetModel()
        self._level, self._groups, self._members = level, [], []
        if hierarchy is not None and 1 <= level <= hierarchy.height:
            found: dict[str, dict[str, None]] = {}
            for r in hierarchy.rows:
                found.setdefault(r[level], {})[r[level - 1]] = None
            self._groups = list(found)
            self._members = [list(m) for m in found.values()]
        self.endResetModel()

    def groups(self) -> list[str]:
        return list(self._groups)

    def members(self, row: int) -> list[str]:
        return list(self._members[row])

    def item_of(self, index: _Index) -> tuple[str | None, str]:
        """``(group, member)`` of a member index, ``(None, group)`` of a group index."""
        if not index.isValid():
            return None, ""
        parent = index.internalId()
        if parent == 0:
            return None, self._groups[index.row()]
        return self._groups[parent - 1], self._members[parent - 1][index.row()]

    # --- tree structure: internalId 0 for groups, group row + 1 for members -------------
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, 0) if row < len(self._groups) else QModelIndex()
        if parent.internalId() != 0 or parent.row() >= len(self._groups):
            return QModelIndex()
        if row >= len(self._members[parent.row()]):
            return QModelIndex()
        return self.createIndex(row, 0, parent.row() + 1)

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, 0)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        if not parent.isValid():
            return len(self._groups)
        if parent.column() != 0 or parent.internalId() != 0:
            return 0
        return len(self._members[parent.row()])

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 1

    def data(self, index: _Index, role: int = _DISPLAY):
        if not index.isValid():
            return None
        group, text = self.item_of(index)
        if role == _DISPLAY:
            shown = text or MISSING_TEXT
            if group is None:
                return f"{shown}  ({len(self._members[index.row()])})"
            return shown
        if role == Qt.ItemDataRole.FontRole and group is None:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole and group is not None:
            return "Drag onto another group to move it there"
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY):
        if role == _DISPLAY and orientation == Qt.Orientation.Horizontal and section == 0:
            return f"Groups of level {self._level}" if self._level else "Groups"
        return None

    # --- drag and drop -------------------------------------------------------------------
    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        group, text = self.item_of(index)
        if group is None:
            return base | Qt.ItemFlag.ItemIsDropEnabled if text else base
        return base | Qt.ItemFlag.ItemIsDragEnabled if text else base

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [MIME_ITEMS]

    def mimeData(self, indexes) -> QMimeData:
        items = [self.item_of(i)[1] for i in indexes
                 if i.isValid() and self.item_of(i)[0] is not None]
        mime = QMimeData()
        mime.setData(MIME_ITEMS, QByteArray("\x1f".join(items).encode("utf-8")))
        return mime

    def canDropMimeData(self, data, action, row, column, parent: _Index) -> bool:
        return (data.hasFormat(MIME_ITEMS) and parent.isValid()
                and self.item_of(parent)[0] is None)

    def dropMimeData(self, data, action, row, column, parent: _Index) -> bool:
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        items = [s for s in bytes(data.data(MIME_ITEMS).data()).decode("utf-8").split("\x1f")
                 if s]
        target = self._groups[parent.row()]
        if items:
            self.regroup_requested.emit(self._level, items, target)
        return False  # the editor rebuilds the model; Qt must not remove the dragged rows
