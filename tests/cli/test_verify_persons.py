"""`verify` counts people, not rows, with ``[data] person`` (issues 25 and 26): each
released row's person is the input's row's (the person column is never released), a
class satisfies k-anonymity with at least k distinct persons, and the l-diversity
family counts the persons holding each value (docs/reference/person-level-models.md)."""
from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from engine.cli import EXIT_OK, EXIT_VIOLATIONS

QIS = ["born", "sex", "zip"]


def _visits(folder, patients=60, seed=5):
    rnd = random.Random(seed)
    rows = []
    for p in range(patients):
        born, sex, zip_ = rnd.choice(range(1940, 1990)), rnd.choice("MF"), rnd.choice(
            ["10115", "10117", "20095", "20097"])
        for _ in range(rnd.randint(1, 4)):
            rows.append((f"P{p:03d}", str(born), sex, zip_, rnd.choice(["flu", "cold",
                                                                         "asthma"])))
    rnd.shuffle(rows)  # a patient's visits are not next to each other
    frame = pd.DataFrame(rows, columns=["patient_no", *QIS, "diagnosis"])
    frame.to_csv(folder / "visits.csv", sep=";", index=False)
    (folder / "born.csv").write_text("".join(
        f"{y};{y // 10 * 10}s;{'before 1960' if y < 1960 else '1960 or later'};*\n"
        for y in range(1940, 1990)))
    (folder / "sex.csv").write_text("M;*\nF;*\n")
    (folder / "zip.csv").write_text("10115;101**;*\n10117;101**;*\n20095;200**;*\n"
                                    "20097;200**;*\n")
    return frame


def _job(folder, k=3, extra=""):
    text = ['[data]\npath = "visits.csv"\ndelimiter = ";"\nperson = "patient_no"\n']
    for q in QIS:
        text.append(f'[attributes.{q}]\ntype = "quasi-identifying"\nhierarchy = "{q}.csv"\n')
    text.append('[attributes.diagnosis]\ntype = "sensitive"\n')
    text.append(f'[[privacy]]\nmodel = "k-anonymity"\nk = {k}\n{extra}')
    text.append('[transformation]\nsuppression_limit = 0.1\n')
    (folder / "job.toml").write_text("\n".join(text))
    return folder / "job.toml"


def _released(folder):
    return pd.read_csv(folder / "out.csv", sep=";", dtype=str, keep_default_na=False)


@pytest.fixture
def released(tmp_path, run):
    data = _visits(tmp_path)
    job = _job(tmp_path)
    r = run("anonymize", job, "--output", tmp_path / "out.csv", "--quiet")
    assert r.code == EXIT_OK, r.err
    return tmp_path, job, data


def test_the_release_verifies_per_person(released, run):
    folder, job, data = released
    out = _released(folder)
    assert "patient_no" not in out.columns
    r = run("verify", folder / "out.csv", job)
    assert r.code == EXIT_OK, r.err
    # the recount the test makes itself: persons per released class
    kept = out.assign(person=data["patient_no"])[~(out[QIS] == "*").all(axis=1)]
    assert kept.groupby(QIS)["person"].nunique().min() >= 3


def test_a_class_of_k_records_but_k_minus_1_persons_is_rejected(released, run):
    """Move the persons of one class, all but two, to another class: the class keeps
    at least 3 records of 2 persons. Counting rows it would pass."""
    folder, job, data = released
    out = _released(folder)
    person = data["patient_no"]
    kept = ~(out[QIS] == "*").all(axis=1)
    classes = out[kept].assign(person=person[kept]).groupby(QIS)
    target = None
    for key, group in classes:
        visits = group.groupby("person").size().sort_values(ascending=False)
        if len(visits) >= 3 and visits.iloc[:2].sum() >= 3:
            target, stay = key, set(visits.index[:2])
            break
    assert target is not None, "no class whose two busiest persons have 3 visits"
    other = next(key for key, _ in classes if key != target)
    in_target = (out[QIS] == list(target)).all(axis=1)
    moved = in_target & ~person.isin(stay)
    copy = out.copy()
    copy.loc[moved, QIS] = list(other)
    assert int(((copy[QIS] == list(target)).all(axis=1)).sum()) >= 3
    copy.to_csv(folder / "copy.csv", sep=";", index=False)
    r = run("verify", folder / "copy.csv", job)
    assert r.code == EXIT_VIOLATIONS
    assert "smallest class: 2 persons" in r.err


