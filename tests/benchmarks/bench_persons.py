"""What counting persons (``[data] person``) costs the whole command (issue 25: at most
20 % on Adult-sized data, against the same job without it).

    python3 tests/benchmarks/bench_persons.py [--repeat 3]
    python3 tests/benchmarks/bench_persons.py --large 10000000 --repeat 1

Adult (30,162 rows) with a person column added, three ways:

- ``one row each``: every row is its own person (all persons "single");
- ``visits``: persons of 1-5 consecutive rows that share their quasi-identifiers (each
  Adult row repeated; 30,162 rows in all): the usual shape of visit data;
- ``spread``: persons of 3 consecutive Adult rows whatever their values (every person
  spread over several combinations: the worst case for the roll-up).

Per shape and job (k=5 with a 4 % limit and the loss metric; the same with recursive
(4,3)-diversity of occupation), the whole command (``python -m engine.cli anonymize
JOB --output OUT``, fresh process, numba cache warm) runs with ``person`` and without
it (the column then identifying: dropped, so both write the same columns); the best wall
and CPU seconds of ``--repeat`` runs of each, and their ratios, measured in this run (on
a shared machine CPU seconds are the steadier figure).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_user import ADULT, QIS, SENSITIVE, cli  # noqa: E402


def shapes(folder: Path) -> dict[str, Path]:
    import numpy as np
    import pandas as pd
    adult = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    n = len(adult)
    rng = np.random.default_rng(5)
    out = {}
    one = adult.assign(person=[f"p{i}" for i in range(n)])
    repeat = rng.integers(1, 6, size=n)
    rows = np.repeat(np.arange(n), repeat)[:n]  # 1-5 visits of one Adult row, n rows in all
    visits = adult.iloc[rows].reset_index(drop=True).assign(person=[f"p{r}" for r in rows])
    spread = adult.assign(person=[f"p{i // 3}" for i in range(n)])
    for name, frame in (("one row each", one), ("visits", visits), ("spread", spread)):
        path = folder / (name.replace(" ", "-") + ".csv")
        frame.to_csv(path, sep=";", index=False)
        out[name] = path
    return out


def job(data: Path, person: bool, sensitive: bool) -> dict:
    qis = [q for q in QIS if not (sensitive and q == SENSITIVE)]
    attributes = {q: {"type": "quasi-identifying",
                      "hierarchy": str(ADULT / f"adult_hierarchy_{q}.csv")} for q in qis}
    attributes["person"] = {"type": "identifying"}
    privacy = [{"model": "k-anonymity", "k": 5}]
    if sensitive:
        attributes[SENSITIVE] = {"type": "sensitive"}
        privacy.append({"model": "recursive-cl-diversity", "attribute": SENSITIVE, "c": 4,
                        "l": 3})
    d = {"data": {"path": str(data), "delimiter": ";"}, "attributes": attributes,
         "privacy": privacy, "transformation": {"suppression_limit": 0.04},
         "metric": {"name": "loss"}}
    if person:
        d["data"]["person"] = "person"
    return d


def main() -> None:
    import tomli_w
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--large", type=int, default=0,
                        help="instead: generated visits of this many rows through DuckDB")
    args = parser.parse_args()
    if args.large:
        large(args.large, args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("| data | job | without person: wall / CPU (s) | with person: wall / CPU (s) "
              "| ratio wall | ratio CPU |")
        print("|---|---|---|---|---|---|")
        for name, data in shapes(folder).items():
            for sensitive in (False, True):
                best = {}
                for person in (False, True):
                    path = folder / f"job-{person}-{sensitive}.toml"
                    path.write_bytes(tomli_w.dumps(job(data, person, sensitive)).encode())
                    cli(path, folder / "out.csv")  # warm the file cache
                    runs = [cli(path, folder / "out.csv") for _ in range(args.repeat)]
                    best[person] = (min(r[0] for r in runs), min(r[1] for r in runs))
                label = "k=5" + (", recursive-(4,3)" if sensitive else "")
                (w0, c0), (w1, c1) = best[False], best[True]
                print(f"| {name} | {label} | {w0:.2f} / {c0:.2f} | {w1:.2f} / {c1:.2f} | "
                      f"{w1 / w0:.3f} | {c1 / c0:.3f} |", flush=True)


def large_visits(folder: Path, rows: int) -> Path:
    """``rows`` visits (about rows / 3 patients, 1-5 visits each, the last one cut) as
    ``visits.csv`` with person_data's hierarchies, generated vectorized."""
    import numpy as np
    import pandas as pd
    sys.path.insert(0, str(ROOT))
    from tests import person_data
    rng = np.random.default_rng(9)
    patients = rows // 2  # at most 2 x 5 visits: more than ``rows`` rows, cut to them
    visits = rng.integers(1, 6, size=patients)
    patient = np.repeat(np.arange(patients), visits)[:rows]
    age = rng.integers(18, 90, size=patients)[patient]
    birthday = (rng.random(len(patient)) < 0.03).astype(int)  # a few rows a year older
    sex = np.array(["female", "male"])[rng.integers(0, 2, size=patients)][patient]
    zips = (10000 + 7 * rng.integers(0, 60, size=patients))[patient]
    frame = pd.DataFrame({
        "visit_no": np.arange(1, len(patient) + 1).astype(str),
        "patient_no": pd.Series(patient).map("P{:07d}".format),
        "age": (age + birthday).astype(str), "sex": sex, "zip": zips.astype(str),
        "diagnosis": np.array(person_data.DIAGNOSES)[rng.integers(0, 7, size=len(patient))]})
    # hierarchies from the values (person_data's, on the distinct values only)
    distinct = frame.drop_duplicates(["age", "sex", "zip"])
    person_data.write_visits(folder, distinct)
    frame.to_csv(folder / "visits.csv", sep=";", index=False)
    return folder / "visits.csv"


def large(rows: int, repeat: int) -> None:
    """The visits job through DuckDB at ``rows`` rows, with and without ``person``: whole
    command wall / CPU seconds and peak memory."""
    sys.path.insert(0, str(ROOT))
    from tests import person_data
    folder = Path(tempfile.mkdtemp(prefix="anonymist-persons-"))
    try:
        large_visits(folder, rows)
        print("| rows | job | wall (s) | CPU (s) | peak MB |\n|---|---|---|---|---|")
        for person in (None, "patient_no"):
            (folder / "job.toml").write_text(person_data.job_text(
                person=person, k=5, backend="duckdb"), encoding="utf-8")
            runs = [cli(folder / "job.toml", folder / "out.csv") for _ in range(repeat)]
            wall, cpu, peak = (min(r[i] for r in runs) for i in range(3))
            print(f"| {rows:,} | k=5, {'person' if person else 'records'} | {wall:.1f} | "
                  f"{cpu:.1f} | {peak:.0f} |", flush=True)
    finally:
        import shutil
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
