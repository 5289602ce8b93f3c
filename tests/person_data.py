"""A generated visits table (several rows per patient) with its hierarchies and job,
for the tests of ``[data] person`` (engine and app).

Each patient has 1-5 visits; their quasi-identifiers (age, sex, ZIP) stay the same
from visit to visit, except for about one patient in ten whose age moves on by a
year at a later visit (their rows then fall into two classes at fine levels).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

DIAGNOSES = ("flu", "cold", "asthma", "diabetes", "migraine", "hiv", "fracture")
QIS = ("age", "sex", "zip")


def visits(patients: int = 1500, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    visit = 0
    for p in range(patients):
        age = int(rng.integers(18, 90))
        sex = str(rng.choice(["female", "male"]))
        zip_code = str(10000 + int(rng.integers(0, 60)) * 7)
        birthday = rng.random() < 0.1
        n = int(rng.integers(1, 6))
        for v in range(n):
            visit += 1
            rows.append({"visit_no": str(visit), "patient_no": f"P{p:05d}",
                         "age": str(age + (1 if birthday and v == n - 1 and n > 1 else 0)),
                         "sex": sex, "zip": zip_code,
                         "diagnosis": str(rng.choice(DIAGNOSES))})
    return pd.DataFrame(rows)


def hierarchies(frame: pd.DataFrame) -> dict[str, list[list[str]]]:
    ages = sorted(frame["age"].unique(), key=int)
    zips = sorted(frame["zip"].unique())
    return {
        "age": [[a, f"{int(a) // 5 * 5}-{int(a) // 5 * 5 + 4}",
                 f"{int(a) // 20 * 20}-{int(a) // 20 * 20 + 19}", "*"] for a in ages],
        "zip": [[z, z[:4] + "*", z[:3] + "**", z[:2] + "***", "*"] for z in zips],
        "sex": [["female", "*"], ["male", "*"]],
    }


def write_visits(folder: Path, frame: pd.DataFrame | None = None) -> Path:
    """The table (``visits.csv``, ';'-delimited) and its hierarchies in ``folder``."""
    frame = visits() if frame is None else frame
    folder.mkdir(parents=True, exist_ok=True)
    frame.to_csv(folder / "visits.csv", sep=";", index=False)
    for name, rows in hierarchies(frame).items():
        (folder / f"{name}.csv").write_text("\n".join(";".join(r) for r in rows) + "\n",
                                            encoding="utf-8")
    return folder / "visits.csv"


def job_text(person: str | None = "patient_no", k: int = 3, limit: float = 0.05,
             extra: str = "", backend: str | None = None,
             algorithm: str | None = None) -> str:
    """A job over ``visits.csv`` (its hierarchies beside it)."""
    data = '[data]\npath = "visits.csv"\ndelimiter = ";"\n'
    if person:
        data += f'person = "{person}"\n'
    attributes = "".join(
        f'[attributes."{q}"]\ntype = "quasi-identifying"\nhierarchy = "{q}.csv"\n' for q in QIS)
    attributes += ('[attributes."patient_no"]\ntype = "identifying"\n'
                   '[attributes."visit_no"]\ntype = "insensitive"\n'
                   '[attributes."diagnosis"]\ntype = "sensitive"\n')
    engine = f'[engine]\nbackend = "{backend}"\n' if backend else ""
    return (data + attributes + f'[[privacy]]\nmodel = "k-anonymity"\nk = {k}\n' + extra
            + f"[transformation]\nsuppression_limit = {limit}\n"
            + (f'algorithm = "{algorithm}"\n' if algorithm else "") + engine)
