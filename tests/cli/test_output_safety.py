"""Outputs are written atomically, with ordinary permissions, through symbolic links,
and interrupted writes (Ctrl-C, SIGTERM) leave no temporary file behind."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.cli import EXIT_CANCELLED, EXIT_OK
from engine.io_utils import atomic_write_chunks, atomic_write_text
from tests.cli.conftest import snapshot

ROOT = Path(__file__).resolve().parents[2]


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_new_file_gets_0644_under_umask_022(tmp_path, umask_022):
    atomic_write_text(tmp_path / "a.csv", "x\n")
    assert mode(tmp_path / "a.csv") == 0o644


def test_new_file_respects_a_stricter_umask(tmp_path):
    old = os.umask(0o077)
    try:
        atomic_write_text(tmp_path / "a.csv", "x\n")
    finally:
        os.umask(old)
    assert mode(tmp_path / "a.csv") == 0o600


def test_replaced_file_keeps_its_mode(tmp_path, umask_022):
    target = tmp_path / "a.csv"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n" and mode(target) == 0o640


def test_symlink_is_written_through(tmp_path, umask_022):
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    atomic_write_text(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_interrupted_write_removes_the_temporary_file(tmp_path):
    target = tmp_path / "a.csv"
    target.write_text("earlier\n")

    def pieces():
        yield "half"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write_chunks(target, pieces())
    assert target.read_text() == "earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.csv"]


def test_cli_output_mode_and_symlink(tiny, run, umask_022):
    real = tiny / "released" / "real.csv"
    real.parent.mkdir()
    real.write_text("an earlier release\n")
    os.chmod(real, 0o664)
    (tiny / "out.csv").symlink_to(real)
    assert run("anonymize", tiny / "job.toml", "--output", tiny / "out.csv",
               "--result", tiny / "r.json", "--quiet").code == EXIT_OK
    assert (tiny / "out.csv").is_symlink() and mode(real) == 0o664
    assert real.read_text().startswith("age;sex;zip;disease")
    assert mode(tiny / "r.json") == 0o644


SIGTERM_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from engine.cli import main
    from engine.data import csv_encoded

    original = csv_encoded.write_encoded_csv

    def write_encoded_csv(f, *args, **kwargs):  # the released table's CSV writer
        f.write(b"age;sex;zip;disease\\n" + b"partial;row;;\\n" * 1000)
        f.flush()
        print("writing", flush=True)
        os.kill(os.getpid(), signal.SIGTERM)
        return original(f, *args, **kwargs)

    csv_encoded.write_encoded_csv = write_encoded_csv
    sys.exit(main(sys.argv[1:]))
""")


def test_sigterm_mid_write_cleans_up(tiny):
    """A real SIGTERM, delivered while the released table is being written."""
    (tiny / "out.csv").write_text("an earlier release\n")
    before = snapshot(tiny)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", SIGTERM_SCRIPT, "anonymize",
                           str(tiny / "job.toml"), "--output", str(tiny / "out.csv"),
                           "--quiet"], capture_output=True, text=True, env=env, timeout=300)
    assert "writing" in proc.stdout
    assert proc.returncode == EXIT_CANCELLED, proc.stderr
    assert "cancelled" in proc.stderr and "Traceback" not in proc.stderr
    assert snapshot(tiny) == before  # no temporary file; the earlier file untouched


def test_sigint_mid_write_cleans_up(tiny):
    script = SIGTERM_SCRIPT.replace("SIGTERM", "SIGINT")
    before = snapshot(tiny)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", script, "anonymize", str(tiny / "job.toml"),
                           "--output", str(tiny / "out.csv"), "--quiet"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == EXIT_CANCELLED, proc.stderr
    assert "Traceback" not in proc.stderr
    assert snapshot(tiny) == before
