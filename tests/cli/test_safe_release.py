"""Issue 25's check from outside, on a table of its shape: visits of patients (visit
number, patient number, name, birth date, sex, ZIP, diagnosis, free-text notes that name
the patients and hold their phones, e-mails and IBANs), the patient number and name
identifying, the birth date, sex and ZIP quasi-identifying, 3-anonymity.

- without ``scrub`` the release is refused: non-zero exit, no output file, the message
  names ``notes``;
- with ``[data] person = "patient_no"`` and ``[attributes."notes"] scrub = true`` it
  exits 0; no patient name, phone, e-mail or IBAN is left in any cell; every released
  class holds at least k distinct patients (recounted here with pandas from the file and
  the input, aligned by position); ``verify`` accepts it, and rejects a copy in which
  one class keeps k or more records but only k-1 patients.
"""
from __future__ import annotations

import re

import pandas as pd
import pytest

from tests.clinical_data import clinical, job_text

K = 3
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[0-9A-Z]{4}){3,7}")
PHONE = re.compile(r"(?:\+\d[\d ]{7,}\d|\(\d{3}\) ?\d{3}-\d{4}|\b\d{3}-\d{3}-\d{4}\b)")


def _job(folder, notes_keys: str, person: bool) -> str:
    """The issue's job: birth date, sex and ZIP quasi-identifying, the diagnosis
    sensitive, the patient number and name identifying, k = 3."""
    return job_text(folder / "clinical.csv", k=K, notes=notes_keys, person=person,
                    birth_date_qi=True, diagnosis="sensitive")


@pytest.fixture(scope="module")
def visits(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clinic")
    table = clinical(patients=600, seed=25)
    table.write(folder)
    return folder, table


def test_refused_without_scrub(visits, run, tmp_path):
    folder, _ = visits
    job = folder / "plain.toml"
    job.write_text(_job(folder, "", person=True), encoding="utf-8")
    out = tmp_path / "out.csv"
    r = run("anonymize", job, "--output", out, "--quiet")
    assert r.code != 0
    assert not out.exists()
    assert "notes" in r.err


def test_released_per_patient_and_scrubbed(visits, run, tmp_path):
    folder, table = visits
    job = folder / "safe.toml"
    job.write_text(_job(folder, "scrub = true", person=True), encoding="utf-8")
    out = tmp_path / "out.csv"
    r = run("anonymize", job, "--output", out, "--quiet")
    assert r.code == 0, r.err
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    assert "patient_no" not in released.columns and "name" not in released.columns
    # no patient name, phone, e-mail or IBAN in any cell
    words = re.compile(r"[A-Za-z]+")
    surnames = {n.split()[-1].lower() for n in table.names}
    for column in released.columns:
        for cell in released[column]:
            assert not EMAIL.search(cell) and not IBAN.search(cell) and not PHONE.search(cell)
            assert not surnames & {w.lower() for w in words.findall(cell)}, cell
    for value in table.phones + table.emails + table.ibans + table.names:
        assert not released["notes"].str.contains(value, regex=False).any(), value
    # every released class holds at least k distinct patients (aligned by position)
    source = table.frame
    assert len(released) == len(source)
    qis = ["birth_date", "sex", "zip"]
    kept = ~(released[qis] == "*").all(axis=1)
    patients = released.loc[kept, qis].assign(p=source.loc[kept, "patient_no"].to_numpy())
    per_class = patients.groupby(qis)["p"].nunique()
    assert per_class.min() >= K
    assert run("verify", out, job).code == 0

    # a copy in which one class keeps >= k records but only k-1 patients is rejected
    sizes = patients.groupby(qis)["p"].agg(["size", "nunique"])
    key = sizes[(sizes["nunique"] == K)].index[0]
    in_class = (patients[qis] == pd.Series(dict(zip(qis, key)))).all(axis=1)
    rows = patients.index[in_class]
    one = patients.loc[rows, "p"].unique()[0]
    copy = released.copy()
    # one of its K patients' visits are written as suppressed records: K-1 patients
    # remain; where fewer than K visits remain, more visits of a remaining patient (from
    # outside the class) are written with the class's values, so that the class keeps
    # K or more records of K-1 patients
    gone = rows[patients.loc[rows, "p"] == one]
    copy.loc[gone, qis] = "*"
    left = patients.loc[rows.difference(gone)]
    if len(left) < K:  # keep >= K records: copy a remaining patient's visit row over
        donor = source.index[(source["patient_no"] == left["p"].iloc[0])
                             & ~source.index.isin(rows)]
        need = K - len(left)
        assert len(donor) >= need or pytest.skip("no patient with enough visits")
        copy.loc[donor[:need], qis] = list(key)
    tampered = tmp_path / "tampered.csv"
    copy.to_csv(tampered, sep=";", index=False)
    again = copy.loc[~(copy[qis] == "*").all(axis=1), qis].assign(
        p=source.loc[~(copy[qis] == "*").all(axis=1), "patient_no"].to_numpy())
    counts = again.groupby(qis)["p"].agg(["size", "nunique"]).loc[key]
    assert counts["size"] >= K and counts["nunique"] == K - 1
    assert run("verify", tampered, job).code == 1
