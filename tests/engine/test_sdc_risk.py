"""Survey risk measures (engine/sdc) against sdcMicro's published values and against
the definitions, computed here independently.

Published values: sdcMicro's tests (tests/testthat/test_indivRisk.R: individual risk
with and without weights and missing values, both methods; test_suda2.R: the SUDA
scores of the book example of Templ (2017) and of the IHSN SDC guideline (Table 4.5),
the attribute contributions of issue #275 in four column orders).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from engine.errors import DataError
from engine.sdc.frequencies import frequencies
from engine.sdc.individual import household_risk, individual_risk
from engine.sdc.keys import encode_keys
from engine.sdc.measures import PER_RECORD_COLUMNS, measure_risk
from engine.sdc.suda2 import suda2

TOL = 1e-6

# sdcMicro tests/testthat/test_indivRisk.R: columns A, B, C and the weights
A = [2, 3, 2, 2, 3, 3, 1, 2]
B = [3, 3, 3, 3, 3, 3, 4, 3]
C = [1, 3, 1, 2, 1, 1, 1, 1]
W = [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51]
A_NA = [2, 3, 2, 2, 3, 3, 1, None]
C_NA = [1, 3, None, 2, 1, 1, None, 1]


def frame(**columns) -> pd.DataFrame:
    return pd.DataFrame({k: ["" if v is None else str(v) for v in vals]
                         for k, vals in columns.items()})


def sdcmicro_sample(missing: bool) -> pd.DataFrame:
    df = frame(A=A_NA if missing else A, B=B, C=C_NA if missing else C)
    df["weight"] = [str(w) for w in W]
    return df


@pytest.mark.parametrize("missing,method,expected", [
    (False, "approx", [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883,
                       0.01877883, 0.03931625, 0.01369863]),
    (False, "exact", [0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883,
                      0.01877883, 0.03931625, 0.01355297]),
    (True, "approx", [0.013698630, 0.085791288, 0.010554090, 0.032466112, 0.009836066,
                      0.009836066, 0.039316254, 0.005973716]),
    (True, "exact", [0.013552968, 0.085791288, 0.010504889, 0.032466112, 0.009756889,
                     0.009756889, 0.039316254, 0.005962551]),
])
def test_individual_risk_with_weights_as_sdcmicro(missing, method, expected):
    r = measure_risk(sdcmicro_sample(missing), ["A", "B", "C"], weight="weight",
                     method=method)
    np.testing.assert_allclose(r.per_record["individual_risk"], expected, atol=TOL)
    assert r.summary["expected_reidentifications"] == pytest.approx(sum(expected), abs=1e-6)
    assert r.summary["global_risk"] == pytest.approx(sum(expected) / 8, abs=1e-7)


@pytest.mark.parametrize("missing,expected", [
    (False, [1 / 3, 1, 1 / 3, 1, 0.5, 0.5, 1, 1 / 3]),
    (True, [1 / 3, 1, 0.25, 0.5, 1 / 3, 1 / 3, 1, 0.2]),
])
def test_individual_risk_without_weights_is_one_over_fk(missing, expected):
    for method in ("approx", "exact"):
        r = measure_risk(sdcmicro_sample(missing), ["A", "B", "C"], method=method)
        np.testing.assert_allclose(r.per_record["individual_risk"], expected, atol=TOL)
        np.testing.assert_array_equal(r.per_record["class_size"],
                                      np.rint(1 / np.array(expected)))


def test_missing_values_match_any_value_in_frequencies():
    """fk with missing values by sdcMicro's rule, counted here pair by pair."""
    df = sdcmicro_sample(True)
    keys = encode_keys(df, ["A", "B", "C"])
    fk, Fk = frequencies(keys, np.array(W))
    rows = df[["A", "B", "C"]].to_numpy()

    def agree(x, y):
        return all(a == "" or b == "" or a == b for a, b in zip(x, y))

    complete = [all(v != "" for v in r) for r in rows]
    for i, r in enumerate(rows):
        mates = [j for j, s in enumerate(rows) if agree(r, s)
                 and (j == i or not complete[i] or any(v != "" for v in s))]
        assert fk[i] == len(mates)
        assert Fk[i] == pytest.approx(sum(W[j] for j in mates))


def test_fk_equal_to_Fk_gives_one_over_fk():
    df = frame(A=[1, 1, 2], B=[1, 1, 1])
    df["w"] = ["1", "1", "1"]
    r = measure_risk(df, ["A", "B"], weight="w")
    np.testing.assert_allclose(r.per_record["individual_risk"], [0.5, 0.5, 1.0])


