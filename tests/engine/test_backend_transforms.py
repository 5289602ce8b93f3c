"""Transformation methods out of core: microaggregation (every function, missing values,
hierarchy clustering) and coding rules (on insensitive attributes and on
quasi-identifiers) released by DuckDB byte for byte as in memory; what stays in
memory is refused naming the setting and the alternative."""
from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from engine.cli import main
from tests.engine.conftest import ADULT

pytest.importorskip("duckdb")

QIS = ["sex", "age", "race", "education"]
ROWS = 6000


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """The first rows of Adult with a numeric column 'hours' (some missing, some NULL)
    and a text column 'note'."""
    folder = tmp_path_factory.mktemp("adult")
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, folder / f.name)
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame = frame.iloc[:ROWS].copy()
    i = pd.Series(range(ROWS))
    hours = ((i * 37) % 83 + 5).astype(str)
    hours[i % 97 == 0] = ""
    hours[i % 101 == 0] = "NULL"
    hours[i % 7 == 0] = (((i * 13) % 40) + 0.25).astype(str)  # some fractions
    frame["hours"] = hours.to_numpy()
    frame["note"] = [f"n{(k * 7) % 23}" for k in range(ROWS)]
    frame.to_csv(folder / "adult.csv", sep=";", index=False)
    return folder


def job_text(backend: str, attributes: str, extra: str = "", k: int = 5) -> str:
    lines = ['[data]\npath = "adult.csv"\ndelimiter = ";"\n']
    for q in QIS:
        lines.append(f'[attributes."{q}"]\ntype = "quasi-identifying"\n'
                     f'hierarchy = "adult_hierarchy_{q}.csv"\n')
    lines.append(attributes)
    lines.append(f'[[privacy]]\nmodel = "k-anonymity"\nk = {k}\n')
    lines.append('[transformation]\nsuppression_limit = 0.04\nalgorithm = "optimal"\n' + extra)
    lines.append('[metric]\nname = "loss"\n')
    lines.append(f'[engine]\nbackend = "{backend}"\n')
    return "\n".join(lines)


def same_release(folder, capsys, attributes: str, extra: str = "", k: int = 5) -> dict:
    out = {}
    for backend in ("memory", "duckdb"):
        (folder / f"{backend}.toml").write_text(job_text(backend, attributes, extra, k))
        for f in (f"{backend}.csv", f"{backend}.json"):
            (folder / f).unlink(missing_ok=True)
        assert main(["anonymize", str(folder / f"{backend}.toml"), "--output",
                     str(folder / f"{backend}.csv"), "--result",
                     str(folder / f"{backend}.json"), "--quiet"]) == 0, capsys.readouterr().err
        out[backend] = json.loads((folder / f"{backend}.json").read_text())
    assert out["duckdb"]["optimum"] == out["memory"]["optimum"]
    released = (folder / "duckdb.csv").read_bytes()
    assert released == (folder / "memory.csv").read_bytes()
    assert main(["verify", str(folder / "duckdb.csv"), str(folder / "duckdb.toml")]) == 0
    capsys.readouterr()
    return out


@pytest.mark.parametrize("function, ignore", [
    ("arithmetic-mean", False), ("arithmetic-mean", True), ("median", False),
    ("median", True), ("mode", False), ("geometric-mean", True), ("interval", False)])
def test_microaggregation_released_as_in_memory(data, capsys, function, ignore):
    attrs = (f'[attributes."hours"]\ntype = "quasi-identifying"\n'
             f'transformation = "microaggregation"\nfunction = "{function}"\n'
             f'ignore_missing = {str(ignore).lower()}\n')
    out = same_release(data, capsys, attrs)
    released = pd.read_csv(data / "duckdb.csv", sep=";", dtype=str, keep_default_na=False)
    kept = released[released["sex"] != "*"]
    # the aggregates stand for classes: one value per class of the other QIs
    assert (kept.groupby(QIS)["hours"].nunique() == 1).all()
    assert kept["hours"].nunique() > 10
    # the utility figures agree (the frequency table's rows weighted by their records)
    mem, duck = out["memory"]["microaggregation"], out["duckdb"]["microaggregation"]
    assert mem.keys() == duck.keys()
    for key, value in mem["hours"].items():
        if isinstance(value, float):
            assert duck["hours"][key] == pytest.approx(value, rel=1e-9), key
        else:
            assert duck["hours"][key] == value, key


