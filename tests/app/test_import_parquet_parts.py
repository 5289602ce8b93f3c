"""A folder of Parquet parts (a pattern such as ``/data/part-*.parquet``) through the
import wizard: typed as a pattern or chosen as a folder, previewed across parts, opened
out of core as one table in the parts' name order, anonymized and exported, the release
passing ``anonymist verify`` and equal to the in-memory release of the same job; a
pattern matching no file is named on the error page."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from PySide6.QtWidgets import QFileDialog

from tests.app.test_out_of_core_window import close_out_of_core, generate_adult_like
from tests.app.test_journeys import release_out_of_core_as_in_memory

ROWS, PARTS = 2400, 3


@pytest.fixture(scope="module")
def parts(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    """An Adult-like table written as three Parquet parts (text columns) in a folder."""
    out = generate_adult_like(tmp_path_factory, "parts", rows=ROWS, seed=11)
    frame = pd.read_csv(out / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    folder = out / "released-by-spark"
    folder.mkdir()
    size = ROWS // PARTS
    for i in range(PARTS):
        frame.iloc[i * size:(i + 1) * size].to_parquet(folder / f"part-{i:05d}.parquet",
                                                      index=False)
    (folder / "_SUCCESS").write_text("")
    return folder, frame


@pytest.fixture(autouse=True)
def _close_data(window):
    yield
    close_out_of_core(window)


def through_wizard(qtbot, window, set_location):
    """The import wizard on its Parquet choice; ``set_location(source_page)`` fills it."""
    wizard = window.files.make_import_wizard()
    qtbot.addWidget(wizard)
    page = wizard.source_page
    page.set_kind("parquet")
    assert not page.folder.isHidden()
    assert "part-*.parquet" in page.location.placeholderText()
    set_location(page)
    wizard.show()
    wizard.next()
    return wizard


def test_parquet_parts_through_the_import_wizard(qtbot, window, parts, tmp_path, capsys,
                                                 monkeypatch):
    from app.settings import AppSettings
    folder, frame = parts
    AppSettings().memory_share = 0.5  # a pattern is read out of core whatever its size
    # a pattern that matches no file: the error page names it
    missing = str(folder / "part-*.pq")
    wizard = through_wizard(qtbot, window, lambda page: page.location.setText(missing))
    assert wizard.currentPage() is wizard.error_page
    assert f"no file matches the pattern {missing}" in wizard.error_page.message.text()
    wizard.close()
    # "Folder of parts…" fills in the folder's pattern
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))
    wizard = through_wizard(qtbot, window, lambda page: page.folder.click())
    pattern = str(folder / "*.parquet")
    assert wizard.source_page.location.text() == pattern
    assert wizard.currentPage() is wizard.format_page, wizard.error
    assert wizard.format_page.isComplete(), wizard.format_page.error.text()
    assert wizard.format_page.detected.text().startswith(
        "3 Parquet parts read as one table in name order (part-00000.parquet … "
        "part-00002.parquet)")
    preview = wizard.format_page.frame  # the first rows, across parts (800 a part)
    assert len(preview) == 100 and preview.equals(frame.iloc[:100].reset_index(drop=True))
    wizard.next()
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(wizard.spec())
    doc = window.document
    assert doc.out_of_core and doc.source.location == pattern
    assert doc.row_count == ROWS  # from the parts' metadata
    model = window.configure.data.model
    names = [model.attribute_at(c) for c in range(1, model.columnCount())]
    row = 1600  # the third part's first row
    model.data(model.index(row, 1))
    qtbot.waitUntil(lambda: model.data(model.index(row, 1)) != "…", timeout=60_000)
    assert [model.data(model.index(row, c)) for c in range(1, len(names) + 1)] == \
        frame.loc[row, names].tolist()
    # sorted by a header click: the parts' records by age, ties in the parts' order
    from tests.app.test_out_of_core_sort import click_header, shown_rows, wait_sorted
    panel = window.configure.data
    click_header(panel, "age")
    click_header(panel, "age")
    wait_sorted(qtbot, model, ("age", False))
    want = frame.assign(__k=-pd.to_numeric(frame["age"])).sort_values("__k", kind="stable")
    for first in (0, 1590):
        cells, heads = shown_rows(qtbot, model, first, 20)
        assert cells == want[names].iloc[first:first + 20].values.tolist()
        assert heads == [str(i + 1) for i in want.index[first:first + 20]]
    # released through DuckDB, checked independently, equal to the in-memory release
    release_out_of_core_as_in_memory(qtbot, window, tmp_path, capsys)


def test_parquet_parts_read_in_name_order(parts):
    from engine.data.sources import parquet_parts, read_parquet
    from engine.errors import DataError
    folder, frame = parts
    files = parquet_parts(folder / "part-*.parquet")
    assert [f.name for f in files] == [f"part-{i:05d}.parquet" for i in range(PARTS)]
    assert read_parquet(folder / "part-*.parquet").equals(frame)
    assert read_parquet(folder / "part-*.parquet", n_rows=900).equals(frame.iloc[:900])
    with pytest.raises(DataError, match="matches files that are not Parquet"):
        parquet_parts(folder / "*")
