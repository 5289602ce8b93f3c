"""The analyses' and the export's DuckDB scans read the app's Parquet copy of a CSV file
once it exists (``OutOfCoreData.lend_copy``): the same figures and the same released
bytes as from the CSV, and no scan of the CSV once the copy is lent."""
from __future__ import annotations

from pathlib import Path

import pytest

from app.document import Document
from app.perspectives.utility import analysis as an
from app.source import DataSource
from engine.backends.browse import OutOfCoreData
from tests.app.test_journeys import in_memory, verify_export
from tests.engine.test_analysis_aggregates import assert_same
from tests.shared_data import SHARED

ADULT = SHARED / "data" / "adult"
QIS = ("age", "sex", "race", "education")


@pytest.fixture
def adult_part(tmp_path) -> Path:
    if not (ADULT / "adult.csv").exists():
        pytest.skip("shared Adult data not available")
    path = tmp_path / "adult.csv"
    path.write_text("\n".join((ADULT / "adult.csv").read_text().splitlines()[:3001]) + "\n")
    return path


def figures(result) -> dict:
    """What Analyze utility shows (distributions of a QI and of insensitive columns, a
    contingency of a QI with an insensitive column, quality), counted afresh."""
    c = an.Comparison.of(result.transformed())
    return {"age": an.statistics_task(c, "age"),
            "occupation": an.statistics_task(c, "occupation"),
            "workclass": an.statistics_task(c, "workclass"),
            "pair": an.contingency_task(c, "education", "workclass"),
            "quality": an.quality_task(c)}


def test_scans_read_the_parquet_copy_with_the_same_figures(qapp, adult_part, tmp_path):
    import engine
    from engine.hierarchy.csv_io import read_hierarchy
    doc = Document()
    data = OutOfCoreData(adult_part)
    doc.set_data(data, DataSource("csv", str(adult_part)))
    for name in QIS:
        doc.set_hierarchy_rows(name, read_hierarchy(ADULT / f"adult_hierarchy_{name}.csv",
                                                    name).rows)
    doc.update_attributes(list(QIS), type="quasi-identifying")
    doc.set_privacy([{"model": "k-anonymity", "k": 5}])
    result = engine.anonymize(None, doc.build_job())
    backend = result.problem.backend
    try:
        # the copy is being made (not yet): the document lends it, scans read the CSV
        doc.set_result(result)
        assert data.text_copy() is None and "read_csv" in backend.scan()
        from_csv = figures(result)
        result.write_output(tmp_path / "from-csv.csv")
        # the copy made (the view counts the rows): the backend's scans read it
        data.count_rows()
        copy = data.text_copy()
        assert copy is not None and copy.is_file()
        assert backend.scan() == f"read_parquet('{copy}')"
        # no scan of the CSV from now on: it can be away and every figure is the same
        away = adult_part.rename(adult_part.with_suffix(".away"))
        try:
            from_copy = figures(result)
            result.write_output(tmp_path / "from-copy.csv")
            twin = backend.twin()  # the side-by-side records' reader
            try:
                assert twin.rows(2990, 10).equals(data.page(2990, 10))
            finally:
                twin.close()
        finally:
            away.rename(adult_part)
        for key in from_csv:
            assert_same(from_copy[key], from_csv[key])
        assert (tmp_path / "from-copy.csv").read_bytes() == \
            (tmp_path / "from-csv.csv").read_bytes()
        # another file's backend is not lent the copy
        other = tmp_path / "other.csv"
        other.write_bytes(adult_part.read_bytes())
        from engine.backends import data_source
        from engine.backends.duckdb_backend import DuckDBBackend
        foreign = DuckDBBackend(data_source(result.problem.job, str(other)))
        try:
            assert not data.lend_copy(foreign) and foreign.text_copy is None
        finally:
            foreign.close()
    finally:
        backend.close()
        doc.clear_data()
    assert data.text_copy() is None  # closed: scans fall back to the file


@pytest.fixture
def generated(tmp_path_factory) -> Path:
    """A generated Adult-like file (as test_out_of_core_window's)."""
    import subprocess
    import sys

    from tests.app.test_out_of_core_window import DATAGEN, ROWS
    if not DATAGEN.exists():
        pytest.skip("../shared/tools/datagen.py is not available")
    out = tmp_path_factory.mktemp("copy")
    subprocess.run([sys.executable, str(DATAGEN), "adult", "--rows", str(ROWS), "--seed",
                    "5", "--out", str(out)], check=True, capture_output=True)
    return out / "adult.csv"


def test_anonymize_and_export_read_the_copy(qtbot, window, generated, tmp_path, capsys,
                                            messages, monkeypatch):
    """Anonymize in the window counts the records from the view's copy once it exists
    (the scan it counts names the copy), the export writes from it (with the CSV moved
    away), and the release is byte for byte the in-memory one of the same job."""
    from engine.backends.duckdb_backend import DuckDBBackend
    scans = []
    counted = DuckDBBackend.frequency_table

    def frequency_table(self, *args, **kwargs):
        scans.append(self.scan())
        return counted(self, *args, **kwargs)

    monkeypatch.setattr(DuckDBBackend, "frequency_table", frequency_table)

    from engine.config import QUASI_IDENTIFYING
    from tests.app.test_journeys import add_model_through_dialog, anonymize, export, set_type
    from tests.app.test_out_of_core_window import ROWS, open_out_of_core
    doc = open_out_of_core(qtbot, window, generated)
    assert doc.data.text_copy() is not None  # the row count made it
    set_type(window, QIS, QUASI_IDENTIFYING)
    for name in QIS:
        window.configure.attributes.select([name])
        assert window.configure.hierarchy.load_file(ADULT / f"adult_hierarchy_{name}.csv")
    add_model_through_dialog(window, "k-anonymity", k=5)
    result = anonymize(qtbot, window)
    assert not messages, messages
    assert result.problem.table.n_records == ROWS
    copy = doc.data.text_copy()
    assert scans == [f"read_parquet('{copy}')"]  # the search's count read the copy
    away = generated.rename(generated.with_suffix(".away"))
    try:
        out = export(qtbot, window, tmp_path / "released.csv")
    finally:
        away.rename(generated)
    assert not messages, messages
    verify_export(doc, out, tmp_path, capsys)
    job = doc.build_job()
    memory = in_memory(job)
    assert memory.optimum.levels == result.optimum.levels
    memory.write_output(tmp_path / "memory.csv")
    assert out.read_bytes() == (tmp_path / "memory.csv").read_bytes()
    window.configure.data.model.rows.wait()
    window.files.stop_background()
    doc.clear_data()
