"""File > Export data: where the released table goes (CSV with its options, Excel,
Parquet or a new database table) and which release documents go with it (value
mapping, release report, pseudonym table: written in share/ and internal/ of a release
folder, ``engine.release_docs.writer.share_internal``). Builds an
``engine.release_docs.writer.ReleaseRequest``;
the database password is asked here and kept only in the request, never stored."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog,
                               QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QStackedWidget, QVBoxLayout, QWidget)

from engine.errors import AnonymistError
from engine.export.targets import CsvOptions, DatabaseTarget, FileTarget
from engine.release_docs.writer import SHARE, ReleaseRequest, share_internal

FORMATS = (("csv", "CSV (delimited text)", ".csv"), ("xlsx", "Excel workbook (.xlsx)", ".xlsx"),
           ("parquet", "Parquet (.parquet)", ".parquet"), ("database", "Database table", ""))
DELIMITERS = ((";", ";"), (",", ","), ("Tab", "\t"), ("|", "|"))
QUOTING = (("minimal", "Only where needed"), ("all", "Every value"),
           ("nonnumeric", "Every non-numeric value"), ("none", "Never"))
ENCODINGS = ("utf-8", "utf-8-sig", "latin-1", "cp1252", "utf-16")


def _path_row(edit: QLineEdit, browse) -> QWidget:
    w = QWidget()
    lay = QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(edit, 1)
    b = QPushButton("Browse…")
    b.clicked.connect(browse)
    lay.addWidget(b)
    return w


def verbatim_warning(names: Sequence[str], shown: int = 6) -> str:
    """The warning for insensitive columns the export writes exactly as they are."""
    if not names:
        return ""
    text = ", ".join(names[:shown])
    if len(names) > shown:
        text += f" and {len(names) - shown} more"
    return (f"⚠ Released unchanged (insensitive): {text}. Mark direct identifiers "
            f"Identifying in Configure to remove them.")


class ExportDialog(QDialog):
    def __init__(self, folder: str | Path, delimiter: str = ";", mapping_allowed: bool = True,
                 parent=None, transformation: str = "", pseudonyms: bool = False,
                 verbatim: Sequence[str] = (), out_of_core: bool = False):
        super().__init__(parent)
        #: data too big for memory: DuckDB writes the table (CSV with minimal quoting,
        #: utf-8 and lf, or Parquet) and no release document
        self.out_of_core = out_of_core
        self.setWindowTitle("Export anonymized data")
        self.setMinimumWidth(560)
        # absolute, so the File field shows the folder the export writes to
        self.folder = Path(folder or Path.home()).expanduser().absolute()
        lay = QVBoxLayout(self)
        form = QFormLayout()
        #: which transformation is written (Document.current_transformation().describe())
        self.transformation = QLabel(transformation)
        self.transformation.setObjectName("exportTransformation")
        self.transformation.setWordWrap(True)
        self.transformation.setToolTip("The current transformation: the optimum, or the one "
                                       "applied in Explore. Analyze utility and Analyze risk "
                                       "show this same table.")
        if transformation:
            form.addRow("Transformation", self.transformation)
        self.format = QComboBox()
        self.format.setObjectName("exportFormat")
        for key, text, _ in FORMATS:
            if not out_of_core or key in ("csv", "parquet"):
                self.format.addItem(text, key)
        form.addRow("Format", self.format)
        if out_of_core:
            note = QLabel("The data is too big for memory: DuckDB writes the released table "
                          "straight from the input file (CSV or Parquet), and the value "
                          "mapping. The release report and the pseudonym table are written "
                          "for data anonymized in memory.")
            note.setObjectName("exportOutOfCore")
            note.setWordWrap(True)
            form.addRow("Out of core", note)
        lay.addLayout(form)
        #: insensitive columns written exactly as they are (Document.verbatim_columns())
        self.verbatim = QLabel(verbatim_warning(verbatim))
        self.verbatim.setObjectName("exportVerbatim")
        self.verbatim.setWordWrap(True)
        self.verbatim.setTextFormat(Qt.TextFormat.PlainText)
        self.verbatim.setStyleSheet("color: #8a5a00")
        self.verbatim.setToolTip("Released unchanged: " + ", ".join(verbatim))
        self.verbatim.setVisible(bool(verbatim))
        lay.addWidget(self.verbatim)

        self.stack = QStackedWidget()
        self.stack.addWidget(self._file_page(delimiter))
        self.stack.addWidget(self._database_page())
        lay.addWidget(self.stack)

        docs = QGroupBox("Release documents")
        dform = QFormLayout(docs)
        split = QLabel("With documents the release is written in two folders: share/ (the "
                       "data and the public report, which names no original value: what "
                       "may leave the organisation) and internal/ (the job with its paths, "
                       "the hierarchies, the value mapping, the full report, the pseudonym "
                       "table: what must stay inside), each with a README.txt.")
        split.setWordWrap(True)
        dform.addRow(split)
        self.with_mapping = QCheckBox("Value mapping (input value → released value), internal")
        self.with_mapping.setEnabled(mapping_allowed)
        if not mapping_allowed:
            self.with_mapping.setToolTip("Local recoding gives records of one value different "
                                         "levels: there is no value mapping")
        dform.addRow(self.with_mapping)
        self.with_report = QCheckBox("Release report (PDF and JSON): public in share/, "
                                     "full in internal/")
        dform.addRow(self.with_report)
        self.with_lookup = QCheckBox("Pseudonym table (value → pseudonym: re-identifies), "
                                     "internal")
        self.with_lookup.setVisible(pseudonyms)
        dform.addRow(self.with_lookup)
        #: the folder of share/ and internal/ when documents are written
        self.release_folder = QLineEdit(str(self.folder / "release"))
        self.release_folder.setObjectName("exportReleaseFolder")
        dform.addRow("Release folder", _path_row(self.release_folder, self._browse_folder))
        self.table_place = QLabel()
        self.table_place.setObjectName("exportTablePlace")
        self.table_place.setWordWrap(True)
        dform.addRow(self.table_place)
        lay.addWidget(docs)
        for box in (self.with_mapping, self.with_report, self.with_lookup):
            box.toggled.connect(self._documents_changed)
        self.release_folder.textChanged.connect(self._documents_changed)
        if out_of_core:  # DuckDB writes the mapping; the report and table need the rows
            self.with_report.setEnabled(False)
            self.with_lookup.setEnabled(False)

        self.error = QLabel()
        self.error.setObjectName("exportError")
        self.error.setStyleSheet("color: #b22222")
        self.error.setWordWrap(True)
        lay.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok |
                                   QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.format.currentIndexChanged.connect(self._format_changed)
        self.path.textChanged.connect(self._documents_changed)
        self._format_changed()
        self._documents_changed()
        self._request: ReleaseRequest | None = None

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self._fit_height()

    def _fit_height(self) -> None:
        """Grow to the height the wrapped lines need at this width: a dialog is sized
        from its size hint, which gives the explanations one line each (the Release
        documents' text was cut off at its first and last lines)."""
        need = self.heightForWidth(self.width())
        if self.isVisible() and need > self.height():
            self.resize(self.width(), need)

    # --- pages --------------------------------------------------------------------------
    def _file_page(self, delimiter: str) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        self.path = QLineEdit(str(self.folder / "anonymized.csv"))
        self.path.setObjectName("exportPath")
        form.addRow("File", _path_row(self.path, lambda: self._browse(self.path, self._filter())))
        self.csv_box = QGroupBox("CSV options")
        cform = QFormLayout(self.csv_box)
        self.delimiter = QComboBox()
        self.delimiter.setEditable(True)
        for text, value in DELIMITERS:
            self.delimiter.addItem(text, value)
        i = next((k for k, (_, v) in enumerate(DELIMITERS) if v == delimiter), None)
        if i is not None:
            self.delimiter.setCurrentIndex(i)
        else:
            self.delimiter.setEditText(delimiter)
        self.quoting = QComboBox()
        for key, text in QUOTING:
            self.quoting.addItem(text, key)
        self.encoding = QComboBox()
        self.encoding.setEditable(True)
        self.encoding.addItems(ENCODINGS)
        self.line_ending = QComboBox()
        self.line_ending.addItem("LF (Linux, macOS)", "lf")
        self.line_ending.addItem("CRLF (Windows)", "crlf")
        cform.addRow("Delimiter", self.delimiter)
        cform.addRow("Quoting", self.quoting)
        cform.addRow("Encoding", self.encoding)
        cform.addRow("Line ending", self.line_ending)
        from engine.formulas import FORMULA_CELLS  # declared once: choices, labels, help
        self.formula_cells = QComboBox()
        self.formula_cells.setObjectName("exportFormulaCells")
        for choice in FORMULA_CELLS.choices:
            self.formula_cells.addItem(FORMULA_CELLS.choice_label(choice), choice)
        self.formula_cells.setCurrentIndex(FORMULA_CELLS.choices.index(FORMULA_CELLS.default))
        self.formula_cells.setToolTip(FORMULA_CELLS.help)
        cform.addRow(FORMULA_CELLS.title, self.formula_cells)
        for widget in (self.quoting, self.encoding, self.line_ending):
            widget.setEnabled(not self.out_of_core)  # DuckDB's CSV: minimal, utf-8, lf
        form.addRow(self.csv_box)
        return page

    def _database_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        self.url = QLineEdit()
        self.url.setObjectName("exportUrl")
        self.url.setPlaceholderText("sqlite:///path/to/file.db or "
                                    "postgresql+psycopg2://user@host:5432/database")
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText("asked now, never stored")
        self.table = QLineEdit("anonymized")
        self.table.setObjectName("exportTable")
        self.replace = QCheckBox("Replace the table if it exists")
        form.addRow("Database URL", self.url)
        form.addRow("Password", self.password)
        form.addRow("New table", self.table)
        form.addRow(self.replace)
        note = QLabel("A new table is created with text columns and filled in batches; "
                      "the export can be cancelled and then leaves no table behind.")
        note.setWordWrap(True)
        form.addRow(note)
        return page

    def _filter(self) -> str:
        key = self.format.currentData()
        return {"csv": "CSV files (*.csv *.tsv *.txt)", "xlsx": "Excel workbook (*.xlsx)",
                "parquet": "Parquet (*.parquet)"}.get(key, "All files (*)")

    def _browse(self, edit: QLineEdit, filters: str, folder_ok: bool = False) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Choose a file", edit.text(), filters)
        if path:
            edit.setText(path)

    def _browse_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Release folder",
                                                self.release_folder.text())
        if path:
            self.release_folder.setText(path)

    def documents(self) -> bool:
        """Whether any release document is asked for (then: share/ and internal/)."""
        return any(b.isChecked() and b.isEnabled() and not b.isHidden()
                   for b in (self.with_mapping, self.with_report, self.with_lookup))

    def _documents_changed(self) -> None:
        on = self.documents()
        self.release_folder.setEnabled(on)
        name = Path(self.path.text().strip() or "anonymized").name
        self.table_place.setText(
            f"The data file is written as {Path(self.release_folder.text()) / 'share' / name}"
            if on and self.format.currentData() != "database" else "")
        self._fit_height()

    def _format_changed(self) -> None:
        key = self.format.currentData()
        self.stack.setCurrentIndex(1 if key == "database" else 0)
        self.csv_box.setVisible(key == "csv")
        suffix = next(s for k, _, s in FORMATS if k == key)
        if suffix:
            p = Path(self.path.text() or "anonymized")
            self.path.setText(str(p.with_suffix(suffix)))
        self._fit_height()

    # --- result -------------------------------------------------------------------------
    def build_request(self) -> ReleaseRequest:
        """The request the dialog describes; raises ``AnonymistError`` naming the field."""
        key = self.format.currentData()
        if key == "database":
            url, table = self.url.text().strip(), self.table.text().strip()
            if not url:
                raise AnonymistError("give the database URL")
            if not table:
                raise AnonymistError("give the name of the new table")
            if self.password.text():
                from engine.data.readers import with_password
                url = with_password(url, self.password.text())
            target = DatabaseTarget(url, table, replace=self.replace.isChecked())
        else:
            text = self.path.text().strip()
            if not text:
                raise AnonymistError("give the file to write")
            path = Path(text)
            if path.suffix.lower() not in {s for k, _, s in FORMATS if k == key} | (
                    {".tsv", ".txt"} if key == "csv" else set()):
                path = path.with_suffix(next(s for k, _, s in FORMATS if k == key))
            options = CsvOptions()
            if key == "csv":
                delimiter = self.delimiter.currentData() if (
                    self.delimiter.currentText() == self.delimiter.itemText(
                        self.delimiter.currentIndex())) else self.delimiter.currentText()
                options = CsvOptions(delimiter=delimiter or ";",
                                     quoting=self.quoting.currentData(),
                                     encoding=self.encoding.currentText().strip() or "utf-8",
                                     line_ending=self.line_ending.currentData(),
                                     formula_cells=self.formula_cells.currentData())
            target = FileTarget(path, key, options)
        if not self.documents():
            return ReleaseRequest(target)
        folder = Path(self.release_folder.text().strip() or self.folder / "release")
        if isinstance(target, FileTarget):  # the shared table goes into share/
            target = replace(target, path=folder / SHARE / target.path.name)
            stem = target.path.stem
        else:
            stem = target.table
        return share_internal(folder, stem, target, mapping=self.with_mapping.isChecked()
                              and self.with_mapping.isEnabled(),
                              report=self.with_report.isChecked()
                              and self.with_report.isEnabled(),
                              pseudonym_table=self.with_lookup.isChecked()
                              and not self.with_lookup.isHidden())

    @property
    def request(self) -> ReleaseRequest | None:
        return self._request

    def accept(self) -> None:
        try:
            self._request = self.build_request()
        except AnonymistError as e:
            self.error.setText(str(e))
            return
        super().accept()
