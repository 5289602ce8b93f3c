"""Utility metric: measure, aggregate function, monotonic variant, gs-factor, and the
response attribute of the classification metric."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QGroupBox, QHBoxLayout, QLabel,
                               QSlider, QVBoxLayout)

from app.document import Document
from app.perspectives.configure.settings_form import SettingsForm
from app.widgets.param_form import ParamForm
from engine.metrics import AGGREGATES, METRICS

#: metrics that need a response attribute (job file: ``response = "<attribute>"``)
NEEDS_RESPONSE = ("classification",)
#: parameters with rows of their own above (not repeated in a metric's parameter form)
OWN_ROWS = ("response",)


class UtilityPanel(SettingsForm):
    def __init__(self, document: Document, parent=None):
        super().__init__(document, parent)
        form = self.form
        self.metric = QComboBox()
        self.metric.setObjectName("metric")
        for name in METRICS:
            self.metric.addItem(METRICS[name].label or name, name)
            self.metric.setItemData(self.metric.count() - 1, METRICS[name].summary,
                                    Qt.ItemDataRole.ToolTipRole)
        form.addRow("Measure", self.metric)
        self.response = QComboBox()
        self.response.setObjectName("response")
        self.response.setToolTip("The attribute a classifier trained on the output would "
                                 "predict (classification accuracy only)")
        form.addRow("Response attribute", self.response)
        self.aggregate = QComboBox()
        self.aggregate.addItems(AGGREGATES)
        form.addRow("Aggregate function", self.aggregate)
        self.monotonic = QCheckBox("Monotonic variant")
        self.monotonic.setToolTip("The variant that ignores suppression, so that the "
                                  "optimal search may prune with it")
        form.addRow("", self.monotonic)
        self.gs = QSlider(Qt.Orientation.Horizontal)
        self.gs.setObjectName("gsFactor")
        self.gs.setRange(0, 100)
        self.gs.setMinimumWidth(120)
        self.gs.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.gs.setTickInterval(25)
        self.gs.setToolTip("0: prefer suppressing records; 1: prefer generalizing values "
                           "(ARX's gs-factor)")
        self.gs_value = QLabel()
        self.gs_value.setMinimumWidth(36)
        form.addRow("gs-factor", self.gs_value)
        slider_row = QHBoxLayout()
        slider_row.addWidget(QLabel("Suppress"))
        slider_row.addWidget(QLabel("Generalize"), 0, Qt.AlignmentFlag.AlignRight)
        form.addRow(self.gs)
        form.addRow(slider_row)
        self.gs.valueChanged.connect(self._show_gs)
        self._metric_parameter_rows()
        document.data_changed.connect(self._refresh)  # the response attribute's choices
        self.follow(self.metric.activated, self.response.activated, self.aggregate.activated,
                    self.monotonic.toggled, self.gs.valueChanged)

    def _metric_parameter_rows(self) -> None:
        """Parameters a metric declares beyond the common ones (the publisher payout's
        attacker, benefits and costs), one form per metric from its declarations."""
        self.metric_forms: dict[str, ParamForm] = {}
        self.metric_box = QGroupBox()
        self.metric_box.setObjectName("metricParameters")
        box = QVBoxLayout(self.metric_box)
        for name, cls in METRICS.items():
            params = [p for p in getattr(cls, "extra_params", ()) if p.name not in OWN_ROWS]
            if params:
                form = self.param_form(params, f"metric_{name}")
                box.addWidget(form)
                self.metric_forms[name] = form
        self.form.addRow(self.metric_box)

    def _show_gs(self, value: int) -> None:
        self.gs_value.setText(f"{value / 100:.2f}")

    def show_settings(self) -> None:
        m = self.doc.settings.metric
        name = m.get("name", "loss")
        self.metric.setCurrentIndex(max(0, self.metric.findData(name)))
        cls = METRICS.get(name)
        self.aggregate.setCurrentText(m.get("aggregate") or
                                      (cls.default_aggregate if cls else "sum"))
        self.monotonic.setChecked(bool(m.get("monotonic", False)))
        self.monotonic.setEnabled(bool(getattr(cls, "has_monotonic_variant", True)))
        self.gs.setValue(round(float(m.get("gs_factor", 0.5)) * 100))
        columns = self.doc.column_names
        if [self.response.itemText(i) for i in range(self.response.count())] != columns:
            self.response.clear()
            self.response.addItems(columns)
        response = m.get("response")
        if isinstance(response, list):
            response = response[0] if response else None
        self.response.setCurrentIndex(self.response.findText(response) if response else -1)
        self.response.setEnabled(name in NEEDS_RESPONSE)
        self.form.setRowVisible(self.response, name in NEEDS_RESPONSE)
        self._show_gs(self.gs.value())
        for metric, form in self.metric_forms.items():
            form.setVisible(metric == name)
            if metric == name:
                form.set_values(m)
        self.metric_box.setVisible(name in self.metric_forms)
        cls = METRICS.get(name)
        self.metric_box.setTitle(f"{getattr(cls, 'label', '') or name} parameters")

    def apply(self) -> None:
        name = self.metric.currentData()
        old = self.doc.settings.metric
        # a metric's own parameters go with it: switching metric leaves the old ones out
        own = {p.name for form in self.metric_forms.values() for p in form.params}
        d = {k: v for k, v in old.items() if k not in own}
        d.update(name=name, aggregate=self.aggregate.currentText(),
                 monotonic=self.monotonic.isChecked(), gs_factor=self.gs.value() / 100)
        form = self.metric_forms.get(name)
        if form is not None:  # the shown values, or the declared ones for a new metric
            d.update(form.values() if name == old.get("name") else
                     {p.name: p.initial for p in form.params if p.initial is not None})
        if d["name"] in NEEDS_RESPONSE:
            response = self.response.currentText() or self._default_response()
            if response:
                d["response"] = response
        else:
            d.pop("response", None)
        if d != self.doc.settings.metric:
            self.doc.set_metric(d)

    def _default_response(self) -> str | None:
        """A first guess: the last column that is not a quasi-identifier (ARX's data
        sets keep the class label last), else the last column."""
        if not self.doc.has_data:
            return None
        names = self.doc.column_names
        others = [n for n in names if self.doc.attributes.get(n) is None
                  or self.doc.attributes[n].type not in ("quasi-identifying", "identifying")]
        return (others or names or [None])[-1]
