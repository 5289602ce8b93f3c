"""The Spark backend in local mode against the in-memory path (one small table).

Marked slow: a Spark session costs 30 s to minutes on a loaded 2-core machine, so
the default run leaves it out; packaging/run-tests.sh runs it in a second step
where Java is present (installing PySpark, ~300 MB). Skipped, with the reason,
where PySpark or Java is missing."""
from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from engine.cli import main
from tests.engine.conftest import ADULT, adult_job_text

pytest.importorskip("pyspark", reason="PySpark is not installed (pip install 'anonymist[spark]')")
if shutil.which("java") is None:
    pytest.skip("Java is not on the PATH: Spark needs Java 17", allow_module_level=True)

QIS = ["sex", "age", "race", "marital-status", "education"]


@pytest.mark.slow
def test_spark_local_matches_memory(tmp_path, capsys):
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, tmp_path / f.name)
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame.iloc[:3000].to_csv(tmp_path / "adult.csv", sep=";", index=False)
    frame.iloc[:3000].to_parquet(tmp_path / "adult.parquet", index=False)
    runs = {}
    for name, backend, data in [("memory", "memory", "adult.csv"),
                                ("spark", "spark", "adult.csv"),
                                ("spark-pq", "spark", "adult.parquet")]:
        text = adult_job_text(k=10, limit=0.04, qis=QIS, data=data)
        (tmp_path / f"{name}.toml").write_text(
            text + f'[engine]\nbackend = "{backend}"\nspark_master = "local[2]"\n')
        assert main(["anonymize", str(tmp_path / f"{name}.toml"), "--output",
                     str(tmp_path / f"{name}.csv"), "--result", str(tmp_path / f"{name}.json"),
                     "--quiet"]) == 0
        runs[name] = json.loads((tmp_path / f"{name}.json").read_text())["optimum"]
    assert runs["spark"] == runs["memory"] == runs["spark-pq"]
    reference = (tmp_path / "memory.csv").read_bytes()
    for name in ("spark", "spark-pq"):
        parts = sorted((tmp_path / f"{name}.csv").glob("part-*.csv"))
        header, *rest = [p.read_bytes() for p in parts]
        body = header + b"".join(p.split(b"\n", 1)[1] for p in rest)
        assert body == reference  # part files in order: the in-memory release
        # Spark's folder of part files verifies as it is (read by DuckDB, streamed)
        assert main(["verify", str(tmp_path / f"{name}.csv"),
                     str(tmp_path / f"{name}.toml")]) == 0
    # run again onto its own folder of parts: replaced once the new one is complete
    before = {p.name for p in (tmp_path / "spark.csv").iterdir()}
    assert main(["anonymize", str(tmp_path / "spark.toml"), "--output",
                 str(tmp_path / "spark.csv"), "--quiet"]) == 0
    parts = sorted((tmp_path / "spark.csv").glob("part-*.csv"))
    assert {p.name for p in parts}.isdisjoint(before)  # Spark names parts anew per write
    header, *rest = [p.read_bytes() for p in parts]
    assert header + b"".join(p.split(b"\n", 1)[1] for p in rest) == reference
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".spark.csv.")]
    # a folder holding anything else is not a release to replace
    (tmp_path / "mine.csv").mkdir()
    (tmp_path / "mine.csv" / "notes.txt").write_text("keep me")
    assert main(["anonymize", str(tmp_path / "spark.toml"), "--output",
                 str(tmp_path / "mine.csv"), "--quiet"]) == 2
    assert (tmp_path / "mine.csv" / "notes.txt").read_text() == "keep me"
    capsys.readouterr()


