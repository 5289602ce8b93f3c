"""Editors of the perspective's settings: risk thresholds and the population model."""
from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFrame, QHBoxLayout, QLabel,
                               QWidget)

from app.perspectives.risk.analysis import REGIONS, PopulationModel, Thresholds
from app.perspectives.risk.common import muted_label

CUSTOM = "Custom (sampling fraction)"


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


class PopulationEditor(QWidget):
    """Region preset (its population size) or a custom sampling fraction.

    Signals: ``model_changed(PopulationModel)``.
    """

    model_changed = Signal(object)

    def __init__(self, model: PopulationModel = PopulationModel(), parent=None):
        super().__init__(parent)
        self.n_records = 0
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(8)
        self.region = QComboBox()
        self.region.addItem(CUSTOM, None)
        for name, size in REGIONS.items():
            self.region.addItem(f"{name} ({size / 1e6:,.1f} M)", name)
        self.size = QDoubleSpinBox()
        self.size.setDecimals(0)
        self.size.setRange(1, 1e11)
        self.size.setGroupSeparatorShown(True)
        self.size.setKeyboardTracking(False)
        self.size.setToolTip("Population size: the sampling fraction is records / size.")
        self.size.setMinimumWidth(130)
        self.fraction = QDoubleSpinBox()
        self.fraction.setDecimals(8)
        self.fraction.setRange(1e-8, 1.0)
        self.fraction.setSingleStep(0.01)
        self.fraction.setKeyboardTracking(False)
        self.fraction.setToolTip("Share of the population that is in the data.")
        for text, w in (("Population", self.region), ("size", self.size),
                        ("sampling fraction", self.fraction)):
            lay.addWidget(QLabel(text))
            lay.addWidget(w)
        lay.addStretch(1)
        self._model = model
        self._show(model)
        self.region.currentIndexChanged.connect(self._region_changed)
        self.size.valueChanged.connect(self._size_changed)
        self.fraction.valueChanged.connect(self._fraction_changed)

    def model(self) -> PopulationModel:
        return self._model

    def set_records(self, n_records: int) -> None:
        """The sample size the fraction refers to."""
        self.n_records = n_records
        self._show(self._model)

    def set_model(self, model: PopulationModel) -> None:
        self._set(model)

    def _show(self, model: PopulationModel) -> None:
        n = max(self.n_records, 1)
        for w in (self.region, self.size, self.fraction):
            w.blockSignals(True)
        self.region.setCurrentIndex(max(0, self.region.findData(model.region)))
        self.size.setMinimum(n)
        self.size.setValue(model.population_size(n))
        self.fraction.setValue(model.fraction(n))
        for w in (self.region, self.size, self.fraction):
            w.blockSignals(False)

    def _set(self, model: PopulationModel) -> None:
        self._model = model
        self._show(model)
        self.model_changed.emit(model)

    def _region_changed(self, _index: int) -> None:
        region = self.region.currentData()
        fraction = self._model.fraction(max(self.n_records, 1))
        self._set(PopulationModel(region, fraction))

    def _size_changed(self, size: float) -> None:
        self._set(PopulationModel(None, min(1.0, max(self.n_records, 1) / max(size, 1.0))))

    def _fraction_changed(self, fraction: float) -> None:
        self._set(PopulationModel(None, fraction))
