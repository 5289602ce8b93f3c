"""Read-only table models of the Analyze-risk views: risk profile, overview, and a
sortable model of small frames (identifiers, quasi-identifier analysis)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from engine.analysis.risk_comparison import Thresholds
from app.perspectives.risk.labels import interval_label, percent
from app.perspectives.risk.common import BAD, BAD_COLOR, BAD_FILL, OK_COLOR, STATE_ROLE, state
from engine.analysis.risk import RiskSummary

_Index = QModelIndex | QPersistentModelIndex
DISPLAY, FOREGROUND, BACKGROUND = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ForegroundRole,
                                   Qt.ItemDataRole.BackgroundRole)
ALIGN, TOOLTIP, USER = (Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.ToolTipRole,
                        Qt.ItemDataRole.UserRole)
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class RiskProfileModel(QAbstractTableModel):
    """One table's records per risk interval; intervals above the threshold in red."""

    HEADERS = ("Risk", "Records", "Share", "Cumulative")

    def __init__(self, parent=None):
        super().__init__(parent)
        self._frame: pd.DataFrame | None = None
        self._threshold = 0.2

    def set_profile(self, frame: pd.DataFrame | None) -> None:
        self.beginResetModel()
        self._frame = frame
        self.endResetModel()

    def set_threshold(self, threshold: float) -> None:
        self._threshold = threshold
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, 3),
                                  [FOREGROUND, BACKGROUND, STATE_ROLE])

    def above(self, row: int) -> bool:
        """True when every record of the interval has a risk above the threshold."""
        return bool(self._frame["lower"].iat[row] >= self._threshold * (1 - 1e-9))

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() or self._frame is None else len(self._frame)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index: _Index, role: int = DISPLAY):
        if not index.isValid() or self._frame is None:
            return None
        row, col, f = index.row(), index.column(), self._frame
        if role == DISPLAY:
            if col == 0:
                return interval_label(f["lower"].iat[row], f["upper"].iat[row])
            if col == 1:
                return f"{int(f['records'].iat[row]):,}"
            return percent(float(f["share" if col == 2 else "cumulative"].iat[row]))
        if role == ALIGN and col > 0:
            return RIGHT
        if role == USER:
            return float(f[["lower", "records", "share", "cumulative"][col]].iat[row])
        if role in (FOREGROUND, BACKGROUND, STATE_ROLE):
            bad = self.above(row) and f["records"].iat[row] > 0
            if role == STATE_ROLE:
                return BAD if bad else None
            if bad:
                return QBrush(QColor(BAD_COLOR if role == FOREGROUND else BAD_FILL))
            if role == FOREGROUND and f["records"].iat[row] == 0:
                return QBrush(QColor("#a0a9b5"))
        if role == TOOLTIP:
            return (f"{int(f['records'].iat[row]):,} records have a re-identification risk in "
                    f"{interval_label(f['lower'].iat[row], f['upper'].iat[row])} %")
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY):
        if role == DISPLAY and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section] + (" (%)" if section == 0 else "")
        return None


@dataclass(frozen=True)
class Measure:
    """One row of the overview: its label, value, threshold and explanation."""

    label: str
    value: Callable[[RiskSummary], float | None]
    limit: Callable[[Thresholds], float] | None = None
    tip: str = ""


MEASURES = (
    Measure("Lowest risk", lambda s: s.lowest_risk, None,
            "Risk of the records in the largest equivalence class (1 / its size)."),
    Measure("Records with the lowest risk", lambda s: s.records_with_lowest_risk),
    Measure("Average risk", lambda s: s.average_risk, lambda t: t.success_rate,
            "Mean risk over all records: classes / records. Compared with the success-rate "
            "threshold."),
    Measure("Highest risk", lambda s: s.highest_risk, lambda t: t.highest_risk,
            "Risk of the records in the smallest equivalence class."),
    Measure("Records with the highest risk", lambda s: s.records_with_highest_risk),
    Measure("Sample uniques", lambda s: s.sample_uniques, None,
            "Records that are unique in the data on their quasi-identifiers."),
    Measure("Population uniques (estimated)", lambda s: s.population_uniques, None,
            "Share of records estimated to be unique in the population model "
            "(see Population uniqueness)."),
)


