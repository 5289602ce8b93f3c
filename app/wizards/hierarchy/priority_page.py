"""Priority: suppress the values of lowest priority first, one batch per level."""
from __future__ import annotations

from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QLineEdit, QSpinBox,
                               QVBoxLayout, QWidget)

from app.wizards.hierarchy.base_page import BuilderPage
from app.wizards.hierarchy.widgets import ValueOrder
from engine.hierarchy.builders import PrioritySpec

PRIORITIES = (("By frequency (most frequent kept longest)", "frequency"),
              ("By natural order (largest kept longest)", "natural"),
              ("In my own order (first kept longest)", "custom"))


class PriorityPage(BuilderPage):
    builder = PrioritySpec
    subtitle = ("Values of low priority are replaced by the top label first; each level "
                "suppresses one more batch.")

    def options(self) -> QWidget:
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.priority = QComboBox()
        self.priority.setObjectName("priority")
        for text, data in PRIORITIES:
            self.priority.addItem(text, data)
        self.highest_first = QCheckBox("Reverse: keep the others longest")
        self.highest_first.setObjectName("reverse")
        self.max_levels = QSpinBox()
        self.max_levels.setObjectName("maxLevels")
        self.max_levels.setRange(1, 1000)
        self.max_levels.setValue(10)
        self.top_label = QLineEdit("*")
        self.top_label.setObjectName("topLabel")
        form.addRow("Priority", self.priority)
        form.addRow("", self.highest_first)
        form.addRow("Levels at most", self.max_levels)
        form.addRow("Top label", self.top_label)
        lay.addLayout(form)
        self.order = ValueOrder()
        self.order.setMinimumHeight(260)
        self.order.setVisible(False)
        lay.addWidget(self.order)
        self.priority.currentIndexChanged.connect(self._priority_changed)
        self.highest_first.toggled.connect(self.changed)
        self.max_levels.valueChanged.connect(self.changed)
        self.top_label.textChanged.connect(self.changed)
        self.order.changed.connect(self.changed)
        return box

    def _priority_changed(self) -> None:
        custom = self.priority.currentData() == "custom"
        if custom and not self.order.values():
            self.order.set_values(self.natural_values())
        self.order.setVisible(custom)
        self.changed()

    def spec(self) -> PrioritySpec:
        custom = self.priority.currentData() == "custom"
        return PrioritySpec(self.wiz.data_type, self.priority.currentData(),
                            not self.highest_first.isChecked(),
                            tuple(self.order.values()) if custom else (),
                            self.max_levels.value(), self.top_label.text())

    def fill(self, spec: PrioritySpec) -> None:  # type: ignore[override]
        self.priority.setCurrentIndex(max(0, self.priority.findData(spec.priority)))
        self.highest_first.setChecked(not spec.highest_first)
        self.max_levels.setValue(spec.max_levels)
        self.top_label.setText(spec.top_label)
        self.order.set_values(list(spec.order))
        self.order.setVisible(spec.priority == "custom")
