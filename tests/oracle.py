"""Load ARX's oracle (../shared/oracle) into engine jobs, for tests and benchmarks."""
from __future__ import annotations

import functools
import json
import math
from pathlib import Path

from tests.shared_data import SHARED
from engine.config import (AttributeConfig, Job, QUASI_IDENTIFYING, SENSITIVE,
                           TransformationConfig)
from engine.data.csv_import import read_csv
from engine.data.table import EncodedTable
from engine.hierarchy import read_hierarchy
from engine.metrics import metric_from_dict
from engine.privacy import model_from_dict

ORACLE = SHARED / "oracle"

AGGREGATES = {"Geometric mean": "geometric-mean", "Arithmetric mean": "arithmetic-mean",
              "Arithmetic mean": "arithmetic-mean", "Sum": "sum", "Maximum": "max",
              "Rank": "rank", None: None}
METRIC_NAMES = {
    "MetricMDNMLoss": ("loss", False), "MetricMDNMLossPotentiallyPrecomputed": ("loss", False),
    "MetricMDNUEntropyPotentiallyPrecomputed": ("entropy", True),
    "MetricMDNUNMEntropyPotentiallyPrecomputed": ("entropy", False),
    "MetricMDNUNMEntropy": ("entropy", False), "MetricMDNUEntropy": ("entropy", True),
    "MetricSDAECS": ("aecs", False), "MetricSDNMDiscernability": ("discernibility", False),
    "MetricSDDiscernability": ("discernibility", True), "MetricMDHeight": ("height", True),
    "MetricMDNMPrecision": ("precision", False), "MetricMDPrecision": ("precision", True),
    "MetricSDNMEntropyBasedInformationLoss": ("entropy-based-loss", False),
    "MetricSDNMPublisherPayout": ("publisher-payout", False),
    "MetricSDClassification": ("classification", False),
}


@functools.lru_cache(maxsize=1)
def cases() -> list[dict]:
    return json.loads((ORACLE / "cases.json").read_text())["cases"]


@functools.lru_cache(maxsize=1)
def metric_values() -> list[dict]:
    return json.loads((ORACLE / "metric_values.json").read_text())["values"]


@functools.lru_cache(maxsize=4)
def table(dataset: str) -> EncodedTable:
    return EncodedTable.from_dataframe(read_csv(SHARED / dataset, delimiter=";"))


@functools.lru_cache(maxsize=64)
def hierarchy(path: str, attribute: str):
    return read_hierarchy(SHARED / path, attribute, delimiter=";")


KMAP_ESTIMATORS = {None: "none", "Poisson": "poisson",
                   "Zero-truncated Poisson": "zero-truncated-poisson"}
SENSITIVE_MODELS = ("t-closeness", "recursive-(c,l)-diversity", "distinct-l-diversity",
                    "entropy-l-diversity", "basic-beta-likeness", "enhanced-beta-likeness",
                    "delta-disclosure")


def privacy_dict(m: dict, case_budget: float | None = None,
                 case_steps: int | None = None) -> dict:
    t = m["type"]
    if t == "k-anonymity":
        return {"model": "k-anonymity", "k": m["k"]}
    if t == "delta-presence":
        return {"model": "delta-presence", "delta_min": m["dmin"], "delta_max": m["dmax"]}
    if t == "research-subset (Inclusion)":
        return {"model": "delta-presence", "delta_min": 0.0, "delta_max": 1.0}
    if t == "t-closeness":
        return {"model": "t-closeness", "attribute": m["attribute"], "t": m["t"],
                "distance": m["ground_distance"]}
    if t == "recursive-(c,l)-diversity":
        return {"model": "recursive-cl-diversity", "attribute": m["attribute"],
                "c": m["c"], "l": int(m["l"])}
    if t == "distinct-l-diversity":
        return {"model": "distinct-l-diversity", "attribute": m["attribute"], "l": int(m["l"])}
    if t == "entropy-l-diversity":
        return {"model": "entropy-l-diversity", "attribute": m["attribute"], "l": m["l"],
                "estimator": m["estimator"].lower()}
    if t in ("basic-beta-likeness", "enhanced-beta-likeness"):
        return {"model": "beta-likeness", "attribute": m["attribute"], "beta": m["beta"],
                "enhanced": t.startswith("enhanced")}
    if t == "delta-disclosure":
        return {"model": "delta-disclosure", "attribute": m["attribute"], "delta": m["delta"]}
    if t == "k-map":
        return {"model": "k-map", "k": m["k"], "estimator": KMAP_ESTIMATORS[m.get("estimator")],
                "significance": m.get("significance_level") or 0.01}
    if t == "sample-uniqueness":
        return {"model": "sample-uniqueness", "threshold": m["threshold"]}
    if t == "population-uniqueness":
        return {"model": "population-uniqueness", "threshold": m["threshold"],
                "estimator": m["model"].lower()}
    if t.startswith("Profitability"):
        cb = m["cost_benefit"]
        return {"model": "profitability",
                "attacker": "journalist" if "Journalist" in t else "prosecutor",
                "allow_attack": not t.endswith("NoAttack"),
                "publisher_benefit": cb["publisherBenefit"], "publisher_loss": cb["publisherLoss"],
                "adversary_gain": cb["adversaryGain"], "adversary_cost": cb["adversaryCost"]}
    if t.startswith("(epsilon,delta)-differential-privacy"):
        return {"model": "differential-privacy", "epsilon": m["epsilon"], "delta": m["delta"],
                "generalization": ("data-dependent" if m.get("data_dependent")
                                   else m.get("generalization_degree", "LOW_MEDIUM").lower()
                                   .replace("_", "-")),
                "seed": 0, "search_budget": (case_budget or 0.1),
                "search_steps": case_steps if case_steps and case_steps < 2**31 - 1 else 100}
    raise NotImplementedError(t)


