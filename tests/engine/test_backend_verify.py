"""`anonymist verify` on a release written as several files: a folder of part files as
Spark writes it (CSV with a header each, or Parquet) and a glob, read by DuckDB in
name order and streamed; the report is the single file's, a leak is found."""
from __future__ import annotations

import shutil

import pandas as pd
import pytest

from engine.api import as_job
from engine.cli import main
from engine.verify import verify_file, verify_parts
from tests.engine.conftest import ADULT, adult_job_text

pytest.importorskip("duckdb")

QIS = ["sex", "age", "race", "marital-status", "education"]


@pytest.fixture
def released(tmp_path, capsys):
    """Adult released in memory (k = 20, 4 %, a delta-presence subset of row indices,
    so that the rows' order counts), with its job."""
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, tmp_path / f.name)
    rows = list(range(0, 30000, 3))  # 10,000 rows: the release holds these only
    text = (adult_job_text(k=20, limit=0.04, qis=QIS)
            + '[[privacy]]\nmodel = "delta-presence"\ndelta_min = 0.0\ndelta_max = 0.9\n'
            + f'[subset]\nindices = {rows}\n')
    (tmp_path / "job.toml").write_text(text)
    assert main(["anonymize", str(tmp_path / "job.toml"), "--output",
                 str(tmp_path / "out.csv"), "--quiet"]) == 0
    capsys.readouterr()
    return tmp_path


def spark_like_csv(frame: pd.DataFrame, folder, cuts) -> None:
    """Part files as Spark writes them: a header in each, _SUCCESS and .crc beside."""
    folder.mkdir()
    bounds = [0, *cuts, len(frame)]
    for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
        frame.iloc[a:b].to_csv(folder / f"part-{i:05d}-abc-c000.csv", sep=";", index=False)
        (folder / f".part-{i:05d}-abc-c000.csv.crc").write_bytes(b"\x00crc")
    (folder / "_SUCCESS").write_bytes(b"")


def test_csv_part_folder_verifies_as_the_single_file(released, capsys):
    job = as_job(released / "job.toml")
    whole = verify_file(released / "out.csv", job).to_dict()
    assert whole["ok"]
    frame = pd.read_csv(released / "out.csv", sep=";", dtype=str, keep_default_na=False)
    spark_like_csv(frame, released / "parts.csv", [3000, 3001, 7000])
    assert verify_parts(released / "parts.csv", job, chunk_rows=4096).to_dict() == whole
    assert main(["verify", str(released / "parts.csv"), str(released / "job.toml")]) == 0
    capsys.readouterr()
    # the release holds the subset's records only: a part left out is found
    spark_like_csv(frame.iloc[:7000], released / "wrong.csv", [3000])
    wrong = verify_parts(released / "wrong.csv", job).to_dict()
    assert not wrong["ok"] and "the research subset 10000" in " ".join(wrong["violations"])


def test_leak_in_a_csv_part_is_found(released, capsys):
    frame = pd.read_csv(released / "out.csv", sep=";", dtype=str, keep_default_na=False)
    source = pd.read_csv(released / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    leaked = frame.copy()
    # five exact ages (release row i is the subset's input row 3 i)
    leaked.loc[8000:8004, "age"] = source.loc[24000:24012:3, "age"].to_numpy()
    spark_like_csv(leaked, released / "leak.csv", [3000, 6000])
    assert main(["verify", str(released / "leak.csv"), str(released / "job.toml")]) == 1
    assert "not labels of one hierarchy level" in capsys.readouterr().err


def test_parquet_folder_and_glob(released, capsys):
    job = as_job(released / "job.toml")
    whole = verify_file(released / "out.csv", job).to_dict()
    frame = pd.read_csv(released / "out.csv", sep=";", dtype=str, keep_default_na=False)
    (released / "pq").mkdir()
    for i, (a, b) in enumerate([(0, 5000), (5000, 5001), (5001, len(frame))]):
        frame.iloc[a:b].to_parquet(released / "pq" / f"part-{i:05d}.parquet", index=False)
    assert verify_parts(released / "pq", job, chunk_rows=5000).to_dict() == whole
    assert main(["verify", str(released / "pq" / "*.parquet"), str(released / "job.toml")]) == 0
    capsys.readouterr()


def test_parts_with_other_columns_or_nothing_are_refused(released, capsys):
    frame = pd.read_csv(released / "out.csv", sep=";", dtype=str, keep_default_na=False)
    spark_like_csv(frame, released / "odd.csv", [100])
    second = sorted((released / "odd.csv").glob("part-*.csv"))[1]
    frame.iloc[100:].drop(columns=["sex"]).to_csv(second, sep=";", index=False)
    assert main(["verify", str(released / "odd.csv"), str(released / "job.toml")]) == 2
    err = capsys.readouterr().err
    assert second.name in err and "not those of" in err
    (released / "none").mkdir()
    assert main(["verify", str(released / "none"), str(released / "job.toml")]) == 2
    assert "holds no .csv or .parquet file" in capsys.readouterr().err
