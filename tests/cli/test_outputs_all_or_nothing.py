"""anonymize writes its outputs all or none: a failing report puts back the earlier
release, result and report; an output's folder must exist and be a folder; a job file
may begin with a byte order mark; SIGHUP mid-write leaves no temporary file (issue 26)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import EXIT_BAD_INPUT, EXIT_HANGUP, EXIT_INTERNAL, EXIT_OK
from engine.io_utils import all_or_nothing, atomic_write_text
from tests.cli.conftest import snapshot
from tests.cli.test_output_safety import SIGTERM_SCRIPT

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def failing_report(monkeypatch):
    """The release report fails after the release was written (a PDF library error)."""
    import engine.release_docs.pdf as pdf

    def write_report(*args, **kwargs):  # what the release writer calls
        raise RuntimeError("the PDF library failed")
    monkeypatch.setattr(pdf, "write_report", write_report)


def test_a_failed_report_puts_back_the_earlier_outputs(tiny, run, failing_report):
    args = ["anonymize", tiny / "job.toml", "--output", tiny / "out.csv", "--result",
            tiny / "r.json", "--report", tiny / "report.pdf", "--quiet"]
    for name in ("out.csv", "r.json", "report.pdf", "report.json"):
        (tiny / name).write_text(f"the earlier {name}\n")
    before = snapshot(tiny)
    assert run(*args).code == EXIT_INTERNAL
    assert snapshot(tiny) == before  # every earlier file as it was, nothing new


def test_a_failed_report_leaves_nothing_new(tiny, run, failing_report):
    (tiny / "maps").mkdir()
    before = snapshot(tiny)
    assert run("anonymize", tiny / "job.toml", "--output", tiny / "out.csv", "--result",
               tiny / "r.json", "--report", tiny / "report.pdf", "--mapping", tiny / "maps",
               "--force", "--quiet").code == EXIT_INTERNAL
    assert snapshot(tiny) == before and not list((tiny / "maps").iterdir())


def test_all_or_nothing_keeps_a_success(tmp_path):
    (tmp_path / "a").write_text("old a\n")
    with all_or_nothing([tmp_path / "a", tmp_path / "b", None]):
        (tmp_path / "a").write_text("new a\n")
        (tmp_path / "b").write_text("new b\n")
    assert (tmp_path / "a").read_text() == "new a\n" and (tmp_path / "b").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]  # no backup left


def test_all_or_nothing_puts_back_on_ctrl_c(tmp_path):
    (tmp_path / "a").write_text("old a\n")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "x.csv").write_text("old x\n")
    with pytest.raises(KeyboardInterrupt):
        with all_or_nothing([tmp_path / "a", tmp_path / "b", tmp_path / "dir"]):
            atomic_write_text(tmp_path / "a", "new a\n")  # as every writer: replaced
            atomic_write_text(tmp_path / "b", "new b\n")
            atomic_write_text(tmp_path / "dir" / "x.csv", "new x\n")
            atomic_write_text(tmp_path / "dir" / "y.csv", "new y\n")
            raise KeyboardInterrupt
    assert (tmp_path / "a").read_text() == "old a\n" and not (tmp_path / "b").exists()
    assert [p.name for p in (tmp_path / "dir").iterdir()] == ["x.csv"]
    assert (tmp_path / "dir" / "x.csv").read_text() == "old x\n"


def test_output_in_a_missing_folder_is_refused(tiny, run):
    before = snapshot(tiny)
    r = run("anonymize", tiny / "job.toml", "--output", tiny / "new" / "out.csv", "--quiet")
    assert r.code == EXIT_BAD_INPUT
    assert "does not exist" in r.err and str(tiny / "new") in r.err
    assert not (tiny / "new").exists() and snapshot(tiny) == before


@pytest.mark.parametrize("option", ["--output", "--result", "--report"])
def test_output_whose_folder_is_a_file_is_refused(tiny, run, option):
    name = {"--output": "out.csv", "--result": "r.json", "--report": "r.pdf"}[option]
    r = run("anonymize", tiny / "job.toml", option, tiny / "data.csv" / name, "--quiet")
    assert r.code == EXIT_BAD_INPUT
    assert "is a file, not a folder" in r.err and "File exists" not in r.err


def test_job_file_with_a_byte_order_mark(tiny, run):
    (tiny / "job.toml").write_bytes(b"\xef\xbb\xbf" + (tiny / "job.toml").read_bytes())
    r = run("anonymize", tiny / "job.toml", "--output", tiny / "out.csv", "--quiet")
    assert r.code == EXIT_OK, r.err


def test_sighup_mid_write_cleans_up(tiny):
    """A real SIGHUP while the released table is written: exit 129, no temporary file,
    the earlier release untouched."""
    (tiny / "out.csv").write_text("an earlier release\n")
    (tiny / "r.json").write_text("{}\n")
    before = snapshot(tiny)
    script = SIGTERM_SCRIPT.replace("SIGTERM", "SIGHUP")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", script, "anonymize", str(tiny / "job.toml"),
                           "--output", str(tiny / "out.csv"), "--result", str(tiny / "r.json"),
                           "--quiet"], capture_output=True, text=True, env=env, timeout=300)
    assert "writing" in proc.stdout
    assert proc.returncode == EXIT_HANGUP == 129, proc.stderr
    assert "cancelled (SIGHUP)" in proc.stderr and "Traceback" not in proc.stderr
    assert snapshot(tiny) == before
    assert json.loads((tiny / "r.json").read_text()) == {}


def test_the_app_export_is_all_or_nothing_too(tiny, failing_report):
    """The export dialog's writer (engine.release_docs.writer.write_release)."""
    import engine
    from engine.export.targets import file_target
    from engine.release_docs.writer import ReleaseRequest, write_release
    result = engine.anonymize(None, tiny / "job.toml")
    (tiny / "out.csv").write_text("the earlier release\n")
    before = snapshot(tiny)
    with pytest.raises(RuntimeError, match="PDF library"):
        write_release(result, ReleaseRequest(file_target(tiny / "out.csv"),
                                             mapping=tiny / "maps", report=tiny / "r.pdf",
                                             force=True))
    assert snapshot(tiny) == before and not (tiny / "maps").exists()


def test_an_export_into_a_missing_folder_is_refused(tmp_path):
    import pandas as pd

    from engine.errors import DataError
    from engine.export.targets import file_target, write_table
    with pytest.raises(DataError, match="does not exist"):
        write_table(pd.DataFrame({"a": ["1"]}), file_target(tmp_path / "new" / "t.csv"))
    assert list(tmp_path.iterdir()) == []
