"""`anonymist verify` is right for every model and transformation, and streams.

The released tables come from the engine (``engine.output.transform``); verify reads
them back from CSV and recounts with plain pandas. A property test compares verify's
verdict at every lattice node of random small tables with a brute-force recount and
with ``Problem.evaluate``.
"""
from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples

from engine.api import as_job, prepare
from engine.cli import EXIT_OK, EXIT_VIOLATIONS
from engine.output import transform
from engine.project.job_file import job_from_dict
from engine.verify import verify_file, verify_frame
from tests.cli.conftest import job_text


def released_csv(problem, levels, path):
    from engine.export.targets import CsvOptions, FileTarget, write_released
    write_released(transform(problem, levels),
                   FileTarget(path, "csv", CsvOptions(delimiter=";")))
    return path


def test_top_node_verifies_and_reports_each_height(tiny, run):
    job = as_job(tiny / "job.toml")
    problem = prepare(None, job)
    top = problem.lattice.top
    out = released_csv(problem, top, tiny / "top.csv")
    frame = pd.read_csv(out, sep=";", dtype=str)
    assert (frame[problem.qis] == "*").all(axis=None)  # every QI at its top label
    r = run("verify", out, tiny / "job.toml")
    assert r.code == EXIT_OK, r.err
    report = json.loads(r.out)
    assert report["suppressed_records"] == 0 and report["classes"] == 1
    assert report["levels"] == {"age": 3, "sex": 1, "zip": 2}


def test_fully_generalized_column_is_at_its_height(tiny):
    job = as_job(tiny / "job.toml")
    problem = prepare(None, job)
    levels = dict(zip(problem.qis, [1, 1, 2]))  # sex and zip at their tops ('*')
    report = verify_file(released_csv(problem, [levels[q] for q in problem.qis],
                                      tiny / "o.csv"), job)
    assert report.levels == {"age": 1, "sex": 1, "zip": 2}


def test_suppressed_records_are_told_from_a_top_class(tiny):
    """At a node where '*' is no label of age's level, all-'*' rows are suppressed."""
    job = as_job(tiny / "job.toml")
    problem = prepare(None, job)
    frame = transform(problem, [0, 1, 2]).frame
    engine_suppressed = int((frame[problem.qis] == "*").all(axis=1).sum())
    report = verify_frame(frame, job)
    assert report.suppressed_records == engine_suppressed
    assert report.ok == problem.evaluate([0, 1, 2]).anonymous


def _run_job(tiny, run, text):
    (tiny / "m.toml").write_text(text)
    r = run("anonymize", tiny / "m.toml", "--output", tiny / "m.csv", "--quiet")
    assert r.code == EXIT_OK, r.err
    return run("verify", tiny / "m.csv", tiny / "m.toml")


def test_hierarchical_t_closeness_uses_the_jobs_hierarchy(tiny, run):
    extra = ('[[privacy]]\nmodel = "t-closeness"\nattribute = "disease"\nt = 0.4\n'
             'distance = "hierarchical"\n')
    r = _run_job(tiny, run, job_text(extra_privacy=extra))
    assert r.code == EXIT_OK, r.err


def test_delta_presence_with_a_research_subset(tiny, run):
    (tiny / "rows.txt").write_text("\n".join(str(i) for i in range(0, 60, 3)) + "\n")
    extra = '[[privacy]]\nmodel = "delta-presence"\ndelta_min = 0.0\ndelta_max = 0.7\n'
    text = job_text(k="1", limit="0.2", extra_privacy=extra) + '[subset]\nrows = "rows.txt"\n'
    r = _run_job(tiny, run, text.replace('[[privacy]]\nmodel = "k-anonymity"\nk = 1\n', ""))
    assert r.code == EXIT_OK, r.err
    result = json.loads(r.out)
    assert result["suppressed_records"] <= math.floor(0.2 * 20)


def test_differential_privacy_output_verifies(tiny, run):
    text = job_text().replace(
        '[[privacy]]\nmodel = "k-anonymity"\nk = 2\n',
        '[[privacy]]\nmodel = "differential-privacy"\nepsilon = 2.0\ndelta = 0.001\n'
        'generalization = "medium"\nseed = 7\n')
    r = _run_job(tiny, run, text)
    assert r.code == EXIT_OK, r.err


