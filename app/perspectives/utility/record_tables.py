"""Input beside output for data too big for memory: records read by DuckDB as you scroll.

The input rows are the file's records in file order (``LIMIT``/``OFFSET`` on the
backend's scan); the output rows are the same records as released, from the
backend's release query (the one the export writes: ``ReleasedTable.plan``).
Rows arrive in blocks from a worker (``app.models.row_blocks``), "…" until then.
Both tables scroll together. A click on a column of either table sorts both by the
input's values of that column, as in memory (``app.models.column_sort``: DuckDB
writes the order once, in a worker; the output rows are the page's records
released by the plan, ``ReleasePlan.apply``, the values the export writes). Class
shading and the research-subset filter need every record in memory and are not
offered here (the caption says so).
"""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.models.column_sort import ColumnSort, describe_sort, next_key
from app.models.row_blocks import RowBlocks
from app.perspectives.utility.analysis import job_data_types
from app.perspectives.utility.tables import SideTable

_Index = QModelIndex | QPersistentModelIndex
PENDING = "…"
SUPPRESSED_FOREGROUND = QBrush(QColor("#b42318"))
GENERALIZED_FOREGROUND = QBrush(QColor("#1d4fa3"))
CAPTION = ("Records read from the file by DuckDB as you scroll (the data is too big for "
           "memory); the output is the release the export writes. Click a column to sort "
           "both tables by its input values; class shading needs the records in memory.")


