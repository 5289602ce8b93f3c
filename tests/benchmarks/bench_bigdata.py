"""Benchmark of the aggregation backends on scaled Adult (not a test; ratios in one run).

    nice python3 tests/benchmarks/bench_bigdata.py --rows 1000000 10000000 \\
        --formats csv parquet --backends memory duckdb spark --k 5 100

For each row count the data is generated with ``../shared/tools/datagen.py adult``
into ``--dir`` (default /tmp/anonymist-bench, deleted at the end unless --keep),
also written as Parquet by DuckDB. Each (format, backend, k) runs ``anonymize``
(Adult's 8 quasi-identifiers, salary-class sensitive, k-anonymity, 4 %, Loss) in a
fresh process; the parent samples the resident memory of the process tree (the
Spark JVM included) every 0.1 s. The child reports its phases: import, aggregate
(the backend's frequency table, or reading and encoding in memory), search and
release (writing the released CSV / Parquet). Released CSVs of every backend are
compared with the in-memory one byte for byte where both exist. The in-memory path
is skipped where it would need more than --memory-share of the machine's memory.
Results print as a table and go to --json.
"""
from __future__ import annotations

import argparse
import filecmp
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: ../shared/tools/datagen.py beside the checkout (a worktree's: further up)
DATAGEN = next((p / "shared" / "tools" / "datagen.py" for p in ROOT.parents
                if (p / "shared" / "tools" / "datagen.py").is_file()),
               ROOT.parent / "shared" / "tools" / "datagen.py")
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation"]


def job_text(folder: Path, data: str, k: int, backend: str, limit: float,
             memory_limit: str | None = None) -> str:
    lines = [f'[data]\npath = "{data}"\ndelimiter = ";"\n']
    for q in QIS:
        lines.append(f'[attributes."{q}"]\ntype = "quasi-identifying"\n'
                     f'hierarchy = "{folder}/adult_hierarchy_{q}.csv"\n')
    lines.append('[attributes."salary-class"]\ntype = "sensitive"\n')
    lines.append(f'[[privacy]]\nmodel = "k-anonymity"\nk = {k}\n')
    lines.append(f'[transformation]\nsuppression_limit = {limit}\n[metric]\nname = "loss"\n')
    lines.append(f'[engine]\nbackend = "{backend}"\nspark_master = "local[2]"\n'
                 + (f'memory_limit = "{memory_limit}"\n' if memory_limit else ""))
    return "\n".join(lines)


def child(job: str, output: str) -> None:
    """One run in this process; prints the phase times as JSON on the last line."""
    t0 = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    from engine.api import prepare
    from engine.result import AnonymizationResult
    from engine.search import run_search
    t_import = time.perf_counter()
    problem = prepare(None, job)
    t_agg = time.perf_counter()
    outcome = run_search(problem)
    result = AnonymizationResult(problem, outcome, time.perf_counter() - t_agg)
    t_search = time.perf_counter()
    fmt = "parquet" if output.endswith(".parquet") else "csv"
    if result.optimum is not None:
        if problem.backend is not None:
            result.write_output(output)
        else:
            from engine.export.targets import file_target, write_table
            write_table(result.output, file_target(output))
    t_release = time.perf_counter()
    print(json.dumps({
        "import_s": t_import - t0, "aggregate_s": t_agg - t_import,
        "search_s": t_search - t_agg, "release_s": t_release - t_search,
        "rows_in_frequency_table": int(problem.table.n_rows),
        "records": int(problem.table.n_records), "format_out": fmt,
        "levels": result.optimum.levels if result.optimum else None,
        "suppressed": result.optimum.suppressed_records if result.optimum else None}))


def measure(cmd: list[str]) -> tuple[dict | None, float, float, str]:
    """Run ``cmd``; (its JSON report, wall seconds, peak RSS of the tree in MB, stderr)."""
    import psutil
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ps = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            tree = [ps] + ps.children(recursive=True)
            peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
        except psutil.Error:
            pass
        time.sleep(0.1)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    lines = [line for line in out.splitlines() if line.startswith("{")]
    return (json.loads(lines[-1]) if lines and proc.returncode == 0 else None), wall, \
        peak / 2**20, err[-2000:]


def same_release(reference: Path, out: Path) -> bool:
    """Whether ``out`` (a file, or Spark's folder of part files each with a header)
    holds the bytes of ``reference``, compared in blocks."""
    if out.is_file():
        return filecmp.cmp(reference, out, shallow=False)
    parts = sorted(p for p in out.iterdir() if p.name.startswith("part-"))
    with open(reference, "rb") as ref:
        for i, part in enumerate(parts):
            with open(part, "rb") as f:
                if i > 0:
                    f.readline()  # each part repeats the header
                while block := f.read(1 << 20):
                    if ref.read(len(block)) != block:
                        return False
        return ref.read(1) == b""


def make_data(folder: Path, rows: int, base: Path | None, base_rows: int,
              csv: bool = True) -> str:
    """Data of ``rows`` rows in ``folder``; returns the Parquet path (a file or a glob).

    Up to ``base_rows`` rows datagen draws them; beyond, the ``base`` sample is
    repeated (``rows / base_rows`` times): the CSV as one file, the Parquet as a
    glob of links to the base file (a 200 M-row glob costs no disk)."""
    if rows > base_rows and base is not None:
        times, rest = divmod(rows, base_rows)
        if rest:
            raise SystemExit(f"--rows {rows} is not a multiple of --base-rows {base_rows}")
        for h in base.glob("adult_hierarchy_*.csv"):
            shutil.copy(h, folder / h.name)
        if csv and not (folder / "adult.csv").exists():
            with open(base / "adult.csv", "rb") as f:
                header = f.readline()
                body_start = f.tell()
            tmp = folder / "adult.csv.tmp"
            with open(tmp, "wb") as out:
                out.write(header)
                for _ in range(times):
                    with open(base / "adult.csv", "rb") as f:
                        f.seek(body_start)
                        shutil.copyfileobj(f, out, 16 * 2**20)
            tmp.rename(folder / "adult.csv")
        parts = folder / "parts"
        parts.mkdir(exist_ok=True)
        for i in range(times):
            link = parts / f"part{i:04d}.parquet"
            if not link.exists():
                link.symlink_to(base / "adult.parquet")
        return str(parts / "*.parquet")
    if not (folder / "adult.csv").exists():
        subprocess.run([sys.executable, str(DATAGEN), "adult", "--rows", str(rows),
                        "--out", str(folder)], check=True)
    if not (folder / "adult.parquet").exists():
        import duckdb
        con = duckdb.connect()
        con.execute("SET preserve_insertion_order = true")
        con.execute(f"COPY (SELECT * FROM read_csv('{folder}/adult.csv', delim=';', "
                    f"header=true, all_varchar=true)) TO '{folder}/adult.parquet' "
                    f"(FORMAT parquet)").fetchall()
        con.close()
    return str(folder / "adult.parquet")


def spark_available() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed"
    if shutil.which("java") is None:
        return "java is not on the PATH"
    return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    p.add_argument("--formats", nargs="+", default=["csv", "parquet"])
    p.add_argument("--backends", nargs="+", default=["memory", "duckdb", "spark"])
    p.add_argument("--k", type=int, nargs="+", default=[5, 100])
    p.add_argument("--limit", type=float, default=0.04)
    p.add_argument("--dir", type=Path, default=Path("/tmp/anonymist-bench"))
    p.add_argument("--base-rows", type=int, default=10_000_000,
                   help="larger row counts repeat the sample of this many rows")
    p.add_argument("--memory-share", type=float, default=0.5,
                   help="skip the in-memory path beyond this share of RAM (estimated)")
    p.add_argument("--keep", action="store_true", help="keep the generated data")
    p.add_argument("--out-format", choices=("csv", "parquet"), default="csv",
                   help="format of the released file")
    p.add_argument("--memory-limit", help="[engine] memory_limit for DuckDB / Spark, e.g. 3GB")
    p.add_argument("--json", type=Path, default=Path("/tmp/anonymist-bench.json"))
    p.add_argument("--child", nargs=2, metavar=("JOB", "OUTPUT"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    import psutil
    sys.path.insert(0, str(ROOT))
    from engine.backends import MEMORY_PER_CSV_BYTE
    ram = psutil.virtual_memory().total
    results = []
    no_spark = spark_available()
    for rows in sorted(args.rows):
        folder = args.dir / f"adult{rows}"
        folder.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        base = args.dir / f"adult{args.base_rows}"
        parquet = make_data(folder, rows, base if base.is_dir() else None, args.base_rows,
                            csv="csv" in args.formats or "memory" in args.backends)
        csv_mb = ((folder / "adult.csv").stat().st_size / 2**20
                  if (folder / "adult.csv").exists() else 0)
        print(f"# {rows:,} rows: data ready in {time.perf_counter() - t:.0f}s "
              f"(CSV {csv_mb:,.0f} MB, Parquet {parquet})", flush=True)
        for k in args.k:
            reference = None
            for fmt in args.formats:
                for backend in args.backends:
                    row = {"rows": rows, "format": fmt, "backend": backend, "k": k}
                    data = folder / "adult.csv" if fmt == "csv" else parquet
                    if backend == "memory" and (folder / "adult.csv").stat().st_size * \
                            MEMORY_PER_CSV_BYTE > args.memory_share * ram:
                        row["skipped"] = "in-memory path would exceed the memory share"
                    elif backend == "spark" and no_spark:
                        row["skipped"] = no_spark
                    if "skipped" in row:
                        results.append(row)
                        print(json.dumps(row), flush=True)
                        continue
                    job = folder / f"job-{backend}-{fmt}-{k}.toml"
                    job.write_text(job_text(folder, str(data), k, backend, args.limit,
                                            args.memory_limit))
                    out = folder / f"out-{backend}-{fmt}-{k}.{args.out_format}"
                    report, wall, peak, err = measure(
                        [sys.executable, __file__, "--child", str(job), str(out)])
                    row.update(wall_s=round(wall, 2), peak_rss_mb=round(peak))
                    if report is None:
                        row["error"] = err.strip().splitlines()[-1] if err.strip() else "failed"
                    else:
                        row.update({key: (round(v, 2) if isinstance(v, float) else v)
                                    for key, v in report.items()})
                        if out.exists():
                            if reference is None and out.is_file():
                                reference = out
                            elif reference is not None:
                                row["identical_to"] = reference.name if same_release(
                                    reference, out) else f"DIFFERS from {reference.name}"
                    results.append(row)
                    print(json.dumps(row), flush=True)
                    args.json.write_text(json.dumps(results, indent=1))
            for f in folder.glob("out-*"):
                shutil.rmtree(f) if f.is_dir() else f.unlink()
        if not args.keep and folder != base:
            shutil.rmtree(folder, ignore_errors=True)
    if not args.keep:
        shutil.rmtree(args.dir, ignore_errors=True)
    print_table(results)
    return 0


def print_table(results: list[dict]) -> None:
    print("\n| rows | format | backend | k | wall s | peak RSS MB | aggregate s | search s "
          "| release s | freq. rows | same release |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        if "skipped" in r or "error" in r:
            print(f"| {r['rows']:,} | {r['format']} | {r['backend']} | {r['k']} | "
                  f"{r.get('skipped') or r.get('error')} ||||||")
            continue
        print(f"| {r['rows']:,} | {r['format']} | {r['backend']} | {r['k']} | {r['wall_s']} | "
              f"{r['peak_rss_mb']:,} | {r['aggregate_s']} | {r['search_s']} | "
              f"{r['release_s']} | {r['rows_in_frequency_table']:,} | "
              f"{r.get('identical_to', 'reference')} |")


if __name__ == "__main__":
    sys.exit(main())