@pytest.mark.slow
def test_spark_microaggregation_coding_rules_and_verify(tmp_path, capsys):
    """Microaggregation (by class) and a coding rule (by value) released by Spark as in
    memory; the folder of part files verifies."""
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, tmp_path / f.name)
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame = frame.iloc[:3000].copy()
    frame["hours"] = [str((i * 37) % 83 + 5) if i % 11 else "" for i in range(3000)]
    frame.to_csv(tmp_path / "adult.csv", sep=";", index=False)
    extra = ('[attributes."hours"]\ntype = "quasi-identifying"\n'
             'transformation = "microaggregation"\nfunction = "median"\n'
             '[attributes."salary-class"]\ntype = "insensitive"\n'
             'transformation = "suppression"\n')
    for backend in ("memory", "spark"):
        text = adult_job_text(k=5, limit=0.04, qis=["sex", "age", "race"]) + extra
        (tmp_path / f"{backend}.toml").write_text(
            text + f'[engine]\nbackend = "{backend}"\nspark_master = "local[2]"\n')
        assert main(["anonymize", str(tmp_path / f"{backend}.toml"), "--output",
                     str(tmp_path / f"{backend}.csv"), "--quiet"]) == 0
    parts = sorted((tmp_path / "spark.csv").glob("part-*.csv"))
    header, *rest = [p.read_bytes() for p in parts]
    body = header + b"".join(p.split(b"\n", 1)[1] for p in rest)
    assert body == (tmp_path / "memory.csv").read_bytes()
    assert main(["verify", str(tmp_path / "spark.csv"), str(tmp_path / "spark.toml")]) == 0
    capsys.readouterr()


@pytest.mark.slow
def test_spark_gives_the_analyses_duckdbs_counts(tmp_path):
    """What Analyze utility counts through AnalysisTables on a Spark problem (one-scan
    column counts, released counts and pairs from a frequency table) equals the DuckDB
    problem's; Spark pages the records and their release as DuckDB does."""
    from engine.analysis.sources import AnalysisTables
    from engine.analysis.statistics import contingency, frequencies
    from engine.api import prepare
    from engine.output import transform
    from engine.project.job_file import load_job
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, tmp_path / f.name)
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame.iloc[:3000].to_csv(tmp_path / "adult.csv", sep=";", index=False)
    problems = {}
    for backend in ("duckdb", "spark"):
        (tmp_path / f"{backend}.toml").write_text(
            adult_job_text(k=5, limit=0.04, qis=QIS)
            + f'[engine]\nbackend = "{backend}"\nspark_master = "local[2]"\n')
        problems[backend] = prepare(None, load_job(tmp_path / f"{backend}.toml"))
    try:
        levels = (1, 2, 1, 1, 1)
        duck, spark = (AnalysisTables(p, transform(p, levels)) for p in problems.values())
        for name in ("occupation", "workclass", "age"):
            for side in ("input", "output"):
                pd.testing.assert_frame_equal(
                    frequencies(getattr(spark, side)([name]), name),
                    frequencies(getattr(duck, side)([name]), name))
        for side in ("input", "output"):
            pd.testing.assert_frame_equal(
                contingency(getattr(spark, side)(["education", "workclass"]), "education",
                            "workclass"),
                contingency(getattr(duck, side)(["education", "workclass"]), "education",
                            "workclass"))
        plan = duck.plan()
        d, s = problems["duckdb"].backend, problems["spark"].backend.twin()
        for p in (None, plan):
            assert s.rows(2990, 10, p).equals(d.rows(2990, 10, p))
    finally:
        for p in problems.values():
            p.backend.close()


# --- a standalone cluster on this machine ------------------------------------------------
def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_home():
    import pyspark
    from pathlib import Path
    return Path(pyspark.__file__).resolve().parent


