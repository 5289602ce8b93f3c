"""sdcMicro's perturbative methods on insensitive attributes: PRAM, noise addition, rank
swapping and shuffling (``[attributes."x"] transformation = "pram" | "noise" |
"rank-swapping" | "shuffling"``; docs/guide/survey-methods.md).

- ``pram`` (Gouweleeuw et al. 1998; sdcMicro's ``pram``): each category keeps its
  value with a probability drawn uniformly between ``pd`` and 1, else moves to one of
  the other categories with equal probability (the matrix P). Invariant PRAM (the
  default, as sdcMicro) releases by ``R = alpha * P Q + (1 - alpha) * I`` where Q is
  P's Bayes inverse under the observed frequencies ``p`` (``Q[k, j] = P[j, k] p_j /
  sum_i p_i P[i, k]``), so that ``p R = p``: the expected frequencies are the
  observed ones. With ``strata`` the matrix is built and applied within each group of
  the strata columns' input values, on the group's own categories (values stay
  possible within their group). Missing values (empty, NULL) stay as they are.
- ``noise`` (sdcMicro's ``addNoise``): ``additive``: ``x + N(0, (noise/100 sd(x))^2)``
  per attribute; ``correlated`` (Kim 1986): the attributes with this method together,
  ``x + N(0, noise/100 Cov(x))``; ``correlated2`` (Kim 1986, Brand 2002):
  ``x sqrt(1 - delta^2) + delta e``, ``e ~ N((1 - sqrt(1 - delta^2)) / delta mean(x),
  sd(x)^2)``, which keeps mean and variance.
- ``rank-swapping`` (Moore 1996; sdcMicro's ``rankSwap`` with ``P``): values sorted,
  each value not yet swapped is swapped with a random one not yet swapped whose rank is
  at most ``swap_percent`` percent of the records above it.
- ``shuffling``: with ``predictors`` (numeric columns), data shuffling (Muralidhar and
  Sarathy 2006; sdcMicro's ``shuffle``, method "ds"): the attribute is regressed on the
  predictors, new values are drawn from the fitted model (prediction plus normal noise
  of the residuals' variance), and the original values are handed out in the order of
  the drawn ones (reverse mapping): the release is a permutation of the input's values
  that keeps their relation to the predictors. Without predictors, a random
  permutation (every relation to other columns broken). Within strata either way.

Every method draws from a generator seeded by the attribute's ``seed``, else
``[transformation] seed``, else one fresh draw per run; the seed is never written to
the report (with the seed and the release, noise could be subtracted again).
"""
from __future__ import annotations

import threading
import weakref
import zlib
from dataclasses import dataclass, field

import numpy as np

from engine.config import INSENSITIVE, PERTURBATIONS
from engine.errors import DataError, JobError

MISSING = ("", "NULL")
DEFAULT_PD = 0.8
DEFAULT_ALPHA = 0.5
DEFAULT_NOISE = 150.0
DEFAULT_DELTA = 0.1
DEFAULT_SWAP_PERCENT = 5.0

#: which keys each method takes (the others are refused on its attribute)
METHOD_KEYS = {
    "pram": ("pd", "alpha", "invariant", "strata", "seed"),
    "noise": ("noise", "noise_method", "delta", "seed"),
    "rank-swapping": ("swap_percent", "seed"),
    "shuffling": ("strata", "predictors", "seed"),
}
ALL_KEYS = ("pd", "alpha", "invariant", "strata", "predictors", "noise", "noise_method",
            "delta", "swap_percent", "seed")


def check_keys(cfg, where: str) -> None:
    """Refuse perturbation keys that do not apply (called when the job is read)."""
    method = cfg.transformation
    allowed = METHOD_KEYS.get(method, ())
    for key in ALL_KEYS:
        if getattr(cfg, key) is not None and key not in allowed:
            takes = [m for m, keys in METHOD_KEYS.items() if key in keys]
            raise JobError(f"{where} {key} only applies to transformation = "
                           + " or ".join(f'"{m}"' for m in takes))
    if method not in PERTURBATIONS:
        return
    if cfg.type != INSENSITIVE:
        raise JobError(f"{where}: transformation = \"{method}\" applies to insensitive "
                       f"attributes; this one is {cfg.type} (quasi-identifiers are "
                       f"generalized and counted, sensitive values judged by the models)")
    if cfg.alpha is not None and not cfg.invariant:
        raise JobError(f"{where} alpha only applies to invariant = true (sdcMicro's "
                       f"invariant PRAM)")
    if cfg.delta is not None and cfg.noise_method != "correlated2":
        raise JobError(f"{where} delta only applies to noise_method = \"correlated2\"")
    if cfg.noise is not None and cfg.noise_method == "correlated2":
        raise JobError(f"{where} noise_method = \"correlated2\" is sized by delta, not noise")


