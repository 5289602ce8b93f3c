"""The post-install warm-up (``python -m engine.warmup``) runs every job it lists: a
job-file change that broke one would leave its kernels to compile at first use."""
from __future__ import annotations

import io

from engine import warmup


def test_warmup_runs_every_configuration():
    out = io.StringIO()
    warmup.warm(out)
    lines = out.getvalue().splitlines()
    assert [line.split("  ")[1].strip() for line in lines[:len(warmup.RUNS)]] == \
        [label for label, *_ in warmup.RUNS]
    assert "population-uniqueness estimators" in lines[-1]


def test_is_warm_reads_numbas_cache(tmp_path):
    """An empty numba cache is cold; this checkout's (filled by the tests) is warm."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    code = "import json; from engine.warmup import is_warm; print(json.dumps(is_warm()))"
    env = dict(os.environ, PYTHONPATH=str(root), NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) is False


def test_warmup_stops_between_steps_when_cancelled():
    out = io.StringIO()
    warmup.warm(out, cancelled=lambda: True)
    assert out.getvalue() == ""
