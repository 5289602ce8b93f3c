"""Live preview: a specification is built off the GUI thread, debounced, and shown
as a table and as the number of groups per level.

`PreviewBuilder` owns the builds: it waits ``DEBOUNCE_MS`` after the last
change, runs at most one build at a time in a worker thread (a newer request
waits and replaces any other waiting one), and caches the latest results so
that finishing the wizard does not build the previewed column again.
"""
from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from PySide6.QtCore import QObject, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QSizePolicy, QSplitter,
                               QVBoxLayout, QWidget)

from app.workers import TaskController
from app.wizards.hierarchy.models import HierarchyTableModel, level_title
from app.wizards.hierarchy.widgets import error_label, hierarchy_table
from engine.data.table import EncodedColumn
from engine.hierarchy.builders import BuilderSpec, spec_to_text
from engine.hierarchy.editing import groups_per_level
from engine.hierarchy.model import Hierarchy

DEBOUNCE_MS = 200
CACHE_SIZE = 16
ACCENT = QColor("#2f6fd6")


@dataclass(frozen=True)
class BuiltHierarchy:
    """A hierarchy built for one attribute, with what the preview shows of it."""

    attribute: str
    hierarchy: Hierarchy
    groups: tuple[int, ...]
    seconds: float


def build_one(spec: BuilderSpec, name: str, column: EncodedColumn) -> BuiltHierarchy:
    """Build ``spec`` for a column (any thread; no Qt)."""
    start = time.perf_counter()
    h = spec.build(column, attribute=name)
    return BuiltHierarchy(name, h, tuple(groups_per_level(h)), time.perf_counter() - start)


class PreviewBuilder(QObject):
    """Debounced, one-at-a-time builds of a specification for one column.

    Signals
    -------
    building(str)
        A build for this attribute started.
    built(BuiltHierarchy)
        The latest requested specification was built.
    failed(str)
        The latest requested specification is invalid or cannot be built.
    """

    building = Signal(str)
    built = Signal(object)
    failed = Signal(str)

    def __init__(self, columns: Mapping[str, EncodedColumn], parent: QObject | None = None):
        super().__init__(parent)
        self.columns = dict(columns)
        self.attribute = next(iter(self.columns), "")
        self.tasks = TaskController(self)
        self.tasks.finished.connect(self._task_finished)
        self.tasks.failed.connect(self._task_failed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._start_waiting)
        self._cache: OrderedDict[tuple[str, str], BuiltHierarchy] = OrderedDict()
        self._waiting: tuple[str, BuilderSpec] | None = None
        self._running: tuple[str, str] | None = None
        self._latest: tuple[str, str] | None = None

    # --- public ------------------------------------------------------------------------
    def request(self, spec: BuilderSpec, attribute: str | None = None,
                immediately: bool = False) -> None:
        """Build ``spec`` for ``attribute`` (default: the previewed one) after a pause."""
        name = attribute or self.attribute
        key = (name, spec_to_text(spec))
        self._latest = key
        cached = self._cache.get(key)
        if cached is not None:
            self._timer.stop()
            self._waiting = None
            self.built.emit(cached)
            return
        self._waiting = (name, spec)
        if immediately:
            self._timer.stop()
            self._start_waiting()
        else:
            self._timer.start()

    def report_invalid(self, message: str) -> None:
        """The page could not make a specification: drop waiting work, show why."""
        self._timer.stop()
        self._waiting = None
        self._latest = None
        self.failed.emit(message)

    def cached(self, spec: BuilderSpec, attribute: str) -> BuiltHierarchy | None:
        return self._cache.get((attribute, spec_to_text(spec)))

    def remember(self, built: BuiltHierarchy, spec: BuilderSpec) -> None:
        self._cache[(built.attribute, spec_to_text(spec))] = built
        self._cache.move_to_end((built.attribute, spec_to_text(spec)))
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    @property
    def busy(self) -> bool:
        return self._running is not None or self._waiting is not None

    def shutdown(self) -> None:
        """Stop waiting work and wait for the running thread (on close)."""
        self._timer.stop()
        self._waiting = None
        self.tasks.wait_all()

    # --- internals -----------------------------------------------------------------------
    def _start_waiting(self) -> None:
        if self._waiting is None or self._running is not None:
            return  # a running build starts the waiting one when it ends
        name, spec = self._waiting
        self._waiting = None
        self._running = (name, spec_to_text(spec))
        column = self.columns[name]
        self.building.emit(name)

        def run(report, cancelled):
            return spec, build_one(spec, name, column)

        self.tasks.start(f"Building the hierarchy of '{name}'", run)

    def _task_finished(self, outcome) -> None:
        key, self._running = self._running, None
        spec, result = outcome.value
        self.remember(result, spec)
        if key == self._latest:
            self.built.emit(result)
        self._start_waiting()

    def _task_failed(self, label: str, message: str) -> None:
        key, self._running = self._running, None
        if key == self._latest:
            self.failed.emit(message)
        self._start_waiting()


