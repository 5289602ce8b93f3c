"""A Job is a specification: running it again, on other data or at the same time,
never changes an earlier result (Problem binds its own copies of the models and the
metric; the Job and everything in it is immutable)."""
from __future__ import annotations

import dataclasses
import threading

import pytest

import engine
from engine.data.csv_import import read_csv
from engine.project.job_file import job_to_dict, load_job

QIS = ["sex", "age", "race", "marital-status"]


@pytest.fixture
def adult_job(adult_dir):
    lines = ['[data]\npath = "adult.csv"\n']
    for q in QIS:
        lines.append(f'[attributes."{q}"]\ntype = "quasi-identifying"\n'
                     f'hierarchy = "adult_hierarchy_{q}.csv"\n')
    lines.append('[attributes."occupation"]\ntype = "sensitive"\n')
    lines.append('[[privacy]]\nmodel = "k-anonymity"\nk = 5\n')
    lines.append('[[privacy]]\nmodel = "t-closeness"\nattribute = "occupation"\nt = 0.3\n')
    lines.append('[transformation]\nsuppression_limit = 0.05\n[metric]\nname = "loss"\n')
    (adult_dir / "reuse.toml").write_text("\n".join(lines))
    data = read_csv(adult_dir / "adult.csv", delimiter=";", header=True, categorical=True)
    return load_job(adult_dir / "reuse.toml"), data


def snapshot(result) -> tuple:
    opt = result.optimum
    other = result.evaluate({q: 1 for q in QIS})
    return (dict(opt.levels), opt.information_loss, other.information_loss,
            other.anonymous, result.output.to_csv(index=False))


def test_a_second_run_never_changes_the_first_result(adult_job):
    job, data = adult_job
    spec = job_to_dict(job)
    first = engine.anonymize(data.iloc[:4000].reset_index(drop=True), job)
    before = snapshot(first)
    # the same Job on other data: models and metric are bound to other distributions
    second = engine.anonymize(data.iloc[4000:6000].reset_index(drop=True), job)
    assert snapshot(second) != before  # other data, another answer...
    assert snapshot(first) == before   # ...and the first result is what it was
    assert job_to_dict(job) == spec


def test_two_runs_at_once_give_what_each_gives_alone(adult_job):
    job, data = adult_job
    parts = [data.iloc[:3000].reset_index(drop=True), data.iloc[3000:7000].reset_index(drop=True)]
    alone = [snapshot(engine.anonymize(p, job)) for p in parts]
    results = [None, None]

    def run(i):
        results[i] = engine.anonymize(parts[i], job)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [snapshot(r) for r in results] == alone
def test_a_job_and_what_it_holds_do_not_change(adult_job):
    job, _ = adult_job
    with pytest.raises(dataclasses.FrozenInstanceError):
        job.metric = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        job.transformation.suppression_limit = 0.5
    with pytest.raises(dataclasses.FrozenInstanceError):
        job.attributes["age"].min_level = 1
    with pytest.raises(TypeError):
        job.attributes["age"] = None
    with pytest.raises((TypeError, AttributeError)):
        job.privacy.append(job.privacy[0])
    with pytest.raises(AttributeError):
        job.privacy[0].k = 2
    changed = dataclasses.replace(job, transformation=dataclasses.replace(
        job.transformation, suppression_limit=0.5))
    assert changed.transformation.suppression_limit == 0.5
    assert job.transformation.suppression_limit == 0.05
