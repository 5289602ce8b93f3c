"""The Analyze utility perspective: input beside output, and how much utility is left.

Top: the two synchronized tables. Bottom: tabs with the selected attribute's
distribution and summary statistics, a contingency heat map of two attributes,
the quality measures and the classification accuracy, each input beside output.

Analyses run in worker threads (one `TaskController` per kind, so a new request
cancels the previous one of its kind) and only for the tab on screen; results are
kept until the transformation or the selection changes.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QSizePolicy, QSplitter,
                               QStackedWidget, QTabWidget, QVBoxLayout, QWidget)

from app.perspectives.utility import analysis as an
from app.perspectives.utility.classification_panel import ClassificationPanel
from app.perspectives.utility.quality_panel import QualityPanel
from app.perspectives.utility.record_tables import RecordTables
from app.perspectives.utility.statistics_panel import (ContingencyPanel, DistributionPanel,
                                                       SummaryPanel)
from app.perspectives.utility.tables import ComparisonTables
from app.widgets.empty_state import EmptyState
from app.workers import TaskController, TaskOutcome
from engine.output import ReleasedTable

STYLE = """
QToolButton#segmentLeft, QToolButton#segmentRight { background: #ffffff; border: 1px solid #c9d1dc;
    padding: 3px 10px; color: #3b4754; }
QToolButton#segmentLeft { border-top-left-radius: 5px; border-bottom-left-radius: 5px;
    border-top-right-radius: 0; border-bottom-right-radius: 0; }
QToolButton#segmentRight { border-top-right-radius: 5px; border-bottom-right-radius: 5px;
    border-top-left-radius: 0; border-bottom-left-radius: 0; border-left: none; }
QToolButton#segmentLeft:checked, QToolButton#segmentRight:checked { background: #e1ebfb;
    color: #1d4fa3; border-color: #9dbbe9; }
QToolButton#segmentLeft:disabled, QToolButton#segmentRight:disabled { color: #a0a9b5;
    background: #f6f7f9; }
