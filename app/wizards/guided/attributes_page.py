"""Step 2: what each column is, proposed with a reason and confirmed by the user.

Nothing is released verbatim without an explicit choice: each row must be
confirmed (by changing its type, ticking it, or "Accept all proposals").
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QHeaderView, QPushButton, QVBoxLayout

from app.identifier_choice import REMOVE, FlaggedColumns, flagged
from app.person_role import ROLE, ROLE_LABEL, ROLE_MEANING, ROLES, set_role
from app.theme import TYPE_LABELS, dot_icon, TYPE_COLORS
from app.wizards.guided.common import GuidedPage, explanation, muted, read_only_item, table
from engine.config import IDENTIFYING, INSENSITIVE
from engine.guide.proposals import propose_roles

NAME, TYPE, CONFIRMED, REASON = range(4)
MEANING = {
    "identifying": "removed from the release",
    "quasi-identifying": "generalized until people hide in groups",
    "sensitive": "kept, protected by the privacy goal",
    "insensitive": "released exactly as it is",
    ROLE: ROLE_MEANING,
}
LABELS = {**TYPE_LABELS, ROLE: ROLE_LABEL}
COLORS = {**TYPE_COLORS, ROLE: TYPE_COLORS[IDENTIFYING]}


class AttributesPage(GuidedPage):
    def __init__(self, wizard):
        super().__init__(wizard, "What each column is",
                         "Identifiers are removed, quasi-identifiers generalized, sensitive "
                         "values protected, the rest released as it is.")
        lay = QVBoxLayout(self)
        lay.addWidget(explanation(
            "Anonymist proposes a type for every column and says why. Check each one: a "
            "column is released only after you confirm its type."))
        self.table = table(["Column", "Type", "OK", "Why"])
        self.table.itemChanged.connect(lambda _i: self.completeChanged.emit())
        lay.addWidget(self.table, 1)
        # columns whose values hold identifiers (a phone in a note): removed, scrubbed or
        # kept with a reason (app/identifier_choice.py)
        self.flag_note = explanation(
            "These columns hold identifiers inside their values (found in every column "
            "the release would show as it is). Choose for each: remove the column, scrub "
            "the identifiers (each replaced by its kind, e.g. [PHONE]), or keep them with "
            "a reason the report prints.")
        self.flags = FlaggedColumns()
        self.flags.changed.connect(self.completeChanged.emit)
        self.flag_note.hide()
        self.flags.hide()
        lay.addWidget(self.flag_note)
        lay.addWidget(self.flags)
        row = QHBoxLayout()
        self.status = muted()
        self.accept_all = QPushButton("Accept all proposals")
        self.accept_all.setObjectName("primaryButton")
        self.accept_all.clicked.connect(self.confirm_all)
        row.addWidget(self.status, 1)
        row.addWidget(self.accept_all)
        lay.addLayout(row)
        self.proposals: dict = {}
        self._combos: dict[str, QComboBox] = {}

    def initializePage(self) -> None:
        if self.proposals and set(self.proposals) == set(self.document.table.names):
            return  # back from a later page: keep the user's choices
        self.table.setRowCount(0)
        self.status.setText("Looking at the columns…")
        table = self.document.table
        def propose(_report, _cancelled):
            proposals = propose_roles(table)
            types = {p.attribute: IDENTIFYING if p.type == ROLE else p.type
                     for p in proposals}
            return proposals, flagged(table, {n: t for n, t in types.items()
                                              if t == IDENTIFYING})
        self.wiz.run_task("Proposing attribute types", propose, self._show)

    def _show(self, found) -> None:
        proposals, flags = found
        self.flags.set_found(flags)
        self.flag_note.setVisible(bool(flags))
        for name in flags:  # a proposed identifier stays removed unless chosen otherwise
            if self.proposals_type(proposals, name) != IDENTIFYING:
                self.flags.choose(name, "scrub")
        self.proposals = {p.attribute: p for p in proposals}
        self.table.blockSignals(True)
        self.table.setRowCount(len(proposals))
        self._combos = {}
        for i, p in enumerate(proposals):
            self.table.setItem(i, NAME, read_only_item(p.attribute))
            combo = QComboBox()
            for t in ROLES:
                combo.addItem(dot_icon(COLORS[t]), LABELS[t], t)
                combo.setItemData(combo.count() - 1, MEANING[t], Qt.ItemDataRole.ToolTipRole)
            combo.setCurrentIndex(ROLES.index(p.type))
            combo.currentIndexChanged.connect(lambda _i, row=i: self._changed(row))
            self.table.setCellWidget(i, TYPE, combo)
            self._combos[p.attribute] = combo
            ok = read_only_item("")
            ok.setFlags(ok.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            ok.setCheckState(Qt.CheckState.Unchecked)
            ok.setToolTip("Tick to confirm this column's type")
            self.table.setItem(i, CONFIRMED, ok)
            self.table.setItem(i, REASON, read_only_item(p.reason, p.reason))
        self.table.blockSignals(False)
        self.table.resizeColumnsToContents()
        # the reasons take the width left and wrap (a fixed 520 px pushed them past a
        # 1000 px wizard behind a horizontal scroll bar)
        self.table.horizontalHeader().setSectionResizeMode(
            REASON, QHeaderView.ResizeMode.Stretch)
        self.table.resizeRowsToContents()
        self.completeChanged.emit()

    @staticmethod
    def proposals_type(proposals, name: str) -> str:
        return next((p.type for p in proposals if p.attribute == name), "")

    def _changed(self, row: int) -> None:
        self.table.item(row, CONFIRMED).setCheckState(Qt.CheckState.Checked)
        name = self.table.item(row, NAME).text()
        if name in self.flags.found and self._combos[name].currentData() == IDENTIFYING:
            self.flags.choose(name, REMOVE)  # the column is removed: nothing to scrub

    def confirm_all(self) -> None:
        for row in range(self.table.rowCount()):
            self.table.item(row, CONFIRMED).setCheckState(Qt.CheckState.Checked)

    def chosen(self) -> dict[str, str]:
        """Column -> confirmed type (unconfirmed columns are left out)."""
        out = {}
        for row in range(self.table.rowCount()):
            if self.table.item(row, CONFIRMED).checkState() == Qt.CheckState.Checked:
                name = self.table.item(row, NAME).text()
                out[name] = self._combos[name].currentData()
        return out

    def isComplete(self) -> bool:
        chosen = self.chosen()
        missing = self.table.rowCount() - len(chosen)
        verbatim = [n for n, t in chosen.items() if t == INSENSITIVE]
        if not self.table.rowCount():
            return False
        problem = self.flags.problem() if self.flags.found else None
        if problem and not missing:
            self.status.setText(problem)
            return False
        if missing:
            self.status.setText(f"{missing} column{'' if missing == 1 else 's'} still to "
                                "confirm.")
        elif "quasi-identifying" not in chosen.values():
            self.status.setText("Mark at least one column as quasi-identifying.")
            return False
        elif list(chosen.values()).count(ROLE) > 1:
            self.status.setText("One column identifies the person: choose one.")
            return False
        else:
            self.status.setText("Released as they are: " + (", ".join(verbatim) or "none") + ".")
        return missing == 0

    def validatePage(self) -> bool:
        doc = self.document
        by_type: dict[str, list[str]] = {}
        for name, kind in self.chosen().items():
            by_type.setdefault(kind, []).append(name)
        # (a column given a type is no longer the person column: app/person_role.py)
        for kind, names in by_type.items():
            set_role(doc, kind, names)
        self.flags.apply(doc)  # each flagged column: removed, scrubbed or kept
        return True
