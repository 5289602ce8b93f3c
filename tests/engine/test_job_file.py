"""The TOML job file: round trip and clear errors."""
from __future__ import annotations

import pytest

from engine.errors import AnonymistError
from engine.project.job_file import job_to_dict, load_job, save_job


def test_round_trip(adult_dir):
    job = load_job(adult_dir / "job.toml")
    job.attributes["age"].min_level = 1
    job.attributes["age"].weight = 0.5
    job.transformation.time_limit_s = 12.5
    save_job(job, adult_dir / "copy.toml")
    again = load_job(adult_dir / "copy.toml")
    assert job_to_dict(again) == job_to_dict(job)
    assert again.attributes["age"].hierarchy == job.attributes["age"].hierarchy


@pytest.mark.parametrize("text, message", [
    ("[transformation]\nsuppression_limit = 4\n", r"suppression_limit = 4.* between 0 and 1"),
    ("[transformation]\nalgorithm = \"fast\"\n", r"algorithm = 'fast' is not one of"),
    ("[[privacy]]\nmodel = \"k-anon\"\nk = 5\n", r"model = 'k-anon' is not known"),
    ("[[privacy]]\nmodel = \"k-anonymity\"\n", r"k-anonymity: missing parameter 'k'"),
    ("[[privacy]]\nmodel = \"k-anonymity\"\nk = 0\n", r"k must be at least 1"),
    ("[metric]\nname = \"fun\"\n", r"name = 'fun' is not known"),
    ("[metric]\nname = \"loss\"\naggregate = \"median\"\n", r"unknown aggregate function 'median'"),
    ("[attributes.age]\ntype = \"secret\"\n", r"\[attributes.\"age\"\] type = 'secret'"),
    ("[attributes.age]\ntype = \"quasi-identifying\"\nhierarchy = \"nope.csv\"\n",
     r"hierarchy file not found: .*nope\.csv"),
    ("[attributes.age]\nmin_level = \"x\"\n", r"min_level must be a number"),
    ("[colours]\nx = 1\n", r"unknown table\(s\) in job: colours"),
    ("[data\npath = 1", r"not valid TOML"),
])
def test_errors_name_the_key(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(AnonymistError, match=message) as e:
        load_job(path)
    assert "bad.toml" in str(e.value)
