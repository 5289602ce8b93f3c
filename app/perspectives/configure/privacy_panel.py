"""Privacy models (add / edit / remove), the suppression limit and the population."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QDialog, QDoubleSpinBox, QFormLayout, QGroupBox, QHBoxLayout,
                               QLabel, QListView, QPushButton, QStackedWidget, QVBoxLayout,
                               QWidget)

from app.document import Document
from app.models.privacy_models import PrivacyModelList
from app.widgets.model_dialog import PrivacyModelDialog
from app.widgets.population_editor import PopulationEditor, records_of
from engine.config import SENSITIVE
from engine.errors import AnonymistError
from engine.privacy.population import PopulationModel


#: (non-breaking hyphens: "k-" at a line's end and "anonymity" on the next read badly)
NO_MODEL = ("No privacy model yet. Add… one: k\u2011anonymity (every record hides among "
            "at least k that look alike) is the usual start; l\u2011diversity and "
            "t\u2011closeness also protect the values of a sensitive attribute.")


class PrivacyPanel(QWidget):
    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.doc = document
        self.model = PrivacyModelList(document, self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 10, 10, 10)
        self.view = QListView()
        self.view.setObjectName("privacyModels")
        self.view.setModel(self.model)
        self.view.doubleClicked.connect(lambda _i: self.edit_selected())
        # an empty list says what belongs in it (a blank white box said nothing)
        self.empty_label = QLabel(NO_MODEL)
        self.empty_label.setObjectName("emptyList")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.list_stack = QStackedWidget()
        self.list_stack.addWidget(self.empty_label)
        self.list_stack.addWidget(self.view)
        lay.addWidget(self.list_stack, 1)
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add…")
        self.edit_button = QPushButton("Edit…")
        self.remove_button = QPushButton("Remove")
        self.add_button.clicked.connect(self.add_dialog)
        self.edit_button.clicked.connect(self.edit_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        for b in (self.add_button, self.edit_button, self.remove_button):
            buttons.addWidget(b)
        buttons.addStretch()
        lay.addLayout(buttons)
        form = QFormLayout()
        self.suppression = QDoubleSpinBox()
        self.suppression.setObjectName("suppressionLimit")
        self.suppression.setRange(0.0, 100.0)
        self.suppression.setDecimals(2)
        self.suppression.setSuffix(" %")
        self.suppression.setToolTip("Share of records that may be suppressed")
        self.suppression.valueChanged.connect(self._suppression_edited)
        form.addRow("Suppression limit", self.suppression)
        lay.addLayout(form)
        box = QGroupBox("Population")
        box.setToolTip("The population the data is a sample of: k-map with an estimator and "
                       "population uniqueness need it; Analyze risk shows the same one.")
        bl = QVBoxLayout(box)
        self.population = PopulationEditor(None, allow_none=True, compact=True)
        self.population.model_changed.connect(self._population_edited)
        bl.addWidget(self.population)
        lay.addWidget(box)
        document.settings_changed.connect(self._refresh)
        document.data_changed.connect(self._refresh)
        document.result_changed.connect(self._refresh)
        for signal in (self.model.modelReset, self.model.rowsInserted, self.model.rowsRemoved):
            signal.connect(self._list_changed)
        self.view.selectionModel().selectionChanged.connect(lambda *_: self._list_changed())
        self._refresh()
        self._list_changed()

    def _list_changed(self) -> None:
        """The list or its placeholder; Edit and Remove only with a model selected."""
        empty = self.model.rowCount() == 0
        self.list_stack.setCurrentWidget(self.empty_label if empty else self.view)
        selected = bool(self.view.selectionModel().selectedRows())
        self.edit_button.setEnabled(selected)
        self.remove_button.setEnabled(selected)

    def _records(self) -> int:
        return records_of(self.doc)

    def _population_edited(self, model: PopulationModel | None) -> None:
        population = None if model is None else model.to_job(self._records())
        if population != self.doc.settings.population:
            self.doc.set_population(population)

    def _refresh(self) -> None:
        self.population.n_records = self._records()
        try:
            model = PopulationModel.from_job(self.doc.settings.population, self._records())
        except AnonymistError:
            model = None
        self.population.show_model(model)
        value = self.doc.settings.transformation.suppression_limit * 100.0
        if abs(self.suppression.value() - value) > 1e-9:
            self.suppression.blockSignals(True)
            self.suppression.setValue(value)
            self.suppression.blockSignals(False)

    def _suppression_edited(self, value: float) -> None:
        from dataclasses import replace
        tr = replace(self.doc.settings.transformation, suppression_limit=round(value / 100, 6))
        self.doc.set_transformation(tr)

    def _sensitive(self) -> list[str]:
        return [n for n, a in self.doc.attributes.items() if a.type == SENSITIVE]

    def make_dialog(self, model: dict | None = None) -> PrivacyModelDialog:
        """The dialog (tests drive it without ``exec``). A model's attribute is chosen among
        the sensitive attributes (an edited model's own attribute is listed too, so that
        the dialog shows it as it is, and refuses it if it is no longer sensitive)."""
        sensitive = self._sensitive()
        choices = list(sensitive)
        own = (model or {}).get("attribute")
        if own and own not in choices:
            choices.append(own)
        return PrivacyModelDialog(model, choices, self, sensitive=sensitive)

    def add_model(self, model: dict) -> None:
        self.doc.set_privacy([*self.doc.settings.privacy, model])

    def replace_model(self, row: int, model: dict) -> None:
        items = [dict(p) for p in self.doc.settings.privacy]
        items[row] = dict(model)
        self.doc.set_privacy(items)

    def remove_model(self, row: int) -> None:
        items = [dict(p) for p in self.doc.settings.privacy]
        del items[row]
        self.doc.set_privacy(items)

    def add_dialog(self) -> None:
        dlg = self.make_dialog()
        if dlg.exec() == QDialog.DialogCode.Accepted:
            self.add_model(dlg.value())

    def edit_selected(self) -> None:
        rows = self.view.selectionModel().selectedRows()
        if not rows:
            return
        row = rows[0].row()
        dlg = self.make_dialog(self.model.item(row))
        if dlg.exec() == QDialog.DialogCode.Accepted:
            self.replace_model(row, dlg.value())

    def remove_selected(self) -> None:
        rows = self.view.selectionModel().selectedRows()
        if rows:
            self.remove_model(rows[0].row())
