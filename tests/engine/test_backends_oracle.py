"""The shared oracle jobs on DuckDB's frequency table against the in-memory path: the
same optimum (levels, loss, suppressed records, exactly) and, on Adult, the same
released file. A few run by default, every other optimal-search job under
``-m slow``. Research subsets given as row files are resolved by DuckDB (the row
numbers' records counted apart), and differential privacy's sample is drawn for
DuckDB as in memory (the same records, counted apart)."""
from __future__ import annotations

import pytest

from tests import oracle

pytest.importorskip("duckdb")

CASES = [c for c in oracle.cases() if c["algorithm"] == "OPTIMAL"]
#: a job with a research subset given by row numbers (a rows file), on Adult
SUBSET_CASE = "TestAnonymizationDPresence#0"
#: the default run's few (a few seconds each): l-diversity, ordered t-closeness,
#: beta-likeness, profitability and a subset of row numbers (delta-presence); the
#: differential-privacy jobs run an optimal search of minutes (-m slow; DuckDB's DP
#: sample is in the default run through test_backend_transforms.py)
DEFAULT = {"TestAnonymizationLDiversity#20", "TestAnonymizationOrderedDistanceTCloseness#1",
           "TestAnonymizationBLikeness#1", "TestAnonymizationProfitability#2",
           SUBSET_CASE}
PARAMS = [pytest.param(c, id=c["id"], marks=[] if c["id"] in DEFAULT else [pytest.mark.slow])
          for c in CASES]


@pytest.mark.parametrize("case", PARAMS)
def test_oracle_job_same_on_duckdb(case, tmp_path):
    from engine.api import as_table
    from engine.backends import DataSource, count_records
    from engine.backends.duckdb_backend import DuckDBBackend
    from engine.output import release_plan, transform
    from engine.problem import Problem
    from engine.search.optimal import optimal_search
    job = oracle.job_for(case)
    path = oracle.SHARED / case["dataset"]
    memory = Problem(as_table(path, job), job)
    expected = optimal_search(memory).optimum
    backend = DuckDBBackend(DataSource(str(path), "csv", (path,)))
    try:
        problem = Problem(count_records(backend, job), job)
        problem.backend = backend
        got = optimal_search(problem).optimum
        if expected is None:
            assert got is None
            return
        assert (got.levels, got.loss, got.suppressed_records) == \
            (expected.levels, expected.loss, expected.suppressed_records)
        if "adult" in case["dataset"]:
            from engine.export.targets import FileTarget, write_released
            write_released(transform(memory, expected.levels),
                           FileTarget(tmp_path / "memory.csv", "csv"))
            backend.write_release(release_plan(problem, got.levels), tmp_path / "duckdb.csv",
                                  "csv")
            assert (tmp_path / "duckdb.csv").read_bytes() == \
                (tmp_path / "memory.csv").read_bytes()
    finally:
        backend.close()