@pytest.fixture
def standalone_cluster(tmp_path):
    """A Spark standalone master and two workers (one core each) from the PySpark
    install, bound to 127.0.0.1 only; ended by their process ids whatever happens.
    Yields the master URL."""
    import json
    import os
    import signal
    import subprocess
    import time
    import urllib.request
    home = _spark_home()
    logs = tmp_path / "cluster-logs"
    logs.mkdir()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
           "SPARK_MASTER_HOST": "127.0.0.1", "SPARK_LOG_DIR": str(logs),
           "SPARK_NO_DAEMONIZE": "1"}
    port, ui = _free_port(), _free_port()
    processes: list[subprocess.Popen] = []

    def start(name: str, *args: str) -> None:
        out = open(logs / f"{name}.log", "wb")
        processes.append(subprocess.Popen(
            [str(home / "bin" / "spark-class"), *args], env=env, stdout=out,
            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True))
        out.close()

    try:
        start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
              "--port", str(port), "--webui-port", str(ui))
        url = f"spark://127.0.0.1:{port}"
        for i in range(2):
            work = tmp_path / f"worker{i}"
            work.mkdir()
            start(f"worker{i}", "org.apache.spark.deploy.worker.Worker", url, "--host",
                  "127.0.0.1", "--port", str(_free_port()), "--webui-port",
                  str(_free_port()), "--cores", "1", "--memory", "1g", "--work-dir",
                  str(work))
        deadline = time.monotonic() + 180  # a loaded 2-core machine: JVMs start slowly
        alive = 0
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in processes):
                break
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json", timeout=5) as r:
                    alive = sum(w.get("state") == "ALIVE"
                                for w in json.load(r).get("workers", []))
            except OSError:
                alive = 0
            if alive == 2:
                break
            time.sleep(1)
        if alive != 2:
            tails = {f.name: f.read_text(errors="replace")[-800:] for f in logs.glob("*.log")}
            pytest.fail(f"the standalone cluster did not come up with two workers: {tails}")
        yield url
    finally:
        for p in processes:  # each by its own id: never a search by name
            if p.poll() is None:
                os.kill(p.pid, signal.SIGTERM)
        for p in processes:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(p.pid, signal.SIGKILL)
                p.wait(timeout=30)


@pytest.mark.slow
def test_standalone_cluster_releases_duckdbs_bytes_from_uris(tmp_path, standalone_cluster):
    """spark-submit of the shipped entry script to a standalone cluster (the job names no
    master: spark-submit's decides), data and release as file:// URIs (the data a glob of
    Parquet parts of unequal sizes, read in name order with no sort): the concatenated
    part files are DuckDB's release byte for byte; run again onto its own output, the
    release is replaced."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import engine.spark_submit as entry
    pytest.importorskip("duckdb")
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, tmp_path / f.name)
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    parts = tmp_path / "parts"
    parts.mkdir()
    for i, (lo, hi) in enumerate([(0, 700), (700, 3500), (3500, 4000)]):
        frame.iloc[lo:hi].to_parquet(parts / f"adult-{i}.parquet", index=False)
    text = adult_job_text(k=10, limit=0.04, qis=QIS, data="parts/*.parquet")
    (tmp_path / "duckdb.toml").write_text(text + '[engine]\nbackend = "duckdb"\n')
    (tmp_path / "spark.toml").write_text(text + '[engine]\nbackend = "spark"\n')
    assert main(["anonymize", str(tmp_path / "duckdb.toml"), "--output",
                 str(tmp_path / "duckdb.csv"), "--quiet"]) == 0
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "SPARK_HOME": str(_spark_home()), "SPARK_LOCAL_IP": "127.0.0.1",
           "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    out = f"{(tmp_path / 'spark.csv').as_uri()}"
    command = [str(_spark_home() / "bin" / "spark-submit"), "--master", standalone_cluster,
               "--conf", "spark.executor.memory=512m", "--conf", "spark.driver.host=127.0.0.1",
               "--conf", "spark.driver.bindAddress=127.0.0.1", entry.__file__, "anonymize",
               str(tmp_path / "spark.toml"), "--data", f"{parts.as_uri()}/*.parquet",
               "--output", out, "--result", str(tmp_path / "spark.json"), "--quiet"]
    reference = (tmp_path / "duckdb.csv").read_bytes()
    for _run in range(2):  # the second run replaces the first's folder of parts
        done = subprocess.run(command, env=env, capture_output=True, timeout=900)
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
        files = sorted((tmp_path / "spark.csv").glob("part-*.csv"))
        assert files
        header, *rest = [p.read_bytes() for p in files]
        assert header + b"".join(p.split(b"\n", 1)[1] for p in rest) == reference
    assert json.loads((tmp_path / "spark.json").read_text())["optimum"]
    assert main(["verify", str(tmp_path / "spark.csv"), str(tmp_path / "spark.toml")]) == 0


@pytest.mark.slow
def test_spark_submits_master_and_settings_are_kept(tmp_path):
    """A job without spark_master runs on the master spark-submit names (PYSPARK_SUBMIT_ARGS
    is what spark-submit hands the Python driver), and a shuffle-partition setting given
    there is kept; without one the partitions are sized from the cores and the data."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame.iloc[:500].to_csv(tmp_path / "adult.csv", sep=";", index=False)
    script = tmp_path / "probe.py"
    script.write_text(
        "import sys\nfrom pathlib import Path\n"
        "from engine.backends import DataSource\n"
        "from engine.backends.spark_backend import SparkBackend\n"
        f"p = Path({str(tmp_path / 'adult.csv')!r})\n"
        "b = SparkBackend(DataSource(str(p), 'csv', (p,)))\n"
        "b.frame()\n"
        "print(b.spark.sparkContext.master, b.spark.conf.get('spark.sql.shuffle.partitions'),"
        " b.spark.sparkContext.defaultParallelism)\n")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root),
           "PYSPARK_SUBMIT_ARGS": "--master local[1] --conf spark.sql.shuffle.partitions=3 "
                                  "pyspark-shell"}
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-3:-1] == ["local[1]", "3"]
    env.pop("PYSPARK_SUBMIT_ARGS")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    master, partitions, cores = done.stdout.split()[-3:]
    assert master == "local[*]" and partitions == cores  # a small file: one per core


