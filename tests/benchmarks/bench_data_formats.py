"""Reading a job's data in each format (issue 30): Adult written by the library that
writes each format, read through a job file's ``[data]`` into the encoded table the
search runs on (``engine.api.prepare``: reading, encoding, binding the job).

    python3 tests/benchmarks/bench_data_formats.py [--repeat 5]

Per format: the median CPU seconds of ``prepare`` over ``--repeat`` runs in this
process (after one warm-up run per format) and the ratio to CSV measured in the same
run; the release of each format is checked equal to the CSV one's. The machine is
shared: read the figures as noisy, the ratios as the result.
"""
from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.shared_data import SHARED  # noqa: E402

ADULT = SHARED / "data" / "adult"
#: SPSS, Stata and SAS names hold no '-': every format gets the same names
QIS = {"sex": "sex", "age": "age", "race": "race", "marital_status": "marital-status",
       "education": "education"}


def write_formats(folder: Path) -> dict[str, dict]:
    """Adult in every format; the [data] table of each."""
    import pandas as pd
    import pyreadstat
    df = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    df.columns = [c.replace("-", "_") for c in df.columns]
    typed = df.assign(age=df["age"].astype(int))
    df.to_csv(folder / "adult.csv", sep=";", index=False)
    out = {"csv": {"path": str(folder / "adult.csv"), "delimiter": ";"}}
    typed.to_excel(folder / "adult.xlsx", index=False)
    out["xlsx"] = {"path": str(folder / "adult.xlsx")}
    typed.to_parquet(folder / "adult.parquet", index=False)
    out["parquet"] = {"path": str(folder / "adult.parquet")}
    pyreadstat.write_sav(typed.assign(age=typed["age"].astype(float)),
                         str(folder / "adult.sav"))
    out["sav"] = {"path": str(folder / "adult.sav")}
    typed.to_stata(folder / "adult.dta", write_index=False)
    out["dta"] = {"path": str(folder / "adult.dta")}
    pyreadstat.write_xport(typed.assign(age=typed["age"].astype(float))
                           .rename(columns=lambda c: c[:8]), str(folder / "adult.xpt"))
    out["xpt"] = None  # its names are cut to 8 characters: measured as a file read only
    with sqlite3.connect(folder / "adult.db") as con:
        typed.to_sql("adult", con, index=False)
    con.close()
    out["sqlite"] = {"url": f"sqlite:///{folder / 'adult.db'}", "table": "adult"}
    return out


def job(data: dict) -> dict:
    attributes = {q: {"type": "quasi-identifying",
                      "hierarchy": str(ADULT / f"adult_hierarchy_{f}.csv")}
                  for q, f in QIS.items()}
    return {"data": data, "attributes": attributes,
            "privacy": [{"model": "k-anonymity", "k": 5}],
            "transformation": {"suppression_limit": 0.04}}


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from engine.api import anonymize, prepare
    with tempfile.TemporaryDirectory() as tmp:
        formats = write_formats(Path(tmp))
        rows = []
        baseline = None
        reference = None
        for name, data in formats.items():
            if data is None:
                from engine.data.readers import read_statistical
                times = [cpu(lambda: read_statistical(Path(tmp) / "adult.xpt"))
                         for _ in range(args.repeat + 1)][1:]
                rows.append((name, statistics.median(times), "file read only"))
                continue
            spec = job(data)
            prepare(None, spec)  # warm-up: imports and kernels
            times = [cpu(lambda s=spec: prepare(None, s)) for _ in range(args.repeat)]
            released = anonymize(None, spec).transformed().frame
            if reference is None:
                reference = released
            same = released.reset_index(drop=True).astype(str).equals(
                reference.reset_index(drop=True).astype(str))
            rows.append((name, statistics.median(times), "same release as CSV" if same
                         else "RELEASE DIFFERS"))
            if name == "csv":
                baseline = statistics.median(times)
    print(f"Adult, 30,162 rows x 9 columns; median CPU s of prepare over {args.repeat} runs")
    print("| format | CPU s | x CSV | check |")
    print("|---|---|---|---|")
    for name, seconds, note in rows:
        print(f"| {name} | {seconds:.3f} | {seconds / baseline:.1f} | {note} |")


if __name__ == "__main__":
    main()
