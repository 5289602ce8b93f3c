"""The command line's common path loads no pandas (issue 19: start-up is most of a
whole ``anonymist anonymize`` on Adult): a CSV job's data is read by Arrow straight
into codes, hierarchies, models, metric and search run on arrays, and the CSV release
and ``--result`` JSON are written from the encoded columns. The release is the same,
byte for byte, as the pandas path's (a DataFrame through ``engine.anonymize``)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w

from tests.shared_data import SHARED

ROOT = Path(__file__).resolve().parents[2]
ADULT = SHARED / "data" / "adult"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation", "salary-class"]
pytestmark = pytest.mark.skipif(not (ADULT / "adult.csv").exists(),
                                reason="../shared/data/adult is not available")


def adult_job(folder: Path, name: str, diversity: bool, k: int = 5) -> Path:
    """Issue 19's workload A (9 QIs, k=5, 0 %) or C (recursive-(4,3)-diversity of
    occupation + k=5, 4 %)."""
    qis = [q for q in QIS if not (diversity and q == "occupation")]
    attributes = {q: {"type": "quasi-identifying",
                      "hierarchy": str(ADULT / f"adult_hierarchy_{q}.csv")} for q in qis}
    privacy = [{"model": "k-anonymity", "k": k}]
    if diversity:
        attributes["occupation"] = {"type": "sensitive"}
        privacy.append({"model": "recursive-cl-diversity", "attribute": "occupation",
                        "c": 4, "l": 3})
    job = {"data": {"path": str(ADULT / "adult.csv"), "delimiter": ";"},
           "attributes": attributes, "privacy": privacy,
           "transformation": {"suppression_limit": 0.04 if diversity else 0.0},
           "metric": {"name": "loss"}}
    path = folder / f"{name}.toml"
    path.write_bytes(tomli_w.dumps(job).encode())
    return path


def run_cli_in_one_process(*commands: list[str]) -> tuple[list[int], set[str]]:
    """Each command's exit code through ``engine.cli.main``, and the modules loaded
    once all ran (a fresh process)."""
    code = ("import json, sys\nfrom engine.cli import main\n"
            f"codes = [main(c) for c in {[list(map(str, c)) for c in commands]!r}]\n"
            "print(json.dumps({'codes': codes, 'modules': sorted(sys.modules)}), "
            "file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    result = json.loads(out.stderr.strip().splitlines()[-1])
    return result["codes"], set(result["modules"])


def test_anonymize_of_a_csv_job_loads_no_pandas_and_releases_what_pandas_releases(tmp_path):
    import pandas as pd

    import engine
    from engine.data import csv_arrow
    from engine.data.csv_import import read_csv
    from engine.export.targets import file_target, write_released

    jobs = {name: adult_job(tmp_path, name, name == "C") for name in ("A", "C")}
    commands = [["anonymize", jobs[n], "--output", tmp_path / f"{n}.csv",
                 "--result", tmp_path / f"{n}.json", "--quiet"] for n in jobs]
    commands += [["verify", tmp_path / f"{n}.csv", jobs[n]] for n in jobs]
    codes, modules = run_cli_in_one_process(*commands)
    assert codes == [0, 0, 0, 0]
    assert "pandas" not in modules
    assert {"pyarrow", "engine.search", "engine.export.targets", "engine.verify",
            "engine.data.csv_distinct"} <= modules

    # the pandas path: pandas' own reader (not Arrow's), a DataFrame to engine.anonymize
    with pytest.MonkeyPatch.context() as m:
        m.setattr(csv_arrow, "MIN_BYTES", 1 << 60)
        frame = read_csv(ADULT / "adult.csv", delimiter=";", header=True, categorical=True)
    assert isinstance(frame, pd.DataFrame)
    for name, job in jobs.items():
        result = engine.anonymize(frame, job)
        released = tmp_path / f"{name}-pandas.csv"
        write_released(result.transformed(), file_target(released))
        assert (tmp_path / f"{name}.csv").read_bytes() == released.read_bytes(), name
        written = json.loads((tmp_path / f"{name}.json").read_text())
        assert written["optimum"]["levels"] == result.optimum.levels
        assert written["optimum"]["suppressed_records"] == result.optimum.suppressed_records
        assert written["optimum"]["information_loss"] == result.optimum.loss_json()
        assert written["transformations_checked"] == result.transformations_checked
    assert json.loads((tmp_path / "C.json").read_text())["optimum"]["suppressed_records"] > 0


def test_verify_without_pandas_reports_what_the_pandas_reader_reports(tmp_path):
    """The release read by Arrow without pandas (header and encoding known without it,
    distinct rows counted in Python) gives the report of pandas' chunked reader, for
    a release that meets the job and for one that does not (the violating classes
    listed in the same order)."""
    from engine.api import as_job
    from engine.verify import verify_file

    job_path = adult_job(tmp_path, "C", True)
    out = tmp_path / "C.csv"
    codes, _ = run_cli_in_one_process(["anonymize", job_path, "--output", out, "--quiet"])
    assert codes == [0]
    reports = []
    for j in (as_job(job_path), as_job(adult_job(tmp_path, "C40", True, k=40))):
        plain = verify_file(out, j).to_dict()
        assert plain == verify_file(out, j, fast=False).to_dict()
        reports.append(plain)
    assert reports[0]["ok"] and reports[0]["violations"] == []
    assert not reports[1]["ok"] and "40-anonymity" in reports[1]["violations"][0]


def test_a_small_file_is_read_by_arrow_when_pandas_is_not_loaded(tmp_path):
    """Below `csv_arrow.MIN_BYTES` pandas reads as fast once loaded, but loading it costs
    more than Arrow's start: the command line reads a small job's data and release by
    Arrow too, into the same release and report as the pandas path."""
    import engine
    from engine.data.csv_import import read_csv
    from engine.export.targets import file_target, write_released
    from engine.verify import verify_file
    from tests.cli.conftest import write_tiny

    job = write_tiny(tmp_path)
    assert (tmp_path / "data.csv").stat().st_size < 4096
    out = tmp_path / "out.csv"
    codes, modules = run_cli_in_one_process(
        ["anonymize", job, "--output", out, "--quiet"], ["verify", out, job])
    assert codes == [0, 0] and "pandas" not in modules
    frame = read_csv(tmp_path / "data.csv", delimiter=";", header=True, categorical=True)
    result = engine.anonymize(frame, job)
    write_released(result.transformed(), file_target(tmp_path / "pandas.csv"))
    assert out.read_bytes() == (tmp_path / "pandas.csv").read_bytes()
    assert result.optimum.suppressed_records > 0  # suppressed rows are part of it
    assert verify_file(out, engine.as_job(job), fast=False).ok


@pytest.mark.parametrize("chunk", [3, 1 << 24])
def test_the_header_without_pandas_is_pandas_header_or_none(tmp_path, monkeypatch, chunk):
    """`_plain_header` answers only where it is certain: then with `_header`'s (pandas')
    names and encoding; a late undecodable byte, a quoted or odd header: None."""
    from engine import verify

    monkeypatch.setattr(verify, "_DECODE_CHUNK", chunk)  # characters split across reads
    files = {
        "plain": (b"a;b\nx;\xc3\xa9t\xc3\xa9\n" * 3, True),
        "bom": (b"\xef\xbb\xbfa;b\n1;2\n", True),
        "quoted body": (b'a;b\n"x;y";2\n', True),
        "late bad byte": (b"a;b\n" + b"x;y\n" * 10 + b"\xff;z\n", False),
        "quoted header": (b'"a";b\n1;2\n', False),
        "duplicate names": (b"a;a\n1;2\n", False),
        "empty name": (b"a;;c\n1;2;3\n", False),
        "one column": (b"a\n1\n", False),
    }
    for name, (data, certain) in files.items():
        path = tmp_path / f"{name}.csv"
        path.write_bytes(data)
        got = verify._plain_header(path, ";", None)
        assert (got is not None) == certain, name
        if certain:
            assert got == verify._header(path, ";", None), name
