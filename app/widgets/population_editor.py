"""The population the data is a sample of: a region preset (its size), or a size or sampling
fraction of one's own. One editor for the job's ``[population]`` (Configure > Privacy
models) and Analyze risk's population model; both edit ``Document.settings.population``.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel,
                               QWidget)

from engine.privacy.population import REGIONS, PopulationModel

CUSTOM = "Custom (size or sampling fraction)"
NONE = "None (not set)"
NONE_TIP = ("No population: k-map with an estimator and population uniqueness need one; "
            "Analyze risk then assumes the USA, as ARX does.")


def records_of(doc) -> int:
    """The number of records a population's sampling fraction refers to: the data's."""
    if doc.row_count is not None:  # out of core once counted
        return doc.row_count
    problem = getattr(doc.result, "problem", None)
    return problem.table.n_records if problem is not None else 1


class PopulationEditor(QWidget):
    """Region preset, or a custom population size / sampling fraction.

    ``allow_none`` adds "None (not set)", for which ``model()`` is None. ``compact`` lays
    the fields out in rows (for a side panel) instead of one line.

    Signals: ``model_changed(PopulationModel | None)``.
    """

    model_changed = Signal(object)

    def __init__(self, model: PopulationModel | None = PopulationModel(), parent=None,
                 allow_none: bool = False, compact: bool = False):
        super().__init__(parent)
        self.n_records = 0
        self.allow_none = allow_none
        self.region = QComboBox()
        self.region.setObjectName("populationRegion")
        if allow_none:
            self.region.addItem(NONE, "")
            self.region.setItemData(0, NONE_TIP, Qt.ItemDataRole.ToolTipRole)
        self.region.addItem(CUSTOM, None)
        for name, size in REGIONS.items():
            self.region.addItem(f"{name} ({size / 1e6:,.1f} M)", name)
        self.region.setToolTip("The population the data was sampled from: a region preset, "
                               "or a size of your own.")
        # sized by a short text, not by "Custom (size or sampling fraction)": in a narrow
        # side panel the longest item squeezed the "Region" label out of sight
        self.region.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.region.setMinimumContentsLength(14)
        self.size = QDoubleSpinBox()
        self.size.setObjectName("populationSize")
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
        rows = (("Region", self.region), ("Size", self.size),
                ("Sampling fraction", self.fraction))
        self._form: QFormLayout | None = None
        if compact:
            lay = self._form = QFormLayout(self)
            lay.setContentsMargins(0, 0, 0, 0)
            for text, w in rows:
                lay.addRow(text, w)
        else:
            lay = QHBoxLayout(self)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.setSpacing(8)
            for text, w in rows:
                lay.addWidget(QLabel(text if w is self.region else text.lower()))
                lay.addWidget(w)
            lay.addStretch(1)
        self._model = model if (model is not None or allow_none) else PopulationModel()
        self._show(self._model)
        self.region.currentIndexChanged.connect(self._region_changed)
        self.size.valueChanged.connect(self._size_changed)
        self.fraction.valueChanged.connect(self._fraction_changed)

    def model(self) -> PopulationModel | None:
        return self._model

    def set_records(self, n_records: int) -> None:
        """The sample size the fraction refers to."""
        self.n_records = n_records
        self._show(self._model)

    def set_model(self, model: PopulationModel | None) -> None:
        self._set(model)

    def show_model(self, model: PopulationModel | None) -> None:
        """Show ``model`` without emitting ``model_changed``."""
        self._model = model
        self._show(model)

    def _show(self, model: PopulationModel | None) -> None:
        n = max(self.n_records, 1)
        for w in (self.region, self.size, self.fraction):
            w.blockSignals(True)
        if model is None:
            self.region.setCurrentIndex(0)
        else:
            self.region.setCurrentIndex(max(0, self.region.findData(model.region)))
            self.size.setMinimum(n)
            self.size.setValue(model.population_size(n))
            self.fraction.setValue(model.fraction(n))
        for w in (self.size, self.fraction):
            w.setEnabled(model is not None)
            if self._form is not None:  # without a population, no size to show
                self._form.setRowVisible(w, model is not None)
        for w in (self.region, self.size, self.fraction):
            w.blockSignals(False)

    def _set(self, model: PopulationModel | None) -> None:
        self._model = model
        self._show(model)
        self.model_changed.emit(model)

    def _region_changed(self, _index: int) -> None:
        region = self.region.currentData()
        if region == "":
            self._set(None)
            return
        n = max(self.n_records, 1)
        fraction = self._model.fraction(n) if self._model is not None else 0.01
        self._set(PopulationModel(region, fraction))

    def _size_changed(self, size: float) -> None:
        self._set(PopulationModel(None, min(1.0, max(self.n_records, 1) / max(size, 1.0))))

    def _fraction_changed(self, fraction: float) -> None:
        self._set(PopulationModel(None, fraction))
