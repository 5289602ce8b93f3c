"""sdcMicro's perturbative methods on insensitive attributes, tested against their
stated distributions with fixed seeds (bounds of 5 standard errors: a correct method
fails them with probability below 1e-6), and verify's checks of them.

Expectations from the methods' definitions: PRAM (Gouweleeuw et al. 1998; sdcMicro's
``pram``: diagonal drawn in [pd, 1], invariant R = alpha P Q + (1 - alpha) I with
p R = p), noise (sdcMicro's ``addNoise``: additive N(0, (noise/100 sd)^2); correlated
N(0, noise/100 Cov), Kim 1986; correlated2 keeps mean and variance, Brand 2002), rank
swapping (Moore 1996: ranks at most P% apart) and shuffling (a permutation)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.api import anonymize
from engine.errors import JobError
from engine.project.job_file import job_from_dict
from engine.verify import perturbation_violations, verify_frame

N = 20_000


def data(n: int = N, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(50, 10, n)
    return pd.DataFrame({
        "g": rng.choice(["m", "f"], n),
        "region": rng.choice(["north", "south", "east"], n, p=[.5, .3, .2]),
        "tenure": rng.choice(["own", "rent", "free", "other"], n, p=[.55, .3, .1, .05]),
        "income": np.round(x * 100, 2),
        "expend": np.round(x * 60 + rng.normal(0, 200, n), 2),
        "savings": np.round(rng.gamma(2, 500, n), 2),
    })


def run(tmp_path, frame, attributes: dict, seed: int | None = 5):
    path = tmp_path / "d.csv"
    frame.to_csv(path, sep=";", index=False)
    attrs = {"g": {"type": "quasi-identifying", "transformation": "identity"},
             **{n: {"type": "insensitive", **a} for n, a in attributes.items()}}
    tr = {"seed": seed} if seed is not None else {}
    job = job_from_dict({"data": {"path": str(path), "delimiter": ";"}, "attributes": attrs,
                         "privacy": [{"model": "k-anonymity", "k": 2}],
                         "transformation": tr})
    result = anonymize(None, job)
    return job, result, result.transformed().frame


def test_pram_transitions_follow_the_matrix(tmp_path):
    frame = data()
    job, result, out = run(tmp_path, frame, {"tenure": {"transformation": "pram", "pd": 0.6,
                                                       "alpha": 0.7, "invariant": True}})
    rep = result.to_dict()["perturbation"]["attributes"]["tenure"]
    (entry,) = rep["transition_matrices"]
    cats, matrix = entry["categories"], np.array(entry["matrix"])
    assert np.allclose(matrix.sum(axis=1), 1) and (matrix >= 0).all()
    p = frame["tenure"].value_counts().reindex(cats).to_numpy() / N
    assert np.allclose(p @ matrix, p)  # invariant: expected frequencies kept
    assert not np.allclose(matrix, np.eye(len(cats)))
    for i, c in enumerate(cats):
        rows = frame["tenure"] == c
        got = out.loc[rows, "tenure"].value_counts().reindex(cats, fill_value=0)
        n_i = int(rows.sum())
        for j, d in enumerate(cats):
            q = matrix[i, j]
            assert abs(got[d] / n_i - q) <= 5 * np.sqrt(q * (1 - q) / n_i) + 1e-12, (c, d)
    assert set(out["tenure"]) <= set(cats)
    assert verify_frame(out, job).ok


def test_plain_pram_matrix_and_strata(tmp_path):
    frame = data(6000)
    frame.loc[frame["region"] == "east", "tenure"] = "free"  # one category in the east
    job, result, out = run(tmp_path, frame, {"tenure": {
        "transformation": "pram", "pd": 0.7, "strata": "region"}})
    rep = result.to_dict()["perturbation"]["attributes"]["tenure"]
    assert len(rep["transition_matrices"]) == 3
    for entry in rep["transition_matrices"]:
        m = np.array(entry["matrix"])
        L = len(m)
        if L > 1:
            assert (np.diag(m) >= 0.7).all()
            off = m[~np.eye(L, dtype=bool)].reshape(L, L - 1)
            assert np.allclose(off, off[:, :1])  # equal off-diagonal entries per row
    # values stay within their stratum's categories
    assert (out.loc[frame["region"] == "east", "tenure"] == "free").all()
    assert verify_frame(out, job).ok
    bad = out.copy()
    bad.loc[bad.index[frame["region"] == "east"][0], "tenure"] = "own"
    assert any("outside the input's values of the stratum" in v
               for v in perturbation_violations(bad, job))


def test_additive_noise_mean_and_variance(tmp_path):
    frame = data()
    job, result, out = run(tmp_path, frame, {"income": {"transformation": "noise",
                                                       "noise": 50}})
    x = frame["income"].to_numpy()
    d = out["income"].astype(float).to_numpy() - x
    s = 0.5 * x.std(ddof=1)
    assert abs(d.mean()) <= 5 * s / np.sqrt(N)
    assert abs(d.var(ddof=1) / s**2 - 1) <= 5 * np.sqrt(2 / (N - 1))
    util = result.to_dict()["perturbation"]["utility"]
    # E|d| = s sqrt(2/pi): IL1s = s sqrt(2/pi) / (sqrt(2) sd) = 0.5 / sqrt(pi)
    assert util["il1s"] == pytest.approx(0.5 / np.sqrt(np.pi), rel=0.03)
    assert util["il1s_sdcmicro"] == pytest.approx(2 * util["il1s"])
    assert verify_frame(out, job).ok
    # a release with ten times less noise than stated fails verify's test
    quiet = out.copy()
    quiet["income"] = (x + d / 10).astype(str)
    assert any("spread does not fit" in v for v in perturbation_violations(quiet, job))


def test_correlated_noise_covaries_as_the_data(tmp_path):
    frame = data()
    job, result, out = run(tmp_path, frame, {
        "income": {"transformation": "noise", "noise_method": "correlated", "noise": 20},
        "expend": {"transformation": "noise", "noise_method": "correlated", "noise": 20}})
    x = frame[["income", "expend"]].to_numpy()
    d = out[["income", "expend"]].astype(float).to_numpy() - x
    want = 0.2 * np.cov(x, rowvar=False)
    got = np.cov(d, rowvar=False)
    se = np.sqrt((want**2 + np.outer(np.diag(want), np.diag(want))) / N)
    assert (np.abs(got - want) <= 5 * se).all()
    util = result.to_dict()["perturbation"]["utility"]
    (pair,) = util["correlations"]
    assert pair["after"] == pytest.approx(pair["before"], abs=0.02)  # kept (Kim 1986)
    assert util["eigen"] is not None and util["eigen"] < 0.1
    assert verify_frame(out, job).ok


def test_correlated2_keeps_mean_and_variance(tmp_path):
    frame = data()
    job, result, out = run(tmp_path, frame, {"savings": {
        "transformation": "noise", "noise_method": "correlated2", "delta": 0.3}})
    x = frame["savings"].to_numpy()
    y = out["savings"].astype(float).to_numpy()
    assert abs(y.mean() - x.mean()) <= 5 * 0.3 * x.std() / np.sqrt(N)
    assert abs(y.var() / x.var() - 1) <= 0.05
    assert verify_frame(out, job).ok


def test_rank_swapping_is_a_near_rank_permutation(tmp_path):
    frame = data(5000)
    job, result, out = run(tmp_path, frame, {"income": {"transformation": "rank-swapping",
                                                       "swap_percent": 2}})
    x = frame["income"].astype(str)
    y = out["income"]
    assert sorted(x) == sorted(y)
    xs, ys = frame["income"].to_numpy(), y.astype(float).to_numpy()
    srt = np.sort(xs)
    gap = np.abs(np.searchsorted(srt, ys) - np.searchsorted(srt, xs))
    assert gap.max() <= 100  # 2% of 5000
    assert (ys != xs).mean() > 0.9  # nearly every value moved (Moore's pairs)
    assert verify_frame(out, job).ok
    far = out.copy()
    i, j = int(np.argmin(xs)), int(np.argmax(xs))
    far.loc[i, "income"], far.loc[j, "income"] = out.loc[j, "income"], out.loc[i, "income"]
    assert any("ranks" in v for v in perturbation_violations(far, job))


def test_shuffling_within_strata(tmp_path):
    frame = data(3000)
    job, result, out = run(tmp_path, frame, {"savings": {"transformation": "shuffling",
                                                        "strata": "region"}})
    for r in ("north", "south", "east"):
        at = frame["region"] == r
        assert sorted(out.loc[at, "savings"]) == sorted(frame.loc[at, "savings"].astype(str))
    assert (out["savings"] != frame["savings"].astype(str)).mean() > 0.9
    assert verify_frame(out, job).ok


def test_seeds(tmp_path):
    frame = data(2000)
    spec = {"income": {"transformation": "noise", "seed": 3}}
    a = run(tmp_path, frame, spec, seed=None)[2]
    b = run(tmp_path, frame, spec, seed=None)[2]
    c = run(tmp_path, frame, {"income": {"transformation": "noise", "seed": 4}}, seed=None)[2]
    assert (a["income"] == b["income"]).all() and (a["income"] != c["income"]).any()
    job, result, _ = run(tmp_path, frame, spec)
    assert "seed" not in str(result.to_dict()["perturbation"])


@pytest.mark.parametrize("attribute, message", [
    ({"type": "quasi-identifying", "transformation": "pram"}, "applies to insensitive"),
    ({"type": "insensitive", "transformation": "noise", "pd": 0.5}, "pd only applies"),
    ({"type": "insensitive", "transformation": "pram", "noise": 10}, "noise only applies"),
    ({"type": "insensitive", "transformation": "noise", "delta": 0.2},
     "delta only applies"),
    ({"type": "insensitive", "transformation": "pram", "pd": 1.5}, "pd"),
    ({"type": "insensitive", "swap_percent": 3}, "swap_percent only applies"),
])
def test_refused_keys(tmp_path, attribute, message):
    with pytest.raises(JobError, match=message):
        job_from_dict({"attributes": {"x": attribute}}, tmp_path)


def test_one_correlated_attribute_is_refused(tmp_path):
    with pytest.raises(JobError, match="two or more"):
        job_from_dict({"attributes": {"x": {"type": "insensitive", "transformation": "noise",
                                            "noise_method": "correlated"}}}, tmp_path)


def test_report_shows_the_methods_and_verifies_them(tmp_path):
    from pypdf import PdfReader

    from engine.release_docs.pdf import export_report
    frame = data(3000)
    job, result, out = run(tmp_path, frame, {
        "tenure": {"transformation": "pram"},
        "income": {"transformation": "noise", "noise_method": "correlated", "noise": 30},
        "expend": {"transformation": "noise", "noise_method": "correlated", "noise": 30},
        "savings": {"transformation": "rank-swapping"}})
    pdf, js, report = export_report(result, tmp_path / "r.pdf", json_path=tmp_path / "r.json")
    assert report["verification"]["ok"], report["verification"]["violations"]
    attrs = report["perturbation"]["attributes"]
    assert set(attrs) == {"tenure", "income", "expend", "savings"}
    assert report["perturbation"]["utility"]["eigen"] is not None
    text = "\n".join(p.extract_text() for p in PdfReader(pdf).pages)
    assert "PRAM transition matrix of 'tenure'" in text
    assert "IL1s" in text and "rank-swapping" in text
    assert "seed" not in js.read_text().lower().replace("seeds are not printed", "")


def test_pram_matrix_is_sdcmicros_construction():
    """R = alpha P Q + (1 - alpha) I with Q the Bayes inverse of P under p, computed here
    by the formulas of Gouweleeuw et al. 1998 from the same drawn diagonal."""
    from engine.transform.perturbation import pram_matrix
    freq = np.array([50, 30, 15, 5])
    got = pram_matrix(freq, 0.7, 0.4, True, np.random.default_rng(9))
    pds = np.random.default_rng(9).uniform(0.7, 1.0, 4)
    P = np.array([[pds[i] if i == j else (1 - pds[i]) / 3 for j in range(4)]
                  for i in range(4)])
    p = freq / freq.sum()
    Q = np.array([[P[j, k] * p[j] / sum(p[i] * P[i, k] for i in range(4))
                   for j in range(4)] for k in range(4)])
    want = 0.4 * P @ Q + 0.6 * np.eye(4)
    assert np.allclose(got, want)
    plain = pram_matrix(freq, 0.7, 0.4, False, np.random.default_rng(9))
    assert np.allclose(plain, P)


def test_command_line_anonymize_and_verify(tmp_path, capsys):
    import json

    import tomli_w

    from engine.cli import main as cli_main
    frame = data(4000)
    frame.to_csv(tmp_path / "d.csv", sep=";", index=False)
    job = {"data": {"path": "d.csv", "delimiter": ";"},
           "attributes": {"g": {"type": "quasi-identifying", "transformation": "identity"},
                          "region": {"type": "insensitive"},
                          "tenure": {"type": "insensitive", "transformation": "pram",
                                     "strata": ["region"]},
                          "income": {"type": "insensitive", "transformation": "noise",
                                     "noise": 80, "seed": 1},
                          "expend": {"type": "insensitive"},
                          "savings": {"type": "insensitive",
                                      "transformation": "shuffling"}},
           "privacy": [{"model": "k-anonymity", "k": 2}]}
    (tmp_path / "job.toml").write_text(tomli_w.dumps(job))
    out, res = tmp_path / "out.csv", tmp_path / "result.json"
    assert cli_main(["anonymize", str(tmp_path / "job.toml"), "--output", str(out),
                     "--result", str(res), "--quiet"]) == 0
    result = json.loads(res.read_text())
    assert set(result["perturbation"]["attributes"]) == {"tenure", "income", "savings"}
    assert cli_main(["verify", str(out), str(tmp_path / "job.toml")]) == 0
    # the same file with the noise stated ten times larger fails: exit 1, the column named
    job["attributes"]["income"]["noise"] = 800
    (tmp_path / "bigger.toml").write_text(tomli_w.dumps(job))
    capsys.readouterr()
    assert cli_main(["verify", str(out), str(tmp_path / "bigger.toml")]) == 1
    assert "column 'income' (noise)" in capsys.readouterr().out


def test_data_shuffling_keeps_the_relation_to_its_predictors(tmp_path):
    """Muralidhar and Sarathy's data shuffling (sdcMicro's shuffle): the released column
    is a permutation of the input's whose correlation with the predictor stays close to
    the original one, unlike a random permutation's (about 0)."""
    frame = data(5000)
    job, result, out = run(tmp_path, frame, {
        "expend": {"transformation": "shuffling", "predictors": ["income"]},
        "savings": {"transformation": "shuffling"},
        "income": {}})
    assert sorted(out["expend"]) == sorted(frame["expend"].astype(str))
    before = np.corrcoef(frame["income"], frame["expend"])[0, 1]
    after = np.corrcoef(frame["income"], out["expend"].astype(float))[0, 1]
    assert before > 0.9 and abs(after - before) < 0.02
    assert (out["expend"] != frame["expend"].astype(str)).mean() > 0.9
    plain = np.corrcoef(frame["income"], out["savings"].astype(float))[0, 1]
    assert abs(plain) < 5 / np.sqrt(5000)
    rep = result.to_dict()["perturbation"]["attributes"]["expend"]
    assert rep["predictors"] == ["income"] and rep["r_squared"][0] > 0.8
    assert verify_frame(out, job).ok
