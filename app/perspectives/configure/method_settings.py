"""The settings of sdcMicro's methods on one attribute (docs/guide/survey-methods.md):
PRAM, noise, rank swapping and shuffling on insensitive attributes, the importance of a
quasi-identifier under cell suppression. A form generated from the declarations
(``engine.config.AttributeConfig``); only the rows of the attribute's method show."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout, QWidget

from app.widgets.param_form import ParamForm
from engine.config import AttributeConfig
from engine.schema import dataclass_params
from engine.transform.perturbation import ALL_KEYS, METHOD_KEYS

#: the keys this form edits, in the declarations' order
KEYS = ("importance",) + ALL_KEYS
PARAMS = tuple(p for p in dataclass_params(AttributeConfig) if p.name in KEYS)


def shown_keys(a, cells: bool) -> tuple[str, ...]:
    """The keys that apply to attribute ``a`` (its method; importance under cells)."""
    keys = METHOD_KEYS.get(a.transformation, ())
    if cells and a.type == "quasi-identifying":
        keys = ("importance",) + keys
    return keys


class MethodSettings(QWidget):
    """``edited(dict)``: the keys of the shown method (None for the others)."""

    edited = Signal(dict)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("methodSettings")
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)
        self._lay.setSpacing(2)
        # the help lines are tooltips here: say so once, and what "not set" means
        self.hint = QLabel("A setting left 'not set' takes the default its tooltip names.")
        self.hint.setObjectName("paramHelp")
        self.hint.setStyleSheet("color: #667085; font-size: small;")
        self._lay.addWidget(self.hint)
        self._columns: tuple[str, ...] = ()
        self._keys: tuple[str, ...] = ()
        #: the attribute form's label column: its fields line up with the form's
        self.label_width = 0
        self.form = self._build(())
        # hidden until an attribute's method has settings: a shown form of every row
        # would count in the window's minimum height (taller than a 1280 x 800 screen
        # before any data is open)
        self.hide()

    def _build(self, columns) -> ParamForm:
        form = ParamForm(PARAMS, attributes=list(columns))
        form.setObjectName("methodParams")
        # the help as tooltips only (field and label): a help line under each of PRAM's
        # five rows would push the hierarchy table off a 1280 x 800 window
        for line in form.help_labels.values():
            line.hide()
        form.changed.connect(self._changed)
        self._align(form)
        self._lay.addWidget(form)
        return form

    def align(self, label_width: int, spacing: int, row_spacing: int) -> None:
        """Line the fields up with the attribute form's (labels as wide as its label
        column, its spacing)."""
        self.label_width = label_width
        self._spacing = (spacing, row_spacing)
        self._align(self.form)

    def label_hint(self) -> int:
        """The width its widest label asks for."""
        return max((item.widget().sizeHint().width() for i in range(self.form.form.rowCount())
                    if (item := self.form.form.itemAt(i, QFormLayout.ItemRole.LabelRole))
                    is not None and item.widget() is not None), default=0)

    def _align(self, form: ParamForm) -> None:
        if not self.label_width:
            return
        form.form.setHorizontalSpacing(self._spacing[0])
        form.form.setVerticalSpacing(self._spacing[1])
        for i in range(form.form.rowCount()):
            label = form.form.itemAt(i, QFormLayout.ItemRole.LabelRole)
            if label is not None and label.widget() is not None:
                label.widget().setMinimumWidth(self.label_width)

    def show_attribute(self, a, columns, cells: bool, enabled: bool) -> None:
        columns = tuple(columns)
        if columns != self._columns:
            self.form.setParent(None)
            self.form.deleteLater()
            self.form = self._build(columns)
            self._columns = columns
        self._keys = shown_keys(a, cells) if enabled else ()
        self.form.set_values({k: getattr(a, k) for k in KEYS if getattr(a, k) is not None})
        self._show_rows()
        self.hint.setVisible(any(k != "importance" for k in self._keys))
        self.setVisible(bool(self._keys))

    def _show_rows(self) -> None:
        """The method's rows, less those its other settings rule out: alpha without
        invariant PRAM, delta without correlated2 noise, noise with it (``values``
        drops them)."""
        shown = set(self._keys)
        if not self.form.value("invariant"):
            shown.discard("alpha")
        if self.form.value("noise_method") == "correlated2":
            shown.discard("noise")
        else:
            shown.discard("delta")
        for i, p in enumerate(PARAMS):
            self.form.form.setRowVisible(i, p.name in shown)

    def values(self) -> dict:
        shown = self.form.values()
        out = {k: None for k in KEYS}
        for k in self._keys:
            v = shown.get(k)
            if k == "invariant":
                v = True if v else None
            out[k] = v
        if not out.get("invariant"):
            out["alpha"] = None  # alpha applies to invariant PRAM only
        if out.get("noise_method") != "correlated2":
            out["delta"] = None
        elif "noise" in out:
            out["noise"] = None
        return out

    def _changed(self) -> None:
        self._show_rows()
        if self._keys:
            self.edited.emit(self.values())
