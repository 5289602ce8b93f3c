"""Transformation methods out of core: microaggregation (every function, missing values,
hierarchy clustering) and coding rules (on insensitive attributes and on
quasi-identifiers) released by DuckDB byte for byte as in memory; what stays in
memory is refused naming the setting and the alternative."""
from __future__ import annotations

import json
import math
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


def test_integer_means_rounded_half_up_as_in_memory(data, capsys):
    """data_type = "integer": age released as its class mean rounded to whole years,
    halves upwards as ARX does (engine.transform.microaggregation.round_half_up), the
    same bytes out of core."""
    micro = ('[attributes."age"]\ntype = "quasi-identifying"\n'
             'transformation = "microaggregation"\nfunction = "arithmetic-mean"\n'
             'data_type = "integer"\n')
    for backend in ("memory", "duckdb"):
        text = job_text(backend, "").replace(
            '[attributes."age"]\ntype = "quasi-identifying"\n'
            'hierarchy = "adult_hierarchy_age.csv"\n', micro)
        assert 'data_type = "integer"' in text
        (data / f"{backend}.toml").write_text(text)
        assert main(["anonymize", str(data / f"{backend}.toml"), "--output",
                     str(data / f"{backend}.csv"), "--quiet"]) == 0
    assert (data / "duckdb.csv").read_bytes() == (data / "memory.csv").read_bytes()
    assert main(["verify", str(data / "duckdb.csv"), str(data / "duckdb.toml")]) == 0
    capsys.readouterr()
    released = pd.read_csv(data / "duckdb.csv", sep=";", dtype=str, keep_default_na=False)
    others = [q for q in QIS if q != "age"]
    kept = released[released["age"] != "*"]
    original = pd.read_csv(data / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    means = original.loc[kept.index, "age"].astype(float).groupby(
        [kept[q] for q in others]).transform("mean")
    # the case that tells the roundings apart: half to even would round these down
    assert ((means % 2) == 0.5).any()
    assert (kept["age"].astype(int) == (means + 0.5).apply(math.floor)).all()


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


def test_many_suppressed_classes(data, capsys):
    """k = 40 suppresses many classes (looked up per batch of records, as the classes'
    aggregates): the same release."""
    attrs = ('[attributes."hours"]\ntype = "quasi-identifying"\n'
             'transformation = "microaggregation"\nfunction = "arithmetic-mean"\n')
    same_release(data, capsys, attrs, k=40)
    released = pd.read_csv(data / "duckdb.csv", sep=";", dtype=str, keep_default_na=False)
    assert (released["sex"] == "*").sum() > 50


PSEUDONYMS = ('[attributes."id"]\ntype = "identifying"\npseudonymize = "hmac-sha256"\n'
              'key_env = "ANONYMIST_TEST_KEY"\nlength = 12\n'
              '[attributes."phone"]\ntype = "identifying"\npseudonymize = "mask"\nkeep = 3\n')
KEY = "00112233445566778899aabbccddeeff0123456789abcdef"


@pytest.fixture
def with_ids(data, monkeypatch):
    """The data with an identifier (a few repeated, a few empty) and a phone number."""
    frame = pd.read_csv(data / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame["id"] = [f"P{(i if i % 50 else i - 1):06d}" if i % 333 else "" for i in range(ROWS)]
    frame["phone"] = [f"+41 79 {i:07d}"[: 8 + i % 7] for i in range(ROWS)]
    frame.to_csv(data / "ids.csv", sep=";", index=False)
    monkeypatch.setenv("ANONYMIST_TEST_KEY", KEY)
    return data


def test_pseudonyms_released_as_in_memory(with_ids, capsys):
    """Keyed and masked pseudonyms written by DuckDB (a vectorized function holding the
    key) as in memory; the key is in no file written."""
    before = set(with_ids.iterdir())
    for backend in ("memory", "duckdb"):
        text = job_text(backend, PSEUDONYMS).replace('path = "adult.csv"', 'path = "ids.csv"')
        (with_ids / f"{backend}.toml").write_text(text)
        assert main(["anonymize", str(with_ids / f"{backend}.toml"), "--output",
                     str(with_ids / f"{backend}.csv"), "--quiet"]) == 0
    released = (with_ids / "duckdb.csv").read_bytes()
    assert released == (with_ids / "memory.csv").read_bytes()
    frame = pd.read_csv(with_ids / "duckdb.csv", sep=";", dtype=str, keep_default_na=False)
    assert frame["id"].str.fullmatch(r"[0-9a-f]{12}|").all() and frame["id"].nunique() > 5000
    # masked "+41 79 ..." begins with "+": a formula cell, written with a leading '
    assert frame["phone"].str.startswith("'+41").all()
    assert frame["phone"].str[4:].str.fullmatch(r"\**").all()
    # verify does not read the quote away yet (test_formula_cells.py::
    # test_verify_reads_quoted_cells_as_released): the same release as the cells are
    for backend in ("memory", "duckdb"):
        assert main(["anonymize", str(with_ids / f"{backend}.toml"), "--output",
                     str(with_ids / f"{backend}.csv"), "--quiet",
                     "--csv-formula-cells", "keep"]) == 0
    assert (with_ids / "duckdb.csv").read_bytes() == (with_ids / "memory.csv").read_bytes()
    frame = pd.read_csv(with_ids / "duckdb.csv", sep=";", dtype=str, keep_default_na=False)
    assert frame["phone"].str[3:].str.fullmatch(r"\**").all()
    assert main(["verify", str(with_ids / "duckdb.csv"), str(with_ids / "duckdb.toml")]) == 0
    capsys.readouterr()
    for f in set(with_ids.iterdir()) - before:
        assert KEY.encode() not in f.read_bytes() and bytes.fromhex(KEY) not in f.read_bytes()


def test_shared_keyed_pseudonym_refused_as_in_memory(with_ids, capsys, monkeypatch):
    """Two distinct values with one pseudonym are refused out of core too (counted in
    DuckDB before anything is written)."""
    import engine.pseudonyms as pseudonyms
    real = pseudonyms.hmac_digests
    monkeypatch.setattr(pseudonyms, "hmac_digests",
                        lambda values, key, length=16: real(values, key, 1))
    for backend in ("memory", "duckdb"):
        text = job_text(backend, PSEUDONYMS).replace('path = "adult.csv"', 'path = "ids.csv"')
        (with_ids / f"{backend}.toml").write_text(text)
        (with_ids / f"{backend}.csv").unlink(missing_ok=True)
        assert main(["anonymize", str(with_ids / f"{backend}.toml"), "--output",
                     str(with_ids / f"{backend}.csv"), "--quiet"]) != 0
        assert "share a 12-character pseudonym" in capsys.readouterr().err
        assert not (with_ids / f"{backend}.csv").exists()


@pytest.mark.parametrize("extra, message", [
    (PSEUDONYMS, "pseudonyms"),
    ('[subset]\nindices = [1, 2]\n', "[subset] indices"),
])
def test_spark_says_before_counting_what_it_does_not_do(data, extra, message):
    """Spark's refusals come before any counting (a stand-in backend: no session)."""
    from engine.api import as_job
    from engine.backends import Backend, count_records
    from engine.errors import JobError

    class SparkLike(Backend):
        name = "spark"
        subset_by_row_number = False
        releases_pseudonyms = False

        def frequency_table(self, *a, **k):
            raise AssertionError("counted")

    (data / "job.toml").write_text(job_text("spark", extra))
    with pytest.raises(JobError, match=message.replace("[", r"\[")) as e:
        count_records(SparkLike(None), as_job(data / "job.toml"))
    assert "not available on the spark backend" in str(e.value)
    assert '"duckdb"' in str(e.value)  # the backends that have it are named


@pytest.mark.parametrize("generalization, subset", [
    ("data-dependent", ""), ("low-medium", ""), ("data-dependent", "indices = {rows}")])
def test_differential_privacy_sample_drawn_for_duckdb(data, capsys, generalization, subset):
    """SafePub's sample drawn for DuckDB as in memory (the seed's stream, chunk by
    chunk, as a bit per record): the same search result and the same release, the
    records outside the sample written suppressed."""
    rows = list(range(0, ROWS, 2))
    extra = (f'[[privacy]]\nmodel = "differential-privacy"\nepsilon = 2.0\ndelta = 1e-5\n'
             f'generalization = "{generalization}"\nseed = 11\nsearch_steps = 20\n'
             + (f"[subset]\n{subset.format(rows=rows)}\n" if subset else ""))
    out = {}
    for backend in ("memory", "duckdb"):
        text = job_text(backend, "").replace('[[privacy]]\nmodel = "k-anonymity"\nk = 5\n',
                                             extra)
        (data / f"{backend}.toml").write_text(text)
        assert main(["anonymize", str(data / f"{backend}.toml"), "--output",
                     str(data / f"{backend}.csv"), "--result", str(data / f"{backend}.json"),
                     "--quiet"]) == 0, capsys.readouterr().err
        out[backend] = json.loads((data / f"{backend}.json").read_text())
    assert out["duckdb"]["optimum"] == out["memory"]["optimum"]
    assert (data / "duckdb.csv").read_bytes() == (data / "memory.csv").read_bytes()
    released = pd.read_csv(data / "duckdb.csv", sep=";", dtype=str, keep_default_na=False)
    withheld = (released[QIS] == "*").all(axis=1).sum()
    assert 0 < withheld < ROWS  # the sample leaves records out; others are released
    assert main(["verify", str(data / "duckdb.csv"), str(data / "duckdb.toml")]) == 0
    capsys.readouterr()