def subset_of(case: dict) -> dict | None:
    """The job's [subset] table: the research subset file one of the models names."""
    for m in case["privacy_models"]:
        rs = m.get("research_subset")
        if rs and rs.get("file"):
            return {"rows": f"oracle/{rs['file'].removeprefix('oracle/')}"}
    return None


def population_of(case: dict) -> dict | None:
    for m in case["privacy_models"]:
        if m.get("population_size"):
            return {"size": m["population_size"]}
    return None


def metric_dict(metric: dict) -> dict:
    name, mono = METRIC_NAMES[metric["arx_class"]]
    p = metric["params"]
    d = {"name": name, "monotonic": bool(p.get("monotonic_with_suppression", mono)) if
         name not in ("height",) else True, "gs_factor": p["gs_factor"]}
    agg = AGGREGATES[p.get("aggregate_function")]
    if agg:
        d["aggregate"] = agg
    return d


def payout_params(case: dict) -> dict:
    """The publisher-payout metric's parameters: the costs and benefits of the case's
    profitability model, and the metric's own attacker model (ARX's
    ``MetricSDNMPublisherPayout`` is set up separately from the privacy model:
    "PublisherBenefit (Prosecutor, ...)" even with a journalist privacy model)."""
    for m in case["privacy_models"]:
        if m["type"].startswith("Profitability"):
            params = {k: v for k, v in privacy_dict(m).items()
                      if k not in ("model", "allow_attack")}
            shown = case["metric"].get("arx_toString") or ""
            for attacker in ("prosecutor", "journalist"):
                if f"({attacker.capitalize()}" in shown:
                    params["attacker"] = attacker
            return params
    return {}


def job_for(case: dict) -> Job:
    attrs = {}
    paths = case.get("hierarchies") or {
        q: f"{Path(case['dataset']).parent}/{Path(case['dataset']).stem}_hierarchy_{q}.csv"
        for q in case["qis"]}
    for q in case["qis"]:
        attrs[q] = AttributeConfig(QUASI_IDENTIFYING, hierarchy(paths[q], q), paths[q],
                                   weight=(case.get("attribute_weights") or {}).get(q))
    sens = case.get("sensitive")
    if sens and any(m["type"] in SENSITIVE_MODELS for m in case["privacy_models"]):
        hpath = next((m["hierarchy"] for m in case["privacy_models"] if m.get("hierarchy")),
                     None)
        attrs[sens] = AttributeConfig(SENSITIVE, hierarchy(hpath, sens) if hpath else None,
                                      hpath)
    md = metric_dict(case["metric"])
    if md["name"] == "publisher-payout":
        md.update(payout_params(case))
    if md["name"] == "classification":
        md["response"] = list(case["response_variables"])
    metric = metric_from_dict(md)
    params = case.get("algorithm_params") or {}
    return Job(attributes=attrs,
               privacy=[model_from_dict(privacy_dict(
                   m, params.get("dpSearchBudget"), params.get("heuristicSearchStepLimit")))
                   for m in case["privacy_models"]],
               transformation=TransformationConfig(
                   suppression_limit=case["suppression_limit"],
                   practical_monotonicity=bool(case.get("practical_monotonicity"))),
               metric=metric, subset=subset_of(case), population=population_of(case),
               base_dir=SHARED)


