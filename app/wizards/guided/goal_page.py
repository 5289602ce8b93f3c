"""Step 4: the privacy goal in plain words, with the raw data's risk as a baseline."""
from __future__ import annotations

from dataclasses import fields, replace

from PySide6.QtWidgets import (QButtonGroup, QComboBox, QHBoxLayout, QLabel, QRadioButton,
                               QVBoxLayout)

from app.document import Settings
from app.person_role import person_of
from app.perspectives.risk.labels import percent
from app.wizards.guided.common import GuidedPage, explanation, muted
from engine.analysis.risk import analyze_risk
from engine.guide.presets import GOALS
from engine.privacy.population import REGIONS

CUSTOM = "custom"


def risk_text(summary) -> str:
    """The raw data's re-identification risk in two sentences."""
    p = summary.prosecutor
    return (f"Today, {share(summary.sample_uniques)} of the records are unique on their "
            f"quasi-identifiers: whoever knows those facts about a person finds their record "
            f"(highest risk {share(p.highest_risk)}, {share(p.records_at_risk)} of the records "
            f"above a 20 % risk; average {share(summary.average_risk)}; marketer risk "
            f"{share(summary.marketer)}).")


def share(value: float) -> str:
    """A risk or share in the wizard's sentences: as Analyze risk writes it (a space before
    %), one decimal, and never a non-zero value rounded to "0 %"."""
    return percent(value, 1)


def supports_population() -> bool:
    return any(f.name == "population" for f in fields(Settings))


class GoalPage(GuidedPage):
    def __init__(self, wizard):
        super().__init__(wizard, "Your privacy goal",
                         "Who will receive the data decides how strongly it must be "
                         "protected.")
        lay = QVBoxLayout(self)
        lay.addWidget(explanation(
            "Choose the situation that fits your release. Each names the privacy models it "
            "sets; you can change them later in Configure."))
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        self.details: dict[str, QLabel] = {}
        for g in GOALS:
            self._add(g.key, g.title, g.explanation)
        self._add(CUSTOM, "Custom", "Choose the privacy models yourself in Configure > "
                  "Privacy models (the models already there are kept).")
        pop = QHBoxLayout()
        pop.addSpacing(24)
        pop.addWidget(QLabel("Population the data was sampled from:"))
        self.region = QComboBox()
        for name, size in REGIONS.items():
            self.region.addItem(f"{name} ({size:,} people)", name)
        pop.addWidget(self.region)
        pop.addStretch()
        lay.addLayout(pop)
        self.region_row = pop
        self.models = muted()
        lay.addWidget(self.models)
        lay.addSpacing(8)
        self.risk = explanation("")
        self.risk.setObjectName("riskBaseline")
        lay.addWidget(self.risk)
        lay.addStretch()
        self.group.buttonToggled.connect(lambda *_: self._update())
        self.buttons["agreement"].setChecked(True)
        if not supports_population():
            self.buttons["partner"].setEnabled(False)
            self.buttons["partner"].setToolTip("This version has no population model.")

    def _add(self, key: str, title: str, text: str) -> None:
        button = QRadioButton(title)
        button.setObjectName(f"goal_{key}")
        self.group.addButton(button)
        self.buttons[key] = button
        detail = muted(text)
        detail.setContentsMargins(24, 0, 0, 6)
        self.details[key] = detail
        self.layout().addWidget(button)
        self.layout().addWidget(detail)

    def choice(self) -> str:
        for key, button in self.buttons.items():
            if button.isChecked():
                return key
        return CUSTOM

    def select(self, key: str) -> None:
        self.buttons[key].setChecked(True)

    def sensitive(self) -> list[str]:
        return [n for n, a in self.document.attributes.items() if a.type == "sensitive"]

    def _goal(self):
        return next((g for g in GOALS if g.key == self.choice()), None)

    def _update(self) -> None:
        goal = self._goal()
        self.region.setEnabled(goal is not None and goal.needs_population)
        if goal is None:
            n = len(self.document.settings.privacy)
            self.models.setText(f"Models now in Configure: {n}." if n else
                                "No privacy model yet: add one in Configure.")
        else:
            self.models.setText("Sets: " + goal.describe(self.sensitive()) + ".")
        self.completeChanged.emit()

    def initializePage(self) -> None:
        self._update()
        qis = [n for n, a in self.document.attributes.items() if a.type == "quasi-identifying"]
        table = self.document.table
        self.risk.setText("Measuring the risk of the data as it is…")
        person = person_of(self.document)  # per person (app/person_role.py)
        persons = None if person is None else table.column(person).codes
        self.wiz.run_task("Measuring risk",
                          lambda r, c: analyze_risk(table, qis, persons=persons)[0],
                          lambda summary: self.risk.setText(risk_text(summary)))

    def isComplete(self) -> bool:
        return self._goal() is not None or bool(self.document.settings.privacy)

    def validatePage(self) -> bool:
        goal = self._goal()
        if goal is None:
            return True
        doc = self.document
        doc.set_privacy(goal.privacy(self.sensitive()))
        doc.set_transformation(replace(doc.settings.transformation,
                                       suppression_limit=goal.suppression_limit))
        if goal.needs_population:
            doc.set_population({"region": self.region.currentData()})
        return True
