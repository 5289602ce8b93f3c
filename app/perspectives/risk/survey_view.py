"""Survey measures: sdcMicro's individual and household risk, SUDA2 and k-anonymity
violations of the input beside the output, with a sampling weight (engine/sdc).

The figures are `engine.sdc.measures.measure_risk`'s summary, the one ``anonymist
risk --json`` writes (docs/reference/risk-command.md); the view only chooses the
weight, household and method, runs it in a worker and shows the numbers.
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView,
                               QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from app.perspectives.risk.common import Card, RunBar, muted_label
from app.perspectives.risk.jobs import AnalysisJob
from engine.analysis.risk_comparison import RiskSide

NONE = "(none)"
#: rows of the figures table: label, path into the summary
FIGURES = (
    ("Records", ("records",)),
    ("Expected re-identifications", ("expected_reidentifications",)),
    ("Global risk (%)", ("global_risk_percent",)),
    # a share (0-1) as the JSON writes it, beside the global risk in percent: say which
    ("Highest individual risk (0–1)", ("highest_individual_risk",)),
    # sdcMicro's rule, not the risk threshold above the tabs (its tooltip says which)
    ("Records at risk (sdcMicro's rule)", ("records_at_risk",)),
    ("Records violating 2-anonymity", ("k_anonymity", "violating_2")),
    ("Records violating 3-anonymity", ("k_anonymity", "violating_3")),
    ("Records violating 5-anonymity", ("k_anonymity", "violating_5")),
    ("Household: expected re-identifications",
     ("household_risk", "expected_reidentifications")),
    ("Household: global risk (%)", ("household_risk", "global_risk_percent")),
    ("SUDA2: records with an MSU", ("suda2", "records_with_msu")),
    ("SUDA2: highest DIS-SUDA score", ("suda2", "highest_dis_suda_score")),
)
#: SUDA2 runs here up to this many quasi-identifiers (it visits every subset)
MAX_SUDA_QIS = 12
CAPTION = ("sdcMicro's measures with the sampling weight chosen here: the individual "
           "risk of Benedetti and Franconi (1/class size without a weight), their sum "
           "(expected re-identifications), the household risk 1 − ∏(1 − r) over its "
           "members, and SUDA2's minimal sample uniques. Suppressed values match any "
           "value. The same figures as 'anonymist risk'.")


def figure_text(value) -> str:
    """How a figure is shown (and compared by the tests with the JSON's)."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:.6g}"


def lookup(summary: dict | None, path: tuple[str, ...]):
    value = summary
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def side_frame(side: RiskSide | None):
    """A side's records as a DataFrame of strings, or None (no side, or a frequency
    table of data too big for memory)."""
    if side is None or side.records is not None:
        return None
    data = side.data
    if getattr(data, "weights", None) is not None:  # a frequency table: no records
        return None
    return data.to_dataframe() if hasattr(data, "to_dataframe") else data


class SurveyView(QWidget):
    """Signals: ``measured()`` when figures are shown; ``choice_changed()`` when the
    user picks another weight, household or method (the presenter keeps the choice in
    the project)."""

    measured = Signal()
    choice_changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 10, 10, 10)
        lay.setSpacing(8)
        # the three choices in one row: the figures below get the height (1280 x 800)
        choose = QHBoxLayout()
        choose.setSpacing(8)
        self.weight = QComboBox()
        self.household = QComboBox()
        self.method = QComboBox()
        self.method.addItems(["approx", "exact"])
        for i, (text, combo) in enumerate((("Sampling weight", self.weight),
                                           ("Household", self.household),
                                           ("Individual risk", self.method))):
            label = QLabel(text)
            label.setBuddy(combo)
            if i:
                choose.addSpacing(12)
            choose.addWidget(label)
            choose.addWidget(combo)
        choose.addStretch(1)
        lay.addLayout(choose)
        self.bar = RunBar("Measure")
        lay.addWidget(self.bar)
        card = Card("Survey measures", CAPTION)
        self.table = QTableWidget(len(FIGURES), 2)
        self.table.setHorizontalHeaderLabels(["Input", "Output"])
        self.table.setVerticalHeaderLabels([label for label, _ in FIGURES])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        # side by side: one above the other, the figures scrolled at 1600 x 1000 beside
        # the few rows of contributions and their empty space
        tables = QHBoxLayout()
        tables.addWidget(self.table, 3)
        suda = QVBoxLayout()
        suda.setSpacing(4)
        suda.addWidget(muted_label("SUDA2: each quasi-identifier's contribution (%)"))
        self.contributions = QTableWidget(0, 2)
        self.contributions.setHorizontalHeaderLabels(["Input", "Output"])
        self.contributions.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.contributions.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.Stretch)
        suda.addWidget(self.contributions, 1)
        tables.addLayout(suda, 2)
        card.body.addLayout(tables, 1)
        self.note = muted_label()
        card.body.addWidget(self.note)
        lay.addWidget(card, 1)
        self.sides: list[RiskSide | None] = [None, None]
        #: the weight and household to select when the data has them (a project's)
        self.preferred: dict = {}
        #: the summaries on screen (input, output), as `measure_risk` gave them
        self.summaries: list[dict | None] = [None, None]
        self.job = AnalysisJob(self.bar, self)
        self.job.succeeded.connect(self._measured)
        self.bar.run_requested.connect(self.run)
        for combo in (self.weight, self.household, self.method):
            combo.currentIndexChanged.connect(self._choice_changed)

    # --- data -------------------------------------------------------------------------
    def set_sides(self, before: RiskSide | None, after: RiskSide | None,
                  short: str = "") -> None:
        self.job.forget()
        self.sides = [before, after]
        self._show([None, None])
        columns = [] if before is None else [
            c for c in _columns(before.data) if c not in before.qis]
        for key, combo in (("weight", self.weight), ("household", self.household)):
            current = self.preferred.get(key) or combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems([NONE] + columns)
            combo.setCurrentIndex(max(0, combo.findText(current)))
            combo.blockSignals(False)
        self.note.setText(short if after is None else "")
        if before is not None and side_frame(before) is None:
            self.bar.finish("The survey measures need the records in memory: use "
                            "'anonymist risk' on the file.")
            self.bar.run.setEnabled(False)

    def choose(self, weight: str | None = None, household: str | None = None,
               method: str = "approx") -> None:
        """Select the weight, household and method (None: none), as the user would."""
        for combo, value in ((self.weight, weight), (self.household, household)):
            combo.setCurrentIndex(max(0, combo.findText(value or NONE)))
        self.method.setCurrentIndex(max(0, self.method.findText(method)))

    def choice(self) -> dict:
        """The weight, household and method chosen (a project keeps them)."""
        return {"weight": self._choice(self.weight), "household": self._choice(self.household),
                "method": self.method.currentText()}

    def prefer(self, weight: str | None = None, household: str | None = None,
               method: str = "approx") -> None:
        """Select these whenever the data has such columns (a project's choice)."""
        self.preferred = {"weight": weight, "household": household}
        for combo in (self.weight, self.household, self.method):
            combo.blockSignals(True)
        try:
            self.choose(weight, household, method)
        finally:
            for combo in (self.weight, self.household, self.method):
                combo.blockSignals(False)

    def _choice(self, combo: QComboBox) -> str | None:
        text = combo.currentText()
        return None if text in ("", NONE) else text

    def _choice_changed(self, *_args) -> None:
        self.preferred = {"weight": self._choice(self.weight),
                          "household": self._choice(self.household)}
        self.choice_changed.emit()
        if self.summaries[0] is not None or self.job.running:
            self.job.forget()
            self._show([None, None])
            self.bar.finish("Press Measure for the new choice.")

    def auto_run(self) -> None:
        self.run()

    def run(self) -> None:
        before, after = self.sides
        if before is None:
            return
        frames = [side_frame(before), side_frame(after)]
        if frames[0] is None:
            return
        if frames[1] is not None:  # a weight not released: its records keep theirs
            from engine.sdc.measures import with_survey_columns
            frames[1] = with_survey_columns(frames[1], frames[0],
                                            [self._choice(self.weight),
                                             self._choice(self.household)])
        qis = list(before.qis)
        weight, household = self._choice(self.weight), self._choice(self.household)
        method = self.method.currentText()

        def task(_report, _cancelled):
            from engine.errors import AnonymistError
            from engine.sdc.measures import measure_risk
            out = []
            for frame in frames:
                if frame is None:
                    out.append(None)
                    continue
                try:
                    out.append(measure_risk(frame, qis, weight=weight, household=household,
                                            method=method, suda=len(qis) <= MAX_SUDA_QIS,
                                            risky_cells_dimensions=0).summary)
                except AnonymistError as e:  # e.g. a weight column that is no number
                    out.append({"error": str(e)})
            return out

        self.job.start("Measuring…", task)

    def _measured(self, summaries) -> None:
        errors = [s["error"] for s in summaries if s is not None and "error" in s]
        if errors:
            self.bar.finish(errors[0])
            summaries = [None if s is not None and "error" in s else s for s in summaries]
        self._show(summaries)
        self.measured.emit()

    def _show(self, summaries) -> None:
        self.summaries = list(summaries)
        rule = next((s["records_at_risk_rule"] for s in self.summaries
                     if s is not None and s.get("records_at_risk_rule")), None)
        header = self.table.verticalHeaderItem(
            next(i for i, (_, path) in enumerate(FIGURES) if path == ("records_at_risk",)))
        header.setToolTip(f"Records whose {rule.replace('_', ' ')} (sdcMicro's rule)"
                          if rule else "sdcMicro's rule for records at risk")
        for col, summary in enumerate(self.summaries):
            for row, (_label, path) in enumerate(FIGURES):
                value = lookup(summary, path) if summary is not None else None
                self.table.setItem(row, col, QTableWidgetItem(
                    "" if summary is None else figure_text(value)))
        names = [] if self.sides[0] is None else list(self.sides[0].qis)
        self.contributions.setRowCount(len(names))
        self.contributions.setVerticalHeaderLabels(names)
        for col, summary in enumerate(self.summaries):
            shares = lookup(summary, ("suda2", "contributions")) or {}
            for row, name in enumerate(names):
                self.contributions.setItem(row, col, QTableWidgetItem(
                    "" if summary is None else figure_text(shares.get(name))))

    def shown_figures(self, column: int) -> dict[str, str]:
        """The figures of one column as shown (label -> text)."""
        return {label: self.table.item(row, column).text()
                for row, (label, _) in enumerate(FIGURES) if self.table.item(row, column)}


def _columns(data) -> list[str]:
    names = getattr(data, "names", None)
    if callable(names):
        names = names()
    if names is None:
        names = list(getattr(data, "columns", []))
    return [str(n) for n in names]
