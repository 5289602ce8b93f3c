"""Select the research subset by a query, a file of row indices or a random sample.

What each choice selects is the engine's reading of the job's ``[subset]``
(``engine.subset.resolve_subset``), so the rows shown are the rows the search uses.
"""
from __future__ import annotations

from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox,
                               QTabWidget, QVBoxLayout, QWidget)

from app import file_dialogs
from app.document import Document
from engine.errors import AnonymistError

QUERY_HELP = ("Rows whose values match, e.g. <code>age &gt; 30 and sex = 'Male'</code>. "
              "Operators = != &lt; &lt;= &gt; &gt;=, combined with and, or, not and "
              "parentheses; quote names and values with spaces.")


def describe_subset(spec: dict | None) -> str:
    """How the subset was selected, in a few words ("" when rows were ticked)."""
    if not spec:
        return ""
    if "query" in spec:
        return f"query: {spec['query']}"
    if "rows" in spec:
        return f"rows listed in {spec['rows']}"
    if "sample" in spec:
        return f"random {spec['sample'] * 100:g} % sample, seed {spec.get('seed', 0)}"
    return ""


class SubsetDialog(QDialog):
    """``spec()`` is the chosen ``[subset]`` table; ``accept`` applies it to the document
    (a message below the tabs, and the dialog stays open, when it selects nothing)."""

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.doc = document
        self.setWindowTitle("Research subset")
        self.setMinimumWidth(520)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("The research subset is the part of the data that will be "
                             "published; delta-presence and k-map compare it with the "
                             "whole table."))
        self.tabs = QTabWidget()
        lay.addWidget(self.tabs)
        # query
        page = QWidget()
        form = QFormLayout(page)
        self.query = QLineEdit()
        self.query.setObjectName("subsetQuery")
        self.query.setPlaceholderText("age > 30 and sex = 'Male'")
        form.addRow("Query", self.query)
        hint = QLabel(QUERY_HELP)
        hint.setWordWrap(True)
        hint.setObjectName("mutedLabel")
        form.addRow("", hint)
        self.tabs.addTab(page, "Query")
        # file of row indices
        page = QWidget()
        form = QFormLayout(page)
        row = QHBoxLayout()
        self.rows_file = QLineEdit()
        self.rows_file.setObjectName("subsetRowsFile")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row.addWidget(self.rows_file, 1)
        row.addWidget(browse)
        form.addRow("File", row)
        hint = QLabel("A text file with one 0-based data-row index per line.")
        hint.setObjectName("mutedLabel")
        form.addRow("", hint)
        self.tabs.addTab(page, "File of row indices")
        # random sample
        page = QWidget()
        form = QFormLayout(page)
        self.share = QDoubleSpinBox()
        self.share.setObjectName("subsetShare")
        self.share.setRange(0.01, 100.0)
        self.share.setDecimals(2)
        self.share.setSuffix(" %")
        self.share.setValue(10.0)
        self.seed = QSpinBox()
        self.seed.setObjectName("subsetSeed")
        self.seed.setRange(0, 2_000_000_000)
        self.seed.setToolTip("The same seed draws the same rows (and the job file keeps it)")
        form.addRow("Share of rows", self.share)
        form.addRow("Seed", self.seed)
        self.tabs.addTab(page, "Random sample")
        self.status = QLabel()
        self.status.setObjectName("mutedLabel")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        self.preview_button = buttons.addButton("Count rows",
                                                QDialogButtonBox.ButtonRole.ActionRole)
        self.preview_button.clicked.connect(self.preview)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self._counting = None  # out of core: the query being counted in a worker
        self._show(document.subset_spec)

    def _show(self, spec: dict | None) -> None:
        spec = spec or {}
        if "query" in spec:
            self.query.setText(spec["query"])
            self.tabs.setCurrentIndex(0)
        elif "rows" in spec:
            self.rows_file.setText(spec["rows"])
            self.tabs.setCurrentIndex(1)
        elif "sample" in spec:
            self.share.setValue(spec["sample"] * 100)
            self.seed.setValue(int(spec.get("seed", 0)))
            self.tabs.setCurrentIndex(2)

    def _browse(self) -> None:
        path = file_dialogs.open_file(self, "Row indices", "Text files (*.txt *.csv);;"
                                      "All files (*)", "data", self.doc)
        if path:
            self.rows_file.setText(path)

    def spec(self) -> dict:
        """The ``[subset]`` table of the current tab."""
        tab = self.tabs.currentIndex()
        if tab == 0:
            return {"query": self.query.text().strip()}
        if tab == 1:
            return {"rows": self.rows_file.text().strip()}
        return {"sample": round(self.share.value() / 100, 6), "seed": self.seed.value()}

    def _mask(self):
        spec = self.spec()
        if not next(iter(spec.values())) and next(iter(spec)) != "sample":
            raise AnonymistError("enter a query" if "query" in spec else "choose a file")
        return self.doc.subset_mask(spec)

    def preview(self) -> bool:
        """Show how many rows the choice selects; False (and the reason) when it fails.
        Out of core the query is counted in a worker (False until the count arrives)."""
        if self.doc.out_of_core:
            self._count_out_of_core(accept=False)
            return False
        try:
            mask = self._mask()
        except AnonymistError as e:
            self.status.setText(f"<span style='color:#b3261e'>{e}</span>")
            return False
        n = int(mask.sum())
        self.status.setText(f"{n:,} of {len(mask):,} rows selected")
        return n > 0

    def _count_out_of_core(self, accept: bool) -> None:
        spec = self.spec()
        if not next(iter(spec.values())) and "sample" not in spec:
            self.status.setText("<span style='color:#b3261e'>"
                                f"{'enter a query' if 'query' in spec else 'choose a file'}"
                                "</span>")
            return
        from app.workers import SerialWorker
        if self._counting is None:
            self._counting = SerialWorker(self)
            self._counting.done.connect(self._counted)
            self._counting.failed.connect(lambda _tag, m: self.status.setText(
                f"<span style='color:#b3261e'>{m}</span>"))
        self._counting.forget()
        self.status.setText("Counting the records the subset selects (DuckDB)…")
        self._counting.submit(lambda: self.doc.count_subset(spec),
                              (spec, accept))

    def _counted(self, tag, value) -> None:
        spec, accept = tag
        n, total = value
        self.status.setText(f"{n:,} of {total:,} records selected")
        if accept and n > 0 and spec == self.spec():
            self.doc.set_subset_spec(spec)
            super().accept()
        elif accept:
            self.status.setText("The subset selects no record: change the choice.")

    def wait(self, msecs: int = 20000) -> bool:
        """Wait for an out-of-core count (tests)."""
        return self._counting is None or self._counting.wait(msecs)

    def accept(self) -> None:
        if self.doc.out_of_core:
            self._count_out_of_core(accept=True)
            return
        if not self.preview():
            if "selected" in self.status.text():
                self.status.setText("The subset selects no row: change the choice.")
            return
        self.doc.set_subset_spec(self.spec())
        super().accept()
