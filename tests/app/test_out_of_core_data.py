"""The out-of-core data source: pages, distinct values and counts from DuckDB queries
agree with the in-memory reading of the same file."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from app.document import Document
from app.source import DataSource
from engine.backends.browse import OutOfCoreData, out_of_core_backend
from engine.config import EngineConfig
from engine.data.csv_import import read_csv
from engine.data.table import EncodedTable

from tests.app.test_journeys import in_memory
from tests.shared_data import SHARED

ADULT = SHARED / "data" / "adult" / "adult.csv"


@pytest.fixture
def adult_part(tmp_path) -> Path:
    if not ADULT.exists():
        pytest.skip("shared Adult data not available")
    path = tmp_path / "adult.csv"
    lines = ADULT.read_text().splitlines()[:2001]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_pages_and_distinct_equal_the_in_memory_reading(adult_part):
    frame = read_csv(adult_part, delimiter=";", categorical=False)
    data = OutOfCoreData(adult_part)
    try:
        assert data.names == list(frame.columns)
        assert data.n_rows is None and data.count_rows() == len(frame) == 2000
        page = data.page(1234, 50)
        expected = frame.iloc[1234:1284].reset_index(drop=True).astype(str)
        pd.testing.assert_frame_equal(page.astype(str), expected, check_dtype=False)
        table = EncodedTable.from_dataframe(read_csv(adult_part, delimiter=";",
                                                     categorical=True))
        for name in ("age", "education", "sex"):
            d = data.distinct(name)
            col = table.column(name)
            assert list(d["value"]) == [str(v) for v in col.dictionary]
            assert list(d["count"]) == np.bincount(col.codes,
                                                   minlength=len(col.dictionary)).tolist()
        assert data.known_distinct("race") is None
        data.distinct_many(["race", "workclass", "sex", "native-country"])  # one scan
        for name in ("race", "workclass", "native-country"):
            col = table.column(name)
            d = data.known_distinct(name)
            assert list(d["value"]) == [str(v) for v in col.dictionary]
            assert list(d["count"]) == col.value_counts().tolist()
        freq = data.frequency_table(["sex", "race"])
        assert int(freq.weights.sum()) == 2000
    finally:
        data.close()


def test_threshold_comes_from_memory_share(adult_part):
    assert not out_of_core_backend(adult_part, EngineConfig())
    assert out_of_core_backend(adult_part, EngineConfig(memory_share=1e-9))
    assert out_of_core_backend(adult_part, EngineConfig(backend="duckdb"))
    assert not out_of_core_backend(adult_part, EngineConfig(backend="memory",
                                                            memory_share=1e-9))


def test_document_out_of_core(qapp, adult_part):
    doc = Document()
    data = OutOfCoreData(adult_part)
    doc.set_data(data, DataSource("csv", str(adult_part)))
    assert doc.has_data and doc.out_of_core and doc.table is None
    assert doc.column_names == data.names and set(doc.attributes) == set(data.names)
    assert doc.known_distinct_values("sex") is None
    assert list(doc.distinct_values("sex")) == ["Female", "Male"]
    assert list(doc.known_distinct_values("sex")) == ["Female", "Male"]
    assert doc.build_job().engine.backend == "duckdb"
    doc.clear_data()
    assert not doc.has_data


def test_released_page_is_the_backend_release(qapp, adult_part, tmp_path):
    """The released rows the document serves out of core equal the file the DuckDB
    backend writes, and the in-memory release of the same job."""
    import engine
    from engine.hierarchy.csv_io import read_hierarchy

    doc = Document()
    doc.set_data(OutOfCoreData(adult_part), DataSource("csv", str(adult_part)))
    for name in ("age", "sex", "race"):
        h = read_hierarchy(ADULT.parent / f"adult_hierarchy_{name}.csv", name)
        doc.set_hierarchy_rows(name, h.rows)
    doc.update_attributes(["age", "sex", "race"], type="quasi-identifying")
    doc.set_privacy([{"model": "k-anonymity", "k": 5}])
    job = doc.build_job()
    result = engine.anonymize(None, job)
    assert result.problem.backend is not None and result.optimum is not None
    doc.set_result(result)
    out = tmp_path / "released.csv"
    result.write_output(out)
    written = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    page = doc.released_page(700, 40)
    pd.testing.assert_frame_equal(page.astype(str),
                                  written.iloc[700:740].reset_index(drop=True))
    memory = in_memory(job)
    assert memory.optimum.levels == result.optimum.levels
    assert memory.transformed().frame.astype(str).iloc[700:740].reset_index(
        drop=True).equals(page.astype(str))
    result.problem.backend.close()
    doc.clear_data()


def test_cancel_interrupts_the_count(adult_part):
    """Cancelling while DuckDB counts the records stops the query (Cancelled), and the
    same job runs to the end without cancel."""
    import engine
    from engine.config import AttributeConfig, DataConfig, Job
    from engine.errors import Cancelled
    from engine.privacy import KAnonymity
    from engine.hierarchy.model import Hierarchy
    sex = Hierarchy.from_rows([["Male", "*"], ["Female", "*"]], attribute="sex")
    job = Job(data=DataConfig(str(adult_part), ";"),
              attributes={"sex": AttributeConfig("quasi-identifying", hierarchy=sex)},
              privacy=[KAnonymity(2)], engine=EngineConfig(backend="duckdb"))
    with pytest.raises(Cancelled):
        engine.api.prepare(None, job, cancel=lambda: True)
    problem = engine.api.prepare(None, job, cancel=lambda: False)
    assert problem.table.n_records == 2000
    problem.backend.close()


def test_closed_data_refuses_queries(adult_part):
    data = OutOfCoreData(adult_part)
    data.count_rows()
    folder = Path(data.backend._tmp)
    assert (folder / "pages.parquet").is_file()  # the CSV's copy
    data.close()
    data.close()  # twice is harmless
    assert not folder.exists()
    with pytest.raises(Exception, match="closed"):
        data.page(1500, 10)
