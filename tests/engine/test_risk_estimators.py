"""Population-uniqueness estimators against hand-computed values and brute force."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import comb

from engine import estimators as re
from engine.estimators.snb import _snb_system


def test_frequencies_of_frequencies():
    j, f = re.frequencies_of_frequencies(np.array([1, 3, 1, 2, 0, 3, 3]))
    assert j.tolist() == [1, 2, 3] and f.tolist() == [2, 1, 3]


def test_zayatz_by_hand():
    # sizes 1, 1, 2, 3 (n = 7), fraction 1/2 (N = 14); h(j) = j C(14-j, 6) / C(14, 7):
    # h(1) = 1716/3432, h(2) = 1848/3432, h(3) = 1386/3432; class shares 2/4, 1/4, 1/4
    h = {1: 1716 / 3432, 2: 1848 / 3432, 3: 1386 / 3432}
    p_unique = (0.5 * h[1]) / (0.5 * h[1] + 0.25 * h[2] + 0.25 * h[3])
    assert re.zayatz(np.array([1, 1, 2, 3]), 0.5) == pytest.approx(2 * p_unique / 7, rel=1e-12)


def test_zayatz_edge_cases():
    assert re.zayatz(np.array([2, 3]), 0.1) == 0.0  # no sample uniques
    assert re.zayatz(np.array([1, 1, 2]), 1.0) == pytest.approx(2 / 4)  # census
    assert math.isnan(re.zayatz(np.array([], dtype=int), 0.1))


def test_pitman_log_likelihood_by_hand():
    # sizes 1, 1, 2 (n = 4, K = 3), theta 1.5, alpha 0.3:
    # log[(t+a)(t+2a)] - log[(t+1)(t+2)(t+3)] + log(1 - a)
    t, a = 1.5, 0.3
    expected = (math.log((t + a) * (t + 2 * a)) - math.log((t + 1) * (t + 2) * (t + 3))
                + math.log(1 - a))
    j, f = re.frequencies_of_frequencies(np.array([1, 1, 2]))
    assert re.pitman_log_likelihood(t, a, j, f, 4) == pytest.approx(expected, rel=1e-12)


def test_pitman_fit_is_a_maximum():
    rng = np.random.default_rng(0)
    sizes = rng.geometric(0.3, size=400)
    theta, alpha = re.pitman_fit(sizes)
    j, f = re.frequencies_of_frequencies(sizes)
    n = int(sizes.sum())
    best = re.pitman_log_likelihood(theta, alpha, j, f, n)
    for dt, da in ((0.01, 0), (-0.01, 0), (0, 0.001), (0, -0.001)):
        assert re.pitman_log_likelihood(theta * (1 + dt), alpha + da, j, f, n) <= best + 1e-9


def test_pitman_population_uniques_reduces_to_ewens():
    # alpha -> 0: Ewens' expected number of singletons N theta / (theta + N - 1)
    got = re.pitman_population_uniques(2.0, 1e-12, 1000.0)
    assert got == pytest.approx(1000 * 2.0 / (2.0 + 999), rel=1e-9)


def _paper_counts(k, a, b, pi):
    """Chen & Keller-McNulty's expected numbers of sample classes of size one and two:
    population class size 1 + NegBin(a, b), sample size Bin(F, pi), by brute force."""
    counts = np.zeros(2)
    for m in range(0, 600):
        pf = math.exp(math.lgamma(m + a) - math.lgamma(a) - math.lgamma(m + 1)
                      + a * math.log(b) + m * math.log(1 - b))
        big_f = m + 1
        for s in (1, 2):
            if s <= big_f:
                counts[s - 1] += k * pf * comb(big_f, s) * pi ** s * (1 - pi) ** (big_f - s)
    return counts


def test_snb_system_against_brute_force():
    k, a, b, pi, c1, c2 = 50.0, 1.7, 0.35, 0.2, 3.0, 2.0
    e1, e2, *_ = _snb_system(a, b, pi, k, c1, c2)
    expected = _paper_counts(k, a, b, pi)
    # the first equation is the paper's
    assert e1 + c1 == pytest.approx(expected[0], rel=1e-9)
    # ARX's second multiplies by u^(a+2) where the paper divides: u^(2(a+2)) apart
    u = 1 - (1 - pi) * (1 - b)
    assert e2 + c2 == pytest.approx(expected[1] * u ** (2 * (a + 2)), rel=1e-9)


def test_snb_jacobian_is_the_papers():
    # ARX steps with the Jacobian of the paper's equations (not of its own second one)
    k, a, b, pi = 80.0, 0.8, 0.45, 0.3
    paper = lambda a, b: _paper_counts(k, a, b, pi)  # noqa: E731
    _, _, j11, j12, j21, j22 = _snb_system(a, b, pi, k, 0.0, 0.0)
    h = 1e-6
    da = (paper(a + h, b) - paper(a - h, b)) / (2 * h)
    db = (paper(a, b + h) - paper(a, b - h)) / (2 * h)
    assert np.allclose([j11, j21], da, rtol=1e-6)
    assert np.allclose([j12, j22], db, rtol=1e-6)


def test_snb_population_classes_by_hand():
    # sizes 1, 1, 2, 3 (u = 4 classes, f_1 = 2), q = 1/2, q^2 = 1/4:
    # A = 1*(1/4)*2 + 2*(1/4)(3/4) + 3*(1/4)(3/4)^2            = 1.296875
    # B = (2 (1/2)(3/2) - 1) + ((1/4)(9/4) - 1) + ((1/8)(27/8) - 1) = -0.515625
    # S = 2/2 + 1/4 + 1/8 = 1.375;  D = 1*(1/2)*2 + 2*(1/2)(1/2) + 3*(1/2)(1/4) = 1.875
    expected = 4 + 2 * (1.296875 / -0.515625) * (1.375 / 1.875) ** 2
    j, f = re.frequencies_of_frequencies(np.array([1, 1, 2, 3]))
    assert re.snb_population_classes(j, f, 0.5) == pytest.approx(expected, rel=1e-12)


def test_snb_solves_arx_system():
    sizes = np.random.default_rng(4).geometric(0.4, size=300)
    n, c1, c2 = sizes.sum(), np.sum(sizes == 1), np.sum(sizes == 2)
    k, a, b = re.snb_fit(sizes, 0.9)
    e1, e2, *_ = _snb_system(a, b, 0.9, k, c1, c2)
    assert abs(e1) <= 1e-6 and abs(e2) <= 1e-6
    assert re.snb(sizes, 0.9) == pytest.approx(k * b ** a / (n / 0.9), rel=1e-12)
    # a census: u = 1, so the first equation reads K beta^alpha = f_1
    assert re.snb(sizes, 1.0) == pytest.approx(c1 / n, rel=1e-6)


def test_snb_without_a_root():
    # ARX's solver finds no root for most data at small and medium fractions
    sizes = np.random.default_rng(4).geometric(0.4, size=300)
    assert math.isnan(re.snb(sizes, 0.05)) and math.isnan(re.snb(sizes, 0.5))
    assert re.snb(np.array([2, 3]), 0.5) == 0.0  # no sample uniques


def test_dankar_rule_by_hand():
    nan = math.nan
    # up to 10 %: Pitman; Zayatz where Pitman is NaN or 0 (or NaN without fallback)
    assert re.dankar_rule(0.05, 0.1, 0.2, 0.05) == 0.1
    assert re.dankar_rule(0.1, 0.1, 0.2, 0.05) == 0.1
    assert re.dankar_rule(0.05, nan, 0.2, 0.05) == 0.2
    assert re.dankar_rule(0.05, 0.0, 0.2, 0.05) == 0.2
    assert math.isnan(re.dankar_rule(0.05, nan, 0.2, 0.05, zayatz_fallback=False))
    # above: the smaller of Zayatz and SNB; Zayatz where SNB is NaN or 0
    assert re.dankar_rule(0.3, 0.1, 0.25, 0.2) == 0.2
    assert re.dankar_rule(0.3, 0.1, 0.25, 0.3) == 0.25
    assert re.dankar_rule(0.3, 0.1, 0.25, nan) == 0.25
    assert re.dankar_rule(0.3, 0.1, 0.25, 0.0) == 0.25
    assert re.dankar_rule(0.3, 0.1, nan, 0.2) == 0.2
    assert re.dankar_rule(0.3, nan, 0.25, nan, zayatz_fallback=False) == 0.25
    got = re.dankar_rule(np.array([0.05, 0.3, 0.3]), np.array([0.1, 0.1, 0.1]),
                         np.array([0.2, 0.25, 0.25]), np.array([nan, 0.2, nan]))
    assert got.tolist() == [0.1, 0.2, 0.25]


def test_dankar_rule():
    rng = np.random.default_rng(4)
    sizes = rng.geometric(0.4, size=300)
    assert re.dankar(sizes, 0.05) == re.pitman(sizes, 0.05)
    assert re.dankar(sizes, 0.3) == re.zayatz(sizes, 0.3)  # SNB has no root there
    snb, zayatz = re.snb(sizes, 0.9), re.zayatz(sizes, 0.9)
    assert snb < zayatz and re.dankar(sizes, 0.9) == snb
    assert re.dankar(np.array([2, 3]), 0.05, zayatz_fallback=False) == 0.0


def test_estimators_shrink_with_the_sampling_fraction_small():
    sizes = np.array([1] * 50 + [2] * 30 + [5] * 20)
    for name in ("pitman", "zayatz"):
        small = re.population_uniqueness(sizes, 0.001, name)
        large = re.population_uniqueness(sizes, 0.5, name)
        assert 0 <= small < large <= re.sample_uniqueness(sizes) + 1e-12


def test_registry_and_errors():
    assert set(re.ESTIMATORS) == {"pitman", "zayatz", "snb", "dankar"}
    with pytest.raises(ValueError):
        re.population_uniqueness(np.array([1, 2]), 0.1, "chao")
    assert re.sample_uniqueness(np.array([1, 1, 2])) == pytest.approx(0.5)
