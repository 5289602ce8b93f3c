"""The interval structure drawn as ARX draws it: base intervals as boxes at the
bottom, each grouping level's groups above the items they hold.

Click a box to select it (its pattern element: every repeat of it lights up);
right-click for the page's actions; arrow keys move the selection. Repeats of
the pattern are drawn paler, with dashed borders.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.wizards.hierarchy.interval_draft import Box, IntervalDraft
from engine.hierarchy.builders import IntervalSpec

GUTTER = 82
BOX_W = 92
ROW_H = 44
GAP = 6
MARGIN = 8
ACCENT = QColor("#2f6fd6")
FILL = QColor("#e8effb")
LINE = QColor("#aab8cc")


def row_title(row: int, rows: int) -> str:
    """Levels numbered as in the preview: base intervals are level 1, the top last."""
    if row == 0:
        return "Level 1\nintervals"
    return f"Level {row + 1}\ntop" if row == rows else f"Level {row + 1}\ngroups"


class IntervalStructureView(QWidget):
    """Paints an `IntervalDraft`; ``selected(row, pos)`` when the user picks a box,
    ``activated(row, pos)`` when they double-click it (or press Enter) to edit it."""

    selected = Signal(int, int)
    activated = Signal(int, int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("intervalStructure")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)
        self.draft: IntervalDraft | None = None
        self.top_label = "*"
        self.boxes: list[Box] = []
        self.shown = 0
        self.elided = False
        self.selection: tuple[int, int] = (0, 0)

    def set_draft(self, draft: IntervalDraft, spec: IntervalSpec | None,
                  top_label: str = "*") -> None:
        self.draft, self.top_label = draft, top_label
        self.boxes, self.shown, self.elided = draft.layout(spec)
        row, pos = self.selection
        if not any(b.row == row and b.pos == pos for b in self.boxes):
            self.selection = (0, 0)
        self.updateGeometry()
        self.update()

    def select(self, row: int, pos: int) -> None:
        if any(b.row == row and b.pos == pos for b in self.boxes):
            self.selection = (row, pos)
            self.update()
            self.selected.emit(row, pos)

    # --- geometry ----------------------------------------------------------------------------
    @property
    def rows(self) -> int:
        return 1 + (len(self.draft.levels) if self.draft else 0)

    def _box_width(self) -> float:
        free = self.width() - GUTTER - 2 * MARGIN - (24 if self.elided else 0)
        return max(float(BOX_W), free / max(1, self.shown))

    def box_rect(self, box: Box) -> QRectF:
        w = self._box_width()
        y = MARGIN + (self.rows - box.row) * (ROW_H + GAP)  # row 0 at the bottom, top above all
        x = GUTTER + MARGIN + box.first * w
        return QRectF(x + 2, y, (box.last - box.first + 1) * w - 4, ROW_H)

    def rect_of(self, row: int, pos: int) -> QRectF:
        """The rectangle of the first (editable) box of pattern element ``(row, pos)``."""
        box = next(b for b in self.boxes if b.row == row and b.pos == pos and not b.repeat)
        return self.box_rect(box)

    def sizeHint(self) -> QSize:
        return QSize(GUTTER + 2 * MARGIN + max(1, self.shown) * BOX_W + 24,
                     2 * MARGIN + (self.rows + 1) * (ROW_H + GAP))

    def minimumSizeHint(self) -> QSize:
        return QSize(GUTTER + 2 * MARGIN + max(1, self.shown) * BOX_W,
                     2 * MARGIN + (self.rows + 1) * (ROW_H + GAP))

    # --- painting ----------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        p.fillRect(self.rect(), pal.color(QPalette.ColorRole.Base))
        text = pal.color(QPalette.ColorRole.Text)
        muted = QColor("#667085")
        small = QFont(self.font())
        small.setPointSizeF(max(7.0, self.font().pointSizeF() - 1.5))
        for row in range(self.rows + 1):
            y = MARGIN + (self.rows - row) * (ROW_H + GAP)
            p.setPen(muted)
            p.setFont(small)
            p.drawText(QRectF(MARGIN, y, GUTTER - 6, ROW_H), Qt.AlignmentFlag.AlignVCenter,
                       row_title(row, self.rows))
        if self.shown:
            w = self._box_width()
            top = QRectF(GUTTER + MARGIN + 2, MARGIN, self.shown * w - 4, ROW_H)
            p.setPen(QPen(LINE, 1))
            p.setBrush(QColor("#f1f4f8"))
            p.drawRoundedRect(top, 5, 5)
            p.setPen(text)
            p.setFont(self.font())
            p.drawText(top, Qt.AlignmentFlag.AlignCenter, self.top_label)
        chosen = self.selection
        for box in self.boxes:
            r = self.box_rect(box)
            on = (box.row, box.pos) == chosen
            fill = QColor("#d6e4fb") if on else FILL
            if box.repeat:
                fill = fill.lighter(104)
                fill.setAlpha(150)
            pen = QPen(ACCENT if on else LINE, 2 if on and not box.repeat else 1)
            if box.repeat:
                pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.setBrush(fill)
            p.drawRoundedRect(r, 5, 5)
            p.setPen(muted if box.repeat else text)
            p.setFont(self.font())
            inner = r.adjusted(4, 3, -4, -ROW_H / 2)
            p.drawText(inner, Qt.AlignmentFlag.AlignCenter,
                       p.fontMetrics().elidedText(box.text, Qt.TextElideMode.ElideMiddle,
                                                  int(inner.width())))
            p.setPen(muted)
            p.setFont(small)
            lower = r.adjusted(4, ROW_H / 2, -4, -3)
            p.drawText(lower, Qt.AlignmentFlag.AlignCenter,
                       p.fontMetrics().elidedText(box.detail, Qt.TextElideMode.ElideRight,
                                                  int(lower.width())))
        if self.elided:
            p.setPen(muted)
            p.setFont(self.font())
            x = GUTTER + MARGIN + self.shown * self._box_width()
            y = MARGIN + self.rows * (ROW_H + GAP)
            p.drawText(QRectF(x, y, 24, ROW_H), Qt.AlignmentFlag.AlignCenter, "…")
        p.end()

    # --- interaction -------------------------------------------------------------------------
    def box_at(self, point: QPointF) -> Box | None:
        hits = [b for b in self.boxes if self.box_rect(b).contains(point)]
        return hits[0] if hits else None

    def mousePressEvent(self, event) -> None:
        box = self.box_at(event.position())
        if box is not None:
            self.select(box.row, box.pos)
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        box = self.box_at(event.position())
        if box is not None:
            self.activated.emit(box.row, box.pos)
        super().mouseDoubleClickEvent(event)

    def mouseMoveEvent(self, event) -> None:
        box = self.box_at(event.position())
        if box is None:
            self.setToolTip("")
        else:
            what = "base interval" if box.row == 0 else f"group of level {box.row + 1}"
            copy = " (a repeat; editing changes every copy)" if box.repeat else ""
            self.setToolTip(f"{box.text}: {what}, label {box.detail}{copy}")
        super().mouseMoveEvent(event)

    def keyPressEvent(self, event) -> None:
        row, pos = self.selection
        key = event.key()
        moves = {Qt.Key.Key_Left: (row, pos - 1), Qt.Key.Key_Right: (row, pos + 1),
                 Qt.Key.Key_Up: (row + 1, 0), Qt.Key.Key_Down: (row - 1, 0)}
        if key in moves:
            self.select(*moves[key])
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.activated.emit(row, pos)
        else:
            super().keyPressEvent(event)
