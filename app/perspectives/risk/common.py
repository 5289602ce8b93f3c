"""Colours, the perspective's local stylesheet and small shared widgets."""
from __future__ import annotations

from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton,
                               QSplitter, QVBoxLayout, QWidget)

from app.theme import ACCENT
from app.widgets.progress_status import show_fraction

OK, BAD = "ok", "bad"
OK_COLOR, BAD_COLOR = "#1e7b3c", "#b42318"
OK_FILL, BAD_FILL = "#e7f6ec", "#fdecea"
BAR_OK, BAR_BAD = ACCENT, "#d9534f"
CURVE_COLORS = {"Pitman": "#2f6fd6", "Zayatz": "#e08a1e", "SNB": "#2e9e5b", "Dankar": "#8e6cc4"}
MUTED = "#667085"
#: custom item-data role: "ok" / "bad" / None, the state a threshold gives a cell
STATE_ROLE = 0x0100 + 41

STYLE = f"""
QFrame#riskCard {{ background: #ffffff; border: 1px solid #d8dee6; border-radius: 8px; }}
QLabel#cardTitle {{ font-weight: 600; font-size: 11pt; }}
QLabel#cardCaption, QLabel#sideCaption {{ color: {MUTED}; }}
QLabel#sideTitle {{ font-weight: 600; color: #3b4754; }}
QLabel#figure {{ padding: 2px 8px; border-radius: 4px; font-weight: 600; }}
QLabel#figure[state="ok"] {{ color: {OK_COLOR}; background: {OK_FILL}; }}
QLabel#figure[state="bad"] {{ color: {BAD_COLOR}; background: {BAD_FILL}; }}
QLabel#warningLabel {{ color: #8a5a00; background: #fff6e0; border: 1px solid #f3d48b;
    border-radius: 5px; padding: 4px 8px; }}
QListWidget#attributeChoice::item {{ padding: 3px 2px; }}
QPushButton#runButton {{ font-weight: 600; color: #1d4fa3; }}
QFrame#thresholdBar {{ background: #ffffff; border: 1px solid #d8dee6; border-radius: 8px; }}
"""


def state(value: float | None, limit: float) -> str | None:
    """``ok`` when ``value`` is within ``limit`` (with a little tolerance for rounding)."""
    if value is None:
        return None
    return OK if value <= limit * (1 + 1e-9) else BAD


def set_state(label: QLabel, value: str | None) -> None:
    """Restyle a figure label after its state changed."""
    if label.property("state") != value:
        label.setProperty("state", value or "")
        label.style().unpolish(label)
        label.style().polish(label)


def title_label(text: str, name: str = "sectionTitle") -> QLabel:
    label = QLabel(text)
    label.setObjectName(name)
    return label


def muted_label(text: str = "", wrap: bool = True) -> QLabel:
    label = QLabel(text)
    label.setObjectName("mutedLabel")
    label.setWordWrap(wrap)
    return label


class Card(QFrame):
    """A white rounded panel with a title and a caption."""

    def __init__(self, title: str = "", caption: str = "", parent=None):
        super().__init__(parent)
        self.setObjectName("riskCard")
        self.body = QVBoxLayout(self)
        self.body.setContentsMargins(14, 10, 14, 12)
        self.body.setSpacing(6)
        if title:
            self.title = title_label(title, "cardTitle")
            self.body.addWidget(self.title)
        if caption:
            self.caption = muted_label(caption)
            self.caption.setObjectName("cardCaption")
            self.body.addWidget(self.caption)


class BarPlot(pg.PlotWidget):
    """A white bar chart the user cannot pan or zoom: light y grid, small tick labels
    on ``small_axes``."""

    def __init__(self, left_label: str, small_axes: tuple[str, ...] = ("left",), parent=None):
        super().__init__(parent, background="#ffffff")
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.showGrid(y=True, alpha=0.2)
        self.setLabel("left", left_label)
        font = QFont()
        font.setPointSizeF(8)
        for axis in small_axes:
            self.getAxis(axis).setTickFont(font)


class RunBar(QWidget):
    """Run / progress / cancel of one heavy analysis.

    Signals: ``run_requested()``, ``cancel_requested()``.
    """

    run_requested = Signal()
    cancel_requested = Signal()

    def __init__(self, run_text: str = "Analyze", parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(8)
        self.run = QPushButton(run_text)
        self.run.setObjectName("runButton")
        self.run.clicked.connect(self.run_requested)
        self.status = muted_label(wrap=False)
        self.bar = QProgressBar()
        self.bar.setFixedWidth(160)
        self.cancel = QPushButton("Cancel")
        self.cancel.setObjectName("cancelButton")
        self.cancel.clicked.connect(self._cancel)
        lay.addWidget(self.run)
        lay.addWidget(self.bar)
        lay.addWidget(self.cancel)
        lay.addWidget(self.status, 1)
        self.finish("")

    @property
    def busy(self) -> bool:
        return not self.cancel.isHidden()

    def begin(self, text: str) -> None:
        self.status.setText(text)
        self.bar.setRange(0, 0)
        self.bar.show()
        self.cancel.show()
        self.cancel.setEnabled(True)
        self.run.setEnabled(False)

    def report(self, payload) -> None:
        if not show_fraction(self.bar, payload):
            return
        self.status.setText(f"{payload.checked:,} of {payload.total:,} · "
                            f"{payload.elapsed_s:.1f} s")

    def _cancel(self) -> None:
        self.cancel.setEnabled(False)
        self.status.setText("Cancelling…")
        self.cancel_requested.emit()

    def finish(self, text: str) -> None:
        self.status.setText(text)
        self.bar.hide()
        self.cancel.hide()
        self.run.setEnabled(True)


def side_header(title: str, caption: str = "") -> tuple[QWidget, QLabel]:
    """``Input`` / ``Output`` with a muted caption beside it; returns the caption label."""
    box = QWidget()
    lay = QHBoxLayout(box)
    lay.setContentsMargins(2, 0, 2, 0)
    lay.addWidget(title_label(title, "sideTitle"))
    cap = muted_label(caption, wrap=False)
    cap.setObjectName("sideCaption")
    lay.addWidget(cap, 1)
    return box, cap


def input_and_output(split: QSplitter, make: Callable[[], QWidget]
                     ) -> tuple[list[QWidget], list[QLabel]]:
    """An ``Input`` and an ``Output`` side in ``split``: each a widget made by ``make``
    under its ``side_header``. Returns the two widgets and the two header captions."""
    widgets, captions = [], []
    for title in ("Input", "Output"):
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        header, caption = side_header(title)
        lay.addWidget(header)
        widget = make()
        lay.addWidget(widget, 1)
        split.addWidget(box)
        widgets.append(widget)
        captions.append(caption)
    return widgets, captions
