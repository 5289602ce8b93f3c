"""Previous / next buttons with "Columns 1-100 of 1,000" between them."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget


class Pager(QWidget):
    page_requested = Signal(int)

    def __init__(self, noun: str = "Columns", parent=None):
        super().__init__(parent)
        self.noun = noun
        self._page, self._count, self._total, self._size = 0, 1, 0, 1
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.prev = QToolButton(text="‹")
        self.prev.setToolTip("Previous page")
        self.next = QToolButton(text="›")
        self.next.setToolTip("Next page")
        self.label = QLabel()
        self.label.setObjectName("pagerLabel")
        lay.addWidget(self.prev)
        lay.addWidget(self.label)
        lay.addWidget(self.next)
        self.prev.clicked.connect(lambda: self.page_requested.emit(self._page - 1))
        self.next.clicked.connect(lambda: self.page_requested.emit(self._page + 1))

    def update_state(self, page: int, count: int, total: int, size: int) -> None:
        self._page, self._count, self._total, self._size = page, count, total, size
        first = page * size + 1 if total else 0
        last = min(total, (page + 1) * size)
        self.label.setText(f"{self.noun} {first:,}–{last:,} of {total:,}")
        self.prev.setEnabled(page > 0)
        self.next.setEnabled(page < count - 1)
        self.setVisible(count > 1)
