"""Ordering: values in natural or user-defined order, grouped level by level."""
from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QLabel, QVBoxLayout, QWidget

from app.wizards.hierarchy.base_page import BuilderPage
from app.wizards.hierarchy.widgets import LevelsEditor, ValueOrder, add_top_label
from engine.data.datatypes import Kind
from engine.hierarchy.builders import OrderingSpec

NUMERIC = (Kind.INTEGER, Kind.DECIMAL, Kind.DATE)


def label_functions(kind: Kind) -> list[str]:
    functions = ["set", "bounds", "prefix", "constant"]
    if kind in NUMERIC:
        functions.append("mean")
    if kind in (Kind.INTEGER, Kind.DECIMAL):
        functions.append("geometric_mean")
    return functions


class OrderingPage(BuilderPage):
    builder = OrderingSpec
    subtitle = ("Values are put in order, then neighbours are grouped; each level "
                "groups the groups of the level below.")

    def options(self) -> QWidget:
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        title = QLabel("Grouping levels")
        title.setObjectName("subTitle")
        lay.addWidget(title)
        self.levels = LevelsEditor(label_functions(self.wiz.data_type.kind), default="set")
        self.levels.setObjectName("levels")
        self.levels.changed.connect(self.changed)
        lay.addWidget(self.levels)
        self.top_label = add_top_label(lay)
        self.top_label.textChanged.connect(self.changed)
        self.custom = QCheckBox("Use my own order of the values")
        self.custom.setObjectName("customOrder")
        self.custom.toggled.connect(self._custom_toggled)
        lay.addWidget(self.custom)
        self.order = ValueOrder()
        self.order.setMinimumHeight(260)
        self.order.setVisible(False)
        self.order.changed.connect(self.changed)
        lay.addWidget(self.order)
        return box

    def _custom_toggled(self, on: bool) -> None:
        if on and not self.order.values():
            self.order.set_values(self.natural_values())
        self.order.setVisible(on)
        self.changed()

    def spec(self) -> OrderingSpec:
        order = tuple(self.order.values()) if self.custom.isChecked() else ()
        return OrderingSpec(self.wiz.data_type, order, self.levels.levels(),
                            self.top_label.text())

    def fill(self, spec: OrderingSpec) -> None:  # type: ignore[override]
        self.levels.set_levels(spec.levels)
        self.top_label.setText(spec.top_label)
        self.custom.setChecked(bool(spec.order))
        self.order.set_values(list(spec.order) if spec.order else [])
        self.order.setVisible(bool(spec.order))