def perturbed_names(job) -> list[str]:
    """The attributes a perturbative method releases, in the job's order."""
    return [n for n, a in job.attributes.items()
            if a.transformation in PERTURBATIONS and a.type == INSENSITIVE]


def check_job(job) -> None:
    """Cross-attribute rules: correlated noise needs two attributes at least; strata
    name columns that are not the attribute itself."""
    correlated = [n for n in perturbed_names(job)
                  if job.attributes[n].transformation == "noise"
                  and job.attributes[n].noise_method == "correlated"]
    if len(correlated) == 1:
        raise JobError(f"[attributes.\"{correlated[0]}\"] noise_method = \"correlated\" adds "
                       f"noise correlated as several attributes are: give it to two or more "
                       f"(or use \"additive\")")
    seeds = {job.attributes[n].seed for n in correlated}
    if len(seeds) > 1:
        raise JobError("the attributes with noise_method = \"correlated\" are perturbed "
                       "together: give them the same seed (or none)")
    for n in perturbed_names(job):
        strata = _strata(job.attributes[n])
        if n in strata:
            raise JobError(f"[attributes.\"{n}\"] strata names the attribute itself")
        if n in _predictors(job.attributes[n]):
            raise JobError(f"[attributes.\"{n}\"] predictors names the attribute itself")


def check_sdc_methods(job) -> None:
    """Every rule of the job file's reader about cell suppression and perturbations,
    for a job built otherwise (the app, the Python API)."""
    from engine.transform.cell_suppression import cells_mode, check_cell_suppression
    for name, a in job.attributes.items():
        check_keys(a, f"[attributes.\"{name}\"]")
    check_cell_suppression(job)
    check_job(job)
    backend = getattr(getattr(job, "engine", None), "backend", "auto")
    what = (["cell suppression"] if cells_mode(job) else []) + perturbed_names(job)
    if what and backend in ("duckdb", "spark"):
        raise JobError(f"[engine] backend = \"{backend}\": {', '.join(what)} change(s) "
                       f"records one by one and run(s) in memory: use backend = \"memory\"")


def _predictors(cfg) -> tuple[str, ...]:
    s = getattr(cfg, "predictors", None)
    if s is None:
        return ()
    return (s,) if isinstance(s, str) else tuple(s)


def _strata(cfg) -> tuple[str, ...]:
    s = cfg.strata
    if s is None:
        return ()
    return (s,) if isinstance(s, str) else tuple(s)


# --- the perturbed columns of a problem ---------------------------------------------------
@dataclass
class Perturbed:
    """The released values of the perturbed attributes, and what was done (no seed)."""

    values: dict = field(default_factory=dict)
    report: dict = field(default_factory=dict)


_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def perturbed(problem) -> Perturbed:
    """The perturbed columns of ``problem`` (computed once per problem, so every view
    of the release, and the utility figures, see the same draws)."""
    with _LOCK:
        found = _CACHE.get(problem)
    if found is not None:
        return found
    built = perturb_table(problem.job, problem.table)
    with _LOCK:
        return _CACHE.setdefault(problem, built)


def _seed(job, cfg) -> int:
    if cfg.seed is not None:
        return int(cfg.seed)
    if job.transformation.seed is not None:
        return int(job.transformation.seed)
    return int(np.random.SeedSequence().entropy % (2**63))


def _rng(seed: int, tag: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(tag.encode("utf-8"))])


def _strings(table, name: str) -> np.ndarray:
    if name not in table:
        raise DataError(f"the data has no column '{name}' (named by the job's perturbation "
                        f"settings)")
    return np.asarray([str(v) for v in table.column(name).values()], dtype=object)


