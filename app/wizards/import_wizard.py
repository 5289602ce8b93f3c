"""Import data: source, format with live preview, columns and data types.

``ImportWizard.spec()`` returns an ``ImportSpec``; the window then reads the
whole table in a worker thread. A source that cannot be read leads to the
error page, which says why.
"""
from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWizard, QWizardPage

from app.wizards.columns_page import ColumnsPage
from app.wizards.format_page import FormatPage
from app.wizards.source_page import SourcePage
from engine.data.sources import ImportSpec

SOURCE_PAGE, FORMAT_PAGE, COLUMNS_PAGE, ERROR_PAGE = range(4)


class ErrorPage(QWizardPage):
    def __init__(self, wizard: "ImportWizard"):
        super().__init__()
        self.wiz = wizard
        self.setTitle("The data cannot be read")
        self.setSubTitle("Nothing was imported.")
        lay = QVBoxLayout(self)
        self.message = QLabel()
        self.message.setObjectName("errorLabel")
        self.message.setWordWrap(True)
        lay.addWidget(self.message)
        hint = QLabel("Go back to choose another file or other options.")
        hint.setObjectName("mutedLabel")
        lay.addWidget(hint)
        lay.addStretch()

    def initializePage(self) -> None:
        self.message.setText(self.wiz.error or "Unknown error")

    def isComplete(self) -> bool:
        return False

    def nextId(self) -> int:
        return -1


class ImportWizard(QWizard):
    def __init__(self, path: str | None = None, page_size: int = 100, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Import data")
        self.setObjectName("importWizard")
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.resize(880, 640)
        self.error: str | None = None
        self.kind = "csv"
        self.location = ""
        self.table_name = ""
        #: database password from the source page's server form: in memory only
        self.password = ""
        self.csv_format = None
        self.has_header = True
        self.parts: list = []  # Parquet: the file, or the parts a pattern matches
        self.source_page = SourcePage(self)
        self.format_page = FormatPage(self)
        self.columns_page = ColumnsPage(self, page_size)
        self.error_page = ErrorPage(self)
        self.setPage(SOURCE_PAGE, self.source_page)
        self.setPage(FORMAT_PAGE, self.format_page)
        self.setPage(COLUMNS_PAGE, self.columns_page)
        self.setPage(ERROR_PAGE, self.error_page)
        self.setStartId(SOURCE_PAGE)
        if path:
            self.source_page.prefill(path)

    def page_after_source(self) -> int:
        """The format page, or the error page when the source cannot be read."""
        return ERROR_PAGE if self.error else FORMAT_PAGE

    def spec(self) -> ImportSpec:
        items = self.columns_page.model.items()
        chosen = [it for it in items if it.include]
        sources = [it.source for it in chosen]
        frame = self.format_page.frame
        original = [str(c) for c in frame.columns] if frame is not None else sources
        return ImportSpec(self.kind, self.location, self.table_name, self.csv_format,
                          self.has_header,
                          tuple(sources) if sources != original else (),
                          tuple((it.name, None if it.data_type == "string" else it.data_type,
                                 it.format) for it in chosen),
                          password=self.password,
                          renames=tuple((it.source, it.name) for it in chosen
                                        if it.name != it.source))
