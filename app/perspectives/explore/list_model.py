"""The transformations as a table: a view over ``ExploreNodes`` through a row permutation.

Filtering and sorting never copy the data: the model keeps the listed node
rows (filtered, then ordered by a stable argsort of the sort column) and reads
cells from the node arrays on demand.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from app.perspectives.explore.nodes import ExploreNodes
from app.perspectives.explore.text import (format_loss, format_percent, level_label,
                                           node_tooltip, state_text)
from app.theme import dot_icon

_Index = QModelIndex | QPersistentModelIndex
NODE_ROW_ROLE = Qt.ItemDataRole.UserRole + 1
COL_STATE, COL_LEVELS, COL_LOSS, COL_RAW, COL_SUPPRESSED = range(5)
FIRST_LEVEL_COLUMN = 5
STATE_COLORS = ("#9aa4b2", "#1e9e57", "#d23c3c")
_MUTED = QBrush(QColor("#8a94a3"))


class NodeListModel(QAbstractTableModel):
    """Columns: state, the levels as one code (``030111120``, as the properties' title
    writes it), loss (%), loss (raw), suppressed records, then one level per attribute
    (the facts first, so they stay in view when there are many attributes)."""

    HEAD = ("State", "Levels", "Information loss", "Loss (raw)", "Suppressed")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.nodes: ExploreNodes | None = None
        self._mask: np.ndarray | None = None
        self._rows = np.zeros(0, dtype=np.int64)  # node rows in list order
        self._position = np.zeros(0, dtype=np.int64)  # node row -> list row, -1 if hidden
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self._bold = QFont()
        self._bold.setBold(True)

    # --- content --------------------------------------------------------------------------
    def set_nodes(self, nodes: ExploreNodes | None, mask: np.ndarray | None = None) -> None:
        self.beginResetModel()
        self.nodes = nodes
        self._mask = mask
        self._rebuild()
        self.endResetModel()

    def set_mask(self, mask: np.ndarray | None) -> None:
        self.beginResetModel()
        self._mask = mask
        self._rebuild()
        self.endResetModel()

    def refresh(self) -> None:
        """Cells changed (a check on demand): repaint without moving rows."""
        if len(self._rows):
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(self._rows) - 1, self.columnCount() - 1))

    def _rebuild(self) -> None:
        n = 0 if self.nodes is None else len(self.nodes)
        rows = (np.arange(n, dtype=np.int64) if self._mask is None
                else np.flatnonzero(self._mask).astype(np.int64))
        if self._sort is not None and n:
            rows = rows[self._order(rows, *self._sort)]
        self._rows = rows
        self._position = np.full(n, -1, dtype=np.int64)
        self._position[rows] = np.arange(len(rows))

    def _order(self, rows: np.ndarray, column: int, order: Qt.SortOrder) -> np.ndarray:
        nodes = self.nodes
        if column == COL_LEVELS:  # by the first attribute's level, then the second's...
            levels = nodes.levels[rows].astype(np.int64)
            if order == Qt.SortOrder.DescendingOrder:
                levels = -levels
            return np.lexsort(levels.T[::-1])
        if column >= FIRST_LEVEL_COLUMN:
            key = nodes.levels[rows, column - FIRST_LEVEL_COLUMN].astype(float)
        elif column == COL_STATE:
            key = nodes.states[rows] * 2.0 + nodes.checked[rows]
        elif column in (COL_LOSS, COL_RAW):
            key = np.nan_to_num(nodes.percent[rows], nan=np.inf)
        else:
            key = nodes.suppressed[rows].astype(float)
        if order == Qt.SortOrder.DescendingOrder:
            key = -key
        return np.argsort(key, kind="stable")

    # --- lookups ----------------------------------------------------------------------------
    def node_row(self, list_row: int) -> int:
        return int(self._rows[list_row])

    def list_row(self, node_row: int) -> int:
        """Where a node row is listed, or -1 when filtered out."""
        if node_row < 0 or node_row >= len(self._position):
            return -1
        return int(self._position[node_row])

    # --- Qt model -------------------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        if parent.isValid() or self.nodes is None:
            return 0
        return len(self.nodes.attributes) + len(self.HEAD)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or self.nodes is None:
            return None
        attr = section - FIRST_LEVEL_COLUMN
        if role == Qt.ItemDataRole.DisplayRole:
            return self.nodes.attributes[attr] if attr >= 0 else self.HEAD[section]
        if role == Qt.ItemDataRole.ToolTipRole and attr >= 0:
            return f"Generalization level of '{self.nodes.attributes[attr]}'"
        if role == Qt.ItemDataRole.ToolTipRole and section == COL_LEVELS:
            return ("Generalization levels, in the attributes' order: "
                    + ", ".join(self.nodes.attributes))
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.nodes is None:
            return None
        nodes = self.nodes
        row = int(self._rows[index.row()])
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col >= FIRST_LEVEL_COLUMN:
                return str(int(nodes.levels[row, col - FIRST_LEVEL_COLUMN]))
            if col == COL_STATE:
                return ("★ " if row == nodes.optimum else "") + state_text(nodes, row)
            if col == COL_LEVELS:
                return level_label(nodes.levels[row])
            if col == COL_LOSS:
                return format_percent(nodes.percent[row], bool(nodes.checked[row]))
            if col == COL_RAW:
                return format_loss(nodes.raw_loss(row)) if nodes.checked[row] else "–"
            s = int(nodes.suppressed[row])
            return f"{s:,}" if s >= 0 else "–"
        if role == NODE_ROW_ROLE:
            return row
        if role == Qt.ItemDataRole.TextAlignmentRole:
            align = (Qt.AlignmentFlag.AlignLeft if col in (COL_STATE, COL_LEVELS)
                     else Qt.AlignmentFlag.AlignRight)
            return int(align | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.DecorationRole and col == COL_STATE:
            return dot_icon(STATE_COLORS[int(nodes.states[row])])
        if role == Qt.ItemDataRole.ForegroundRole and col in (COL_LOSS, COL_RAW, COL_SUPPRESSED) \
                and not nodes.checked[row]:
            return _MUTED
        if role == Qt.ItemDataRole.FontRole and row == nodes.optimum:
            return self._bold
        if role == Qt.ItemDataRole.ToolTipRole:
            return node_tooltip(nodes, row)
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if self.nodes is None or not 0 <= column < self.columnCount():
            return
        self.layoutAboutToBeChanged.emit()
        old = self._rows
        self._sort = (column, order)
        self._rebuild()
        # keep persistent indexes (the view's selection) on their transformations
        pos = self._position
        changed_from, changed_to = [], []
        for idx in self.persistentIndexList():
            r = pos[old[idx.row()]] if idx.row() < len(old) else -1
            changed_from.append(idx)
            changed_to.append(self.index(int(r), idx.column()) if r >= 0 else QModelIndex())
        self.changePersistentIndexList(changed_from, changed_to)
        self.layoutChanged.emit()
