"""The input data as a virtual table: reads the engine's encoded columns on demand.

Column 0 holds the research-subset checkbox of each row; the other columns are
one page of the table's columns (``page_size`` per page, as ARX paginates wide
data). Nothing of the table is copied: ``data()`` looks the code up in the
column's dictionary. Out of core (``Document.data`` read by queries) rows come in
blocks from DuckDB queries (``app.models.row_blocks``), fetched in a worker
when the view first shows them ("…" until they arrive); the subset column is
then read-only (the research subset is selected by a query).

Sorting (``sort_by``, a click on a column header): in memory a permutation of the
rows by the column's display order (``value_ranks``, as Analyze utility sorts);
out of core ``OutOfCoreData.sort`` writes the records in that order once (DuckDB,
in a worker) and the blocks are read from that copy, so the Rows pager and the
``Row N`` box move through the sorted order. Ties stay in file order; the row
header shows each record's number in the file.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal

from app.document import Document
from app.models.column_sort import ColumnSort
from app.models.paged_model import PagedModel
from app.models.row_blocks import RowBlocks
from app.theme import TYPE_LABELS, type_icon
from engine.data.order import display_type, value_ranks
from engine.hierarchy.builders.base import declared_type

_Index = QModelIndex | QPersistentModelIndex
SUBSET_COLUMN = 0
# flags() runs for every visible cell: build the values once, not per call
_CELL_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_CHECK_FLAGS = _CELL_FLAGS | Qt.ItemFlag.ItemIsUserCheckable
PENDING = "…"
#: out of core, the view shows this many rows at a time (a window moved by the Rows
#: pager): a view of ten million rows would keep one header section per row
ROW_WINDOW = 100_000


class DataTableModel(PagedModel):
    """Rows of the document's table; columns of the current page plus the subset box."""

    #: out of core: the row window moved (first row shown, rows in the data)
    row_window_changed = Signal(int, int)
    #: the sort shown or asked for changed (``sort``, ``sort_pending``, ``sort_error``)
    sort_changed = Signal()
    row_window = ROW_WINDOW

    def __init__(self, document: Document, page_size: int = 100, parent=None):
        super().__init__(page_size, parent)
        self.doc = document
        self._columns: list = []
        self._names: list[str] = []
        #: out of core: the rows the view knows of (the first block until counted;
        #: changed on the GUI thread only, with the view told)
        self._ooc_rows = 0
        self.row_start = 0  # out of core: the data row shown as the first model row
        self._memory_sort: tuple[str, bool] | None = None  # in memory: the order shown
        self._permutation: np.ndarray | None = None  # in memory: row -> data row
        #: out of core: the order DuckDB writes and the rows are read in
        self.sorter = ColumnSort(self)
        self.sorter.set_data(self._queried())
        self.sorter.applied.connect(self._show_order)
        self.sorter.changed.connect(self.sort_changed)
        self.rows = RowBlocks(self._fetch_rows, self)
        self.rows.arrived.connect(self._rows_arrived)
        self._load_page()
        document.data_changed.connect(self._reset)
        document.attributes_changed.connect(self._attributes_changed)
        document.subset_changed.connect(self._subset_changed)

    def _queried(self):
        """The document's data when its rows are read by queries (pages, orders), else
        None (in memory the model reads the table's columns)."""
        return self.doc.data if self.doc.out_of_core else None

    # --- paging -----------------------------------------------------------------------
    def paged_count(self) -> int:
        return len(self.doc.column_names)

    def page_of(self, name: str) -> int:
        return self.page_at(self.doc.column_names.index(name))

    def column_of(self, name: str) -> int | None:
        """The model column showing attribute ``name`` on the current page, if any."""
        for j, n in enumerate(self._names):
            if n == name:
                return j + 1
        return None

    def attribute_at(self, column: int) -> str | None:
        if 1 <= column <= len(self._names):
            return self._names[column - 1]
        return None

    def _load_page(self) -> None:
        names = self.doc.column_names
        self._names = names[self._page * self._page_size:(self._page + 1) * self._page_size]
        t = self.doc.table
        self._columns = [t.column(n) for n in self._names] if t is not None else []

    def _reset(self) -> None:
        self.beginResetModel()
        self._page = 0
        self.rows.clear()
        self.row_start = 0
        self.sorter.set_data(self._queried())  # the data's order again
        self._memory_sort = self._permutation = None
        self._ooc_rows = self._known_rows()
        self._load_page()
        self.endResetModel()
        self.page_changed.emit(self._page, self.page_count)

    def _known_rows(self) -> int:
        """Model rows out of core: the window's share of the rows (the first block
        until they are counted)."""
        data = self._queried()
        if data is None:
            return 0
        n = data.n_rows if data.n_rows is not None else self.rows.block_rows
        return max(0, min(self.row_window, n - self.row_start))

    def set_row_start(self, row: int) -> None:
        """Out of core: show the window of rows holding data row ``row``."""
        n = self.doc.row_count or 0
        start = max(0, min(int(row), max(n - 1, 0))) // self.row_window * self.row_window
        if start != self.row_start:
            self.beginResetModel()
            self.row_start = start
            self._ooc_rows = self._known_rows()
            self.endResetModel()
        self.row_window_changed.emit(self.row_start, n)

    def rows_counted(self) -> None:
        """The out-of-core row count became known: the rows after the first block are
        added (the view keeps its place)."""
        new, old = self._known_rows(), self._ooc_rows
        if new > old:
            self.beginInsertRows(QModelIndex(), old, new - 1)
            self._ooc_rows = new
            self.endInsertRows()
        elif new < old:
            self.beginRemoveRows(QModelIndex(), new, old - 1)
            self._ooc_rows = new
            self.endRemoveRows()
        self.row_window_changed.emit(self.row_start, self.doc.row_count or 0)

    def _fetch_rows(self, start: int, count: int):
        """In the worker: rows of the out-of-core data (all columns, as text), in the
        order shown."""
        data = self._queried()
        if data is None:
            return None
        return data.page(start, count, self.sorter.order)

    def _rows_arrived(self, first: int, last: int) -> None:
        n = self.rowCount()
        first, last = max(first - self.row_start, 0), last - self.row_start
        if n and first < n and last >= 0 and self._names:
            self.dataChanged.emit(self.index(first, 1),
                                  self.index(min(last, n - 1), len(self._names)),
                                  [Qt.ItemDataRole.DisplayRole])
            if self.sorter.order is not None:  # the row header names each record
                self.headerDataChanged.emit(Qt.Orientation.Vertical, first,
                                            min(last, n - 1))

    # --- sorting ------------------------------------------------------------------------
    @property
    def sort(self) -> tuple[str, bool] | None:
        """The order shown: (attribute, ascending), None for the data's order."""
        return self.sorter.shown if self.doc.out_of_core else self._memory_sort

    @property
    def sort_pending(self) -> tuple[str, bool] | None:
        """Out of core: the order being written by DuckDB."""
        return self.sorter.pending

    @property
    def sort_error(self) -> str:
        return self.sorter.error

    def sort_by(self, name: str | None, ascending: bool = True) -> None:
        """Show the rows sorted by attribute ``name`` (None: in the data's order). In
        memory at once; out of core when DuckDB has written the order (``sort_pending``
        until then; the rows shown stay as they were)."""
        if name is not None and name not in self.doc.column_names:
            return
        key = None if name is None else (name, bool(ascending))
        if self.doc.out_of_core:
            self.sorter.request(key, None if name is None else self._data_type(name))
            return
        perm = None
        if key is not None and self.doc.table is not None:
            col = self.doc.table.column(name)
            kind = display_type(col.dictionary, self._data_type(name))
            ranks = value_ranks(col.dictionary, kind)[col.codes]
            perm = np.argsort(ranks if ascending else -ranks.astype(np.int64), kind="stable")
        self.beginResetModel()
        self._memory_sort, self._permutation = key, perm
        self.endResetModel()
        self.sort_changed.emit()

    def stop_sorting(self, msecs: int = 5000) -> bool:
        """Interrupt the order being written out of core and wait for its worker
        (closing, tests)."""
        return self.sorter.stop(msecs)

    def _data_type(self, name: str):
        a = self.doc.attributes.get(name)
        return None if a is None else declared_type(a.data_type, a.format)

    def _show_order(self) -> None:
        """Out of core: read the rows in the sorter's order from the first row on."""
        self.beginResetModel()
        self.rows.clear()
        self.row_start = 0
        self._ooc_rows = self._known_rows()
        self.endResetModel()
        self.row_window_changed.emit(self.row_start, self.doc.row_count or 0)

    def data_row(self, row: int) -> int | None:
        """The row in the data (0-based) shown at model ``row`` (out of core: None until
        its block has arrived)."""
        if self._permutation is not None:
            return int(self._permutation[row])
        if self.sorter.order is None:
            return self.row_start + row
        value = self.rows.value(self.row_start + row, self.doc.data.row_column)
        return None if value is None else int(value)

    def _attributes_changed(self, names: list) -> None:
        cols = [self.column_of(n) for n in names]
        cols = [c for c in cols if c is not None]
        if cols:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, min(cols), max(cols))

    def _subset_changed(self) -> None:
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, 0),
                                  [Qt.ItemDataRole.CheckStateRole])

    # --- Qt model interface -------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        if parent.isValid():
            return 0
        if self.doc.table is not None:
            return self.doc.table.n_rows
        if self.doc.out_of_core:
            return self._ooc_rows  # until counted (a scan of a CSV file), the first block
        return 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        if parent.isValid() or not self.doc.has_data:
            return 0
        return len(self._names) + 1

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if self._permutation is not None:
            row = int(self._permutation[row])
        if col == SUBSET_COLUMN:
            if role == Qt.ItemDataRole.CheckStateRole:
                mask = self.doc.subset
                inside = mask is None or bool(mask[row])
                return Qt.CheckState.Checked if inside else Qt.CheckState.Unchecked
            if role == Qt.ItemDataRole.ToolTipRole:
                return "Row in the research subset"
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if self._columns:
                c = self._columns[col - 1]
                return str(c.dictionary[c.codes[row]])
            value = self.rows.value(self.row_start + row, self._names[col - 1])
            return PENDING if value is None else value
        return None

    def setData(self, index: _Index, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or index.column() != SUBSET_COLUMN \
                or role != Qt.ItemDataRole.CheckStateRole or self.doc.table is None:
            return False
        checked = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) \
            else value
        mask = self.doc.subset
        mask = np.ones(self.doc.table.n_rows, dtype=bool) if mask is None else mask.copy()
        mask[self.data_row(index.row())] = checked
        self.doc.set_subset(mask)
        return True

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if index.column() == SUBSET_COLUMN and self.doc.table is not None:
            return _CHECK_FLAGS
        return _CELL_FLAGS

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Vertical:
            if role == Qt.ItemDataRole.DisplayRole and 0 <= section < self.rowCount():
                row = self.data_row(section)
                return PENDING if row is None else str(row + 1)
            return None
        if section == SUBSET_COLUMN or section > len(self._names):
            if role == Qt.ItemDataRole.ToolTipRole and section == SUBSET_COLUMN:
                return ("Research subset: tick the rows it contains" if self.doc.table
                        is not None else "Research subset (out of core: select it by a "
                        "query, Select by…)")
            return None
        name = self._names[section - 1]
        kind = self.doc.attributes[name].type if name in self.doc.attributes else None
        if role == Qt.ItemDataRole.DisplayRole:
            return name
        if role == Qt.ItemDataRole.DecorationRole and kind:
            return type_icon(kind)
        if role == Qt.ItemDataRole.ToolTipRole:
            return (f"{name}: {TYPE_LABELS[kind]}\n" if kind else f"{name}\n") + \
                "Click to sort the rows by this column (again: descending)"
        return None
