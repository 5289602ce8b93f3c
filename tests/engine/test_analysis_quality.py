"""Quality measures against a slow, obvious pandas reference on small tables."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from engine.analysis.quality import quality
from engine.data.datatypes import INTEGER, STRING
from engine.data.table import EncodedTable
from engine.hierarchy.model import Hierarchy

AGE_H = Hierarchy.from_rows([(str(a), f"[{a // 10 * 10}, {a // 10 * 10 + 10}[", "*")
                             for a in range(18, 80)], "age")
SEX_H = Hierarchy.from_rows([("m", "*"), ("f", "*"), ("d", "*")], "sex")


def _tables(seed: int, n: int = 60):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n)
    sex = rng.choice(["m", "f"], n)
    zipc = rng.choice(["81675", "81677", "81925"], n)
    lvl = int(rng.integers(0, 3))
    rows = {r[0]: r for r in AGE_H.rows}
    out_age = np.array([rows[str(a)][lvl] for a in age], dtype=object)
    out_sex = np.where(rng.random() < 0.5, sex, "*").astype(object)
    out_zip = np.array([z[:3] + "**" for z in zipc], dtype=object)
    suppressed = rng.random(n) < 0.15
    for col in (out_age, out_sex, out_zip):
        col[suppressed] = "*"
    out_zip[0] = ""  # a missing output value
    inp = pd.DataFrame({"age": age.astype(str), "sex": sex, "zip": zipc})
    out = pd.DataFrame({"age": out_age, "sex": out_sex, "zip": out_zip})
    return inp, out, suppressed


def _lost(out: pd.DataFrame, a: str, sup: np.ndarray) -> np.ndarray:
    return sup | (out[a] == "").to_numpy()


def ref_intensity(inp, out, a, h, sup):
    rows = {r[0]: r for r in h.rows}
    lost = _lost(out, a, sup)
    vals = [1.0 if l else rows[v].index(o) / h.height
            for v, o, l in zip(inp[a], out[a], lost)]
    return float(np.mean(vals))


def ref_granularity(inp, out, a, h, sup):
    lost = _lost(out, a, sup)
    if h is not None:
        rows = {r[0]: r for r in h.rows}
        vals = []
        for v, o, l in zip(inp[a], out[a], lost):
            if l:
                vals.append(1.0)
                continue
            level = rows[v].index(o)
            leaves = sum(r[level] == o for r in h.rows)
            vals.append((leaves - 1) / (len(h.rows) - 1))
        return float(np.mean(vals))
    kept = pd.DataFrame({"i": inp[a], "o": out[a]})[~lost]
    leaves = kept.groupby("o")["i"].nunique()
    domain = inp[a].nunique()
    return float(np.mean([1.0 if l else (leaves[o] - 1) / (domain - 1)
                          for o, l in zip(out[a], lost)]))


def ref_entropy(inp, out, a, sup):
    lost = _lost(out, a, sup)
    c = inp[a].value_counts()
    n = len(inp)
    cover = pd.DataFrame({"i": inp[a], "o": out[a]})[~lost].groupby("o")["i"].unique()
    bits = 0.0
    for v, o, l in zip(inp[a], out[a], lost):
        denom = n if l else sum(c[x] for x in cover[o])
        bits -= math.log2(c[v] / denom)
    top = -sum(k * math.log2(k / n) for k in c)
    return bits / top


def ref_squared_error(inp, out, a, sup):
    lost = _lost(out, a, sup)
    x = inp[a].astype(float)
    lo, hi = x.min(), x.max()
    num = den = 0.0
    for v, o, l in zip(x, out[a], lost):
        dmax = max((v - lo) ** 2, (v - hi) ** 2)
        if l or o == "*":
            d = dmax
        elif o.startswith("["):
            b = [float(t) for t in o.strip("[").split(",")]
            d = min(max((v - b[0]) ** 2, (v - b[1]) ** 2), dmax)
        else:
            d = (v - float(o)) ** 2
        num, den = num + d, den + dmax
    return num / den


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("encoded", [False, True])
def test_quality_matches_reference(seed, encoded):
    inp, out, sup = _tables(seed)
    qis = ["age", "sex", "zip"]
    h = {"age": AGE_H, "sex": SEX_H}
    types = {"age": INTEGER, "sex": STRING, "zip": STRING}
    args = (EncodedTable.from_dataframe(inp), EncodedTable.from_dataframe(out)) if encoded \
        else (inp, out)
    report = quality(*args, qis, h, types, suppressed=sup)
    got = {q.attribute: q for q in report.attributes}
    for a in qis:
        q = got[a]
        assert q.missing == pytest.approx(_lost(out, a, sup).mean())
        if a in h:
            assert q.generalization_intensity == pytest.approx(
                ref_intensity(inp, out, a, h[a], sup))
        else:
            assert math.isnan(q.generalization_intensity)
        assert q.granularity == pytest.approx(ref_granularity(inp, out, a, h.get(a), sup))
        assert q.non_uniform_entropy == pytest.approx(ref_entropy(inp, out, a, sup))
    assert got["age"].squared_error == pytest.approx(ref_squared_error(inp, out, "age", sup))
    assert math.isnan(got["sex"].squared_error)
    # class-based measures
    kept = out[~sup]
    sizes = kept.groupby(qis).size()
    n = len(out)
    dm = float((sizes ** 2).sum() + sup.sum() * n)
    assert report.discernibility == pytest.approx(dm)
    assert report.discernibility_normalized == pytest.approx((dm - n) / (n * n - n))
    assert report.average_class_size == pytest.approx(len(kept) / len(sizes))
    assert report.classes == len(sizes) and report.suppressed_records == sup.sum()
    frame = report.to_frame()
    assert frame.loc["(overall)", "granularity"] == pytest.approx(
        np.mean([got[a].granularity for a in qis]))
    assert frame.loc["(overall)", "generalization_intensity"] == pytest.approx(
        np.mean([got[a].generalization_intensity for a in h]))


def test_identity_has_no_loss_and_full_suppression_all():
    inp, _, _ = _tables(0)
    none = quality(inp, inp, ["age", "sex"], {"age": AGE_H}, {"age": INTEGER})
    for q in none.attributes:
        assert q.missing == 0 and q.granularity == 0 and q.non_uniform_entropy == 0
    assert none.attributes[0].generalization_intensity == 0
    assert none.attributes[0].squared_error == 0
    every = np.ones(len(inp), bool)
    full = quality(inp, inp, ["age", "sex"], {"age": AGE_H}, {"age": INTEGER}, suppressed=every)
    for q in full.attributes:
        assert q.missing == 1 and q.granularity == 1 and q.non_uniform_entropy == pytest.approx(1)
    assert full.attributes[0].squared_error == 1
    assert full.discernibility_normalized == 1 and full.classes == 0


def test_detected_type_and_no_hierarchy():
    inp = pd.DataFrame({"x": ["1", "2", "3", "4"]})
    out = pd.DataFrame({"x": ["[0, 3[", "[0, 3[", "[3, 6[", "[3, 6["]})
    q = quality(inp, out, ["x"]).attributes[0]
    # squared error: max distance to the bounds over the largest distance to min/max
    # x=1..4 in [0, 3[ / [3, 6[: d = 4, 4, min(9, 4), 4; dmax = 9, 4, 4, 9
    assert q.squared_error == pytest.approx((4 + 4 + 4 + 4) / (9 + 4 + 4 + 9))
    assert q.granularity == pytest.approx(1 / 3)  # 2 of 4 values per label
    assert q.non_uniform_entropy == pytest.approx(0.5)  # 1 of 2 bits lost per record
