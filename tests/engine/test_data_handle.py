"""The data handle answers alike in memory and out of core (names, counts, distinct
values, subsets), and a ReleaseChoice releases the optimum until another
transformation is applied: the released table is the result's own, recounted."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import engine
from engine.backends.browse import OutOfCoreData
from engine.backends.handle import MemoryData
from engine.data.csv_import import read_csv
from engine.data.table import EncodedTable
from engine.project.job_file import load_job
from engine.release_choice import ReleaseChoice

ROWS = pd.DataFrame({"age": ["30", "31", "30", "45", "31", "30"],
                     "sex": ["m", "f", "f", "m", "m", "f"],
                     "zip": ["1", "2", "1", "2", "2", "1"]})


@pytest.fixture
def csv(tmp_path) -> Path:
    path = tmp_path / "d.csv"
    ROWS.to_csv(path, sep=";", index=False)
    return path


def test_memory_and_out_of_core_handles_answer_alike(csv, tmp_path):
    memory = MemoryData(EncodedTable.from_dataframe(read_csv(csv)))
    out = OutOfCoreData(csv)
    try:
        assert not memory.out_of_core and out.out_of_core
        assert memory.table is not None and out.table is None
        assert memory.names == out.names == ["age", "sex", "zip"]
        assert memory.n_rows == out.count_rows() == 6
        for name in memory.names:
            assert out.known_distinct_values(name) is None  # needs a scan
            assert sorted(memory.distinct_values(name)) == list(out.distinct_values(name))
            assert list(out.known_distinct_values(name)) == sorted(set(ROWS[name]))
        columns = out.hierarchy_columns(["age"])["age"]
        assert list(columns.value_counts()) == [3, 2, 1]  # records per distinct value
        spec = {"query": "sex = 'f'"}
        assert memory.count_subset(spec, tmp_path) == out.count_subset(spec, tmp_path) \
            == (3, 6)
        assert memory.subset_mask(spec, tmp_path).tolist() == list(ROWS["sex"] == "f")
        assert out.subset_mask(spec, tmp_path) is None  # the backend selects them
        engine_config = load_job_text(tmp_path).engine
        assert memory.job_engine(engine_config) is engine_config
        assert out.job_engine(engine_config).backend == "duckdb"
        assert memory.describe() == "6 rows × 3 columns"
    finally:
        out.close()


def load_job_text(folder: Path):
    (folder / "job.toml").write_text('[data]\npath = "d.csv"\n')
    return load_job(folder / "job.toml")


def test_release_choice_releases_the_optimum_until_another_is_applied(adult_dir):
    job = load_job(adult_dir / "job.toml")
    result = engine.anonymize(None, job)
    choice = ReleaseChoice(result)
    optimum = result.levels_of(None)
    assert choice.applied is None and choice.current().kind == "optimum"
    other = tuple(min(lv + 1, h) for lv, h in zip(optimum, result.problem.lattice.top))
    assert other != optimum
    assert choice.apply(other) and choice.applied == other
    assert not choice.apply(other)  # nothing changed
    current = choice.current()
    assert current.applied and tuple(current.levels.values()) == other
    # the released table is the result's own for those levels, counted from its rows
    released = choice.released().frame
    top = result.problem.lattice.top
    below_top = next(q for q, lv, h in zip(result.problem.qis, other, top) if lv < h)
    suppressed = int((released[below_top] == "*").sum())  # '*' only where suppressed
    assert current.suppressed_records == suppressed
    page = choice.released_page(MemoryData(result.problem.table), 10, 5)
    assert page.equals(released.iloc[10:15].reset_index(drop=True))
    assert choice.apply(optimum) and choice.applied is None  # the optimum again
