"""Input and output side by side: one row order, one column page, scrolling in step.

Sorting by a column of either table sorts both (one shared permutation);
"Show equivalence classes" groups the rows by class and shades classes
alternately; "Research subset" shows only the subset's rows; suppressed
records are tinted red on both sides.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QCheckBox, QHBoxLayout,
                               QHeaderView, QLabel, QSplitter, QTableView, QToolButton,
                               QVBoxLayout, QWidget)

from app.perspectives.utility.output_view import class_rank, sort_keys
from app.perspectives.utility.row_order import RowOrder
from app.perspectives.utility.table_models import ComparisonTableModel
from app.widgets.pager import Pager
from engine.data.order import value_ranks
from engine.data.datatypes import DataType
from engine.data.table import EncodedTable
from engine.output import ReleasedTable

ROW_HEIGHT = 24
MIN_COLUMN_WIDTH, MAX_COLUMN_WIDTH = 70, 220


def segmented(group: QButtonGroup, buttons) -> QHBoxLayout:
    """Checkable buttons side by side as one segmented control (ids 0, 1, ...)."""
    row = QHBoxLayout()
    row.setSpacing(0)
    for i, b in enumerate(buttons):
        b.setCheckable(True)
        b.setObjectName("segmentLeft" if i == 0 else "segmentRight")
        group.addButton(b, i)
        row.addWidget(b)
    return row


class SideTable(QWidget):
    """A titled table of one side."""

    def __init__(self, title: str, model: ComparisonTableModel, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        head = QHBoxLayout()
        self.title = QLabel(title)
        self.title.setObjectName("subTitle")
        head.addWidget(self.title)
        self.caption = QLabel()
        self.caption.setObjectName("mutedLabel")
        head.addWidget(self.caption, 1)
        lay.addLayout(head)
        self.view = QTableView()
        self.view.setModel(model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        vh = self.view.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(ROW_HEIGHT)
        vh.setMinimumWidth(64)  # both sides equally wide, so columns line up
        hh = self.view.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setDefaultSectionSize(118)
        hh.setSortIndicatorShown(False)
        hh.setSectionsClickable(True)
        hh.setHighlightSections(False)
        lay.addWidget(self.view, 1)


class ComparisonTables(QWidget):
    """The two synchronized tables and their toolbar.

    Signals
    -------
    attribute_selected(str)
        The user selected a cell of this column (in either table).
    """

    attribute_selected = Signal(str)

    def __init__(self, page_size: int = 100, parent=None):
        super().__init__(parent)
        self.order = RowOrder(self)
        self.input_model = ComparisonTableModel(self.order, False, page_size, self)
        self.output_model = ComparisonTableModel(self.order, True, page_size, self)
        self._view: ReleasedTable | None = None
        self._table: EncodedTable | None = None
        self._data_types: dict[str, DataType] = {}
        self._sort: tuple[str, bool, bool] | None = None  # (attribute, output side, ascending)
        self._syncing = False
        self._build()
        self._connect()

    # --- construction ------------------------------------------------------------------
    def _build(self) -> None:
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        bar = QHBoxLayout()
        bar.setSpacing(8)
        self.classes_box = QCheckBox("Show equivalence classes")
        self.classes_box.setToolTip("Group the rows by equivalence class of the output and "
                                    "shade classes alternately")
        bar.addWidget(self.classes_box)
        bar.addSpacing(12)
        self.all_rows = QToolButton(text="All rows")
        self.subset_rows = QToolButton(text="Research subset")
        self.subset_rows.setToolTip("Show only the rows of the research subset")
        self.rows_group = QButtonGroup(self)
        bar.addLayout(segmented(self.rows_group, (self.all_rows, self.subset_rows)))
        self.all_rows.setChecked(True)
        self.sort_label = QLabel()
        self.sort_label.setObjectName("mutedLabel")
        bar.addSpacing(8)
        bar.addWidget(self.sort_label)
        self.clear_sort = QToolButton(text="Data order")
        self.clear_sort.setToolTip("Show the rows in the order of the data again")
        bar.addWidget(self.clear_sort)
        bar.addStretch()
        self.legend = QLabel("<span style='background:#fdecea;color:#b42318'>&nbsp;*&nbsp;"
                             "</span>&nbsp;suppressed&nbsp;&nbsp;<span style='color:#1d4fa3'>"
                             "generalized</span>")
        self.legend.setObjectName("mutedLabel")
        bar.addWidget(self.legend)
        bar.addSpacing(8)
        self.pager = Pager("Columns")
        bar.addWidget(self.pager)
        lay.addLayout(bar)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.input_side = SideTable("Input", self.input_model)
        self.output_side = SideTable("Output", self.output_model)
        self.splitter.addWidget(self.input_side)
        self.splitter.addWidget(self.output_side)
        self.splitter.setChildrenCollapsible(False)
        lay.addWidget(self.splitter, 1)
        self.input_view = self.input_side.view
        self.output_view = self.output_side.view
        self.input_view.setObjectName("utilityInputTable")
        self.output_view.setObjectName("utilityOutputTable")
        self._update_controls()

    def _connect(self) -> None:
        a, b = self.input_view, self.output_view
        for one, other in ((a, b), (b, a)):
            one.verticalScrollBar().valueChanged.connect(other.verticalScrollBar().setValue)
            one.horizontalScrollBar().valueChanged.connect(
                other.horizontalScrollBar().setValue)
            one.horizontalHeader().sectionResized.connect(
                lambda i, _old, new, o=other: o.horizontalHeader().resizeSection(i, new)
                if o.horizontalHeader().sectionSize(i) != new else None)
            one.horizontalHeader().sectionClicked.connect(
                lambda c, m=one.model(): self._header_clicked(m, c))
            one.selectionModel().currentChanged.connect(
                lambda cur, _prev, o=other: self._current_changed(cur, o))
        self.classes_box.toggled.connect(self.set_show_classes)
        self.rows_group.idToggled.connect(
            lambda i, on: on and self.order.set_subset_only(i == 1))
        self.clear_sort.clicked.connect(lambda: self.sort_by(None))
        self.pager.page_requested.connect(self.set_page)
        self.input_model.page_changed.connect(self._page_changed)
        self.order.changed.connect(self._update_controls)

    # --- data ------------------------------------------------------------------------------
    def set_data(self, table: EncodedTable | None, view: ReleasedTable | None,
                 subset: np.ndarray | None, types: dict[str, str] | None = None,
                 data_types: dict[str, DataType] | None = None) -> None:
        """Show ``table`` beside the output ``view`` (None: no output). Sorting, paging
        and the class shading stay as they were."""
        same_rows = self._table is not None and table is not None and \
            self._table.n_rows == table.n_rows
        subset_only = self.order.subset_only
        self._table, self._view = table, view
        self._data_types = dict(data_types or {})
        self.input_model.set_source(table, view, types, self._data_types)
        self.output_model.set_source(table, view, types, self._data_types)
        self.order.reset(0 if table is None else table.n_rows, subset)
        if subset_only and same_rows:
            self.order.set_subset_only(True)
        if self._sort is not None and (table is None or self._sort[0] not in table):
            self._sort = None
        self._apply_order()
        self.fit_columns()
        self.input_side.caption.setText(
            "" if table is None else f"{table.n_rows:,} records")
        self._update_output_caption()
        self._update_controls()

    def _update_output_caption(self) -> None:
        v = self._view
        if v is None:
            self.output_side.caption.setText("no output: no transformation meets the "
                                             "privacy models" if self._table else "")
            return
        self.output_side.caption.setText(
            f"{v.released_classes:,} classes · {v.suppressed_records:,} suppressed")

    # --- ordering ----------------------------------------------------------------------------
    def sort_by(self, attribute: str | None, output: bool = False,
                ascending: bool = True) -> None:
        """Sort both tables by ``attribute`` of the input (or output); None: data order."""
        self._sort = None if attribute is None else (attribute, bool(output), bool(ascending))
        self._apply_order()

    def set_show_classes(self, on: bool) -> None:
        if self.classes_box.isChecked() != on:
            self.classes_box.setChecked(on)  # comes back here through toggled
            return
        for m in (self.input_model, self.output_model):
            m.set_show_classes(on)
        for v in (self.input_view, self.output_view):
            v.setAlternatingRowColors(not on)
        self._apply_order()

    @property
    def show_classes(self) -> bool:
        return self.classes_box.isChecked()

    def _apply_order(self) -> None:
        """Compute the shared permutation: by the sort column, then (when classes are
        shown) by class, so that each class's rows are contiguous."""
        table, view = self._table, self._view
        if table is None:
            return
        keys = []
        classes = self.show_classes and view is not None
        if classes:
            keys.append(class_rank(view, self._data_types)[view.row_classes()])
        if self._sort is not None:
            name, output, ascending = self._sort
            if output and view is None:
                output = False
            k = self._sort_keys(name, output)
            keys.append(k if ascending else -k.astype(np.int64))
        if not keys:
            perm = None
        elif len(keys) == 1:
            perm = np.argsort(keys[0], kind="stable")
        else:
            perm = np.lexsort(keys)  # the last key is the primary one
        self.order.set_permutation(perm)
        self._update_sort_indicators()

    def _sort_keys(self, name: str, output: bool) -> np.ndarray:
        dtype = self._data_types.get(name)
        if self._view is not None:
            return sort_keys(self._view, name, output, dtype)
        col = self._table.column(name)
        return value_ranks(col.dictionary, dtype)[col.codes]

    def _header_clicked(self, model: ComparisonTableModel, column: int) -> None:
        name = model.attribute_at(column)
        if name is None:
            return
        ascending = True
        if self._sort is not None and self._sort[0] == name and self._sort[1] == model.output:
            ascending = not self._sort[2]
        self.sort_by(name, model.output, ascending)

    def _update_sort_indicators(self) -> None:
        for v in (self.input_view, self.output_view):
            hh = v.horizontalHeader()
            col = self.input_model.column_of(self._sort[0]) if self._sort else None
            hh.setSortIndicatorShown(col is not None)
            if col is not None:
                hh.setSortIndicator(col, Qt.SortOrder.AscendingOrder if self._sort[2]
                                    else Qt.SortOrder.DescendingOrder)

    # --- paging and selection ------------------------------------------------------------------
    def set_page(self, page: int) -> None:
        self.input_model.set_page(page)
        self.output_model.set_page(page)

    def set_page_size(self, size: int) -> None:
        self.input_model.set_page_size(size)
        self.output_model.set_page_size(size)

    def _page_changed(self, page: int, count: int) -> None:
        self.pager.update_state(page, count, len(self.input_model.names),
                                self.input_model.page_size)
        self._update_sort_indicators()
        self.fit_columns()

    def fit_columns(self, sample_rows: int = 40) -> None:
        """Size each column to its header and the first rows of both sides (the same
        width on both sides, so the columns line up)."""
        fm = self.input_view.fontMetrics()
        bold = self.input_view.horizontalHeader().font()
        bold.setBold(True)
        hfm = QFontMetrics(bold)
        rows = min(sample_rows, self.input_model.rowCount())
        for col in range(self.input_model.columnCount()):
            name = self.input_model.attribute_at(col) or ""
            width = hfm.horizontalAdvance(name) + 46  # type dot and sort arrow
            for model in (self.input_model, self.output_model):
                if col < model.columnCount():
                    for row in range(rows):
                        width = max(width, fm.horizontalAdvance(model.text(row, col)) + 16)
            width = max(MIN_COLUMN_WIDTH, min(MAX_COLUMN_WIDTH, width))
            for view in (self.input_view, self.output_view):
                view.horizontalHeader().resizeSection(col, width)

    def _current_changed(self, current: QModelIndex, other: QTableView) -> None:
        if self._syncing or not current.isValid():
            return
        self._syncing = True
        try:
            target = other.model().index(current.row(), current.column())
            if target.isValid() and other.currentIndex() != target:
                other.selectionModel().setCurrentIndex(
                    target, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        finally:
            self._syncing = False
        name = self.input_model.attribute_at(current.column())
        if name:
            self.attribute_selected.emit(name)

    def show_attribute(self, name: str) -> None:
        """Turn to the page of column ``name``."""
        if self._table is not None and name in self._table:
            self.set_page(self.input_model.page_of(name))

    def _update_controls(self) -> None:
        has_subset = self.order.has_subset
        self.subset_rows.setEnabled(has_subset)
        self.subset_rows.setToolTip(
            f"Show only the {self.order.subset_size():,} rows of the research subset"
            if has_subset else "The job has no research subset")
        if not self.order.subset_only:
            self.all_rows.setChecked(True)
        if self._sort is None:
            text = "Grouped by class" if self.show_classes else ""
        else:
            name, output, ascending = self._sort
            text = (f"Sorted by {name} ({'output' if output else 'input'}, "
                    f"{'ascending' if ascending else 'descending'})")
            if self.show_classes:
                text += ", then class"
        self.sort_label.setText(text)
        self.clear_sort.setVisible(self._sort is not None)
