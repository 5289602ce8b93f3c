"""Step 5: the search, with progress and Cancel (heuristics take over on large lattices)."""
from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QVBoxLayout

from app.widgets.progress_status import show_fraction
from app.wizards.guided.common import GuidedPage, explanation, muted


class RunPage(GuidedPage):
    def __init__(self, wizard):
        super().__init__(wizard, "Finding the release",
                         "Anonymist looks for the combination of generalization levels that "
                         "meets your goal and loses the least information.")
        lay = QVBoxLayout(self)
        lay.addWidget(explanation(
            "Small problems are searched completely, so the result is provably the best; "
            "very large ones are searched heuristically within a time limit."))
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        lay.addWidget(self.bar)
        row = QHBoxLayout()
        self.status = muted()
        self.cancel = QPushButton("Cancel")
        self.cancel.clicked.connect(self.window.cancel)
        row.addWidget(self.status, 1)
        row.addWidget(self.cancel)
        lay.addLayout(row)
        lay.addStretch()
        self._running = False
        search = self.window.search
        search.progressed.connect(self._progress)
        search.finished.connect(self._finished)
        search.failed.connect(self._failed)

    def initializePage(self) -> None:
        doc = self.document
        reason = doc.check_job()
        if reason:
            self.status.setText(reason)
            self.bar.setRange(0, 1)
            self.cancel.setEnabled(False)
            return
        self._running = True
        self.cancel.setEnabled(True)
        self.bar.setRange(0, 0)
        self.status.setText("Starting…")
        self.completeChanged.emit()
        self.window.anonymize()

    def _progress(self, p) -> None:
        if not self._running:
            return
        show_fraction(self.bar, p)
        phase = getattr(p, "phase", "") or "searching"
        self.status.setText(f"{phase.capitalize()}: {p.checked:,} of {p.total:,} "
                            f"transformations checked · {p.elapsed_s:.1f} s")

    def _finished(self, outcome) -> None:
        if not self._running:
            return
        self._running = False
        self.cancel.setEnabled(False)
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        result = outcome.value
        if result.optimum is None:
            self.status.setText("No transformation meets this goal. Go back to allow a "
                                "weaker goal, or generalize more (edit the hierarchies).")
        else:
            done = "stopped early: the best found so far" if result.cancelled else "done"
            self.status.setText(f"{done.capitalize()}: {result.transformations_checked:,} of "
                                f"{result.lattice_size:,} transformations checked in "
                                f"{result.elapsed_s:.1f} s.")
        self.completeChanged.emit()

    def _failed(self, _label: str, message: str) -> None:
        if self._running:
            self._running = False
            self.cancel.setEnabled(False)
            self.status.setText(f"The search failed: {message}")
            self.completeChanged.emit()

    def isComplete(self) -> bool:
        result = self.document.result
        return not self._running and result is not None and result.optimum is not None

    def cleanupPage(self) -> None:  # Back while running
        if self._running:
            self.window.cancel()
