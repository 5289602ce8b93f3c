"""The solution space drawn as a lattice: rows by level, colours by state.

A ``NodeLayer`` draws the nodes and an ``EdgeLayer`` the edges, each as one
image of the view rasterized by numba (``layers``), a ``LabelLayer`` the level vectors once
zoomed in. Hit testing (hover, click) is one vectorized distance pass in
pixels, so it costs the same for 100,000 nodes.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QToolTip, QVBoxLayout, QWidget

from app.perspectives.explore.labels import LabelLayer
from app.perspectives.explore.layers import EdgeLayer, NodeLayer
from app.perspectives.explore.layout import (ORDER_STATE, ORDER_STRUCTURE, node_positions,
                                             state_order_key)
from app.perspectives.explore.nodes import ExploreNodes
from app.perspectives.explore.text import node_tooltip

# fill of checked / inferred nodes per state (unknown, anonymous, not anonymous)
FILL_CHECKED = ("#8d97a5", "#1e9e57", "#d23c3c")
FILL_INFERRED = ("#cbd2db", "#6cc990", "#ee8a8a")
OUTLINE_CHECKED = ("#4a5361", "#0b4d2a", "#6e1515")
OPTIMUM_COLOR = "#f5b700"
SELECTION_COLOR = "#2f6fd6"
OUTPUT_COLOR = "#7a3db8"
NODE_SIZE = 7
HIT_RADIUS_PX = 8


class _LatticeBox(pg.ViewBox):
    """Rows are far wider than the lattice is high, so the wheel zooms mostly across
    rows (x by s, y by s**0.4): nodes separate while neighbouring rows stay in view.
    Shift+wheel zooms both axes alike."""

    Y_EXPONENT = 0.4

    def wheelEvent(self, ev, axis=None):
        delta = ev.delta() if hasattr(ev, "delta") else ev.angleDelta().y()
        s = 1.02 ** (delta * self.state["wheelScaleFactor"])
        ys = s if ev.modifiers() & Qt.KeyboardModifier.ShiftModifier else s ** self.Y_EXPONENT
        center = self.mapToView(ev.pos())
        self._resetTarget()
        self.scaleBy((s, ys), center)
        ev.accept()
        self.sigRangeChangedManually.emit(self.state["mouseEnabled"])


class LatticeView(QWidget):
    """Signals: ``node_clicked(row)``, ``context_requested(row, global QPoint)``."""

    node_clicked = Signal(int)
    context_requested = Signal(int, QPoint)

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.graphics = pg.GraphicsView(background="#ffffff")
        self.box = _LatticeBox(enableMenu=False, defaultPadding=0.03)
        self.graphics.setCentralItem(self.box)
        lay.addWidget(self.graphics)
        self.edges = EdgeLayer()
        # styles: inferred first, so checked nodes are drawn on top
        self.node_layer = NodeLayer(FILL_INFERRED + FILL_CHECKED,
                                    (None,) * 3 + OUTLINE_CHECKED, NODE_SIZE)
        self.highlight = pg.PlotCurveItem(connect="pairs",
                                          pen=pg.mkPen(SELECTION_COLOR, width=2))
        self.optimum_marker = pg.ScatterPlotItem(
            pxMode=True, size=24, symbol="star", brush=pg.mkBrush(OPTIMUM_COLOR),
            pen=pg.mkPen("#3d2e00", width=1.5))
        self.optimum_label = pg.TextItem(anchor=(0.5, 1.35), color="#3d2e00",
                                         fill=pg.mkBrush(255, 248, 214, 235),
                                         border=pg.mkPen("#d9a400"))
        f = QFont()
        f.setBold(True)
        self.optimum_label.setFont(f)
        self.selection = pg.ScatterPlotItem(pxMode=True, size=17, symbol="o", brush=None,
                                            pen=pg.mkPen(SELECTION_COLOR, width=3))
        self.labels = LabelLayer()
        # the transformation applied as output, when it is not the optimum
        self.output_marker = pg.ScatterPlotItem(pxMode=True, size=20, symbol="d", brush=None,
                                                pen=pg.mkPen(OUTPUT_COLOR, width=2.5))
        self.output_label = pg.TextItem("Output", anchor=(0.5, -0.6), color=OUTPUT_COLOR)
        self.ends = [pg.TextItem(text, color="#667085", anchor=(-0.08, 0.5))
                     for text in ("no generalization (original data)",
                                  "everything generalized")]
        layers = (self.edges, self.node_layer, self.highlight, self.labels, *self.ends,
                  self.selection, self.output_marker, self.output_label,
                  self.optimum_marker, self.optimum_label)
        for z, item in enumerate(layers):
            item.setZValue(z)
            self.box.addItem(item)
        self.nodes: ExploreNodes | None = None
        self.order = ORDER_STATE
        self.shown = np.zeros(0, dtype=np.int64)  # rows of ``nodes`` drawn, in draw order
        self.x = self.y = np.zeros(0)
        self._pos_of_row = np.zeros(0, dtype=np.int64)  # row -> index in shown, -1 hidden
        self.selected_row = -1
        self.applied_row = -1
        scene = self.graphics.scene()
        scene.sigMouseMoved.connect(self._mouse_moved)
        scene.sigMouseClicked.connect(self._mouse_clicked)
        self._last_tip = -1

    # --- content --------------------------------------------------------------------------
    def set_nodes(self, nodes: ExploreNodes | None, mask: np.ndarray | None = None) -> None:
        """Draw ``nodes`` (those where ``mask`` is true) and fit them into view."""
        self.nodes = nodes
        self.selected_row = -1
        self.set_mask(mask, fit=True)

    def set_order(self, order: str) -> None:
        """``ORDER_STATE`` (frontier in one place) or ``ORDER_STRUCTURE`` (by level vector)."""
        self.order = order
        self.set_mask(self._mask, fit=False)

    def set_mask(self, mask: np.ndarray | None, fit: bool = False) -> None:
        nodes = self.nodes
        self._mask = mask
        if nodes is None or len(nodes) == 0:
            self.shown = np.zeros(0, dtype=np.int64)
            self.x = self.y = np.zeros(0)
            self._pos_of_row = np.zeros(0, dtype=np.int64)
            for item in (self.optimum_marker, self.selection):
                item.clear()
            self.node_layer.set_nodes(np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64))
            self.edges.set_segments([], [], [], [])
            self.labels.set_labels([], [], np.zeros((0, 0), dtype=np.int16))
            self.highlight.setData([], [])
            self.optimum_label.hide()
            return
        heights = nodes.heights()
        key = (state_order_key(nodes.states, nodes.checked, nodes.percent)
               if self.order == ORDER_STATE else None)
        # positions come from the whole set so rows stay put while filtering
        x, y = node_positions(heights, key)
        self._all_x, self._all_y = x, y
        shown = np.arange(len(nodes)) if mask is None else np.flatnonzero(mask)
        self.shown = shown
        self.x, self.y = x[shown], y[shown]
        self._pos_of_row = np.full(len(nodes), -1, dtype=np.int64)
        self._pos_of_row[shown] = np.arange(len(shown))
        lo, up = nodes.edges()
        keep = (self._pos_of_row[lo] >= 0) & (self._pos_of_row[up] >= 0)
        lo, up = lo[keep], up[keep]
        self._edge_rows = (lo, up)
        self.edges.set_segments(x[lo], y[lo], x[up], y[up])
        self.refresh_styles()
        if fit:
            self.fit()

    def refresh_styles(self) -> None:
        """Re-read states and checks (after a check on demand) and redraw nodes and marks."""
        nodes = self.nodes
        if nodes is None:
            return
        shown = self.shown
        code = nodes.states[shown].astype(np.int64) + 3 * nodes.checked[shown]
        self.node_layer.set_nodes(self.x, self.y, code)
        heights = nodes.heights()[shown]
        for item, h in zip(self.ends, (heights.min(initial=0), heights.max(initial=0))):
            at = np.flatnonzero(heights == h)
            item.setVisible(bool(len(at)) and int(h) in (0, nodes.lattice.height))
            if len(at):
                i = at[np.argmax(self.x[at])]
                item.setPos(float(self.x[i]), float(self.y[i]))
        self.labels.set_labels(self.x, self.y, nodes.levels[shown])
        opt = nodes.optimum
        if opt >= 0 and self._pos_of_row[opt] >= 0:
            ox, oy = self._all_x[opt], self._all_y[opt]
            self.optimum_marker.setData([ox], [oy])
            pct = nodes.percent[opt]
            self.optimum_label.setText(f"Optimum · {pct:.1f} %")
            lo, hi = self._all_x.min(), self._all_x.max()
            side = (ox - lo) / max(hi - lo, 1e-9)  # keep the label inside the drawing
            self.optimum_label.setAnchor((0.5 if 0.2 < side < 0.8 else
                                          1.0 if side >= 0.8 else 0.0, 1.35))
            self.optimum_label.setPos(ox, oy)
            self.optimum_label.show()
        else:
            self.optimum_marker.clear()
            self.optimum_label.hide()
        self._show_selection()
        self._show_applied()

    def set_applied(self, row: int) -> None:
        """Mark the transformation applied as output (-1: the optimum, unmarked)."""
        self.applied_row = row
        self._show_applied()

    def _show_applied(self) -> None:
        row = self.applied_row
        shown = (self.nodes is not None and 0 <= row < len(self._pos_of_row)
                 and row != self.nodes.optimum and self._pos_of_row[row] >= 0)
        if shown:
            x, y = float(self._all_x[row]), float(self._all_y[row])
            self.output_marker.setData([x], [y])
            self.output_label.setPos(x, y)
        else:
            self.output_marker.clear()
        self.output_label.setVisible(bool(shown))

    def fit(self) -> None:
        if len(self.x):
            self.box.setRange(xRange=(self.x.min() - 1, self.x.max() + 1),
                              yRange=(self.y.min() - 1, self.y.max() + 1), padding=0.04)

    def zoom_to_row(self, row: int, across: float = 24.0, rows: float = 2.5) -> bool:
        """Zoom in on ``row``: about ``across`` neighbours side by side and ``rows`` levels
        above and below, so that single transformations can be told apart. False when the
        row is not drawn."""
        if self.nodes is None or not 0 <= row < len(self._pos_of_row) \
                or self._pos_of_row[row] < 0:
            return False
        x, y = float(self._all_x[row]), float(self._all_y[row])
        levels = np.unique(self.y)
        gap = float(np.diff(levels).min()) if len(levels) > 1 else 1.0
        self.box.setRange(xRange=(x - across / 2, x + across / 2),
                          yRange=(y - rows * gap, y + rows * gap), padding=0)
        return True

    def zoom_to_optimum(self) -> bool:
        return self.nodes is not None and self.nodes.optimum >= 0 \
            and self.zoom_to_row(int(self.nodes.optimum))

    # --- selection --------------------------------------------------------------------------
    def select_row(self, row: int, center: bool = True) -> None:
        """Mark ``row`` as selected (no signal); pan to it when it is out of view."""
        self.selected_row = row
        self._show_selection()
        if center and row >= 0 and self._pos_of_row[row] >= 0:
            r = self.box.viewRect()
            x, y = self._all_x[row], self._all_y[row]
            if not r.contains(QPointF(x, y)):
                self.box.translateBy(x=x - r.center().x(), y=y - r.center().y())

    def _show_selection(self) -> None:
        row = self.selected_row
        if row < 0 or self.nodes is None or row >= len(self._pos_of_row) \
                or self._pos_of_row[row] < 0:
            self.selection.clear()
            self.highlight.setData([], [])
            return
        x, y = self._all_x, self._all_y
        self.selection.setData([x[row]], [y[row]])
        lo, up = self._edge_rows
        m = (lo == row) | (up == row)
        a, b = lo[m], up[m]
        xs = np.empty(2 * len(a))
        ys = np.empty(2 * len(a))
        xs[0::2], xs[1::2], ys[0::2], ys[1::2] = x[a], x[b], y[a], y[b]
        self.highlight.setData(xs, ys)

    # --- state for tests and the status line -----------------------------------------------
    def node_count(self) -> int:
        return len(self.shown)

    def shown_states(self) -> np.ndarray:
        """States of the drawn nodes, in lattice-id order."""
        if self.nodes is None:
            return np.zeros(0, dtype=np.int8)
        return self.nodes.states[np.sort(self.shown)]

    def widget_pos_of_row(self, row: int) -> QPoint:
        """Where ``row`` is drawn, in the graphics viewport's coordinates (for tests)."""
        p = self.box.mapViewToScene(QPointF(self._all_x[row], self._all_y[row]))
        return self.graphics.mapFromScene(p)

    # --- mouse ----------------------------------------------------------------------------------
    def row_at(self, scene_pos: QPointF) -> int:
        """The drawn node under a scene position (within a few pixels), or -1."""
        if not len(self.x) or not self.box.sceneBoundingRect().contains(scene_pos):
            return -1
        p = self.box.mapSceneToView(scene_pos)
        px = self.box.viewPixelSize()  # view units per pixel (x, y)
        dx = (self.x - p.x()) / px[0]
        dy = (self.y - p.y()) / px[1]
        d2 = dx * dx + dy * dy
        # the optimum's star is drawn on top of its crowded neighbours: it wins within reach
        opt = self.nodes.optimum if self.nodes is not None else -1
        if opt >= 0 and self._pos_of_row[opt] >= 0 and \
                d2[self._pos_of_row[opt]] <= (HIT_RADIUS_PX + 4) ** 2:
            return opt
        i = int(np.argmin(d2))
        if d2[i] > HIT_RADIUS_PX ** 2:
            return -1
        return int(self.shown[i])

    def _mouse_moved(self, scene_pos: QPointF) -> None:
        row = self.row_at(scene_pos)
        if row == self._last_tip:
            return
        self._last_tip = row
        if row < 0:
            QToolTip.hideText()
            return
        gp = self.graphics.viewport().mapToGlobal(self.graphics.mapFromScene(scene_pos))
        QToolTip.showText(gp, node_tooltip(self.nodes, row), self.graphics)

    def _mouse_clicked(self, ev) -> None:
        row = self.row_at(ev.scenePos())
        if ev.button() == Qt.MouseButton.LeftButton:
            if row >= 0:
                ev.accept()
                self.select_row(row, center=False)
                self.node_clicked.emit(row)
        elif ev.button() == Qt.MouseButton.RightButton and row >= 0:
            ev.accept()
            self.context_requested.emit(row, ev.screenPos().toPoint())


__all__ = ["LatticeView", "ORDER_STATE", "ORDER_STRUCTURE"]
