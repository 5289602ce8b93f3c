"""Bad input through ``anonymist``: the documented exit code, a message naming the
offending file, key or value, no traceback, and nothing written or lost.

Exit codes (README, "Command line"): 0 released, 1 verify found violations, 2 bad
input, 3 no transformation meets the models (earlier outputs removed), 70 internal
error, 130 cancelled.
"""
from __future__ import annotations

import os
import re

import pytest

from engine.cli import EXIT_BAD_INPUT, EXIT_INFEASIBLE, EXIT_INTERNAL, EXIT_OK
from tests.cli.conftest import job_text, snapshot

#: job-file parameter cases that need engine/schema.py's strict reading


def refused(run, folder, args, *needles, code=EXIT_BAD_INPUT):
    """Run, expect ``code``, every needle in the message, and no file touched."""
    before = snapshot(folder)
    r = run(*args)
    assert r.code == code, r.err
    message = r.err.replace(str(folder), "<dir>")  # its name holds the test's name
    for needle in needles:
        assert needle.lower() in message.lower(), r.err
    assert snapshot(folder) == before
    return r


def with_job(folder, text, name="bad.toml"):
    (folder / name).write_text(text)
    return folder / name


def anonymize_job(run, tiny, text, *needles):
    job = with_job(tiny, text)
    return refused(run, tiny, ["anonymize", job, "--output", tiny / "out.csv", "--quiet"],
                   *needles)


# --- job-file values (strict reading) ------------------------------------------------
@pytest.mark.parametrize("value", [
    "2.5", "true", "inf", "nan", '"5"', "0", "-3"])
def test_k_must_be_a_positive_whole_number(run, tiny, value):
    r = anonymize_job(run, tiny, job_text(k=value), "bad.toml")
    message = r.err.split("bad.toml", 1)[1]
    assert re.search(r"\bk\b", message) and re.search(rf"(?<![\w.]){re.escape(value.strip(chr(34)))}\b",
                                                     message), r.err


def test_l_must_be_whole(run, tiny):
    extra = '[[privacy]]\nmodel = "distinct-l-diversity"\nattribute = "disease"\nl = 2.9\n'
    r = anonymize_job(run, tiny, job_text(extra_privacy=extra), "2.9")
    assert re.search(r"\bl\b", r.err.split("bad.toml", 1)[1]), r.err


def test_unknown_key_in_privacy(run, tiny):
    extra = ('[[privacy]]\nmodel = "t-closeness"\nattribute = "disease"\nt = 0.5\n'
             'distanse = "hierarchical"\n')
    anonymize_job(run, tiny, job_text(extra_privacy=extra), "distanse", "distance")


def test_unknown_key_in_data(run, tiny):
    text = job_text().replace('encoding = "utf-8"', 'encoding = "utf-8"\ndelimter = ","')
    anonymize_job(run, tiny, text, "delimter", "delimiter")


def test_format_version_must_be_a_number(run, tiny):
    text = job_text().replace("format_version = 1", 'format_version = "2"')
    anonymize_job(run, tiny, text, "format_version", "2")


def test_newer_format_version(run, tiny):
    text = job_text().replace("format_version = 1", "format_version = 9")
    anonymize_job(run, tiny, text, "format_version", "9")


def test_attributes_must_be_a_table(run, tiny):
    text = job_text().split("[attributes.name]")[0] + 'attributes = "x"\n'
    anonymize_job(run, tiny, text, "attributes", "x")


def test_suppression_limit_out_of_range(run, tiny):
    anonymize_job(run, tiny, job_text(limit="1.5"), "suppression_limit", "1.5")


def test_unknown_algorithm(run, tiny):
    anonymize_job(run, tiny, job_text(extra='algorithm = "fastest"\n'), "algorithm",
                  "fastest")


def test_unknown_model(run, tiny):
    text = job_text().replace('model = "k-anonymity"', 'model = "k-anonymty"')
    anonymize_job(run, tiny, text, "k-anonymty")


def test_unknown_attribute_type(run, tiny):
    text = job_text().replace('type = "sensitive"', 'type = "secret"')
    anonymize_job(run, tiny, text, "secret")


