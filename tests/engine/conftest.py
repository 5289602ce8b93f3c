"""Shared fixtures for engine tests: a small Adult job on disk."""
from __future__ import annotations

import shutil
from pathlib import Path

from tests.shared_data import SHARED

import pytest

ADULT = SHARED / "data" / "adult"
ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation", "salary-class"]


def adult_job_text(k: int = 5, limit: float = 0.04, metric: str = "loss",
                   qis=ADULT_QIS, data: str = "adult.csv") -> str:
    lines = [f'[data]\npath = "{data}"\ndelimiter = ";"\nencoding = "utf-8"\n']
    for q in qis:
        lines.append(f'[attributes."{q}"]\ntype = "quasi-identifying"\n'
                     f'hierarchy = "adult_hierarchy_{q}.csv"\n')
    lines.append(f'[[privacy]]\nmodel = "k-anonymity"\nk = {k}\n')
    lines.append(f'[transformation]\nsuppression_limit = {limit}\nalgorithm = "optimal"\n')
    lines.append(f'[metric]\nname = "{metric}"\n')
    return "\n".join(lines)


@pytest.fixture
def adult_dir(tmp_path) -> Path:
    """A folder with adult.csv, its hierarchies and a job file (k=5, 4%, Loss)."""
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "job.toml").write_text(adult_job_text())
    return tmp_path