QLabel#cardValue { font-size: 14pt; font-weight: 600; color: #1f2933; }
QPushButton#primaryButton:disabled { background: #9dbbe9; border-color: #9dbbe9; }
QFrame#resultCard { background: #ffffff; border: 1px solid #d8dee6; border-radius: 8px; }
"""

NO_OUTPUT = ("Analyze utility compares the input with the anonymized output. Run an "
             "anonymization first (Edit > Anonymize).")
BUILDING = ("The released table of this transformation is being built in the background; "
            "the comparison follows.")


def released_comparison(result, levels=None):
    """The released table of ``levels`` (None without a transformation) and its
    `Comparison`, with the figures the header and captions show: run in the worker."""
    try:
        view = result.transformed(levels)  # the released table, as exported
    except ValueError:
        return None, None
    view.suppressed_records, view.released_classes  # noqa: B018 - computed off the GUI
    return view, an.Comparison.of(view)


TABS = ("distribution", "contingency", "summary", "quality", "classification")


class UtilityPerspective(QWidget):
    """Compare the input with the output of a transformation.

    Signals
    -------
    result_shown()
        `set_result` has shown a result (tables updated).
    statistics_shown(str), contingency_shown(str, str), quality_shown(),
    classification_shown()
        An analysis finished and is on screen.
    analysis_failed(str, str)
        Kind of analysis and a readable message.
    """

    result_shown = Signal()
    statistics_shown = Signal(str)
    contingency_shown = Signal(str, str)
    quality_shown = Signal()
    classification_shown = Signal()
    analysis_failed = Signal(str, str)

    def __init__(self, page_size: int = 100, empty_actions=(), parent=None):
        super().__init__(parent)
        self.setStyleSheet(STYLE)
        self.result = None
        self.comparison: an.Comparison | None = None
        self._generation = 0
        self._done: dict[str, tuple] = {}
        self._pending: dict[str, tuple] = {}
        self.tasks = {k: TaskController(self) for k in
                      ("statistics", "contingency", "quality", "classification")}
        #: builds the released table off the GUI thread (see `released_comparison`)
        self.output_task = TaskController(self)
        self._build(page_size, empty_actions)
        self._connect()
        self.set_result(None)

    # --- construction ---------------------------------------------------------------------
    def _build(self, page_size: int, empty_actions) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.pages = QStackedWidget()
        outer.addWidget(self.pages)
        self.empty = EmptyState("No output to analyze yet", NO_OUTPUT, list(empty_actions))
        self.pages.addWidget(self.empty)
        content = QWidget()
        lay = QVBoxLayout(content)
        lay.setContentsMargins(12, 10, 12, 8)
        lay.setSpacing(8)
        head = QHBoxLayout()
        title = QLabel("Analyze utility")
        title.setObjectName("sectionTitle")
        head.addWidget(title)
        head.addSpacing(12)
        self.transformation_label = QLabel()
        self.transformation_label.setObjectName("mutedLabel")
        self.transformation_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        # long level lists must not widen the window: the label wraps instead
        self.transformation_label.setSizePolicy(QSizePolicy.Policy.Ignored,
                                                QSizePolicy.Policy.Preferred)
        self.transformation_label.setWordWrap(True)
        head.addWidget(self.transformation_label, 1)
        lay.addLayout(head)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.tables = ComparisonTables(page_size)
        self.records = RecordTables()  # data too big for memory: records read by DuckDB
        self.table_pages = QStackedWidget()
        self.table_pages.addWidget(self.tables)
        self.table_pages.addWidget(self.records)
        self.splitter.addWidget(self.table_pages)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(False)
        self.distribution = DistributionPanel()
        self.contingency = ContingencyPanel()
        self.summary = SummaryPanel()
        self.quality = QualityPanel()
        self.classification = ClassificationPanel()
        for widget, label in ((self.distribution, "Distribution"),
                              (self.contingency, "Contingency"),
                              (self.summary, "Summary statistics"),
                              (self.quality, "Quality"),
                              (self.classification, "Classification accuracy")):
            self.tabs.addTab(widget, label)
        corner = QWidget()
        cl = QHBoxLayout(corner)
        cl.setContentsMargins(0, 0, 4, 2)
        cl.setSpacing(6)
        self.attribute_label = QLabel("Attribute")
        self.attribute_label.setObjectName("mutedLabel")
        cl.addWidget(self.attribute_label)
        self.attribute = QComboBox()
        self.attribute.setMinimumWidth(170)
        self.attribute.setToolTip("Attribute of the distribution and summary statistics "
                                  "(or select a cell in the tables)")
        cl.addWidget(self.attribute)
        self.analysis_status = QLabel()
        self.analysis_status.setObjectName("mutedLabel")
        cl.insertWidget(0, self.analysis_status)
        self.tabs.setCornerWidget(corner, Qt.Corner.TopRightCorner)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(0, 11)
        self.splitter.setStretchFactor(1, 9)
        self.splitter.setSizes([550, 450])
        self.splitter.setChildrenCollapsible(False)
        lay.addWidget(self.splitter, 1)
        self.pages.addWidget(content)
        self.building = EmptyState("Building the output…", BUILDING, [])
        self.pages.addWidget(self.building)

    def _connect(self) -> None:
        self.tables.attribute_selected.connect(self.select_attribute)
        self.attribute.currentTextChanged.connect(self._attribute_changed)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.contingency.attributes_changed.connect(lambda *_: self._refresh())
        self.classification.run_requested.connect(self._run_classification)
        self.classification.cancel_requested.connect(self.tasks["classification"].cancel)
        for kind, ctl in self.tasks.items():
            ctl.finished.connect(lambda o, k=kind: self._finished(k, o))
            ctl.failed.connect(lambda _label, msg, k=kind: self._failed(k, msg))
        self.tasks["classification"].progressed.connect(self.classification.report)
        self.output_task.finished.connect(self._output_built)
        self.output_task.failed.connect(self._output_failed)

    # --- the result ---------------------------------------------------------------------------
    def set_result(self, result, levels=None) -> None:
        """Show ``result``'s input beside the output of ``levels`` (None: the optimum).
        Called again when another transformation is applied in Explore. The released
        table is built in a worker thread ("Building the output…" meanwhile);
        ``result_shown`` says when it is on screen, and a newer call drops an older one."""
        self.result = result
        self._generation += 1
        self._done.clear()
        self._pending.clear()
        self.classification.set_running(False)
        for kind in ("statistics", "contingency", "quality", "classification"):
            self.tasks[kind].cancel_and_forget()
        if result is None:
            self.output_task.cancel_and_forget()
            self.comparison = None
            self.tables.set_data(None, None, None)
            self.records.set_release(None)
            self.empty.text.setText(NO_OUTPUT)
            self.pages.setCurrentWidget(self.empty)
            self.result_shown.emit()
            return
        self.pages.setCurrentWidget(self.building)
        self.output_task.start("Building the output",
                               lambda _report, _cancelled: released_comparison(result, levels))

    def _output_built(self, outcome: TaskOutcome) -> None:
        view, comparison = outcome.value
        problem = self.result.problem
        self.comparison = comparison
        attrs = problem.job.attributes
        types = {n: attrs[n].type for n in problem.table.names if n in attrs}
        if comparison is not None and comparison.out_of_core:
            self.tables.set_data(None, None, None)
            self.records.set_release(view)
            self.table_pages.setCurrentWidget(self.records)
        else:
            self.records.set_release(None)
            if getattr(view, "subset_release", False):
                # the release is the subset's records: beside them, their input rows
                table, subset = view.input_table(), None
            else:
                table, subset = problem.table, problem.model_context.subset
            self.tables.set_data(table, view, subset, types, an.job_data_types(problem))
            self.table_pages.setCurrentWidget(self.tables)
        self._fill_choices()
        self._update_header(view)
        self.pages.setCurrentIndex(1)
        if self.comparison is None:
            self._show_no_output()
        else:
            self.classification.set_unavailable(an.NO_CLASSIFICATION_OUT_OF_CORE
                                                if self.comparison.out_of_core else None)
        self.result_shown.emit()
        self._refresh()

    def _output_failed(self, _label: str, message: str) -> None:
        self.comparison = None
        self.tables.set_data(None, None, None)
        self.empty.text.setText(f"The output could not be built: {message}")
        self.pages.setCurrentWidget(self.empty)
        self.analysis_failed.emit("output", message)

    def _update_header(self, view: ReleasedTable | None) -> None:
        if view is None:
            self.transformation_label.setText("No transformation meets the privacy models: "
                                              "only the input is shown.")
            return
        opt = self.result.optimum
        local = getattr(self.result, "local_recoding", None)
        if view.local_recoding and local is not None:
            ev, which = opt, "optimum"
            pct = (self.result.relative_percent(local.loss_after)
                   if local.loss_after is not None else None)
        elif opt is not None and tuple(opt.levels[q] for q in view.qis) == view.levels:
            ev, which = opt, "optimum"
            pct = ev.information_loss_percent
        else:
            ev, which = self.result.evaluate(list(view.levels)), "applied"
            pct = ev.information_loss_percent
        loss = f" · information loss {pct:.2f} %" if pct is not None else ""
        state = "" if ev.anonymous else ", not anonymous"
        method = getattr(self.result, "method", "global generalization")
        self.transformation_label.setText(  # what it is first: long level lists clip
            f"{which.capitalize()} transformation{state} · "
            f"{view.suppressed_records:,} records suppressed{loss} · {an.levels_text(view)}"
            + ("" if which != "optimum" or method == "global generalization"
               else f" · {method}"))
        self.transformation_label.setToolTip(self.transformation_label.text())

    def _fill_choices(self) -> None:
        c = self.comparison
        names = c.analysable if c is not None else []
        current = self.attribute.currentText()
        self.attribute.blockSignals(True)
        self.attribute.clear()
        self.attribute.addItems(names)
        if current in names:
            self.attribute.setCurrentText(current)
        elif c is not None and c.qis:  # the first generalized one says the most
            generalized = [q for q in c.qis if c.view.level_of.get(q, 0) > 0]
            self.attribute.setCurrentText((generalized or list(c.qis))[0])
        self.attribute.blockSignals(False)
        pair = self.contingency.pair()
        rows = pair[0] if pair and pair[0] in names else self.attribute.currentText()
        others = [n for n in (c.qis if c else []) if n != rows] or \
            [n for n in names if n != rows]
        cols = pair[1] if pair and pair[1] in names and pair[1] != rows else \
            (others[0] if others else rows)
        self.contingency.set_attributes(names, rows, cols)
        if c is not None:
            feats = self.classification.selected_features() or list(c.qis)
            target = self.classification.target.currentText()
            target = target if target in names else an.default_target(c)
            self.classification.set_attributes(names, [f for f in feats if f in names], target)

    def _show_no_output(self) -> None:
        self.classification.clear_results("There is no output to compare with.")
        self.analysis_status.setText("No output to analyze")

    def select_attribute(self, name: str) -> None:
        """Show the statistics of ``name`` (a cell of its column was selected)."""
        if self.attribute.findText(name) >= 0:
            self.attribute.setCurrentText(name)

    def _attribute_changed(self, name: str) -> None:
        if name:
            self.tables.show_attribute(name)  # its column page, for wide data
        self._refresh()

    # --- analyses -------------------------------------------------------------------------------
    def _tab_changed(self, index: int) -> None:
        kind = TABS[index]
        per_attribute = kind in ("distribution", "summary")
        self.attribute.setVisible(per_attribute)
        self.attribute_label.setVisible(per_attribute)
        self._refresh()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self._refresh()

    def _refresh(self) -> None:
        """Start the analysis of the tab on screen unless its result is current."""
        c = self.comparison
        if c is None or not self.isVisible():
            return
        kind = TABS[self.tabs.currentIndex()]
        if kind in ("distribution", "summary"):
            name = self.attribute.currentText()
            if name:
                self._start("statistics", (self._generation, name),
                            lambda r, x: an.statistics_task(c, name), f"Statistics of {name}")
        elif kind == "contingency":
            pair = self.contingency.pair()
            if pair:
                self._start("contingency", (self._generation, *pair),
                            lambda r, x: an.contingency_task(c, *pair),
                            f"Contingency of {pair[0]} and {pair[1]}")
        elif kind == "quality":
            self._start("quality", (self._generation,), lambda r, x: an.quality_task(c),
                        "Quality")

    def _start(self, kind: str, key: tuple, fn, label: str) -> None:
        if self._done.get(kind) == key or (self.tasks[kind].running
                                          and self._pending.get(kind) == key):
            return
        self._pending[kind] = key
        self.analysis_status.setText(f"{label}…")
        self.tasks[kind].start(label, fn)

    def _run_classification(self, features: list, target: str, model: str, folds: int) -> None:
        c = self.comparison
        if c is None:
            return
        self.classification.set_running(True)
        self._pending["classification"] = (self._generation,)
        self.tasks["classification"].start(
            "Classification", lambda report, cancelled: an.classification_task(
                c, features, target, model, folds, report, cancelled))

    def _finished(self, kind: str, outcome: TaskOutcome) -> None:
        key = self._pending.pop(kind, None)
        if key is None or key[0] != self._generation:
            return
        self.analysis_status.setText("")
        value = outcome.value
        if kind == "classification":
            self.classification.set_running(False)
            if outcome.cancelled:
                self.classification.clear_results("Cancelled.")
                return
            self.classification.show_comparison(value)
            self.classification_shown.emit()
            return
        self._done[kind] = key
        if kind == "statistics":
            self.distribution.show_statistics(value)
            self.summary.show_statistics(value)
            self.statistics_shown.emit(value.attribute)
        elif kind == "contingency":
            self.contingency.show_pair(value)
            self.contingency_shown.emit(value.rows, value.columns)
        elif kind == "quality":
            self.quality.show_report(value)
            self.quality_shown.emit()
        self._refresh()  # the selection may have moved on meanwhile

    def _failed(self, kind: str, message: str) -> None:
        self._pending.pop(kind, None)
        self.analysis_status.setText("")
        if kind == "classification":
            self.classification.set_running(False)
            self.classification.clear_results(message)
        elif kind == "contingency":
            self.contingency.status.setText(message)
        elif kind == "quality":
            self.quality.status.setText(message)
        else:
            self.summary.note.setText(message)
        self.analysis_failed.emit(kind, message)

    # --- settings and closing ---------------------------------------------------------------------
    def set_page_size(self, size: int) -> None:
        self.tables.set_page_size(size)

    def shutdown(self, msecs: int = 5000) -> bool:
        """Cancel and wait for every analysis thread (before the window closes)."""
        ok = True
        for ctl in (self.output_task, *self.tasks.values()):
            ok = ctl.wait_all(msecs) and ok
        ok = self.records.sort.stop(msecs) and ok
        return self.records.wait(msecs) and ok
