"""Attributes: the list (many can be selected) and the selected one's settings."""
from __future__ import annotations

from html import escape

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDoubleSpinBox,
                               QGridLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QSpinBox, QTableView, QVBoxLayout, QWidget)

from app.document import Document
from app.models.attribute_list import AttributeListModel
from engine.data.datatypes import DATA_TYPES
from app.identifier_choice import IdentifierEditor, apply_choice, examples, flagged, summary
from app.perspectives.configure.method_settings import MethodSettings
from app.perspectives.configure.pseudonym_editor import PseudonymEditor
from app.person_role import ROLE, ROLE_LABEL, ROLE_MEANING, ROLES, role_of, set_role
from app.theme import TYPE_LABELS, type_icon
from engine.config import (ATTRIBUTE_TYPES, IDENTIFYING, INSENSITIVE, QUASI_IDENTIFYING,
                           SENSITIVE, AttributeConfig)
from engine.schema import dataclass_params
from engine.transform.job_keys import CLUSTERING, TRANSFORMATIONS
from engine.transform.microaggregation import FUNCTIONS
from engine.transform.perturbation import ALL_KEYS as METHOD_KEY_NAMES
from engine.transform.perturbation import METHOD_KEYS

NO_LIMIT = -1
#: the attribute table's declarations (engine.config.AttributeConfig), by job-file key
ATTRIBUTE_PARAMS = {p.name: p for p in dataclass_params(AttributeConfig)}


def _tip(key: str) -> str:
    """A control's tooltip from its key's declaration: "Label: help"."""
    p = ATTRIBUTE_PARAMS[key]
    return f"{p.title}: {p.help}"


