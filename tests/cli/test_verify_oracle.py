"""Every output the search releases on ARX's oracle cases verifies through the file
path (`engine.verify.verify_file`): suppression limit, levels and every model."""
from __future__ import annotations

import pytest

from engine.output import transform
from engine.problem import Problem
from engine.search import run_search
from engine.verify import verify_file
from tests import oracle

CASES = [c for c in oracle.cases()
         if c["algorithm"] == "OPTIMAL" and not c["expected_no_solution"]
         and "LocalRecoding" not in c["id"]]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_released_optimum_verifies(case, tmp_path):
    job = oracle.job_for(case)
    problem = Problem(oracle.table(case["dataset"]), job)
    optimum = run_search(problem).optimum
    if optimum is None:
        pytest.skip("no optimum here (the oracle tests judge that)")
    out = tmp_path / "out.csv"
    from engine.export.targets import CsvOptions, FileTarget, write_released
    write_released(transform(problem, optimum.levels),
                   FileTarget(out, "csv", CsvOptions(delimiter=";")))
    report = verify_file(out, oracle.verify_job(case))
    assert report.ok, report.violations