def test_l_diversity_counts_the_persons_holding_a_value(tmp_path, run):
    """Recursive (2,2)-diversity of one class: P1's three visits with a cold, P2 and P3
    with the flu. Counting rows (cold 3, flu 2: 3 < 2 x 2) it holds; counting persons
    (flu 2, cold 1: 2 < 2 x 1 fails) it does not. With P3 ill with asthma instead
    (one person each) it holds per person too."""
    _visits(tmp_path)  # the hierarchies
    rows = [("P1", "1950", "cold")] * 3 + [("P2", "1951", "flu"), ("P3", "1952", "flu")]
    pd.DataFrame([(p, b, "M", "10115", d) for p, b, d in rows],
                 columns=["patient_no", *QIS, "diagnosis"]).to_csv(
        tmp_path / "visits.csv", sep=";", index=False)
    job = _job(tmp_path, k=1, extra='[[privacy]]\nmodel = "recursive-cl-diversity"\n'
                                    'attribute = "diagnosis"\nl = 2\nc = 2.0\n')
    release = pd.DataFrame({"born": ["1950s"] * 5, "sex": ["M"] * 5, "zip": ["101**"] * 5,
                            "diagnosis": [d for _, _, d in rows]})
    release.to_csv(tmp_path / "rows.csv", sep=";", index=False)
    r = run("verify", tmp_path / "rows.csv", job)
    assert r.code == EXIT_VIOLATIONS and "recursive" in r.err
    release.loc[4, "diagnosis"] = "asthma"
    data = pd.read_csv(tmp_path / "visits.csv", sep=";", dtype=str)
    data.loc[4, "diagnosis"] = "asthma"
    data.to_csv(tmp_path / "visits.csv", sep=";", index=False)
    release.to_csv(tmp_path / "persons.csv", sep=";", index=False)
    r = run("verify", tmp_path / "persons.csv", job)
    assert r.code == EXIT_OK, r.err


def test_removed_values_are_restored_per_person(tmp_path):
    """remove_suppressed_values blanks the suppressed records' amounts; the table's
    person distribution takes them back from the input (50 for P3 and P4), not the
    blanks: class A (10 and 90) is 0.25 from it in numeric order, 0.375 from a table
    whose 50s read as blanks (ordered last)."""
    from engine.project.job_file import job_from_dict
    from engine.verify import verify_frame
    pd.DataFrame({"pid": ["P1", "P2", "P3", "P4"], "g": ["A", "A", "B", "B"],
                  "amount": ["10", "90", "50", "50"]}).to_csv(tmp_path / "in.csv", sep=";",
                                                              index=False)
    (tmp_path / "g.csv").write_text("A;*\nB;*\n")

    def job(t):
        return job_from_dict({
            "data": {"path": "in.csv", "delimiter": ";", "person": "pid"},
            "attributes": {"g": {"type": "quasi-identifying", "hierarchy": "g.csv"},
                           "amount": {"type": "sensitive"}},
            "privacy": [{"model": "t-closeness", "attribute": "amount", "t": t,
                         "distance": "ordered"}],
            "transformation": {"suppression_limit": 0.5,
                               "remove_suppressed_values": True}}, tmp_path)

    release = pd.DataFrame({"g": ["A", "A", "*", "*"], "amount": ["10", "90", "", ""]})
    report = verify_frame(release, job(0.3))
    assert report.ok, report.violations
    strict = job(0.24)
    assert "at distance 0.2500" in verify_frame(release, strict).violations[0]


def test_k_map_of_a_subset_counts_the_population_in_persons(tmp_path, run):
    """k-map without an estimator with persons: the release is the subset's rows, each
    class standing for at least k persons of the whole table (counted on the input)."""
    data = _visits(tmp_path, patients=80)
    (tmp_path / "rows.txt").write_text("\n".join(map(str, range(0, len(data), 2))) + "\n")
    job = _job(tmp_path, k=2, extra='[[privacy]]\nmodel = "k-map"\nk = 4\n'
                                    '[subset]\nrows = "rows.txt"\n')
    assert run("anonymize", job, "--output", tmp_path / "out.csv", "--quiet").code == EXIT_OK
    out = _released(tmp_path)
    assert len(out) == len(range(0, len(data), 2))
    r = run("verify", tmp_path / "out.csv", job)
    assert r.code == EXIT_OK, r.err
    # the test's own recount: persons of the whole input per released class, the input
    # generalized by the hierarchy files at the levels the release shows
    levels = json.loads(r.out)["levels"]
    general = data[QIS].copy()
    for q in QIS:
        rows = [line.split(";") for line in (tmp_path / f"{q}.csv").read_text().splitlines()]
        general[q] = data[q].map({row[0]: row[levels[q]] for row in rows})
    kept = out[~(out[QIS] == "*").all(axis=1)]
    for key in kept.drop_duplicates(QIS)[QIS].itertuples(index=False):
        persons = data.loc[(general == list(key)).all(axis=1), "patient_no"].nunique()
        assert persons >= 4, (key, persons)
