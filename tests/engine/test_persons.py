"""``[data] person``: the person column's declaration and its bad input."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.config import IDENTIFYING
from engine.errors import AnonymistError, DataError, JobError
from engine.problem import Problem
from engine.project.job_file import job_from_dict, job_to_dict
from engine.data.table import EncodedTable


def _job(person="patient", **attrs) -> dict:
    attributes = {"sex": {"type": "quasi-identifying", "transformation": "suppression"},
                  "diagnosis": {"type": "sensitive"}}
    attributes.update(attrs)
    return {"data": {"person": person}, "attributes": attributes,
            "privacy": [{"model": "k-anonymity", "k": 2}]}


def _table(patients=("p1", "p1", "p2", "p3")) -> EncodedTable:
    n = len(patients)
    return EncodedTable.from_dataframe(pd.DataFrame({
        "patient": list(patients), "sex": ["f", "f", "m", "m"][:n] * (n // 4 or 1),
        "diagnosis": ["a", "b", "a", "c"][:n] * (n // 4 or 1)}).astype("category"))


def test_person_is_declared_once_and_identifying():
    job = job_from_dict(_job())
    assert job.person == "patient"
    # not named among the attributes: identifying all the same (never released)
    assert job.attributes["patient"].type == IDENTIFYING
    assert job_to_dict(job)["data"]["person"] == "patient"
    assert job_from_dict(_job(person=None) | {"data": {}}).person is None


@pytest.mark.parametrize("role", ["quasi-identifying", "sensitive", "insensitive"])
def test_a_person_column_with_another_role_is_refused(role):
    with pytest.raises(JobError, match=r"\[data\] person = 'patient'.*" + role):
        job_from_dict(_job(patient={"type": role}))


def test_a_person_column_released_as_pseudonym_is_refused():
    with pytest.raises(AnonymistError, match=r"\[data\] person"):
        job_from_dict(_job(patient={"type": "identifying", "pseudonymize": "mask"}))


def test_a_person_column_the_data_lacks_is_refused():
    job = job_from_dict(_job(person="patient_no"))
    with pytest.raises(JobError, match=r"\[data\] person = 'patient_no' is not a column"):
        Problem(_table(), job)


def test_empty_person_values_are_refused_with_their_row():
    job = job_from_dict(_job())
    with pytest.raises(DataError, match=r"\[data\] person = 'patient' is empty in 1 row.*"
                                        r"row 3"):
        Problem(_table(("p1", "p1", " ", "p3")), job)


def test_a_person_key_of_the_wrong_kind_is_refused():
    with pytest.raises(JobError, match="person"):
        job_from_dict(_job(person=3))


# --- people, not rows: releases recounted from the exported file ----------------------
# The recounts below read the exported CSV and the input with plain pandas (rows are
# aligned by position; suppressed rows are in the file with their quasi-identifiers
# replaced by '*'), sharing no code with the engine.
import json  # noqa: E402

from engine.cli import main  # noqa: E402
from tests import person_data  # noqa: E402

QIS = list(person_data.QIS)


@pytest.fixture(scope="module")
def visits_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("visits")
    person_data.write_visits(folder)
    return folder


def _release(folder, name, *args, **job):
    (folder / f"{name}.toml").write_text(person_data.job_text(**job), encoding="utf-8")
    out, res = folder / f"{name}.csv", folder / f"{name}.json"
    code = main(["anonymize", str(folder / f"{name}.toml"), "--output", str(out),
                 "--result", str(res), "--quiet", *args])
    assert code == 0
    return pd.read_csv(out, sep=";", dtype=str, keep_default_na=False), json.loads(
        res.read_text())


def _classes(folder, released):
    """The input's patients beside the released quasi-identifiers, suppressed rows
    apart."""
    data = pd.read_csv(folder / "visits.csv", sep=";", dtype=str, keep_default_na=False)
    assert len(data) == len(released)
    suppressed = (released[QIS] == "*").all(axis=1).to_numpy()
    frame = released[QIS].assign(patient=data["patient_no"].to_numpy(),
                                 diagnosis=data["diagnosis"].to_numpy())
    return frame[~suppressed], frame[suppressed]


def test_every_released_class_holds_k_patients(visits_dir):
    released, result = _release(visits_dir, "persons", person="patient_no", k=3)
    assert "patient_no" not in released.columns  # the person column is never released
    kept, suppressed = _classes(visits_dir, released)
    groups = kept.groupby(QIS)
    assert groups["patient"].nunique().min() >= 3
    # the suppression limit stays in records; the result says which persons it hit
    assert len(suppressed) == result["suppressed_records"] <= int(0.05 * len(released))
    assert result["person"] == {"column": "patient_no", "persons": _patients(visits_dir),
                                "suppressed_persons": int(suppressed["patient"].nunique())}


def _patients(folder) -> int:
    data = pd.read_csv(folder / "visits.csv", sep=";", dtype=str, keep_default_na=False)
    return int(data["patient_no"].nunique())


def test_records_are_not_persons(visits_dir):
    """k counted in records lets one patient's visits hide among themselves: the same
    job without ``person`` releases classes of k visits but fewer than k patients."""
    released, _ = _release(visits_dir, "records", person=None, k=3)
    kept, _ = _classes(visits_dir, released)
    groups = kept.groupby(QIS)
    assert groups.size().min() >= 3  # record-k holds
    few = groups["patient"].nunique() < 3
    assert few.any()  # ... person-k does not
    # and the person-level release of the same data has none (above)


def test_distinct_l_diversity_and_average_risk_per_person(visits_dir):
    extra = ('[[privacy]]\nmodel = "distinct-l-diversity"\nattribute = "diagnosis"\nl = 2\n'
             '[[privacy]]\nmodel = "average-risk"\nthreshold = 0.1\n')
    released, _ = _release(visits_dir, "ldiv", person="patient_no", k=2, limit=0.1,
                           extra=extra)
    kept, _ = _classes(visits_dir, released)
    groups = kept.groupby(QIS)
    assert groups["patient"].nunique().min() >= 2
    assert groups["diagnosis"].nunique().min() >= 2
    persons = groups["patient"].nunique()
    # the average risk per person: each person's membership of a class risks 1/persons
    assert len(persons) / persons.sum() <= 0.1 + 1e-12


def test_the_duckdb_release_is_the_in_memory_one(visits_dir):
    pytest.importorskip("duckdb")
    memory, result = _release(visits_dir, "mem", person="patient_no", k=4)
    duck, duck_result = _release(visits_dir, "duck", person="patient_no", k=4,
                                 backend="duckdb")
    assert duck_result["optimum"]["levels"] == result["optimum"]["levels"]
    assert duck_result["person"] == result["person"]
    pd.testing.assert_frame_equal(memory, duck)
    kept, _ = _classes(visits_dir, duck)
    assert kept.groupby(QIS)["patient"].nunique().min() >= 4


def test_evaluate_reports_persons(visits_dir, capsys):
    (visits_dir / "ev.toml").write_text(person_data.job_text(k=3), encoding="utf-8")
    capsys.readouterr()
    assert main(["evaluate", str(visits_dir / "ev.toml"), "--levels",
                 "age=0,sex=0,zip=0"]) == 0
    ev = json.loads(capsys.readouterr().out)
    assert ev["state"] == "not-anonymous"
    data = pd.read_csv(visits_dir / "visits.csv", sep=";", dtype=str, keep_default_na=False)
    persons = data.groupby(QIS)["patient_no"].transform("nunique")
    small = persons < 3
    assert ev["suppressed_records"] == int(small.sum())
    assert ev["person"]["suppressed_persons"] == data.loc[small, "patient_no"].nunique()


# --- the classes' person counts against a plain recount --------------------------------
@pytest.mark.parametrize("coarse", [False, True])
def test_person_counts_per_class_match_a_recount(visits_dir, tmp_path, coarse):
    """At random transformations (rolled up from whatever snapshot is cached), the
    classes' persons and persons per sensitive value equal a pandas recount. ``coarse``:
    few distinct quasi-identifiers, so that many patients spread over the same
    combinations (their keys are shared, weighing as many)."""
    from engine.privacy.base import PERSONS, class_sizes
    from engine.project.job_file import load_job
    from engine.api import prepare
    from engine.privacy.sensitive import sensitive_key

    folder = visits_dir
    if coarse:
        frame = person_data.visits(patients=800, seed=5)
        frame["age"] = (20 + frame["age"].astype(int) % 4).astype(str)
        frame["zip"] = frame["zip"].map({z: ("10000", "10007", "10014")[i % 3] for i, z in
                                         enumerate(sorted(frame["zip"].unique()))})
        folder = tmp_path
        person_data.write_visits(folder, frame)
    (folder / "counts.toml").write_text(person_data.job_text(extra=(
        '[[privacy]]\nmodel = "entropy-l-diversity"\nattribute = "diagnosis"\nl = 1.5\n')),
        encoding="utf-8")
    problem = prepare(None, load_job(folder / "counts.toml"))
    if coarse:  # keys do stand for several pairs
        persons = problem.classifier.base.aggregates[PERSONS]
        assert persons.key_weight.max() > 1 and len(persons.key_weight) > 10
    data = pd.read_csv(folder / "visits.csv", sep=";", dtype=str, keep_default_na=False)
    rng = np.random.default_rng(3)
    lattice = problem.lattice
    for _ in range(12):  # classes rolled up from cached snapshots in any order
        levels = [int(rng.integers(lo, hi + 1))
                  for lo, hi in zip(lattice.min_levels, lattice.max_levels)]
        problem.classifier.classify(levels)
        classes = problem.classifier.classify(levels)
        _, row_class = problem.classifier.classify_rows(levels)
        assert PERSONS in classes.aggregates
        frame = data.assign(c=row_class)
        expected = frame.groupby("c")["patient_no"].nunique()
        np.testing.assert_array_equal(class_sizes(classes)[expected.index], expected.values)
        # the sensitive values: per class, the distinct persons holding each
        dist = classes.aggregates[sensitive_key("diagnosis")].by_value().dense()
        pairs = frame.drop_duplicates(["c", "patient_no", "diagnosis"])
        codes = {v: i for i, v in enumerate(problem.table.column("diagnosis").dictionary)}
        want = np.zeros_like(dist)
        np.add.at(want, (pairs["c"].to_numpy(), pairs["diagnosis"].map(codes).to_numpy()), 1)
        np.testing.assert_array_equal(dist, want)


# --- the guide proposes the person column ------------------------------------------------
def test_the_guide_proposes_the_column_that_repeats_with_constant_qis():
    from engine.guide.proposals import propose_roles
    from engine.persons import ROLE
    frame = person_data.visits(patients=300)
    proposals = {p.attribute: p for p in propose_roles(
        EncodedTable.from_dataframe(frame.astype("category")))}
    assert proposals["patient_no"].type == ROLE
    assert "quasi-identifiers stay the same" in proposals["patient_no"].reason
    assert sum(p.type == ROLE for p in proposals.values()) == 1
    # a column that repeats while the quasi-identifiers change within its values (a
    # ward, a doctor) identifies no person
    rng = np.random.default_rng(0)
    ward = frame.assign(patient_no=[f"W{i}" for i in rng.integers(0, 40, len(frame))])
    proposals = propose_roles(EncodedTable.from_dataframe(ward.astype("category")))
    assert all(p.type != ROLE for p in proposals)


def test_no_person_is_proposed_on_adult():
    from tests.shared_data import SHARED
    from engine.guide.proposals import propose_roles
    from engine.persons import ROLE
    adult = pd.read_csv(SHARED / "data" / "adult" / "adult.csv", sep=";", dtype=str,
                        keep_default_na=False)
    assert all(p.type != ROLE for p in propose_roles(
        EncodedTable.from_dataframe(adult.astype("category"))))


def test_the_report_counts_persons(visits_dir):
    """The release report: persons affected by suppression, and the risk per person
    (the highest risk is 1 / the fewest persons of a released class)."""
    from pypdf import PdfReader
    (visits_dir / "report.toml").write_text(person_data.job_text(k=3), encoding="utf-8")
    out, pdf = visits_dir / "report.csv", visits_dir / "report.pdf"
    assert main(["anonymize", str(visits_dir / "report.toml"), "--quiet", "--output",
                 str(out), "--report", str(pdf)]) == 0
    report = json.loads((visits_dir / "report.json").read_text())
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    kept, suppressed = _classes(visits_dir, released)
    persons = kept.groupby(QIS)["patient"].nunique()
    assert report["output"]["person"] == {
        "column": "patient_no", "persons": _patients(visits_dir),
        "suppressed_persons": int(suppressed["patient"].nunique())}
    after = report["risk"]["after"]["prosecutor"]
    assert after["highest_risk"] == pytest.approx(1 / persons.min())
    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "persons affected" in text and "counted by 'patient_no'" in text


def test_one_row_per_person_releases_what_records_release(visits_dir):
    """When no person has two rows, persons are records: the same release as without
    ``person`` (and the models count records, at no cost)."""
    data = pd.read_csv(visits_dir / "visits.csv", sep=";", dtype=str, keep_default_na=False)
    folder = visits_dir / "one"
    person_data.write_visits(folder, data.drop_duplicates("patient_no"))
    extra = '[[privacy]]\nmodel = "entropy-l-diversity"\nattribute = "diagnosis"\nl = 1.5\n'
    with_person, result = _release(folder, "p", person="patient_no", k=3, extra=extra)
    without, plain = _release(folder, "r", person=None, k=3, extra=extra)
    assert result["optimum"] == plain["optimum"]
    pd.testing.assert_frame_equal(with_person, without)
    assert result["person"]["suppressed_persons"] == result["suppressed_records"]


# --- the search with models whose person-level figures are not monotonic ---------------
MODEL_SETS = {
    "entropy": '[[privacy]]\nmodel = "entropy-l-diversity"\nattribute = "diagnosis"\n'
               'l = 2.5\n',
    "closeness": '[[privacy]]\nmodel = "t-closeness"\nattribute = "diagnosis"\nt = 0.2\n',
    "risk": '[[privacy]]\nmodel = "average-risk"\nthreshold = 0.15\n'
            '[[privacy]]\nmodel = "sample-uniqueness"\nthreshold = 0.01\n',
}


def _person_distributions(kept):
    """Per released class: the persons holding each diagnosis (each person once per
    value they hold there), as shares of their sum."""
    pairs = kept.drop_duplicates(QIS + ["patient", "diagnosis"])
    counts = pairs.groupby(QIS + ["diagnosis"]).size()
    return counts / counts.groupby(level=list(range(len(QIS)))).transform("sum")


@pytest.mark.parametrize("models", list(MODEL_SETS))
def test_the_optimal_search_finds_the_exhaustive_optimum_per_person(tmp_path, models):
    """Counting persons, entropy, closeness and the risk figures may move either way when
    classes that share persons merge: the optimal search must not prune on them, and
    finds the optimum the exhaustive search finds; the release is recounted per person."""
    person_data.write_visits(tmp_path, person_data.visits(patients=400, seed=11))
    got = {}
    for algorithm in ("optimal", "exhaustive"):
        text = person_data.job_text(k=2, limit=0.1, extra=MODEL_SETS[models],
                                    algorithm=algorithm)
        (tmp_path / f"{algorithm}.toml").write_text(text, encoding="utf-8")
        out, res = tmp_path / f"{algorithm}.csv", tmp_path / f"{algorithm}.json"
        assert main(["anonymize", str(tmp_path / f"{algorithm}.toml"), "--quiet", "--output",
                     str(out), "--result", str(res)]) == 0
        got[algorithm] = (json.loads(res.read_text()),
                          pd.read_csv(out, sep=";", dtype=str, keep_default_na=False))
    (opt, released), (full, _) = got["optimal"], got["exhaustive"]
    assert opt["optimum"]["information_loss"] == pytest.approx(
        full["optimum"]["information_loss"])
    kept, _ = _classes(tmp_path, released)
    persons = kept.groupby(QIS)["patient"].nunique()
    assert persons.min() >= 2
    share = _person_distributions(kept)
    if models == "entropy":
        entropy = -(share * np.log(share)).groupby(level=list(range(len(QIS)))).sum()
        assert entropy.min() >= np.log(2.5) - 1e-9
    elif models == "closeness":
        data = pd.read_csv(tmp_path / "visits.csv", sep=";", dtype=str,
                           keep_default_na=False)
        overall = data.drop_duplicates(["patient_no", "diagnosis"])["diagnosis"] \
            .value_counts(normalize=True)
        for _, q in share.groupby(level=list(range(len(QIS)))):
            q = q.droplevel(list(range(len(QIS)))).reindex(overall.index, fill_value=0.0)
            assert 0.5 * (q - overall).abs().sum() <= 0.2 + 1e-9
    else:
        assert len(persons) / persons.sum() <= 0.15 + 1e-12
        assert (persons == 1).sum() / persons.sum() <= 0.01 + 1e-12


# --- bad input through the command line: exit 2, the key named, nothing written --------
@pytest.mark.parametrize("case", ["missing", "quasi-identifier", "empty", "model", "cells"])
def test_bad_person_input_writes_nothing(tmp_path, capsys, case):
    frame = person_data.visits(patients=60)
    if case == "empty":
        frame.loc[7, "patient_no"] = ""
    person_data.write_visits(tmp_path, frame)
    text = person_data.job_text(person="patient" if case == "missing" else "patient_no")
    if case == "quasi-identifier":
        text = text.replace('[attributes."patient_no"]\ntype = "identifying"',
                            '[attributes."patient_no"]\ntype = "quasi-identifying"')
    if case == "model":
        text += ('[[privacy]]\nmodel = "differential-privacy"\nepsilon = 2.0\n'
                 'delta = 1e-6\n')
    if case == "cells":
        text = text.replace("[transformation]\n", '[transformation]\nsuppression = "cells"\n')
    (tmp_path / "job.toml").write_text(text, encoding="utf-8")
    out, res = tmp_path / "out.csv", tmp_path / "result.json"
    capsys.readouterr()
    code = main(["anonymize", str(tmp_path / "job.toml"), "--quiet", "--output", str(out),
                 "--result", str(res)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "[data] person" in err and "Traceback" not in err
    assert {"missing": "is not a column", "quasi-identifier": "quasi-identifying",
            "empty": "is empty in 1 row(s), first data row 8",
            "model": "differential-privacy", "cells": "\"cells\""}[case] in err
    assert not out.exists() and not res.exists()


@pytest.mark.slow
def test_the_spark_release_is_the_in_memory_one(visits_dir):
    pytest.importorskip("pyspark")
    import shutil
    if shutil.which("java") is None:
        pytest.skip("Java is not on the PATH: Spark needs Java 17")
    _release(visits_dir, "mem3", person="patient_no", k=3)
    result = json.loads((visits_dir / "mem3.json").read_text())
    (visits_dir / "spark3.toml").write_text(person_data.job_text(k=3, backend="spark"),
                                            encoding="utf-8")
    out, res = visits_dir / "spark3.csv", visits_dir / "spark3.json"
    assert main(["anonymize", str(visits_dir / "spark3.toml"), "--output", str(out),
                 "--result", str(res), "--quiet"]) == 0
    spark = json.loads(res.read_text())
    assert spark["optimum"]["levels"] == result["optimum"]["levels"]
    assert spark["person"] == result["person"]
    parts = sorted(out.glob("part-*.csv"))  # Spark's folder of parts, in order
    header, *rest = [p.read_bytes() for p in parts]
    body = header + b"".join(p.split(b"\n", 1)[1] for p in rest)
    assert body == (visits_dir / "mem3.csv").read_bytes()
