"""A small released Adult table shared by the release-document tests: the first 4,000
records of Adult, 4 QIs, k=5, 4% suppression (a few seconds per export round trip)."""
from __future__ import annotations

import shutil

import pytest

import engine
from tests.engine.conftest import ADULT, adult_job_text

QIS4 = ["sex", "age", "race", "marital-status"]


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """(folder with data and job.toml, AnonymizationResult) for Adult on four QIs."""
    folder = tmp_path_factory.mktemp("release")
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, folder / f.name)
    lines = (ADULT / "adult.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "small.csv").write_text("".join(lines[:4001]), encoding="utf-8")
    (folder / "job.toml").write_text(adult_job_text(qis=QIS4, data="small.csv"))
    result = engine.anonymize(None, folder / "job.toml")
    assert result.optimum is not None and result.optimum.suppressed_records > 0
    return folder, result
