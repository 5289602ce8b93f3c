"""First page: CSV file, Excel workbook, Parquet file or folder of Parquet parts (a
pattern such as ``/data/part-*.parquet``), or database (SQLAlchemy URL or SQLite file)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (QButtonGroup, QComboBox, QFileDialog, QFormLayout, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QRadioButton,
                               QSpinBox, QVBoxLayout, QWizardPage)

from app import file_dialogs
from app.workers import readable_error
from engine.data.csv_import import detect_csv_format
from engine.data.sources import (DIALECTS, database_tables, excel_sheets, guess_kind,
                                 parquet_parts, parquet_pattern, server_url)

KINDS = (("csv", "CSV or text file"), ("excel", "Excel workbook (.xlsx, .xls)"),
         ("parquet", "Parquet file, or a folder of Parquet parts"), ("sql", "Database (SQLite file or SQLAlchemy URL)"))
FILTERS = {"csv": "Delimited text (*.csv *.tsv *.txt *.dat);;All files (*)",
           "excel": "Excel workbooks (*.xlsx *.xlsm *.xls);;All files (*)",
           "parquet": "Parquet files (*.parquet *.pq);;All files (*)",
           "sql": "SQLite databases (*.sqlite *.sqlite3 *.db);;All files (*)"}


class SourcePage(QWizardPage):
    def __init__(self, wizard):
        super().__init__()
        self.wiz = wizard
        self.setTitle("Choose the data")
        self.setSubTitle("Anonymist reads CSV files, Excel sheets, Parquet files and "
                         "database tables.")
        lay = QVBoxLayout(self)
        self.kinds = QButtonGroup(self)
        for i, (kind, label) in enumerate(KINDS):
            rb = QRadioButton(label)
            rb.setObjectName(f"kind_{kind}")
            self.kinds.addButton(rb, i)
            lay.addWidget(rb)
        self.kinds.button(0).setChecked(True)
        lay.addSpacing(10)
        form = QFormLayout()
        row = QHBoxLayout()
        self.location = QLineEdit()
        self.location.setObjectName("location")
        self.location.setPlaceholderText("File path, or a database URL such as "
                                         "postgresql://user@host/db")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        # Parquet parts (Spark's or DuckDB's output folders): a folder gives its pattern
        self.folder = QPushButton("Folder of parts…")
        self.folder.setObjectName("parquetFolder")
        self.folder.setToolTip("Choose a folder: its Parquet files (*.parquet) are read as "
                               "one table, in name order. Or type a pattern such as "
                               "/data/part-*.parquet")
        self.folder.clicked.connect(self._browse_folder)
        row.addWidget(self.location, 1)
        row.addWidget(browse)
        row.addWidget(self.folder)
        form.addRow("Location", row)
        self.table = QComboBox()
        self.table.setObjectName("tableChoice")
        self.table_label = QLabel("Sheet / table")
        form.addRow(self.table_label, self.table)
        lay.addLayout(form)
        lay.addWidget(self._server_form())
        lay.addStretch()
        self.kinds.idToggled.connect(lambda *_: self._kind_changed())
        self.location.editingFinished.connect(self._list_tables)
        self.location.textChanged.connect(lambda _: self.completeChanged.emit())
        self._kind_changed()

    def _server_form(self) -> QGroupBox:
        """Host, port, database and user of a database server; the password is asked
        here, kept in memory for this import and never stored."""
        box = QGroupBox("Or connect to a database server")
        box.setObjectName("serverForm")
        form = QFormLayout(box)
        self.dialect = QComboBox()
        for key, label, _, port in DIALECTS:
            self.dialect.addItem(label, (key, port))
        self.host = QLineEdit()
        self.host.setPlaceholderText("db.example.org")
        self.port = QSpinBox()
        self.port.setRange(1, 65535)
        self.port.setValue(DIALECTS[0][3])
        self.database = QLineEdit()
        self.user = QLineEdit()
        self.password = QLineEdit()
        self.password.setObjectName("password")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText("asked now, never stored")
        self.connect_button = QPushButton("Connect")
        self.connect_button.clicked.connect(self.connect_server)
        self.server_error = QLabel()
        self.server_error.setWordWrap(True)
        self.server_error.setStyleSheet("color: #b22222")
        self.dialect.currentIndexChanged.connect(
            lambda _: self.port.setValue(self.dialect.currentData()[1]))
        form.addRow("Server", self.dialect)
        form.addRow("Host", self.host)
        form.addRow("Port", self.port)
        form.addRow("Database", self.database)
        form.addRow("User", self.user)
        form.addRow("Password", self.password)
        form.addRow(self.connect_button, self.server_error)
        self.server_box = box
        return box

    def connect_server(self) -> None:
        """Put the server's URL (without the password) into Location and list its tables."""
        try:
            url = server_url(self.dialect.currentData()[0], self.host.text(), self.port.value(),
                             self.database.text(), self.user.text())
        except Exception as e:  # noqa: BLE001 - shown beside the button
            self.server_error.setText(readable_error(e))
            return
        self.server_error.setText("")
        self.location.setText(url)
        self._list_tables()

    @property
    def kind(self) -> str:
        return KINDS[max(0, self.kinds.checkedId())][0]

    def set_kind(self, kind: str) -> None:
        self.kinds.button([k for k, _ in KINDS].index(kind)).setChecked(True)

    def prefill(self, path: str) -> None:
        self.set_kind("parquet" if Path(path).is_dir() else guess_kind(path))
        self.location.setText(str(path))
        self._list_tables()

    def _kind_changed(self) -> None:
        tabular = self.kind in ("excel", "sql")
        self.table.setVisible(tabular)
        self.table_label.setVisible(tabular)
        self.server_box.setVisible(self.kind == "sql")
        self.folder.setVisible(self.kind == "parquet")
        self.location.setPlaceholderText(
            "A .parquet file, a folder of parts, or a pattern such as /data/part-*.parquet"
            if self.kind == "parquet" else
            "File path, or a database URL such as postgresql://user@host/db")
        self._list_tables()

    def _browse(self) -> None:
        path = file_dialogs.open_file(self, "Choose data", FILTERS[self.kind], "data")
        if path:
            self.location.setText(path)
            self._list_tables()

    def _browse_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Choose the folder of Parquet parts", file_dialogs.start_folder("data"))
        if folder:
            file_dialogs.remember("data", folder)
            self.location.setText(parquet_pattern(folder))

    def _list_tables(self) -> None:
        self.table.clear()
        loc = self.location.text().strip()
        if not loc or self.kind in ("csv", "parquet"):
            return
        try:
            names = excel_sheets(loc) if self.kind == "excel" else \
                database_tables(loc, self.password.text())
        except Exception as e:  # noqa: BLE001 - reported when the user goes on
            if self.kind == "sql" and self.host.text():
                self.server_error.setText(readable_error(e))
            return
        self.table.addItems(names)

    def isComplete(self) -> bool:
        return bool(self.location.text().strip())

    def validatePage(self) -> bool:
        """Check the source can be read; an error leads to the error page."""
        w = self.wiz
        w.kind, w.location, w.error = self.kind, self.location.text().strip(), None
        w.table_name = self.table.currentText()
        w.password = self.password.text() if w.kind == "sql" else ""
        try:
            if w.kind == "csv":
                if not Path(w.location).is_file():
                    raise FileNotFoundError(2, "File not found", w.location)
                w.csv_format = detect_csv_format(w.location)
                w.has_header = w.csv_format.has_header
            elif w.kind == "parquet":
                if Path(w.location).is_dir():  # a folder: its parts, by their pattern
                    w.location = parquet_pattern(w.location)
                    self.location.setText(w.location)
                w.parts = parquet_parts(w.location)  # a pattern matching none: named
                if not w.parts[0].is_file():
                    raise FileNotFoundError(2, "File not found", w.location)
                w.has_header = True
            else:
                names = excel_sheets(w.location) if w.kind == "excel" \
                    else database_tables(w.location, w.password)
                if not names:
                    raise ValueError("it holds no sheet or table")
                if w.table_name not in names:
                    w.table_name = names[0]
        except Exception as e:  # noqa: BLE001 - shown on the error page
            w.error = f"{Path(w.location).name or w.location} cannot be read: " \
                      f"{readable_error(e)}"
        return True

    def nextId(self) -> int:
        return self.wiz.page_after_source()
