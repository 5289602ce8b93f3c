"""A one-line label that may be narrower than its text: it draws the text elided ("…")
and carries it whole in its tooltip, so a long name does not widen its row (a title
beside buttons at 1280 px)."""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel


class ElidedLabel(QLabel):
    """``setText`` as a QLabel; at least ``min_chars`` characters of it stay shown."""

    def __init__(self, text: str = "", min_chars: int = 10, parent=None):
        super().__init__(text, parent)
        self.min_chars = min_chars

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        shown = self.fontMetrics().horizontalAdvance(self.text()[:self.min_chars] + "…")
        return QSize(min(hint.width(), shown), hint.height())

    def elided(self) -> bool:
        """Whether the text is drawn cut short."""
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.setToolTip(self.text() if self.elided() else "")

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text if self.elided() else "")

    def paintEvent(self, _event) -> None:
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                             rect.width())
        painter = QPainter(self)
        self.style().drawItemText(painter, rect, int(self.alignment()), self.palette(),
                                  self.isEnabled(), text, self.foregroundRole())
