"""The verifier's own definitions (engine/verifier/) agree with the engine's on random
inputs: value order, EMDs, estimators, k-map's k', subset resolution, coding rules, and
the verdict on whole releases. The verifier imports none of these (the import
contract, tests/test_import_contracts.py); this file is where both meet."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import estimators as engine_estimators
from engine.api import prepare
from engine.config import AttributeConfig, Job
from engine.data.table import EncodedTable
from engine.output import transform
from engine.privacy.distribution_kernels import equal_emd, ordered_emd
from engine.privacy.k_map import derived_k as engine_derived_k
from engine.privacy.t_closeness import value_order as engine_value_order
from engine.project.job_file import job_from_dict
from engine.subset import resolve_subset
from engine.transform.coding import code_values
from engine.verifier import estimators
from engine.verifier.checks import _equal_distance, _ordered_distance
from engine.verifier.columns import rule_problem
from engine.verifier.order import ordered_values
from engine.verifier.source import InputSubset
from engine.verify import verify_frame
from tests.hypothesis_profiles import examples

VALUES = st.one_of(st.integers(-50, 500).map(str), st.sampled_from(
    ["", "NULL", "n/a", "7.5", "7.50", "1e2", "-0", "abc", "inf", "nan", " 12", "0012"]),
    st.floats(-1e4, 1e4, allow_nan=False).map(lambda x: f"{x:.3f}"))


@settings(max_examples=examples(200), deadline=None)
@given(values=st.lists(VALUES, min_size=1, max_size=25, unique=True),
       data_type=st.sampled_from([None, "integer", "decimal", "string"]))
def test_value_order_is_the_engines(values, data_type):
    engine = [values[i] for i in engine_value_order(np.asarray(values, dtype=object),
                                                    data_type)]
    assert ordered_values(values, data_type) == engine


def test_value_order_puts_numbers_first_and_respects_text_type():
    assert ordered_values(["10", "9", "", "100", "NULL"]) == ["9", "10", "100", "", "NULL"]
    assert ordered_values(["10", "9", ""], "integer") == ["9", "10", ""]
    assert ordered_values(["10", "9", ""], "string") == ["", "10", "9"]


@settings(max_examples=examples(150), deadline=None)
@given(counts=st.lists(st.integers(0, 20), min_size=2, max_size=12),
       overall=st.lists(st.integers(1, 50), min_size=12, max_size=12),
       seed=st.integers(0, 1000))
def test_emds_are_the_engines(counts, overall, seed):
    m = len(counts)
    if sum(counts) == 0:
        counts[0] = 1
    p_counts = np.asarray(overall[:m], dtype=float) + np.asarray(counts)
    p = p_counts / p_counts.sum()
    values = [str(v) for v in np.random.default_rng(seed).permutation(m) * 3]
    present = [i for i in range(m) if counts[i]]
    indptr = np.array([0, len(present)], dtype=np.int64)
    value = np.asarray(present, dtype=np.int64)
    count = np.asarray([counts[i] for i in present], dtype=np.float64)
    q_shares = {values[i]: counts[i] / sum(counts) for i in present}
    p_shares = {values[i]: float(p[i]) for i in range(m)}
    assert _equal_distance(q_shares, p_shares) == pytest.approx(
        equal_emd(indptr, value, count, p)[0], abs=1e-12)
    order = engine_value_order(np.asarray(values, dtype=object))
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.arange(m)
    got = ordered_emd(indptr, value, count, p[order], rank)[0]
    assert _ordered_distance(q_shares, p_shares, ordered_values(values)) == pytest.approx(
        got, abs=1e-12)


SIZES = st.lists(st.integers(1, 12), min_size=3, max_size=60)


@settings(max_examples=examples(120), deadline=None)
@given(sizes=SIZES, fraction=st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.5, 0.9, 1.0]))
def test_estimators_are_the_engines(sizes, fraction):
    sizes = np.asarray(sizes, dtype=np.int64)
    assert estimators.zayatz(sizes, fraction) == pytest.approx(
        engine_estimators.zayatz(sizes, fraction), rel=1e-9, nan_ok=True)
    assert estimators.snb(sizes, fraction) == pytest.approx(
        engine_estimators.snb(sizes, fraction), rel=1e-6, nan_ok=True)
    ours, theirs = estimators.pitman(sizes, fraction), engine_estimators.pitman(sizes, fraction)
    if not math.isnan(theirs):  # the engine's fit; ours maximizes the same likelihood
        assert ours == pytest.approx(theirs, rel=1e-3)
    for fallback in (True, False):
        ours = estimators.dankar(sizes, fraction, fallback)
        theirs = engine_estimators.dankar(sizes, fraction, zayatz_fallback=fallback)
        if not math.isnan(theirs):
            assert ours == pytest.approx(theirs, rel=1e-3)


def test_pitman_start_with_a_zero_denominator_is_no_crash():
    """Hoshino's first guess divides by 2 c1 u + c1 c - n c, zero for sizes 1, 1, 6:
    the engine raised ZeroDivisionError (an internal error); both now fit."""
    sizes = np.array([1, 1, 6])
    assert engine_estimators.pitman(sizes, 0.01) == pytest.approx(
        estimators.pitman(sizes, 0.01), rel=1e-3, nan_ok=True)


@settings(max_examples=examples(150), deadline=None)
@given(k=st.integers(1, 200), fraction=st.floats(0.001, 1.0),
       significance=st.sampled_from([0.001, 0.01, 0.05, 0.1, 0.3]), truncated=st.booleans())
def test_k_map_derived_k_is_the_engines(k, fraction, significance, truncated):
    ours, err = estimators.derived_k(k, fraction, significance, truncated)
    theirs, their_err = engine_derived_k(k, fraction, significance, truncated)
    if abs(their_err - significance) > 1e-9:  # not a tie at the significance itself
        assert ours == theirs
        assert err == pytest.approx(their_err, abs=1e-9)


ROWS = st.lists(st.tuples(st.integers(18, 90).map(str), st.sampled_from(["M", "F", ""]),
                          st.sampled_from(["a b", "c", "10", "9"])), min_size=1, max_size=60)
QUERIES = ["age > 30", "age <= 45 and sex = 'F'", "not sex = 'M' or city = 'c'",
           "city > 9", "city != 'a b'", "(age < 25 or age > 60) and sex != ''"]


@settings(max_examples=examples(100), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS, how=st.sampled_from(["query", "sample", "indices", "records"]),
       query=st.sampled_from(QUERIES), share=st.floats(0.01, 1.0), seed=st.integers(0, 99),
       data=st.data())
def test_subset_resolution_is_the_engines(tmp_path, rows, how, query, share, seed, data):
    frame = pd.DataFrame(rows, columns=["age", "sex", "city"])
    if how == "query":
        spec = {"query": query}
    elif how == "sample":
        spec = {"sample": share, "seed": seed}
    elif how == "records":  # ARX's subset file: some rows' values, in any order
        picked = data.draw(st.lists(st.integers(0, len(rows) - 1), max_size=20, unique=True))
        frame.iloc[picked[::-1]][["age", "sex"]].to_csv(tmp_path / "records.csv", sep=";",
                                                       index=False)
        spec = {"records": "records.csv"}
    else:
        spec = {"indices": data.draw(st.lists(st.integers(0, len(rows) - 1), max_size=20))}
    path = tmp_path / "in.csv"
    frame.to_csv(path, sep=";", index=False)
    job = Job(data=type(Job().data)(path=str(path), delimiter=";"), subset=spec,
              base_dir=tmp_path)
    engine_mask = resolve_subset(job, EncodedTable.from_dataframe(frame))
    subset = InputSubset(job)
    subset.start(len(frame))
    assert subset.mask(frame.astype(str), 0).tolist() == np.asarray(engine_mask).tolist()


@settings(max_examples=examples(100), deadline=None)
@given(values=st.lists(st.one_of(st.integers(-100, 100).map(str),
                                 st.sampled_from(["", "NULL", "3.25"])), min_size=1),
       top=st.one_of(st.none(), st.integers(0, 60)), bottom=st.one_of(st.none(),
                                                                    st.integers(-60, 0)))
def test_coded_values_pass_the_verifiers_rule_check(values, top, bottom):
    cfg = AttributeConfig(type="insensitive", transformation="top-bottom-coding", top=top,
                          bottom=bottom)
    if top is None and bottom is None:
        return
    coded = code_values(np.asarray(values, dtype=object), cfg, "x")
    assert rule_problem(coded, cfg, "*") is None
    if top is not None:
        assert rule_problem([str(top + 1)], cfg, "*") is not None


@settings(max_examples=examples(300), deadline=None)
@given(text=st.one_of(st.text(alphabet="'=+-@\t\r0123456789.,eE ax", max_size=8),
                      st.text(max_size=6)))
def test_formula_quoting_is_read_back_as_the_export_writes_it(text):
    from engine import formulas
    from engine.verifier import formula_cells as cells
    assert cells.is_formula(text) == formulas.is_formula(text)
    assert cells.unquoted(formulas.quoted(text)) == text
    assert cells.unquoted(text) == formulas.unquoted(text)


AGES = [str(a) for a in range(20, 40)]


@pytest.fixture(scope="module")
def hierarchy_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("independent")
    (folder / "age.csv").write_text("".join(
        f"{a};{int(a) // 5 * 5}-{int(a) // 5 * 5 + 4};{int(a) // 10 * 10}s;*\n" for a in AGES))
    (folder / "sex.csv").write_text("M;*\nF;*\n")
    (folder / "amount.csv").write_text("".join(f"{v};{'low' if v < 50 else 'high'};*\n"
                                               for v in (5, 10, 40, 60, 90, 100)))
    return folder


MODELS = [
    {"model": "t-closeness", "attribute": "amount", "t": 0.15, "distance": "ordered"},
    {"model": "t-closeness", "attribute": "amount", "t": 0.2, "distance": "equal"},
    {"model": "t-closeness", "attribute": "amount", "t": 0.2, "distance": "hierarchical"},
    {"model": "entropy-l-diversity", "attribute": "amount", "l": 1.5},
    {"model": "recursive-cl-diversity", "attribute": "amount", "l": 2, "c": 2.0},
    {"model": "delta-disclosure", "attribute": "amount", "delta": 1.2},
    {"model": "beta-likeness", "attribute": "amount", "beta": 1.0},
    {"model": "average-risk", "threshold": 0.4},
    {"model": "sample-uniqueness", "threshold": 0.1},
]


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(st.sampled_from(AGES), st.sampled_from("MF"),
                               st.sampled_from(["5", "10", "40", "60", "90", "100"])),
                     min_size=4, max_size=40),
       model=st.sampled_from(MODELS), limit=st.sampled_from([0.0, 0.2, 1.0]))
def test_verdicts_are_the_engines_at_every_node(hierarchy_dir, rows, model, limit):
    """The verifier judges every transformation's release as the engine's evaluation
    does (where the release is not wholly suppressed, which reads as the top node)."""
    df = pd.DataFrame(rows, columns=["age", "sex", "amount"])
    attributes = {q: {"type": "quasi-identifying", "hierarchy": f"{q}.csv"}
                  for q in ("age", "sex")}
    attributes["amount"] = {"type": "sensitive", "hierarchy": "amount.csv"}
    job = job_from_dict({"attributes": attributes, "privacy": [model],
                         "transformation": {"suppression_limit": limit}}, hierarchy_dir)
    problem = prepare(df, job)
    for levels in problem.lattice.iter_levels():
        frame = transform(problem, levels).frame.astype(str)
        if (frame[problem.qis] == "*").all(axis=None) and \
                tuple(levels) != tuple(problem.lattice.top):
            continue
        report = verify_frame(frame, job)
        assert report.ok == problem.evaluate(levels).anonymous, (levels, report.violations)


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(st.sampled_from(AGES), st.sampled_from("MF")),
                     min_size=4, max_size=30),
       data=st.data(), low=st.sampled_from([0.0, 0.1, 0.3]),
       high=st.sampled_from([0.5, 0.8, 1.0]), limit=st.sampled_from([0.0, 0.3, 1.0]),
       k=st.sampled_from([None, 1, 2]))
def test_subset_releases_hold_the_subset_and_verify_as_the_engine_judges(
        hierarchy_dir, rows, data, low, high, limit, k):
    """δ-presence (with or without k-anonymity) on a random research subset: at every
    transformation the release is the subset's records (their ids, in input order), and
    the verifier, counting the population on the input itself, judges it as the engine
    does (classes of the input without subset records included)."""
    df = pd.DataFrame(rows, columns=["age", "sex"]).assign(
        id=[f"r{i}" for i in range(len(rows))])
    picked = sorted(data.draw(st.sets(st.integers(0, len(rows) - 1), min_size=1)))
    job = job_from_dict({
        "attributes": {"age": {"type": "quasi-identifying", "hierarchy": "age.csv"},
                       "sex": {"type": "quasi-identifying", "hierarchy": "sex.csv"},
                       "id": {"type": "insensitive"}},
        "privacy": [{"model": "delta-presence", "delta_min": low, "delta_max": high}]
        + ([{"model": "k-anonymity", "k": k}] if k else []),
        "subset": {"indices": picked},
        "transformation": {"suppression_limit": limit}}, hierarchy_dir)
    problem = prepare(df, job)
    mask = np.zeros(len(rows), dtype=bool)
    mask[picked] = True
    for levels in problem.lattice.iter_levels():
        frame = transform(problem, levels).frame.astype(str)
        assert frame["id"].tolist() == [f"r{i}" for i in picked]
        if (frame[problem.qis] == "*").all(axis=None) and \
                tuple(levels) != tuple(problem.lattice.top):
            continue
        report = verify_frame(frame, job, mask, input_frame=df)
        assert report.ok == problem.evaluate(levels).anonymous, (levels, report.violations)
