"""`anonymist verify` against `anonymist anonymize` on large Adult data: time and memory.

    python3 tests/benchmarks/bench_verify.py --rows 5000000
    python3 tests/benchmarks/bench_verify.py --rows 1000000 --ref 1d263aa   # and an older verify
    python3 tests/benchmarks/bench_verify.py --sensitive   # with l-diversity and t-closeness

Generates the rows with ../shared/tools/datagen.py (k = 5, 4 % suppression, Loss),
runs each command in its own process under /usr/bin/time -v and prints wall time,
CPU time (user + sys) and peak resident memory. The target (issue 14): verify within
2x anonymize's time and memory. ``--ref`` also runs the verify of another commit
(checked out with ``git worktree`` into a temporary folder, removed afterwards).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATAGEN = ROOT.parent / "shared" / "tools" / "datagen.py"
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation", "salary-class"]


def job_text(sensitive: bool = False) -> str:
    """k = 5 on Adult's nine QIs; with ``sensitive``, salary-class is sensitive instead
    (distinct 2-diversity and 0.2-closeness beside k = 5)."""
    lines = ['[data]\npath = "adult.csv"\ndelimiter = ";"\n']
    for q in QIS:
        if sensitive and q == "salary-class":
            lines.append(f'[attributes."{q}"]\ntype = "sensitive"\n')
            continue
        lines.append(f'[attributes."{q}"]\ntype = "quasi-identifying"\n'
                     f'hierarchy = "adult_hierarchy_{q}.csv"\n')
    lines.append('[[privacy]]\nmodel = "k-anonymity"\nk = 5\n')
    if sensitive:
        lines.append('[[privacy]]\nmodel = "distinct-l-diversity"\n'
                     'attribute = "salary-class"\nl = 2\n')
        lines.append('[[privacy]]\nmodel = "t-closeness"\nattribute = "salary-class"\n'
                     't = 0.2\n')
    lines.append('[transformation]\nsuppression_limit = 0.04\n[metric]\nname = "loss"\n')
    return "\n".join(lines)


def measured(args: list[str], pythonpath: Path) -> dict:
    """Run ``python -m ...args`` under /usr/bin/time -v: wall s, cpu s, peak RSS MB."""
    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    p = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", *args],
                       capture_output=True, text=True, env=env)
    err = p.stderr

    def field(name):
        m = re.search(rf"{re.escape(name)}: (.+)", err)
        return m.group(1).strip() if m else "0"

    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    parts = [float(x) for x in wall.split(":")]
    seconds = sum(x * 60 ** i for i, x in enumerate(reversed(parts)))
    return {"code": p.returncode, "wall_s": seconds,
            "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "rss_mb": int(field("Maximum resident set size (kbytes)")) / 1024,
            "tail": err.strip().splitlines()[-25:-23] if p.returncode else []}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--dir", type=Path, help="work folder (default: a temporary one)")
    ap.add_argument("--ref", help="also run verify at this git commit")
    ap.add_argument("--sensitive", action="store_true",
                    help="salary-class sensitive with l-diversity and t-closeness")
    args = ap.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench_verify_"))
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "adult.csv").exists():
        subprocess.run([sys.executable, str(DATAGEN), "adult", "--rows", str(args.rows),
                        "--out", str(folder)], check=True)
    (folder / "job.toml").write_text(job_text(args.sensitive))
    out = folder / "out.csv"
    rows = {}
    rows["anonymize"] = measured(["engine.cli", "anonymize", str(folder / "job.toml"),
                                  "--output", str(out), "--quiet"], ROOT)
    rows["verify"] = measured(["engine.cli", "verify", str(out), str(folder / "job.toml")],
                              ROOT)
    if args.ref:
        tree = Path(tempfile.mkdtemp(prefix="bench_verify_ref_"))
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree),
                        args.ref], check=True, capture_output=True)
        try:
            rows[f"verify @ {args.ref}"] = measured(
                ["engine.cli", "verify", str(out), str(folder / "job.toml")], tree)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(tree)], check=False, capture_output=True)
    print(f"{args.rows:,} rows ({folder}){', sensitive models' if args.sensitive else ''}")
    print(f"{'command':<24}{'exit':>5}{'wall s':>9}{'cpu s':>9}{'peak MB':>10}")
    for name, r in rows.items():
        print(f"{name:<24}{r['code']:>5}{r['wall_s']:>9.1f}{r['cpu_s']:>9.1f}"
              f"{r['rss_mb']:>10.0f}  {' '.join(r['tail'])}")
    a, v = rows["anonymize"], rows["verify"]
    print(f"verify / anonymize: cpu {v['cpu_s'] / a['cpu_s']:.2f}x, "
          f"memory {v['rss_mb'] / a['rss_mb']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
