"""CLI and Python API end to end on Adult; outputs re-verified independently."""
from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd

import engine
from engine.cli import main


def test_anonymize_verify_evaluate(adult_dir, capsys):
    out, res = adult_dir / "out.csv", adult_dir / "result.json"
    assert main(["anonymize", str(adult_dir / "job.toml"), "--output", str(out),
                 "--result", str(res)]) == 0
    result = json.loads(res.read_text())
    opt = result["optimum"]
    assert result["lattice_size"] == 12960 and result["transformations_checked"] > 0
    assert set(opt["levels"]) == {"sex", "age", "race", "marital-status", "education",
                                  "native-country", "workclass", "occupation", "salary-class"}
    assert 0 <= opt["information_loss_percent"] <= 100
    assert result["output"] == str(out)
    # plain pandas recount of the exported file
    frame = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    qis = list(opt["levels"])
    suppressed = (frame[qis] == "*").all(axis=1)
    assert suppressed.sum() == result["suppressed_records"] <= int(0.04 * len(frame))
    assert frame[~suppressed].groupby(qis).size().min() >= 5
    capsys.readouterr()
    assert main(["verify", str(out), str(adult_dir / "job.toml")]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    levels = ",".join(f"{q}={v}" for q, v in opt["levels"].items())
    assert main(["evaluate", str(adult_dir / "job.toml"), "--levels", levels]) == 0
    ev = json.loads(capsys.readouterr().out)
    assert ev["state"] == "anonymous"
    assert abs(ev["information_loss"] - opt["information_loss"]) < 1e-12


def test_verify_rejects_a_tampered_output(adult_dir, capsys):
    out = adult_dir / "out.csv"
    main(["anonymize", str(adult_dir / "job.toml"), "--output", str(out), "--quiet"])
    frame = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    original = pd.read_csv(adult_dir / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame.loc[:4, "age"] = original.loc[:4, "age"]  # leak five exact ages
    frame.to_csv(out, sep=";", index=False)
    capsys.readouterr()
    assert main(["verify", str(out), str(adult_dir / "job.toml")]) == 1


def test_evaluate_counts_violating_classes_as_suppressed(adult_dir, capsys):
    assert main(["evaluate", str(adult_dir / "job.toml"), "--levels",
                 "sex=0,age=0,race=0,marital-status=0,education=0,native-country=0,"
                 "workclass=0,occupation=0,salary-class=0"]) == 0
    ev = json.loads(capsys.readouterr().out)
    assert ev["state"] == "not-anonymous" and ev["suppressed_records"] > 1000


def test_bad_levels_message(adult_dir, capsys):
    assert main(["evaluate", str(adult_dir / "job.toml"), "--levels", "sex=1"]) == 2
    assert "give a level for age" in capsys.readouterr().err


def test_api_with_dataframe_and_dict(adult_dir):
    df = pd.read_csv(adult_dir / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    config = {"attributes": {q: {"type": "quasi-identifying",
                                 "hierarchy": str(adult_dir / f"adult_hierarchy_{q}.csv")}
                             for q in ["sex", "age", "race"]},
              "privacy": [{"model": "k-anonymity", "k": 10}],
              "transformation": {"suppression_limit": 0.0}, "metric": {"name": "height"}}
    seen = []
    result = engine.anonymize(df, config, progress=seen.append)
    assert result.optimum is not None and seen
    assert list(result.output.columns) == list(df.columns)
    sizes = result.output.groupby(["sex", "age", "race"]).size()
    assert sizes.min() >= 10


def test_cancel_returns_best_so_far(adult_dir):
    job = engine.load_job(adult_dir / "job.toml")
    job = replace(job, transformation=replace(job.transformation, algorithm="exhaustive"))
    calls = []
    result = engine.anonymize(None, job, cancel=lambda: len(calls.append(1) or calls) > 50)
    assert result.cancelled and result.transformations_checked < 12960
