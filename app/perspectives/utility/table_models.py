"""Virtual table models of the input and the output, aligned by one `RowOrder`.

Both models read cells on demand: the input from the encoded columns
(``dictionary[codes[row]]``), the output from the engine's `ReleasedTable` (what the export writes). They show one
page of columns at a time (ARX's pagination of wide data) and shade rows by
equivalence class or mark suppressed records, all from the engine's arrays.
"""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from app.models.paged_model import PagedModel
from app.perspectives.utility.output_view import class_rank
from app.perspectives.utility.row_order import RowOrder
from app.theme import TYPE_LABELS, type_icon
from engine.config import INSENSITIVE
from engine.data.table import EncodedTable
from engine.output import ReleasedTable

_Index = QModelIndex | QPersistentModelIndex
_Role = Qt.ItemDataRole

CLASS_SHADES = (QBrush(QColor("#ffffff")), QBrush(QColor("#e9f0fb")))
SUPPRESSED_BACKGROUND = QBrush(QColor("#fdecea"))
SUPPRESSED_FOREGROUND = QBrush(QColor("#b42318"))
GENERALIZED_FOREGROUND = QBrush(QColor("#1d4fa3"))


class ComparisonTableModel(PagedModel):
    """The input (``output=False``) or the output side of the comparison, one page of
    columns at a time (``page_changed`` tells the column page and page count)."""

    def __init__(self, order: RowOrder, output: bool, page_size: int = 100, parent=None):
        super().__init__(page_size, parent)
        self.order = order
        self.output = output
        self._table: EncodedTable | None = None
        self._view: ReleasedTable | None = None
        self._types: dict[str, str] = {}
        self._data_types: dict = {}
        self._names: list[str] = []
        self._columns: list = []
        self._show_classes = False
        self._class_shade = None
        order.changed.connect(self._order_changed)

    # --- source ---------------------------------------------------------------------------
    def set_source(self, table: EncodedTable | None, view: ReleasedTable | None,
                   types: dict[str, str] | None = None,
                   data_types: dict | None = None) -> None:
        """Show ``table`` (input side) or ``view`` (output side); ``view`` also gives
        the classes and suppressed rows that both sides mark."""
        self.beginResetModel()
        self._table, self._view = table, view
        self._types = dict(types or {})
        self._data_types = dict(data_types or {})  # to order classes by released value
        self._class_shade = None
        self._page = min(self._page, self.page_count - 1)
        self._load_page()
        self.endResetModel()
        self.page_changed.emit(self._page, self.page_count)

    @property
    def view(self) -> ReleasedTable | None:
        return self._view

    @property
    def names(self) -> list[str]:
        return [] if self._table is None else self._table.names

    def _has_rows(self) -> bool:
        return self._table is not None and (self._view is not None or not self.output)

    # --- paging ---------------------------------------------------------------------------
    def paged_count(self) -> int:
        return len(self.names)

    def page_of(self, name: str) -> int:
        return self.page_at(self.names.index(name))

    def column_of(self, name: str) -> int | None:
        try:
            return self._names.index(name)
        except ValueError:
            return None

    def attribute_at(self, column: int) -> str | None:
        return self._names[column] if 0 <= column < len(self._names) else None

    def _load_page(self) -> None:
        start = self._page * self._page_size
        self._names = self.names[start:start + self._page_size]
        self._columns = [self._table.column(n) for n in self._names] if self._table else []

    # --- marking -----------------------------------------------------------------------------
    def set_show_classes(self, on: bool) -> None:
        if on != self._show_classes:
            self._show_classes = bool(on)
            self._repaint()

    @property
    def show_classes(self) -> bool:
        return self._show_classes

    def class_shade(self, source_row: int) -> int | None:
        """0 or 1: the shade of the row's class (classes in released-value order
        alternate), None when the row is suppressed or there is no output."""
        v = self._view
        if v is None or v.is_suppressed(source_row):
            return None
        if self._class_shade is None:
            self._class_shade = (class_rank(v, self._data_types) % 2).astype(bool)
        return int(self._class_shade[v.row_class(source_row)])

    def _repaint(self) -> None:
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1),
                                  [_Role.BackgroundRole])

    def _order_changed(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    # --- cells ---------------------------------------------------------------------------------
    def source_row(self, row: int) -> int:
        return self.order.source_row(row)

    def text(self, row: int, column: int) -> str:
        """The cell shown at view ``row``, ``column``."""
        src = self.order.source_row(row)
        if self.output:
            name = self._names[column]
            if name in self._view.removed:  # not released: shown as removed
                return self._view.marker
            return self._view.value(name, src)
        c = self._columns[column]
        return str(c.dictionary[c.codes[src]])

    # --- Qt model interface ---------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        if parent.isValid() or not self._has_rows():
            return 0
        return self.order.row_count()

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        if parent.isValid() or not self._has_rows():
            return 0
        return len(self._names)

    def data(self, index: _Index, role: int = _Role.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == _Role.DisplayRole:
            return self.text(row, col)
        if role == _Role.BackgroundRole:
            src = self.order.source_row(row)
            if self._view is not None and self._view.is_suppressed(src):
                return SUPPRESSED_BACKGROUND
            if self._show_classes:
                shade = self.class_shade(src)
                return None if shade is None else CLASS_SHADES[shade]
            return None
        if role == _Role.ForegroundRole and self.output:
            src = self.order.source_row(row)
            if self._view.is_suppressed(src) or self._names[col] in self._view.removed:
                return SUPPRESSED_FOREGROUND
            if self._view.is_generalized(self._names[col]):
                return GENERALIZED_FOREGROUND
            return None
        if role == _Role.ToolTipRole:
            src = self.order.source_row(row)
            text = self.text(row, col)
            if self._view is not None and self._view.is_suppressed(src):
                return f"{text}\nRecord {src + 1} is suppressed: its class violates the " \
                       f"privacy models"
            if self._view is not None:
                cls = int(self._view.row_class(src))
                size = int(self._view.classes.counts[cls])
                return f"{text}\nRecord {src + 1} · equivalence class of {size:,} records"
            return text
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = _Role.DisplayRole):
        if orientation == Qt.Orientation.Vertical:
            if role == _Role.DisplayRole and 0 <= section < self.rowCount():
                return str(self.order.source_row(section) + 1)
            if role == _Role.ToolTipRole and 0 <= section < self.rowCount():
                src = self.order.source_row(section)
                sup = self._view is not None and self._view.is_suppressed(src)
                return f"Record {src + 1}{' (suppressed)' if sup else ''}"
            return None
        if not 0 <= section < len(self._names):
            return None
        name = self._names[section]
        kind = self._types.get(name, INSENSITIVE)
        if role == _Role.DisplayRole:
            return name
        if role == _Role.DecorationRole:
            return type_icon(kind)
        if role == _Role.ToolTipRole:
            tip = f"{name}: {TYPE_LABELS.get(kind, kind)}"
            if self.output and self._view is not None:
                if name in self._view.level_of:
                    tip += f", generalized to level {self._view.level_of[name]}"
                elif name in self._view.removed:
                    tip += (f", removed: not in the released table (shown as "
                            f"{self._view.marker})")
            return tip + "\nClick to sort both tables by this column"
        return None
