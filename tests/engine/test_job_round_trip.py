"""Writing a job and reading it back gives the same job: every oracle job, one job per
privacy model with its defaults and with each choice of its choice parameters, and
random valid values of every declared parameter (a Hypothesis property)."""
from __future__ import annotations

import tomllib

import pytest
import tomli_w
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples

from engine.errors import JobError
from engine.config import AttributeConfig, Job, TransformationConfig
from engine.metrics import METRICS, metric_from_dict
from engine.privacy import MODELS, model_from_dict
from engine.privacy.population import REGIONS
from engine.project.job_file import job_from_dict, job_to_dict
from engine.schema import Param, ParamError, dataclass_params
from engine.search.genetic_settings import GENETIC_PARAMS
from tests import oracle

SUBSETS = [{"query": "age > 3"}, {"sample": 0.25, "seed": 3}, {"sample": 0.5},
           {"indices": [0, 2, 5]}, {"rows": "rows.txt"}]
ATTRIBUTES = {"age": AttributeConfig("quasi-identifying"), "disease": AttributeConfig("sensitive")}


def through_toml(job: Job, base_dir) -> Job:
    """The job written as TOML text and read back."""
    return job_from_dict(tomllib.loads(tomli_w.dumps(job_to_dict(job))), base_dir)


def oracle_kinds() -> list[dict]:
    """One oracle case per kind of job: its models, metric, subset and population (the
    hierarchies of each data set are read once more per case, so all 191 are slow)."""
    seen, out = set(), []
    for case in oracle.cases():
        kind = (tuple(sorted(m["type"] for m in case["privacy_models"])),
                case["metric"]["arx_class"], oracle.subset_of(case) is None,
                oracle.population_of(case) is None)
        if kind not in seen and "cup" not in case["dataset"]:
            seen.add(kind)
            out.append(case)
    return out


def test_oracle_jobs_of_every_kind_round_trip():
    check_oracle_round_trip(oracle_kinds())


@pytest.mark.slow
def test_every_oracle_job_round_trips():
    check_oracle_round_trip(oracle.cases())


def check_oracle_round_trip(cases):
    for case in cases:
        job = oracle.job_for(case)
        again = through_toml(job, oracle.SHARED)
        assert again == job, case["id"]
        assert job_to_dict(again) == job_to_dict(job)


def model_tables() -> list[dict]:
    """Each model with its declared defaults, then with every choice of each choice."""
    out = []
    for name, cls in MODELS.items():
        base = {"model": name}
        for p in cls.params:
            if p.kind == "attribute":
                base[p.name] = "disease"
            elif p.initial is not None:
                base[p.name] = p.initial
        out.append(base)
        for p in cls.params:
            for choice in p.choices:
                out.append({**base, p.name: choice})
    return out


def test_every_model_round_trips_with_defaults_and_every_choice(tmp_path):
    tables = model_tables()
    assert {t["model"] for t in tables} == set(MODELS) and len(MODELS) == 14
    for table in tables:
        model = model_from_dict(table)  # the declared defaults are valid
        job = Job(attributes=dict(ATTRIBUTES), privacy=[model], subset={"query": "age > 3"},
                  population={"region": "USA"}, base_dir=tmp_path)
        again = through_toml(job, tmp_path)
        assert again == job, table
        assert again.privacy[0].to_dict() == model.to_dict() == {
            **table, **{k: v for k, v in model.to_dict().items() if k not in table}}


# --- random values of every declared parameter --------------------------------------
def value_of(p: Param):
    if p.kind == "int":
        low = 0 if p.low is None else int(p.low) + (1 if p.low_open else 0)
        high = low + 10**6 if p.high is None else int(p.high) - (1 if p.high_open else 0)
        return st.integers(low, high)
    if p.kind == "float":
        return st.floats(-1e6 if p.low is None else p.low, 1e6 if p.high is None else p.high,
                         exclude_min=p.low_open and p.low is not None,
                         exclude_max=p.high_open and p.high is not None,
                         allow_nan=False, allow_infinity=False)
    if p.kind == "bool":
        return st.booleans()
    if p.kind == "choice":
        return st.sampled_from(p.choices)
    if p.kind == "attribute":
        return st.just("disease")
    return st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF), min_size=1,
                   max_size=12)


def table_of(params, required_only: bool = False):
    """Some of the declared parameters (the required ones always) with random values."""
    return st.fixed_dictionaries(
        {p.name: value_of(p) for p in params if p.required},
        optional={} if required_only else {p.name: value_of(p) for p in params
                                           if not p.required})


@st.composite
def jobs(draw):
    # differential privacy derives its k when constructed (slow for extreme values): its
    # defaults and choices are covered above
    name = draw(st.sampled_from(sorted(set(MODELS) - {"differential-privacy"})))
    try:
        model = model_from_dict({"model": name, **draw(table_of(MODELS[name].params))})
        metric_name = draw(st.sampled_from(sorted(METRICS)))
        metric = metric_from_dict({"name": metric_name,
                                   **draw(table_of(METRICS[metric_name].params))})
        transformation = TransformationConfig(
            **draw(table_of(dataclass_params(TransformationConfig))),
            genetic=draw(table_of(GENETIC_PARAMS)))
        subset = draw(st.none() | st.sampled_from(SUBSETS))
        population = draw(st.none() | st.builds(dict, size=st.integers(1, 10**10))
                          | st.builds(dict, region=st.sampled_from(sorted(REGIONS))))
        return Job(attributes=dict(ATTRIBUTES), privacy=[model], metric=metric,
                   transformation=transformation, subset=subset, population=population)
    except ParamError:  # a rule across parameters (delta_min <= delta_max...)
        assume(False)


@settings(deadline=None, max_examples=examples(60), suppress_health_check=[HealthCheck.filter_too_much,
                                                                 HealthCheck.too_slow])
@given(jobs())
def test_random_jobs_round_trip(tmp_path_factory, job):
    base = tmp_path_factory.getbasetemp()
    job = Job(**{**job.__dict__, "base_dir": base})
    try:
        from engine.search.genetic_settings import check_genetic_table
        check_genetic_table(job.transformation.genetic)
        from engine.transform.cell_suppression import check_cell_suppression
        check_cell_suppression(job)  # cells need k-anonymity alone (a rule across tables)
    except JobError:
        assume(False)
    assert through_toml(job, base) == job
