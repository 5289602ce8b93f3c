"""Run one command; print its wall time and the peak resident memory of its process tree.

    nice python3 tests/benchmarks/peak_rss.py -- anonymist anonymize job.toml --output out.csv

The command runs in a fresh process; every 0.1 s the resident memory of it and all its
descendants (a Spark JVM included) is summed, and the largest sum is the peak. Prints
one JSON line: the command's exit code, wall seconds, peak RSS in MB and the 1-minute
load average at the start and the end, and the seconds from the start at which each
phase of the command's progress bar (stderr: "Counting the records", "Searching",
"writing ...") first appeared (not a test; the figures go into tests/benchmarks/results/).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time


_BAR = re.compile(r"^\[[#.]*\]\s*\d+%\s*")


def _phase(line: str) -> str:
    """A progress line's phase: the bar, figures and times dropped."""
    line = _BAR.sub("", line.strip())
    return re.split(r"[\d:]", line, maxsplit=1)[0].strip()


def _watch(stream, start: float, phases: dict, tail: list) -> None:
    """Phases of the progress bar on ``stream`` (first appearance, seconds from start);
    the stream passed on to this process's stderr as it came."""
    pending = ""
    while chunk := stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536):
        text = chunk.decode("utf-8", "replace")
        sys.stderr.write(text)
        pending += text
        *lines, pending = re.split(r"[\r\n]", pending)
        for line in lines:
            name = _phase(line)
            if name and name not in phases:
                phases[name] = round(time.perf_counter() - start, 1)
            if line.strip():
                tail[:] = (tail + [line.strip()])[-3:]


def measure(cmd: list[str], interval: float = 0.1) -> dict:
    import psutil
    load0 = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE)
    phases: dict[str, float] = {}
    tail: list[str] = []
    watcher = threading.Thread(target=_watch, args=(proc.stderr, start, phases, tail),
                               daemon=True)
    watcher.start()
    ps = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            tree = [ps] + ps.children(recursive=True)
            total = 0
            for p in tree:
                try:
                    total += p.memory_info().rss
                except psutil.Error:
                    pass
            peak = max(peak, total)
        except psutil.Error:
            pass
        time.sleep(interval)
    watcher.join()
    return {"exit": proc.returncode, "wall_s": round(time.perf_counter() - start, 1),
            "peak_rss_mb": round(peak / 2**20), "load_start": round(load0, 2),
            "load_end": round(os.getloadavg()[0], 2), "phases": phases,
            "last_lines": tail, "command": " ".join(cmd)}


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(measure(argv)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
