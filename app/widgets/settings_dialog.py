"""Edit > Settings: table page size, project saving, recent files."""
from __future__ import annotations

from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QFormLayout, QPushButton,
                               QSpinBox, QVBoxLayout)

from app.settings import AppSettings


class SettingsDialog(QDialog):
    def __init__(self, settings: AppSettings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("Settings")
        self.setMinimumWidth(420)
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.page_size = QSpinBox()
        self.page_size.setRange(5, 10_000)
        self.page_size.setValue(settings.page_size)
        self.page_size.setSuffix(" columns")
        form.addRow("Columns per table page", self.page_size)
        self.include_data = QCheckBox("Store the input data inside project files")
        self.include_data.setChecked(settings.include_data_in_project)
        form.addRow("Projects", self.include_data)
        self.clear_recent = QPushButton("Clear recent files")
        self.clear_recent.clicked.connect(settings.clear_recent_files)
        form.addRow("Recent files", self.clear_recent)
        lay.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok |
                                   QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def accept(self) -> None:
        self.settings.page_size = self.page_size.value()
        self.settings.include_data_in_project = self.include_data.isChecked()
        super().accept()
