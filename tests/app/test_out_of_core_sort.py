"""Sorting the input data table by a click on a column header: out of core DuckDB writes
the records in the column's display order (in a worker) and the pages, the Rows pager
and the Row N box read that order; in memory the same order by a permutation. The rows
shown equal pandas' stable sort of the same file; the release stays in file order."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from app.perspectives import PERSPECTIVES
from tests.app.test_journeys import release_out_of_core_as_in_memory, set_adult_qis
from tests.app.test_out_of_core_window import (ROWS, close_out_of_core,
                                              generate_adult_like, open_out_of_core)

SHOWN = 60  # rows compared after each sort


@pytest.fixture(scope="module")
def adult_like(tmp_path_factory) -> Path:
    return generate_adult_like(tmp_path_factory, "sort")


@pytest.fixture(autouse=True)
def _close_data(window):
    yield
    close_out_of_core(window)


def expected_order(path, name: str, ascending: bool, numeric: bool) -> pd.DataFrame:
    """pandas' stable sort of the file by ``name`` (numbers by value), ties in file order."""
    frame = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)
    key = pd.to_numeric(frame[name]) if numeric else frame[name]
    return frame.assign(__key=key).sort_values("__key", ascending=ascending,
                                               kind="stable").drop(columns="__key")


def click_header(panel, name: str) -> None:
    """A mouse click on the header of column ``name`` (as the user sorts)."""
    hh = panel.view.horizontalHeader()
    model = panel.view.model()
    col = model.column_of(name) if hasattr(model, "column_of") else model.names.index(name)
    panel.view.scrollTo(model.index(0, col))
    x = hh.sectionViewportPosition(col) + hh.sectionSize(col) // 2
    QTest.mouseClick(hh.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, hh.height() // 2))


def wait_sorted(qtbot, model, key) -> None:
    qtbot.waitUntil(lambda: model.sort == key and model.sort_pending is None
                    or bool(model.sort_error), timeout=30_000)
    assert not model.sort_error, model.sort_error


def shown_rows(qtbot, model, first: int, count: int, start_column: int = 1
               ) -> tuple[list[list[str]], list[str]]:
    """Cells and row headers of model rows ``first ..``, waiting for their blocks."""
    def ready():
        return all(model.data(model.index(r, start_column)) != "…"
                   for r in range(first, first + count))
    qtbot.waitUntil(ready, timeout=60_000)
    cells = [[model.data(model.index(r, c)) for c in range(start_column, model.columnCount())]
             for r in range(first, first + count)]
    heads = [model.headerData(r, Qt.Orientation.Vertical) for r in range(first, first + count)]
    return cells, heads


def test_sorting_the_paged_view_out_of_core(qtbot, window, adult_like, tmp_path, capsys):

    path = adult_like / "adult.csv"
    doc = open_out_of_core(qtbot, window, path)
    panel = window.configure.data
    model = panel.model
    names = [model.attribute_at(c) for c in range(1, model.columnCount())]
    clicked = []
    panel.attribute_clicked.connect(clicked.append)
    assert doc.attributes["age"].data_type == "integer"  # detected from the first rows
    # a click on "age": sorted by DuckDB in a worker, the rows shown stay until it is done
    click_header(panel, "age")
    assert clicked == ["age"]  # the click still selects the attribute
    assert model.sort_pending == ("age", True)
    assert panel.sort_label.text() == "Sorting by age (ascending)…"
    wait_sorted(qtbot, model, ("age", True))
    want = expected_order(path, "age", True, numeric=True)
    cells, heads = shown_rows(qtbot, model, 0, SHOWN)
    assert cells == want[names].iloc[:SHOWN].values.tolist()
    assert heads == [str(i + 1) for i in want.index[:SHOWN]]  # each record's number
    hh = panel.view.horizontalHeader()
    assert hh.isSortIndicatorShown() and hh.sortIndicatorSection() == model.column_of("age")
    assert hh.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert panel.sort_label.text() == "Sorted by age (ascending)"
    assert not panel.clear_sort.isHidden()
    # again: descending, ties still in file order
    click_header(panel, "age")
    wait_sorted(qtbot, model, ("age", False))
    want = expected_order(path, "age", False, numeric=True)
    cells, heads = shown_rows(qtbot, model, 0, SHOWN)
    assert cells == want[names].iloc[:SHOWN].values.tolist()
    assert heads == [str(i + 1) for i in want.index[:SHOWN]]
    assert hh.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    # a text column; the Rows pager and the Row N box move through the sorted order
    click_header(panel, "education")
    wait_sorted(qtbot, model, ("education", True))
    want = expected_order(path, "education", True, numeric=False)
    model.row_window = 1000
    panel.go_to.setValue(2901)
    assert model.row_start == 2000 and panel.view.currentIndex().row() == 900
    assert panel.row_pager.label.text() == "Rows 2,001–3,000 of 3,000"
    cells, heads = shown_rows(qtbot, model, 900, 20)
    assert cells == want[names].iloc[2900:2920].values.tolist()
    assert heads == [str(i + 1) for i in want.index[2900:2920]]
    panel.row_pager.page_requested.emit(1)
    assert model.row_start == 1000
    cells, _ = shown_rows(qtbot, model, 0, 20)
    assert cells == want[names].iloc[1000:1020].values.tolist()
    # Data order: the file's order again
    panel.clear_sort.click()
    assert model.sort is None and not hh.isSortIndicatorShown()
    assert panel.sort_label.text() == "" and model.row_start == 0
    file_rows = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)
    cells, heads = shown_rows(qtbot, model, 0, 20)
    assert cells == file_rows[names].iloc[:20].values.tolist()
    assert heads == [str(i + 1) for i in range(20)]
    # a click while a sort is written replaces it: the last one asked for is shown
    click_header(panel, "race")
    click_header(panel, "sex")
    assert model.sort_pending == ("sex", True)
    wait_sorted(qtbot, model, ("sex", True))
    assert model.stop_sorting()
    assert panel.sort_label.text() == "Sorted by sex (ascending)"
    want = expected_order(path, "sex", True, numeric=False)
    cells, _ = shown_rows(qtbot, model, 0, 20)
    assert cells == want[names].iloc[:20].values.tolist()
    # released while sorted: the view's order is not the release's (file order)
    release_out_of_core_as_in_memory(qtbot, window, tmp_path, capsys)
    assert model.sort == ("sex", True)  # the view keeps its order


