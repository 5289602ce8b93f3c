"""Editors of the perspective's settings: risk thresholds (the population model's editor is
shared with Configure: ``app.widgets.population_editor``)."""
from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QDoubleSpinBox, QFrame, QHBoxLayout, QLabel

from engine.analysis.risk_comparison import Thresholds
from app.perspectives.risk.common import muted_label


def percent_spin(value: float, tip: str, low: float = 0.01) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(low, 100.0)
    spin.setDecimals(2)
    spin.setSuffix(" %")
    spin.setValue(value * 100)
    spin.setToolTip(tip)
    spin.setKeyboardTracking(False)
    spin.setMinimumWidth(86)
    return spin


class ThresholdBar(QFrame):
    """Acceptable risk figures; changing one recolours the views.

    Signals: ``thresholds_changed(Thresholds)``.
    """

    thresholds_changed = Signal(object)

    def __init__(self, thresholds: Thresholds = Thresholds(), parent=None):
        super().__init__(parent)
        self.setObjectName("thresholdBar")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(12, 6, 12, 6)
        lay.setSpacing(8)
        self.highest = percent_spin(thresholds.highest_risk,
                                    "Highest acceptable risk of one record; records above it "
                                    "are at risk (20 % is a class size of 5).")
        self.records = percent_spin(thresholds.records_at_risk,
                                    "Acceptable share of records at risk.", 0.0)
        self.success = percent_spin(thresholds.success_rate,
                                    "Acceptable success rate of an attacker (share of records "
                                    "re-identified on average).", 0.0)
        self.class_size = muted_label(wrap=False)
        for text, spin in (("Highest risk", self.highest), ("Records at risk", self.records),
                           ("Success rate", self.success)):
            lay.addWidget(QLabel(text))
            lay.addWidget(spin)
            if spin is self.highest:
                lay.addWidget(self.class_size)
            lay.addSpacing(10)
            spin.valueChanged.connect(self._changed)
        lay.addStretch(1)
        self._update_class_size()

    def thresholds(self) -> Thresholds:
        return Thresholds(self.highest.value() / 100, self.records.value() / 100,
                          self.success.value() / 100)

    def set_thresholds(self, t: Thresholds) -> None:
        for spin, value in ((self.highest, t.highest_risk), (self.records, t.records_at_risk),
                            (self.success, t.success_rate)):
            with QSignalBlocker(spin):
                spin.setValue(value * 100)
        self._changed()

    def _update_class_size(self) -> None:
        k = 100.0 / self.highest.value()
        self.class_size.setText(f"(classes of ≥ {k:.3g})")

    def _changed(self, *_args) -> None:
        self._update_class_size()
        self.thresholds_changed.emit(self.thresholds())
