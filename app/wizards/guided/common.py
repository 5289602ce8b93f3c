"""What the guided release's pages share: page ids, explanations, small widgets."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QWizardPage

(DATA_PAGE, ATTRIBUTES_PAGE, HIERARCHIES_PAGE, GOAL_PAGE, RUN_PAGE, RESULT_PAGE,
 RELEASE_PAGE) = range(7)


def explanation(text: str) -> QLabel:
    """A page's plain-words explanation (one or two sentences)."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setObjectName("wizardExplanation")
    return label


def muted(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setObjectName("mutedLabel")
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def read_only_item(text: str, tooltip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if tooltip:
        item.setToolTip(tooltip)
    return item


def table(headers: list[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(headers)
    t.verticalHeader().setVisible(False)
    t.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
    t.setWordWrap(True)
    header = t.horizontalHeader()
    header.setStretchLastSection(True)
    return t


class GuidedPage(QWizardPage):
    """A page with access to the wizard (and through it the window and document)."""

    def __init__(self, wizard, title: str, subtitle: str):
        super().__init__()
        self.wiz = wizard
        self.setTitle(title)
        self.setSubTitle(subtitle)

    @property
    def window(self):
        return self.wiz.main_window

    @property
    def document(self):
        return self.wiz.main_window.document
