"""The hierarchy wizard: choose a builder, set its options with a live preview, finish.

Opened on one attribute or on several of the same data type (one
specification is then built for each). With a specification it reopens that
builder's page; with an existing hierarchy and no specification it opens the
editor. ``finished_with`` carries ``{attribute: (Hierarchy, spec or None)}``.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QButtonGroup, QDialog, QHBoxLayout, QLabel, QPushButton,
                               QRadioButton, QVBoxLayout, QWidget, QWizard, QWizardPage)

from app import file_dialogs
from app.widgets.dialogs import show_error
from app.wizards.hierarchy.base_page import BuilderPage
from app.wizards.hierarchy.dates_page import DatesPage
from app.wizards.hierarchy.editor_page import EditorPage
from app.wizards.hierarchy.host import Results
from app.wizards.hierarchy.intervals_page import IntervalsPage
from app.wizards.hierarchy.masking_page import MaskingPage
from app.wizards.hierarchy.ordering_page import OrderingPage
from app.wizards.hierarchy.priority_page import PriorityPage
from engine.data.datatypes import DataType, DateType, DecimalType, OrdinalType, best_type
from engine.data.table import EncodedColumn
from engine.errors import AnonymistError
from engine.hierarchy.builders import (BuilderError, BuilderSpec, builder_for, column_values,
                                       load_spec, save_spec, type_from_json)
from engine.hierarchy.model import Hierarchy

START, EDITOR = 0, 1
PAGES: dict[str, tuple[int, type[BuilderPage]]] = {
    "intervals": (10, IntervalsPage), "ordering": (11, OrderingPage),
    "masking": (12, MaskingPage), "dates": (13, DatesPage), "priority": (14, PriorityPage),
}
DESCRIPTIONS = {
    "intervals": "Ranges of numbers or dates, [20, 30[, grouped into wider ranges",
    "ordering": "Neighbouring values in an order, grouped into sets",
    "masking": "Characters replaced by * one at a time (ZIP codes, IDs)",
    "dates": "Calendar periods: month, year, decade, …",
    "priority": "Rare (or chosen) values replaced by * first",
    "edit": "Keep the current hierarchy and edit its levels and groups",
}
SPEC_FILTER = "Hierarchy specification (*.json);;All files (*)"


def resolve_data_type(data_type: Any, columns: Mapping[str, EncodedColumn]) -> DataType:
    """A `DataType` from one; a kind name (``"integer"``); the JSON form ``{"kind": "date",
    "format": "%d.%m.%Y"}``; an attribute's ``(data_type, format)`` pair as the Configure
    perspective keeps it (``("date", "%d.%m.%Y")``, ``(None, None)`` for string); or
    ``None`` (detected from the first column).

    An ordinal type without its order orders the values as they first appear.
    """
    if isinstance(data_type, DataType):
        return data_type
    if data_type is None:
        return best_type(next(iter(columns.values())))
    if isinstance(data_type, Mapping) and "order" not in data_type:
        # {"kind": "date", "format": None} as an attribute without a format gives it
        data_type = (data_type.get("kind"), data_type.get("format") or
                     data_type.get("separator"))
    if isinstance(data_type, tuple):
        name, fmt = data_type
        name = (name or "string").lower()
        if name == "date":
            return DateType(fmt or "%Y-%m-%d")
        if name == "decimal":
            return DecimalType(fmt if fmt in (".", ",") else ".")
        data_type = name
    if data_type == "ordinal":
        order: dict[str, None] = {}
        for column in columns.values():
            order.update(dict.fromkeys(column_values(column).present))
        return OrdinalType(tuple(order))
    return type_from_json(data_type)


class StartPage(QWizardPage):
    """One choice per builder valid for the data type, and the editor if there is a
    hierarchy to edit."""

    def __init__(self, wizard: "HierarchyWizard"):
        super().__init__()
        self.wiz = wizard
        self.setObjectName("startPage")
        self.setTitle(f"Create a hierarchy for {wizard.attributes_text()}")
        self.setSubTitle(wizard.summary())
        lay = QVBoxLayout(self)
        self.group = QButtonGroup(self)
        self.choices: dict[str, QRadioButton] = {}
        options = [cls.name for cls in builder_for(wizard.data_type)]
        if wizard.existing is not None and len(wizard.columns) == 1:
            options.append("edit")
        for name in options:
            title = "Edit the current hierarchy" if name == "edit" else \
                PAGES[name][1].builder.title
            radio = QRadioButton(title)
            radio.setObjectName(f"choose_{name}")
            self.group.addButton(radio)
            self.choices[name] = radio
            lay.addWidget(radio)
            text = QLabel(DESCRIPTIONS[name])
            text.setObjectName("mutedLabel")
            text.setContentsMargins(24, 0, 0, 8)
            lay.addWidget(text)
        next(iter(self.choices.values())).setChecked(True)
        lay.addSpacing(12)
        row = QHBoxLayout()
        load = QPushButton("Open a saved specification…")
        load.setObjectName("loadSpec")
        load.clicked.connect(wizard.load_spec_dialog)
        row.addWidget(load)
        row.addStretch()
        lay.addLayout(row)
        lay.addStretch()

    def choose(self, name: str) -> None:
        self.choices[name].setChecked(True)

    def chosen(self) -> str:
        return next(n for n, r in self.choices.items() if r.isChecked())

    def nextId(self) -> int:
        name = self.chosen()
        return EDITOR if name == "edit" else PAGES[name][0]


class HierarchyWizard(QWizard):
    """Build or edit the hierarchy of one or more attributes of one data type.

    Parameters
    ----------
    columns
        The attributes' encoded columns by name (several: one spec for all).
    data_type
        Their data type (`DataType`, kind name, JSON form, or ``None`` to detect).
    existing
        The current hierarchy of the (single) attribute, if any.
    spec
        The specification ``existing`` was built from, to reopen it.
    """

    finished_with = Signal(dict)

    def __init__(self, columns: Mapping[str, EncodedColumn], data_type: Any = None,
                 existing: Hierarchy | None = None, spec: BuilderSpec | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        if not columns:
            raise ValueError("the hierarchy wizard needs at least one attribute")
        self.columns = dict(columns)
        self.data_type = resolve_data_type(data_type, self.columns)
        self.existing = existing
        self.results: Results = {}
        self.setObjectName("hierarchyWizard")
        self.setWindowTitle(f"Hierarchy — {self.attributes_text(plain=True)}")
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setOption(QWizard.WizardOption.HaveCustomButton1, True)
        self.setButtonText(QWizard.WizardButton.CustomButton1, "Save specification…")
        self.customButtonClicked.connect(self._custom_button)
        self.resize(1120, 740)
        self.start_page = StartPage(self)
        self.setPage(START, self.start_page)
        self.editor_page = EditorPage(self)
        self.setPage(EDITOR, self.editor_page)
        valid = {cls.name for cls in builder_for(self.data_type)}
        self.builder_pages: dict[str, BuilderPage] = {}
        for name, (page_id, cls) in PAGES.items():
            if name in valid:
                page = cls(self)
                self.builder_pages[name] = page
                self.setPage(page_id, page)
        self.setStartId(START)
        self.currentIdChanged.connect(self._page_changed)
        if existing is not None:
            self.editor_page.set_hierarchy(existing)
        if spec is not None:
            self.open_spec(spec)
        elif existing is not None and "edit" in self.start_page.choices:
            self.start_page.choose("edit")
            self.restart()
            self.next()

    # --- text --------------------------------------------------------------------------------
    def attributes_text(self, plain: bool = False) -> str:
        names = list(self.columns)
        quoted = [n if plain else f"'{n}'" for n in names]
        if len(names) == 1:
            return quoted[0]
        shown = ", ".join(quoted[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        return f"{len(names)} attributes ({shown})"

    def summary(self) -> str:
        distinct = [int((c.value_counts() > 0).sum()) for c in self.columns.values()]
        values = f"{distinct[0]:,} distinct values" if len(distinct) == 1 else \
            f"{min(distinct):,} to {max(distinct):,} distinct values each"
        return f"Data type {self.data_type.name}; {values}. Choose how to generalize them."

    # --- navigation ------------------------------------------------------------------------------
    def open_spec(self, spec: BuilderSpec) -> bool:
        """Go to the page of ``spec``'s builder showing it; an error message if it does
        not fit the data type."""
        page = self.builder_pages.get(spec.name)
        if page is None:
            show_error(self, "Cannot use this specification",
                       f"The {spec.name} builder does not work on {self.data_type.name} data.")
            return False
        if getattr(spec, "data_type", self.data_type) != self.data_type:
            try:  # a saved spec of another date format or separator: adopt this one's
                spec = dataclasses.replace(spec, data_type=self.data_type)
            except (BuilderError, ValueError, TypeError) as e:
                show_error(self, "Cannot use this specification", str(e))
                return False
        page.start_with(spec)
        self.start_page.choose(spec.name)
        if self.currentPage() is not page:
            self.restart()
            self.next()
        return True

    def _page_changed(self, page_id: int) -> None:
        on_builder = isinstance(self.page(page_id), BuilderPage)
        layout = [QWizard.WizardButton.Stretch, QWizard.WizardButton.BackButton,
                  QWizard.WizardButton.NextButton, QWizard.WizardButton.FinishButton,
                  QWizard.WizardButton.CancelButton]
        if on_builder:
            layout.insert(0, QWizard.WizardButton.CustomButton1)
        self.setButtonLayout(layout)

    def current_builder_page(self) -> BuilderPage | None:
        page = self.currentPage()
        return page if isinstance(page, BuilderPage) else None

    # --- specifications as files ---------------------------------------------------------------
    def _custom_button(self, which: int) -> None:
        if which == QWizard.WizardButton.CustomButton1.value:
            self.save_spec_dialog()

    def save_spec_dialog(self) -> None:
        page = self.current_builder_page()
        if page is None:
            return
        try:
            spec = page.spec()
        except BuilderError as e:
            show_error(self, "Cannot save the specification", str(e))
            return
        name = next(iter(self.columns))
        path = file_dialogs.save_file(self, "Save specification", f"{spec.name}_{name}.json",
                                      SPEC_FILTER, "spec")
        if path:
            try:
                save_spec(spec, path)
            except (AnonymistError, OSError) as e:
                show_error(self, "Cannot save the specification", str(e))

    def load_spec_dialog(self) -> None:
        path = file_dialogs.open_file(self, "Open specification", SPEC_FILTER, "spec")
        if path:
            try:
                spec = load_spec(path)
            except AnonymistError as e:
                show_error(self, "Cannot open the specification", str(e))
                return
            self.open_spec(spec)

    # --- the end -----------------------------------------------------------------------------
    def set_results(self, results: Results) -> None:
        self.results = dict(results)

    def done(self, result: int) -> None:
        accepted = result in (QDialog.DialogCode.Accepted, QDialog.DialogCode.Accepted.value)
        if accepted and not self.validateCurrentPage():
            return  # QWizard.done would validate too; this way we know it passed
        for page in self.builder_pages.values():
            page.shutdown()
        if accepted:
            QDialog.done(self, result)
            self.finished_with.emit(dict(self.results))
        else:
            super().done(result)
