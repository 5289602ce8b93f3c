"""Analyze risk > Survey measures: a weighted survey anonymized, its release exported and
verified, and the tab's figures equal to `anonymist risk`'s JSON of the input file and
of the exported file."""
from __future__ import annotations

import json
import shutil
import tomllib
import zipfile

import pytest

import engine
from app.perspectives.risk.perspective import SURVEY
from app.perspectives.risk.survey_view import FIGURES, figure_text, lookup
from engine.cli import main
from tests.app.conftest import ADULT
from tests.engine.conftest import adult_job_text

QIS = ["sex", "age", "race", "marital-status"]


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    folder = tmp_path_factory.mktemp("survey")
    for f in ADULT.glob("adult_hierarchy*.csv"):
        shutil.copy(f, folder / f.name)
    lines = (ADULT / "adult.csv").read_text(encoding="utf-8").splitlines()[:2001]
    rows = [lines[0] + ";w;hh"] + [f"{line};{20 + i % 9}.5;h{i // 3}"
                                   for i, line in enumerate(lines[1:])]
    (folder / "survey.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    job = adult_job_text(k=3, qis=QIS, data="survey.csv").replace(
        'encoding = "utf-8"\n', 'encoding = "utf-8"\nweight = "w"\nhousehold = "hh"\n', 1)
    (folder / "job.toml").write_text(job + '\n[attributes."hh"]\ntype = "insensitive"\n')
    return folder, engine.anonymize(None, folder / "job.toml")


def cli_summary(data, folder, name, *extra) -> dict:
    out = folder / f"{name}.json"
    assert main(["risk", str(data), "--quasi-identifiers", ",".join(QIS), "--weight", "w",
                 "--household", "hh", "--delimiter", ";", "--json", str(out), *extra]) == 0
    return json.loads(out.read_text())


def test_survey_tab_shows_what_anonymist_risk_writes(qtbot, window, survey, tmp_path):
    """The journey: a weighted survey's result in the window, Analyze risk > Survey
    measures with the weight and household chosen (kept in the project), the release
    exported and verified, and every figure shown equal to `anonymist risk`'s JSON of
    the input file and of the exported file."""
    from app.project_io import apply_snapshot, snapshot_from_job_file
    folder, result = survey
    view = window.perspectives["risk"]
    doc = window.document
    apply_snapshot(doc, snapshot_from_job_file(folder / "job.toml"), None)
    with qtbot.waitSignal(view.sides_changed, timeout=60_000):
        doc.set_result(result)
    tab = view.survey
    # the job's [data] weight and household are the tab's choice
    assert tab.choice() == {"weight": "w", "household": "hh", "method": "approx"}
    doc.set_modified(False)
    tab.choose(weight="w", household="hh", method="exact")
    # the weight and household are the job's [data] weight and household now
    assert doc.extras["survey"] == {"weight": "w", "household": "hh"}
    assert doc.extras["risk"]["survey_method"] == "exact"
    assert doc.modified
    job = doc.build_job()
    assert (job.weight, job.household) == ("w", "hh")
    with qtbot.waitSignal(tab.measured, timeout=60_000):
        view.tabs.setCurrentIndex(SURVEY)  # shown: it measures (small data)
        if not tab.job.running and tab.summaries[0] is None:
            tab.run()
    qtbot.waitUntil(lambda: not tab.job.running, timeout=60_000)
    # the release as the command line writes it, verified independently
    out = tmp_path / "out.csv"
    assert main(["anonymize", str(folder / "job.toml"), "--quiet", "--output", str(out)]) == 0
    assert main(["verify", str(out), str(folder / "job.toml")]) == 0
    expected = [cli_summary(folder / "survey.csv", tmp_path, "input", "--method", "exact"),
                cli_summary(out, tmp_path, "output", "--method", "exact")]
    for column, summary in enumerate(expected):
        shown = tab.shown_figures(column)
        for label, path in FIGURES:
            assert shown[label] == figure_text(lookup(summary, path)), (column, label)
        for row, q in enumerate(QIS):
            assert tab.contributions.item(row, column).text() == figure_text(
                summary["suda2"]["contributions"][q])
    # the release lowered the risk, and the household figures are there
    assert expected[1]["expected_reidentifications"] < \
        expected[0]["expected_reidentifications"]
    assert shown["Household: expected re-identifications"] != "–"
    # another choice clears the figures until measured again
    tab.choose(weight=None)
    assert tab.summaries == [None, None]
    assert doc.extras["survey"]["weight"] is None and doc.build_job().weight is None
    # a project's choice comes back with its result
    doc.extras["survey"] = {"weight": "w", "household": None}
    doc.extras["risk"] = {"survey_method": "approx"}
    with qtbot.waitSignal(view.sides_changed, timeout=60_000):
        doc.set_result(result)
    assert tab.choice() == {"weight": "w", "household": None, "method": "approx"}


def test_projects_and_job_files_keep_the_weight(survey, tmp_path):
    """A job file's [data] weight and household come into the app (extras) and go out
    again in a saved project's job and a saved job file."""
    from app.project_file import read_project, write_project
    from app.project_io import snapshot_from_job_file
    from engine.project.job_file import load_job
    folder, _result = survey
    snap = snapshot_from_job_file(folder / "job.toml")
    assert snap.extras["survey"] == {"weight": "w", "household": "hh"}
    path = tmp_path / "p.anonymist"
    write_project(snap, path, include_data=False)
    back = read_project(path)
    assert back.extras["survey"] == {"weight": "w", "household": "hh"}
    with zipfile.ZipFile(path) as z:  # the project's job names them
        job = tomllib.loads(z.read("job.toml").decode("utf-8"))
    assert (job["data"]["weight"], job["data"]["household"]) == ("w", "hh")
    assert load_job(folder / "job.toml").weight == "w"
