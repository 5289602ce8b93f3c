"""Privacy models; ``model_from_dict`` reads one ``[[privacy]]`` table of a job file.

Job-file names and parameters (``[[privacy]] model = ...``):

- ``k-anonymity``: k
- ``distinct-l-diversity``: attribute, l
- ``entropy-l-diversity``: attribute, l, estimator = "shannon" | "grassberger"
- ``recursive-cl-diversity``: attribute, c, l
- ``t-closeness``: attribute, t, distance = "equal" | "hierarchical" | "ordered"
  (hierarchical uses the sensitive attribute's hierarchy)
- ``delta-disclosure``: attribute, delta
- ``beta-likeness``: attribute, beta, enhanced = true | false
- ``delta-presence``: delta_min, delta_max (needs ``[subset]``)
- ``k-map``: k, estimator = "none" (needs ``[subset]``) | "poisson" |
  "zero-truncated-poisson" (needs ``[population]``), significance
- ``average-risk``: threshold
- ``sample-uniqueness``: threshold
- ``population-uniqueness``: threshold, estimator = "pitman" | "zayatz" | "snb" |
  "dankar" (needs ``[population]``)
- ``profitability``: attacker = "prosecutor" | "journalist" (journalist needs
  ``[subset]``), allow_attack, publisher_benefit, publisher_loss, adversary_gain,
  adversary_cost
- ``differential-privacy``: epsilon, delta, generalization = "data-dependent" |
  "none" | "low" | "low-medium" | "medium" | "medium-high" | "high" | "complete",
  seed, search_budget, search_steps

A research subset: ``[subset] rows = "file"`` or ``query = "age > 30 and sex =
'Male'"`` (``engine.query``). A population: ``[population] size = 317238626`` or
``region = "USA"`` (``engine.privacy.population``).
"""
from __future__ import annotations

from engine.schema import ParamError, closest, show
from engine.privacy.base import ModelContext, PrivacyModel
from engine.privacy.delta_presence import DeltaPresence
from engine.privacy.distinct_l_diversity import DistinctLDiversity
from engine.privacy.entropy_l_diversity import EntropyLDiversity
from engine.privacy.k_anonymity import KAnonymity
from engine.privacy.recursive_cl_diversity import RecursiveCLDiversity
from engine.privacy.t_closeness import TCloseness
from engine.privacy.k_map import KMap
from engine.privacy.sample_uniqueness import SampleUniqueness
from engine.privacy.average_risk import AverageRisk
from engine.privacy.population_uniqueness import PopulationUniqueness
from engine.privacy.beta_likeness import BetaLikeness
from engine.privacy.delta_disclosure import DeltaDisclosure
from engine.privacy.profitability import Profitability
from engine.privacy.differential_privacy import DifferentialPrivacy

MODELS: dict[str, type[PrivacyModel]] = {
    cls.name: cls for cls in (KAnonymity, DistinctLDiversity, EntropyLDiversity,
                              RecursiveCLDiversity, TCloseness, DeltaPresence, KMap,
                              SampleUniqueness, AverageRisk, PopulationUniqueness,
                              BetaLikeness, DeltaDisclosure, Profitability,
                              DifferentialPrivacy)}


def model_from_dict(d: dict, index: int | None = None) -> PrivacyModel:
    """The model of one ``[[privacy]]`` table (``index``: its place in the job, from 1),
    read strictly from the model's declared parameters."""
    at = "[[privacy]]" if index is None else f"[[privacy]] #{index}"
    if not isinstance(d, dict):
        raise ParamError(f"{at} must be a table, got {show(d)}")
    name = d.get("model")
    if name is None:
        raise ParamError(f"{at} has no 'model' (one of {', '.join(MODELS)})")
    cls = MODELS.get(name) if isinstance(name, str) else None
    if cls is None:
        near = closest(str(name), MODELS)
        hint = f" (did you mean '{near}'?)" if near else ""
        raise ParamError(f"{at} model = {show(name)} is not known{hint}; one of "
                         f"{', '.join(MODELS)}")
    return cls.from_dict(d, f"{at} ({name})")


__all__ = ["ModelContext", "PrivacyModel", "KAnonymity", "DistinctLDiversity",
           "EntropyLDiversity", "RecursiveCLDiversity", "TCloseness", "DeltaPresence", "KMap",
           "SampleUniqueness", "AverageRisk", "PopulationUniqueness",
           "BetaLikeness", "DeltaDisclosure", "Profitability",
           "DifferentialPrivacy",
           "MODELS", "model_from_dict"]