def test_microaggregation_with_hierarchy_clustering(data, capsys):
    """age generalized by its hierarchy (a dimension of the search) and released as
    its classes' median."""
    clustered = ('[attributes."age"]\ntype = "quasi-identifying"\n'
                 'hierarchy = "adult_hierarchy_age.csv"\n'
                 'transformation = "microaggregation"\nfunction = "median"\n'
                 'clustering = "hierarchy"\n')
    for backend in ("memory", "duckdb"):
        text = job_text(backend, "").replace(
            '[attributes."age"]\ntype = "quasi-identifying"\n'
            'hierarchy = "adult_hierarchy_age.csv"\n', clustered)
        assert 'clustering = "hierarchy"' in text
        (data / f"{backend}.toml").write_text(text)
        assert main(["anonymize", str(data / f"{backend}.toml"), "--output",
                     str(data / f"{backend}.csv"), "--quiet"]) == 0
    assert (data / "duckdb.csv").read_bytes() == (data / "memory.csv").read_bytes()
    assert main(["verify", str(data / "duckdb.csv"), str(data / "duckdb.toml")]) == 0
    capsys.readouterr()


def test_coding_rules_released_as_in_memory(data, capsys):
    attrs = ('[attributes."hours"]\ntype = "insensitive"\ntransformation = "top-bottom-coding"\n'
             'top = 60\nbottom = 10\n'
             '[attributes."note"]\ntype = "insensitive"\ntransformation = "suppression"\n'
             '[attributes."salary-class"]\ntype = "insensitive"\ntransformation = "identity"\n')
    same_release(data, capsys, attrs)
    released = pd.read_csv(data / "duckdb.csv", sep=";", dtype=str, keep_default_na=False)
    numbers = pd.to_numeric(released["hours"], errors="coerce").dropna()
    assert numbers.max() == 60 and numbers.min() == 10 and (released["note"] == "*").all()
    # a rule on a quasi-identifier is a one-transformation hierarchy
    text = job_text("x", "").replace(
        '[attributes."race"]\ntype = "quasi-identifying"\nhierarchy = "adult_hierarchy_race.csv"\n',
        '[attributes."race"]\ntype = "quasi-identifying"\ntransformation = "suppression"\n')
    for backend in ("memory", "duckdb"):
        (data / f"{backend}.toml").write_text(text.replace('backend = "x"',
                                                           f'backend = "{backend}"'))
        assert main(["anonymize", str(data / f"{backend}.toml"), "--output",
                     str(data / f"{backend}.csv"), "--quiet"]) == 0
    assert (data / "duckdb.csv").read_bytes() == (data / "memory.csv").read_bytes()
    capsys.readouterr()


@pytest.mark.parametrize("attributes, extra, message", [
    ('[attributes."hours"]\ntype = "quasi-identifying"\ntransformation = "microaggregation"\n'
     'function = "arithmetic-mean"\nclustering = "mdav"\n', "", 'clustering = "mdav"'),
    ("", "remove_suppressed_values = true\n", "remove_suppressed_values"),
    ("", "local_recoding = { iterations = 10 }\n", "local recoding"),
])
def test_what_stays_in_memory_is_refused(data, capsys, attributes, extra, message):
    (data / "job.toml").write_text(job_text("duckdb", attributes, extra))
    assert main(["anonymize", str(data / "job.toml"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and 'backend = "memory"' in err


def test_class_lookup_by_probed_table(data, capsys, monkeypatch):
    """Beyond a small key space the classes' aggregates (and the suppressed classes)
    are looked up in an open-addressing table: the same release."""
    import engine.backends.duckdb_backend as duck
    monkeypatch.setattr(duck, "DENSE_KEYS", 1)
    attrs = ('[attributes."hours"]\ntype = "quasi-identifying"\n'
             'transformation = "microaggregation"\nfunction = "arithmetic-mean"\n')
    same_release(data, capsys, attrs, k=8)
