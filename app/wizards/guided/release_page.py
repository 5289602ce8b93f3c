"""Step 7: write the release in two folders — share/ (the data, the public report) and
internal/ (the job, hierarchies, value mapping, full report) — through the one release
writer (``engine.guide.release``), and check each file independently."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (QCheckBox, QFileDialog, QHBoxLayout, QLineEdit, QPushButton,
                               QVBoxLayout)

from app.wizards.guided.common import GuidedPage, explanation, muted, read_only_item, table
from engine.guide.release import release as write_release


class ReleasePage(GuidedPage):
    def __init__(self, wizard):
        super().__init__(wizard, "Release",
                         "Write the anonymized data and its documents; each file is checked "
                         "independently before it counts as released.")
        lay = QVBoxLayout(self)
        lay.addWidget(explanation(
            "The release folder gets two parts: share/ holds what may leave your "
            "organisation (the anonymized data and a public report that names no original "
            "value); internal/ holds what must stay inside (the job with its paths, the "
            "hierarchies, the value mapping and the full report). Each has a README.txt "
            "saying who may see it. The data file is read back and its groups recounted "
            "against your privacy goal; the value mapping (which input value became which "
            "released value) is applied to the input and must give the released file "
            "exactly."))
        row = QHBoxLayout()
        self.folder = QLineEdit()
        self.folder.setPlaceholderText("folder for the release")
        choose = QPushButton("Choose…")
        choose.clicked.connect(self._choose)
        row.addWidget(self.folder, 1)
        row.addWidget(choose)
        lay.addLayout(row)
        self.with_mapping = QCheckBox("Value mapping (one table per quasi-identifier)")
        self.with_mapping.setChecked(True)
        lay.addWidget(self.with_mapping)
        self.with_report = QCheckBox("Release report (PDF and JSON) for an approval board: "
                                     "public in share/, full in internal/")
        self.with_report.setChecked(True)
        lay.addWidget(self.with_report)
        self.release_button = QPushButton("Release")
        self.release_button.setObjectName("primaryButton")
        self.release_button.clicked.connect(self.release)
        lay.addWidget(self.release_button)
        self.files = table(["File", "Check"])
        lay.addWidget(self.files, 1)
        lay.addStretch()
        self.status = muted()
        lay.addWidget(self.status)
        self.artefacts: list = []

    def initializePage(self) -> None:
        if not self.folder.text():
            source = self.document.source.location
            base = Path(source).parent if source else Path.home()
            self.folder.setText(str(base / f"{Path(source).stem or 'data'}-release"))
        self.artefacts = []
        self._show()

    def _choose(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Folder for the release",
                                                self.folder.text())
        if path:
            self.folder.setText(path)

    def release(self) -> None:
        doc = self.document
        folder = Path(self.folder.text()).expanduser()
        stem = Path(doc.source.location).stem or "data"
        result, levels = doc.result, doc.applied_levels  # None: the result's own output
        job = result.problem.job  # the job that produced the result
        mapping, report = self.with_mapping.isChecked(), self.with_report.isChecked()

        def work(_report, _cancelled):
            return write_release(result, levels, job, folder, stem, mapping, report)

        self.release_button.setEnabled(False)
        self.status.setText("Writing and checking…")
        self.wiz.run_task("Releasing", work, self._released, self._failed)

    def _released(self, artefacts) -> None:
        self.artefacts = artefacts
        self.release_button.setEnabled(True)
        self._show()

    def _failed(self, message: str) -> None:
        self.release_button.setEnabled(True)
        self.status.setText(f"The release failed: {message}")

    def _show(self) -> None:
        self.files.setVisible(bool(self.artefacts))  # no empty table before Release
        self.files.setRowCount(len(self.artefacts))
        folder = Path(self.folder.text()).expanduser()
        for i, a in enumerate(self.artefacts):
            mark = "✔ " if a.verified else "✘ "
            # share/… and internal/… under the folder above (the whole path, repeated on
            # every row, pushed the checks out of a 1000 px wizard); the tooltip has it
            path = Path(a.path)
            shown = path.relative_to(folder) if path.is_relative_to(folder) else path
            self.files.setItem(i, 0, read_only_item(str(shown), str(a.path)))
            self.files.setItem(i, 1, read_only_item(mark + a.message, a.message))
        self.files.resizeColumnsToContents()
        if self.artefacts:
            ok = self.done()
            self.status.setText("Done: every file passed its check. Share only the share/ "
                                "folder." if ok else
                                "A check failed: do not publish these files.")
        self.completeChanged.emit()

    def done(self) -> bool:
        return bool(self.artefacts) and all(a.verified for a in self.artefacts)

    def isComplete(self) -> bool:
        return self.done()
