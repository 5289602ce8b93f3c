"""A job TOML opened in the app and saved again is the same job: every oracle job, one job
per privacy model, and jobs with each kind of [subset] and [population]."""
from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

import pytest

from app.document import Document
from app.project_io import apply_snapshot, save_job_file, snapshot_from_job, snapshot_from_job_file
from engine.config import DataConfig
from engine.data.csv_import import read_csv
from engine.data.table import EncodedTable
from engine.project.job_file import job_to_dict, load_job, save_job
from tests import oracle

SHARED = oracle.SHARED


@functools.lru_cache(maxsize=2)
def _table(dataset: str) -> EncodedTable:
    return EncodedTable.from_dataframe(read_csv(SHARED / dataset, delimiter=";",
                                                categorical=True))


def _normal(job) -> dict:
    """The job's TOML structure with every path made absolute (a saved job writes its
    paths relative to its own folder)."""
    d = job_to_dict(job)
    if d["data"].get("path"):
        d["data"]["path"] = str(job.resolve(d["data"]["path"]).resolve())
    for a in d["attributes"].values():
        if "hierarchy" in a:
            a["hierarchy"] = str(job.resolve(a["hierarchy"]).resolve())
    if "subset" in d and "rows" in d["subset"]:
        d["subset"]["rows"] = str(job.resolve(d["subset"]["rows"]).resolve())
    return d


def _round_trip(job, dataset: str, tmp_path: Path) -> tuple[dict, dict]:
    """(the job as written, the job after opening it in the app and saving it again)."""
    first = tmp_path / "first.toml"
    save_job(job, first)
    loaded = load_job(first)
    doc = Document()
    apply_snapshot(doc, snapshot_from_job(loaded, _table(dataset)), None)
    again = tmp_path / "out" / "again.toml"
    again.parent.mkdir()
    notes = save_job_file(doc, again)
    assert not any("written to" in n for n in notes), notes  # hierarchies kept by path
    return _normal(loaded), _normal(load_job(again))


def _adult_job(job, dataset="data/adult/adult.csv"):
    """The oracle job with its data and every path absolute (it is written elsewhere)."""
    attributes = {n: replace(a, hierarchy_path=str(job.resolve(a.hierarchy_path)))
                  if a.hierarchy_path else a for n, a in job.attributes.items()}
    subset = job.subset
    if subset and "rows" in subset:
        subset = {"rows": str(job.resolve(subset["rows"]))}
    return replace(job, data=DataConfig(str(SHARED / dataset), ";", "utf-8"),
                   attributes=attributes, subset=subset)


ADULT_CASES = [c for c in oracle.cases() if c["dataset"] == "data/adult/adult.csv"]
CUP_CASES = [c for c in oracle.cases() if c["dataset"] != "data/adult/adult.csv"]


@pytest.mark.parametrize("case", ADULT_CASES, ids=lambda c: c["id"])
def test_oracle_job_survives_the_app(case, tmp_path):
    job = _adult_job(oracle.job_for(case), case["dataset"])
    before, after = _round_trip(job, case["dataset"], tmp_path)
    assert after == before


@pytest.mark.slow
@pytest.mark.parametrize("case", CUP_CASES, ids=lambda c: c["id"])
def test_cup_oracle_job_survives_the_app(case, tmp_path):
    job = _adult_job(oracle.job_for(case), case["dataset"])
    before, after = _round_trip(job, case["dataset"], tmp_path)
    assert after == before


ADULT = SHARED / "data" / "adult"
ONE_PER_MODEL = {
    "k-anonymity": {"k": 5},
    "distinct-l-diversity": {"attribute": "occupation", "l": 3},
    "entropy-l-diversity": {"attribute": "occupation", "l": 2.5, "estimator": "grassberger"},
    "recursive-cl-diversity": {"attribute": "occupation", "c": 4.0, "l": 3},
    "t-closeness": {"attribute": "occupation", "t": 0.3, "distance": "equal"},
    "delta-disclosure": {"attribute": "occupation", "delta": 1.5},
    "beta-likeness": {"attribute": "occupation", "beta": 2.0, "enhanced": True},
    "delta-presence": {"delta_min": 0.0, "delta_max": 0.5},
    "k-map": {"k": 3, "estimator": "poisson", "significance": 0.05},
    "average-risk": {"threshold": 0.1},
    "sample-uniqueness": {"threshold": 0.05},
    "population-uniqueness": {"threshold": 0.01, "estimator": "zayatz"},
    "profitability": {"attacker": "journalist", "allow_attack": False,
                      "publisher_benefit": 1200.0, "publisher_loss": 300.0,
                      "adversary_gain": 300.0, "adversary_cost": 4.0},
    "differential-privacy": {"epsilon": 2.0, "delta": 1e-6, "generalization": "low",
                             "seed": 7, "search_budget": 0.1, "search_steps": 50},
}
SUBSETS = [{"query": "age > 30 and sex = 'Male'"}, {"sample": 0.25, "seed": 11},
           {"rows": str(SHARED / "oracle" / "subsets" / sorted(
               (SHARED / "oracle" / "subsets").iterdir())[0].name)}]


def _model_job(tmp_path: Path, model: str, params: dict, i: int) -> Path:
    qis = ("age", "sex", "race", "education")
    lines = [f'[data]\npath = "{ADULT / "adult.csv"}"\ndelimiter = ";"\n']
    for q in qis:
        lines.append(f'[attributes."{q}"]\ntype = "quasi-identifying"\n'
                     f'hierarchy = "{ADULT / f"adult_hierarchy_{q}.csv"}"\n')
    lines.append('[attributes."occupation"]\ntype = "sensitive"\n')
    body = "".join(f"{k} = {_toml(v)}\n" for k, v in params.items())
    lines.append(f'[[privacy]]\nmodel = "{model}"\n{body}')
    lines.append('[transformation]\nsuppression_limit = 0.02\nalgorithm = "genetic"\n'
                 'time_limit_s = 5.0\nseed = 3\nheuristic_threshold = 5000\n'
                 '[transformation.genetic]\nelite_fraction = 0.1\nsubpopulation_size = 20\n')
    metric = ('[metric]\nname = "publisher-payout"\nattacker = "prosecutor"\n'
              'publisher_benefit = 1200.0\npublisher_loss = 300.0\nadversary_gain = 300.0\n'
              'adversary_cost = 4.0\n' if model == "profitability" else
              '[metric]\nname = "entropy"\nmonotonic = true\ngs_factor = 0.3\n')
    lines.append(metric)
    population = 'region = "UK"' if i % 2 else "size = 90000000"
    lines.append(f"[population]\n{population}\n")
    sub = SUBSETS[i % len(SUBSETS)]
    lines.append("[subset]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in sub.items()))
    path = tmp_path / f"{model}.toml"
    path.write_text("\n".join(lines))
    return path


def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace('"', '\\"') + '"'
    return repr(v)


@pytest.mark.parametrize("i,model", list(enumerate(ONE_PER_MODEL)))
def test_one_job_per_model_survives_the_app(i, model, tmp_path):
    """Through the app's own job opening (snapshot_from_job_file: data read from the job's
    path), then File > Save job."""
    path = _model_job(tmp_path, model, ONE_PER_MODEL[model], i)
    before = load_job(path)
    doc = Document()
    apply_snapshot(doc, snapshot_from_job_file(path), None)
    assert doc.settings.population == before.population
    assert doc.subset is not None and doc.subset.sum() < doc.table.n_rows
    again = tmp_path / "saved" / "job.toml"
    again.parent.mkdir()
    save_job_file(doc, again)
    assert _normal(load_job(again)) == _normal(before)
