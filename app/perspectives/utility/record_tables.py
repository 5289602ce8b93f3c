"""Input beside output for data too big for memory: records read by DuckDB as you scroll.

The input rows are the file's records in file order (``LIMIT``/``OFFSET`` on the
backend's scan); the output rows are the same records as released, from the
backend's release query (the one the export writes: ``ReleasedTable.plan``).
Rows arrive in blocks from a worker (``app.models.row_blocks``), "…" until then.
Both tables scroll together. Sorting, class shading and the research-subset filter
need every record in memory and are not offered here (the caption says so).
"""
from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.models.row_blocks import RowBlocks
from app.perspectives.utility.tables import SideTable

_Index = QModelIndex | QPersistentModelIndex
PENDING = "…"
SUPPRESSED_FOREGROUND = QBrush(QColor("#b42318"))
GENERALIZED_FOREGROUND = QBrush(QColor("#1d4fa3"))
CAPTION = ("Records read from the file by DuckDB as you scroll (the data is too big for "
           "memory); the output is the release the export writes. Sorting and class "
           "shading need the records in memory.")


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

    def set_source(self, fetch, names: list[str], n_rows: int,
                   generalized: set[str] = frozenset(), qis: set[str] = frozenset(),
                   marker: str = "*") -> None:
        self.beginResetModel()
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
            self.dataChanged.emit(self.index(first, 0),
                                  self.index(min(last, self.n_rows - 1), len(self.names) - 1))

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
        return f"{section + 1:,}"

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

    def set_release(self, view) -> None:
        """Show the records of ``view``'s problem (held by its backend) and their
        release (None: clear). The pages are read by a twin of the backend, so they do
        not wait for the analyses' scans on the backend itself."""
        if self.pager is not None:
            self.wait()
            self.pager.close()
            self.pager = None
        if view is None:
            for m in (self.input_model, self.output_model):
                m.set_source(None, [], 0)
            return
        problem = view.problem
        twin = getattr(problem.backend, "twin", None)
        self.pager = twin() if twin is not None else None
        rows = (self.pager or problem.backend).rows
        plan = view.plan()
        n = problem.table.n_records
        self.input_model.set_source(lambda s, c: rows(s, c), problem.table.source_names, n)
        self.output_model.set_source(lambda s, c: rows(s, c, plan), list(plan.columns), n,
                                     {q for q in view.qis if view.level_of.get(q, 0) > 0},
                                     set(view.qis), view.marker)
        for side in (self.input, self.output):
            side.caption.setText(f"{n:,} records")

    def wait(self, msecs: int = 10_000) -> bool:
        return self.input_model.wait(msecs) and self.output_model.wait(msecs)
