"""The guided release wizard: seven steps from a data file to a verified release."""
from __future__ import annotations

from PySide6.QtWidgets import QWizard

from app.perspectives import PERSPECTIVES
from app.wizards.guided.attributes_page import AttributesPage
from app.wizards.guided.common import (ATTRIBUTES_PAGE, DATA_PAGE, GOAL_PAGE, HIERARCHIES_PAGE,
                                       RELEASE_PAGE, RESULT_PAGE, RUN_PAGE)
from app.wizards.guided.data_page import DataPage
from app.wizards.guided.goal_page import GoalPage
from app.wizards.guided.hierarchies_page import HierarchiesPage
from app.wizards.guided.release_page import ReleasePage
from app.wizards.guided.result_page import ResultPage
from app.wizards.guided.run_page import RunPage
from app.workers import TaskController


class GuidedReleaseWizard(QWizard):
    """Edits ``main_window.document``; "Open in perspectives" hides it, and File > New
    guided release shows it again where it was."""

    def __init__(self, main_window, path: str | None = None):
        super().__init__(main_window)
        self.main_window = main_window
        self.setWindowTitle("Guided release")
        self.setObjectName("guidedReleaseWizard")
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setOption(QWizard.WizardOption.HaveCustomButton1, True)
        self.setButtonText(QWizard.WizardButton.CustomButton1, "Open in perspectives")
        self.customButtonClicked.connect(lambda _which: self.show_perspective("configure"))
        self.resize(1000, 720)
        self.tasks = TaskController(self)  # the wizard's own analyses (proposals, risk)
        self._handlers: dict[int, tuple] = {}  # task id -> (done, failed)
        self._last_task = 0
        self.tasks.finished.connect(self._task_finished)
        self.tasks.failed.connect(self._task_failed)
        self.pages = {DATA_PAGE: DataPage(self), ATTRIBUTES_PAGE: AttributesPage(self),
                      HIERARCHIES_PAGE: HierarchiesPage(self), GOAL_PAGE: GoalPage(self),
                      RUN_PAGE: RunPage(self), RESULT_PAGE: ResultPage(self),
                      RELEASE_PAGE: ReleasePage(self)}
        for page_id, page in self.pages.items():
            self.setPage(page_id, page)
        self.setStartId(DATA_PAGE)
        if path:
            self.pages[DATA_PAGE].path.setText(str(path))
            self.pages[DATA_PAGE].load(str(path))

    # --- long work ------------------------------------------------------------------------
    def run_task(self, label: str, fn, done, failed=None) -> None:
        """Run ``fn(report, cancelled)`` in the worker; ``done(value)`` on the GUI thread."""
        self._handlers.pop(self._last_task, None)  # a new task drops the old one's result
        self._last_task = self.tasks.start(label, fn)
        self._handlers[self._last_task] = (done, failed)

    def _task_finished(self, outcome) -> None:
        done, _ = self._handlers.pop(outcome.task_id, (None, None))
        if done is not None and not outcome.cancelled:
            done(outcome.value)

    def _task_failed(self, label: str, message: str) -> None:
        # only the current (last started) task reports a failure
        _, failed = self._handlers.pop(self._last_task, (None, None))
        if failed is not None:
            failed(message)
            return
        status = getattr(self.currentPage(), "status", None)
        if status is not None:
            status.setText(f"{label} failed: {message}")

    # --- the released transformation ----------------------------------------------------
    def current_levels(self) -> tuple[int, ...] | None:
        """The levels of the transformation being released (the document's current one:
        applied in Explore, else the optimum)."""
        doc = self.main_window.document
        current = doc.current_transformation()
        return None if current is None else doc.result.levels_of(current.levels)

    # --- leaving for the perspectives ---------------------------------------------------
    def show_perspective(self, key: str) -> None:
        keys = [p.key for p in PERSPECTIVES]
        self.main_window.show_perspective(keys.index(key))
        self.hide()
        self.main_window.raise_()
        self.main_window.activateWindow()

    def done(self, code: int) -> None:  # noqa: D401 - Qt override
        self.tasks.wait_all(5000)
        super().done(code)
