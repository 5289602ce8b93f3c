"""`verify` counts people, not rows, with ``[data] person`` (issues 25 and 26): each
released row's person is the input's row's (the person column is never released), a
class satisfies k-anonymity with at least k distinct persons, and the l-diversity
family counts the persons holding each value (docs/reference/person-level-models.md)."""
from __future__ import annotations

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
