"""Edit an existing (imported) hierarchy: add, duplicate, remove and relabel levels,
regroup by dragging between groups, undo, and export as CSV.

Every edit goes through `engine.hierarchy.editing`, so the hierarchy stays
valid; an edit that would break it is refused with the engine's message.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout,
                               QLabel, QPushButton, QSizePolicy, QSpinBox, QSplitter,
                               QToolButton, QTreeView, QVBoxLayout, QWidget, QWizardPage)

from app import file_dialogs
from app.wizards.hierarchy.models import GroupsModel, HierarchyTableModel
from app.wizards.hierarchy.widgets import error_label, hierarchy_table
from engine.errors import AnonymistError, HierarchyError
from engine.hierarchy import editing
from engine.hierarchy.builders import column_values
from engine.hierarchy.csv_io import write_hierarchy
from engine.hierarchy.model import Hierarchy

if TYPE_CHECKING:
    from app.wizards.hierarchy.host import WizardHost

CSV_FILTER = "Hierarchy CSV (*.csv *.txt);;All files (*)"
UNDO_DEPTH = 50


class EditorPage(QWizardPage):
    """The hierarchy as a table (edit a cell to rename its label everywhere) and the
    groups of one level as a tree (drag members onto another group)."""

    def __init__(self, wizard: "WizardHost"):
        super().__init__()
        self.wiz = wizard
        self.setObjectName("editorPage")
        # QWizard puts a spacer below its pages: only an expanding page fills the height.
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.setTitle(f"Edit the hierarchy of {wizard.attributes_text()}")
        self.setSubTitle("Edit a cell to rename its label in every row; drag values or "
                         "labels onto another group to move them there.")
        self.hierarchy: Hierarchy | None = None
        self.history: list[Hierarchy] = []
        self.table_model = HierarchyTableModel(editable=True, parent=self)
        self.table_model.label_edited.connect(
            lambda level, old, new: self.apply(lambda h: editing.relabel(h, level, old, new)))
        self.groups_model = GroupsModel(self)
        self.groups_model.regroup_requested.connect(self.move_items)
        self._build()

    def _build(self) -> None:
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.buttons: dict[str, QToolButton] = {}
        for key, text, tip, slot in (
                ("add_level", "+ Level on top", "Add a level above the top; every value "
                 "gets the new top label", lambda: self.apply(editing.add_level)),
                ("duplicate", "Duplicate level", "Insert a copy of the selected level above "
                 "it, to regroup from", self.duplicate_level),
                ("remove", "Remove level", "Remove the selected level", self.remove_level),
                ("add_missing", "+ Missing values", "Add rows for data values the hierarchy "
                 "lacks (kept as they are up to the top)", self.add_missing),
                ("undo", "Undo", "Undo the last edit", self.undo),
                ("export", "Export CSV…", "Save the edited hierarchy as a CSV file",
                 self.export_dialog)):
            b = QToolButton(text=text)
            b.setObjectName(key)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            bar.addWidget(b)
            self.buttons[key] = b
            if key in ("add_missing", "undo"):
                bar.addSpacing(12)
        bar.addStretch()
        lay.addLayout(bar)
        self.status = QLabel()
        self.status.setObjectName("hierarchyStatus")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.error = error_label()
        lay.addWidget(self.error)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        self.table = hierarchy_table(self.table_model, "editorTable")
        self.table.selectionModel().currentChanged.connect(
            lambda cur, _prev: cur.column() > 0 and self.level.setValue(cur.column()))
        split.addWidget(self.table)
        right = QWidget()
        rlay = QVBoxLayout(right)
        rlay.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        title = QLabel("Groups of level")
        title.setObjectName("subTitle")
        head.addWidget(title)
        self.level = QSpinBox()
        self.level.setObjectName("groupsLevel")
        self.level.setMinimum(1)
        self.level.valueChanged.connect(self._show_groups)
        head.addWidget(self.level)
        head.addStretch()
        rlay.addLayout(head)
        self.tree = QTreeView()
        self.tree.setObjectName("groupsTree")
        self.tree.setModel(self.groups_model)
        self.tree.setHeaderHidden(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.tree.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.tree.setDragEnabled(True)
        self.tree.setAcceptDrops(True)
        self.tree.setDropIndicatorShown(True)
        rlay.addWidget(self.tree, 1)
        move = QHBoxLayout()
        move.addWidget(QLabel("Move selected to"))
        self.target = QComboBox()
        self.target.setObjectName("targetGroup")
        self.target.setEditable(True)
        self.target.setToolTip("An existing group, or type a new label")
        move.addWidget(self.target, 1)
        self.move_button = QPushButton("Move")
        self.move_button.setObjectName("moveButton")
        self.move_button.clicked.connect(self.move_selected)
        move.addWidget(self.move_button)
        rlay.addLayout(move)
        split.addWidget(right)
        split.setSizes([640, 360])
        lay.addWidget(split, 1)

    # --- state ---------------------------------------------------------------------------------
    def set_hierarchy(self, hierarchy: Hierarchy, keep_history: bool = False) -> None:
        if not keep_history:
            self.history = []
        self.hierarchy = hierarchy
        self.table_model.set_hierarchy(hierarchy)
        self.level.setMaximum(max(1, hierarchy.height))
        self._show_groups()
        self._update_status()

    def apply(self, edit: Callable[[Hierarchy], Hierarchy]) -> bool:
        """Replace the hierarchy by ``edit(hierarchy)``; show the engine's refusal."""
        if self.hierarchy is None:
            return False
        try:
            new = edit(self.hierarchy)
        except HierarchyError as e:
            self.error.setText(str(e))
            self.error.show()
            return False
        self.error.hide()
        self.history = (self.history + [self.hierarchy])[-UNDO_DEPTH:]
        self.set_hierarchy(new, keep_history=True)
        return True

    def undo(self) -> None:
        if self.history:
            self.set_hierarchy(self.history.pop(), keep_history=True)

    def selected_level(self) -> int:
        """The level the level buttons act on: the one whose groups are shown (a click
        on a table cell shows its level)."""
        return self.level.value()

    def _show_groups(self) -> None:
        level = self.level.value()
        self.buttons["duplicate"].setText(f"Duplicate level {level}")
        self.buttons["remove"].setText(f"Remove level {level}")
        self.groups_model.set_level(self.hierarchy, level)
        self.target.clear()
        self.target.addItems([g for g in self.groups_model.groups() if g])
        if self.groups_model.rowCount() <= 50:  # many groups: expanding all would be a wall
            self.tree.expandToDepth(0)

    def uncovered(self) -> list[str]:
        if self.hierarchy is None:
            return []
        values: list[str] = []
        for column in self.wiz.columns.values():
            values += [v for v in column_values(column).values]
        return self.hierarchy.uncovered(values)

    def _update_status(self) -> None:
        h = self.hierarchy
        missing = self.uncovered()
        if h is None:
            text, state = "No hierarchy", "none"
        elif missing:
            shown = ", ".join(f"'{v}'" for v in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            text, state = f"Incomplete, height {h.height}: no row for {shown}{more}", "bad"
        else:
            groups = " → ".join(str(n) for n in editing.groups_per_level(h))
            text, state = f"Complete, height {h.height}; groups per level {groups}", "ok"
        self.status.setText(text)
        self.status.setProperty("state", state)
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)
        height = h.height if h is not None else 0
        self.buttons["remove"].setEnabled(height >= 1)
        self.buttons["duplicate"].setEnabled(height >= 1)
        self.buttons["add_missing"].setEnabled(bool(missing))
        self.buttons["undo"].setEnabled(bool(self.history))
        self.move_button.setEnabled(height >= 1)
        self.completeChanged.emit()

    # --- edits -----------------------------------------------------------------------------------
    def duplicate_level(self) -> None:
        self.apply(lambda h: editing.duplicate_level(h, self.selected_level()))

    def remove_level(self) -> None:
        self.apply(lambda h: editing.remove_level(h, self.selected_level()))

    def move_items(self, level: int, items: list, target: str) -> None:
        def edit(h: Hierarchy) -> Hierarchy:
            for item in items:
                h = editing.regroup(h, level, item, target)
            return h
        self.apply(edit)

    def move_selected(self) -> None:
        target = self.target.currentText().strip()
        items = [self.groups_model.item_of(i) for i in self.tree.selectionModel().selectedRows()]
        members = [m for g, m in items if g is not None]
        if not target or not members:
            self.error.setText("Select values (members of a group) and choose or type the "
                               "group to move them to.")
            self.error.show()
            return
        self.move_items(self.groups_model.level, members, target)

    def add_missing(self) -> None:
        missing = self.uncovered()

        def edit(h: Hierarchy) -> Hierarchy:
            top = h.rows[0][-1] if h.height else None
            rows = [list(r) for r in h.rows]
            for v in missing:
                rows.append([v] * h.height + [top] if top is not None and v else [v] * h.levels)
            return Hierarchy.from_rows(rows, h.attribute, h.source)
        self.apply(edit)

    # --- file ------------------------------------------------------------------------------------
    def export(self, path: str) -> bool:
        if self.hierarchy is None:
            return False
        try:
            write_hierarchy(self.hierarchy, path)
        except (AnonymistError, OSError) as e:
            self.error.setText(f"Cannot export the hierarchy: {e}")
            self.error.show()
            return False
        return True

    def export_dialog(self) -> None:
        name = next(iter(self.wiz.columns), "attribute")
        path = file_dialogs.save_file(self, "Export hierarchy", f"hierarchy_{name}.csv",
                                      CSV_FILTER, "hierarchy")
        if path:
            self.export(path)

    # --- wizard --------------------------------------------------------------------------------
    def isComplete(self) -> bool:
        return self.hierarchy is not None

    def nextId(self) -> int:
        return -1

    def validatePage(self) -> bool:
        if self.hierarchy is None:
            return False
        name = next(iter(self.wiz.columns))
        h = Hierarchy(self.hierarchy.rows, name, self.hierarchy.source)
        self.wiz.set_results({name: (h, None)})
        return True