def parse_numbers(values: np.ndarray, name: str, method: str) -> np.ndarray:
    """Strings as floats, NaN for missing values; a clear error naming the value."""
    out = np.full(len(values), np.nan)
    for i, v in enumerate(values):
        s = str(v).strip()
        if s in MISSING:
            continue
        try:
            out[i] = float(s)
        except ValueError:
            raise DataError(f"attribute '{name}': value {s!r} (data row {i + 1}) is not a "
                            f"number; {method} needs numbers") from None
        if not np.isfinite(out[i]):
            raise DataError(f"attribute '{name}': value {s!r} (data row {i + 1}) is not a "
                            f"finite number; {method} needs finite numbers")
    return out


def format_numbers(x: np.ndarray, original: np.ndarray) -> np.ndarray:
    """Released numbers as text (the shortest form that reads back exactly); missing
    values as they were."""
    out = original.copy()
    for i in np.flatnonzero(~np.isnan(x)):
        v = float(x[i])
        out[i] = str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    return out


def perturb_table(job, table) -> Perturbed:
    """Apply every perturbative method of ``job`` to ``table`` (an EncodedTable)."""
    names = perturbed_names(job)
    result = Perturbed()
    if not names:
        return result
    if table.weights is not None:
        raise DataError("perturbative methods (" + ", ".join(names) + ") change records one "
                        "by one: run the job with [engine] backend = \"memory\"")
    correlated = []
    for name in names:
        cfg = job.attributes[name]
        values = _strings(table, name)
        seed = _seed(job, cfg)
        strata = _strata_codes(table, _strata(cfg))
        if cfg.transformation == "pram":
            out, rep = pram_column(values, strata, cfg, _rng(seed, name), table, _strata(cfg))
        elif cfg.transformation == "noise":
            method = cfg.noise_method or "additive"
            if method == "correlated":
                correlated.append((name, values, seed))
                continue
            x = parse_numbers(values, name, "noise addition")
            y, rep = noise_column(x, cfg, _rng(seed, name))
            out = format_numbers(y, values)
        elif cfg.transformation == "rank-swapping":
            x = parse_numbers(values, name, "rank swapping")
            percent = cfg.swap_percent if cfg.swap_percent is not None else DEFAULT_SWAP_PERCENT
            y, rep = rank_swap_column(x, percent, _rng(seed, name))
            out = format_numbers(y, values)
            # swapped values are the input's own strings (no reformatting)
            out = _as_input_strings(values, x, y, out)
        else:  # shuffling
            predictors = _predictors(cfg)
            if predictors:
                x = parse_numbers(values, name, "data shuffling")
                design = np.column_stack([parse_numbers(_strings(table, p), p,
                                                        "data shuffling (a predictor)")
                                          for p in predictors])
                y, rep = model_shuffle(x, design, strata, _rng(seed, name))
                out = _as_input_strings(values, x, y, format_numbers(y, values))
                rep["predictors"] = list(predictors)
            else:
                out, rep = shuffle_column(values, strata, _rng(seed, name))
            rep["strata"] = list(_strata(cfg))
        result.values[name] = out
        result.report[name] = rep
    if correlated:
        cols = [n for n, _, _ in correlated]
        x = np.column_stack([parse_numbers(v, n, "noise addition") for n, v, _ in correlated])
        cfg = job.attributes[cols[0]]
        noise = cfg.noise if cfg.noise is not None else DEFAULT_NOISE
        y, cov = correlated_noise(x, noise, _rng(correlated[0][2], "correlated:" + ",".join(cols)))
        for j, (n, v, _) in enumerate(correlated):
            result.values[n] = format_numbers(y[:, j], v)
            result.report[n] = {"method": "noise", "noise_method": "correlated",
                                "noise_percent": noise, "together_with": cols,
                                "noise_covariance": cov.tolist()}
    return result


def _as_input_strings(values: np.ndarray, x: np.ndarray, y: np.ndarray,
                      out: np.ndarray) -> np.ndarray:
    """Swapped numbers written as the input wrote them (a value moves with its text)."""
    text = {}
    for v, s in zip(x, values):
        if not np.isnan(v):
            text.setdefault(float(v), s)
    res = out.copy()
    for i in np.flatnonzero(~np.isnan(y)):
        res[i] = text[float(y[i])]
    return res


