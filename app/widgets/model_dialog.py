"""Add or edit one privacy model: every model by its human name with a one-line
explanation, its parameters as a form built from the engine's declarations
(``engine.schema``, ``app.widgets.param_form``); the engine validates on accept."""
from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel,
                               QVBoxLayout)

from app.widgets.param_form import ParamForm
from engine.errors import AnonymistError
from engine.privacy import MODELS, model_from_dict


NO_SENSITIVE = ("No attribute is sensitive yet. This model protects the values of a "
                "sensitive attribute (a diagnosis, an income): set that attribute's type to "
                "Sensitive in Configure > Attributes, then add the model.")


def describe_model(d: dict) -> str:
    """A short label of a ``[[privacy]]`` table: '5-anonymity', "Distinct l-diversity
    (l = 2) of 'disease'"; the table as written when the engine refuses it."""
    try:
        model = model_from_dict(d)
    except AnonymistError:
        params = ", ".join(f"{k} = {v}" for k, v in d.items() if k != "model")
        return f"{d.get('model', '?')} ({params}) — invalid"
    if model.name == "k-anonymity":
        return model.describe()
    shown = [f"{p.title} = {model.choice_text(p)}" for p in model.params
             if p.kind != "attribute" and getattr(model, p.name) is not None]
    text = f"{model.label} ({', '.join(shown)})" if shown else model.label
    attribute = getattr(model, "attribute", None)
    return text + (f" of '{attribute}'" if attribute else "")


class PrivacyModelDialog(QDialog):
    """``value()`` is the ``[[privacy]]`` dict; the engine validates it on accept."""

    def __init__(self, model: dict | None = None, attributes: list[str] = (), parent=None,
                 sensitive: list[str] | None = None):
        """``attributes``: the choices of a model's sensitive attribute; ``sensitive``: the
        attributes whose type is sensitive (None: not checked), the only ones accepted."""
        super().__init__(parent)
        self.setWindowTitle("Edit privacy model" if model else "Add privacy model")
        self.setMinimumWidth(460)
        self.attributes = list(attributes)
        self.sensitive = None if sensitive is None else list(sensitive)
        lay = QVBoxLayout(self)
        top = QFormLayout()
        self.kind = QComboBox()
        self.kind.setObjectName("modelKind")
        for name, cls in MODELS.items():
            self.kind.addItem(cls.label or name, name)
            self.kind.setItemData(self.kind.count() - 1, cls.summary, 3)  # ToolTipRole
        top.addRow("Model", self.kind)
        lay.addLayout(top)
        self.summary = QLabel()
        self.summary.setObjectName("modelSummary")
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        self.form: ParamForm | None = None
        self.form_slot = QVBoxLayout()
        lay.addLayout(self.form_slot)
        #: why a model of a sensitive attribute cannot be added yet
        self.note = QLabel(NO_SENSITIVE)
        self.note.setObjectName("errorLabel")
        self.note.setWordWrap(True)
        self.note.hide()
        lay.addWidget(self.note)
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
            self.kind.setCurrentIndex(max(0, self.kind.findData(model.get("model"))))
            self.kind.setEnabled(False)
        self.kind.currentIndexChanged.connect(lambda _: self._build({}))
        self._build(model or {})

    @property
    def model_name(self) -> str:
        return self.kind.currentData()

    def set_model(self, name: str) -> None:
        """Show the form of the model named ``name`` (its job-file name)."""
        self.kind.setCurrentIndex(self.kind.findData(name))

    def _build(self, values: dict) -> None:
        cls = MODELS[self.model_name]
        self.summary.setText(cls.summary)
        if self.form is not None:
            self.form_slot.removeWidget(self.form)
            self.form.hide()
            self.form.setParent(None)
            self.form.deleteLater()
        self.form = ParamForm(cls.params, self.attributes, self)
        self.form.set_values({k: v for k, v in values.items() if k != "model"})
        self.form_slot.addWidget(self.form)
        self.error.hide()
        self.note.setVisible(self._needs_attribute() and not self.attributes)
        # once the new form is shown (Qt shows a widget added to a visible parent later)
        QTimer.singleShot(0, self._fit_height)

    def _fit_height(self) -> None:
        """Fit the form's height, growing or shrinking: the window keeps its size when the
        model changes (leaving empty space after a taller form) and the minimum Qt derives
        ignores wrapped help lines, which were squashed."""
        lay = self.layout()
        lay.activate()
        width = self.width()
        needed = (lay.totalHeightForWidth(width) if lay.hasHeightForWidth()
                  else lay.totalSizeHint().height())
        needed = max(needed, self.minimumSizeHint().height())
        if needed != self.height():
            self.resize(width, needed)

    def value(self) -> dict:
        return {"model": self.model_name, **self.form.values()}

    def _needs_attribute(self) -> bool:
        return any(p.kind == "attribute" for p in MODELS[self.model_name].params)

    def _attribute_problem(self) -> str | None:
        """Why the chosen sensitive attribute is refused (None: it is not)."""
        if not self._needs_attribute() or self.sensitive is None:
            return None
        if not self.sensitive:
            return NO_SENSITIVE
        values = self.form.values()
        for p in MODELS[self.model_name].params:
            name = values.get(p.name)
            if p.kind == "attribute" and name is not None and name not in self.sensitive:
                return (f"'{name}' is not a sensitive attribute: {MODELS[self.model_name].label}"
                        f" protects the values of a sensitive one. Set its type to Sensitive "
                        f"in Configure > Attributes, or choose another attribute.")
        return None

    def accept(self) -> None:
        problem = self._attribute_problem()
        if problem is not None:
            self.error.setText(problem)
            self.error.show()
            return
        try:
            model_from_dict(self.value())
        except AnonymistError as e:
            self.error.setText(str(e))
            self.error.show()
            return
        super().accept()
