"""The TOML job file: round trip and clear errors."""
from __future__ import annotations

from dataclasses import replace

import pytest

from engine.errors import AnonymistError
from engine.project.job_file import job_to_dict, load_job, save_job


def test_round_trip(adult_dir):
    job = load_job(adult_dir / "job.toml")
    job = replace(job, attributes={**job.attributes, "age": replace(
        job.attributes["age"], min_level=1, weight=0.5)},
        transformation=replace(job.transformation, time_limit_s=12.5))
    save_job(job, adult_dir / "copy.toml")
    again = load_job(adult_dir / "copy.toml")
    assert job_to_dict(again) == job_to_dict(job)
    assert again.attributes["age"].hierarchy == job.attributes["age"].hierarchy


@pytest.mark.parametrize("text, message", [
    ("[transformation]\nsuppression_limit = 4\n", r"suppression_limit = 4.* between 0 and 1"),
    ("[transformation]\nalgorithm = \"fast\"\n", r"algorithm = 'fast' must be one of 'optimal'"),
    ("[[privacy]]\nmodel = \"k-anon\"\nk = 5\n", r"model = 'k-anon' is not known"),
    ("[[privacy]]\nmodel = \"k-anonymity\"\n", r"\[\[privacy\]\] #1 \(k-anonymity\) is missing 'k'"),
    ("[[privacy]]\nmodel = \"k-anonymity\"\nk = 0\n", r"\(k-anonymity\) k = 0 must be a whole number of at least 1"),
    ("[metric]\nname = \"fun\"\n", r"name = 'fun' is not known"),
    ("[metric]\nname = \"loss\"\naggregate = \"median\"\n", r"\[metric\] \(loss\) aggregate = 'median' must be one of 'sum'"),
    ("[attributes.age]\ntype = \"secret\"\n", r"\[attributes.\"age\"\] type = 'secret'"),
    ("[attributes.age]\ntype = \"quasi-identifying\"\nhierarchy = \"nope.csv\"\n",
     r"hierarchy file not found: .*nope\.csv"),
    ("[attributes.age]\nmin_level = \"x\"\n", r"min_level = 'x' must be a whole number"),
    ("[colours]\nx = 1\n", r"unknown table 'colours'; known tables: format_version, data"),
    ("[data\npath = 1", r"not valid TOML"),
    # heuristic settings are checked on loading, not when the search starts
    ("[transformation]\nstep_limit = 0\n", r"\[transformation\] step_limit = 0 must be a whole number of at least 1"),
    ("[transformation]\ntime_limit_s = -2.5\n", r"time_limit_s = -2.5 must be a number greater than 0"),
    ("[transformation]\nseed = -1\n", r"seed = -1 must be a whole number of at least 0"),
    ("[transformation]\nheuristic_threshold = -5\n", r"heuristic_threshold = -5 must be a whole number of at least 0"),
    ("[transformation.genetic]\nelite_fraction = 1.5\n",
     r"\[transformation.genetic\] elite_fraction = 1.5 must be a number between 0 and 1"),
    ("[transformation.genetic]\nelite_fraction = 0.7\ncrossover_fraction = 0.4\n",
     r"elite_fraction \+ crossover_fraction = 1.1 must not exceed 1"),
    ("[transformation.genetic]\nsubpopulation_size = 1\n",
     r"subpopulation_size = 1 must be a whole number of at least 2"),
    ("[transformation.genetic]\npopulation_size = 2.5\n",
     r"population_size = 2.5 must be a whole number of at least 2"),
    ("[transformation.genetic]\ntournament_size = \"two\"\n",
     r"tournament_size = 'two' must be a whole number of at least 1"),
    ("[transformation.genetic]\niterations = -1\n", r"iterations = -1 must be a whole number"),
    ("[transformation.genetic]\nmax_evaluations = 1e400\n", r"max_evaluations = inf must be"),
    ("[transformation.genetic]\nelite_fractoin = 0.1\n", r"unknown key 'elite_fractoin' = 0.1 \(did you mean 'elite_fraction'\?\)"),
    ("[transformation]\ngenetic = 3\n", r"\[transformation.genetic\] must be a table"),
])
def test_errors_name_the_key(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(AnonymistError, match=message) as e:
        load_job(path)
    assert "bad.toml" in str(e.value)


def test_genetic_settings_of_both_searches_load(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_text("[transformation]\nalgorithm = \"kgen\"\nseed = 0\n"
                    "[transformation.genetic]\nsubpopulation_size = 10.0\npopulation_size = 10\n"
                    "crossover_rate = 1\niterations = 0\n")
    assert load_job(path).transformation.genetic == {
        "subpopulation_size": 10.0, "population_size": 10, "crossover_rate": 1, "iterations": 0}