class OverviewModel(QAbstractTableModel):
    """Overview figures of the input beside the output, coloured against thresholds."""

    HEADERS = ("Measure", "Input", "Output")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.summaries: list[RiskSummary | None] = [None, None]
        self.thresholds = Thresholds()

    def set_summaries(self, before: RiskSummary | None, after: RiskSummary | None,
                      thresholds: Thresholds) -> None:
        self.beginResetModel()
        self.summaries, self.thresholds = [before, after], thresholds
        self.endResetModel()

    def value(self, row: int, side: int) -> float | None:
        s = self.summaries[side]
        return None if s is None else MEASURES[row].value(s)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(MEASURES)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index: _Index, role: int = DISPLAY):
        if not index.isValid():
            return None
        m, col = MEASURES[index.row()], index.column()
        if col == 0:
            return m.label if role == DISPLAY else (m.tip or None) if role == TOOLTIP else None
        value = self.value(index.row(), col - 1)
        if role == DISPLAY:
            return percent(value) if self.summaries[col - 1] is not None else ""
        if role == USER:
            return value
        if role == ALIGN:
            return RIGHT
        if role in (STATE_ROLE, FOREGROUND) and m.limit is not None:
            st = state(value, m.limit(self.thresholds))
            if role == STATE_ROLE:
                return st
            if st is not None:
                return QBrush(QColor(BAD_COLOR if st == BAD else OK_COLOR))
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY):
        if role == DISPLAY and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None


@dataclass(frozen=True)
class Column:
    """A column of `FrameModel`: frame column, header, formatter, right-aligned."""

    key: str
    header: str
    format: Callable[[object], str] = str
    numeric: bool = False


class FrameModel(QAbstractTableModel):
    """A small frame shown through column specs; sorting goes through a permutation."""

    def __init__(self, columns: Sequence[Column], parent=None):
        super().__init__(parent)
        self.columns = list(columns)
        self._frame = pd.DataFrame(columns=[c.key for c in self.columns])
        self._order = np.zeros(0, np.int64)

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    def set_frame(self, frame: pd.DataFrame | None) -> None:
        self.beginResetModel()
        self._frame = frame if frame is not None else \
            pd.DataFrame(columns=[c.key for c in self.columns])
        self._order = np.arange(len(self._frame))
        self.endResetModel()

    def row_values(self, row: int) -> pd.Series:
        return self._frame.iloc[int(self._order[row])]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._order)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: _Index, role: int = DISPLAY):
        if not index.isValid():
            return None
        c = self.columns[index.column()]
        value = self._frame[c.key].iat[int(self._order[index.row()])]
        if role == DISPLAY:
            return c.format(value)
        if role == USER:
            return value
        if role == ALIGN and c.numeric:
            return RIGHT
        if role == TOOLTIP and not c.numeric:
            return c.format(value)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY):
        if role == DISPLAY and orientation == Qt.Orientation.Horizontal:
            return self.columns[section].header
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self.columns) or self._frame.empty:
            return
        key = self._frame[self.columns[column].key]
        if not self.columns[column].numeric:
            key = key.map(self.columns[column].format)
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        rows = [int(self._order[i.row()]) for i in persistent]
        new = np.argsort(key.to_numpy(), kind="stable")
        self._order = new[::-1].copy() if order == Qt.SortOrder.DescendingOrder else new
        position = np.empty_like(self._order)
        position[self._order] = np.arange(len(self._order))
        self.changePersistentIndexList(
            persistent,
            [self.index(int(position[r]), i.column()) for r, i in zip(rows, persistent)])
        self.layoutChanged.emit()
