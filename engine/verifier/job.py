"""What the verifier reads of a job: the attributes' roles, the models' names and
parameters, the suppression limit, the population size. The job arrives as the job
file reader built it (``engine.project.job_file``, called by the command line or the
caller: the one reading of the job file, shared on purpose so that the verifier
checks the job the user wrote, not a second reading of it); the verifier reads its
plain fields only and decides everything else itself: which models count the
research subset, which suppress freely, what a ``[population]`` region means.
"""
from __future__ import annotations

IDENTIFYING = "identifying"
QUASI_IDENTIFYING = "quasi-identifying"

#: [population] region presets (the job file's contract, README "Population")
REGIONS: dict[str, int] = {
    "USA": 317_238_626, "Canada": 34_834_841, "UK": 63_705_000, "France": 65_820_916,
    "Germany": 80_767_000, "European Union": 507_420_000, "Brazil": 202_656_788,
    "China": 1_366_040_000, "India": 1_210_569_573, "Australia": 23_130_900,
    "Africa": 1_100_000_000, "North America": 565_265_000,
    "South America": 385_742_554,
}

#: models with a sensitive attribute (their ``attribute``)
SENSITIVE_MODELS = frozenset({
    "distinct-l-diversity", "entropy-l-diversity", "recursive-cl-diversity", "t-closeness",
    "delta-disclosure", "beta-likeness"})


def qis(job) -> list[str]:
    return [n for n, a in job.attributes.items() if a.type == QUASI_IDENTIFYING]


def sensitive_attribute(model) -> str | None:
    """The attribute a model's check reads beside the quasi-identifiers, if any."""
    return getattr(model, "attribute", None) if model.name in SENSITIVE_MODELS else None


def sensitive(job) -> list[str]:
    return list(dict.fromkeys(a for m in job.privacy if (a := sensitive_attribute(m))))


def counts_subset(model) -> bool:
    """Whether a model counts the research subset (it is what is released):
    δ-presence, k-map without an estimator, the journalist's profitability."""
    if model.name == "delta-presence":
        return True
    if model.name == "k-map":
        return getattr(model, "estimator", "none") == "none"
    if model.name == "profitability":
        return getattr(model, "attacker", None) == "journalist"
    return False


def has_minimal_class_size(model) -> bool:
    """Whether a model sets a smallest class size (as ARX checks first: δ-presence then
    lets classes without subset records be suppressed, see `checks.check_delta_presence`)."""
    name = model.name
    if name in ("k-anonymity", "distinct-l-diversity", "entropy-l-diversity",
                "recursive-cl-diversity", "differential-privacy"):
        return True
    if name == "k-map":
        return getattr(model, "estimator", "none") != "none"
    if name == "profitability":
        return (not getattr(model, "allow_attack", True)
                and getattr(model, "attacker", None) == "prosecutor")
    return False


def suppresses_freely(model) -> bool:
    """Differential privacy: records outside SafePub's sample are released suppressed,
    and the suppression limit does not apply."""
    return model.name == "differential-privacy"


def subset_job(job) -> bool:
    """Whether the job's research subset is what is released."""
    return bool(job.subset) and any(counts_subset(m) for m in job.privacy)


def limit_applies(job) -> bool:
    return not any(suppresses_freely(m) for m in job.privacy)


def pseudonymized(job) -> dict:
    """Identifying attributes released as pseudonyms: name -> their specification."""
    return {n: a.pseudonym for n, a in job.attributes.items()
            if a.type == IDENTIFYING and getattr(a, "pseudonym", None) is not None}


def population_size(job) -> int | None:
    """The size ``[population]`` gives (``size``, or a region's), or None."""
    population = job.population
    if not population:
        return None
    if population.get("size") is not None:
        return int(population["size"])
    region = str(population.get("region", ""))
    return next((n for r, n in REGIONS.items() if r.lower() == region.lower()), None)


def person(job) -> str | None:
    """The column naming each row's person (``[data] person``), or None."""
    return getattr(getattr(job, "data", None), "person", None)


def data_types(job) -> dict:
    return {n: a.data_type for n, a in job.attributes.items()
            if getattr(a, "data_type", None)}
