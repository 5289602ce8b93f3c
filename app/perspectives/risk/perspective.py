"""The Analyze-risk perspective: re-identification risks of the input beside the output.

Risk profile and attacker models are cheap (class sizes) and follow every change at
once. Population uniqueness, HIPAA identifiers and the quasi-identifier analysis run
in worker threads when their tab is first shown for the current data; above
``auto_limit`` records they wait until the user asks for them.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QHBoxLayout, QSizePolicy, QStackedWidget, QTabWidget,
                               QVBoxLayout, QWidget)

from engine.privacy.population import PopulationModel
from engine.analysis.risk_comparison import (RiskSide, Thresholds, counted_sizes, make_side,
                                             result_levels, result_sides)
from app.perspectives.risk.attacker_view import AttackerView
from app.perspectives.risk.common import STYLE, muted_label, title_label
from app.perspectives.risk.controls import ThresholdBar
from app.perspectives.risk.hipaa_view import IdentifierView
from app.perspectives.risk.profile_view import NO_OPTIMUM, NOT_RUN, RiskProfileView
from app.perspectives.risk.qi_view import QIAnalysisView
from app.perspectives.risk.survey_view import SurveyView
from app.perspectives.risk.uniqueness_view import UniquenessView
from app.widgets.empty_state import EmptyState
from app.workers import TaskController, TaskOutcome
from engine.analysis.risk import RiskSummary
from engine.analysis.statistics import Data

#: above this many records the heavy analyses run only when asked for
AUTO_LIMIT = 200_000
NO_DATA = ("Analyze risk estimates the re-identification risks of the input and of the "
           "anonymized output. Import data and mark its quasi-identifiers, then anonymize it.")
BUILDING = ("The released table of this transformation is being built in the background; "
            "its risks follow.")
COUNTING = ("The data is too big for memory: DuckDB is counting the records of each "
            "combination of the quasi-identifiers; the risks follow.")
NO_QIS = ("Mark at least one attribute as quasi-identifying (Configure > Attributes > Type): "
          "risks are measured on the quasi-identifiers.")
PROFILE, ATTACKERS, UNIQUENESS, IDENTIFIERS, QUASI_IDENTIFIERS, SURVEY = range(6)


class RiskPerspective(QWidget):
    """Risk profile, attacker models, population uniqueness, HIPAA identifiers and
    quasi-identifier analysis of one input and (optionally) one output.

    Signals: ``sides_changed()`` after new data is shown; ``output_failed(str)`` when
    the released table could not be built.

    ``set_result`` builds the released table (``result_sides``) in a worker thread,
    showing "Building the output…" meanwhile; a newer call drops an older answer.
    """

    sides_changed = Signal()
    output_failed = Signal(str)

    def __init__(self, empty_actions: Sequence[QAction] = (), auto_limit: int = AUTO_LIMIT,
                 thresholds: Thresholds = Thresholds(),
                 population: PopulationModel = PopulationModel(), parent=None):
        super().__init__(parent)
        self.setStyleSheet(STYLE)
        self.auto_limit = auto_limit
        self.thresholds = thresholds
        self.sides: list[RiskSide | None] = [None, None]
        self.summaries: list[RiskSummary | None] = [None, None]
        self._pending: set[int] = set()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.stack = QStackedWidget()
        outer.addWidget(self.stack)
        self.empty = EmptyState("No data to assess yet", NO_DATA, list(empty_actions))
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self._build_content(population))
        self.building = EmptyState("Building the output…", BUILDING, [])
        self.stack.addWidget(self.building)
        #: builds the released table and both sides' class sizes off the GUI thread
        self.output_task = TaskController(self)
        self.output_task.finished.connect(self._output_built)
        self.output_task.failed.connect(self._output_failed)

    def _build_content(self, population: PopulationModel) -> QWidget:
        content = QWidget()
        lay = QVBoxLayout(content)
        lay.setContentsMargins(12, 10, 12, 10)
        lay.setSpacing(8)
        head = QHBoxLayout()
        head.addWidget(title_label("Analyze risk"))
        self.subtitle = muted_label()
        # a long list of levels wraps; it must not set the window's minimum width
        self.subtitle.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        head.addWidget(self.subtitle, 1)
        lay.addLayout(head)
        self.threshold_bar = ThresholdBar(self.thresholds)
        self.threshold_bar.thresholds_changed.connect(self.set_thresholds)
        lay.addWidget(self.threshold_bar)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.profile = RiskProfileView()
        self.attackers = AttackerView()
        self.uniqueness = UniquenessView(population)
        self.identifiers = IdentifierView()
        self.qi = QIAnalysisView()
        self.survey = SurveyView()  # sdcMicro's measures with a sampling weight
        for view, title in ((self.profile, "Risk profile"), (self.attackers, "Attacker models"),
                            (self.uniqueness, "Population uniqueness"),
                            (self.identifiers, "HIPAA identifiers"),
                            (self.qi, "Quasi-identifiers"), (self.survey, "Survey measures")):
            self.tabs.addTab(view, title)
        self.tabs.currentChanged.connect(self._tab_shown)
        self.uniqueness.estimated.connect(self._population_uniques)
        lay.addWidget(self.tabs, 1)
        return content

    # --- data ---------------------------------------------------------------------------
    def set_result(self, result, levels=None) -> None:
        """Show an ``AnonymizationResult``: its input beside the output of ``levels``
        (a dict or a sequence in the order of the quasi-identifiers; default: the
        optimum). None clears the view. The output is built in a worker thread;
        ``sides_changed`` says when it is on screen."""
        if result is None:
            self.set_sides(None, None)
            return
        shown = result_levels(result, levels)
        if shown is None:
            text = "No transformation meets the privacy models: input only."
        else:
            local = result.local_recoding is not None
            if levels is None:
                which = "optimum with local recoding" if local else "optimum"
            elif not local and result.optimum is not None \
                    and shown == dict(result.optimum.levels):
                which = "optimum"
            else:
                which = "applied"
            text = "Output of the transformation " + " · ".join(
                f"{q} {v}" for q, v in shown.items()) + f" ({which})"
        self.building.title.setText("Building the output…")
        self.building.text.setText(BUILDING)
        self.stack.setCurrentWidget(self.building)
        self.output_task.start("Building the output",
                               lambda _report, _cancelled: (result_sides(result, levels),
                                                            text))

    def _output_built(self, outcome: TaskOutcome) -> None:
        (before, after), text, *missing = outcome.value
        self.set_sides(before, after, text, missing[0] if missing else NO_OPTIMUM)

    def set_input_counted(self, count, qis: Sequence[str], persons=None) -> None:
        """Show the risks of data too big for memory that was not anonymized yet:
        ``count()`` gives the frequency table of the quasi-identifiers (a DuckDB scan,
        run in the worker when the view is first shown: a scan per edit of the
        attributes would compete with everything else); ``persons()``, with ``[data]
        person``, the distinct persons of each class (the figures are per person)."""
        if not self.isVisible():
            self._deferred = (count, tuple(qis), persons)
            self.output_task.cancel_and_forget()
            self.set_sides(None, None)
            self.empty.text.setText(COUNTING)
            return
        self._deferred = None
        if not qis:
            self.set_sides(None, None)
            self.empty.text.setText(NO_QIS)
            return
        self.building.title.setText("Counting the records…")
        self.building.text.setText(COUNTING)
        self.stack.setCurrentWidget(self.building)
        self.output_task.start("Counting the records", lambda _report, _cancelled: (
            (make_side("Input", count(), qis, sizes=counted_sizes(persons)), None),
            "Input only, counted by DuckDB: anonymize the data to compare it with an output.",
            NOT_RUN))

    def _output_failed(self, _label: str, message: str) -> None:
        self.set_sides(None, None)
        self.empty.text.setText(f"The output could not be built: {message}")
        self.output_failed.emit(message)

    def set_input(self, data: Data | None, qis: Sequence[str],
                  subset=None, persons=None) -> None:
        """Show the risks of data that was not anonymized yet (per person with
        ``persons``, each row's person code: ``[data] person``)."""
        if data is None or not qis:
            self.set_sides(None, None)
            if data is not None:
                self.empty.text.setText(NO_QIS)
            return
        self.set_sides(make_side("Input", data, qis, None, subset, persons=persons), None,
                       "Input only: anonymize the data to compare it with an output.")

    def set_sides(self, before: RiskSide | None, after: RiskSide | None,
                  subtitle: str = "", missing: str = NOT_RUN) -> None:
        """``missing`` says why ``after`` is None (nothing has run yet, by default)."""
        self.output_task.cancel_and_forget()  # an output still being built is stale
        self.sides = [before, after]
        self.empty.text.setText(NO_DATA)
        self.stack.setCurrentIndex(0 if before is None else 1)
        self.subtitle.setText(subtitle)
        if before is not None:
            qis = ", ".join(before.qis)
            self.subtitle.setToolTip(f"Quasi-identifiers: {qis}")
        self.profile.set_sides(before, after, missing)
        self.profile.set_threshold(self.thresholds.highest_risk)
        short = ("no output: nothing anonymized yet" if missing == NOT_RUN else
                 "no output: no transformation meets the privacy models")
        for view in (self.uniqueness, self.identifiers, self.qi, self.survey):
            view.set_sides(before, after, short)
        self._summarize()
        self._pending = set() if before is None else {UNIQUENESS, IDENTIFIERS,
                                                      QUASI_IDENTIFIERS, ATTACKERS, SURVEY}
        self._tab_shown(self.tabs.currentIndex())
        self.sides_changed.emit()

    @property
    def auto(self) -> bool:
        return self.sides[0] is not None and self.sides[0].n_rows <= self.auto_limit

    # --- thresholds and summaries --------------------------------------------------------------
    def set_thresholds(self, thresholds: Thresholds) -> None:
        self.thresholds = thresholds
        if self.threshold_bar.thresholds() != thresholds:
            self.threshold_bar.set_thresholds(thresholds)
            return  # the bar's signal comes back here
        self.profile.set_threshold(thresholds.highest_risk)
        self._summarize()

    def _summarize(self) -> None:
        self.summaries = [None if side is None else side.summary(self.thresholds.highest_risk)
                          for side in self.sides]
        self._population_uniques(self.uniqueness.uniques)

    def _population_uniques(self, uniques: tuple) -> None:
        self.summaries = [None if s is None else replace(s, population_uniques=u)
                          for s, u in zip(self.summaries, uniques)]
        self.attackers.set_summaries(*self.summaries, self.thresholds)

    # --- heavy analyses ---------------------------------------------------------------------
    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        deferred = getattr(self, "_deferred", None)
        if deferred is not None:
            self.set_input_counted(*deferred)

    def _tab_shown(self, index: int) -> None:
        if index not in self._pending:
            return
        self._pending.discard(index)
        if index == ATTACKERS:  # its overview shows the population uniques
            if self.auto and not self.uniqueness.job.running:
                self.uniqueness.run(curves=False)
            return
        view = self.tabs.widget(index)
        if self.auto:
            view.auto_run()
        else:
            view.bar.finish(f"Off for data above {self.auto_limit:,} records: press "
                            f"{view.bar.run.text()} to run it.")

    def shutdown(self) -> None:
        """Stop the analyses and wait for their threads (before the app quits)."""
        self.output_task.wait_all()
        for view in (self.uniqueness, self.identifiers, self.qi, self.survey):
            view.job.wait()
