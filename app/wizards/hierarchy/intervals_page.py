"""Intervals: base intervals repeated over the domain, grouped level by level.

The structure view on top shows the intervals and groups as boxes; clicking one
shows its bounds or size and label below, where it is edited. The toolbar and
the view's context menu add, split and remove intervals, groups and levels.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QFormLayout, QGroupBox, QHBoxLayout, QLabel,
                               QLineEdit, QScrollArea, QSpinBox, QSplitter, QStackedWidget,
                               QToolButton, QVBoxLayout, QWidget)

from app.wizards.hierarchy.base_page import BuilderPage
from app.wizards.hierarchy.interval_draft import IntervalDraft
from app.wizards.hierarchy.interval_view import IntervalStructureView
from app.wizards.hierarchy.widgets import (CodingEditor, LabelPicker, add_top_label,
                                           options_scroll)
from engine.data.datatypes import Kind
from engine.hierarchy.builders import LABEL_FUNCTIONS, BuilderError, IntervalSpec


class IntervalsPage(BuilderPage):
    builder = IntervalSpec
    subtitle = ("Click an interval or a group to edit it; the pattern repeats over all "
                "values. Right-click for more.")

    def options(self) -> QWidget:
        kind = self.wiz.data_type.kind
        functions = [f for f in LABEL_FUNCTIONS
                     if not (kind is Kind.DATE and f == "geometric_mean")]
        self.draft = IntervalDraft(self.wiz.data_type)
        self.view = IntervalStructureView()
        self.view.selected.connect(self.show_selection)
        self.view.activated.connect(self._edit_selected)
        self.actions_ = self._make_actions()
        for key in ("add_interval", "split", "remove_interval", None, "add_level", "add_group",
                    "remove_group"):
            if key is None:
                sep = QAction(self)
                sep.setSeparator(True)
                self.view.addAction(sep)
            else:
                self.view.addAction(self.actions_[key])
        box = QWidget()
        lay = QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        self.selection_box = QGroupBox("Selected interval")
        self.stack = QStackedWidget()
        QVBoxLayout(self.selection_box).addWidget(self.stack)
        interval_form = QWidget()
        form = QFormLayout(interval_form)
        form.setContentsMargins(0, 0, 0, 0)
        self.lower = QLineEdit()
        self.lower.setObjectName("lowerBound")
        self.upper = QLineEdit()
        self.upper.setObjectName("upperBound")
        self.interval_label = LabelPicker(functions)
        self.interval_label.setObjectName("intervalLabel")
        form.addRow("From (inclusive)", self.lower)
        form.addRow("To (exclusive)", self.upper)
        form.addRow("Label", self.interval_label)
        group_form = QWidget()
        form = QFormLayout(group_form)
        form.setContentsMargins(0, 0, 0, 0)
        self.size = QSpinBox()
        self.size.setObjectName("groupSize")
        self.size.setRange(1, 100_000)
        self.group_label = LabelPicker(functions)
        self.group_label.setObjectName("groupLabel")
        form.addRow("Items of the level below", self.size)
        form.addRow("Label", self.group_label)
        self.stack.addWidget(interval_form)
        self.stack.addWidget(group_form)
        lay.addWidget(self.selection_box)
        coding_box = QGroupBox("Outside the range")
        self.coding = CodingEditor()
        QVBoxLayout(coding_box).addWidget(self.coding)
        lay.addWidget(coding_box)
        self.top_label = add_top_label(lay)
        self.lower.textEdited.connect(lambda t: self._edit(self.draft.set_lower, t))
        self.upper.textEdited.connect(lambda t: self._edit(self.draft.set_upper, t))
        self.interval_label.changed.connect(self._interval_label_changed)
        self.size.valueChanged.connect(self._size_changed)
        self.group_label.changed.connect(self._group_label_changed)
        self.coding.changed.connect(self.refresh)
        self.top_label.textChanged.connect(self.refresh)
        return box

    def _make_actions(self) -> dict[str, QAction]:
        actions = {}
        for key, text, tip, slot in (
                ("add_interval", "+ Interval", "Append an interval as wide as the last",
                 self.add_interval),
                ("split", "Split", "Cut the selected interval in two", self.split_interval),
                ("remove_interval", "− Interval", "Remove the selected interval",
                 self.remove_interval),
                ("add_level", "+ Level", "Add a grouping level on top", self.add_level),
                ("add_group", "+ Group", "Add a group after the selected one", self.add_group),
                ("remove_group", "− Group", "Remove the selected group (the last one removes "
                 "its level)", self.remove_group)):
            a = QAction(text, self)
            a.setObjectName(key)
            a.setToolTip(tip)
            a.triggered.connect(slot)
            actions[key] = a
        return actions

    def setup_layout(self, options: QWidget) -> None:
        bar = QHBoxLayout()
        title = QLabel("Structure")
        title.setObjectName("sectionTitle")
        bar.addWidget(title)
        bar.addSpacing(12)
        for i, key in enumerate(("add_interval", "split", "remove_interval", "add_level",
                                 "add_group", "remove_group")):
            if i == 3:
                bar.addSpacing(12)
            b = QToolButton()
            b.setDefaultAction(self.actions_[key])
            bar.addWidget(b)
        bar.addStretch()
        self.structure_scroll = scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setObjectName("structureScroll")
        scroll.setWidget(self.view)
        top = QWidget()
        top_lay = QVBoxLayout(top)
        top_lay.setContentsMargins(0, 0, 0, 0)
        top_lay.addLayout(bar)
        top_lay.addWidget(scroll, 1)
        left = options_scroll(options)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.setChildrenCollapsible(False)
        bottom.addWidget(left)
        bottom.addWidget(self.panel)
        bottom.setSizes([380, 680])
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(1, 1)
        split.setSizes([230, 420])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)

    # --- specification ---------------------------------------------------------------------
    def spec(self) -> IntervalSpec:
        bottom, top = self.coding.bounds()
        return self.draft.to_spec(bottom, top, self.top_label.text())

    def fill(self, spec: IntervalSpec) -> None:  # type: ignore[override]
        self.draft = IntervalDraft.from_spec(spec)
        self.coding.set_bounds(spec.bottom_coding, spec.top_coding)
        self.top_label.setText(spec.top_label)
        self.view.selection = (0, 0)
        self.view.set_draft(self.draft, spec, spec.top_label)
        self._fit_structure()
        self.show_selection(0, 0)

    def refresh(self) -> None:
        """Redraw the structure from the draft and rebuild the preview."""
        if self._loading:
            return
        spec = self.current_spec()
        self.view.set_draft(self.draft, spec, self.top_label.text())
        self._fit_structure()
        self._update_actions()
        self.changed()

    def _fit_structure(self) -> None:
        """Show every row of the structure without scrolling, up to six levels."""
        scroll = self.structure_scroll
        bar = scroll.horizontalScrollBar().sizeHint().height()
        wanted = self.view.minimumSizeHint().height() + 2 * scroll.frameWidth() + bar
        scroll.setMinimumHeight(min(wanted, 7 * 50 + bar))

    # --- the selected box ----------------------------------------------------------------------
    def show_selection(self, row: int, pos: int) -> None:
        loading, self._loading = self._loading, True
        try:
            if row == 0:
                item = self.draft.intervals[pos]
                self.selection_box.setTitle(f"Base interval {pos + 1} of "
                                            f"{len(self.draft.intervals)}")
                self.stack.setCurrentIndex(0)
                self.lower.setText(item.lower)
                self.upper.setText(item.upper)
                self.interval_label.set_label(item.label)
            else:
                group = self.draft.levels[row - 1][pos]
                self.selection_box.setTitle(f"Group {pos + 1} of "
                                            f"{len(self.draft.levels[row - 1])}, level {row + 1}")
                self.stack.setCurrentIndex(1)
                self.size.setValue(group.size)
                self.group_label.set_label(group.label)
        finally:
            self._loading = loading
        self._update_actions()

    def _edit_selected(self, row: int, pos: int) -> None:
        """Put the cursor in the first field of the box the user activated."""
        field = self.upper if row == 0 else self.size
        field.setFocus()
        field.selectAll()

    def _update_actions(self) -> None:
        row, _ = self.view.selection
        a = self.actions_
        a["split"].setEnabled(row == 0)
        a["remove_interval"].setEnabled(row == 0 and len(self.draft.intervals) > 1)
        a["add_group"].setEnabled(row > 0)
        a["remove_group"].setEnabled(row > 0)

    def _edit(self, edit, *args) -> None:
        if self._loading:
            return
        try:
            edit(self.view.selection[1], *args)
        except BuilderError as e:
            self.preview.report_invalid(str(e))
            return
        self.refresh()

    def _interval_label_changed(self) -> None:
        if not self._loading:
            try:
                self.draft.intervals[self.view.selection[1]].label = self.interval_label.label()
            except BuilderError as e:
                self.preview.report_invalid(str(e))
                return
            self.refresh()

    def _size_changed(self, value: int) -> None:
        if not self._loading:
            row, pos = self.view.selection
            self.draft.levels[row - 1][pos].size = value
            self.refresh()

    def _group_label_changed(self) -> None:
        if not self._loading:
            row, pos = self.view.selection
            try:
                self.draft.levels[row - 1][pos].label = self.group_label.label()
            except BuilderError as e:
                self.preview.report_invalid(str(e))
                return
            self.refresh()

    # --- actions -----------------------------------------------------------------------------
    def _structure(self, edit, select) -> None:
        try:
            result = edit()
        except BuilderError as e:
            self.preview.report_invalid(str(e))
            return
        self.refresh()
        row, pos = select(result)
        self.view.select(row, pos)
        self.show_selection(*self.view.selection)

    def add_interval(self) -> None:
        self._structure(self.draft.add_interval, lambda pos: (0, pos))

    def split_interval(self) -> None:
        pos = self.view.selection[1]
        self._structure(lambda: self.draft.split_interval(pos), lambda _: (0, pos))

    def remove_interval(self) -> None:
        pos = self.view.selection[1]
        self._structure(lambda: self.draft.remove_interval(pos),
                        lambda _: (0, min(pos, len(self.draft.intervals) - 1)))

    def add_level(self) -> None:
        self._structure(self.draft.add_level, lambda row: (row, 0))

    def add_group(self) -> None:
        row, pos = self.view.selection
        self._structure(lambda: self.draft.add_group(row, pos), lambda new: (row, new))

    def remove_group(self) -> None:
        row, pos = self.view.selection
        self._structure(lambda: self.draft.remove_group(row, pos), lambda _: (0, 0))
