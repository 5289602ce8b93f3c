"""Identifiers inside released columns in the app (engine/identifiers, issue 25).

A column released as it is that holds e-mail addresses, phone numbers, names... would
refuse the release. Configure and the guided release show each flagged column with
what was found, a few examples and the three ways forward:

- identifying: the column is removed;
- scrub (``scrub = true``): each identifier replaced by its kind ([PHONE]);
- keep (``identifiers = "keep"`` with a ``reason``, printed in the report).

The choices are the attribute's declared keys (engine.config.AttributeConfig: scrub,
identifiers, reason), set through ``Document.update_attributes``.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLineEdit,
                               QTableWidget, QTableWidgetItem, QWidget)

from app.person_role import set_role
from engine.config import (IDENTIFYING, INSENSITIVE, QUASI_IDENTIFYING, SENSITIVE,
                           AttributeConfig)
from engine.identifiers.scan import Finding, scan_table
from engine.schema import dataclass_params

PARAMS = {p.name: p for p in dataclass_params(AttributeConfig)}
REFUSE, REMOVE, SCRUB, KEEP = "refuse", "identifying", "scrub", "keep"
#: the editor's choices (refuse: nothing chosen yet, the release stops if one is found)
CHOICES = (REFUSE, REMOVE, SCRUB, KEEP)
LABELS = {REFUSE: "Refuse the release if found", REMOVE: "Remove the column (identifying)",
          SCRUB: "Scrub: replace each by its kind ([PHONE])",
          KEEP: "Keep them, for this reason:"}
TIPS = {REFUSE: PARAMS["identifiers"].help, REMOVE: "the column is not released",
        SCRUB: PARAMS["scrub"].help, KEEP: PARAMS["reason"].help}


def choice_of(a: AttributeConfig) -> str:
    if a.type == IDENTIFYING:
        return REMOVE
    if a.scrub:
        return SCRUB
    return KEEP if a.identifiers == "keep" else REFUSE


def apply_choice(doc, name: str, choice: str, reason: str | None = None) -> None:
    """Give column ``name`` one of the choices (scrub or keep on an identifying or
    quasi-identifying column makes it insensitive: scrub applies to the others only)."""
    a = doc.attributes[name]
    if choice == REMOVE:
        set_role(doc, IDENTIFYING, [name])
        doc.update_attributes([name], scrub=False, identifiers="refuse", reason=None)
        return
    if choice in (SCRUB, KEEP) and a.type in (IDENTIFYING, QUASI_IDENTIFYING) and \
            (choice == SCRUB or a.type == IDENTIFYING):
        set_role(doc, INSENSITIVE, [name])
    if choice == SCRUB:
        doc.update_attributes([name], scrub=True, identifiers="refuse", reason=None)
    elif choice == KEEP:
        doc.update_attributes([name], scrub=False, identifiers="keep",
                              reason=(reason or "").strip() or None)
    else:
        doc.update_attributes([name], scrub=False, identifiers="refuse", reason=None)


def flagged(table, types: dict[str, str]) -> dict[str, list[Finding]]:
    """The columns of ``table`` that hold identifiers inside their values (``types``:
    column -> type, absent: insensitive), the identifying columns' values looked for in
    them: every column not identifying, and identifying columns of free text (a notes
    column proposed identifying may be scrubbed instead)."""
    import numpy as np

    from engine.identifiers import is_free_text
    identifying = [n for n, t in types.items() if t == IDENTIFYING and n in table.names]
    out = scan_table(table, identifying,
                     [n for n in table.names if types.get(n, INSENSITIVE) != IDENTIFYING])
    for name in identifying:
        d = table.column(name).dictionary[:2000]
        if len(d) and np.mean([is_free_text(str(v)) for v in d]) >= 0.5:
            found = scan_table(table, [n for n in identifying if n != name], [name])
            out.update(found)
    return {n: out[n] for n in table.names if n in out}


def summary(found: list[Finding]) -> str:
    """"telephone number 53, e-mail address 49" (rows)."""
    return ", ".join(f"{f.label} {f.count:,}" for f in found)


def examples(found: list[Finding], width: int = 60, count: int = 3) -> str:
    """Up to ``count`` values holding identifiers, each cut to ``width`` characters."""
    seen = []
    for f in found:
        for e in f.examples:
            if e not in seen:
                seen.append(e)
    return " · ".join(e if len(e) <= width else e[:width - 1] + "…" for e in seen[:count])


class IdentifierEditor(QWidget):
    """Configure's row for one attribute: the choice and the reason. ``edited(choice,
    reason)``."""

    edited = Signal(str, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.choice = QComboBox()
        self.choice.setObjectName("identifierChoice")
        # may shrink below its longest choice (the attribute form is narrow at 1280 px)
        self.choice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.choice.setMinimumContentsLength(16)
        for c in (REFUSE, SCRUB, KEEP):  # removing it is the Type combo's "Identifying"
            self.choice.addItem(LABELS[c], c)
            self.choice.setItemData(self.choice.count() - 1, TIPS[c],
                                    Qt.ItemDataRole.ToolTipRole)
        self.choice.setToolTip("Identifiers found in this column's values (e-mail, phone, "
                               "IBAN, names...): refuse the release, scrub them, or keep "
                               "them with a reason the report prints")
        self.reason = QLineEdit()
        self.reason.setObjectName("identifierReason")
        self.reason.setPlaceholderText("reason (printed in the report)")
        self.reason.setToolTip(TIPS[KEEP])
        lay.addWidget(self.choice, 1)
        lay.addWidget(self.reason, 1)
        self.reason.hide()
        self.choice.activated.connect(lambda _i: self._emit())
        self.reason.editingFinished.connect(self._emit)

    def show_attribute(self, a: AttributeConfig | None, enabled: bool) -> None:
        self.blockSignals(True)
        choice = REFUSE if a is None or choice_of(a) == REMOVE else choice_of(a)
        self.choice.setCurrentIndex(self.choice.findData(choice))
        self.reason.setText((a.reason or "") if a is not None else "")
        self.reason.setEnabled(enabled and choice == KEEP)
        self.reason.setVisible(choice == KEEP)  # the choice alone fits then, unclipped
        self.choice.setEnabled(enabled)
        self.blockSignals(False)

    def _emit(self) -> None:
        choice = self.choice.currentData()
        self.reason.setEnabled(choice == KEEP)
        self.reason.setVisible(choice == KEEP)
        if choice == KEEP and not self.reason.text().strip():
            self.reason.setFocus()
            return  # a kept column needs its reason first
        self.edited.emit(choice, self.reason.text())


COLUMN, FOUND, EXAMPLES, CHOICE, REASON = range(5)


class FlaggedColumns(QTableWidget):
    """The guided release's list of flagged columns: what was found, examples, and a
    choice (remove, scrub, keep with a reason) per column."""

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(0, 5, parent)
        self.setObjectName("flaggedColumns")
        self.setHorizontalHeaderLabels(["Column", "Identifiers found (rows)", "Examples",
                                        "Way forward", "Reason (keep)"])
        self.verticalHeader().hide()
        self.horizontalHeader().setSectionResizeMode(EXAMPLES, QHeaderView.ResizeMode.Stretch)
        self.found: dict[str, list[Finding]] = {}
        self._combos: dict[str, QComboBox] = {}
        self._reasons: dict[str, QLineEdit] = {}

    def set_found(self, found: dict[str, list[Finding]]) -> None:
        self.found = dict(found)
        self.setRowCount(len(found))
        self._combos, self._reasons = {}, {}
        for i, (name, items) in enumerate(found.items()):
            for col, text in ((COLUMN, name), (FOUND, summary(items)),
                              (EXAMPLES, examples(items))):
                item = QTableWidgetItem(text)
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                item.setToolTip(text)
                self.setItem(i, col, item)
            combo = QComboBox()
            for c in (REMOVE, SCRUB, KEEP):
                combo.addItem(LABELS[c], c)
            combo.currentIndexChanged.connect(lambda _i, n=name: self._chosen(n))
            reason = QLineEdit()
            reason.setPlaceholderText("why they may be released")
            reason.setEnabled(False)
            reason.textChanged.connect(lambda _t: self.changed.emit())
            self.setCellWidget(i, CHOICE, combo)
            self.setCellWidget(i, REASON, reason)
            self._combos[name], self._reasons[name] = combo, reason
        self.resizeColumnsToContents()
        # what was found wraps in a column of its own width; the examples take the rest
        # (their header was cut to "ampl" beside a 420 px list of findings)
        self.setColumnWidth(FOUND, min(self.columnWidth(FOUND), 240))
        self.setColumnWidth(REASON, max(self.columnWidth(REASON), 180))
        self.resizeRowsToContents()
        # as tall as its rows: the column list above keeps the page's height
        frame = 2 * self.frameWidth()
        bar = self.horizontalScrollBar().sizeHint().height()
        self.setMaximumHeight(self.horizontalHeader().sizeHint().height() + frame + bar
                              + sum(self.rowHeight(r) for r in range(self.rowCount())))
        self.setVisible(bool(found))
        self.changed.emit()

    def _chosen(self, name: str) -> None:
        self._reasons[name].setEnabled(self._combos[name].currentData() == KEEP)
        self.changed.emit()

    def choose(self, name: str, choice: str, reason: str = "") -> None:
        combo = self._combos[name]
        combo.setCurrentIndex(combo.findData(choice))
        self._reasons[name].setText(reason)

    def choices(self) -> dict[str, tuple[str, str]]:
        return {n: (c.currentData(), self._reasons[n].text().strip())
                for n, c in self._combos.items()}

    def problem(self) -> str | None:
        """What still stops the choices (a kept column without a reason), or None."""
        missing = [n for n, (c, r) in self.choices().items() if c == KEEP and not r]
        return (f"Give a reason for keeping the identifiers in {', '.join(missing)}."
                if missing else None)

    def apply(self, doc) -> None:
        for name, (choice, reason) in self.choices().items():
            if name in doc.attributes:
                apply_choice(doc, name, choice, reason)


__all__ = ["CHOICES", "LABELS", "choice_of", "apply_choice", "flagged", "summary",
           "examples", "IdentifierEditor", "FlaggedColumns", "SENSITIVE"]
