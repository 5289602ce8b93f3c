"""Third page: which columns to import, in which order, under which names, and the data
type of each."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QStyledItemDelegate, QTableView, QVBoxLayout, QWizardPage)

from app.models.column_selection import ColumnSelectionModel
from app.widgets.pager import Pager
from engine.data.datatypes import DATA_TYPES, column_choices


class DataTypeDelegate(QStyledItemDelegate):
    def createEditor(self, parent, option, index):
        combo = QComboBox(parent)
        combo.addItems(DATA_TYPES)
        return combo

    def setEditorData(self, editor, index):
        editor.setCurrentText(index.data(Qt.ItemDataRole.EditRole))

    def setModelData(self, editor, model, index):
        model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)


class ColumnsPage(QWizardPage):
    def __init__(self, wizard, page_size: int = 100):
        super().__init__()
        self.wiz = wizard
        self.setTitle("Choose columns and data types")
        self.setSubTitle("Data types are detected from the first rows; change them if needed. "
                         "Double-click a name to rename the column; Up and Down reorder.")
        self.model = ColumnSelectionModel(page_size, self)
        lay = QVBoxLayout(self)
        row = QHBoxLayout()
        self.select_all = QPushButton("Select all")
        self.select_none = QPushButton("Select none")
        self.select_all.clicked.connect(lambda: self.model.set_all(True))
        self.select_none.clicked.connect(lambda: self.model.set_all(False))
        self.count = QLabel()
        self.count.setObjectName("mutedLabel")
        self.pager = Pager("Columns")
        self.pager.page_requested.connect(self.model.set_page)
        row.addWidget(self.select_all)
        row.addWidget(self.select_none)
        self.up = QPushButton("Up")
        self.up.setObjectName("columnUp")
        self.down = QPushButton("Down")
        self.down.setObjectName("columnDown")
        self.up.clicked.connect(lambda: self.move_selected(-1))
        self.down.clicked.connect(lambda: self.move_selected(1))
        row.addWidget(self.up)
        row.addWidget(self.down)
        row.addWidget(self.count)
        row.addStretch()
        row.addWidget(self.pager)
        lay.addLayout(row)
        self.view = QTableView()
        self.view.setObjectName("columnList")
        self.view.setModel(self.model)
        self.view.setItemDelegateForColumn(1, DataTypeDelegate(self.view))
        self.view.verticalHeader().setDefaultSectionSize(24)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        lay.addWidget(self.view, 1)
        self.refusal = QLabel()
        self.refusal.setStyleSheet("color: #b22222")
        lay.addWidget(self.refusal)
        self.model.refused.connect(self.refusal.setText)
        self.model.selection_changed.connect(self._update)
        self.model.page_changed.connect(lambda *_: self._update())

    def initializePage(self) -> None:
        frame = self.wiz.format_page.frame
        self.model.set_columns(column_choices(frame) if frame is not None else [])

    def move_selected(self, delta: int) -> None:
        """Move the selected column up (-1) or down (+1), keeping it selected."""
        index = self.view.currentIndex()
        if not index.isValid():
            return
        position = self.model.page * self.model._page_size + index.row()
        target = self.model.move(position, delta)
        page = target // self.model._page_size
        if page != self.model.page:
            self.model.set_page(page)
        self.view.setCurrentIndex(self.model.index(target % self.model._page_size,
                                                   index.column()))

    def _update(self) -> None:
        items = self.model.items()
        self.count.setText(f"{len(self.model.included()):,} of {len(items):,} columns selected")
        self.pager.update_state(self.model.page, self.model.page_count, len(items),
                                self.model._page_size)
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return bool(self.model.included())

    def nextId(self) -> int:
        return -1
