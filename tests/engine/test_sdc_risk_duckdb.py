"""The survey risk measures counted by DuckDB (engine/backends/sdc_risk.py) equal the
in-memory ones, figure by figure and record by record."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from engine.backends.sdc_risk import measure_risk_duckdb
from engine.cli import EXIT_BAD_INPUT, main
from engine.errors import DataError
from engine.sdc.measures import measure_risk
from tests.shared_data import SHARED

QIS = ["age", "sex", "race", "marital-status", "education"]


@pytest.fixture(scope="module")
def survey_file(tmp_path_factory):
    adult = SHARED / "data" / "adult" / "adult.csv"
    if not adult.exists():
        pytest.skip("../shared/data/adult is not available")
    df = pd.read_csv(adult, sep=";", dtype=str, keep_default_na=False).head(3000)
    rng = np.random.default_rng(5)
    df["w"] = [f"{x:.2f}" for x in rng.uniform(2, 60, len(df))]
    df["hh"] = [f"h{i // 3}" for i in range(len(df))]
    df.loc[rng.choice(len(df), 150, replace=False), "age"] = ""      # missing
    df.loc[rng.choice(len(df), 80, replace=False), "race"] = "*"     # suppressed
    df.loc[rng.choice(len(df), 5, replace=False), QIS] = "*"         # whole records
    path = tmp_path_factory.mktemp("ooc") / "survey.csv"
    df.to_csv(path, sep=";", index=False)
    return path, df


def same(a, b, where=""):
    if isinstance(a, dict):
        assert set(a) == set(b), where
        for k in a:
            same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12, nan_ok=True), where
    else:
        assert a == b, where


@pytest.mark.parametrize("method,weighted", [("approx", True), ("exact", True),
                                             ("approx", False)])
def test_duckdb_equals_memory(survey_file, tmp_path, method, weighted):
    path, df = survey_file
    weight = "w" if weighted else None
    memory = measure_risk(df, QIS, weight=weight, household="hh", method=method)
    per = tmp_path / "per.csv"
    summary = measure_risk_duckdb(path, QIS, weight=weight, household="hh", method=method,
                                  per_record=per)
    same(memory.summary, summary)
    written = pd.read_csv(per)
    assert list(written.columns) == list(memory.per_record.columns)
    for c in written.columns:
        np.testing.assert_allclose(written[c].to_numpy(float),
                                   memory.per_record[c].to_numpy(float),
                                   rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=c)


def test_duckdb_bad_weight_names_column_and_row(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a;w\n1;2\n2;3\n3;0\n")
    with pytest.raises(DataError, match="'w': row 3 value '0' is not positive"):
        measure_risk_duckdb(path, ["a"], weight="w")
    with pytest.raises(DataError, match="quasi-identifier 'zz' is not in the data"):
        measure_risk_duckdb(path, ["zz"])


def test_cli_duckdb_backend(survey_file, tmp_path):
    path, _df = survey_file
    args = ["risk", str(path), "--quasi-identifiers", ",".join(QIS), "--weight", "w",
            "--household", "hh"]
    for backend in ("memory", "duckdb"):
        assert main(args + ["--backend", backend, "--json", str(tmp_path / f"{backend}.json"),
                            "--per-record", str(tmp_path / f"{backend}.csv")]) == 0
    same(json.loads((tmp_path / "memory.json").read_text()),
         json.loads((tmp_path / "duckdb.json").read_text()))
    a, b = pd.read_csv(tmp_path / "memory.csv"), pd.read_csv(tmp_path / "duckdb.csv")
    np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-12,
                               equal_nan=True)
    assert main(args + ["--backend", "duckdb", "--sensitive", "salary-class"]) == \
        EXIT_BAD_INPUT


def test_auto_backend_follows_the_job(survey_file, tmp_path):
    """[engine] backend = "duckdb" in the job: risk counts out of core (no per-record
    frame in memory); the same figures."""
    import engine
    path, _df = survey_file
    job = tmp_path / "job.toml"
    job.write_text(f'[data]\npath = "{path}"\ndelimiter = ";"\nweight = "w"\n'
                   + "".join(f'[attributes."{q}"]\ntype = "quasi-identifying"\n' for q in QIS)
                   + '[engine]\nbackend = "duckdb"\n')
    out = engine.risk(job=job, per_record=tmp_path / "p.csv")
    assert out.per_record is None and (tmp_path / "p.csv").exists()
    memory = engine.risk(job=job, backend="memory")
    same(memory.summary, out.summary)
