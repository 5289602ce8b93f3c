"""The Configure perspective: data, attributes, hierarchies, models, utility, search."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QPushButton, QSplitter, QStackedWidget, QTabWidget, QVBoxLayout,
                               QWidget)

from app.document import Document
from app.perspectives.configure.attribute_panel import AttributePanel
from app.perspectives.configure.data_panel import DataPanel
from app.perspectives.configure.hierarchy_editor import HierarchyEditor
from app.perspectives.configure.privacy_panel import PrivacyPanel
from app.perspectives.configure.result_summary import ResultSummary
from app.perspectives.configure.search_panel import SearchPanel
from app.perspectives.configure.utility_panel import UtilityPanel
from app.widgets.empty_state import EmptyState


class ConfigurePerspective(QWidget):
    """``anonymize_requested`` asks the window to run the search;
    ``hierarchy_wizard_requested(name)`` asks it for the hierarchy wizard ("" : the
    selected attributes). The window uses this class's public methods only."""

    anonymize_requested = Signal()
    hierarchy_wizard_requested = Signal(str)

    def __init__(self, document: Document, page_size: int = 100,
                 empty_actions: list[QAction] = (), parent=None):
        super().__init__(parent)
        self.doc = document
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.stack = QStackedWidget()
        outer.addWidget(self.stack)
        self.empty = EmptyState(
            "Start by importing data",
            "New to anonymization? The guided release takes you from a data file to a "
            "checked release step by step. Or import a CSV file, an Excel sheet or a "
            "database table, open a saved project, or explore the sample project (the "
            "Adult census data with its hierarchies).",
            list(empty_actions))
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self._build_editor(page_size))
        document.data_changed.connect(self._data_changed)
        document.result_changed.connect(
            lambda: self.result.show_summary(self.doc.result_summary))
        for signal in (document.attributes_changed, document.settings_changed,
                       document.subset_changed):
            signal.connect(lambda *_: self.result.mark_stale())
        self._data_changed()

    def _build_editor(self, page_size: int) -> QWidget:
        host = QWidget()
        lay = QVBoxLayout(host)
        lay.setContentsMargins(10, 10, 10, 10)
        main = QSplitter(Qt.Orientation.Horizontal)
        left = QSplitter(Qt.Orientation.Vertical)
        self.data = DataPanel(self.doc, page_size)
        left.addWidget(self.data)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        self.attributes = AttributePanel(self.doc)
        self.hierarchy = HierarchyEditor(self.doc)
        bottom.addWidget(self.attributes)
        detail = QWidget()
        dl = QVBoxLayout(detail)
        dl.setContentsMargins(0, 0, 0, 0)
        dl.setSpacing(8)
        dl.addWidget(self.attributes.form_host)
        dl.addWidget(self.hierarchy, 1)
        bottom.addWidget(detail)
        bottom.setStretchFactor(0, 2)
        bottom.setStretchFactor(1, 3)
        bottom.setSizes([465, 535])  # the attribute list keeps its Hierarchy column readable
        self.attributes.setMinimumWidth(300)
        left.addWidget(bottom)
        left.setSizes([380, 420])
        main.addWidget(left)
        right = QWidget()
        right.setObjectName("sidePanel")
        right.setMinimumWidth(330)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(8, 0, 0, 0)
        self.tabs = QTabWidget()
        self.privacy = PrivacyPanel(self.doc)
        self.utility = UtilityPanel(self.doc)
        self.search = SearchPanel(self.doc)
        self.tabs.addTab(self.privacy, "Privacy models")
        self.tabs.addTab(self.utility, "Utility")
        self.tabs.addTab(self.search, "Search")
        rl.addWidget(self.tabs, 1)
        self.result = ResultSummary()
        rl.addWidget(self.result)
        self.anonymize_button = QPushButton("Anonymize")
        self.anonymize_button.setObjectName("anonymizeButton")
        self.anonymize_button.setMinimumHeight(40)
        self.anonymize_button.clicked.connect(self.anonymize_requested)
        rl.addWidget(self.anonymize_button)
        main.addWidget(right)
        main.setStretchFactor(0, 3)
        main.setStretchFactor(1, 1)
        main.setSizes([1060, 340])
        lay.addWidget(main)
        self.data.attribute_clicked.connect(lambda n: self.attributes.select([n]))
        self.attributes.selection_changed.connect(self._attribute_selection)
        self.hierarchy.create_requested.connect(self.hierarchy_wizard_requested)
        return host

    # --- what the window asks of Configure ----------------------------------------------
    def import_hierarchy(self) -> None:
        """Load the shown attribute's hierarchy from a CSV file (a dialog)."""
        self.hierarchy.load_dialog()

    def export_hierarchy(self) -> None:
        """Save the shown attribute's hierarchy as CSV (a dialog)."""
        self.hierarchy.save_dialog()

    def request_hierarchy_wizard(self) -> None:
        """Ask for the hierarchy wizard for the shown attribute."""
        self.hierarchy_wizard_requested.emit(self.hierarchy.name or "")

    def selected_attributes(self) -> list[str]:
        return [n for n in self.attributes.selected() if n]

    def show_hierarchy(self, name: str | None) -> None:
        """Show this attribute's hierarchy (None: none)."""
        self.hierarchy.show_attribute(name)

    def _data_changed(self) -> None:
        from PySide6.QtWidgets import QApplication
        focus = QApplication.focusWidget()
        had_focus = focus is not None and self.isAncestorOf(focus)
        self.stack.setCurrentIndex(1 if self.doc.has_data else 0)
        if self.doc.has_data and self.doc.attributes:
            self.attributes.select([next(iter(self.doc.attributes))])
            # the keyboard goes where the work starts (the empty state's button it was
            # on is gone; Qt passed it to 'Select all rows')
            if had_focus or focus is None or not focus.isVisible():
                self.attributes.view.setFocus()

    def _attribute_selection(self, names: list) -> None:
        self.hierarchy.show_attribute(names[0] if len(names) == 1 else None)
        if len(names) == 1:
            self.data.show_attribute(names[0])

    def set_running(self, running: bool, can_run: bool = True) -> None:
        """The Anonymize button: off during a run, and before there is data to run on."""
        self.anonymize_button.setText("Anonymizing…" if running else "Anonymize")
        self.anonymize_button.setEnabled(can_run and not running)
        self.anonymize_button.setToolTip("" if can_run or running else
                                         "Open or import data first")

    def set_page_size(self, size: int) -> None:
        self.data.set_page_size(size)
