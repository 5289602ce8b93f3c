"""A 1,000,000-row output opens and scrolls in Analyze utility without copying the data.

The models hold references to the engine's arrays (codes, hierarchy maps, the
classifier's row map, the per-class arrays) and format cells on demand, so
opening the perspective on a million rows grows the process by a few MB only:
the output column of the attribute whose statistics are shown (one byte a row)
and the suppression mask (one byte a row).
"""
from __future__ import annotations

import gc
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from tests.shared_data import SHARED

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.app.test_utility import ADULT, adult_result

psutil = pytest.importorskip("psutil")

ROWS = 1_000_000
BENCH = Path("/tmp/anonymist-bench-adult1000000")
DATAGEN = SHARED / "tools" / "datagen.py"
LIMIT_MB = 10.0


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    folder = BENCH
    if not (folder / "adult.csv").exists():
        if not DATAGEN.exists():
            pytest.skip("../shared/tools/datagen.py is not available")
        folder = tmp_path_factory.mktemp("adult1m")
        subprocess.run([sys.executable, str(DATAGEN), "adult", "--rows", str(ROWS),
                        "--out", str(folder)], check=True)
    result = adult_result(folder, k=100, suppression=0.02, subset=False)
    assert result.problem.table.n_rows == ROWS and result.optimum is not None
    return result


def rss_mb() -> float:
    gc.collect()
    return psutil.Process().memory_info().rss / 2**20


def screenful(model, top: int, rows: int = 40) -> None:
    for r in range(top, min(top + rows, model.rowCount())):
        for c in range(model.columnCount()):
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole,
                         Qt.ItemDataRole.ForegroundRole):
                model.data(model.index(r, c), role)


def test_million_row_tables_open_without_copying(qtbot, million):
    """The side-by-side tables on a 1M-row output: RSS growth from the same widget on
    screen with a small result (warm widgets and kernels) to the 1M rows shown and
    scrolled to random places."""
    from app.perspectives.utility.analysis import job_data_types
    from app.perspectives.utility.tables import ComparisonTables

    def show(result):
        problem = result.problem
        types = {n: a.type for n, a in problem.job.attributes.items()}
        tables.set_data(problem.table, result.transformed(),
                        problem.model_context.subset,
                        types, job_data_types(problem))

    tables = ComparisonTables()
    qtbot.addWidget(tables)
    tables.resize(1600, 600)
    show(adult_result(rows=2000, subset=False))
    tables.show()
    qtbot.waitExposed(tables)
    before = rss_mb()
    start = time.perf_counter()
    show(million)
    tables.repaint()
    shown_s = time.perf_counter() - start
    opened = rss_mb()
    assert tables.output_model.rowCount() == ROWS
    rng = np.random.default_rng(0)
    times = []
    for top in rng.integers(0, ROWS - 40, size=20):
        t0 = time.perf_counter()
        tables.input_view.verticalScrollBar().setValue(int(top))
        screenful(tables.input_model, int(top))
        screenful(tables.output_model, int(top))
        times.append(time.perf_counter() - t0)
    assert tables.output_view.verticalScrollBar().value() == \
        tables.input_view.verticalScrollBar().value()
    scrolled = rss_mb()
    print(f"\n1M rows: tables shown in {shown_s:.2f} s; memory +{opened - before:.1f} MB "
          f"on opening, +{scrolled - before:.1f} MB after scrolling; a screenful of both "
          f"tables {1000 * float(np.median(times)):.1f} ms (median)")
    assert opened - before < LIMIT_MB
    assert scrolled - before < LIMIT_MB


def test_million_row_perspective_keeps_no_copies(qtbot, million):
    """The whole perspective, with the first attribute's statistics computed in the
    worker: what stays allocated (numpy and Python objects, traced) is a few MB. RSS
    is printed too: glibc keeps the worker's freed temporaries (the summary statistics
    expand a numeric column into one float a record) for the next analysis."""
    from app.perspectives.utility import UtilityPerspective

    w = UtilityPerspective()
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    with qtbot.waitSignal(w.statistics_shown, timeout=60_000):
        w.set_result(adult_result(rows=2000, subset=False))
        w.show()
        qtbot.waitExposed(w)
    before = rss_mb()
    tracemalloc.start()
    try:
        start = time.perf_counter()
        with qtbot.waitSignal(w.statistics_shown, timeout=120_000):
            w.set_result(million)
            shown_s = time.perf_counter() - start
        stats_s = time.perf_counter() - start
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    after = rss_mb()
    print(f"\n1M rows, perspective: tables {shown_s:.2f} s, first statistics {stats_s:.2f} s;"
          f" held +{held / 2**20:.1f} MB (peak {peak / 2**20:.1f} MB), RSS "
          f"+{after - before:.1f} MB")
    w.shutdown()
    assert held / 2**20 < LIMIT_MB


def test_million_rows_sort_and_shade(qtbot, million):
    from app.perspectives.utility import UtilityPerspective

    w = UtilityPerspective()
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.result_shown, timeout=120_000):  # built in a worker
        w.set_result(million)
    t = w.tables
    t0 = time.perf_counter()
    t.sort_by("age", output=True)
    sort_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    t.set_show_classes(True)
    shade_s = time.perf_counter() - t0
    print(f"\n1M rows: sort by output age {sort_s:.2f} s, group by class {shade_s:.2f} s")
    age = t.output_model.column_of("age")
    released = [t.output_model.text(i, age) for i in range(0, ROWS, 50_000)]
    assert released[0] != "*"
    assert [t.input_model.source_row(i) for i in range(0, ROWS, 99_999)] == \
        [t.output_model.source_row(i) for i in range(0, ROWS, 99_999)]
    w.shutdown()
