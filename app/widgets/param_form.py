"""A form built from parameter declarations (``engine.schema.Param``): one row per
parameter, a widget chosen by its kind, its declared range, unit and choices, its
help as a tooltip and as a visible line below.

    form = ParamForm(KMap.params, attributes=["disease"])
    form.set_values({"k": 10})
    form.values()        # {"k": 10, "estimator": "none", "significance": 0.01}
    form.changed.connect(...)

Kinds: bool -> check box; choice -> combo box of the declared choices (their labels);
attribute -> combo box of ``attributes``; int / float -> spin boxes within the declared
range (an optional parameter without a value shows "not set"); text / path -> line
edit (empty: not set). The engine still checks the values (rules across parameters).
"""
from __future__ import annotations

import math

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QLabel,
                               QLineEdit, QSpinBox, QVBoxLayout, QWidget)

from engine.schema import Param

NOT_SET = "not set"
_BIG = 1_000_000_000


def _optional(p: Param) -> bool:
    return not p.required and p.default is None


def _decimals(p: Param) -> int:
    """Enough decimals for the declared default (1e-6 needs 8) and for fractions."""
    d = 6 if p.high is not None and p.high <= 1 else 3
    if isinstance(p.default, float) and 0 < abs(p.default) < 1e-3:
        d = max(d, min(12, math.ceil(-math.log10(abs(p.default))) + 2))
    return d


class ParamForm(QWidget):
    """Rows for ``params``; ``values()`` gives the job-file table of what is shown."""

    changed = Signal()

    def __init__(self, params, attributes=(), parent=None):
        super().__init__(parent)
        self.params = tuple(params)
        self.attributes = list(attributes)
        self.editors: dict[str, QWidget] = {}
        self.help_labels: dict[str, QLabel] = {}
        self._loading = False
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.form = QFormLayout()
        lay.addLayout(self.form)
        for p in self.params:
            w = self._editor(p)
            w.setObjectName(f"param_{p.name}")
            w.setToolTip(p.help)
            self.editors[p.name] = w
            box = QWidget()
            col = QVBoxLayout(box)
            col.setContentsMargins(0, 0, 0, 0)
            col.setSpacing(1)
            col.addWidget(w)
            help_line = QLabel(p.help)
            help_line.setObjectName("paramHelp")
            help_line.setWordWrap(True)
            help_line.setStyleSheet("color: #667085; font-size: small;")  # muted, readable
            col.addWidget(help_line)  # first: shown without a parent it is a window
            help_line.setVisible(bool(p.help))
            self.help_labels[p.name] = help_line
            label = QLabel(p.title)
            label.setToolTip(p.help)
            self.form.addRow(label, box)
        self.set_values({})

    # --- widgets ---------------------------------------------------------------------
    def _editor(self, p: Param) -> QWidget:
        if p.kind == "bool":
            w = QCheckBox()
            w.toggled.connect(self._changed)
        elif p.kind in ("choice", "attribute"):
            w = QComboBox()
            if p.kind == "choice":
                for c in p.choices:
                    w.addItem(p.choice_label(c), c)
            else:
                for a in self.attributes:
                    w.addItem(a, a)
            if _optional(p):
                w.insertItem(0, NOT_SET, None)
            w.currentIndexChanged.connect(self._changed)
        elif p.kind == "int":
            w = QSpinBox()
            low = -_BIG if p.low is None else int(math.floor(p.low)) + (1 if p.low_open else 0)
            high = _BIG if p.high is None else int(math.ceil(p.high)) - (1 if p.high_open else 0)
            if _optional(p):
                low -= 1
                w.setSpecialValueText(NOT_SET)
            w.setRange(low, high)
            # "100,000 transformations" like every count the app writes, not "100000"
            w.setGroupSeparatorShown(True)
            if p.unit:
                w.setSuffix(f" {p.unit}")
            w.valueChanged.connect(self._changed)
        elif p.kind == "float":
            w = QDoubleSpinBox()
            decimals = _decimals(p)
            w.setDecimals(decimals)
            step = 10.0 ** -decimals
            low = -1e9 if p.low is None else p.low + (step if p.low_open else 0.0)
            high = 1e9 if p.high is None else p.high - (step if p.high_open else 0.0)
            if _optional(p):
                low -= step
                w.setSpecialValueText(NOT_SET)
            w.setRange(low, high)
            w.setSingleStep(0.01 if (p.high is not None and p.high <= 1) else 0.5)
            if p.unit:
                w.setSuffix(f" {p.unit}")
            w.valueChanged.connect(self._changed)
        else:
            w = QLineEdit()
            w.setPlaceholderText(NOT_SET if _optional(p) else p.title)
            w.textChanged.connect(self._changed)
        return w

    def _changed(self, *_):
        if not self._loading:
            self.changed.emit()

    # --- values ----------------------------------------------------------------------
    def set_values(self, values: dict) -> None:
        """Show ``values`` (the parameters' initial values where absent)."""
        self._loading = True
        try:
            for p in self.params:
                self._show(p, values.get(p.name, p.initial))
        finally:
            self._loading = False

    def _show(self, p: Param, v) -> None:
        w = self.editors[p.name]
        if isinstance(w, QCheckBox):
            w.setChecked(bool(v))
        elif isinstance(w, QComboBox):
            if isinstance(v, (list, tuple)):
                v = v[0] if v else None
            i = w.findData(v)
            if i < 0 and v is not None and p.kind == "attribute":
                w.addItem(str(v), v)  # an attribute the list does not know: keep it shown
                i = w.count() - 1
            w.setCurrentIndex(i if i >= 0 else (0 if w.count() else -1))
        elif isinstance(w, (QSpinBox, QDoubleSpinBox)):
            w.setValue(w.minimum() if v is None else v)
        else:
            w.setText("" if v is None else str(v))

    def value(self, name: str):
        """The shown value of one parameter (None: not set)."""
        p = next(q for q in self.params if q.name == name)
        w = self.editors[name]
        if isinstance(w, QCheckBox):
            return w.isChecked()
        if isinstance(w, QComboBox):
            return w.currentData()
        if isinstance(w, (QSpinBox, QDoubleSpinBox)):
            if _optional(p) and w.value() == w.minimum():
                return None
            return int(w.value()) if isinstance(w, QSpinBox) else float(w.value())
        text = w.text().strip()
        return text or None

    def values(self) -> dict:
        """The job-file table of the shown values (parameters not set are left out)."""
        out = {}
        for p in self.params:
            v = self.value(p.name)
            if v is not None:
                out[p.name] = v
        return out
