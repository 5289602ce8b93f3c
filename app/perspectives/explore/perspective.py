"""The Explore perspective: lattice and list of the solution space, filter, properties,
clipboard and the search's progress, on one ``AnonymizationResult``."""
from __future__ import annotations

from typing import Sequence

import numpy as np
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QFont, QFontMetrics
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QMenu,
                               QPushButton, QSplitter, QStackedWidget, QTableView, QTabWidget,
                               QVBoxLayout, QWidget)

from app.perspectives.explore.checker import TransformationChecker
from app.perspectives.explore.clipboard import ClipboardEntry, ClipboardPanel
from app.perspectives.explore.filter_panel import FilterPanel
from app.perspectives.explore.filters import NodeFilter
from app.perspectives.explore.lattice_view import (FILL_CHECKED, OPTIMUM_COLOR, ORDER_STATE,
                                                   ORDER_STRUCTURE, LatticeView)
from app.perspectives.explore.list_model import COL_LEVELS, COL_LOSS, NodeListModel
from app.perspectives.explore.nodes import MAX_SHOWN_NODES, STATE_LABELS, ExploreNodes
from app.perspectives.explore.properties import PropertiesPanel
from app.perspectives.explore.quality_plot import QualityPlot
from app.widgets.empty_state import EmptyState

# non-breaking inside an entry: a wrapped legend never parts a mark from its label
LEGEND = (f"<span style='color:{FILL_CHECKED[1]}'>●</span>&nbsp;Anonymous &nbsp; "
          f"<span style='color:{FILL_CHECKED[2]}'>●</span>&nbsp;Not&nbsp;anonymous &nbsp; "
          f"<span style='color:{FILL_CHECKED[0]}'>●</span>&nbsp;Not&nbsp;checked &nbsp; "
          f"<span style='color:{OPTIMUM_COLOR}'>★</span>&nbsp;Optimum")
LEGEND_TIP = ("Nodes with a dark outline were checked; pale nodes have a state inferred "
              "from a checked neighbour (anonymity is monotonic).")


HINT = ("Each row is one level of generalization; zoomed out, a row's transformations "
        "merge into a band coloured by their state. Dark outline: checked; pale: inferred. "
        "Wheel: zoom across rows (Shift: both axes) · drag: pan · click: select · right-click: "
        "apply, keep, neighbours. Edges and level labels appear as you zoom in.")


