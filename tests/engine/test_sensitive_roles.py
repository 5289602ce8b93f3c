"""A model's sensitive attribute must be of type sensitive: an identifying one (removed
from the release, so the model would hold trivially) is refused when the job is read
and when it is run, naming the model and the attribute, as a quasi-identifier is
(issue 26, point 3)."""
from __future__ import annotations

import dataclasses

import pytest

import engine
from engine.cli import EXIT_BAD_INPUT, main
from engine.errors import JobError
from engine.privacy import DistinctLDiversity, KAnonymity
from engine.project.job_file import load_job

ROWS = ["name;age;disease"] + [f"p{i};{20 + i % 3};{'flu' if i % 2 else 'cold'}"
                               for i in range(12)]
HIERARCHY = "\n".join(f"{a};*" for a in (20, 21, 22))


def job_text(name_type: str, extra: str = "") -> str:
    return (f'[data]\npath = "data.csv"\n'
            f'[attributes.name]\ntype = "{name_type}"\n{extra}'
            f'[attributes.age]\ntype = "quasi-identifying"\nhierarchy = "age.csv"\n'
            f'[attributes.disease]\ntype = "sensitive"\n'
            f'[[privacy]]\nmodel = "k-anonymity"\nk = 2\n'
            f'[[privacy]]\nmodel = "distinct-l-diversity"\nattribute = "name"\nl = 2\n')


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "data.csv").write_text("\n".join(ROWS) + "\n")
    (tmp_path / "age.csv").write_text(HIERARCHY + "\n")
    return tmp_path


@pytest.mark.parametrize("extra", ["", 'pseudonymize = "mask"\n'])
def test_identifying_sensitive_attribute_refused_when_the_job_is_read(folder, extra):
    (folder / "job.toml").write_text(job_text("identifying", extra))
    with pytest.raises(JobError, match=r"\[\[privacy\]\] #2 \(distinct-l-diversity\): 'name' "
                                       r"is identifying .* must be of type 'sensitive'"):
        load_job(folder / "job.toml")


def test_identifying_sensitive_attribute_refused_by_the_api(folder):
    """A Job built in Python (no job file) is refused when it is run."""
    (folder / "job.toml").write_text(job_text("sensitive"))
    job = load_job(folder / "job.toml")
    attributes = dict(job.attributes)
    attributes["name"] = dataclasses.replace(attributes["name"], type="identifying")
    bad = dataclasses.replace(job, attributes=attributes,
                              privacy=(KAnonymity(k=2), DistinctLDiversity("name", 2)))
    with pytest.raises(JobError, match="distinct-l-diversity.*'name' is identifying"):
        engine.anonymize(None, bad)
    # with the attribute sensitive the same models run and hold
    ok = engine.anonymize(None, dataclasses.replace(bad, attributes=job.attributes))
    assert ok.optimum is not None


def test_identifying_sensitive_attribute_is_bad_input_on_the_command_line(folder, capsys):
    (folder / "job.toml").write_text(job_text("identifying"))
    out = folder / "out.csv"
    assert main(["anonymize", str(folder / "job.toml"), "--output", str(out),
                 "--quiet"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "distinct-l-diversity" in err and "'name' is identifying" in err
    assert "Traceback" not in err and not out.exists()


def test_quasi_identifier_in_that_place_is_refused_too(folder):
    (folder / "job.toml").write_text(job_text("identifying").replace(
        'attribute = "name"', 'attribute = "age"'))
    with pytest.raises(JobError, match="distinct-l-diversity: 'age' is a quasi-identifier"):
        engine.anonymize(None, folder / "job.toml")