@pytest.mark.slow
def test_spark_counts_and_quotes_formula_cells_as_in_memory(tmp_path):
    """Formula cells in a quasi-identifier's labels ('+Male', scanned) and in a column
    released as it is ('=1+2', scanned), the other quasi-identifiers' labels (none a
    formula) not scanned: Spark's parts are the in-memory release byte for byte, with
    the same count of quoted cells."""
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, tmp_path / f.name)
    sex = (tmp_path / "adult_hierarchy_sex.csv").read_text()
    (tmp_path / "adult_hierarchy_sex.csv").write_text(sex.replace("Male", "+Male", 1)
                                                      .replace("Fe+Male", "Female"))
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame = frame.iloc[:3000].copy()
    frame["sex"] = frame["sex"].replace({"Male": "+Male"})
    frame["note"] = [["=1+2", "-3", "plain", "@x"][i % 4] for i in range(3000)]
    frame.to_csv(tmp_path / "adult.csv", sep=";", index=False)
    assert "+Male" in (tmp_path / "adult_hierarchy_sex.csv").read_text()
    extra = '[attributes."note"]\ntype = "insensitive"\n'
    for backend in ("memory", "spark"):
        (tmp_path / f"{backend}.toml").write_text(
            adult_job_text(k=5, limit=0.04, qis=QIS) + extra
            + f'[engine]\nbackend = "{backend}"\nspark_master = "local[2]"\n')
        assert main(["anonymize", str(tmp_path / f"{backend}.toml"), "--output",
                     str(tmp_path / f"{backend}.csv"), "--result",
                     str(tmp_path / f"{backend}.json"), "--quiet"]) == 0
    parts = sorted((tmp_path / "spark.csv").glob("part-*.csv"))
    header, *rest = [p.read_bytes() for p in parts]
    body = header + b"".join(p.split(b"\n", 1)[1] for p in rest)
    memory = (tmp_path / "memory.csv").read_bytes()
    assert body == memory
    released = pd.read_csv(tmp_path / "memory.csv", sep=";", dtype=str,
                           keep_default_na=False)
    quoted = int((released["sex"] == "'+Male").sum() + released["note"].isin(
        ["'=1+2", "'@x"]).sum())
    assert (released["sex"] == "'+Male").sum() > 0
    counts = [list(json.loads((tmp_path / f"{b}.json").read_text())["formula_cells"]
                   .values())[0]["neutralised"] for b in ("memory", "spark")]
    assert counts == [quoted, quoted]