class LevelBars(QWidget):
    """Groups per level as horizontal bars on a log scale, finest level at the top."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("levelBars")
        self._groups: tuple[int, ...] = ()
        self._stale = False
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)

    def set_groups(self, groups: tuple[int, ...], stale: bool = False) -> None:
        self._groups, self._stale = tuple(groups), stale
        self.updateGeometry()
        self.update()

    def groups(self) -> tuple[int, ...]:
        return self._groups

    def sizeHint(self) -> QSize:
        return QSize(320, max(1, len(self._groups)) * 22 + 8)

    def minimumSizeHint(self) -> QSize:
        return QSize(200, self.sizeHint().height())

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self._stale:
            p.setOpacity(0.45)
        text = self.palette().color(QPalette.ColorRole.WindowText)
        fm = p.fontMetrics()
        label_w = fm.horizontalAdvance("Level 00 (top)") + 12
        top = max(self._groups, default=1)
        scale = math.log10(top + 1) if top > 0 else 1.0
        height = len(self._groups) - 1
        count_w = fm.horizontalAdvance(f"{top:,} groups") + 12
        for i, n in enumerate(self._groups):
            y = 4 + i * 22
            p.setPen(text)
            p.drawText(QRectF(0, y, label_w, 18), Qt.AlignmentFlag.AlignVCenter,
                       level_title(i, height))
            avail = max(10.0, self.width() - label_w - count_w)
            w = max(3.0, avail * math.log10(n + 1) / scale) if scale else 3.0
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(ACCENT.lighter(100 + 12 * min(i, 6)))
            p.drawRoundedRect(QRectF(label_w, y + 3, w, 12), 3, 3)
            p.setPen(text)
            word = "group" if n == 1 else "groups"
            p.drawText(QRectF(label_w + w + 6, y, count_w, 18), Qt.AlignmentFlag.AlignVCenter,
                       f"{n:,} {word if i else 'values'}")
        p.end()


class PreviewPanel(QWidget):
    """The preview beside a page's options: attribute choice, status, bars and table."""

    def __init__(self, builder: PreviewBuilder, parent: QWidget | None = None):
        super().__init__(parent)
        self.builder = builder
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        title = QLabel("Preview")
        title.setObjectName("sectionTitle")
        head.addWidget(title)
        self.attribute = QComboBox()
        self.attribute.setObjectName("previewAttribute")
        self.attribute.addItems(list(builder.columns))
        self.attribute.setVisible(len(builder.columns) > 1)
        self.attribute.setToolTip("The attribute whose hierarchy is previewed; the "
                                  "specification applies to all of them")
        head.addWidget(self.attribute)
        head.addStretch()
        lay.addLayout(head)
        self.status = QLabel("Building…")
        self.status.setObjectName("mutedLabel")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.error = error_label()
        lay.addWidget(self.error)
        split = QSplitter(Qt.Orientation.Vertical)
        self.bars = LevelBars()
        split.addWidget(self.bars)
        self.model = HierarchyTableModel(parent=self)
        self.table = hierarchy_table(self.model, "previewTable")
        split.addWidget(self.table)
        split.setStretchFactor(1, 1)
        lay.addWidget(split, 1)
        builder.building.connect(self._building)
        builder.built.connect(self._built)
        builder.failed.connect(self._failed)

    def _building(self, name: str) -> None:
        self.status.setText(f"Building the hierarchy of '{name}'…")
        self.bars.set_groups(self.bars.groups(), stale=True)

    def _built(self, result: BuiltHierarchy) -> None:
        self.error.hide()
        self.model.set_hierarchy(result.hierarchy)
        self.bars.set_groups(result.groups)
        values = result.groups[0] if result.groups else 0
        took = f"; built in {result.seconds:.1f} s" if result.seconds >= 0.1 else ""
        self.status.setText(f"'{result.attribute}': {values:,} values, "
                            f"{result.hierarchy.height} generalization levels{took}")

    def _failed(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()
        self.status.setText("The preview shows the last valid hierarchy.")
        self.bars.set_groups(self.bars.groups(), stale=True)
