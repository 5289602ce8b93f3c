"""Properties of the selected transformation, with its neighbours to navigate to."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QFormLayout, QHBoxLayout, QHeaderView,
                               QLabel, QListWidget, QListWidgetItem, QPushButton,
                               QScrollArea, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from app.perspectives.explore.details import NodeDetails
from app.perspectives.explore.list_model import STATE_COLORS
from app.perspectives.explore.nodes import ExploreNodes
from app.perspectives.explore.text import (format_loss, format_percent, level_label,
                                           state_text)
from app.theme import dot_icon
from engine.solution_space import ANONYMOUS, NOT_ANONYMOUS, UNKNOWN

LEVELS_ROLE = Qt.ItemDataRole.UserRole + 1
LEVEL_PAIRS = 2  # attribute/level column pairs of the levels table


class PropertiesPanel(QWidget):
    """Signals carry level vectors (tuples): ``navigate_requested``, ``apply_requested``,
    ``keep_requested``."""

    navigate_requested = Signal(tuple)
    apply_requested = Signal(tuple)
    keep_requested = Signal(tuple)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.levels: tuple[int, ...] | None = None
        self._optimum = False  # the shown transformation is the optimum
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        self.title = QLabel("No transformation selected")
        self.title.setObjectName("sectionTitle")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setWordWrap(True)
        head.addWidget(self.title, 1)
        self.keep = QPushButton("Keep")
        self.keep.setToolTip("Keep this transformation in the clipboard")
        self.apply = QPushButton("Apply")
        self.apply.setObjectName("primaryButton")
        self.apply.setToolTip("Make this transformation the output (checks it first if needed)")
        head.addWidget(self.keep)
        head.addWidget(self.apply)
        outer.addLayout(head)

        body = QWidget()
        lay = QVBoxLayout(body)
        lay.setContentsMargins(0, 0, 4, 0)
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft)
        self.fields: dict[str, QLabel] = {}
        for key, text in (("state", "State"), ("loss", "Information loss"),
                          ("suppressed", "Suppressed records"), ("classes", "Classes"),
                          ("models", "Privacy models")):
            value = QLabel("–")
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.fields[key] = value
            form.addRow(text, value)
        lay.addLayout(form)
        # two attribute/level pairs a row (the first half down the left, the rest down the
        # right): half the height, so the neighbours below fit at 1280x800
        self.level_table = QTableWidget(0, 2 * LEVEL_PAIRS)
        self.level_table.setHorizontalHeaderLabels(["Attribute", "Level"] * LEVEL_PAIRS)
        self.level_table.verticalHeader().hide()
        self.level_table.verticalHeader().setDefaultSectionSize(20)
        self.level_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for c in range(LEVEL_PAIRS):
            self.level_table.horizontalHeader().setSectionResizeMode(
                2 * c, QHeaderView.ResizeMode.Stretch)
            self.level_table.horizontalHeader().setSectionResizeMode(
                2 * c + 1, QHeaderView.ResizeMode.ResizeToContents)
        self.level_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.level_table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        lay.addWidget(self.level_table)
        self.predecessors = self._neighbour_list("Predecessors (one level less)")
        self.successors = self._neighbour_list("Successors (one level more)")
        lay.addLayout(self.predecessors[0])
        lay.addLayout(self.successors[0])
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)
        self.apply.clicked.connect(lambda: self.levels and self.apply_requested.emit(self.levels))
        self.keep.clicked.connect(lambda: self.levels and self.keep_requested.emit(self.levels))
        self.show_nothing()

    def _neighbour_list(self, title: str) -> tuple[QVBoxLayout, QListWidget]:
        box = QVBoxLayout()
        label = QLabel(title)
        label.setObjectName("subTitle")
        box.addWidget(label)
        lst = QListWidget()
        lst.setMaximumHeight(120)
        lst.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        lst.setTextElideMode(Qt.TextElideMode.ElideRight)
        lst.itemActivated.connect(self._navigate)
        lst.itemClicked.connect(self._navigate)
        box.addWidget(lst)
        return box, lst

    def _navigate(self, item: QListWidgetItem) -> None:
        levels = item.data(LEVELS_ROLE)
        if levels is not None:
            self.navigate_requested.emit(tuple(levels))

    # --- content ------------------------------------------------------------------------------
    def show_nothing(self) -> None:
        self.levels = None
        self.title.setText("No transformation selected")
        for v in self.fields.values():
            v.setText("–")
        self.level_table.setRowCount(0)
        self.predecessors[1].clear()
        self.successors[1].clear()
        self.apply.setEnabled(False)
        self.keep.setEnabled(False)

    def mark_output(self, applied: bool) -> None:
        """Title the shown transformation; ``applied``: it is the one applied as output
        (what Analyze shows and Export writes)."""
        if self.levels is None:
            return
        tags = (["optimum"] if self._optimum else []) + \
            (["applied: the current output"] if applied else [])
        self.title.setText(f"Transformation [{level_label(self.levels)}]"
                           + "".join(f" · {t}" for t in tags))

    def show_node(self, nodes: ExploreNodes, row: int, applied: bool = False) -> None:
        """What the solution space knows; ``show_details`` adds the checked facts.
        ``applied``: the node is the transformation applied as output."""
        levels = nodes.levels_of(row)
        self.levels = levels
        self._optimum = row == nodes.optimum
        self.mark_output(applied)
        self.fields["state"].setText(state_text(nodes, row))
        exact = bool(nodes.checked[row])
        loss = nodes.raw_loss(row)
        self.fields["loss"].setText(
            f"{format_percent(nodes.percent[row], exact)} (raw {format_loss(loss)})"
            + ("" if exact else " — lower bound, checking…"))
        s = int(nodes.suppressed[row])
        self.fields["suppressed"].setText(f"{s:,}" if s >= 0 else "–")
        self.fields["classes"].setText("…")
        self.fields["models"].setText("…")
        lat = nodes.lattice
        rows = -(-len(levels) // LEVEL_PAIRS)
        self.level_table.clearContents()
        self.level_table.setRowCount(rows)
        for i, (name, v, hi) in enumerate(zip(nodes.attributes, levels, lat.max_levels)):
            row, col = i % rows, 2 * (i // rows)
            self.level_table.setItem(row, col, QTableWidgetItem(name))
            item = QTableWidgetItem(f"{v} of {hi}  ")
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.level_table.setItem(row, col + 1, item)
        self.level_table.setFixedHeight(self.level_table.horizontalHeader().height()
                                        + sum(self.level_table.rowHeight(i)
                                              for i in range(rows)) + 4)
        self._fill(self.predecessors[1], nodes, lat.predecessors(levels))
        self._fill(self.successors[1], nodes, lat.successors(levels))
        self.apply.setEnabled(True)
        self.keep.setEnabled(True)

    def _fill(self, lst: QListWidget, nodes: ExploreNodes, neighbours) -> None:
        lst.clear()
        for lv in neighbours:
            r = nodes.row_of(lv)
            state = int(nodes.states[r]) if r >= 0 else UNKNOWN
            changed = ", ".join(f"{a} {v}" for a, v, w in zip(nodes.attributes, lv, self.levels)
                                if v != w)
            item = QListWidgetItem(dot_icon(STATE_COLORS[state]),
                                   f"{level_label(lv)}  ({changed})")
            item.setData(LEVELS_ROLE, list(lv))
            item.setToolTip({ANONYMOUS: "Anonymous", NOT_ANONYMOUS: "Not anonymous"}.get(
                state, "Not checked") + ("" if r >= 0 else " (not shown yet)"))
            lst.addItem(item)

    def show_details(self, d: NodeDetails) -> None:
        if self.levels != d.levels:
            return
        self.fields["state"].setText("Anonymous" if d.anonymous else "Not anonymous")
        self.fields["loss"].setText(f"{format_percent(d.percent)} (raw {format_loss(d.loss)})")
        self.fields["suppressed"].setText(f"{d.suppressed_records:,}")
        self.fields["classes"].setText(
            f"{d.classes:,} released, sizes {d.smallest_class:,} to {d.largest_class:,}"
            + (f"; {d.suppressed_classes:,} suppressed" if d.suppressed_classes else ""))
        lines = []
        for m in d.models:
            mark = "<span style='color:#1e9e57'>✔ fulfilled</span>" if m.fulfilled else \
                "<span style='color:#d23c3c'>✘ not fulfilled</span>"
            lines.append(f"<b>{m.name}</b>: {mark} ({m.violating_records:,} records in "
                         f"violating classes)")
        self.fields["models"].setText("<br>".join(lines))

    def show_error(self, message: str) -> None:
        self.fields["classes"].setText("–")
        self.fields["models"].setText(f"Could not check: {message}")