def test_unknown_key_in_attribute(run, tiny):
    text = job_text().replace('hierarchy = "sex.csv"', 'hierarchy = "sex.csv"\nhierachy = 1')
    anonymize_job(run, tiny, text, "hierachy")


def test_toml_syntax_error(run, tiny):
    anonymize_job(run, tiny, job_text() + "\n[data\n", "bad.toml", "TOML")


def test_no_privacy_model(run, tiny):
    text = job_text().replace('[[privacy]]\nmodel = "k-anonymity"\nk = 2\n', "")
    anonymize_job(run, tiny, text, "privacy")


def test_population_model_without_population(run, tiny):
    extra = '[[privacy]]\nmodel = "population-uniqueness"\nthreshold = 0.1\n'
    anonymize_job(run, tiny, job_text(extra_privacy=extra), "population")


def test_subset_row_outside_the_data(run, tiny):
    (tiny / "rows.txt").write_text("0\n5\n999\n")
    anonymize_job(run, tiny, job_text() + '[subset]\nrows = "rows.txt"\n', "999")


def test_subset_rows_file_with_junk(run, tiny):
    (tiny / "rows.txt").write_text("0\nfive\n")
    anonymize_job(run, tiny, job_text() + '[subset]\nrows = "rows.txt"\n', "rows.txt",
                  "five")


# --- job and data files ------------------------------------------------------------------
def test_job_file_not_utf8(run, tiny):
    (tiny / "bad.toml").write_bytes(job_text().encode("utf-8") + b"# caf\xe9\n")
    refused(run, tiny, ["anonymize", tiny / "bad.toml", "--quiet"], "bad.toml", "utf-8",
            "line")


def test_job_path_is_a_folder(run, tiny):
    (tiny / "sub").mkdir()
    refused(run, tiny, ["anonymize", tiny / "sub", "--quiet"], "sub", "folder")


def test_job_file_missing(run, tiny):
    refused(run, tiny, ["anonymize", tiny / "nope.toml", "--quiet"], "nope.toml")


def test_data_file_missing(run, tiny):
    anonymize_job(run, tiny, job_text(data="missing.csv"), "missing.csv")


def test_data_path_is_a_folder(run, tiny):
    (tiny / "d").mkdir()
    anonymize_job(run, tiny, job_text(data="d"), "folder")


def test_data_outside_the_job_folder_is_not_echoed(run, tiny):
    target = "../" * 12 + "etc/passwd"
    if not os.path.exists("/etc/passwd"):
        pytest.skip("no /etc/passwd")
    first = open("/etc/passwd", encoding="utf-8", errors="replace").readline().strip()
    r = anonymize_job(run, tiny, job_text(data=target), "one column")
    assert first not in r.err and "root:" not in r.err


def test_header_only_csv(run, tiny):
    (tiny / "header.csv").write_text("name;age;sex;zip;disease\n")
    r = anonymize_job(run, tiny, job_text(data="header.csv"), "header.csv", "no records")
    assert "cover" not in r.err


def test_wrong_delimiter_gives_a_hint(run, tiny):
    anonymize_job(run, tiny, job_text(delimiter=","), "one column", "is the delimiter ';'")


def test_data_not_in_its_encoding(run, tiny):
    raw = (tiny / "data.csv").read_bytes().replace(b"p1;", b"p\xe91;", 1)
    (tiny / "latin.csv").write_bytes(raw)
    anonymize_job(run, tiny, job_text(data="latin.csv"), "latin.csv", "0xE9")


def test_ragged_data(run, tiny):
    lines = (tiny / "data.csv").read_text().splitlines()
    lines[5] += ";extra"
    (tiny / "ragged.csv").write_text("\n".join(lines) + "\n")
    anonymize_job(run, tiny, job_text(data="ragged.csv"), "ragged.csv", "line 6")


def test_attribute_not_in_the_data(run, tiny):
    text = job_text().replace("[attributes.name]", "[attributes.nmae]")
    anonymize_job(run, tiny, text, "nmae")


def test_hierarchy_missing(run, tiny):
    text = job_text().replace('"zip.csv"', '"zips.csv"')
    anonymize_job(run, tiny, text, "zips.csv")


