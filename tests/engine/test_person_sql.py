"""``[data] person`` out of core: the persons counted in DuckDB (engine/backends/person_sql.py).

DuckDB splits the persons into single and spread ones in SQL and hands over per-item
counts, so the frequency table holds no person column and no row per person. These
tests check that what the search then works on is what the in-memory path builds from
each row's person, array for array (at the base items and rolled up to random
transformations), on visits where persons spread over several combinations (a birthday
between visits; coarse quasi-identifiers where many patients share a spread), with
a sensitive attribute counted per person, and suppressed rows; and that the released
files are the in-memory ones byte for byte.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from engine.api import prepare
from engine.cli import main
from engine.errors import DataError, JobError
from engine.kernel.person_counts import PersonCounts
from engine.kernel.person_tallies import PersonTallies
from engine.privacy.base import PERSONS, class_sizes
from engine.privacy.sensitive import sensitive_key
from engine.project.job_file import load_job
from tests import person_data

pytest.importorskip("duckdb")

L_DIVERSITY = ('[[privacy]]\nmodel = "entropy-l-diversity"\nattribute = "diagnosis"\n'
               'l = 1.5\n')
#: models counting the persons of the data (k-map's estimate) and an average risk
RISKS = ('[[privacy]]\nmodel = "average-risk"\nthreshold = 0.2\n'
         '[[privacy]]\nmodel = "k-map"\nk = 4\nestimator = "poisson"\n'
         '[population]\nsize = 20000\n')
T_CLOSENESS = ('[[privacy]]\nmodel = "t-closeness"\nattribute = "diagnosis"\nt = 0.6\n'
               'distance = "equal"\n')


def _frame(kind: str) -> pd.DataFrame:
    frame = person_data.visits(patients=700, seed=11)
    if kind == "coarse":  # few combinations: many patients spread the same way
        frame["age"] = (20 + frame["age"].astype(int) % 4).astype(str)
        zips = sorted(frame["zip"].unique())
        frame["zip"] = frame["zip"].map({z: ("10000", "10007", "10014")[i % 3]
                                         for i, z in enumerate(zips)})
    elif kind == "moving":  # a third of the patients move between visits
        rng = np.random.default_rng(4)
        moved = rng.random(len(frame)) < 0.15
        frame.loc[moved, "zip"] = "10007"
    return frame


@pytest.fixture(scope="module", params=["visits", "coarse", "moving"])
def folder(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(f"persons_{request.param}")
    person_data.write_visits(folder, _frame(request.param))
    return folder


def _problems(folder, extra: str = L_DIVERSITY, **job):
    for backend in ("memory", "duckdb"):
        (folder / f"{backend}.toml").write_text(person_data.job_text(
            extra=extra, backend=backend, **job), encoding="utf-8")
    return (prepare(None, load_job(folder / "memory.toml")),
            prepare(None, load_job(folder / "duckdb.toml")))


def _same_counts(a: PersonCounts, b: PersonCounts) -> None:
    assert (a.n_items, a.n_values, a.n_persons) == (b.n_items, b.n_values, b.n_persons)
    np.testing.assert_array_equal(a.where, b.where, err_msg="where")
    for name in ("ptr", "item", "value", "weight", "base_items"):
        x, y = getattr(a.keys, name), getattr(b.keys, name)
        np.testing.assert_array_equal(x, y, err_msg=f"keys.{name}")
        assert x.dtype == y.dtype, name
    x, y = a.single, b.single
    assert type(x) is type(y)
    if isinstance(x, np.ndarray):
        np.testing.assert_array_equal(x, y, err_msg="single")
    else:
        assert x.n_values == y.n_values
        for name in ("indptr", "value", "count"):
            np.testing.assert_array_equal(getattr(x, name), getattr(y, name),
                                          err_msg=f"single.{name}")
    np.testing.assert_array_equal(a.by_value().dense(), b.by_value().dense())


def test_duckdb_counts_the_persons_the_in_memory_path_counts(folder):
    memory, duck = _problems(folder)
    try:
        # nothing per person reached Python: no person column, a row per combination
        assert isinstance(duck.table.person_tallies, PersonTallies)
        assert "patient_no" not in duck.table and duck.person_codes is None
        data = pd.read_csv(folder / "visits.csv", sep=";", dtype=str,
                           keep_default_na=False)
        assert duck.table.n_rows == len(data.drop_duplicates([*person_data.QIS,
                                                              "diagnosis"]))
        assert duck.n_persons == memory.n_persons == 700
        assert duck.persons_repeat and memory.persons_repeat
        assert duck.model_context.count_individuals() == 700
        mb, db = memory.classifier.base, duck.classifier.base
        np.testing.assert_array_equal(mb.rep, db.rep)  # the same base items, in order
        np.testing.assert_array_equal(mb.counts, db.counts)
        keys = (PERSONS, sensitive_key("diagnosis"))
        for key in keys:
            _same_counts(mb.aggregates[key], db.aggregates[key])
        if folder.name.startswith("persons_coarse"):  # keys standing for several pairs
            assert db.aggregates[PERSONS].key_weight.max() > 1
        model = next(m for m in duck.models if getattr(m, "attribute", None))
        twin = next(m for m in memory.models if getattr(m, "attribute", None))
        np.testing.assert_array_equal(model.overall, twin.overall)
        rng = np.random.default_rng(5)
        lattice = memory.lattice
        suppressing = 0
        for _ in range(10):  # rolled up from whatever snapshot each has cached
            levels = np.array([int(rng.integers(lo, hi + 1))
                               for lo, hi in zip(lattice.min_levels, lattice.max_levels)])
            mc, dc = memory.classifier.classify(levels), duck.classifier.classify(levels)
            for key in keys:
                _same_counts(mc.aggregates[key], dc.aggregates[key])
            np.testing.assert_array_equal(class_sizes(mc), class_sizes(dc))
            np.testing.assert_array_equal(memory.violating(mc), duck.violating(dc))
            assert memory.person_figures(levels) == duck.person_figures(levels)
            # the persons hit by suppressing any base items (a single person: their one
            # item; a spread one: any of theirs), against the rows' own persons
            mask = rng.random(mb.n_classes) < rng.choice([0.05, 0.3, 0.8])
            figures = duck.person_figures(levels, mask)
            assert figures == memory.person_figures(levels, mask)
            rows = mask[memory.classifier.row_to_base]
            assert figures["suppressed_persons"] == len(np.unique(memory.person_codes[rows]))
            suppressing += 0 < figures["suppressed_persons"] < 700
        assert suppressing
    finally:
        duck.backend.close()


def test_the_persons_are_the_recounted_ones(folder):
    """Independently of the in-memory path: the DuckDB classes' persons and persons per
    diagnosis equal a pandas recount of the input at the bottom transformation."""
    _, duck = _problems(folder)
    try:
        data = pd.read_csv(folder / "visits.csv", sep=";", dtype=str, keep_default_na=False)
        base = duck.classifier.base
        items = {tuple(duck.table.column(q).dictionary[c] for q, c in zip(duck.qis, rep)): i
                 for i, rep in enumerate(base.rep)}
        item = data[duck.qis].apply(tuple, axis=1).map(items).to_numpy()
        persons = base.aggregates[PERSONS].persons()
        want = data.assign(i=item).groupby("i")["patient_no"].nunique()
        np.testing.assert_array_equal(persons[want.index], want.to_numpy())
        dist = base.aggregates[sensitive_key("diagnosis")].by_value().dense()
        codes = {v: j for j, v in enumerate(duck.table.column("diagnosis").dictionary)}
        pairs = data.assign(i=item).drop_duplicates(["i", "patient_no", "diagnosis"])
        expected = np.zeros_like(dist)
        np.add.at(expected, (pairs["i"].to_numpy(), pairs["diagnosis"].map(codes)), 1)
        np.testing.assert_array_equal(dist, expected)
    finally:
        duck.backend.close()


def _release(folder, name: str, backend: str, extra: str, k: int, limit: float):
    (folder / f"{name}.toml").write_text(person_data.job_text(
        k=k, limit=limit, extra=extra, backend=backend), encoding="utf-8")
    out, res = folder / f"{name}.csv", folder / f"{name}.json"
    assert main(["anonymize", str(folder / f"{name}.toml"), "--output", str(out),
                 "--result", str(res), "--quiet"]) == 0
    return out.read_bytes(), json.loads(res.read_text())


@pytest.mark.parametrize("extra,k,limit", [("", 4, 0.05), (L_DIVERSITY, 3, 0.1),
                                           (T_CLOSENESS, 2, 0.2), (RISKS, 2, 0.1)])
def test_the_duckdb_release_is_the_in_memory_one_byte_for_byte(folder, extra, k, limit):
    memory, mres = _release(folder, "rel_memory", "memory", extra, k, limit)
    duck, dres = _release(folder, "rel_duckdb", "duckdb", extra, k, limit)
    assert duck == memory
    assert dres["optimum"]["levels"] == mres["optimum"]["levels"]
    assert dres["person"] == mres["person"]
    assert dres["suppressed_records"] == mres["suppressed_records"]
    if not folder.name.startswith("persons_coarse"):  # the others suppress some rows
        assert dres["suppressed_records"] > 0
    # and the release holds k patients a class, recounted from the file
    released = pd.read_csv(folder / "rel_duckdb.csv", sep=";", dtype=str,
                           keep_default_na=False)
    data = pd.read_csv(folder / "visits.csv", sep=";", dtype=str, keep_default_na=False)
    qis = list(person_data.QIS)
    kept = ~(released[qis] == "*").all(axis=1).to_numpy()
    patients = released[qis][kept].assign(p=data["patient_no"].to_numpy()[kept])
    assert patients.groupby(qis)["p"].nunique().min() >= k
    assert dres["person"]["suppressed_persons"] == data["patient_no"][~kept].nunique()


def test_persons_of_one_record_each_count_as_records(tmp_path):
    frame = person_data.visits(patients=400, seed=2).drop_duplicates("patient_no")
    person_data.write_visits(tmp_path, frame)
    memory, duck = _problems(tmp_path)
    try:
        assert not duck.persons_repeat and not memory.persons_repeat
        assert PERSONS not in duck.classifier.base.aggregates
        levels = [1, 0, 1]
        assert duck.person_figures(levels) == memory.person_figures(levels)
    finally:
        duck.backend.close()
    assert (_release(tmp_path, "one_m", "memory", "", 3, 0.05)[0]
            == _release(tmp_path, "one_d", "duckdb", "", 3, 0.05)[0])


@pytest.mark.parametrize("blank", [" ", "", "\u00a0\t"])
def test_an_empty_person_is_refused_with_its_row_as_in_memory(tmp_path, blank):
    frame = person_data.visits(patients=50, seed=1)
    frame.loc[[7, 30], "patient_no"] = blank
    person_data.write_visits(tmp_path, frame)
    messages = []
    for backend in ("memory", "duckdb"):
        (tmp_path / f"{backend}.toml").write_text(person_data.job_text(backend=backend),
                                                  encoding="utf-8")
        with pytest.raises(DataError) as e:
            prepare(None, load_job(tmp_path / f"{backend}.toml"))
        messages.append(str(e.value))
    assert messages[0] == messages[1]
    assert "[data] person = 'patient_no' is empty in 2 row(s), first data row 8" in messages[1]


def test_a_person_column_the_data_lacks_is_refused_out_of_core(tmp_path):
    person_data.write_visits(tmp_path, person_data.visits(patients=30, seed=1))
    (tmp_path / "job.toml").write_text(person_data.job_text(person="patient",
                                                            backend="duckdb"))
    with pytest.raises(JobError, match=r"\[data\] person = 'patient' is not a column"):
        prepare(None, load_job(tmp_path / "job.toml"))


def test_analyze_risk_counts_the_persons_out_of_core(folder):
    """The risk comparison (Analyze risk): the class sizes before and after are the
    in-memory path's distinct persons per class."""
    from engine.analysis.risk_comparison import result_sides
    from engine.api import anonymize_prepared
    memory, duck = _problems(folder)
    try:
        sides = [result_sides(anonymize_prepared(p)) for p in (memory, duck)]
        for m, d in zip(*sides):
            np.testing.assert_array_equal(np.sort(m.sizes.sample), np.sort(d.sizes.sample))
            np.testing.assert_array_equal(np.sort(m.sizes.population),
                                          np.sort(d.sizes.population))
        assert sides[1][1].sizes.sample.sum() < duck.table.n_records  # persons, not rows
    finally:
        duck.backend.close()
