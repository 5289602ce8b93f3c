"""What each privacy model's dialog asks for, derived generically from the engine.

A model class may declare ``parameters`` itself (a list of dicts like
``{"name": "k", "kind": "int", "default": 5, "min": 2}``); otherwise they are
read from its ``__init__`` signature, with defaults and ranges from
``_KNOWN`` for the parameters whose meaning is standard.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

from engine.privacy import MODELS


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: str  # int | float | str | attribute | choice
    default: object = None
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    label: str = ""


_KNOWN = {
    "k": Parameter("k", "int", 5, 2, 1_000_000, label="k"),
    "l": Parameter("l", "float", 2, 1, 1000, label="l"),
    "c": Parameter("c", "float", 3.0, 0.001, 1000, label="c"),
    "t": Parameter("t", "float", 0.2, 0.0, 1.0, label="t"),
    "delta_min": Parameter("delta_min", "float", 0.0, 0.0, 1.0, label="δ min"),
    "delta_max": Parameter("delta_max", "float", 0.5, 0.0, 1.0, label="δ max"),
    "attribute": Parameter("attribute", "attribute", None, label="Sensitive attribute"),
    "estimator": Parameter("estimator", "choice", "shannon", choices=("shannon", "grassberger"),
                           label="Estimator"),
    "distance": Parameter("distance", "choice", "equal",
                          choices=("equal", "hierarchical", "ordered"), label="Distance"),
    "epsilon": Parameter("epsilon", "float", 2.0, 0.001, 100, label="ε"),
    "delta": Parameter("delta", "float", 1e-6, 0.0, 1.0, label="δ"),
    "threshold": Parameter("threshold", "float", 0.05, 0.0, 1.0, label="Threshold"),
}
_KINDS = {int: "int", float: "float", str: "str", "int": "int", "float": "float", "str": "str"}


def model_names() -> list[str]:
    return list(MODELS)


def parameters_of(model: str) -> list[Parameter]:
    """The parameters a model's dialog shows, in constructor order."""
    cls = MODELS[model]
    declared = getattr(cls, "parameters", None)
    if isinstance(declared, (list, tuple)):
        return [Parameter(**{("minimum" if k == "min" else "maximum" if k == "max" else k): v
                             for k, v in p.items()}) for p in declared]
    params = []
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        known = _KNOWN.get(p.name)
        default = None if p.default is inspect.Parameter.empty else p.default
        if known is not None:
            params.append(known if default is None else
                          Parameter(**{**known.__dict__, "default": default}))
        else:
            kind = _KINDS.get(p.annotation, "str")
            params.append(Parameter(p.name, kind, default, label=p.name))
    if model == "k-anonymity":
        params = [Parameter("k", "int", 5, 1, 1_000_000, label="k")]
    return params


def describe_model(d: dict) -> str:
    """A short label: '5-anonymity', 'distinct-l-diversity (l = 2) on disease'."""
    name = d.get("model", "?")
    if name == "k-anonymity" and "k" in d:
        return f"{d['k']}-anonymity"
    params = ", ".join(f"{k} = {v}" for k, v in d.items() if k not in ("model", "attribute"))
    text = f"{name} ({params})" if params else name
    if "attribute" in d:
        text += f" for '{d['attribute']}'"
    return text
