"""The window on data too big for memory (a small generated file forced through the
big path by the settings' memory share): a paged view served by DuckDB queries, the
journey Configure -> Anonymize -> Export ending in a file ``anonymist verify`` accepts
and that equals the in-memory release byte for byte."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from app.data_sources import ImportSpec
from app.settings import AppSettings
from engine.data.csv_import import CsvFormat
from tests.shared_data import SHARED

DATAGEN = SHARED / "tools" / "datagen.py"
ROWS = 3000


@pytest.fixture(scope="module")
def adult_like(tmp_path_factory) -> Path:
    """A generated Adult-like file with the shared Adult hierarchies beside it."""
    if not DATAGEN.exists():
        pytest.skip("../shared/tools/datagen.py is not available")
    out = tmp_path_factory.mktemp("big")
    subprocess.run([sys.executable, str(DATAGEN), "adult", "--rows", str(ROWS), "--seed",
                    "7", "--out", str(out)], check=True, capture_output=True)
    return out


@pytest.fixture(autouse=True)
def _close_data(window):
    yield
    window.configure.data.model.rows.wait()
    window.files.stop_background()
    window.document.clear_data()


def open_out_of_core(qtbot, window, path: Path):
    AppSettings().memory_share = 1e-9  # any file is "too big" now
    spec = ImportSpec("csv", str(path), csv_format=CsvFormat(";"))
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(spec)
    doc = window.document
    assert doc.out_of_core and doc.table is None
    if doc.row_count is None:
        qtbot.waitSignal(doc.rows_counted, timeout=30_000).wait()
    return doc


def test_paged_view_is_served_by_duckdb(qtbot, window, adult_like):
    doc = open_out_of_core(qtbot, window, adult_like / "adult.csv")
    assert doc.row_count == ROWS
    assert window.data_label.text().startswith("Out of core (DuckDB) · 3,000 rows")
    model = window.configure.data.model
    assert model.rowCount() == ROWS
    expected = pd.read_csv(adult_like / "adult.csv", sep=";", dtype=str,
                           keep_default_na=False)
    row = 2345
    first = [model.data(model.index(row, c)) for c in range(1, model.columnCount())]
    assert set(first) == {"…"}  # fetched in the worker, not in the GUI thread
    with qtbot.waitSignal(model.rows.arrived, timeout=20_000):
        pass
    shown = [model.data(model.index(r, c)) for r in range(row, row + 30)
             for c in range(1, model.columnCount())]
    names = [model.attribute_at(c) for c in range(1, model.columnCount())]
    assert shown == [expected.at[r, n] for r in range(row, row + 30) for n in names]