class AttributePanel(QWidget):
    """``selection_changed(list)`` carries the selected attribute names."""

    selection_changed = Signal(list)

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.doc = document
        self._names: list[str] = []
        self._updating = False
        self.model = AttributeListModel(document, self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        title = QLabel("Attributes")
        title.setObjectName("sectionTitle")
        lay.addWidget(title)
        self.view = QTableView()
        self.view.setObjectName("attributeList")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(24)
        hh = self.view.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # the hierarchy status takes what is left and elides (its tooltip has it whole)
        # rather than pushing the header out of view behind a horizontal scroll bar
        hh.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        hh.setMinimumSectionSize(60)
        self.view.selectionModel().selectionChanged.connect(self._selection)
        lay.addWidget(self.view, 1)
        self.warnings = QLabel()
        self.warnings.setObjectName("attributeWarnings")
        self.warnings.setWordWrap(True)
        self.warnings.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.warnings)
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(6)
        self.heading = QLabel("Select an attribute")
        self.heading.setObjectName("subTitle")
        grid.addWidget(self.heading, 0, 0, 1, 4)
        self.type = QComboBox()
        self.type.setObjectName("attributeType")
        for kind in ATTRIBUTE_TYPES:
            self.type.addItem(type_icon(kind), TYPE_LABELS[kind], kind)
        # the person column (several rows per person): identifying, and the models
        # count persons (app/person_role.py)
        self.type.addItem(type_icon(IDENTIFYING), ROLE_LABEL, ROLE)
        self.type.setItemData(len(ATTRIBUTE_TYPES), f"{ROLE_LABEL}: {ROLE_MEANING}",
                              Qt.ItemDataRole.ToolTipRole)
        self.type.activated.connect(self._type_chosen)
        self.data_type = QComboBox()
        self.data_type.addItems(DATA_TYPES)
        self.data_type.activated.connect(self._data_type_chosen)
        self.format = QLineEdit()
        self.format.setPlaceholderText("format, e.g. %d.%m.%Y")
        self.format.editingFinished.connect(self._format_edited)
        self.min_level = QSpinBox()
        self.max_level = QSpinBox()
        for w, label in ((self.min_level, "Minimum"), (self.max_level, "Maximum")):
            w.setRange(NO_LIMIT, 99)
            w.setSpecialValueText("auto")
            w.setToolTip(f"{label} generalization level ('auto': the hierarchy's)")
            w.valueChanged.connect(self._levels_edited)
        self.weight = QDoubleSpinBox()
        self.weight.setRange(0.0, 1.0)
        self.weight.setSingleStep(0.05)
        self.weight.setDecimals(2)
        self.weight.setToolTip("Attribute weight for weighted utility metrics")
        self.weight.valueChanged.connect(self._weight_edited)
        self._method_widgets()
        self.pseudonym = PseudonymEditor()
        self.pseudonym.setObjectName("pseudonymEditor")
        self.pseudonym.edited.connect(self._pseudonym_edited)
        # identifiers inside the values (app/identifier_choice.py): refuse, scrub, keep
        self.identifiers = IdentifierEditor()
        self.identifiers.edited.connect(self._identifiers_edited)
        levels = QWidget()
        levels_lay = QHBoxLayout(levels)
        levels_lay.setContentsMargins(0, 0, 0, 0)
        levels_lay.setSpacing(4)
        levels_lay.addWidget(self.min_level, 1)
        levels_lay.addWidget(QLabel("to"))
        levels_lay.addWidget(self.max_level, 1)
        self._flagged: tuple | None = None  # (key, found): the last scan
        #: each row's label, by its field: a row shows only for the attributes it applies
        #: to (``_show_rows``)
        self._labels: dict[QWidget, QLabel] = {}
        # the type spans the row: the person role's label is long
        for row, col, label, w, span in (
                (1, 0, "Type", self.type, 3),
                (2, 0, "Data type", self.data_type, 1), (2, 2, "Format", self.format, 1),
                (3, 0, "Weight", self.weight, 1), (3, 2, "Levels", levels, 1),
                (4, 0, "Transformation", self.method, 1), (4, 2, "Function", self.function, 1),
                (5, 0, "Clustering", self.clustering, 1),
                (6, 0, "Bottom", self.bottom, 1), (6, 2, "Top", self.top, 1),
                (7, 0, "Release as", self.pseudonym, 3),
                (8, 0, "Identifiers", self.identifiers, 3)):
            self._labels[w] = QLabel(label)
            grid.addWidget(self._labels[w], row, col)
            grid.addWidget(w, row, col + 1, 1, span)
        self._levels = levels
        grid.addWidget(self.ignore_missing, 5, 2, 1, 2)  # over the label column: no label
        # sdcMicro's methods: PRAM, noise, swapping, shuffling; importance under cells
        grid.addWidget(self.method_settings, 9, 0, 1, 4)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        # the method's rows below line up with these (their own form's label column)
        first = [label for w, label in self._labels.items()
                 if grid.getItemPosition(grid.indexOf(w))[1] == 1]
        width = max([label.sizeHint().width() for label in first]
                    + [self.method_settings.label_hint()])
        grid.setColumnMinimumWidth(0, width)
        self.method_settings.align(width, grid.horizontalSpacing(), grid.verticalSpacing())
        # combos may shrink below their longest choice, leaving the attribute list beside
        # them room for its Hierarchy column at 1280 px
        for combo in (self.type, self.data_type, self.method, self.function, self.clustering):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(9)
        form = grid
        self.form_host = QWidget()
        self.form_host.setObjectName("attributeForm")
        self.form_host.setLayout(form)  # placed above the hierarchy editor by the perspective
        document.attributes_changed.connect(self._refresh)
        document.attributes_changed.connect(self._update_warnings)
        # importance shows under suppression = "cells"
        document.settings_changed.connect(lambda *_: self._show(self._names))
        document.data_changed.connect(lambda: self._show([]))
        document.data_changed.connect(self._update_warnings)
        self._show([])
        self._update_warnings()

    def _update_warnings(self, *_) -> None:
        """Before Anonymize: quasi-identifiers that still need a hierarchy, and the
        columns that will be released exactly as they are."""
        if not self.doc.has_data:
            self.warnings.hide()
            return
        lines = []
        missing = self.doc.qis_without_hierarchy()
        if missing:
            lines.append(f"<span style='color:#b3261e'>⚠ Needs a hierarchy: "
                         f"{_names(missing)}</span> (Create… or Load… below)")
        verbatim = self.doc.verbatim_columns()
        if verbatim:
            lines.append(f"⚠ Released as they are (insensitive): {_names(verbatim)}. "
                         f"Mark direct identifiers Identifying to remove them.")
        found = self.flagged_columns()
        for name, items in found.items():
            # two short examples: a long list of flagged columns still leaves the
            # attribute list its rows (the tooltip has them all)
            lines.append(f"<span style='color:#b3261e'>⚠ Identifiers in '{escape(name)}' "
                         f"(rows): {escape(summary(items))}</span> "
                         f"(e.g. {escape(examples(items, 40, 2))}). "
                         f"Mark it Identifying, or choose Scrub or Keep under Identifiers.")
        self.warnings.setText("<br>".join(lines))
        tips = []
        if missing:
            tips.append("Quasi-identifiers without a hierarchy: " + ", ".join(missing))
        if verbatim:
            tips.append("Released unchanged: " + ", ".join(verbatim))
        if found:
            tips.append("Identifiers found (the release is refused until each column is "
                        "removed, scrubbed or kept with a reason): " + ", ".join(found))
            tips.extend(f"{name}, e.g.: {examples(items)}" for name, items in found.items())
        self.warnings.setToolTip("\n".join(tips))
        self.warnings.setVisible(bool(lines))

    def flagged_columns(self) -> dict:
        """Columns released as they are whose values hold identifiers, neither scrubbed
        nor kept (scanned once per data and identifying columns)."""
        table = getattr(self.doc, "table", None)
        if table is None:
            return {}
        attrs = self.doc.attributes
        types = {n: a.type for n, a in attrs.items()}
        key = (id(table), tuple(sorted(n for n, t in types.items() if t == "identifying")))
        if self._flagged is None or self._flagged[0] != key:
            self._flagged = (key, flagged(table, {n: t for n, t in types.items()
                                                   if t == "identifying"}))
        return {n: f for n, f in self._flagged[1].items() if n in attrs
                and attrs[n].type in ("sensitive", "insensitive")
                and not attrs[n].scrub and attrs[n].identifiers != "keep"}

    def _identifiers_edited(self, choice: str, reason: str) -> None:
        if not self._updating and len(self._names) == 1:
            apply_choice(self.doc, self._names[0], choice, reason)

    def _method_widgets(self) -> None:
        """Transformation mode (generalization, microaggregation, coding rules) and its
        settings (engine/transform/, README "Transformation methods")."""
        self.method = QComboBox()
        self.method.setObjectName("attributeTransformation")
        self.method.addItems(TRANSFORMATIONS)
        self.method.setToolTip(_tip("transformation"))
        self.method.activated.connect(self._method_edited)
        self.function = QComboBox()
        self.function.setObjectName("microaggregationFunction")
        self.function.addItems(FUNCTIONS)
        self.function.setToolTip(_tip("function"))
        self.function.activated.connect(self._method_edited)
        self.clustering = QComboBox()
        self.clustering.setObjectName("microaggregationClustering")
        self.clustering.addItems(CLUSTERING)
        self.clustering.setToolTip(_tip("clustering"))
        self.clustering.activated.connect(self._method_edited)
        self.ignore_missing = QCheckBox(ATTRIBUTE_PARAMS["ignore_missing"].title)
        self.ignore_missing.setToolTip(_tip("ignore_missing"))
        self.ignore_missing.toggled.connect(self._method_edited)
        self.bottom, self.top = QLineEdit(), QLineEdit()
        for w, key in ((self.bottom, "bottom"), (self.top, "top")):
            w.setPlaceholderText("none")
            w.setToolTip(_tip(key))
            w.editingFinished.connect(self._method_edited)
        self.method_settings = MethodSettings()
        self.method_settings.edited.connect(self._method_settings_edited)

    def _method_settings_edited(self, values: dict) -> None:
        if not self._updating and len(self._names) == 1:
            self.doc.update_attributes(self._names, **values)

    def _show_method(self, a, many: bool) -> None:
        self.method.setCurrentText(a.transformation)
        self.function.setCurrentText(a.function or FUNCTIONS[0])
        self.clustering.setCurrentText(a.clustering)
        self.ignore_missing.setChecked(a.ignore_missing)
        self.bottom.setText("" if a.bottom is None else f"{a.bottom:g}")
        self.top.setText("" if a.top is None else f"{a.top:g}")
        micro = a.transformation == "microaggregation"
        coding = a.transformation == "top-bottom-coding"
        self.method.setEnabled(not many)
        for w in (self.function, self.clustering, self.ignore_missing):
            w.setEnabled(micro and not many)
        for w in (self.bottom, self.top):
            w.setEnabled(coding and not many)
        table = self.doc.table
        columns = [n for n in (table.names if table is not None else [])
                   if n not in self._names[:1]]  # strata: the other columns
        cells = getattr(self.doc.settings.transformation, "suppression", "") == "cells"
        self.method_settings.show_attribute(a, columns, cells, not many)

    def _method_edited(self, *_) -> None:
        if self._updating or len(self._names) != 1:
            return
        method = self.method.currentText()
        micro = method == "microaggregation"
        coding = method == "top-bottom-coding"
        values = {"transformation": method,
                  "function": self.function.currentText() if micro else None,
                  "clustering": self.clustering.currentText() if micro else "none",
                  "ignore_missing": self.ignore_missing.isChecked() if micro else False,
                  "top": _number(self.top.text()) if coding else None,
                  "bottom": _number(self.bottom.text()) if coding else None,
                  # another method's settings do not apply to this one
                  **{k: None for k in METHOD_KEY_NAMES if k not in METHOD_KEYS.get(method, ())}}
        self.doc.update_attributes(self._names, **values)
        self._show(self._names)

    # --- selection -----------------------------------------------------------------------
    def selected(self) -> list[str]:
        return list(self._names)

    def select(self, names: list[str]) -> None:
        sm = self.view.selectionModel()
        sm.clearSelection()
        flags = QItemSelectionModel.SelectionFlag.Select | \
            QItemSelectionModel.SelectionFlag.Rows
        for n in names:
            if n in self.model.names():
                sm.select(self.model.index(self.model.row_of(n), 0), flags)
        if names and names[0] in self.model.names():
            self.view.scrollTo(self.model.index(self.model.row_of(names[0]), 0))

    def _selection(self, *_) -> None:
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        names = [self.model.names()[r] for r in rows]
        self._show(names)
        self.selection_changed.emit(names)

    def _show(self, names: list[str]) -> None:
        self._names = [n for n in names if n in self.doc.attributes]
        self._updating = True
        try:
            self.form_host.setEnabled(bool(self._names))
            if not self._names:
                self.heading.setText("Select one or more attributes")
                self.method_settings.hide()
                self._show_rows(None)
                return
            a = self.doc.attributes[self._names[0]]
            many = len(self._names) > 1
            self.heading.setText(f"{len(self._names)} attributes selected" if many
                                 else f"Attribute '{self._names[0]}'")
            kinds = {role_of(self.doc, n) for n in self._names}
            self.type.setCurrentIndex(ROLES.index(kinds.pop()) if len(kinds) == 1 else -1)
            for w in (self.data_type, self.format, self.min_level, self.max_level, self.weight):
                w.setEnabled(not many)
            self.data_type.setCurrentText(a.data_type or "string")
            self.format.setText(a.format or "")
            height = self.doc.hierarchy_status(self._names[0]).height
            for w in (self.min_level, self.max_level):
                w.setMaximum(max(height, 0))
            self.min_level.setValue(NO_LIMIT if a.min_level is None else a.min_level)
            self.max_level.setValue(NO_LIMIT if a.max_level is None else a.max_level)
            self.weight.setValue(1.0 if a.weight is None else a.weight)
            self._show_method(a, many)
            self.pseudonym.folder = self._project_folder()
            self.pseudonym.show_spec(a.pseudonym, a.type == IDENTIFYING and not many
                                     and role_of(self.doc, self._names[0]) != ROLE)
            self.identifiers.show_attribute(a, not many and a.type in ("sensitive",
                                                                       "insensitive"))
            self._show_rows(None if many else a)
        finally:
            self._updating = False

    def _show_rows(self, a: AttributeConfig | None) -> None:
        """Show the rows that apply to attribute ``a`` (None: several or none selected,
        the type only): weight and levels for a quasi-identifier, the transformation for
        a quasi-identifier or an insensitive attribute (or one already set), a method's
        own settings under it, Release as for an identifying attribute, Identifiers for
        one released as it is."""
        kind = a.type if a is not None else None
        method = a.transformation if a is not None else None
        micro, coding = method == "microaggregation", method == "top-bottom-coding"
        shown = {self.data_type: a is not None, self.format: a is not None,
                 self.weight: kind == QUASI_IDENTIFYING,
                 self._levels: kind == QUASI_IDENTIFYING,
                 self.method: kind in (QUASI_IDENTIFYING, INSENSITIVE)
                 or (a is not None and method != "generalization"),
                 self.function: micro, self.clustering: micro, self.ignore_missing: micro,
                 self.bottom: coding, self.top: coding,
                 self.pseudonym: kind == IDENTIFYING,
                 self.identifiers: kind in (SENSITIVE, INSENSITIVE)}
        for w, visible in shown.items():
            w.setVisible(visible)
            if w in self._labels:
                self._labels[w].setVisible(visible)

    def _refresh(self, names: list) -> None:
        if set(names) & set(self._names):
            self._show(self._names)

    # --- edits ------------------------------------------------------------------------------
    def set_type(self, kind: str, names: list[str] | None = None) -> None:
        """Set the type of ``names`` (default: the selection): "set all to ..."; only
        identifying attributes keep a pseudonym setting. ``ROLE`` makes one column the
        person column (app/person_role.py)."""
        names = names if names is not None else self._names
        if kind == ROLE and len(names) != 1:  # one column identifies the person
            self._show(self._names)
            return
        set_role(self.doc, kind, names)

    def _project_folder(self):
        from pathlib import Path
        if self.doc.path is not None:
            return Path(self.doc.path).parent
        loc = self.doc.source.location
        return Path(loc).parent if loc and "://" not in loc else None

    def _pseudonym_edited(self, spec) -> None:
        if not self._updating and len(self._names) == 1:
            self.doc.update_attributes(self._names, pseudonym=spec)

    def _type_chosen(self, index: int) -> None:
        if not self._updating and index >= 0:
            self.set_type(self.type.itemData(index))

    def _data_type_chosen(self, _index: int) -> None:
        if not self._updating and len(self._names) == 1:
            dtype = self.data_type.currentText()
            self.doc.update_attributes(self._names, data_type=None if dtype == "string"
                                       else dtype)

    def _format_edited(self) -> None:
        if not self._updating and len(self._names) == 1:
            self.doc.update_attributes(self._names, format=self.format.text().strip() or None)

    def _levels_edited(self, _value: int) -> None:
        if self._updating or len(self._names) != 1:
            return
        lo, hi = self.min_level.value(), self.max_level.value()
        self.doc.update_attributes(self._names, min_level=None if lo == NO_LIMIT else lo,
                                   max_level=None if hi == NO_LIMIT else hi)

    def _weight_edited(self, value: float) -> None:
        if not self._updating and len(self._names) == 1:
            self.doc.update_attributes(self._names, weight=None if value == 1.0 else value)


def _names(names: list[str], shown: int = 4) -> str:
    text = ", ".join(escape(n) for n in names[:shown])
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _number(text: str) -> float | None:
    """A typed bound, or None when empty or not a number (the field then shows 'none')."""
    try:
        return float(text.strip()) if text.strip() else None
    except ValueError:
        return None
