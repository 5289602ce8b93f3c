"""Journeys through the guided release wizard, ending in `anonymist verify` on the
released file and a cell-for-cell comparison with the released transformation."""
from __future__ import annotations

import shutil

import pandas as pd
import pytest
from PySide6.QtWidgets import QWizard

from app.wizards.guided.common import (ATTRIBUTES_PAGE, DATA_PAGE, GOAL_PAGE, HIERARCHIES_PAGE,
                                       RELEASE_PAGE, RESULT_PAGE, RUN_PAGE)
from engine.cli import main as cli
from tests.engine.test_guide import people

WAIT = 600_000  # a hang guard only: the journeys take seconds on a quiet machine


def _next(wiz, qtbot, expected: int) -> None:
    qtbot.waitUntil(lambda: wiz.currentPage().isComplete(), timeout=WAIT)
    assert wiz.button(QWizard.WizardButton.NextButton).isEnabled()
    wiz.next()
    assert wiz.currentId() == expected


def _release(window, qtbot, path, out, goal="agreement", pick_alternative=False,
             report=True):
    """Go through every step accepting the proposals; returns (wizard, clicks)."""
    wiz = window.guided_release(str(path))
    clicks = 0
    assert wiz.currentId() == DATA_PAGE
    _next(wiz, qtbot, ATTRIBUTES_PAGE)
    clicks += 1
    attrs = wiz.currentPage()
    qtbot.waitUntil(lambda: attrs.table.rowCount() == len(window.document.table.names),
                    timeout=WAIT)
    # nothing is released without an explicit choice
    assert not attrs.isComplete()
    assert not wiz.button(QWizard.WizardButton.NextButton).isEnabled()
    attrs.accept_all.click()
    clicks += 1
    _next(wiz, qtbot, HIERARCHIES_PAGE)
    clicks += 1
    _next(wiz, qtbot, GOAL_PAGE)
    clicks += 1
    goal_page = wiz.currentPage()
    if goal != "agreement":
        goal_page.select(goal)
        clicks += 1
    _next(wiz, qtbot, RUN_PAGE)
    clicks += 1
    _next(wiz, qtbot, RESULT_PAGE)
    clicks += 1
    result_page = wiz.currentPage()
    qtbot.waitUntil(lambda: result_page._data is not None, timeout=WAIT)
    if pick_alternative:
        buttons = [result_page.alternatives_box.itemAt(i).widget()
                   for i in range(result_page.alternatives_box.count())]
        assert buttons, "an alternative keeping some attribute finer"
        result_page._data = None
        buttons[0].click()
        clicks += 1
        qtbot.waitUntil(lambda: result_page._data is not None, timeout=WAIT)
        assert window.document.applied_levels is not None
    _next(wiz, qtbot, RELEASE_PAGE)
    clicks += 1
    release = wiz.currentPage()
    release.folder.setText(str(out))
    release.with_report.setChecked(report)
    release.release_button.click()
    clicks += 1
    qtbot.waitUntil(release.isComplete, timeout=WAIT)
    return wiz, clicks


def _check_release(window, out, stem):
    """share/ holds the table (and the public report), internal/ the job: `anonymist
    verify` accepts the shared table under the internal job."""
    data, job = out / "share" / f"{stem}-anonymized.csv", out / "internal" / f"{stem}-job.toml"
    assert cli(["verify", str(data), str(job)]) == 0
    written = pd.read_csv(data, sep=";", dtype=str, keep_default_na=False)
    doc = window.document
    levels = doc.applied_levels or tuple(doc.result.optimum.levels[q]
                                         for q in doc.result.problem.qis)
    shown = doc.result.transformed(levels).frame.astype(str)
    pd.testing.assert_frame_equal(written, shown.reset_index(drop=True), check_dtype=False)
    return written


def test_guided_release_of_adult(window, qtbot, tmp_path, adult_dir):
    shutil.copy(adult_dir / "adult.csv", tmp_path / "adult.csv")
    out = tmp_path / "release"
    wiz, clicks = _release(window, qtbot, tmp_path / "adult.csv", out, pick_alternative=True)
    written = _check_release(window, out, "adult")
    assert len(written) == 30_162
    assert clicks <= 10
    share, internal = out / "share", out / "internal"
    assert sorted(p.name for p in share.iterdir()) == [
        "README.txt", "adult-anonymized.csv", "adult-report.json", "adult-report.pdf"]
    assert sorted(p.name for p in internal.iterdir()) == [
        "README.txt", "adult-hierarchies", "adult-job.toml", "adult-mapping",
        "adult-report-full.json", "adult-report-full.pdf"]
    assert (share / "README.txt").read_text().startswith("SHARE")
    assert (internal / "README.txt").read_text().startswith("INTERNAL")
    assert (internal / "adult-mapping" / "age.csv").exists()
    assert [a.kind for a in wiz.currentPage().artefacts] == [
        "data", "job", "mapping", "report", "public report"]
    assert all(a.verified for a in wiz.currentPage().artefacts)
    # the shared report certifies the shared table, the internal job and its hierarchies
    assert cli(["verify", str(share / "adult-anonymized.csv"), str(internal / "adult-job.toml"),
                "--report", str(share / "adult-report.json")]) == 0
    # before / after drawn in Analyze utility's input / output colours, not green
    from app.perspectives.utility.charts import INPUT_COLOR, OUTPUT_COLOR
    result_page = wiz.page(RESULT_PAGE)
    assert (result_page.before.color, result_page.after.color) == (INPUT_COLOR, OUTPUT_COLOR)
    n = window.document.current_transformation().suppressed_records
    assert f"({100 * n / 30_162:.1f} %) suppressed" in result_page.headline.text()
    # the same job is in the perspectives: k-anonymity with k = 5
    assert window.document.settings.privacy == [{"model": "k-anonymity", "k": 5}]