def _strata_codes(table, strata: tuple[str, ...]) -> np.ndarray | None:
    if not strata:
        return None
    cols = [np.asarray(table.column(_check_column(table, s)).codes, dtype=np.int64)
            for s in strata]
    key = np.zeros(len(cols[0]), dtype=np.int64)
    for c in cols:
        key = key * (int(c.max()) + 1 if len(c) else 1) + c
    return np.unique(key, return_inverse=True)[1]


def _check_column(table, name: str) -> str:
    if name not in table:
        raise DataError(f"strata: the data has no column '{name}'")
    return name


# --- PRAM -----------------------------------------------------------------------------------
def pram_matrix(freq: np.ndarray, pd: float, alpha: float, invariant: bool,
                rng: np.random.Generator) -> np.ndarray:
    """The transition matrix of categories with observed counts ``freq`` (rows: the
    original category, columns: the released one; each row sums to 1)."""
    n_cat = len(freq)
    if n_cat == 1:
        return np.ones((1, 1))
    pds = rng.uniform(pd, 1.0, n_cat)
    p_mat = np.repeat(((1.0 - pds) / (n_cat - 1))[:, None], n_cat, axis=1)
    np.fill_diagonal(p_mat, pds)
    if not invariant:
        return p_mat
    p = np.asarray(freq, dtype=float) / float(np.sum(freq))
    s = p @ p_mat  # s_k = sum_j p_j P[j, k]
    q = np.zeros_like(p_mat)
    for k in range(n_cat):
        if s[k] > 0:
            q[k, :] = p_mat[:, k] * p / s[k]
        else:
            q[k, k] = 1.0
    r = p_mat @ q
    out = alpha * r + (1.0 - alpha) * np.eye(n_cat)
    return out / out.sum(axis=1, keepdims=True)


