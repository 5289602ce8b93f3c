"""What sdcMicro's methods did to a release, for the result JSON and the report: cell
suppression's figures, and per perturbed attribute its method, parameters (the PRAM
transition matrices; never a seed) and utility figures (sdcMicro's ``dUtility``):

- ``il1s``: ``1/(p n) sum_j sum_i |x_ij - x'_ij| / (sqrt(2) S_j)`` (Mateo-Sanz et al.
  2005; ``S_j`` the original's standard deviation). sdcMicro's ``dUtility(method =
  "IL1")`` multiplies by sqrt(2) instead of dividing, which gives twice this figure:
  ``il1s_sdcmicro``;
- ``eigen``: ``sum_k |e_k - e'_k| / e_k`` over the eigenvalues of the correlation
  matrices of the original and the perturbed attributes (sdcMicro's ``"eigen"``);
- the means, variances and correlations before and after.
"""
from __future__ import annotations

import numpy as np

from engine.transform.cell_suppression import cell_figures, cells_mode
from engine.transform.perturbation import parse_numbers, perturbed, perturbed_names


def sdc_methods_report(problem, released) -> dict:
    out: dict = {}
    if cells_mode(problem.job):
        out["cell_suppression"] = cell_figures(released)
    names = [n for n in perturbed_names(problem.job) if n in released.names]
    if names:
        done = perturbed(problem)
        out["perturbation"] = {
            "attributes": {n: {**done.report[n], **_frequencies(problem, n, done)}
                           for n in names},
            "utility": perturbation_utility(problem, names, done)}
    return out


def _floats(values) -> np.ndarray | None:
    """The values as numbers (NaN for missing ones), or None when one is no number."""
    from engine.errors import DataError
    try:
        return parse_numbers(np.asarray(values, dtype=object), "", "")
    except DataError:
        return None


def _frequencies(problem, name: str, done) -> dict:
    """PRAM and categorical shuffling: the categories' counts before and after."""
    if done.report[name]["method"] != "pram":
        return {}
    before = problem.table.column(name).values()
    cats, n0 = np.unique(np.asarray(before, dtype=str), return_counts=True)
    after = dict(zip(*np.unique(np.asarray(done.values[name], dtype=str),
                                return_counts=True)))
    return {"frequencies": {str(c): {"before": int(a), "after": int(after.get(c, 0))}
                            for c, a in zip(cats, n0)}}


def il1s(x: np.ndarray, y: np.ndarray) -> float:
    """IL1s of original columns ``x`` and released ``y`` (records x attributes; NaN:
    missing, left out)."""
    total, cells = 0.0, 0
    for j in range(x.shape[1]):
        ok = ~np.isnan(x[:, j]) & ~np.isnan(y[:, j])
        sd = float(np.std(x[ok, j], ddof=1)) if ok.sum() > 1 else 0.0
        if sd > 0:
            total += float(np.abs(x[ok, j] - y[ok, j]).sum()) / (np.sqrt(2.0) * sd)
        cells += int(ok.sum())
    return total / cells if cells else 0.0


def eigen_measure(x: np.ndarray, y: np.ndarray) -> float | None:
    """sdcMicro's eigenvalue measure on the complete records (None: fewer than two
    attributes or records, or a constant attribute)."""
    ok = ~np.isnan(x).any(axis=1) & ~np.isnan(y).any(axis=1)
    if x.shape[1] < 1 or ok.sum() < 3:
        return None
    cx = np.atleast_2d(np.corrcoef(x[ok], rowvar=False))
    cy = np.atleast_2d(np.corrcoef(y[ok], rowvar=False))
    if not (np.isfinite(cx).all() and np.isfinite(cy).all()):
        return None
    e1 = np.sort(np.linalg.eigvalsh(cx))[::-1]
    e2 = np.sort(np.linalg.eigvalsh(cy))[::-1]
    keep = np.abs(e1) > 1e-12
    return float(np.sum(np.abs(e1[keep] - e2[keep]) / e1[keep]))


def perturbation_utility(problem, names: list[str], done) -> dict:
    """The utility figures of the numeric perturbed attributes."""
    cols, xs, ys = [], [], []
    for n in names:
        x = _floats(problem.table.column(n).values())
        y = _floats(done.values[n])
        if x is not None and y is not None:
            cols.append(n)
            xs.append(x)
            ys.append(y)
    if not cols:
        return {}
    x, y = np.column_stack(xs), np.column_stack(ys)
    per = {}
    for j, n in enumerate(cols):
        ok = ~np.isnan(x[:, j]) & ~np.isnan(y[:, j])
        m0, m1 = float(np.mean(x[ok, j])), float(np.mean(y[ok, j]))
        v0, v1 = float(np.var(x[ok, j], ddof=1)), float(np.var(y[ok, j], ddof=1))
        per[n] = {"mean_before": m0, "mean_after": m1, "variance_before": v0,
                  "variance_after": v1,
                  "mean_change_percent": 100.0 * (m1 - m0) / abs(m0) if m0 else None,
                  "variance_change_percent": 100.0 * (v1 - v0) / v0 if v0 else None,
                  "il1s": il1s(x[:, [j]], y[:, [j]])}
    out = {"attributes": per, "il1s": il1s(x, y)}
    out["il1s_sdcmicro"] = 2.0 * out["il1s"]
    out["eigen"] = eigen_measure(x, y)
    if len(cols) > 1:
        ok = ~np.isnan(x).any(axis=1) & ~np.isnan(y).any(axis=1)
        cx, cy = np.corrcoef(x[ok], rowvar=False), np.corrcoef(y[ok], rowvar=False)
        out["correlations"] = [
            {"attributes": [cols[a], cols[b]], "before": float(cx[a, b]),
             "after": float(cy[a, b])}
            for a in range(len(cols)) for b in range(a + 1, len(cols))]
    return out
