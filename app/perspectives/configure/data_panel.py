"""Input data: the virtual table, its column pages and the research subset."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel,
                               QSpinBox, QTableView, QToolButton, QVBoxLayout, QWidget)

from app.document import Document
from app.models.column_sort import describe_sort, next_key
from app.models.data_table import DataTableModel
from app.perspectives.configure.subset_dialog import SubsetDialog, describe_subset
from app.widgets.pager import Pager


class DataPanel(QWidget):
    """Emits ``attribute_clicked`` when the user clicks a column."""

    attribute_clicked = Signal(str)

    def __init__(self, document: Document, page_size: int = 100, parent=None):
        super().__init__(parent)
        self.doc = document
        self.model = DataTableModel(document, page_size, self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        head = QHBoxLayout()
        title = QLabel("Input data")
        title.setObjectName("sectionTitle")
        head.addWidget(title)
        self.info = QLabel()
        self.info.setObjectName("mutedLabel")
        head.addWidget(self.info)
        head.addStretch()
        # the order shown (a click on a column header sorts by it, again: descending)
        self.sort_label = QLabel()
        self.sort_label.setObjectName("mutedLabel")
        head.addWidget(self.sort_label)
        self.clear_sort = QToolButton(text="Data order")
        self.clear_sort.setObjectName("dataOrder")
        self.clear_sort.setToolTip("Show the rows in the order of the data again")
        self.clear_sort.clicked.connect(lambda: self.model.sort_by(None))
        self.clear_sort.hide()
        head.addWidget(self.clear_sort)
        # out of core: rows in windows (DataTableModel.row_window), and a jump to any row
        self.row_pager = Pager("Rows")
        self.row_pager.page_requested.connect(
            lambda page: self.model.set_row_start(page * self.model.row_window))
        self.row_pager.hide()
        head.addWidget(self.row_pager)
        self.go_to = QSpinBox()
        self.go_to.setObjectName("goToRow")
        self.go_to.setPrefix("Row ")
        self.go_to.setToolTip("Show this row of the order shown (read from the file by "
                              "DuckDB; the row header gives each record's number in the "
                              "file)")
        self.go_to.setKeyboardTracking(False)
        self.go_to.setRange(1, 1)
        self.go_to.valueChanged.connect(self.go_to_row)
        self.go_to.hide()
        head.addWidget(self.go_to)
        self.pager = Pager("Columns")
        self.pager.page_requested.connect(self.model.set_page)
        head.addWidget(self.pager)
        self.subset_all = QToolButton(text="Select all rows")
        self.subset_none = QToolButton(text="Select none")
        self.subset_all.clicked.connect(lambda: self.doc.set_subset(None))
        self.subset_none.clicked.connect(self._select_none)
        self.subset_select = QToolButton(text="Select by…")
        self.subset_select.setObjectName("subsetSelect")
        self.subset_select.setToolTip("Select the research subset by a query, a file of row "
                                      "indices or a random sample")
        self.subset_select.clicked.connect(self.subset_dialog)
        head.addWidget(self.subset_all)
        head.addWidget(self.subset_none)
        head.addWidget(self.subset_select)
        lay.addLayout(head)
        self.view = QTableView()
        self.view.setObjectName("dataTable")
        self.view.setModel(self.model)
        # single cells only: selecting a whole column of a million rows costs seconds,
        # and with SingleSelection + SelectItems a header click selects nothing
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        vh = self.view.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(24)
        hh = self.view.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setDefaultSectionSize(120)
        hh.setHighlightSections(True)
        hh.sectionClicked.connect(self._column_clicked)
        lay.addWidget(self.view, 1)
        self.model.page_changed.connect(self._update_info)
        self.model.modelReset.connect(self._after_reset)
        document.subset_changed.connect(self._update_info)
        document.rows_counted.connect(self.model.rows_counted)
        document.rows_counted.connect(self._update_info)
        self.model.row_window_changed.connect(self._row_window_changed)
        self.model.rows.failed.connect(self._update_info)
        self.model.sort_changed.connect(self._sort_changed)
        self._after_reset()

    def _after_reset(self) -> None:
        self.view.setColumnWidth(0, 30)
        # out of core the subset is a query, not ticks: no column of boxes per row
        self.view.setColumnHidden(0, self.doc.out_of_core)
        self.fit_headers()
        self._update_info()
        self._sort_changed()

    def fit_headers(self) -> None:
        """Widen columns whose header (type mark and name) would be clipped; values may
        still be elided, a name never is."""
        hh = self.view.horizontalHeader()
        for col in range(1, self.model.columnCount()):
            need = hh.sectionSizeFromContents(col).width()
            if need > hh.sectionSize(col):
                self.view.setColumnWidth(col, need)

    def _select_none(self) -> None:
        if self.doc.table is not None:
            self.doc.set_subset(np.zeros(self.doc.table.n_rows, dtype=bool))

    def _update_info(self, *_) -> None:
        t = self.doc.table
        out = self.doc.out_of_core
        for button in (self.subset_all, self.subset_none):
            button.setVisible(not out)  # out of core the subset is a query (Select by…)
        if not out:
            self.row_pager.hide()
            self.go_to.hide()
        if out:
            data = self.doc.data
            how = describe_subset(self.doc.subset_spec)
            error = self.model.rows.error
            self.info.setText(data.describe(short=True)
                              + (f" · subset: {how}" if how else "")
                              + (f" · {error}" if error else ""))
            self.info.setToolTip(f"{data.path}: too big for memory (more than the memory "
                                 f"share in the settings), so DuckDB serves the rows shown "
                                 f"and the counts the search needs; the research subset is "
                                 f"selected by a query (Select by…)")
            self.pager.update_state(self.model.page, self.model.page_count,
                                    len(data.names), self.model.page_size)
            return
        if t is None:
            self.info.setText("")
            self.pager.update_state(0, 1, 0, 1)
            return
        n = t.n_rows
        inside = n if self.doc.subset is None else int(self.doc.subset.sum())
        how = describe_subset(self.doc.subset_spec)
        self.info.setText(f"{n:,} rows · {len(t.names):,} columns · "
                          f"research subset {inside:,} rows" + (f" ({how})" if how else ""))
        self.info.setToolTip(how)
        self.pager.update_state(self.model.page, self.model.page_count, len(t.names),
                                self.model.page_size)

    def go_to_row(self, row: int) -> None:
        """Out of core: show data row ``row`` (1-based), moving the window if needed."""
        if not self.doc.out_of_core or not self.doc.row_count:
            return
        row = max(1, min(int(row), self.doc.row_count))
        self.model.set_row_start(row - 1)
        index = self.model.index(row - 1 - self.model.row_start, 1)
        self.view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
        self.view.setCurrentIndex(index)

    def _row_window_changed(self, start: int, total: int) -> None:
        out = self.doc.out_of_core and total > 0
        size = self.model.row_window
        pages = -(-total // size) if total else 1
        self.row_pager.update_state(start // size, pages, total, size)
        self.row_pager.setVisible(out and pages > 1)
        self.go_to.setVisible(out)
        if out:
            self.go_to.blockSignals(True)
            self.go_to.setRange(1, total)
            self.go_to.blockSignals(False)

    def make_subset_dialog(self) -> SubsetDialog:
        """The subset dialog (tests drive it without ``exec``)."""
        return SubsetDialog(self.doc, self)

    def subset_dialog(self) -> None:
        if self.doc.has_data:
            self.make_subset_dialog().exec()

    def _column_clicked(self, column: int) -> None:
        name = self.model.attribute_at(column)
        if name:
            self.sort_by_header(name)
            self.attribute_clicked.emit(name)

    def sort_by_header(self, name: str) -> None:
        """A header click: sort by ``name`` ascending, or reverse the order when the rows
        are (being) sorted by it already."""
        self.model.sort_by(*next_key(self.model.sort_pending or self.model.sort, name))

    def _sort_changed(self) -> None:
        m = self.model
        shown, pending = m.sort, m.sort_pending
        hh = self.view.horizontalHeader()
        col = m.column_of(shown[0]) if shown else None
        hh.setSortIndicatorShown(col is not None)
        if col is not None:
            hh.setSortIndicator(col, Qt.SortOrder.AscendingOrder if shown[1]
                                else Qt.SortOrder.DescendingOrder)
        self.sort_label.setText(describe_sort(shown, pending, m.sort_error))
        self.sort_label.setToolTip("DuckDB writes the records in this order once, then "
                                   "reads the rows shown from it" if self.doc.out_of_core
                                   else "")
        self.clear_sort.setVisible(bool(shown or pending))

    def show_attribute(self, name: str) -> None:
        """Bring the column of ``name`` into view (switching page if needed)."""
        if name not in self.doc.column_names:
            return
        self.model.set_page(self.model.page_of(name))
        col = self.model.column_of(name)
        if col is not None:
            self.view.scrollTo(self.model.index(self.view.rowAt(0) if self.view.rowAt(0) >= 0
                                                else 0, col),
                               QAbstractItemView.ScrollHint.EnsureVisible)

    def set_page_size(self, size: int) -> None:
        self.model.set_page_size(size)
