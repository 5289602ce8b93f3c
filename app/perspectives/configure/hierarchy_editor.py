"""The generalization hierarchy of the selected attribute: table, level buttons, status."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QHBoxLayout, QHeaderView, QLabel, QMessageBox, QTableView,
                               QToolButton, QVBoxLayout, QWidget)

from app import file_dialogs, hierarchies_beside
from app.document import Document
from app.models.hierarchy import HierarchyModel
from app.project_io import hierarchy_rows_from_file
from app.widgets.dialogs import ask, show_error
from app.widgets.elided_label import ElidedLabel
from app.workers import readable_error
from engine.hierarchy.csv_io import write_hierarchy
from engine.hierarchy.model import Hierarchy

CSV_FILTER = "Hierarchy CSV (*.csv *.txt);;All files (*)"


class HierarchyEditor(QWidget):
    """``create_requested(name)`` is the hook for the hierarchy wizard."""

    create_requested = Signal(str)

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.doc = document
        self.name: str | None = None
        self.model = HierarchyModel(self)
        self.model.edited.connect(self._edited)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        head = QHBoxLayout()
        self.title = ElidedLabel("Hierarchy")  # a long attribute name does not widen the row
        self.title.setObjectName("sectionTitle")
        head.addWidget(self.title)
        head.addStretch()
        levels = QHBoxLayout()
        self.buttons = {}
        for key, text, tip, slot in (
                ("load", "Load…", "Load the hierarchy from a CSV file", self.load_dialog),
                ("create", "Create…", "Build a hierarchy with the wizard",
                 lambda: self.create_requested.emit(self.name or "")),
                ("save", "Export…", "Save the hierarchy as CSV", self.save_dialog),
                ("add_level", "+ Level", "Add a generalization level", self.add_level),
                ("remove_level", "− Level", "Remove the highest level",
                 self.model.remove_level),
                ("add_missing", "+ Missing", "Add rows for data values the hierarchy "
                 "lacks", self.add_missing),
                ("clear", "Clear", "Remove the hierarchy", self.clear_asked)):
            b = QToolButton(text=text)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            (head if key in ("load", "create", "save") else levels).addWidget(b)
            self.buttons[key] = b
        levels.addStretch()
        self.beside = QToolButton()
        self.beside.setObjectName("loadBeside")
        self.beside.clicked.connect(self.load_beside)
        lay.addLayout(head)
        # a row of its own above the table (shown only when such files exist): beside the
        # title and the three buttons it widened the editor and narrowed the attribute list
        beside_row = QHBoxLayout()
        beside_row.addStretch()
        beside_row.addWidget(self.beside)
        lay.addLayout(beside_row)
        self.view = QTableView()
        self.view.setObjectName("hierarchyTable")
        self.view.setModel(self.model)
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        lay.addWidget(self.view, 1)
        lay.addLayout(levels)
        self.status = QLabel()
        self.status.setObjectName("hierarchyStatus")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        document.attributes_changed.connect(self._attributes_changed)
        document.data_changed.connect(lambda: self.show_attribute(None))
        self.show_attribute(None)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt's name
        """No: its wrapped status line made it one, and Configure's column then gave it
        its preferred height as a minimum, squeezing the attribute form above it below
        its own (PRAM's rows drawn over each other at 1280 x 800). Its layout still
        wraps the status line inside it."""
        return False

    def _update_beside(self) -> None:
        """Offer the ARX-named hierarchy files beside the data, all at once."""
        found = hierarchies_beside.available(self.doc)
        self.beside.setVisible(bool(found))
        if found:
            self.beside.setText(f"Load all beside the data ({len(found)})")
            self.beside.setToolTip("Load the hierarchy files named as ARX names them, beside "
                                   "the data file: " + ", ".join(p.name for p in found.values()))

    def load_beside(self) -> list[str]:
        """Load every ARX-named hierarchy file beside the data for attributes without a
        hierarchy; a message names the files that could not be read."""
        loaded, failed = hierarchies_beside.load(self.doc, hierarchies_beside.available(self.doc))
        if failed:
            show_error(self, "Some hierarchies were not loaded",
                       "\n".join(f"{n}: {why}" for n, why in failed.items()))
        self.show_attribute(self.name)
        return loaded

    def show_attribute(self, name: str | None) -> None:
        self._update_beside()
        self.name = name if name in self.doc.attributes else None
        self.title.setText(f"Hierarchy of '{self.name}'" if self.name else "Hierarchy")
        self.model.set_rows(self.doc.hierarchy_rows.get(self.name) if self.name else None)
        for b in self.buttons.values():
            b.setEnabled(self.name is not None)
        self._update_status()

    def _attributes_changed(self, names: list) -> None:
        self._update_beside()
        if self.name in names:
            if self.doc.hierarchy_rows.get(self.name) != self.model.rows():
                self.model.set_rows(self.doc.hierarchy_rows.get(self.name))
            self._update_status()

    def _update_status(self) -> None:
        if self.name is None:
            self.status.setText("Select one attribute to edit its hierarchy.")
            self.status.setProperty("state", "none")
        else:
            st = self.doc.hierarchy_status(self.name)
            if st.unchecked:  # out of core: counted in a worker, then shown again
                self.doc.request_distinct([self.name])
            self.model.set_missing(st.missing)
            self.status.setText(st.text())
            self.status.setProperty("state", "ok" if st.complete else
                                    "none" if st.unchecked or (not st.height and not st.error)
                                    else "bad")
            self.buttons["add_missing"].setEnabled(bool(st.missing))
            self.buttons["remove_level"].setEnabled(self.model.levels > 1)
            for key in ("clear", "save"):  # nothing to clear or export without rows
                self.buttons[key].setEnabled(bool(self.model.rows()))
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)

    def _edited(self) -> None:
        if self.name is not None:
            self.doc.set_hierarchy_rows(self.name, self.model.rows())
            self._update_status()

    # --- actions -------------------------------------------------------------------------
    def load_file(self, path: str | Path) -> bool:
        """Load a hierarchy CSV for the current attribute; a message on failure."""
        if self.name is None:
            return False
        try:
            rows = hierarchy_rows_from_file(path, self.name)
        except Exception as e:  # noqa: BLE001 - shown to the user
            show_error(self, "Cannot load hierarchy", readable_error(e))
            return False
        self.doc.set_hierarchy_rows(self.name, rows, source=str(path))
        self.model.set_rows(rows)
        self._update_status()
        return True

    def load_dialog(self) -> None:
        path = file_dialogs.open_file(self, "Load hierarchy", CSV_FILTER, "hierarchy",
                                      self.doc)
        if path:
            self.load_file(path)

    def save_file(self, path: str | Path) -> bool:
        if self.name is None or not self.model.rows():
            return False
        try:
            write_hierarchy(Hierarchy.from_rows(self.model.rows(), self.name), path)
        except Exception as e:  # noqa: BLE001
            show_error(self, "Cannot export hierarchy", readable_error(e))
            return False
        return True

    def save_dialog(self) -> None:
        if self.name is None:
            return
        path = file_dialogs.save_file(self, "Export hierarchy", f"hierarchy_{self.name}.csv",
                                      CSV_FILTER, "hierarchy", self.doc)
        if path:
            self.save_file(path)

    def add_level(self) -> None:
        if self.name is None:
            return
        if not self.model.rows() and self.doc.has_data:
            values = self.doc.known_distinct_values(self.name)
            if values is None:  # out of core: counted in a worker first
                name = self.name
                self.status.setText("Counting the data's distinct values…")
                self.doc.request_distinct([name], lambda: self.name == name and
                                          not self.model.rows() and self.add_level())
                return
            self.model.set_rows([[str(v)] for v in values])
        self.model.add_level()

    def add_missing(self) -> None:
        if self.name is not None:
            self.model.add_values(list(self.doc.hierarchy_status(self.name).missing))

    def clear_asked(self) -> None:
        """The Clear button: a hierarchy (perhaps built by hand) is removed only once the
        steward confirms; there is no undo."""
        if self.name is None or not self.model.rows():
            return
        status = self.doc.hierarchy_status(self.name)
        B = QMessageBox.StandardButton
        if ask(self, "Remove the hierarchy?",
               f"Remove the hierarchy of '{self.name}' (height {status.height}, "
               f"{len(self.model.rows()):,} values)? This cannot be undone; export it first "
               f"to keep a copy.", B.Yes | B.No, B.No) == B.Yes:
            self.clear()

    def clear(self) -> None:
        if self.name is not None:
            self.model.set_rows(None)
            self.doc.set_hierarchy_rows(self.name, None)
            self._update_status()
