"""Second page: CSV options (detected, editable) and a preview that follows them."""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QHeaderView,
                               QLabel, QTableView, QVBoxLayout, QWidget, QWizardPage)

from engine.data.sources import read_source
from app.models.frame_table import FrameTableModel
from app.workers import readable_error
from engine.data.csv_import import CsvFormat, one_column_hint

PREVIEW_ROWS = 100
DELIMITERS = ((";", ";"), (",", ","), ("Tab", "\t"), ("|", "|"))
QUOTES = (('"', '"'), ("'", "'"))
ENCODINGS = ("utf-8", "utf-8-sig", "cp1252", "latin-1", "utf-16", "ascii")


def _char(combo: QComboBox, table) -> str:
    text = combo.currentText()
    for label, char in table:
        if text == label:
            return char
    return "\t" if text.lower() in ("tab", "\\t") else text[:1]


def _label(char: str, table) -> str:
    return next((label for label, c in table if c == char), char)


def parquet_label(parts) -> str:
    """What the preview shows: a Parquet file, or the parts a pattern matched."""
    if len(parts) < 2:
        return "Parquet file"
    return (f"{len(parts):,} Parquet parts read as one table in name order "
            f"({parts[0].name} … {parts[-1].name})")


#: the widest a preview column grows to show its values whole (pixels)
MAX_PREVIEW_WIDTH = 260


class FormatPage(QWizardPage):
    def __init__(self, wizard):
        super().__init__()
        self.wiz = wizard
        self.setTitle("Check the format")
        self.setSubTitle("The delimiter, quote and encoding are detected from the file; "
                         "change them until the preview shows one value per cell.")
        self.frame = None
        self._updating = False
        lay = QVBoxLayout(self)
        self.options = QWidget()
        form = QFormLayout(self.options)
        form.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.delimiter = QComboBox()
        self.delimiter.setObjectName("delimiter")
        self.delimiter.setEditable(True)
        self.delimiter.addItems([d for d, _ in DELIMITERS])
        self.quote = QComboBox()
        self.quote.setObjectName("quote")
        self.quote.setEditable(True)
        self.quote.addItems([q for q, _ in QUOTES])
        self.encoding = QComboBox()
        self.encoding.setObjectName("encoding")
        self.encoding.setEditable(True)
        self.encoding.addItems(ENCODINGS)
        for label, w in (("Delimiter", self.delimiter), ("Quote", self.quote),
                         ("Encoding", self.encoding)):
            row.addWidget(QLabel(label))
            row.addWidget(w)
            row.addSpacing(10)
        row.addStretch()
        form.addRow(row)
        lay.addWidget(self.options)
        self.header = QCheckBox("First row holds the column names")
        self.header.setObjectName("header")
        lay.addWidget(self.header)
        self.detected = QLabel()
        self.detected.setObjectName("mutedLabel")
        self.detected.setWordWrap(True)  # a pattern's parts can be long names
        lay.addWidget(self.detected)
        self.model = FrameTableModel()
        self.preview = QTableView()
        self.preview.setObjectName("preview")
        self.preview.setModel(self.model)
        self.preview.verticalHeader().setDefaultSectionSize(22)
        self.preview.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        lay.addWidget(self.preview, 1)
        self.error = QLabel()
        self.error.setObjectName("errorLabel")
        self.error.setWordWrap(True)
        lay.addWidget(self.error)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)
        self._timer.timeout.connect(self.refresh_preview)
        for combo in (self.delimiter, self.quote, self.encoding):
            combo.currentTextChanged.connect(self._options_changed)
        self.header.toggled.connect(self._options_changed)

    def initializePage(self) -> None:
        w = self.wiz
        csv = w.kind == "csv"
        self.options.setVisible(csv)
        self.header.setVisible(w.kind not in ("sql", "parquet"))
        self._updating = True
        if csv and w.csv_format is not None:
            f = w.csv_format
            self.delimiter.setCurrentText(_label(f.delimiter, DELIMITERS))
            self.quote.setCurrentText(_label(f.quotechar, QUOTES))
            self.encoding.setCurrentText(f.encoding)
            self.detected.setText(f"Detected: delimiter {_label(f.delimiter, DELIMITERS)!r}, "
                                  f"encoding {f.encoding}, header {'yes' if f.has_header else 'no'}"
                                  f" (confidence {f.confidence:.0%})")
        else:
            self.detected.setText(parquet_label(w.parts) if w.kind == "parquet" else
                                  f"{'Sheet' if w.kind == 'excel' else 'Table'} "
                                  f"'{w.table_name}'")
        self.header.setChecked(w.has_header)
        self._updating = False
        self.refresh_preview()

    def current_format(self) -> CsvFormat | None:
        if self.wiz.kind != "csv" or self.wiz.csv_format is None:
            return None
        return replace(self.wiz.csv_format, delimiter=_char(self.delimiter, DELIMITERS),
                       quotechar=_char(self.quote, QUOTES),
                       encoding=self.encoding.currentText().strip() or "utf-8",
                       has_header=self.header.isChecked(), confidence=1.0)

    def _options_changed(self, *_) -> None:
        if not self._updating:
            self._timer.start()

    def refresh_preview(self) -> None:
        """Read the first rows with the current options (fast: a bounded read)."""
        self._timer.stop()
        w = self.wiz
        w.csv_format = self.current_format() or w.csv_format
        w.has_header = self.header.isChecked()
        try:
            self.frame = read_source(w.kind, w.location, w.table_name, w.csv_format,
                                     w.has_header, n_rows=PREVIEW_ROWS, password=w.password)
            self.error.setText("")
            if w.kind == "csv" and self.frame.shape[1] == 1 and w.csv_format is not None:
                header = str(self.frame.columns[0]) + " " + " ".join(
                    map(str, self.frame.iloc[:1, 0].tolist()))
                hint = one_column_hint(header, w.csv_format.delimiter)
                self.error.setText(hint[:1].upper() + hint[1:])
        except Exception as e:  # noqa: BLE001 - shown on the page
            self.frame = None
            self.error.setText(f"Cannot read the data with these options: {readable_error(e)}")
        self.model.set_frame(self.frame)
        self._fit_headers()
        self.completeChanged.emit()

    def _fit_headers(self) -> None:
        """Widen columns whose name would be clipped ('narital-status') or whose values
        would be ('Married-civ-…': the preview is where the delimiter is judged) up to
        ``MAX_PREVIEW_WIDTH``; a name is never clipped."""
        hh = self.preview.horizontalHeader()
        for col in range(self.model.columnCount()):
            need = max(hh.sectionSizeFromContents(col).width(),
                       min(MAX_PREVIEW_WIDTH, self.preview.sizeHintForColumn(col)))
            if need > hh.sectionSize(col):
                self.preview.setColumnWidth(col, need)

    def isComplete(self) -> bool:
        return self.frame is not None and self.frame.shape[1] > 0