def test_guided_release_of_a_register_removes_identifiers(window, qtbot, tmp_path):
    people().to_csv(tmp_path / "register.csv", sep=";", index=False)
    out = tmp_path / "release"
    _release(window, qtbot, tmp_path / "register.csv", out, goal="public", report=False)
    written = _check_release(window, out, "register")
    assert "name" not in written.columns and "email" not in written.columns
    assert set(written.columns) == {"zip", "birth_date", "sex", "diagnosis", "visits"}
    # public release: 11-anonymity and distinct 2-diversity of the diagnosis
    sizes = written[written["sex"] != "*"].groupby(["zip", "birth_date", "sex", "visits"]).size()
    assert sizes.min() >= 11
    diverse = written[written["sex"] != "*"].groupby(
        ["zip", "birth_date", "sex", "visits"])["diagnosis"].nunique()
    assert diverse.min() >= 2


def test_guided_release_with_a_population(window, qtbot, tmp_path):
    """The research-partner goal sets k-map with a population model; the release
    verifies against the job written beside it (which keeps the [population])."""
    people().to_csv(tmp_path / "register.csv", sep=";", index=False)
    out = tmp_path / "release"
    _release(window, qtbot, tmp_path / "register.csv", out, goal="partner", report=False)
    _check_release(window, out, "register")
    assert window.document.settings.population == {"region": "USA"}
    assert "[population]" in (out / "internal" / "register-job.toml").read_text()


@pytest.mark.parametrize("confirm", [False, True])
def test_unconfirmed_columns_block_the_release(window, qtbot, tmp_path, confirm):
    people(60).to_csv(tmp_path / "register.csv", sep=";", index=False)
    wiz = window.guided_release(str(tmp_path / "register.csv"))
    _next(wiz, qtbot, ATTRIBUTES_PAGE)
    attrs = wiz.currentPage()
    qtbot.waitUntil(lambda: attrs.table.rowCount() == 7, timeout=WAIT)
    for row in range(6):  # all but the last confirmed
        attrs._changed(row)
    assert not attrs.isComplete()
    assert "1 column still to confirm" in attrs.status.text()
    if confirm:
        attrs._changed(6)
        assert attrs.isComplete()


def test_risk_sentences_never_round_a_risk_to_zero():
    """The wizard's risk sentences write shares as Analyze risk does ("0.4 %", not "0%"
    for records still at risk)."""
    from types import SimpleNamespace as NS

    from app.wizards.guided.goal_page import risk_text
    from app.wizards.guided.result_page import risk_change_text
    before = NS(prosecutor=NS(highest_risk=1.0, records_at_risk=0.7781), average_risk=0.6466,
                sample_uniques=0.5143, marketer=0.6466)
    after = NS(prosecutor=NS(highest_risk=0.2, records_at_risk=0.004), average_risk=0.0128)
    text = risk_change_text(before, after)
    assert "highest 100.0 % before, 20.0 % after" in text
    assert "77.8 % before, 0.4 % after" in text and "average 64.7 % before, 1.3 % after" in text
    after = NS(prosecutor=NS(highest_risk=0.2, records_at_risk=0.0), average_risk=0.0128)
    assert "0 % after;" in risk_change_text(before, after)
    assert risk_text(before).startswith("Today, 51.4 % of the records are unique")


def test_guided_release_of_visits_counts_patients(window, qtbot, tmp_path):
    """Visits of patients: the guide proposes the patient number as the person column
    (it repeats while the quasi-identifiers stay the same); accepted, every released
    class holds k patients, recounted from the file and the input."""
    from app.person_role import ROLE, person_of
    from tests import person_data
    person_data.write_visits(tmp_path, person_data.visits(patients=600))
    out = tmp_path / "release"
    wiz, _ = _release(window, qtbot, tmp_path / "visits.csv", out, report=False)
    attrs = wiz.page(ATTRIBUTES_PAGE)
    assert attrs.proposals["patient_no"].type == ROLE
    assert person_of(window.document) == "patient_no"
    written = _check_release(window, out, "visits")
    assert "patient_no" not in written.columns
    assert 'person = "patient_no"' in (out / "internal" / "visits-job.toml").read_text()
    k = next(p["k"] for p in window.document.settings.privacy if p["model"] == "k-anonymity")
    source = pd.read_csv(tmp_path / "visits.csv", sep=";", dtype=str, keep_default_na=False)
    qis = [q for q in ("age", "sex", "zip") if q in written.columns]
    suppressed = (written[qis] == "*").all(axis=1).to_numpy()
    kept = written[qis][~suppressed].assign(patient=source["patient_no"][~suppressed].values)
    persons = kept.groupby(qis)["patient"].nunique()
    assert persons.min() >= k
    # the result page's risk sentence is per patient: 1 / the fewest patients of a class
    from app.wizards.guided.goal_page import share
    assert f"{share(1 / persons.min())} after" in wiz.page(RESULT_PAGE).risk.text()
