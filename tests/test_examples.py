"""The job files in examples/ run on the shared data, so that they never rot: each one
loads, anonymizes, verifies, and its release is recounted here."""
from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from engine.cli import main as cli
from engine.project.job_file import load_job
from tests.shared_data import SHARED

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
JOBS = sorted(p.name for p in EXAMPLES.glob("*.toml"))
#: the heuristic searches of the high-dimensional tables take 10-20 s each
SLOW = {"creditcard-heuristic.toml", "mach2019-heuristic.toml"}


@pytest.fixture
def examples(tmp_path) -> Path:
    """The example jobs in a folder whose ``data`` is the shared data folder (as
    examples/README.md asks for examples/data)."""
    if not (SHARED / "data").is_dir():
        pytest.skip("the shared data is not here (ANONYMIST_SHARED)")
    for name in JOBS:
        shutil.copy(EXAMPLES / name, tmp_path / name)
    (tmp_path / "data").symlink_to(SHARED / "data")
    return tmp_path


def test_there_are_examples_for_every_shared_data_set():
    data = {tomllib.loads((EXAMPLES / j).read_text())["data"]["path"].split("/")[1]
            for j in JOBS}
    assert {"adult", "cup", "highdim"} <= data
    assert (EXAMPLES / "README.md").is_file()


@pytest.mark.parametrize("name", [j for j in JOBS if j not in SLOW] +
                         [pytest.param(j, marks=pytest.mark.slow) for j in sorted(SLOW)])
def test_example_runs_and_its_release_holds(examples, name, capsys):
    job_path = examples / name
    out = examples / f"{Path(name).stem}.csv"
    capsys.readouterr()
    assert cli(["anonymize", str(job_path), "--output", str(out), "--quiet"]) == 0, \
        capsys.readouterr().err
    assert cli(["verify", str(out), str(job_path)]) == 0, capsys.readouterr().err
    job = load_job(job_path)
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    qis = [n for n, a in job.attributes.items() if a.type == "quasi-identifying"]
    suppressed = (released[qis] == "*").all(axis=1)
    # (a subset job's release holds the subset's records only: the limit counts them all)
    assert suppressed.mean() <= job.transformation.suppression_limit
    k = max((m.k for m in job.privacy if m.name == "k-anonymity"), default=1)
    sizes = released[~suppressed].groupby(qis).size()
    assert len(sizes) and sizes.min() >= k
