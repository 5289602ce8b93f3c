"""Small result tables (frequencies, statistics, quality) as read-only models.

Columns are formatted once per column (count, share, loss, text); numbers are
right-aligned; ``tint`` columns get a background that deepens with the value
(a loss of 1 is the darkest), so a table reads like a heat map.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

_Index = QModelIndex | QPersistentModelIndex
_Role = Qt.ItemDataRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def fmt_count(x) -> str:
    return "–" if _missing(x) else f"{int(x):,}"


def fmt_percent(x) -> str:
    return "–" if _missing(x) else f"{100 * float(x):.2f} %"


def fmt_number(x) -> str:
    if _missing(x):
        return "–"
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return f"{x:,.0f}" if abs(x) >= 1e6 else f"{x:.4g}"
    if isinstance(x, pd.Timestamp):
        return x.strftime("%Y-%m-%d") if x == x.normalize() else str(x)
    if isinstance(x, pd.Timedelta):
        return f"{x.total_seconds() / 86400:.4g} days"
    return str(x)


def fmt_decimal(x) -> str:
    return "–" if _missing(x) else f"{float(x):.4f}"


FORMATS: dict[str, Callable] = {"count": fmt_count, "percent": fmt_percent,
                                "decimal": fmt_decimal,
                                "number": fmt_number, "text": lambda x: "" if x is None
                                else str(x)}


def _tint(value: float) -> QBrush | None:
    if _missing(value):
        return None
    v = min(max(float(value), 0.0), 1.0)
    base, top = (255, 255, 255), (246, 178, 107)  # white to a warm orange
    return QBrush(QColor(*(round(b + (t - b) * v * 0.85) for b, t in zip(base, top))))


class FrameModel(QAbstractTableModel):
    """A DataFrame shown with per-column formats (``count``, ``percent``, ``decimal``,
    ``number``, ``text``; ``number`` is the default); the index is not shown unless
    ``index_header`` names it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._frame = pd.DataFrame()
        self._values = np.zeros((0, 0), dtype=object)
        self._formats: list[Callable] = []
        self._tint: set[int] = set()
        self._tooltips: dict[str, str] = {}
        self._index_header: str | None = None
        self._bold_last = False

    def set_frame(self, frame: pd.DataFrame | None, formats: Mapping[str, str] | None = None,
                  index_header: str | None = None, tint: tuple[str, ...] = (),
                  tooltips: Mapping[str, str] | None = None, bold_last: bool = False) -> None:
        self.beginResetModel()
        frame = pd.DataFrame() if frame is None else frame
        if index_header is not None:
            frame = frame.reset_index()
            frame.columns = [index_header, *frame.columns[1:]]
        self._frame = frame
        self._values = frame.to_numpy(dtype=object)
        formats = dict(formats or {})
        if index_header is not None:
            formats.setdefault(index_header, "text")
        self._formats = [FORMATS[formats.get(str(c), "number")] for c in frame.columns]
        self._tint = {j for j, c in enumerate(frame.columns) if c in tint}
        self._tooltips = dict(tooltips or {})
        self._bold_last = bold_last
        self.endResetModel()

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._values.shape[0]

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() or self._values.ndim < 2 else self._values.shape[1]

    def data(self, index: _Index, role: int = _Role.DisplayRole):
        if not index.isValid():
            return None
        value = self._values[index.row(), index.column()]
        fmt = self._formats[index.column()]
        if role in (_Role.DisplayRole, _Role.ToolTipRole):
            return fmt(value)
        if role == _Role.TextAlignmentRole:
            return None if fmt is FORMATS["text"] else _RIGHT
        if role == _Role.BackgroundRole and index.column() in self._tint:
            return _tint(value) if isinstance(value, (float, int, np.number)) else None
        if role == _Role.FontRole and self._bold_last and index.row() == self.rowCount() - 1:
            from PySide6.QtGui import QFont
            f = QFont()
            f.setBold(True)
            return f
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = _Role.DisplayRole):
        if orientation == Qt.Orientation.Vertical:
            return None
        if not 0 <= section < len(self._frame.columns):
            return None
        name = str(self._frame.columns[section])
        if role == _Role.DisplayRole:
            return name
        if role == _Role.ToolTipRole:
            return self._tooltips.get(name, name)
        if role == _Role.TextAlignmentRole:
            return None if self._formats[section] is FORMATS["text"] else _RIGHT
        return None