class ExplorePerspective(QWidget):
    """Signals: ``transformation_applied(levels)`` when the user applies a (checked)
    transformation; ``clipboard_changed()``; ``check_failed(message)``."""

    transformation_applied = Signal(tuple)
    clipboard_changed = Signal()
    check_failed = Signal(str)

    def __init__(self, empty_actions: Sequence[QAction] = (), parent=None,
                 max_shown: int = MAX_SHOWN_NODES):
        super().__init__(parent)
        self.max_shown = max_shown  # larger lattices show their visited part
        self.result = None
        self.nodes: ExploreNodes | None = None
        self.mask: np.ndarray | None = None
        self.current_row = -1
        self._restoring = False
        self._running = False  # a search runs: show its progress even without a result
        self.applied_levels: tuple | None = None  # applied as output (None: the optimum)
        self.checker = TransformationChecker(self)
        self.checker.checked.connect(self._checked)
        self.checker.failed.connect(self._check_failed)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.stack = QStackedWidget()
        outer.addWidget(self.stack)
        self.empty = EmptyState(
            "Nothing to explore yet",
            "Explore shows the solution space of an anonymization: every transformation, "
            "whether it is anonymous, and its information loss. Configure the "
            "quasi-identifiers and privacy models, then press Anonymize.", list(empty_actions))
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self._build_main())
        self._connect()

    # --- construction ------------------------------------------------------------------------
    def _build_main(self) -> QWidget:
        host = QWidget()
        lay = QVBoxLayout(host)
        lay.setContentsMargins(10, 10, 10, 10)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.filter = FilterPanel()
        self.filter.setMinimumWidth(190)
        split.addWidget(self.filter)
        split.addWidget(self._build_center())
        right = QSplitter(Qt.Orientation.Vertical)
        self.properties = PropertiesPanel()
        self.clipboard = ClipboardPanel()
        self.quality = QualityPlot()
        for w in (self.properties, self.clipboard, self.quality):
            right.addWidget(w)
        # the properties (levels table, neighbours) take what the window gives; the
        # clipboard and the progress plot keep a compact start size (at 1280x800 too)
        right.setStretchFactor(0, 1)
        right.setStretchFactor(1, 0)
        right.setStretchFactor(2, 0)
        right.setSizes([560, 130, 130])
        split.addWidget(right)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setStretchFactor(2, 0)
        split.setSizes([225, 780, 420])  # room for "native-country" beside its two spin boxes
        lay.addWidget(split)
        return host

    def _build_center(self) -> QWidget:
        center = QWidget()
        lay = QVBoxLayout(center)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.legend = QLabel(LEGEND)
        self.legend.setToolTip(LEGEND_TIP)
        self.legend.setWordWrap(True)  # wraps rather than widening the window at 1280 px
        row.addWidget(self.legend, 1)
        row.addStretch()
        # the lattice's own controls, hidden on the List tab where they do nothing
        self.lattice_tools = QWidget()
        tools = QHBoxLayout(self.lattice_tools)
        tools.setContentsMargins(0, 0, 0, 0)
        row.addSpacing(12)  # the legend's last entry must not run into 'Rows'
        row.addWidget(self.lattice_tools)
        bar = tools
        bar.addWidget(QLabel("Rows"))
        self.arrange = QComboBox()
        self.arrange.addItem("by state and loss", ORDER_STATE)
        self.arrange.addItem("by levels", ORDER_STRUCTURE)
        self.arrange.setToolTip("Order of transformations within each level of the lattice")
        bar.addWidget(self.arrange)
        self.fit_button = QPushButton("Fit")
        self.fit_button.setToolTip("Show the whole lattice")
        bar.addWidget(self.fit_button)
        self.zoom_optimum_button = QPushButton("Zoom to optimum")
        self.zoom_optimum_button.setObjectName("zoomOptimum")
        self.zoom_optimum_button.setToolTip("Zoom in on the optimum and its neighbours, where "
                                            "single transformations can be told apart")
        bar.addWidget(self.zoom_optimum_button)
        lay.addLayout(row)
        self.center_stack = QStackedWidget()
        self.searching = QLabel("Searching… the solution space appears here when the "
                                "search ends.")
        self.searching.setObjectName("emptyText")
        self.searching.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.searching.setWordWrap(True)
        self.center_stack.addWidget(self.searching)
        self.tabs = QTabWidget()
        self.lattice = LatticeView()
        self.list_model = NodeListModel(self)
        self.list_view = QTableView()
        self.list_view.setModel(self.list_model)
        # widths from the first rows only: measuring every one of a lattice's thousands of
        # rows froze the window for seconds after each run
        self.list_view.horizontalHeader().setResizeContentsPrecision(50)
        self.list_view.setSortingEnabled(True)
        self.list_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list_view.verticalHeader().hide()
        self.list_view.verticalHeader().setDefaultSectionSize(22)
        self.list_view.setAlternatingRowColors(True)
        self.tabs.addTab(self.lattice, "Lattice")
        self.tabs.addTab(self.list_view, "List")
        self.center_stack.addWidget(self.tabs)
        lay.addWidget(self.center_stack, 1)
        self.hint = QLabel(HINT)
        self.hint.setObjectName("mutedLabel")
        self.hint.setWordWrap(True)
        lay.addWidget(self.hint)
        self.tabs.currentChanged.connect(self._tab_changed)
        return center

    def _tab_changed(self, index: int) -> None:
        on_lattice = self.tabs.widget(index) is self.lattice
        self.lattice_tools.setVisible(on_lattice)
        self.hint.setVisible(on_lattice)

    def _connect(self) -> None:
        self.filter.filter_changed.connect(self.set_filter)
        self.lattice.node_clicked.connect(lambda row: self.select_row(row, source="lattice"))
        self.lattice.context_requested.connect(self._context_menu)
        self.list_view.selectionModel().currentRowChanged.connect(self._list_current)
        self.arrange.currentIndexChanged.connect(
            lambda _i: self.lattice.set_order(self.arrange.currentData()))
        self.fit_button.clicked.connect(self.lattice.fit)
        self.zoom_optimum_button.clicked.connect(self.zoom_to_optimum)
        self.properties.navigate_requested.connect(self.select_levels)
        self.properties.apply_requested.connect(self.apply_levels)
        self.properties.keep_requested.connect(self.keep_levels)
        self.clipboard.apply_requested.connect(self.apply_levels)
        self.clipboard.entry_selected.connect(self.select_levels)
        self.clipboard.add_requested.connect(
            lambda: self.properties.levels and self.keep_levels(self.properties.levels))
        self.clipboard.model.changed.connect(self._clipboard_changed)

    # --- result ------------------------------------------------------------------------------
    def set_result(self, result) -> None:
        """Show ``result`` (an ``AnonymizationResult``) or, with None, the empty state."""
        self.result = result
        self._running = False
        self.applied_levels = None
        self.lattice.set_applied(-1)
        self.checker.set_result(result)
        self.current_row = -1
        self.properties.show_nothing()
        if result is None:
            self.nodes = None
            self.lattice.set_nodes(None)
            self.list_model.set_nodes(None)
            self.stack.setCurrentIndex(0)
            return
        self.nodes = ExploreNodes(result, self.max_shown)
        lat = result.lattice
        self.filter.set_attributes(lat.attributes, lat.min_levels, lat.max_levels)
        self.mask = None
        self.lattice.set_nodes(self.nodes)
        self.list_model.set_nodes(self.nodes)
        self.list_view.sortByColumn(COL_LOSS, Qt.SortOrder.AscendingOrder)
        self.list_view.resizeColumnsToContents()
        self._fit_levels_column()
        self.filter.reset(emit=False)
        self._show_counts()
        self.quality.finish(result)
        self.zoom_optimum_button.setEnabled(self.nodes.optimum >= 0)
        self.hint.setText(HINT if self.nodes.whole else
                          f"The lattice has {lat.size:,} transformations: shown are the "
                          f"{len(self.nodes):,} the search visited. Right-click a node to "
                          "check and show its neighbours. " + HINT)
        self.stack.setCurrentIndex(1)
        self.center_stack.setCurrentIndex(1)
        if self.nodes.optimum >= 0:
            self.select_row(self.nodes.optimum, source="result")

    def begin_run(self) -> None:
        """A search started: clear the progress plot and show it."""
        self._running = True
        self.quality.begin_run()
        self.stack.setCurrentIndex(1)
        self.center_stack.setCurrentIndex(0)

    def run_failed(self) -> None:
        self.set_result(self.result)

    def add_progress(self, progress) -> None:
        self.quality.add_progress(progress)

    # --- filter ---------------------------------------------------------------------------------
    def set_filter(self, f: NodeFilter) -> None:
        if self.nodes is None:
            return
        mask = f.mask(self.nodes)
        self.mask = None if mask.all() else mask
        self.lattice.set_mask(self.mask)
        self.list_model.set_mask(self.mask)
        self._show_counts()
        if self.current_row >= 0:
            self._sync_views(self.current_row, source="filter")

    def _fit_levels_column(self) -> None:
        """The levels' code whole in the optimum's bold row too (the column is measured
        on the first rows, in the regular font)."""
        if self.nodes is None or self.nodes.optimum < 0:
            return
        bold = QFont(self.list_view.font())
        bold.setBold(True)
        code = self.list_model.data(self.list_model.index(
            max(0, self.list_model.list_row(self.nodes.optimum)), COL_LEVELS))
        need = QFontMetrics(bold).horizontalAdvance(f"{code}  ") + 16
        if self.list_view.columnWidth(COL_LEVELS) < need:
            self.list_view.setColumnWidth(COL_LEVELS, need)

    def _show_counts(self) -> None:
        self.filter.set_counts(self.nodes.counts(self.mask), len(self.nodes))

    # --- selection -----------------------------------------------------------------------------
    def zoom_to_optimum(self) -> None:
        """One click: the optimum selected, zoomed in among its neighbours."""
        if self.nodes is None or self.nodes.optimum < 0:
            return
        row = int(self.nodes.optimum)
        if self.lattice.zoom_to_row(row):
            self.select_row(row, source="lattice")

    def select_levels(self, levels) -> None:
        if self.nodes is None:
            return
        row = self.nodes.row_of(levels)
        if row >= 0:
            self.select_row(row)
        elif self.result is not None and self.result.lattice.contains(tuple(levels)):
            self.checker.check([tuple(levels)], ("show", tuple(levels)))

    def select_row(self, row: int, source: str = "") -> None:
        """Select a node row everywhere and describe it (checking it in the worker)."""
        if self.nodes is None or not 0 <= row < len(self.nodes):
            return
        self.current_row = row
        self._sync_views(row, source)
        self.properties.show_node(self.nodes, row, self.applied_levels is not None and
                                  self.nodes.levels_of(row) == self.applied_levels)
        self.checker.check([self.nodes.levels_of(row)], ("inspect", self.nodes.levels_of(row)))

    def _sync_views(self, row: int, source: str) -> None:
        if source != "lattice":
            self.lattice.select_row(row, center=source != "filter")
        if source != "list":
            r = self.list_model.list_row(row)
            sel = self.list_view.selectionModel()
            sel.blockSignals(True)
            if r >= 0:
                idx = self.list_model.index(r, 0)
                sel.setCurrentIndex(idx, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                    | QItemSelectionModel.SelectionFlag.Rows)
                self.list_view.scrollTo(idx)
            else:
                sel.clearSelection()
            sel.blockSignals(False)
            self.list_view.viewport().update()

    def _list_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.select_row(self.list_model.node_row(current.row()), source="list")

    # --- checking, applying, expanding ------------------------------------------------------------
    def apply_levels(self, levels) -> None:
        """Make ``levels`` the output: at once when checked, after a check otherwise."""
        levels = tuple(int(v) for v in levels)
        row = self.nodes.row_of(levels) if self.nodes is not None else -1
        if row >= 0 and self.nodes.checked[row]:
            self._applied(levels)
        else:
            self.checker.check([levels], ("apply", levels))

    def _applied(self, levels: tuple) -> None:
        self.mark_applied(levels)
        self.transformation_applied.emit(levels)

    def select_applied(self) -> None:
        """Select the applied transformation (a reopened project's), not the optimum."""
        if self.applied_levels is None or self.nodes is None:
            return
        row = self.nodes.row_of(self.applied_levels)
        if row >= 0:
            self.select_row(row, source="result")

    def mark_applied(self, levels) -> None:
        """Mark ``levels`` as the transformation applied as output (None: the optimum)."""
        self.applied_levels = None if levels is None else tuple(int(v) for v in levels)
        row = -1
        if self.applied_levels is not None and self.nodes is not None:
            row = self.nodes.row_of(self.applied_levels)
        self.lattice.set_applied(row)
        self.properties.mark_output(row >= 0 and row == self.current_row)

    def expand(self, row: int) -> None:
        """Check the neighbours of a node in the worker and show them."""
        levels = self.nodes.levels_of(row)
        lat = self.result.lattice
        near = lat.predecessors(levels) + lat.successors(levels)
        self.checker.check(near, ("expand", levels))

    def _checked(self, tag, details) -> None:
        kind, levels = tag
        if self.nodes is None:
            return
        before = len(self.nodes)
        for d in details:
            self.nodes.record(d.levels, d.anonymous, d.loss, d.suppressed_records)
        if len(self.nodes) != before:
            self._rebuild_views(levels if kind != "show" else details[0].levels)
        else:
            self.lattice.refresh_styles()
            self.list_model.refresh()
            self._show_counts()
        if kind == "inspect":
            self.properties.show_details(details[0])
        elif kind == "apply":
            self._applied(levels)
        elif kind == "show":
            self.select_levels(levels)

    def _rebuild_views(self, keep_levels) -> None:
        """Rows were added (huge lattices): redraw and keep the selection on ``keep_levels``."""
        self.set_filter(self.filter.current())
        if self.applied_levels is not None:
            self.lattice.set_applied(self.nodes.row_of(self.applied_levels))
        row = self.nodes.row_of(keep_levels)
        if row >= 0:
            self.current_row = row
            self._sync_views(row, "filter")

    def _check_failed(self, tag, message: str) -> None:
        if tag[0] == "inspect":
            self.properties.show_error(message)
        self.check_failed.emit(message)

    def _context_menu(self, row: int, pos) -> None:
        self.select_row(row, source="")
        levels = self.nodes.levels_of(row)
        menu = QMenu(self)
        menu.addAction("Apply this transformation", lambda: self.apply_levels(levels))
        menu.addAction("Keep in clipboard", lambda: self.keep_levels(levels))
        menu.addAction("Check and show neighbours", lambda: self.expand(row))
        menu.popup(pos)

    # --- clipboard --------------------------------------------------------------------------------
    def keep_levels(self, levels) -> None:
        if self.nodes is None:
            return
        row = self.nodes.row_of(levels)
        pct = loss = None
        state = ""
        if row >= 0:
            pct = float(self.nodes.percent[row]) if self.nodes.checked[row] else None
            raw = self.nodes.raw_loss(row) if self.nodes.checked[row] else None
            loss = list(raw) if isinstance(raw, tuple) else raw
            state = STATE_LABELS[int(self.nodes.states[row])].lower().replace(" ", "-")
        entry = ClipboardEntry(self.nodes.attributes, tuple(int(v) for v in levels), "",
                               pct, loss, state)
        self.clipboard.select(self.clipboard.model.add(entry))

    def clipboard_state(self) -> list[dict]:
        """The clipboard as JSON-able data for the project file."""
        return self.clipboard.model.state()

    def restore_clipboard(self, state: list[dict] | None) -> None:
        self._restoring = True
        try:
            self.clipboard.model.restore(state)
        finally:
            self._restoring = False

    def _clipboard_changed(self) -> None:
        if not self._restoring:
            self.clipboard_changed.emit()

    # --- closing ---------------------------------------------------------------------------------
    def shutdown(self, msecs: int = 5000) -> None:
        """Wait for the worker threads (window close, tests)."""
        self.checker.wait(msecs)
        self.lattice.edges.wait(msecs)