class RecordModel(QAbstractTableModel):
    """Rows of one side, fetched in blocks by ``fetch(start, count)``."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.names: list[str] = []
        self.n_rows = 0
        self.generalized: set[str] = set()  # shown in the generalized colour
        self.qis: set[str] = set()          # the suppression marker shown in red
        self.marker = "*"
        self.blocks: RowBlocks | None = None
        #: the column of the fetched rows holding each record's number (sorted rows)
        self.row_column: str | None = None

    def set_source(self, fetch, names: list[str], n_rows: int,
                   generalized: set[str] = frozenset(), qis: set[str] = frozenset(),
                   marker: str = "*", row_column: str | None = None) -> None:
        self.beginResetModel()
        self.row_column = row_column
        if self.blocks is not None:
            self.blocks.clear()
            self.blocks.arrived.disconnect(self._arrived)
        self.blocks = None if fetch is None else RowBlocks(fetch, self)
        if self.blocks is not None:
            self.blocks.arrived.connect(self._arrived)
        self.names, self.n_rows = list(names), int(n_rows)
        self.generalized, self.qis, self.marker = set(generalized), set(qis), marker
        self.endResetModel()

    def _arrived(self, first: int, last: int) -> None:
        if self.n_rows and self.names and first < self.n_rows:
            last = min(last, self.n_rows - 1)
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(self.names) - 1))
            if self.row_column is not None:  # the row header names each record
                self.headerDataChanged.emit(Qt.Orientation.Vertical, first, last)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() or self.blocks is None else self.n_rows

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.names)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.blocks is None:
            return None
        name = self.names[index.column()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ForegroundRole):
            value = self.blocks.value(index.row(), name)
            if role == Qt.ItemDataRole.DisplayRole:
                return PENDING if value is None else value
            if name in self.qis and value == self.marker:
                return SUPPRESSED_FOREGROUND
            return GENERALIZED_FOREGROUND if name in self.generalized else None
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.names[section] if 0 <= section < len(self.names) else None
        if self.row_column is None or self.blocks is None:
            return f"{section + 1:,}"
        row = self.blocks.value(section, self.row_column)
        return PENDING if row is None else f"{int(row) + 1:,}"

    def wait(self, msecs: int = 10_000) -> bool:
        return self.blocks is None or self.blocks.wait(msecs)


class RecordTables(QWidget):
    """The input's and the output's records side by side, scrolling together."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.caption = QLabel(CAPTION)
        self.caption.setObjectName("mutedLabel")
        self.caption.setWordWrap(True)
        lay.addWidget(self.caption)
        row = QHBoxLayout()
        row.setSpacing(10)
        self.input_model, self.output_model = RecordModel(self), RecordModel(self)
        self.input = SideTable("Input", self.input_model)
        self.output = SideTable("Output", self.output_model)
        row.addWidget(self.input, 1)
        row.addWidget(self.output, 1)
        lay.addLayout(row, 1)
        self.pager = None  # the backend reading the pages
        a, b = self.input.view.verticalScrollBar(), self.output.view.verticalScrollBar()
        a.valueChanged.connect(b.setValue)
        b.valueChanged.connect(a.setValue)
        #: the document's data out of core (``OutOfCoreData``), which sorts the records
        self.data_source: Callable[[], object] = lambda: None
        self.sort = ColumnSort(self)
        self.sort.applied.connect(self._show_rows)
        self.sort.changed.connect(self._sort_changed)
        bar = QHBoxLayout()
        self.sort_label = QLabel()
        self.sort_label.setObjectName("mutedLabel")
        bar.addWidget(self.sort_label)
        self.clear_sort = QToolButton(text="Data order")
        self.clear_sort.setToolTip("Show the rows in the order of the data again")
        self.clear_sort.clicked.connect(lambda: self.sort.request(None))
        self.clear_sort.hide()
        bar.addWidget(self.clear_sort)
        bar.addStretch()
        lay.insertLayout(1, bar)
        for side in (self.input, self.output):
            side.view.horizontalHeader().sectionClicked.connect(
                lambda col, m=side.view.model(): self._header_clicked(m, col))
        self._view = None
        self._types: dict = {}

    def set_release(self, view) -> None:
        """Show the records of ``view``'s problem (held by its backend) and their
        release (None: clear). The pages are read by a twin of the backend, so they do
        not wait for the analyses' scans on the backend itself. The order (a sort by a
        column) is kept when the data stays the same."""
        if self.pager is not None:
            self.wait()
            self.pager.close()
            self.pager = None
        self._view = view
        data = self.data_source() if view is not None else None
        plan = view.plan() if view is not None else None
        sortable = (data is not None and data.same_records(view.problem.backend)
                    and not plan.pseudonyms and plan.sample is None)
        if not sortable or data is not self.sort.data:
            self.sort.set_data(data if sortable else None)
        self._types = {} if view is None else job_data_types(view.problem)
        if view is not None:
            twin = getattr(view.problem.backend, "twin", None)
            self.pager = twin() if twin is not None else None
        self._show_rows()
        self._sort_changed()

    def _show_rows(self) -> None:
        """Both sides' rows in the order asked for (the data's, or a sort's)."""
        view = self._view
        if view is None:
            for m in (self.input_model, self.output_model):
                m.set_source(None, [], 0)
            return
        problem, plan = view.problem, view.plan()
        n = problem.table.n_records
        marks = ({q for q in view.qis if view.level_of.get(q, 0) > 0}, set(view.qis),
                 view.marker)
        order, data = self.sort.order, self.sort.data
        if order is None:
            rows = (self.pager or problem.backend).rows
            self.input_model.set_source(lambda s, c: rows(s, c), problem.table.source_names,
                                        n)
            self.output_model.set_source(lambda s, c: rows(s, c, plan), list(plan.columns),
                                         n, *marks)
        else:  # the records at the order's positions, and their release by the plan
            rc = data.row_column
            self.input_model.set_source(lambda s, c: data.page(s, c, order),
                                        problem.table.source_names, n, row_column=rc)
            self.output_model.set_source(
                lambda s, c: released_rows(plan, data.page(s, c, order), rc),
                list(plan.columns), n, *marks, row_column=rc)
        for side in (self.input, self.output):
            side.caption.setText(f"{n:,} records")

    def _header_clicked(self, model: RecordModel, column: int) -> None:
        if self.sort.data is None or not 0 <= column < len(model.names):
            return
        name = model.names[column]
        if name not in self.input_model.names:
            return
        self.sort.request(next_key(self.sort.current, name), self._types.get(name))

    def _sort_changed(self) -> None:
        s = self.sort
        self.sort_label.setText(describe_sort(s.shown, s.pending, s.error, "input")
                                if s.data is not None else "")
        self.clear_sort.setVisible(bool(s.shown or s.pending))
        for side in (self.input, self.output):
            hh, names = side.view.horizontalHeader(), side.view.model().names
            on = s.shown is not None and s.shown[0] in names
            hh.setSortIndicatorShown(on)
            if on:
                hh.setSortIndicator(names.index(s.shown[0]), Qt.SortOrder.AscendingOrder
                                    if s.shown[1] else Qt.SortOrder.DescendingOrder)

    def wait(self, msecs: int = 10_000) -> bool:
        return self.input_model.wait(msecs) and self.output_model.wait(msecs)


def released_rows(plan, page: pd.DataFrame, row_column: str) -> pd.DataFrame:
    """The release of ``page``'s records by ``plan`` (``ReleasePlan.apply``: the values
    the export writes), each record's number kept in ``row_column``."""
    values = {c: page[c].to_numpy(dtype=object) for c in page.columns if c != row_column}
    out, _ = plan.apply(values, list(plan.columns))
    frame = pd.DataFrame({c: out[c] for c in plan.columns})
    frame[row_column] = page[row_column].to_numpy()
    return frame
