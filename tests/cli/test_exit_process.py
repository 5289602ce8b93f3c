"""A command's process ends without the interpreter's teardown (engine.cli.exit_process)
but with its outputs, exit code, buffered output and exit handlers intact."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import write_tiny

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def test_exit_process_flushes_and_runs_exit_handlers(tmp_path):
    marker = tmp_path / "handler-ran"
    code = ("import atexit, sys\nfrom engine.cli import exit_process\n"
            f"atexit.register(lambda: open({str(marker)!r}, 'w').write('yes'))\n"
            "sys.stdout.write('buffered, no newline')\nsys.stderr.write('err')\n"
            "exit_process(3)\nprint('never')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=ENV, cwd=ROOT)
    assert out.returncode == 3
    assert out.stdout == "buffered, no newline" and out.stderr == "err"
    assert marker.read_text() == "yes"


def test_the_command_lines_write_their_files_and_exit_codes(tmp_path):
    """``python -m engine.cli`` and the installed command's ``app.launcher.run``: the
    release, the result and verify's report are complete; the exit codes are kept."""
    job = write_tiny(tmp_path)
    out, result = tmp_path / "out.csv", tmp_path / "result.json"
    anonymize = subprocess.run(
        [sys.executable, "-m", "engine.cli", "anonymize", str(job), "--output", str(out),
         "--result", str(result), "--quiet"], capture_output=True, text=True, env=ENV,
        cwd=ROOT)
    assert anonymize.returncode == 0, anonymize.stderr
    assert "optimum" in anonymize.stderr
    assert json.loads(result.read_text())["output"] == str(out)
    assert len(out.read_text().splitlines()) == 61  # the header and 60 records
    run = "import sys\nfrom app.launcher import run\nsys.argv[0] = 'anonymist'\nrun()\n"
    verify = subprocess.run([sys.executable, "-c", run, "verify", str(out), str(job)],
                            capture_output=True, text=True, env=ENV, cwd=ROOT)
    assert verify.returncode == 0, verify.stderr
    assert json.loads(verify.stdout)["ok"] is True
    (tmp_path / "strict.toml").write_text(job.read_text().replace("k = 2", "k = 50"))
    failed = subprocess.run([sys.executable, "-c", run, "verify", str(out),
                             str(tmp_path / "strict.toml")],
                            capture_output=True, text=True, env=ENV, cwd=ROOT)
    assert failed.returncode == 1 and json.loads(failed.stdout)["ok"] is False
    bad = subprocess.run([sys.executable, "-c", run, "anonymize", str(tmp_path / "none.toml")],
                         capture_output=True, text=True, env=ENV, cwd=ROOT)
    assert bad.returncode == 2 and "job file not found" in bad.stderr