def test_tampered_output_fails(tiny, run):
    assert run("anonymize", tiny / "job.toml", "--output", tiny / "o.csv",
               "--quiet").code == EXIT_OK
    frame = pd.read_csv(tiny / "o.csv", sep=";", dtype=str, keep_default_na=False)
    data = pd.read_csv(tiny / "data.csv", sep=";", dtype=str, keep_default_na=False)
    frame["age"] = data["age"]  # original ages: no global recoding, tiny classes
    frame.to_csv(tiny / "o.csv", sep=";", index=False)
    r = run("verify", tiny / "o.csv", tiny / "job.toml")
    assert r.code == EXIT_VIOLATIONS and "FAILED" in r.err


def test_chunks_do_not_change_the_verdict(tiny):
    extra = '[[privacy]]\nmodel = "distinct-l-diversity"\nattribute = "disease"\nl = 2\n'
    (tiny / "l.toml").write_text(job_text(extra_privacy=extra, limit="0.5"))
    job = as_job(tiny / "l.toml")
    problem = prepare(None, job)
    for levels in ([0, 0, 0], [1, 0, 1], [2, 1, 1]):
        out = released_csv(problem, levels, tiny / "c.csv")
        whole = verify_file(out, job).to_dict()
        assert verify_file(out, job, chunk_rows=7).to_dict() == whole
        assert verify_frame(pd.read_csv(out, sep=";", dtype=str, keep_default_na=False),
                            job).to_dict() == whole


# --- property: every node of random small tables -------------------------------------
AGES = [str(a) for a in range(20, 40)]


def _write_hierarchies(folder):
    (folder / "age.csv").write_text("".join(
        f"{a};{int(a) // 5 * 5}-{int(a) // 5 * 5 + 4};{int(a) // 10 * 10}s;*\n" for a in AGES))
    (folder / "sex.csv").write_text("M;*\nF;*\n")
    (folder / "zip.csv").write_text("1;1-2;*\n2;1-2;*\n3;3;*\n")


@pytest.fixture(scope="module")
def hierarchy_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("property")
    _write_hierarchies(folder)
    return folder


def brute_force(frame: pd.DataFrame, qis, k, limit, l=0) -> bool:
    """Plain pandas on the table alone: classes of the released QI values; all-'*' rows
    are suppressed, unless every QI column holds '*' alone (the hierarchies' top label:
    the table of the top node), where they are one class or, if it is too small,
    suppressed records (the same released table)."""
    allowed = math.floor(limit * len(frame) + 1e-9)
    stars = (frame[qis] == "*").all(axis=1)
    if stars.all():
        diverse = frame["disease"].nunique() >= l if l else True
        return (len(frame) >= k and diverse) or len(frame) <= allowed
    kept = frame[~stars]
    ok = bool((kept.groupby(qis).size() >= k).all())
    if l:
        ok = ok and bool((kept.groupby(qis)["disease"].nunique() >= l).all())
    return ok and int(stars.sum()) <= allowed


@settings(max_examples=examples(15), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(st.sampled_from(AGES), st.sampled_from("MF"),
                               st.sampled_from("123"), st.sampled_from(["flu", "cold", "hiv"])),
                     min_size=3, max_size=30),
       k=st.integers(1, 4), l=st.integers(0, 3), limit=st.sampled_from([0.0, 0.1, 0.3, 1.0]),
       qis=st.sampled_from([("age",), ("age", "sex"), ("sex", "zip"), ("age", "sex", "zip")]))
def test_verify_agrees_with_a_recount_at_every_node(hierarchy_dir, rows, k, l, limit, qis):
    df = pd.DataFrame(rows, columns=["age", "sex", "zip", "disease"])
    attributes = {q: {"type": "quasi-identifying", "hierarchy": f"{q}.csv"} for q in qis}
    attributes["disease"] = {"type": "sensitive"}
    privacy = [{"model": "k-anonymity", "k": k}]
    if l:
        privacy.append({"model": "distinct-l-diversity", "attribute": "disease", "l": l})
    job = job_from_dict({"attributes": attributes, "privacy": privacy,
                         "transformation": {"suppression_limit": limit}}, hierarchy_dir)
    problem = prepare(df[list(qis) + ["disease"]], job)
    top = tuple(problem.lattice.top)
    for levels in problem.lattice.iter_levels():
        frame = transform(problem, levels).frame.astype(str)
        report = verify_frame(frame, job)
        assert report.ok == brute_force(frame, problem.qis, k, limit, l), \
            (levels, report.violations)
        if tuple(levels) == top or not (frame[problem.qis] == "*").all(axis=None):
            # (a node whose every record is suppressed releases the top node's table)
            assert report.ok == problem.evaluate(levels).anonymous, \
                (levels, report.violations)