def test_hierarchy_does_not_cover_a_value(run, tiny):
    (tiny / "zip2.csv").write_text("11111;111**;*\n11122;111**;*\n")
    text = job_text().replace('"zip.csv"', '"zip2.csv"')
    anonymize_job(run, tiny, text, "zip2.csv", "11133")


# --- outputs -----------------------------------------------------------------------------
def test_output_equal_to_the_data(run, tiny):
    refused(run, tiny, ["anonymize", tiny / "job.toml", "--output", tiny / "data.csv"],
            "--output", "data.csv", "data file")


def test_output_equal_to_the_data_by_another_spelling(run, tiny):
    (tiny / "sub").mkdir()
    refused(run, tiny, ["anonymize", tiny / "job.toml", "--output",
                        tiny / "sub" / ".." / "data.csv"], "data file")


def test_output_is_a_symlink_to_the_data(run, tiny):
    (tiny / "link.csv").symlink_to(tiny / "data.csv")
    refused(run, tiny, ["anonymize", tiny / "job.toml", "--output", tiny / "link.csv"],
            "link.csv", "data file")
    assert (tiny / "link.csv").is_symlink()


def test_output_is_a_hard_link_to_the_data(run, tiny):
    os.link(tiny / "data.csv", tiny / "hard.csv")
    refused(run, tiny, ["anonymize", tiny / "job.toml", "--output", tiny / "hard.csv"],
            "hard.csv", "data file")


def test_output_equal_to_the_job_file(run, tiny):
    refused(run, tiny, ["anonymize", tiny / "job.toml", "--output", tiny / "job.toml"],
            "job file")


def test_output_equal_to_a_hierarchy(run, tiny):
    refused(run, tiny, ["anonymize", tiny / "job.toml", "--output", tiny / "zip.csv"],
            "hierarchy of 'zip'")


def test_result_equal_to_the_data(run, tiny):
    refused(run, tiny, ["anonymize", tiny / "job.toml", "--result", tiny / "data.csv"],
            "--result", "data file")


def test_output_and_result_the_same_file(run, tiny):
    refused(run, tiny, ["anonymize", tiny / "job.toml", "--output", tiny / "o.csv",
                        "--result", tiny / "o.csv"], "same file")


def test_output_path_is_a_folder(run, tiny):
    (tiny / "outdir").mkdir()
    refused(run, tiny, ["anonymize", tiny / "job.toml", "--output", tiny / "outdir"],
            "outdir", "folder")


# --- no transformation -------------------------------------------------------------------
def test_infeasible_job_exits_3_and_removes_earlier_outputs(run, tiny):
    (tiny / "out.csv").write_text("an earlier release\n")
    (tiny / "result.json").write_text("{}\n")
    job = with_job(tiny, job_text(k="1000", limit="0"))
    before = snapshot(tiny)
    r = run("anonymize", job, "--output", tiny / "out.csv", "--result", tiny / "result.json",
            "--quiet")
    assert r.code == EXIT_INFEASIBLE
    assert "no transformation meets" in r.err and "removed" in r.err and "out.csv" in r.err
    assert not (tiny / "out.csv").exists() and not (tiny / "result.json").exists()
    after = snapshot(tiny)
    assert after == {k: v for k, v in before.items() if k not in ("out.csv", "result.json")}


def test_infeasible_job_without_earlier_outputs_writes_nothing(run, tiny):
    job = with_job(tiny, job_text(k="1000", limit="0"))
    refused(run, tiny, ["anonymize", job, "--output", tiny / "out.csv", "--quiet"],
            "no transformation meets", code=EXIT_INFEASIBLE)


# --- columns the job does not name ----------------------------------------------------------
def test_unnamed_column_is_named_in_a_warning(run, tiny):
    text = job_text().replace('[attributes.name]\ntype = "identifying"\n', "")
    job = with_job(tiny, text)
    r = run("anonymize", job, "--output", tiny / "out.csv", "--quiet")
    assert r.code == EXIT_OK
    assert re.search(r"warning: .*not named.*: name\b", r.err)
    assert (tiny / "out.csv").read_text().splitlines()[0].startswith("name;")


