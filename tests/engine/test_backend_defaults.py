"""Small by default: DuckDB's memory limit without a setting, the app's rule for opening
files out of core, and the start-up sweep of temporary folders left by killed processes."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("duckdb")


def test_default_memory_limit_is_a_quarter_of_ram_at_most_3gb(monkeypatch):
    from engine.backends import duckdb_backend as d
    pages = {"SC_PAGE_SIZE": 4096}
    for ram, expected in [(24 * 2**30, 3 * 2**30), (8 * 2**30, 2 * 2**30),
                          (1 * 2**30, 512 * 2**20)]:
        pages["SC_PHYS_PAGES"] = ram // 4096
        monkeypatch.setattr(d.os, "sysconf", lambda name: pages[name])
        assert d.default_memory_limit() == f"{expected // 2**20}MiB"


def test_a_backend_without_a_limit_takes_the_default(tmp_path):
    from engine.backends import DataSource
    from engine.backends.duckdb_backend import DuckDBBackend, default_memory_limit
    (tmp_path / "x.csv").write_text("a;b\n1;2\n")
    source = DataSource(str(tmp_path / "x.csv"), "csv", (tmp_path / "x.csv",))
    backend = DuckDBBackend(source)
    try:
        got = backend.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        mib = int(default_memory_limit()[:-3])
        value, unit = got.split()
        factor = {"MiB": 1, "GiB": 1024, "MB": 1e6 / 2**20, "GB": 1e9 / 2**20}[unit]
        assert abs(float(value) * factor - mib) / mib < 0.05, got
    finally:
        backend.close()


def test_stale_folders_of_dead_processes_are_swept(tmp_path):
    from engine.backends.temp_folders import TEMP_PREFIX, sweep_stale_folders
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead = int(done.stdout)  # that process has exited and been reaped
    folders = {name: tmp_path / name for name in (
        f"{TEMP_PREFIX}{dead}-abc", f"{TEMP_PREFIX}{os.getppid()}-def",
        f"{TEMP_PREFIX}{os.getpid()}-ghi", f"{TEMP_PREFIX}jkl")}
    for f in folders.values():
        f.mkdir()
        (f / "copy.parquet").write_bytes(b"PAR1")
    removed = sweep_stale_folders(tmp_path)
    assert removed == [folders[f"{TEMP_PREFIX}{dead}-abc"]]
    assert not removed[0].exists()
    assert all(f.exists() for name, f in folders.items() if f != removed[0])


def test_the_app_opens_slow_files_out_of_core_whatever_the_memory(tmp_path, monkeypatch):
    from engine.backends import browse
    from engine.config import EngineConfig
    data = tmp_path / "big.csv"
    data.write_text("a;b\n" + "1;2\n" * 1000)
    generous = EngineConfig(memory_share=1.0)  # the memory rule alone keeps it in memory
    assert not browse.out_of_core_backend(data, generous)
    monkeypatch.setattr(browse, "LOAD_CSV_BYTES", 1000)
    assert browse.out_of_core_backend(data, generous)
    assert not browse.out_of_core_backend(data, EngineConfig(backend="memory"))
