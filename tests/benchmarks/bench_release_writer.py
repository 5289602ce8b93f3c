"""What the share/internal layout costs over a plain release with its report: the
public report (a second PDF and JSON), the job with its hierarchies and the READMEs.

    python3 tests/benchmarks/bench_release_writer.py [--rounds 5]

Workload: Adult (30,162 rows, 9 QIs, k=5, 4 %, Loss), anonymized once. Then, interleaved
round by round, CPU seconds (``time.process_time``) of one call each:

- ``plain``: ``write_release(result, ReleaseRequest(target, mapping, report, input))``:
  the table, the value mapping and the full report (what the guided release wrote
  before share/internal);
- ``share/internal``: ``write_release(result, share_internal(folder, "adult", ...))``:
  the same plus the job and hierarchies, the public report and the two READMEs.

Prints the medians and their ratio (the load average too: the machine is shared)."""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    import engine
    from engine.export.targets import CsvOptions, FileTarget
    from engine.release_docs.writer import ReleaseRequest, share_internal, write_release
    from tests.engine.conftest import ADULT, adult_job_text
    work = Path(tempfile.mkdtemp(prefix="bench-writer-"))
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, work / f.name)
    (work / "job.toml").write_text(adult_job_text())
    result = engine.anonymize(None, work / "job.toml")
    data = work / "adult.csv"

    def plain(folder: Path) -> None:
        folder.mkdir()
        write_release(result, ReleaseRequest(
            FileTarget(folder / "adult-anonymized.csv", "csv", CsvOptions()),
            folder / "internal" / "adult-mapping", folder / "adult-report.pdf", data))

    def split(folder: Path) -> None:
        write_release(result, share_internal(folder, "adult", input_path=data))

    times: dict[str, list[float]] = {"plain": [], "share/internal": []}
    split(work / "warm")  # fonts, fpdf2 and the released table once
    for r in range(args.rounds):
        for name, fn in (("plain", plain), ("share/internal", split)):
            start = time.process_time()
            fn(work / f"{name.replace('/', '-')}-{r}")
            times[name].append(time.process_time() - start)
    a, b = (statistics.median(times[k]) for k in ("plain", "share/internal"))
    print(f"load {os.getloadavg()[0]:.1f}; rounds {args.rounds}")
    for k, v in times.items():
        print(f"{k:15s} median {statistics.median(v):.3f} s CPU  ({' '.join(f'{x:.3f}' for x in v)})")
    print(f"share/internal / plain = {b / a:.2f}")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
