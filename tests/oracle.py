"""Load ARX's oracle (../shared/oracle) into engine jobs, for tests and benchmarks."""
from __future__ import annotations

import functools
import json
from pathlib import Path

from engine.config import (AttributeConfig, Job, QUASI_IDENTIFYING, SENSITIVE,
                           TransformationConfig)
from engine.data.csv_import import read_csv
from engine.data.table import EncodedTable
from engine.hierarchy import read_hierarchy
from engine.metrics import metric_from_dict
from engine.privacy import model_from_dict

SHARED = Path(__file__).resolve().parents[2] / "shared"
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


def privacy_dict(m: dict) -> dict:
    t = m["type"]
    if t == "k-anonymity":
        return {"model": "k-anonymity", "k": m["k"]}
    raise NotImplementedError(t)


def metric_dict(metric: dict) -> dict:
    name, mono = METRIC_NAMES[metric["arx_class"]]
    p = metric["params"]
    d = {"name": name, "monotonic": bool(p.get("monotonic_with_suppression", mono)) if
         name not in ("height",) else True, "gs_factor": p["gs_factor"]}
    agg = AGGREGATES[p.get("aggregate_function")]
    if agg:
        d["aggregate"] = agg
    return d


def job_for(case: dict) -> Job:
    attrs = {}
    paths = case.get("hierarchies") or {
        q: f"{Path(case['dataset']).parent}/{Path(case['dataset']).stem}_hierarchy_{q}.csv"
        for q in case["qis"]}
    for q in case["qis"]:
        attrs[q] = AttributeConfig(QUASI_IDENTIFYING, hierarchy(paths[q], q), paths[q],
                                   weight=(case.get("attribute_weights") or {}).get(q))
    sens = case.get("sensitive")
    if sens and any(m["type"] in ("t-closeness", "recursive-(c,l)-diversity",
                                  "distinct-l-diversity", "entropy-l-diversity",
                                  "basic-beta-likeness", "enhanced-beta-likeness",
                                  "delta-disclosure") for m in case["privacy_models"]):
        attrs[sens] = AttributeConfig(SENSITIVE)
    weights = case.get("attribute_weights")
    metric = metric_from_dict(metric_dict(case["metric"]), weights)
    return Job(attributes=attrs,
               privacy=[model_from_dict(privacy_dict(m)) for m in case["privacy_models"]],
               transformation=TransformationConfig(
                   suppression_limit=case["suppression_limit"],
                   practical_monotonicity=bool(case.get("practical_monotonicity"))),
               metric=metric, base_dir=SHARED)


def expected_loss(case: dict):
    v = case["expected_loss"]
    if v is None:
        return None
    if isinstance(v, str) and v.startswith("["):
        v = json.loads(v)
    if isinstance(v, list):
        return tuple(float(x) for x in v)
    return float(v)
