"""Job-file keys of the transformation methods, read strictly (see README, "Transformation
methods"):

    [attributes."age"]
    transformation = "microaggregation"   # generalization | microaggregation | identity |
                                          # suppression | top-bottom-coding
    function = "arithmetic-mean"          # arithmetic-mean | geometric-mean | median | mode | interval
    ignore_missing = true
    clustering = "none"                   # "hierarchy" (or true): ARX's clustering over the
                                          # attribute's hierarchy; "mdav": MDAV clusters
    top = 90                              # top-bottom-coding
    bottom = 17

    [transformation]
    local_recoding = { iterations = 100, gs_factor = 0.05, adaption_factor = 0.05 }
    suppression_string = "*"
    remove_suppressed_values = false
"""
from __future__ import annotations

import difflib

from engine.errors import JobError
from engine.markers import SUPPRESSED
from engine.transform.coding import RULES, check_rule
from engine.transform.microaggregation import check_function

TRANSFORMATIONS = ("generalization", "microaggregation") + RULES
CLUSTERING = ("none", "hierarchy", "mdav")
LOCAL_RECODING_KEYS = {"iterations": 100, "gs_factor": 0.05, "adaption_factor": 0.05}


def _closest(key: str, known) -> str:
    match = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean '{match[0]}'?)" if match else ""


def _bool(d: dict, key: str, where: str, default: bool = False) -> bool:
    if key not in d:
        return default
    v = d[key]
    if not isinstance(v, bool):
        raise JobError(f"{where} {key} must be true or false, got {v!r}")
    return v


def _float(d: dict, key: str, where: str, low=None, high=None):
    if key not in d:
        return None
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise JobError(f"{where} {key} must be a number, got {v!r}")
    if (low is not None and v < low) or (high is not None and v > high):
        raise JobError(f"{where} {key} = {v!r} must lie between {low} and {high}")
    return float(v)


def read_attribute_transformation(cfg, a: dict, where: str) -> None:
    """Fill an AttributeConfig's transformation fields from its job-file table."""
    kind = a.get("transformation", "generalization")
    if kind not in TRANSFORMATIONS:
        raise JobError(f"{where} transformation = {kind!r} is not one of "
                       f"{', '.join(TRANSFORMATIONS)}{_closest(str(kind), TRANSFORMATIONS)}")
    cfg.transformation = kind
    if kind == "microaggregation":
        cfg.function = check_function(a.get("function"), where)
        if cfg.type != "quasi-identifying":
            raise JobError(f"{where}: microaggregation applies to quasi-identifiers "
                           f"(type = \"quasi-identifying\"), not to a {cfg.type} attribute")
    elif "function" in a:
        raise JobError(f"{where} function only applies to transformation = "
                       f"\"microaggregation\"")
    for key in ("ignore_missing", "clustering"):
        # the defaults (false, "none") may be written for any attribute (project files)
        if a.get(key, False) not in (False, "none") and kind != "microaggregation":
            raise JobError(f"{where} {key} only applies to transformation = "
                           f"\"microaggregation\"")
    cfg.ignore_missing = _bool(a, "ignore_missing", where)
    cfg.clustering = _clustering(a.get("clustering", "none"), where)
    if cfg.clustering == "hierarchy" and cfg.hierarchy is None:
        raise JobError(f"{where}: clustering = \"hierarchy\" forms the classes with the "
                       f"attribute's hierarchy: give it a 'hierarchy'")
    cfg.top = _float(a, "top", where)
    cfg.bottom = _float(a, "bottom", where)
    check_rule(cfg, where)


def _clustering(v, where: str) -> str:
    if v is True:
        return "hierarchy"
    if v is False:
        return "none"
    if v not in CLUSTERING:
        raise JobError(f"{where} clustering = {v!r} is not one of true, false, "
                       f"{', '.join(repr(c) for c in CLUSTERING)}")
    return v


def attribute_transformation_to_dict(a) -> dict:
    t: dict = {}
    if a.transformation != "generalization":
        t["transformation"] = a.transformation
    if a.transformation == "microaggregation":
        t["function"] = a.function
        t["ignore_missing"] = a.ignore_missing
        t["clustering"] = a.clustering
    for key in ("top", "bottom"):
        if getattr(a, key) is not None:
            t[key] = getattr(a, key)
    return t


def read_local_recoding(v, where: str = "[transformation] local_recoding") -> dict | None:
    if v is None or v is False:
        return None
    if not isinstance(v, dict):
        raise JobError(f"{where} must be a table such as {{ iterations = 100, "
                       f"gs_factor = 0.05 }}, got {v!r}")
    for key in v:
        if key not in LOCAL_RECODING_KEYS:
            raise JobError(f"{where} has an unknown key '{key}'"
                           f"{_closest(key, LOCAL_RECODING_KEYS)}")
    out = dict(LOCAL_RECODING_KEYS)
    it = v.get("iterations", out["iterations"])
    if isinstance(it, bool) or not isinstance(it, int) or it < 1:
        raise JobError(f"{where} iterations must be a whole number of at least 1, got {it!r}")
    out["iterations"] = it
    for key in ("gs_factor", "adaption_factor"):
        f = _float(v, key, where, 0.0, 1.0)
        if f is not None:
            out[key] = f
    return out


def read_transformation_options(t: dict) -> dict:
    where = "[transformation]"
    marker = t.get("suppression_string", SUPPRESSED)
    if not isinstance(marker, str):
        raise JobError(f"{where} suppression_string must be text, got {marker!r}")
    return {"local_recoding": read_local_recoding(t.get("local_recoding")),
            "suppression_string": marker,
            "remove_suppressed_values": _bool(t, "remove_suppressed_values", where)}


def transformation_options_to_dict(tr) -> dict:
    t: dict = {}
    if tr.local_recoding:
        t["local_recoding"] = dict(tr.local_recoding)
    if tr.suppression_string != SUPPRESSED:
        t["suppression_string"] = tr.suppression_string
    if tr.remove_suppressed_values:
        t["remove_suppressed_values"] = True
    return t
