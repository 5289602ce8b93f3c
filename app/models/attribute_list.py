"""The attributes (columns) with their type, data type and hierarchy status."""
from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QIcon
from PySide6.QtWidgets import QApplication, QStyle

from app.document import Document
from app.person_role import person_of
from app.theme import TYPE_LABELS, type_icon

_Index = QModelIndex | QPersistentModelIndex
HEADERS = ("Attribute", "Type", "Data type", "Hierarchy")
WARNING_COLOR = "#b3261e"


def warning_icon() -> QIcon:
    return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)


class AttributeListModel(QAbstractTableModel):
    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.doc = document
        self._names: list[str] = []
        self._status: dict[str, tuple[str, str]] = {}
        self._reload()
        document.data_changed.connect(self._reload)
        document.attributes_changed.connect(self._changed)

    def names(self) -> list[str]:
        return list(self._names)

    def row_of(self, name: str) -> int:
        return self._names.index(name)

    def _reload(self) -> None:
        self.beginResetModel()
        self._names = list(self.doc.attributes) if self.doc.has_data else []
        self._status.clear()
        self.endResetModel()

    def _changed(self, names: list) -> None:
        if set(names) - set(self._names) or len(self._names) != len(self.doc.attributes):
            self._reload()
            return
        for n in names:
            self._status.pop(n, None)
            r = self._names.index(n)
            self.dataChanged.emit(self.index(r, 0), self.index(r, len(HEADERS) - 1))

    def _hierarchy_texts(self, name: str) -> tuple[str, str]:
        """The hierarchy column's text (short: the column stays narrow) and tooltip."""
        if name not in self._status:
            status = self.doc.hierarchy_status(name)
            short, full = status.short(), status.text()
            if status.unchecked:  # out of core: its values are counted in a worker
                self.doc.request_distinct([name])
            if self.doc.lacks_hierarchy(name) and short == "No hierarchy":
                short = full = "Needs a hierarchy"
            self._status[name] = (short, full)
        return self._status[name]

    def _hierarchy_text(self, name: str) -> str:
        return self._hierarchy_texts(name)[0]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._names)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(HEADERS)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        name = self._names[index.row()]
        a = self.doc.attributes[name]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return name
            if col == 1:  # the person column: its role (app/person_role.py)
                return "Person" if person_of(self.doc) == name else TYPE_LABELS[a.type]
            if col == 2:
                return a.data_type or "string"
            return self._hierarchy_text(name)
        if role == Qt.ItemDataRole.DecorationRole and col == 1:
            return type_icon(a.type)
        missing = self.doc.lacks_hierarchy(name)
        if role == Qt.ItemDataRole.DecorationRole and col == 0 and missing:
            return warning_icon()
        if role == Qt.ItemDataRole.ForegroundRole and col in (0, 3) and missing:
            return QBrush(QColor(WARNING_COLOR))
        if role == Qt.ItemDataRole.ToolTipRole and (col == 3 or missing):
            text = self._hierarchy_texts(name)[1]
            return (f"Quasi-identifier without a valid hierarchy ({text}): create or load "
                    f"one before anonymizing" if missing else text)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return HEADERS[section]
        return None
