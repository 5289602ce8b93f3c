"""Edit > Settings: table page size, project saving, recent files, data beyond memory."""
from __future__ import annotations

from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QLabel, QLineEdit, QPushButton, QSpinBox,
                               QVBoxLayout)

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
        # data beyond memory: the engine's [engine] memory_share and memory_limit
        self.memory_share = QDoubleSpinBox()
        self.memory_share.setObjectName("memoryShare")
        self.memory_share.setRange(0.01, 100.0)
        self.memory_share.setDecimals(2)
        self.memory_share.setSuffix(" % of memory")
        self.memory_share.setValue(settings.memory_share * 100)
        # the box shows 2 decimals within its range: a stored share it cannot show is
        # kept unless the box is edited (OK must not rewrite what nobody changed)
        self._shown_share = self.memory_share.value()
        self.memory_share.setToolTip(
            "A CSV or Parquet file the in-memory path would need more memory for is opened "
            "out of core: DuckDB reads the rows shown and counts what the search needs")
        form.addRow("Open out of core beyond", self.memory_share)
        self.memory_limit = QLineEdit(settings.memory_limit or "")
        self.memory_limit.setObjectName("memoryLimit")
        self.memory_limit.setPlaceholderText("DuckDB's default (80 % of memory)")
        self.memory_limit.setToolTip("DuckDB's memory limit out of core, e.g. 4GB")
        form.addRow("DuckDB memory limit", self.memory_limit)
        self.error = QLabel()
        self.error.setStyleSheet("color: #b22222")
        self.error.setWordWrap(True)
        form.addRow(self.error)
        lay.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok |
                                   QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def accept(self) -> None:
        limit = self.memory_limit.text().strip()
        if limit and not _memory_size(limit):
            self.error.setText(f"DuckDB memory limit '{limit}' is not a size such as 4GB "
                               f"or 512MB")
            return
        if self.memory_share.value() != self._shown_share:
            self.settings.memory_share = self.memory_share.value() / 100
        self.settings.memory_limit = limit or None
        self.settings.page_size = self.page_size.value()
        self.settings.include_data_in_project = self.include_data.isChecked()
        super().accept()


def _memory_size(text: str) -> bool:
    """Whether ``text`` is a size DuckDB's memory_limit takes (``4GB``, ``512 MB``)."""
    import re
    return re.fullmatch(r"\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*", text,
                        re.IGNORECASE) is not None
