"""Lattice view benchmark (issue 7): build, draw, pan and zoom the whole solution space.

    QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_gui_lattice.py [--quick] [--no-baseline]

Cases: the Adult lattice (k=5, 4 % suppression: 12,960 transformations,
74,088 edges) and a synthetic 100,000-node lattice (10^5: 450,000 edges)
with monotone states. Each is timed for building the view and drawing the
first frame, then for frames of a scripted pan and zoom at overview scale and
zoomed in (where edges and labels are drawn), rendering with ``grab()`` and
letting events run between frames so background edge images are swapped in.
The baseline is the obvious alternative: a QGraphicsScene with one ellipse
item per node and one path item holding every edge.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PySide6.QtCore import QRectF  # noqa: E402
import pyqtgraph as pg  # noqa: E402
from PySide6.QtGui import QBrush, QColor, QPen  # noqa: E402
from PySide6.QtWidgets import QApplication, QGraphicsScene, QGraphicsView  # noqa: E402

SHARED = ROOT.parent / "shared"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation", "salary-class"]
SIZE = (1200, 800)


def adult_result():
    import engine
    d = SHARED / "data" / "adult"
    job = {"data": {"path": str(d / "adult.csv"), "delimiter": ";"},
           "attributes": {q: {"type": "quasi-identifying",
                              "hierarchy": str(d / f"adult_hierarchy_{q}.csv")} for q in QIS},
           "privacy": [{"model": "k-anonymity", "k": 5}],
           "transformation": {"suppression_limit": 0.04}, "metric": {"name": "loss"}}
    return engine.anonymize(None, job)


def synthetic_result(radix=(10, 10, 10, 10, 10), seed: int = 7):
    """A result-shaped object over a dense space: monotone states, 5 % checked."""
    from engine.lattice import Lattice
    from engine.solution_space import ANONYMOUS, NOT_ANONYMOUS, SolutionSpace
    lat = Lattice(tuple(f"q{i}" for i in range(len(radix))), (0,) * len(radix),
                  tuple(r - 1 for r in radix))
    space = SolutionSpace(lat, dense=True)
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.5, 1.5, len(radix))
    score = space.levels @ w
    space.states[:] = np.where(score >= np.median(score), ANONYMOUS, NOT_ANONYMOUS)
    loss = score / score.max()
    for i in rng.choice(lat.size, lat.size // 20, replace=False):
        space.record(int(i), bool(space.states[i] == ANONYMOUS), float(loss[i]), 0)
    anon = np.flatnonzero(space.states == ANONYMOUS)
    space.optimum_id = int(anon[np.argmin(loss[anon])])
    space.record(space.optimum_id, True, float(loss[space.optimum_id]), 0)
    return SimpleNamespace(space=space, lattice=lat, _low=0.0, _high=1.0)


def frames(app, view, step, n: int) -> tuple[float, float]:
    """(frames per second, GUI-thread CPU ms per frame) over ``n`` steps, each: move,
    paint the viewport, let events run. The CPU figure does not count time lost to
    other processes, so it is the one to compare on a busy machine."""
    port = view.graphics.viewport() if hasattr(view, "graphics") else view.viewport()
    start, cpu = time.perf_counter(), time.thread_time()
    for _ in range(n):
        step()
        port.repaint()
        app.processEvents()
    wall, cpu = time.perf_counter() - start, time.thread_time() - cpu
    return n / wall, 1e3 * cpu / n


def rate(fps_cpu: tuple[float, float]) -> str:
    fps, cpu = fps_cpu
    return f"{fps:5.1f} fps ({cpu:4.1f} ms GUI-thread CPU a frame)"


def bench_view(app, result, label: str, quick: bool) -> None:
    from app.perspectives.explore.lattice_view import LatticeView
    from app.perspectives.explore.nodes import ExploreNodes
    view = LatticeView()
    view.resize(*SIZE)
    view.show()
    app.processEvents()
    t0 = time.perf_counter()
    nodes = ExploreNodes(result)
    t1 = time.perf_counter()
    view.set_nodes(nodes)
    t2 = time.perf_counter()
    view.grab()
    t3 = time.perf_counter()
    lo, _ = nodes.edges()
    print(f"{label}: {len(nodes):,} nodes, {len(lo):,} edges")
    print(f"  build: nodes {1e3 * (t1 - t0):.0f} ms, view {1e3 * (t2 - t1):.0f} ms, "
          f"first frame {1e3 * (t3 - t2):.0f} ms (total {t3 - t0:.2f} s)")
    n = 20 if quick else 60
    box = view.box
    width = box.viewRect().width()
    fps = frames(app, view, lambda: box.translateBy(x=width / n / 2), n)
    print(f"  overview pan:  {rate(fps)}; edges hidden (about "
          f"{view.edges.edges_in_view:,} touch the view)")
    view.fit()
    fps = frames(app, view, lambda: box.scaleBy((0.95, 0.98)), n)
    print(f"  zoom in:       {rate(fps)}")
    view.fit()
    # zoom to a quarter of the widest row around the optimum, where edges are drawn
    opt = nodes.optimum
    x, y = view._all_x[opt], view._all_y[opt]  # noqa: SLF001 - benchmark reads positions
    row_width = 8.0  # 16 node spacings across the view: labels are readable
    box.setRange(xRange=(x - row_width, x + row_width), yRange=(y - 60, y + 60), padding=0)
    app.processEvents()
    view.edges.wait()
    app.processEvents()
    renders = view.edges.renders
    fps = frames(app, view, lambda: box.translateBy(x=row_width / n), n)
    view.edges.wait()
    print(f"  zoomed pan:    {rate(fps)}, {view.edges.edges_in_view:,} edges in view, "
          f"{view.labels.drawn:,} labels; {view.edges.renders - renders} background edge "
          f"images, last {1e3 * view.edges.render_s:.0f} ms")
    view.close()
    view.edges.wait()


def bench_baseline(app, result, label: str, quick: bool) -> None:
    """QGraphicsScene: an item per node, one path for all edges."""
    from app.perspectives.explore.layout import node_positions
    from app.perspectives.explore.nodes import ExploreNodes
    nodes = ExploreNodes(result)
    t0 = time.perf_counter()
    xa, ya = node_positions(nodes.heights())
    x, y = xa.tolist(), (-ya).tolist()  # Python floats: PySide mishandles numpy scalars
    states = nodes.states.tolist()
    lo, up = nodes.edges()
    scene = QGraphicsScene()
    ex = np.empty(2 * len(lo))
    ey = np.empty(2 * len(lo))
    ex[0::2], ex[1::2], ey[0::2], ey[1::2] = xa[lo], xa[up], -ya[lo], -ya[up]
    path = pg.arrayToQPath(ex, ey, connect="pairs")
    pen = QPen(QColor(110, 122, 140, 90))
    pen.setCosmetic(True)
    scene.addPath(path, pen)
    colors = [QBrush(QColor(c)) for c in ("#8d97a5", "#1e9e57", "#d23c3c")]
    no_pen = QPen(QColor(0, 0, 0, 0))
    for i in range(len(nodes)):
        e = scene.addEllipse(QRectF(-3.5, -3.5, 7, 7), no_pen, colors[states[i]])
        e.setPos(x[i], y[i])
        e.setFlag(e.GraphicsItemFlag.ItemIgnoresTransformations)
    view = QGraphicsView(scene)
    view.resize(*SIZE)
    view.show()
    view.fitInView(scene.itemsBoundingRect())
    view.grab()
    t1 = time.perf_counter()
    n = 10 if quick else 20
    fps = frames(app, view, lambda: view.translate(5, 0), n)
    print(f"  baseline QGraphicsScene: build + first frame {t1 - t0:.2f} s, "
          f"overview pan {rate(fps)}")
    view.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer frames")
    ap.add_argument("--no-baseline", action="store_true", help="skip QGraphicsScene")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication([])
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"view {SIZE[0]}x{SIZE[1]}")
    from app.perspectives.explore.raster import density_lut, rasterize_edges
    t = time.perf_counter()
    z = np.zeros(1)
    rasterize_edges(z, z, z, z, (0.0, 0.0, 1.0, 1.0), (4, 4), density_lut((0, 0, 0)))
    print(f"numba edge kernels: first call {1e3 * (time.perf_counter() - t):.0f} ms "
          f"(cache load, or compile when cold)")
    cases = [("Adult (k=5, 4 %)", adult_result), ("synthetic 10^5", synthetic_result)]
    for label, make in cases:
        result = make()
        bench_view(app, result, label, args.quick)
        if not args.no_baseline:
            bench_baseline(app, result, label, args.quick)
    os._exit(0)  # skip interpreter teardown of Qt objects (PySide finalization order)


if __name__ == "__main__":
    main()