def verify_job(case: dict) -> Job:
    """`job_for` naming the case's data file (``[data] path``): what `verify` reads when
    it needs the input (a research subset's population, resolved on the input)."""
    import dataclasses
    job = job_for(case)
    return dataclasses.replace(job, data=dataclasses.replace(
        job.data, path=case["dataset"], delimiter=";"))


def expected_loss(case: dict):
    v = case["expected_loss"]
    if v is None:
        return None
    if isinstance(v, str) and v.startswith("["):
        v = json.loads(v)
    if isinstance(v, list):
        return tuple(float(x) for x in v)
    return float(v)


def close(got, expected) -> bool:
    """Equal within ARX's tolerance (1e-9 relative), numbers or rank vectors."""
    if isinstance(expected, tuple):
        return len(got) == len(expected) and all(
            math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, b in zip(got, expected))
    return math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)


def not_worse(got, expected) -> bool:
    """Equal within tolerance, or lower (rank vectors compared lexicographically)."""
    if close(got, expected):
        return True
    return tuple(got) < tuple(expected) if isinstance(expected, tuple) else got < expected


def search_reaches_arx(case: dict):
    """Run the optimal search on an OPTIMAL case and assert ARX's result: no optimum
    where ARX finds none; else the loss within 1e-9 (the same or lower when ARX assumes
    practical monotonicity, since its pick then depends on its search order) and ARX's
    levels or a tie (ARX's levels anonymous with the same loss).

    Returns the problem and our optimum (None for "no solution")."""
    from engine.problem import Problem
    from engine.search.optimal import optimal_search
    problem = Problem(table(case["dataset"]), job_for(case))
    got = optimal_search(problem).optimum
    if case["expected_no_solution"]:
        assert got is None
        return problem, None
    expected = expected_loss(case)
    assert got is not None
    levels = dict(zip(problem.qis, got.levels))
    if case.get("practical_monotonicity"):
        assert not_worse(got.loss, expected), (levels, got.loss, expected)
    else:
        assert close(got.loss, expected), (levels, got.loss, expected)
        if levels != case["expected_levels"]:
            arx = problem.evaluate([case["expected_levels"][q] for q in problem.qis])
            assert arx.anonymous and close(arx.loss, got.loss)
    return problem, got


# --- the default run's sample of the oracle ---------------------------------------------
#: The default test run checks a representative sample of the oracle; the whole of it
#: runs under ``python -m pytest -m slow``. The sample covers every feature of the
#: items (by default: each privacy model type and each metric) at least once: items
#: are taken cheapest first (Adult before cup, whose lattices are larger and slower;
#: fewer quasi-identifiers first), each one that brings a feature not yet covered.
#: Every other item is marked ``slow``.

def _metric_name(item: dict) -> str:
    metric = item["metric"]
    return metric.get("arx_class", metric.get("name")) if isinstance(metric, dict) else metric


def model_and_metric(item: dict) -> set:
    """Each privacy model type, the metric, its aggregate and monotonic variant, and
    whether the suppression limit is none, some or all."""
    metric = item["metric"] if isinstance(item["metric"], dict) else {}
    p = metric.get("params") or {}
    limit = item.get("suppression_limit")
    return ({("model", m["type"]) for m in item["privacy_models"]}
            | {("metric", _metric_name(item)), ("aggregate", p.get("aggregate_function")),
               ("monotonic", p.get("monotonic_with_suppression")),
               ("suppression", None if limit is None else min(limit, 0.5) // 0.5 + (limit > 0))})


def _cheap_first(item: dict) -> tuple:
    return ("adult" not in item.get("dataset", ""), len(item.get("qis", ())))


def sampled(items, *, features=model_and_metric, key=lambda i: i["id"], cost=_cheap_first,
            never=()) -> set:
    """Keys of the items in the default run's sample (``never``: keys too slow for it)."""
    covered, keys = set(), set()
    for item in sorted((i for i in items if key(i) not in never), key=cost):
        new = set(features(item)) - covered
        if new:
            covered |= new
            keys.add(key(item))
    return keys


def params(items, *, key=lambda i: i["id"], marks=lambda item: [], values=lambda i: (i,),
           **sample) -> list:
    """``pytest.param`` per item, marked ``slow`` unless in the sample (see `sampled`)."""
    import pytest
    fast = sampled(items, key=key, **sample)
    return [pytest.param(*values(i), id=key(i),
                         marks=list(marks(i)) + ([] if key(i) in fast else [pytest.mark.slow]))
            for i in items]
