"""Add or edit one privacy model: the form is built from the model's parameters."""
from __future__ import annotations

from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QLabel, QLineEdit, QSpinBox, QVBoxLayout, QWidget)

from app.widgets.model_parameters import Parameter, model_names, parameters_of
from engine.errors import AnonymistError
from engine.privacy import model_from_dict


class PrivacyModelDialog(QDialog):
    """``value()`` is the ``[[privacy]]`` dict; the engine validates it on accept."""

    def __init__(self, model: dict | None = None, attributes: list[str] = (), parent=None):
        super().__init__(parent)
        self.setWindowTitle("Edit privacy model" if model else "Add privacy model")
        self.setMinimumWidth(380)
        self.attributes = list(attributes)
        self._editors: dict[str, QWidget] = {}
        lay = QVBoxLayout(self)
        top = QFormLayout()
        self.kind = QComboBox()
        self.kind.addItems(model_names())
        top.addRow("Model", self.kind)
        lay.addLayout(top)
        self.form_host = QWidget()
        self.form = QFormLayout(self.form_host)
        self.form.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.form_host)
        self.error = QLabel()
        self.error.setObjectName("errorLabel")
        self.error.setWordWrap(True)
        self.error.hide()
        lay.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok |
                                        QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        if model:
            self.kind.setCurrentText(model.get("model", ""))
            self.kind.setEnabled(False)
        self.kind.currentTextChanged.connect(lambda _: self._build())
        self._build(model or {})

    def _editor(self, p: Parameter, value) -> QWidget:
        if p.kind == "int":
            w = QSpinBox()
            w.setRange(int(p.minimum if p.minimum is not None else 0),
                       int(p.maximum if p.maximum is not None else 1_000_000_000))
            w.setValue(int(value if value is not None else p.default or 0))
        elif p.kind == "float":
            w = QDoubleSpinBox()
            w.setDecimals(6 if (p.maximum or 2) <= 1 else 3)
            w.setRange(float(p.minimum if p.minimum is not None else -1e9),
                       float(p.maximum if p.maximum is not None else 1e9))
            w.setSingleStep(0.01 if (p.maximum or 2) <= 1 else 0.5)
            w.setValue(float(value if value is not None else p.default or 0))
        elif p.kind in ("attribute", "choice"):
            w = QComboBox()
            w.addItems(self.attributes if p.kind == "attribute" else list(p.choices))
            if value is not None or p.default is not None:
                w.setCurrentText(str(value if value is not None else p.default))
        else:
            w = QLineEdit("" if value is None and p.default is None else
                          str(value if value is not None else p.default))
        return w

    def _build(self, values: dict | None = None) -> None:
        values = values or {}
        while self.form.rowCount():
            self.form.removeRow(0)
        self._editors.clear()
        for p in parameters_of(self.kind.currentText()):
            w = self._editor(p, values.get(p.name))
            w.setObjectName(f"param_{p.name}")
            self._editors[p.name] = w
            self.form.addRow(p.label or p.name, w)

    def value(self) -> dict:
        d: dict = {"model": self.kind.currentText()}
        for name, w in self._editors.items():
            if isinstance(w, QSpinBox):
                d[name] = w.value()
            elif isinstance(w, QDoubleSpinBox):
                d[name] = w.value()
            elif isinstance(w, QComboBox):
                d[name] = w.currentText()
            else:
                d[name] = w.text()
        return d

    def accept(self) -> None:
        try:
            model_from_dict(self.value())
        except AnonymistError as e:
            self.error.setText(str(e))
            self.error.show()
            return
        super().accept()