def test_approx_formula_by_hand():
    """Franconi and Polettini's approximations, evaluated here by hand."""
    fk = np.array([1.0, 2.0, 5.0])
    Fk = np.array([40.0, 10.0, 20.0])
    got = individual_risk(fk, Fk, weighted=True, method="approx")
    p1, p2, p5 = 1 / 40, 2 / 10, 5 / 20
    assert got[0] == pytest.approx(p1 / (1 - p1) * math.log(1 / p1), abs=1e-12)
    assert got[1] == pytest.approx(p2 / (1 - p2) - (p2 / (1 - p2)) ** 2 * math.log(1 / p2),
                                   abs=1e-12)
    assert got[2] == pytest.approx(p5 / (5 - (1 - p5)), abs=1e-12)


def test_household_risk_is_one_minus_product():
    risk = np.array([0.1, 0.2, 0.5, 0.3])
    got = household_risk(risk, np.array([7, 7, 9, 7]))
    h7 = 1 - 0.9 * 0.8 * 0.7
    np.testing.assert_allclose(got, [h7, h7, 0.5, h7])
    df = frame(A=[1, 1, 2, 2], B=[1, 2, 1, 1], h=["x", "x", "y", "z"])
    r = measure_risk(df, ["A", "B"], household="h")
    ind = r.per_record["individual_risk"].to_numpy()
    hx = 1 - (1 - ind[0]) * (1 - ind[1])
    np.testing.assert_allclose(r.per_record["household_risk"], [hx, hx, ind[2], ind[3]])
    assert r.summary["household_risk"]["expected_reidentifications"] == pytest.approx(
        2 * hx + ind[2] + ind[3])


# --- SUDA2 ------------------------------------------------------------------------------
BOOK = pd.DataFrame({
    "age": ["20s"] * 7 + ["60s"],
    "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
    "income": ["50k+", "50k+"] + ["50k-"] * 6,
    "education": ["highschool"] * 4 + ["university", "highschool", "middleschool",
                                       "university"]})
GUIDE = pd.DataFrame({
    "Residence": ["Urban"] * 4 + ["Rural"] + ["Urban"] * 5,
    "Gender": ["Female", "Female", "Female", "Male", "Female", "Male", "Female", "Male",
               "Female", "Female"],
    "Education": ["Secondary incomplete", "Secondary incomplete", "Primary incomplete",
                  "Secondary complete", "Secondary complete", "Secondary complete",
                  "Primary complete", "Post-secondary", "Secondary incomplete",
                  "Secondary incomplete"],
    "Labor": ["Employed", "Employed", "Non-LF", "Employed", "Unemployed", "Employed",
              "Non-LF", "Unemployed", "Non-LF", "Non-LF"]})


def scores(df: pd.DataFrame) -> np.ndarray:
    return suda2(encode_keys(df, list(df.columns))).score


def test_suda2_scores_of_the_published_examples():
    np.testing.assert_allclose(scores(BOOK)[4:], [4, 2, 6, 8])
    np.testing.assert_allclose(scores(GUIDE), [0, 0, 6, 0, 12, 0, 6, 10, 0, 0])


@pytest.mark.parametrize("order,expected", [
    ("abc", [50, 37.5, 37.5]), ("acb", [50, 37.5, 37.5]),
    ("cab", [37.5, 50, 37.5]), ("cba", [37.5, 37.5, 50])])
def test_suda2_attribute_contributions_as_sdcmicro(order, expected):
    df = frame(a=[2, 1, 1], b=[0, 3, 0], c=[0, 6, 0])[list(order)]
    r = measure_risk(df, list(order))
    got = r.summary["suda2"]["contributions"]
    assert [got[v] for v in order] == pytest.approx(expected, abs=TOL)


def brute_msus(rows: list[tuple], missing: str = "") -> list[list[tuple[int, ...]]]:
    """Every record's MSUs by the definition, subset by subset."""
    n, m = len(rows), len(rows[0])
    out = []
    for i, r in enumerate(rows):
        present = [v for v in range(m) if r[v] != missing]

        def unique(S, i=i, r=r):
            return all(any(rows[j][v] != r[v] for v in S) for j in range(n) if j != i)

        found = []
        for k in range(1, len(present) + 1):
            for S in itertools.combinations(present, k):
                if unique(S) and not any(unique(tuple(x for x in S if x != v)) for v in S):
                    found.append(S)
        out.append(found)
    return out


def twins_in(rows) -> bool:
    """Whether two values of different variables occur in exactly the same records."""
    m = len(rows[0])
    sets = {}
    for v in range(m):
        for i, r in enumerate(rows):
            sets.setdefault((v, r[v]), set()).add(i)
    seen = {}
    for (v, x), s in sets.items():
        if x == "" or len(s) < 2:
            continue
        key = frozenset(s)
        if key in seen and seen[key] != v:
            return True
        seen[key] = v
    return False


