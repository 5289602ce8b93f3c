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