def test_sorting_in_memory_is_the_same_order(qtbot, window, adult_like):
    """The in-memory table sorts alike (a permutation), and a tick in the sorted view
    changes the research subset at the record shown."""
    from engine.data.sources import ImportSpec
    from app.settings import AppSettings
    from engine.data.csv_import import CsvFormat
    AppSettings().memory_share = 0.5
    path = adult_like / "adult.csv"
    with qtbot.waitSignal(window.files.loaded, timeout=30_000):
        window.files.import_spec(ImportSpec("csv", str(path), csv_format=CsvFormat(";")))
    doc = window.document
    assert not doc.out_of_core
    panel = window.configure.data
    model = panel.model
    names = [model.attribute_at(c) for c in range(1, model.columnCount())]
    click_header(panel, "age")
    click_header(panel, "age")
    assert model.sort == ("age", False)
    want = expected_order(path, "age", False, numeric=True)
    cells, heads = shown_rows(qtbot, model, 0, SHOWN)
    assert cells == want[names].iloc[:SHOWN].values.tolist()
    assert heads == [str(i + 1) for i in want.index[:SHOWN]]
    assert panel.sort_label.text() == "Sorted by age (descending)"
    model.setData(model.index(3, 0), Qt.CheckState.Unchecked, Qt.ItemDataRole.CheckStateRole)
    assert doc.subset is not None and not doc.subset[want.index[3]]
    assert int(doc.subset.sum()) == ROWS - 1