def test_unnamed_column_refused_with_strict(run, tiny):
    text = job_text().replace('[attributes.name]\ntype = "identifying"\n', "")
    job = with_job(tiny, text)
    refused(run, tiny, ["anonymize", job, "--output", tiny / "out.csv", "--strict",
                        "--quiet"], "not named in the job: name")


def test_unnamed_column_refused_by_the_job(run, tiny):
    text = job_text().replace('[attributes.name]\ntype = "identifying"\n', "").replace(
        'encoding = "utf-8"', 'encoding = "utf-8"\nunnamed_columns = "refuse"')
    job = with_job(tiny, text)
    refused(run, tiny, ["anonymize", job, "--output", tiny / "out.csv", "--quiet"],
            "not named in the job: name")


def test_unnamed_columns_value_checked(run, tiny):
    text = job_text().replace('encoding = "utf-8"', 'encoding = "utf-8"\nunnamed_columns = "no"')
    anonymize_job(run, tiny, text, "unnamed_columns", "'no'")


def test_identifying_attribute_is_removed(run, tiny):
    assert run("anonymize", tiny / "job.toml", "--output", tiny / "out.csv",
               "--quiet").code == EXIT_OK
    header = (tiny / "out.csv").read_text().splitlines()[0].split(";")
    assert "name" not in header and header == ["age", "sex", "zip", "disease"]


# --- other commands -----------------------------------------------------------------------
def test_unknown_command_suggests(run, tiny):
    r = refused(run, tiny, ["anonymze", tiny / "job.toml"], "unknown command 'anonymze'",
                "did you mean 'anonymize'")
    assert r.out == ""


def test_missing_argument_is_a_usage_error(run, tiny):
    refused(run, tiny, ["anonymize"], "job")


def test_evaluate_bad_levels(run, tiny):
    refused(run, tiny, ["evaluate", tiny / "job.toml", "--levels", "age=x,sex=0,zip=0"],
            "age")


def test_evaluate_levels_outside_the_lattice(run, tiny):
    refused(run, tiny, ["evaluate", tiny / "job.toml", "--levels", "age=9,sex=0,zip=0"],
            "outside the lattice")


def test_verify_missing_file(run, tiny):
    refused(run, tiny, ["verify", tiny / "none.csv", tiny / "job.toml"], "none.csv")


def test_verify_folder(run, tiny):
    (tiny / "outdir").mkdir()
    refused(run, tiny, ["verify", tiny / "outdir", tiny / "job.toml"], "outdir", "folder")


def test_verify_wrong_delimiter(run, tiny):
    assert run("anonymize", tiny / "job.toml", "--output", tiny / "out.csv",
               "--quiet").code == EXIT_OK
    refused(run, tiny, ["verify", tiny / "out.csv", tiny / "job.toml", "--delimiter", ","],
            "one column", "is the delimiter ';'")


def test_verify_unknown_encoding(run, tiny):
    assert run("anonymize", tiny / "job.toml", "--output", tiny / "out.csv",
               "--quiet").code == EXIT_OK
    refused(run, tiny, ["verify", tiny / "out.csv", tiny / "job.toml", "--encoding", "klingon"],
            "klingon")


def test_verify_empty_file(run, tiny):
    (tiny / "empty.csv").write_text("")
    refused(run, tiny, ["verify", tiny / "empty.csv", tiny / "job.toml"], "empty.csv")


# --- internal errors ---------------------------------------------------------------------
def test_internal_error_exit_70_with_a_log(run, tiny, monkeypatch):
    import engine.api

    def broken(*args, **kwargs):
        raise RuntimeError("simulated defect")

    monkeypatch.setattr(engine.api, "run_search", broken)
    monkeypatch.setenv("ANONYMIST_LOG_DIR", str(tiny / "logs"))
    r = run("anonymize", tiny / "job.toml", "--output", tiny / "out.csv", "--quiet")
    assert r.code == EXIT_INTERNAL
    assert "internal error" in r.err and "simulated defect" in r.err
    logs = list((tiny / "logs").glob("anonymist-error-*.log"))
    assert len(logs) == 1 and str(logs[0]) in r.err
    assert "Traceback" in logs[0].read_text() and "simulated defect" in logs[0].read_text()
    assert not (tiny / "out.csv").exists()
