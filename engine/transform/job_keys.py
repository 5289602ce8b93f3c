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

from engine.config import AGGREGATE_FUNCTIONS, CLUSTERINGS, TRANSFORMATIONS  # noqa: F401 - the app imports it from here
from engine.errors import JobError
from engine.schema import Param, read_table, write_table
from engine.transform.coding import check_rule
from engine.transform.perturbation import check_keys as check_perturbation_keys

#: the attribute keys' choices (declared on engine.config.AttributeConfig)
CLUSTERING = CLUSTERINGS
FUNCTIONS = AGGREGATE_FUNCTIONS
#: ``[transformation] local_recoding = { ... }``, declared here (a table of its own)
LOCAL_RECODING_PARAMS = (
    Param("iterations", "int", 100, low=1, label="Iterations",
          help="how many times the suppressed records are anonymized again at most"),
    Param("gs_factor", "float", 0.05, low=0, high=1, label="Recoding gs-factor",
          help="the steps' gs-factor: low favours suppression, high generalization"),
    Param("adaption_factor", "float", 0.05, low=0, high=1, label="Adaption factor",
          help="added to the gs-factor after a step that recodes nothing (ARX)"),
)
LOCAL_RECODING_KEYS = {p.name: p.default for p in LOCAL_RECODING_PARAMS}


def read_attribute_transformation(cfg, a: dict, where: str) -> None:
    """Check the combination of an attribute's transformation keys (each key is read
    strictly from its declaration on ``AttributeConfig``)."""
    kind = cfg.transformation
    if kind == "microaggregation":
        if cfg.function is None:
            raise JobError(f"{where}: transformation = \"microaggregation\" needs a "
                           f"function (one of {', '.join(FUNCTIONS)})")
        if cfg.type != "quasi-identifying":
            raise JobError(f"{where}: microaggregation applies to quasi-identifiers "
                           f"(type = \"quasi-identifying\"), not to a {cfg.type} attribute")
    else:
        # the defaults (false, "none") may be written for any attribute (project files)
        for key, default in (("function", None), ("ignore_missing", False),
                             ("clustering", "none")):
            if getattr(cfg, key) != default:
                raise JobError(f"{where} {key} only applies to transformation = "
                               f"\"microaggregation\"")
    if cfg.clustering == "hierarchy" and cfg.hierarchy is None:
        raise JobError(f"{where}: clustering = \"hierarchy\" forms the classes with the "
                       f"attribute's hierarchy: give it a 'hierarchy'")
    check_rule(cfg, where)
    check_perturbation_keys(cfg, where)


def read_local_recoding(v, where: str = "[transformation] local_recoding") -> dict | None:
    if v is None:
        return None
    return read_table(v, LOCAL_RECODING_PARAMS, where)


def read_transformation_options(t: dict) -> dict:
    """``[transformation]`` keys read here rather than from TransformationConfig's
    declarations: the local recoding table."""
    return {"local_recoding": read_local_recoding(t.get("local_recoding"))}


def transformation_options_to_dict(tr) -> dict:
    if not tr.local_recoding:
        return {}
    return {"local_recoding": write_table(dict(tr.local_recoding), LOCAL_RECODING_PARAMS)}