@pytest.mark.parametrize("seed", range(12))
def test_suda2_equals_the_definition_on_random_data(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(6, 30)), int(rng.integers(3, 6))
    cards = rng.integers(2, 5, size=m)
    data = {f"v{j}": [str(x) for x in rng.integers(0, cards[j], size=n)] for j in range(m)}
    if seed % 3 == 0:  # some missing values
        for j in range(m):
            for i in rng.choice(n, size=2, replace=False):
                data[f"v{j}"][i] = ""
    df = pd.DataFrame(data)
    rows = [tuple(r) for r in df.itertuples(index=False)]
    got = suda2(encode_keys(df, list(df.columns)))
    msus = brute_msus(rows)
    M = max(m, 3)
    expected = [sum(math.factorial(M - len(S)) for S in found) for found in msus]
    np.testing.assert_allclose(got.score, expected)
    counts = np.zeros(M)
    for found in msus:
        for S in found:
            counts[len(S) - 1] += 1
    np.testing.assert_array_equal(got.msu_counts, counts)
    if not twins_in(rows):
        for i, found in enumerate(msus):
            raw = np.zeros(m)
            for S in found:
                raw[list(S)] += math.factorial(M - len(S))
            share = raw / expected[i] if expected[i] else raw
            np.testing.assert_allclose(got.contribution[i], share, atol=1e-12)


def sdcmicro_hash(values: list[int]) -> int:
    """The 16-bit hash of sdcMicro's Suda2.h, step by step as its C++ does."""
    h = 0
    for v in values:
        carry = h & 0x8000
        h = (h << 1) % 65536
        h = (h + v) % 65536
        if carry:
            h = (h + 1) % 65536
    return h


def test_dis_suda_by_the_formula():
    """DIS-SUDA of the book example computed here from its definition: factor levels
    numbered in sorted order, sdcMicro's hash buckets, pairs of equal records."""
    r = measure_risk(BOOK, list(BOOK.columns))
    levels = {c: {v: k + 1 for k, v in enumerate(sorted(set(BOOK[c])))} for c in BOOK}
    values = [[levels[c][v] for c, v in zip(BOOK, row)]
              for row in BOOK.itertuples(index=False)]
    hashes = [sdcmicro_hash(v) for v in values]
    u = sum(1 for h in hashes if hashes.count(h) == 1)
    pairs = sum(1 for v in values if values.count(v) == 2)
    f = np.float32(0.01)
    dis = np.float32(u) * f / (np.float32(u) * f + np.float32(pairs) * (np.float32(1) - f))
    factor = float(np.float32(u) / dis - np.float32(u))
    score = r.per_record["suda2_score"].to_numpy()
    q = 1 + (8 - 4) / 20
    adj = sum(s ** -q for s in score if s > 0)
    expected = [1 / (1 + factor / (s ** q * adj)) if s > 0 else 0.0 for s in score]
    np.testing.assert_allclose(r.per_record["dis_suda_score"], expected, rtol=1e-6)
    assert r.summary["suda2"]["unique_records_counted"] == u
    assert r.summary["suda2"]["pair_records_counted"] == pairs


def test_two_quasi_identifiers_weigh_as_three():
    """sdcMicro adds a constant dummy to two key variables: M = 3."""
    df = frame(a=[1, 1, 2, 2, 3], b=[1, 2, 1, 1, 1])
    got = measure_risk(df, ["a", "b"]).per_record["suda2_score"].to_numpy()
    # record 5: a=3 unique (1-MSU, 2!); record 2: b=2 unique (2!); record 1: {a=1, b=1} (1!)
    np.testing.assert_allclose(got, [1, 2, 0, 0, 2])


# --- the measures together ----------------------------------------------------------------
def test_per_record_contract_and_input_order():
    df = sdcmicro_sample(False)
    r = measure_risk(df, ["A", "B", "C"], weight="weight", sensitive=[])
    assert list(r.per_record.columns[:len(PER_RECORD_COLUMNS)]) == list(PER_RECORD_COLUMNS)
    assert list(r.per_record["record"]) == list(range(1, 9))
    for key in ("global_risk", "expected_reidentifications", "records_at_risk"):
        assert key in r.summary
    assert set(r.summary["suda2"]["contributions"]) == {"A", "B", "C"}
    # reversed input, reversed rows
    back = measure_risk(df.iloc[::-1].reset_index(drop=True), ["A", "B", "C"],
                        weight="weight")
    np.testing.assert_allclose(back.per_record["individual_risk"],
                               r.per_record["individual_risk"].to_numpy()[::-1])
    np.testing.assert_allclose(back.per_record["suda2_score"],
                               r.per_record["suda2_score"].to_numpy()[::-1])