def test_orders_of_many_values_are_duckdbs(adult_like, monkeypatch):
    """Beyond SORT_RANKS_MAX distinct values DuckDB orders alone: numbers by value, then
    text; the same rows as pandas' sort for a number column and a text column."""
    import engine.backends.browse_order as order
    from engine.backends.browse import OutOfCoreData
    monkeypatch.setattr(order, "SORT_RANKS_MAX", 0)
    path = adult_like / "adult.csv"
    data = OutOfCoreData(path)
    try:
        data.count_rows()
        for name, numeric, ascending in (("age", True, True), ("occupation", False, False)):
            key = data.sort(name, ascending)
            assert data.known_distinct(name) is None  # not counted in Python
            want = expected_order(path, name, ascending, numeric)
            for start in (0, 1777):
                page = data.page(start, 40, key)
                assert page[data.names].values.tolist() == \
                    want[data.names].iloc[start:start + 40].values.tolist()
                assert page[data.row_column].tolist() == list(want.index[start:start + 40])
    finally:
        data.close()


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_columns_named_like_duckdbs_position_columns(tmp_path, suffix):
    """Data with columns 'filename' and 'file_row_number' sorts as well (numbered by a
    scan instead of DuckDB's position columns, which would clash)."""
    from engine.backends.browse import OutOfCoreData
    frame = pd.DataFrame({"filename": [f"f{i % 7}" for i in range(1200)],
                          "file_row_number": [str((i * 13) % 50) for i in range(1200)]})
    path = tmp_path / f"odd{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, sep=";", index=False)
    else:
        frame.to_parquet(path, index=False)
    data = OutOfCoreData(path)
    try:
        data.count_rows()
        key = data.sort("file_row_number", False)
        want = frame.assign(k=-pd.to_numeric(frame["file_row_number"])).sort_values(
            "k", kind="stable")
        page = data.page(1100, 100, key)
        assert page[["filename", "file_row_number"]].values.tolist() == \
            want[["filename", "file_row_number"]].iloc[1100:1200].values.tolist()
        assert page[data.row_column].tolist() == list(want.index[1100:1200])
    finally:
        data.close()


def test_sorting_side_by_side_records_out_of_core(qtbot, window, adult_like, tmp_path):
    """Analyze utility out of core: a click on a column of either table sorts both by
    the input's values; the input rows are pandas' sort of the file and the output rows
    the export's rows in the same order."""
    from tests.app.test_journeys import add_model_through_dialog, anonymize, export
    path = adult_like / "adult.csv"
    doc = open_out_of_core(qtbot, window, path)
    qis = ("age", "sex", "race", "education")
    set_adult_qis(window, qis)
    add_model_through_dialog(window, "k-anonymity", k=5)
    window.configure.privacy.suppression.setValue(4.0)
    utility = window.perspectives["utility"]
    window.show()  # the tables are clicked as the user clicks them
    window.show_perspective([s.key for s in PERSPECTIVES].index("utility"))
    with qtbot.waitSignal(utility.result_shown, timeout=60_000):
        anonymize(qtbot, window)
    exported = pd.read_csv(export(qtbot, window, tmp_path / "released.csv"), sep=";",
                           dtype=str, keep_default_na=False)
    records = utility.records
    assert records.sort.data is doc.data
    click_header(records.output, "age")  # a column of the output sorts by the input's
    assert records.sort.pending == ("age", True)
    qtbot.waitUntil(lambda: records.sort.shown == ("age", True), timeout=30_000)
    click_header(records.input, "age")  # again: descending
    qtbot.waitUntil(lambda: records.sort.shown == ("age", False), timeout=30_000)
    assert records.sort_label.text() == "Sorted by age (input, descending)"
    want = expected_order(path, "age", False, numeric=True)
    for model, frame in ((records.input_model, want),
                         (records.output_model, exported.loc[want.index])):
        hh = (records.input if model is records.input_model else records.output).view \
            .horizontalHeader()
        assert hh.isSortIndicatorShown()
        assert hh.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
        for first in (0, 2950):
            cells, heads = shown_rows(qtbot, model, first, 40, start_column=0)
            assert cells == frame[model.names].iloc[first:first + 40].values.tolist()
            assert heads == [f"{i + 1:,}" for i in want.index[first:first + 40]]
    # suppressed records among those compared (the oldest are rare)
    assert (exported.loc[want.index[:40], "age"] == "*").any()
    records.clear_sort.click()
    assert records.sort.shown is None and records.sort_label.text() == ""
    cells, _ = shown_rows(qtbot, records.output_model, 0, 20, start_column=0)
    assert cells == exported.iloc[:20].values.tolist()
