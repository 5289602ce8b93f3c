"""The job's privacy models as a list (each a job-file ``[[privacy]]`` dict)."""
from __future__ import annotations

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from app.document import Document
from app.widgets.model_dialog import describe_model

_Index = QModelIndex | QPersistentModelIndex


class PrivacyModelList(QAbstractListModel):
    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.doc = document
        self._items = [dict(p) for p in document.settings.privacy]
        document.settings_changed.connect(self._reload)

    def _reload(self) -> None:
        items = [dict(p) for p in self.doc.settings.privacy]
        if items != self._items:
            self.beginResetModel()
            self._items = items
            self.endResetModel()

    def item(self, row: int) -> dict:
        return dict(self._items[row])

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        item = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return describe_model(item)
        if role == Qt.ItemDataRole.ToolTipRole:
            return ", ".join(f"{k} = {v}" for k, v in item.items())
        return None