def test_k_anonymity_violations_l_diversity_and_risky_cells():
    df = frame(a=[1, 1, 1, 2, 2, 3], b=[1, 1, 1, 1, 1, 1], s=["x", "y", "x", "x", "x", "z"])
    r = measure_risk(df, ["a", "b"], sensitive=["s"], threshold=0.4)
    k = r.summary["k_anonymity"]
    assert (k["violating_2"], k["violating_3"], k["violating_5"]) == (1, 3, 6)
    np.testing.assert_array_equal(r.per_record["l_diversity_s"], [2, 2, 2, 1, 1, 1])
    assert r.summary["l_diversity"]["s"]["records_below_2"] == 3
    cells = {tuple(c["variables"]): c["unsafe_cells"] for c in r.summary["risky_cells"]}
    assert cells == {("a",): 3, ("b",): 0, ("a", "b"): 3}
    assert r.summary["records_at_risk"] == 3  # risk 1/2, 1/2, 1 above 0.4


@pytest.mark.parametrize("values,word", [(["1", "0", "2"], "not positive"),
                                          (["1", "x", "2"], "not a number"),
                                          (["1", "", "2"], "empty")])
def test_bad_weights_are_refused_naming_column_and_row(values, word):
    df = frame(a=[1, 2, 3])
    df["w"] = values
    with pytest.raises(DataError, match=f"'w': row 2 .*{word}"):
        measure_risk(df, ["a"], weight="w")


def test_weight_never_a_quasi_identifier():
    df = frame(a=[1, 2, 3], w=[1, 2, 3])
    with pytest.raises(DataError, match="weight column 'w' cannot also be a quasi-identifier"):
        measure_risk(df, ["a", "w"], weight="w")


def test_global_threshold_as_sdcmicros_loop():
    """sdcMicro's measure_threshold, its loop over the risks (highest first) written
    out here: the first risk level below which capping the higher records at it
    brings the expected re-identifications under max_global_risk * n."""
    from engine.sdc.individual import global_threshold

    def loop(risk, g):
        r = sorted(risk, reverse=True)
        er, remaining, current, freq = g * len(r), sum(r), r[0], 0
        if remaining < er:
            return None  # threshold == unsafe: NA
        for x in r:
            if x != current:
                if remaining + x * freq < er:
                    return x
                current = x
            freq += 1
            remaining -= x
        return None if current == 0 else 0.0

    rng = np.random.default_rng(3)
    for _ in range(30):
        risk = list(rng.choice([1.0, 0.5, 1 / 3, 0.25, 0.1, 0.05, 0.01], size=40))
        g = float(rng.choice([0.01, 0.05, 0.1, 0.2]))
        assert global_threshold(np.array(risk), g) == loop(risk, g)


def test_entropy_and_recursive_l_diversity_by_hand():
    df = frame(a=[1, 1, 1, 2, 2, 2, 2, 3, 3], s=["x", "x", "y", "x", "y", "z", "", "x", "x"])
    r = measure_risk(df, ["a"], sensitive=["s"]).per_record
    e1 = math.exp(-(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)))
    e2 = math.exp(-4 * (0.25 * math.log(0.25)))  # x, y, z and the missing value
    np.testing.assert_allclose(r["entropy_l_diversity_s"], [e1] * 3 + [e2] * 4 + [1, 1])
    # distinct: the missing value counts when there are others
    np.testing.assert_array_equal(r["l_diversity_s"], [2] * 3 + [4] * 4 + [1, 1])
    # recursive (c = 2): counts 2,1: 2*1 > 2 fails -> 1; counts 1,1,1: 2*2 > 1, then
    # 4 - 2 = 2 > 1, then 2 - 2 = 0 -> 3
    np.testing.assert_array_equal(r["recursive_l_diversity_s"], [1] * 3 + [3] * 4 + [1, 1])


def test_suda2_packed_uniqueness_table_gives_the_same(monkeypatch):
    """Above MAX_BYTES the per-subset uniqueness is kept a bit per key: same results."""
    import engine.sdc.suda2 as module
    rng = np.random.default_rng(0)
    df = pd.DataFrame({f"v{j}": [str(x) for x in rng.integers(0, 4, 300)] for j in range(6)})
    df.iloc[rng.choice(300, 20), 2] = ""
    keys = encode_keys(df, list(df.columns))
    plain = suda2(keys)
    singles = int((plain.score >= 0).sum())  # every record; fewer keys of their own
    monkeypatch.setattr(module, "MAX_BYTES", (1 << 6) * 200)
    assert (1 << 6) * singles > module.MAX_BYTES
    packed = suda2(keys)
    np.testing.assert_array_equal(packed.score, plain.score)
    np.testing.assert_allclose(packed.contribution, plain.contribution)
    np.testing.assert_allclose(packed.dis_score, plain.dis_score)
