"""The filter: states, optimum only, information-loss range, level range per attribute."""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QGridLayout, QHBoxLayout, QLabel, QPushButton,
                               QScrollArea, QSizePolicy, QSlider, QSpinBox, QVBoxLayout,
                               QWidget)

from app.perspectives.explore.filters import NodeFilter
from app.perspectives.explore.list_model import STATE_COLORS
from app.perspectives.explore.nodes import NodeCounts
from app.theme import dot_icon
from engine.solution_space import ANONYMOUS, NOT_ANONYMOUS, UNKNOWN

SLIDER_STEPS = 1000  # loss slider resolution: 0.1 %


class FilterPanel(QWidget):
    """``filter_changed(NodeFilter)`` fires shortly after the user stops changing it."""

    filter_changed = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("exploreFilter")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        title = QLabel("Filter")
        title.setObjectName("sectionTitle")
        outer.addWidget(title)
        self.counts = QLabel("Nothing to show")
        self.counts.setObjectName("mutedLabel")
        self.counts.setWordWrap(True)
        outer.addWidget(self.counts)

        self.state_boxes: dict[int, QCheckBox] = {}
        for state, text in ((ANONYMOUS, "Anonymous"), (NOT_ANONYMOUS, "Not anonymous"),
                            (UNKNOWN, "Not checked")):
            box = QCheckBox(text)
            box.setIcon(dot_icon(STATE_COLORS[state]))
            box.setChecked(True)
            box.toggled.connect(self._changed)
            self.state_boxes[state] = box
            outer.addWidget(box)
        self.checked_only = QCheckBox("Checked only (exact loss)")
        self.optimum_only = QCheckBox("Optimum only")
        for box in (self.checked_only, self.optimum_only):
            box.toggled.connect(self._changed)
            outer.addWidget(box)

        sub = QLabel("Information loss")
        sub.setObjectName("subTitle")
        outer.addWidget(sub)
        self.loss_label = QLabel()
        self.loss_label.setObjectName("mutedLabel")
        outer.addWidget(self.loss_label)
        self.loss_min = QSlider(Qt.Orientation.Horizontal)
        self.loss_max = QSlider(Qt.Orientation.Horizontal)
        for s, v, tip in ((self.loss_min, 0, "Lowest loss shown"),
                          (self.loss_max, SLIDER_STEPS, "Highest loss shown")):
            s.setRange(0, SLIDER_STEPS)
            s.setValue(v)
            s.setToolTip(tip)
            s.valueChanged.connect(self._loss_moved)
            outer.addWidget(s)

        sub = QLabel("Generalization levels")
        sub.setObjectName("subTitle")
        outer.addWidget(sub)
        self.level_host = QWidget()
        self.level_grid = QGridLayout(self.level_host)
        self.level_grid.setContentsMargins(0, 0, 0, 0)
        self.level_grid.setHorizontalSpacing(6)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.level_host)
        outer.addWidget(scroll, 1)
        self.level_spins: dict[str, tuple[QSpinBox, QSpinBox, int, int]] = {}

        row = QHBoxLayout()
        self.reset_button = QPushButton("Show all")
        self.reset_button.clicked.connect(self.reset)
        row.addWidget(self.reset_button)
        row.addStretch()
        outer.addLayout(row)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(120)
        self._timer.timeout.connect(lambda: self.filter_changed.emit(self.current()))
        self._loss_moved()

    # --- content ------------------------------------------------------------------------------
    def set_attributes(self, attributes, min_levels, max_levels) -> None:
        """One level range per quasi-identifier, spanning its lattice range."""
        while self.level_grid.count():
            w = self.level_grid.takeAt(0).widget()
            if w is not None:
                w.deleteLater()
        self.level_spins = {}
        for i, (name, lo, hi) in enumerate(zip(attributes, min_levels, max_levels)):
            label = QLabel(name)
            label.setToolTip(name)
            label.setMinimumWidth(20)  # long names are cut rather than widening the panel
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            a, b = QSpinBox(), QSpinBox()
            for s, v in ((a, lo), (b, hi)):
                s.setMaximumWidth(48)
                s.setRange(int(lo), int(hi))
                s.setValue(int(v))
                s.valueChanged.connect(self._changed)
            a.setToolTip(f"Lowest level of '{name}' shown")
            b.setToolTip(f"Highest level of '{name}' shown")
            self.level_grid.addWidget(label, i, 0)
            self.level_grid.addWidget(a, i, 1)
            self.level_grid.addWidget(QLabel("–"), i, 2)
            self.level_grid.addWidget(b, i, 3)
            self.level_spins[name] = (a, b, int(lo), int(hi))
        self.level_grid.setColumnStretch(0, 1)
        self.level_grid.setRowStretch(len(self.level_spins), 1)

    def current(self) -> NodeFilter:
        states = frozenset(s for s, box in self.state_boxes.items() if box.isChecked())
        levels = {}
        for name, (a, b, lo, hi) in self.level_spins.items():
            if a.value() > lo or b.value() < hi:
                levels[name] = (a.value(), b.value())
        lo = self.loss_min.value() * 100.0 / SLIDER_STEPS
        hi = self.loss_max.value() * 100.0 / SLIDER_STEPS
        return NodeFilter(states, levels, (min(lo, hi), max(lo, hi)),
                          self.optimum_only.isChecked(), self.checked_only.isChecked())

    def set_filter(self, f: NodeFilter, emit: bool = True) -> None:
        """Show ``f`` in the controls (then emit ``filter_changed`` once, if ``emit``)."""
        for state, box in self.state_boxes.items():
            box.setChecked(state in f.states)
        for name, (a, b, lo, hi) in self.level_spins.items():
            a.setValue(f.levels.get(name, (lo, hi))[0])
            b.setValue(f.levels.get(name, (lo, hi))[1])
        self.loss_min.setValue(round(f.loss[0] * SLIDER_STEPS / 100.0))
        self.loss_max.setValue(round(f.loss[1] * SLIDER_STEPS / 100.0))
        self.optimum_only.setChecked(f.optimum_only)
        self.checked_only.setChecked(f.checked_only)
        if emit:
            self._changed()
        else:
            self._timer.stop()

    def reset(self, emit: bool = True) -> None:
        self.set_filter(NodeFilter(), emit)

    def set_counts(self, shown: NodeCounts, total: int) -> None:
        self.counts.setText(
            f"Showing <b>{shown.total:,}</b> of {total:,}: {shown.anonymous:,} anonymous, "
            f"{shown.not_anonymous:,} not anonymous, {shown.unknown:,} not checked")

    def flush(self) -> None:
        """Emit a pending change now (tests, and before reading the filter)."""
        if self._timer.isActive():
            self._timer.stop()
            self.filter_changed.emit(self.current())

    # --- reactions --------------------------------------------------------------------------
    def _loss_moved(self) -> None:
        lo = self.loss_min.value() * 100.0 / SLIDER_STEPS
        hi = self.loss_max.value() * 100.0 / SLIDER_STEPS
        self.loss_label.setText(f"{min(lo, hi):.1f} % to {max(lo, hi):.1f} %")
        self._changed()

    def _changed(self) -> None:
        self._timer.start()
