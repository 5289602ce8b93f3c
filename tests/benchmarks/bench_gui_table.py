"""GUI table benchmark (not part of the test run).

    QT_QPA_PLATFORM=offscreen python tests/benchmarks/bench_gui_table.py [--rows 1000000]

Prints: time to open a 1,000,000-row CSV through the app's import path and show
it in the data table; the time of ``data()`` over one screenful (40 rows x all
columns) at random scroll positions; and, for a 1,000-column table, the time
of a column-page switch (model reset plus a screenful of ``data()``).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from PySide6.QtCore import QEventLoop, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

SCREEN_ROWS = 40


def wait_for(signal, timeout_ms: int = 600_000) -> None:
    loop = QEventLoop()
    signal.connect(loop.quit)
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()


def screenful(model, top: int, first_col: int = 0) -> None:
    cols = model.columnCount()
    for r in range(top, min(top + SCREEN_ROWS, model.rowCount())):
        for c in range(first_col, min(cols, first_col + 20)):
            model.data(model.index(r, c), Qt.ItemDataRole.DisplayRole)


def bench_open(rows: int, folder: Path) -> None:
    from engine.data.sources import ImportSpec
    from app.main_window import MainWindow
    from app.settings import AppSettings
    from engine.data.csv_import import detect_csv_format

    csv = folder / "adult.csv"
    if not csv.exists():
        subprocess.run([sys.executable, str(ROOT.parent / "shared/tools/datagen.py"), "adult",
                        "--rows", str(rows), "--out", str(folder)], check=True)
    window = MainWindow(AppSettings())
    window.resize(1600, 1000)
    window.show()
    start = time.perf_counter()
    fmt = detect_csv_format(csv)
    window.files.import_spec(ImportSpec("csv", str(csv), csv_format=fmt))
    wait_for(window.files.loaded)
    view = window.configure.data.view
    view.viewport().repaint()
    QApplication.processEvents()
    shown = time.perf_counter() - start
    model = window.configure.data.model
    print(f"open {model.rowCount():,}-row CSV and show it: {shown:.2f} s")
    rng = np.random.default_rng(0)
    times = []
    for top in rng.integers(0, model.rowCount() - SCREEN_ROWS, size=200):
        t = time.perf_counter()
        screenful(model, int(top))
        times.append(time.perf_counter() - t)
    print(f"data() for one screenful ({SCREEN_ROWS} rows x {model.columnCount()} columns) at "
          f"random positions: median {statistics.median(times) * 1e3:.2f} ms, "
          f"max {max(times) * 1e3:.2f} ms")
    t = time.perf_counter()
    for top in rng.integers(0, model.rowCount() - SCREEN_ROWS, size=50):
        view.verticalScrollBar().setValue(int(top))
        view.viewport().repaint()
    print(f"scroll + repaint to a random position: {(time.perf_counter() - t) / 50 * 1e3:.1f} ms")
    window.document.set_modified(False)
    window.close()


def bench_wide(n_cols: int = 1000, n_rows: int = 10_000) -> None:
    from app.source import DataSource
    from app.document import Document
    from app.models.data_table import DataTableModel
    from engine.backends.handle import MemoryData
    from engine.data.table import EncodedTable

    rng = np.random.default_rng(1)
    df = pd.DataFrame({f"c{j:04d}": rng.integers(0, 50, n_rows).astype(str)
                       for j in range(n_cols)})
    doc = Document()
    doc.set_data(MemoryData(EncodedTable.from_dataframe(df)), DataSource())
    model = DataTableModel(doc, page_size=100)
    times = []
    for page in list(range(1, model.page_count)) + [0]:
        t = time.perf_counter()
        model.set_page(page)
        screenful(model, 0, 0)
        times.append(time.perf_counter() - t)
    print(f"{n_cols:,}-column table, column page switch (+ one screenful): "
          f"median {statistics.median(times) * 1e3:.2f} ms, max {max(times) * 1e3:.2f} ms")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--data", type=Path, default=None, help="folder for the generated CSV")
    args = p.parse_args()
    app = QApplication.instance() or QApplication([])
    app.setOrganizationName("AnonymistBench")
    with tempfile.TemporaryDirectory() as tmp:
        bench_open(args.rows, args.data or Path(tmp))
    bench_wide()


if __name__ == "__main__":
    main()
