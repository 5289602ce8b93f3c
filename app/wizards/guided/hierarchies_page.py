"""Step 3: a generalization hierarchy for every quasi-identifier, proposed from its data.

Hierarchies the project already has are kept; hierarchy files beside the data named as
ARX names them (``adult_hierarchy_age.csv``) are used next; the rest are proposals, each
a builder specification, so "Edit…" opens it in the hierarchy wizard.
"""
from __future__ import annotations

from PySide6.QtWidgets import QPushButton, QVBoxLayout

from app import hierarchies_beside
from app.wizards.guided.common import GuidedPage, explanation, muted, read_only_item, table
from engine.guide.auto_hierarchies import propose_hierarchy

NAME, LEVELS, EXAMPLE, REASON, EDIT = range(5)


def example_chain(rows, counts: dict[str, int]) -> str:
    """The most frequent value through every level ("39 → [35, 40[ → [30, 40[ → *"), and
    the rarest one too when the most frequent stays as it is until the top."""
    present = [r for r in rows if counts.get(r[0], 0) > 0] or list(rows)
    common = max(present, key=lambda r: counts.get(r[0], 0))
    chain = " → ".join(common)
    if len(common) > 2 and common[-2] == common[0]:
        rare = min(present, key=lambda r: counts.get(r[0], 0))
        chain += ";  " + " → ".join(rare)
    return chain


class HierarchiesPage(GuidedPage):
    def __init__(self, wizard):
        super().__init__(wizard, "How far each quasi-identifier may be generalized",
                         "Each level replaces values by broader groups; the search picks the "
                         "lowest levels that meet your privacy goal.")
        lay = QVBoxLayout(self)
        lay.addWidget(explanation(
            "Every quasi-identifier has a hierarchy: the files beside your data named as ARX "
            "names them, else one Anonymist built from its values. The example follows the "
            "most common value up the levels. Edit one if its groups do not make sense for "
            "your data."))
        self.table = table(["Quasi-identifier", "Levels", "Example", "Why", ""])
        self.table.horizontalHeader().setStretchLastSection(False)
        lay.addWidget(self.table, 1)
        self.status = muted()
        lay.addWidget(self.status)
        self.reasons: dict[str, str] = {}

    def qis(self) -> list[str]:
        return [n for n, a in self.document.attributes.items() if a.type == "quasi-identifying"]

    def initializePage(self) -> None:
        doc = self.document
        beside = {n: p for n, p in hierarchies_beside.available(doc).items() if n in self.qis()}
        loaded, failed = hierarchies_beside.load(doc, beside)
        for n in loaded:
            self.reasons[n] = f"ARX's hierarchy file beside the data: {beside[n].name}"
        for n, why in failed.items():
            self.reasons[n] = f"the file beside the data could not be read ({why}); built instead"
        missing = [n for n in self.qis() if not doc.hierarchy_rows.get(n)]
        for n in self.qis():
            if n not in missing:
                self.reasons.setdefault(n, "the project's own hierarchy, kept")
        if not missing:
            self._show()
            return
        self.status.setText(f"Building {len(missing)} hierarchies…")
        columns = {n: doc.table.column(n) for n in missing}
        self.wiz.run_task("Proposing hierarchies",
                          lambda r, c: [propose_hierarchy(col) for col in columns.values()],
                          self._proposed)

    def _proposed(self, proposals) -> None:
        for p in proposals:
            self.document.set_built_hierarchy(p.attribute, p.hierarchy.rows, p.spec)
            self.reasons[p.attribute] = p.reason
        self._show()

    def _show(self) -> None:
        doc = self.document
        qis = self.qis()
        self.table.setRowCount(len(qis))
        for i, name in enumerate(qis):
            rows = doc.hierarchy_rows.get(name) or []
            col = doc.table.column(name)
            counts = dict(zip(map(str, col.dictionary), col.value_counts().tolist()))
            height = max((len(r) for r in rows), default=1) - 1
            self.table.setItem(i, NAME, read_only_item(name))
            self.table.setItem(i, LEVELS, read_only_item(str(height)))
            chain = example_chain(rows, counts) if rows else "no hierarchy"
            self.table.setItem(i, EXAMPLE, read_only_item(chain, chain))
            reason = self.reasons.get(name, "")
            self.table.setItem(i, REASON, read_only_item(reason, reason))
            edit = QPushButton("Edit…")
            edit.setToolTip(f"Open {name}'s hierarchy in the hierarchy wizard")
            edit.clicked.connect(lambda _c=False, n=name: self.edit(n))
            self.table.setCellWidget(i, EDIT, edit)
        header = self.table.horizontalHeader()
        self.table.resizeColumnsToContents()
        self.table.setColumnWidth(EXAMPLE, min(self.table.columnWidth(EXAMPLE), 420))
        header.setSectionResizeMode(REASON, header.ResizeMode.Stretch)
        header.setSectionResizeMode(EDIT, header.ResizeMode.ResizeToContents)
        # rows follow the columns' final widths (sized once here, before the Why column
        # stretched, its text wrapped into rows three lines high)
        self.table.verticalHeader().setSectionResizeMode(header.ResizeMode.ResizeToContents)
        bad = [n for n in qis if not self._valid(n)]
        self.status.setText("Every quasi-identifier has a hierarchy." if not bad else
                            f"No valid hierarchy yet for: {', '.join(bad)}.")
        self.completeChanged.emit()

    def _valid(self, name: str) -> bool:
        status = self.document.hierarchy_status(name)
        return status.complete

    def edit(self, name: str) -> None:
        self.window.create_hierarchy(name, names=[name])
        self.reasons[name] = "edited in the hierarchy wizard"
        self._show()

    def isComplete(self) -> bool:
        qis = self.qis()
        return bool(qis) and all(self._valid(n) for n in qis)

