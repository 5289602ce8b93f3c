"""Step 6: the result in plain words: what each attribute became, records suppressed,
risk before and after, distributions, and alternatives one click away."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QGridLayout, QHBoxLayout, QLabel, QPushButton,
                               QVBoxLayout)

from app.perspectives.utility.charts import INPUT_COLOR, OUTPUT_COLOR, FrequencyChart
from app.wizards.guided.common import GuidedPage, explanation, muted, read_only_item, table
from app.wizards.guided.goal_page import share
from engine.analysis.risk import analyze_risk
from engine.guide.summary import attribute_changes, finer_alternatives

TOP_VALUES = 12


def risk_change_text(before, after) -> str:
    """The raw data's and the release's re-identification risk in one sentence (shares
    as the goal page writes them: never a non-zero share shown as 0 %)."""
    pb, pa = before.prosecutor, after.prosecutor
    return (f"Re-identification risk: highest {share(pb.highest_risk)} before, "
            f"{share(pa.highest_risk)} after; records above a 20 % risk: "
            f"{share(pb.records_at_risk)} before, {share(pa.records_at_risk)} after; "
            f"average {share(before.average_risk)} before, {share(after.average_risk)} after.")


def shares(values: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The most frequent values and their shares of the records."""
    labels, counts = np.unique(values.astype(str), return_counts=True)
    order = np.argsort(-counts, kind="stable")[:TOP_VALUES]
    return [str(v) for v in labels[order]], counts[order] / max(len(values), 1)


class ResultPage(GuidedPage):
    def __init__(self, wizard):
        super().__init__(wizard, "The result",
                         "What the release looks like, how safe it is, and what it costs.")
        lay = QVBoxLayout(self)
        self.headline = explanation("")
        self.headline.setObjectName("resultHeadline")
        lay.addWidget(self.headline)
        body = QHBoxLayout()
        left = QVBoxLayout()
        self.changes = table(["Quasi-identifier", "In the release"])
        self.changes.setTextElideMode(Qt.TextElideMode.ElideNone)
        left.addWidget(self.changes, 1)
        self.risk = muted()
        left.addWidget(self.risk)
        body.addLayout(left, 3)
        right = QGridLayout()
        self.attribute = QComboBox()
        self.attribute.currentTextChanged.connect(self._chart)
        right.addWidget(QLabel("Distribution of"), 0, 0)
        right.addWidget(self.attribute, 0, 1)
        # the colours of Analyze utility's input and output (green means "anonymous" in
        # Explore: an "after" in green read as a verdict)
        self.before = FrequencyChart(INPUT_COLOR)
        self.after = FrequencyChart(OUTPUT_COLOR)
        right.addWidget(muted("before"), 1, 0)
        right.addWidget(self.before, 2, 0, 1, 2)
        right.addWidget(muted("after"), 3, 0)
        right.addWidget(self.after, 4, 0, 1, 2)
        body.addLayout(right, 2)
        lay.addLayout(body, 1)
        self.alternatives_title = muted("Alternatives, one click away:")
        lay.addWidget(self.alternatives_title)
        self.alternatives_box = QVBoxLayout()
        self.alternatives_box.setSpacing(2)
        lay.addLayout(self.alternatives_box)
        links = QHBoxLayout()
        links.addWidget(muted("See it in:"))
        for key, title in (("explore", "Explore"), ("utility", "Analyze utility"),
                           ("risk", "Analyze risk")):
            b = QPushButton(title)
            b.setObjectName(f"open_{key}")
            b.clicked.connect(lambda _c=False, k=key: self.wiz.show_perspective(k))
            links.addWidget(b)
        links.addStretch()
        lay.addLayout(links)
        self._data = None

    def initializePage(self) -> None:
        self.refresh()

    def refresh(self) -> None:
        doc = self.document
        result = doc.result
        levels = self.wiz.current_levels()
        problem = result.problem
        t = doc.current_transformation()
        n = problem.table.n_rows
        loss = t.information_loss_percent
        how = {"applied": " (your choice)", "optimum with local recoding": " (with local recoding)"}.get(
            t.kind, "")
        loss_text = "?" if loss is None else f"{loss:.1f} %"
        # "0 of 461 records (0 %) suppressed: their quasi-identifiers show '*'" spoke of
        # records that are not there
        suppressed = (f"{t.suppressed_records:,} of {n:,} records "
                      f"({share(t.suppressed_records / max(n, 1))}) suppressed: their "
                      f"quasi-identifiers show '*'." if t.suppressed_records else
                      f"No record suppressed: all {n:,} keep their quasi-identifiers as "
                      f"generalized.")
        self.headline.setText(
            f"Information loss {loss_text}{how} (0 % is the data as it is, 100 % "
            f"everything generalized). {suppressed}")
        changes = attribute_changes(result, levels)
        self.changes.setRowCount(len(changes))
        for i, c in enumerate(changes):
            self.changes.setItem(i, 0, read_only_item(c.attribute))
            self.changes.setItem(i, 1, read_only_item(c.text(), c.text()))
        self.changes.resizeColumnsToContents()
        self.changes.resizeRowsToContents()
        self.risk.setText("Measuring the risk before and after…")
        self._clear_alternatives()
        qis = list(problem.qis)
        table = problem.table

        def work(_report, _cancelled):
            data = doc.released()
            persons = problem.person_codes  # per person with [data] person
            before = analyze_risk(table, qis, persons=persons)[0]
            after = analyze_risk(data.frame, qis, suppressed=data.suppressed_rows,
                                 persons=persons)[0]
            return data, before, after, finer_alternatives(result, levels)

        self.wiz.run_task("Summarizing the result", work, self._summarized)

    def _summarized(self, value) -> None:
        data, before, after, alternatives = value
        self._data = data
        self.risk.setText(risk_change_text(before, after))
        t = self.document.current_transformation()
        self.alternatives_title.setVisible(bool(alternatives))
        for alt in alternatives:
            b = QPushButton(alt.text(t.information_loss_percent, t.suppressed_records))
            b.setObjectName("alternativeButton")
            b.clicked.connect(lambda _c=False, lv=alt.levels: self.apply(lv))
            self.alternatives_box.addWidget(b)
        names = list(self.document.result.problem.qis)
        self.attribute.blockSignals(True)
        self.attribute.clear()
        self.attribute.addItems(names)
        self.attribute.blockSignals(False)
        self._chart(names[0] if names else "")

    def _clear_alternatives(self) -> None:
        while self.alternatives_box.count():
            w = self.alternatives_box.takeAt(0).widget()
            if w is not None:
                w.deleteLater()

    def _chart(self, name: str) -> None:
        if not name or self._data is None:
            return
        col = self.document.table.column(name)
        self.before.set_frequencies(*shares(col.values()))
        self.after.set_frequencies(*shares(self._data.frame[name].to_numpy()))

    def apply(self, levels) -> None:
        """Make an alternative the released transformation."""
        self.document.apply_transformation(levels)
        self.refresh()