def pram_draw(codes: np.ndarray, matrix: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each code moved to a category drawn from its row of ``matrix``."""
    cum = np.cumsum(matrix, axis=1)
    cum[:, -1] = 1.0
    u = rng.random(len(codes))
    out = np.empty(len(codes), dtype=np.int64)
    for c in range(matrix.shape[0]):
        at = np.flatnonzero(codes == c)
        if len(at):
            out[at] = np.minimum(np.searchsorted(cum[c], u[at], side="right"),
                                 matrix.shape[0] - 1)
    return out


def pram_column(values: np.ndarray, strata: np.ndarray | None, cfg, rng,
                table, strata_names) -> tuple[np.ndarray, dict]:
    pd = cfg.pd if cfg.pd is not None else DEFAULT_PD
    alpha = cfg.alpha if cfg.alpha is not None else DEFAULT_ALPHA
    invariant = bool(cfg.invariant)
    missing = np.array([v.strip() in MISSING for v in values], dtype=bool)
    groups = np.zeros(len(values), dtype=np.int64) if strata is None else strata
    out = values.copy()
    matrices = []
    for g in np.unique(groups):
        rows = np.flatnonzero((groups == g) & ~missing)
        if not len(rows):
            continue
        cats, codes, freq = np.unique(values[rows].astype(str), return_inverse=True,
                                      return_counts=True)
        matrix = pram_matrix(freq, pd, alpha, invariant, rng)
        drawn = pram_draw(codes, matrix, rng)
        out[rows] = cats[drawn].astype(object)
        entry = {"categories": [str(c) for c in cats], "matrix": matrix.tolist(),
                 "records": int(len(rows))}
        if strata is not None:
            first = rows[0]
            entry["stratum"] = {s: str(table.column(s).values(np.array([first]))[0])
                                for s in strata_names}
        matrices.append(entry)
    changed = int((out != values).sum())
    return out, {"method": "pram", "pd": pd, "alpha": alpha if invariant else None,
                 "invariant": invariant, "strata": list(strata_names),
                 "transition_matrices": matrices, "changed_records": changed,
                 "changed_percent": 100.0 * changed / max(len(values), 1)}


# --- noise ------------------------------------------------------------------------------------
def noise_column(x: np.ndarray, cfg, rng) -> tuple[np.ndarray, dict]:
    """Additive or correlated2 noise on one attribute (NaN: missing, left missing)."""
    method = cfg.noise_method or "additive"
    ok = ~np.isnan(x)
    n = int(ok.sum())
    sd = float(np.std(x[ok], ddof=1)) if n > 1 else 0.0
    y = x.copy()
    if method == "additive":
        noise = cfg.noise if cfg.noise is not None else DEFAULT_NOISE
        scale = noise / 100.0 * sd
        y[ok] = x[ok] + rng.normal(0.0, 1.0, n) * scale
        return y, {"method": "noise", "noise_method": "additive", "noise_percent": noise,
                   "noise_sd": scale}
    delta = cfg.delta if cfg.delta is not None else DEFAULT_DELTA
    d1 = float(np.sqrt(1.0 - delta * delta))
    mean = float(np.mean(x[ok])) if n else 0.0
    e = rng.normal(0.0, 1.0, n) * sd + (1.0 - d1) / delta * mean
    y[ok] = x[ok] * d1 + delta * e
    return y, {"method": "noise", "noise_method": "correlated2", "delta": delta}


def correlated_noise(x: np.ndarray, noise: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Kim's correlated noise: ``x + N(0, noise/100 Cov(x))`` on several attributes
    (covariance of the records complete in all of them; missing cells stay missing)."""
    complete = ~np.isnan(x).any(axis=1)
    if complete.sum() < 2:
        raise DataError("correlated noise needs two records with every attribute given")
    cov = np.atleast_2d(np.cov(x[complete], rowvar=False)) * (noise / 100.0)
    draws = rng.multivariate_normal(np.zeros(x.shape[1]), cov, size=len(x),
                                    method="eigh")
    return x + draws, cov


# --- rank swapping and shuffling ----------------------------------------------------------------
def rank_swap_column(x: np.ndarray, percent: float, rng) -> tuple[np.ndarray, dict]:
    from engine.kernel.cells import rank_swap
    ok = np.flatnonzero(~np.isnan(x))
    n = len(ok)
    window = int(np.floor(percent * n / 100.0))
    order = ok[np.argsort(x[ok], kind="stable")]
    swapped = rank_swap(x[order], window, rng.random(n)) if n else x[order]
    y = x.copy()
    y[order] = swapped
    moved = int((y[ok] != x[ok]).sum())
    return y, {"method": "rank-swapping", "swap_percent": percent, "rank_window": window,
               "changed_records": moved}


def shuffle_column(values: np.ndarray, strata: np.ndarray | None, rng) -> tuple[np.ndarray, dict]:
    groups = np.zeros(len(values), dtype=np.int64) if strata is None else strata
    out = values.copy()
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        out[rows] = values[rows[rng.permutation(len(rows))]]
    changed = int((out != values).sum())
    return out, {"method": "shuffling", "changed_records": changed}


def model_shuffle(y: np.ndarray, x: np.ndarray, strata: np.ndarray | None,
                  rng) -> tuple[np.ndarray, dict]:
    """Data shuffling: ``y`` regressed on ``x`` (with an intercept) by least squares,
    ``y*`` drawn as the prediction plus N(0, residual variance), and the values of
    ``y`` handed out in the order of ``y*`` (ties of ``y*``: by record order). Records
    with a missing ``y`` or predictor keep their value. Within strata."""
    out = y.copy()
    groups = np.zeros(len(y), dtype=np.int64) if strata is None else strata
    ok_all = ~np.isnan(y) & ~np.isnan(x).any(axis=1)
    r2 = []
    for g in np.unique(groups):
        rows = np.flatnonzero((groups == g) & ok_all)
        if len(rows) < 2:
            continue
        design = np.column_stack([np.ones(len(rows)), x[rows]])
        beta, *_ = np.linalg.lstsq(design, y[rows], rcond=None)
        fitted = design @ beta
        resid = y[rows] - fitted
        dof = max(len(rows) - design.shape[1], 1)
        sigma = float(np.sqrt(resid @ resid / dof))
        drawn = fitted + rng.normal(0.0, 1.0, len(rows)) * sigma
        ranks = np.argsort(np.argsort(drawn, kind="stable"), kind="stable")
        out[rows] = np.sort(y[rows], kind="stable")[ranks]
        total = float(((y[rows] - y[rows].mean()) ** 2).sum())
        r2.append(1.0 - float(resid @ resid) / total if total > 0 else 1.0)
    changed = int((out[ok_all] != y[ok_all]).sum())
    return out, {"method": "shuffling", "model": "data shuffling (reverse mapping)",
                 "r_squared": r2, "changed_records": changed}
