"""Step 1: the data file, read with the format detected (or the import wizard's)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout)

from app.wizards.guided.common import GuidedPage, explanation, muted, read_only_item, table
from engine.data.csv_import import detect_csv_format
from engine.data.sources import ImportSpec, guess_kind
from engine.errors import AnonymistError

PREVIEW_ROWS = 8


class DataPage(GuidedPage):
    def __init__(self, wizard):
        super().__init__(wizard, "Your data",
                         "Choose the table to release. Anonymist reads it as it is; nothing is "
                         "changed in the file.")
        lay = QVBoxLayout(self)
        lay.addWidget(explanation(
            "A table with one person per row: a CSV file or an Excel sheet. The delimiter, "
            "encoding and header are detected; use Import settings to change them."))
        row = QHBoxLayout()
        self.path = QLineEdit()
        self.path.setPlaceholderText("data file (.csv, .xlsx)")
        self.path.editingFinished.connect(lambda: self.load(self.path.text()))
        choose = QPushButton("Choose…")
        choose.clicked.connect(self._choose)
        self.settings_button = QPushButton("Import settings…")
        self.settings_button.setToolTip("The import wizard: delimiter, encoding, columns, "
                                        "data types, databases")
        self.settings_button.clicked.connect(self._import_settings)
        row.addWidget(self.path, 1)
        row.addWidget(choose)
        row.addWidget(self.settings_button)
        lay.addLayout(row)
        self.summary = muted()
        lay.addWidget(self.summary)
        self.preview = table([])
        lay.addWidget(self.preview, 1)
        self._loading = False
        self.document.data_changed.connect(self._show)

    def initializePage(self) -> None:
        if self.document.has_data:
            self.path.setText(self.document.source.location)
        self._show()

    def _choose(self) -> None:
        start = str(Path(self.path.text()).parent) if self.path.text() else ""
        path, _ = QFileDialog.getOpenFileName(self, "Choose the data", start,
                                              "Tables (*.csv *.txt *.tsv *.xlsx);;All files (*)")
        if path:
            self.path.setText(path)
            self.load(path)

    def _import_settings(self) -> None:
        self.window.files.import_dialog(self.path.text() or None)

    def load(self, path: str) -> None:
        """Read ``path`` in the worker with the detected format."""
        path = path.strip()
        if not path or (self.document.has_data and self.document.source.location == path):
            return
        try:
            kind = guess_kind(path)
            fmt = detect_csv_format(path) if kind == "csv" else None
        except (AnonymistError, OSError) as e:
            self.summary.setText(f"Cannot read {Path(path).name}: {e}")
            return
        if kind not in ("csv", "excel"):
            self.summary.setText("Use Import settings for databases and other sources.")
            return
        self._loading = True
        self.summary.setText(f"Reading {Path(path).name}…")
        self.completeChanged.emit()
        self.window.files.import_spec(ImportSpec(kind, path, csv_format=fmt))
        self.window.files.tasks.idle.connect(self._idle)

    def _idle(self) -> None:
        self.window.files.tasks.idle.disconnect(self._idle)
        self._loading = False
        if not self.document.has_data or self.document.source.location != self.path.text():
            self.summary.setText("The file could not be read: see the message.")
        self._show()

    def _show(self) -> None:
        doc = self.document
        if not doc.has_data:
            self.completeChanged.emit()
            return
        if doc.out_of_core:
            self.preview.clear()
            self.preview.setRowCount(0)
            self.preview.setColumnCount(0)
            self.summary.setText(
                f"{doc.data.label} is too big for memory and was opened out of "
                f"core (DuckDB). The guided release reads the records in memory to propose "
                f"attributes and hierarchies: close this wizard and configure the release "
                f"in Configure, or raise the memory share in the settings.")
            self.completeChanged.emit()
            return
        t, src = doc.table, doc.source
        fmt = (f", '{src.delimiter}'-separated, {src.encoding}" if src.kind == "csv" else "")
        self.summary.setText(f"{Path(src.location).name}: {t.n_rows:,} records × "
                             f"{len(t.names)} columns{fmt}.")
        names = list(t.names)
        self.preview.clear()
        self.preview.setColumnCount(len(names))
        self.preview.setHorizontalHeaderLabels(names)
        n = min(PREVIEW_ROWS, t.n_rows)
        self.preview.setRowCount(n)
        for j, name in enumerate(names):
            values = t.column(name).values(slice(0, n))
            for i in range(n):
                self.preview.setItem(i, j, read_only_item(str(values[i])))
        self.preview.resizeColumnsToContents()
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return self.document.table is not None and not self._loading
