"""The status bar's right side: what runs, a progress bar, and Cancel."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy,
                               QWidget)


def format_loss(loss) -> str:
    if loss is None:
        return "–"
    if isinstance(loss, (tuple, list)):
        return "(" + ", ".join(f"{x:.4g}" for x in loss) + ")"
    return f"{loss:.6g}"


def progress_text(payload) -> str:
    """"Searching · 776 checked · 1.2 s · best loss (raw) 0.57": the phase, then what it did.
    The search reports raw scores (the percent needs the whole lattice's bounds): said so,
    as Explore's "Loss (raw)" column and the result card's "(raw …)" do."""
    parts = [getattr(payload, "phase_title", "") or "Working"]
    if payload.checked:
        parts.append(f"{payload.checked:,} checked")
    parts.append(f"{payload.elapsed_s:.1f} s")
    if payload.best_loss is not None:
        parts.append(f"best loss (raw) {format_loss(payload.best_loss)}")
    return " · ".join(parts)


def show_fraction(bar: QProgressBar, payload) -> bool:
    """Set ``bar`` from an engine ``Progress`` (or anything with ``fraction`` and
    ``total``); False, and the bar unchanged, when it carries no fraction."""
    fraction = getattr(payload, "fraction", None)
    if fraction is None or not (getattr(payload, "total", 0)
                                or getattr(payload, "done", None) is not None):
        return False
    bar.setRange(0, 1000)
    bar.setValue(int(fraction * 1000))
    return True


class ProgressStatus(QWidget):
    cancel_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 6, 0)
        lay.setSpacing(8)
        self.label = QLabel()
        self.label.setObjectName("progressLabel")
        self.bar = QProgressBar()
        self.bar.setFixedWidth(180)
        self.bar.setTextVisible(True)
        self.cancel = QPushButton("Cancel")
        self.cancel.setObjectName("cancelButton")
        # its text's width, not whatever the status bar leaves over (it grew 200 px wide)
        self.cancel.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.cancel.clicked.connect(self.cancel_requested)
        lay.addStretch(1)
        lay.addWidget(self.label)
        lay.addWidget(self.bar)
        lay.addWidget(self.cancel)
        self.finish()

    def begin(self, label: str, cancellable: bool = True) -> None:
        self.label.setText(label)
        self.bar.setRange(0, 0)  # busy until the first report
        self.cancel.setEnabled(True)
        for w in (self.label, self.bar):
            w.show()
        self.cancel.setVisible(cancellable)
        self.show()

    def report(self, payload) -> None:
        """Show an engine ``Progress`` (or anything with ``fraction``)."""
        if not show_fraction(self.bar, payload):
            return
        self.label.setText(progress_text(payload))

    def cancelling(self) -> None:
        self.cancel.setEnabled(False)
        self.label.setText("Cancelling…")

    def finish(self) -> None:
        for w in (self.label, self.bar, self.cancel):
            w.hide()
        # idle, the widget itself is hidden: its stretch took the status bar's room and
        # cut its messages short ("…776 of 12,960 ch")
        self.hide()
