"""Every refusal before any work: what a job and the command's options need is checked
against the backend's capabilities (engine/backends/capabilities.py) before a backend is
opened, a Spark session started or a file written. No Spark here: opening a backend is
made to fail the test, so a refusal that comes late cannot pass."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.backends import capabilities
from engine.cli import main
from tests.engine.conftest import ADULT, adult_job_text

ROOT = Path(__file__).resolve().parents[2]
QIS = ["sex", "age", "race"]


@pytest.fixture
def job_dir(tmp_path, monkeypatch):
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, tmp_path / f.name)
    lines = (ADULT / "adult.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "adult.csv").write_text("".join(lines[:400]), encoding="utf-8")
    opened = []

    def no_backend(name, job, source):
        opened.append(name)
        raise AssertionError(f"the {name} backend was opened before the refusal")
    import engine.backends
    monkeypatch.setattr(engine.backends, "open_backend", no_backend)
    import engine.api
    monkeypatch.setattr(engine.api, "Problem", None)  # nothing may be prepared either
    return tmp_path


def _job(folder: Path, backend: str, extra: str = "") -> Path:
    path = folder / f"{backend}.toml"
    path.write_text(adult_job_text(k=5, qis=QIS) + extra + f'[engine]\nbackend = "{backend}"\n')
    return path


SPARK_REFUSED = [
    ("[subset]\nsample = 0.5\nseed = 3\n", [], "[subset] sample"),
    ('[[privacy]]\nmodel = "differential-privacy"\nepsilon = 2.0\ndelta = 1e-5\n', [],
     "differential privacy"),
    ('[attributes."education"]\ntype = "identifying"\npseudonymize = "mask"\n', [],
     "pseudonyms"),
    ("", ["--mapping", "MAP"], "--mapping"),
    ("", ["--report", "report.pdf"], "--report"),
    ("", ["--output", "OUT.xlsx"], ".xlsx"),
    ("", ["--csv-quoting", "all"], "--csv-quoting"),
]


@pytest.mark.parametrize("extra,options,named", SPARK_REFUSED)
def test_spark_refuses_before_it_starts(job_dir, capsys, extra, options, named):
    options = [str(job_dir / o) if o in ("MAP", "OUT.xlsx") else o for o in options]
    if "--output" not in options:
        options += ["--output", str(job_dir / "out.csv")]
    code = main(["anonymize", str(_job(job_dir, "spark", extra)), "--quiet", *options])
    err = capsys.readouterr().err
    assert code == 2, err
    assert named in err and "spark backend" in err and "docs/reference/backends.md" in err
    assert not (job_dir / "out.csv").exists() and not (job_dir / "MAP").exists()


def test_duckdb_refuses_the_report_and_memory_refuses_uris(job_dir, capsys):
    code = main(["anonymize", str(_job(job_dir, "duckdb")), "--output",
                 str(job_dir / "out.csv"), "--report", str(job_dir / "r.pdf"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "--report" in err and "duckdb backend" in err and '"memory"' in err
    code = main(["anonymize", str(_job(job_dir, "memory")), "--output",
                 "file:///tmp/anonymist-never/out.csv", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "URIs" in err and "memory backend" in err and '"spark"' in err
    code = main(["anonymize", str(_job(job_dir, "duckdb")), "--data",
                 "hdfs://namenode:8020/data/claims.parquet", "--output",
                 str(job_dir / "out.csv"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "hdfs://namenode:8020/data/claims.parquet" in err and "URIs" in err


def test_every_feature_a_backend_lacks_is_refused_and_the_rest_pass():
    """The table decides: for each feature, `check` refuses exactly the backends the
    table says lack it (through `needed`, from a job asking for it)."""
    from engine.project.job_file import job_from_dict
    base = {"data": {"path": "x.csv"},
            "attributes": {"age": {"type": "quasi-identifying"},
                           "mail": {"type": "identifying"}},
            "privacy": [{"model": "k-anonymity", "k": 2}]}
    jobs = {
        "subset-rows": ({**base, "subset": {"indices": [0, 1]}}, None),
        "differential-privacy": ({**base, "privacy": [{"model": "differential-privacy",
                                                        "epsilon": 2.0, "delta": 1e-5}]},
                                 None),
        "local-recoding": ({**base, "transformation": {"local_recoding": {}}}, None),
        "mapping": (base, {"--mapping": "m"}),
        "report": (base, {"--report": "r.pdf"}),
        "pseudonym-table": (base, {"--pseudonym-table": "p.csv"}),
        "other-targets": (base, {"other-targets": "--output x.xlsx"}),
        "uri": (base, {"uri": "--output s3a://b/x.csv"}),
    }
    for key, (spec, outputs) in jobs.items():
        job = job_from_dict(spec, Path.cwd())
        assert key in [k for k, _ in capabilities.needed(job, outputs)], key
        for backend in capabilities.BACKEND_NAMES:
            if capabilities.supports(backend, key):
                capabilities.check(backend, job, outputs)
            else:
                with pytest.raises(Exception, match=f"the {backend} backend"):
                    capabilities.check(backend, job, outputs)


def test_the_documented_table_is_the_engines():
    page = (ROOT / "docs" / "reference" / "backends.md").read_text(encoding="utf-8")
    assert capabilities.markdown_table() in page


def test_uris_stay_text_and_are_never_checked_on_this_disk(tmp_path):
    """A URI is not folded into a Path, its kind comes from its suffix (a file, a glob,
    a folder of parts), and `data_source` looks at no local file for it."""
    from engine.backends import data_source
    from engine.backends.locations import is_uri, path_or_uri, uri_kind
    from engine.project.job_file import job_from_dict
    assert path_or_uri("s3a://bucket/x/out.csv") == "s3a://bucket/x/out.csv"
    assert path_or_uri("out/x.csv") == Path("out/x.csv") and not is_uri(Path("file:/x"))
    assert uri_kind("hdfs://nn:8020/claims/*.parquet") == "parquet"
    assert uri_kind("gs://b/release.csv/") == "csv"
    assert uri_kind("abfs://c@acct.dfs.core.windows.net/claims/") is None
    job = job_from_dict({"data": {"path": "hdfs://nn:8020/claims/"},
                         "attributes": {"age": {"type": "quasi-identifying"}},
                         "privacy": [{"model": "k-anonymity", "k": 2}]}, tmp_path)
    source = data_source(job)
    assert source.path == "hdfs://nn:8020/claims/" and source.files == ()
    assert source.kind == "parts" and source.size_bytes == 0
    from engine.api import planned_backend
    assert planned_backend(job) == "spark"  # auto: only Spark reads a URI


def test_a_stale_spark_folder_is_removed_but_no_other_folder(tmp_path):
    """With no solution (or identifiers found) the earlier release at --output is
    removed so that it cannot pass for this job's: a Spark folder of parts too, never
    a folder holding anything else."""
    from engine.cli import _remove_stale
    spark = tmp_path / "out.csv"
    spark.mkdir()
    for name in ("part-00000-x-c000.csv", ".part-00000-x-c000.csv.crc", "_SUCCESS"):
        (spark / name).write_text("a\n")
    mine = tmp_path / "mine.csv"
    mine.mkdir()
    (mine / "part-00000.csv").write_text("a\n")
    (mine / "notes.txt").write_text("keep")
    assert _remove_stale([spark, mine, None]) == [spark]
    assert not spark.exists() and (mine / "notes.txt").exists()
