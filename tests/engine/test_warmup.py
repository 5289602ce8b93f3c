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


def test_load_kernels_loads_the_common_kernels_into_the_process():
    """After ``load_kernels`` (what the CLI does before a time-limited run starts its
    clock, and the app in a worker when it starts) the key kernels are numba
    dispatchers holding machine code: the first real run loads nothing."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    code = ("import json, importlib; from engine.warmup import KEY_KERNELS, load_kernels\n"
            "def loaded():\n"
            "    out = {}\n"
            "    for key in KEY_KERNELS + ('engine.kernel.grouping:_group_by_rows',):\n"
            "        module, name = key.split(':')\n"
            "        k = getattr(importlib.import_module(module), name)\n"
            "        out[key] = len(getattr(k, 'signatures', []) if type(k).__name__ != "
            "'LazyKernel' or k._dispatcher is not None else [])\n"
            "    return out\n"
            "before = loaded(); load_kernels(); print(json.dumps([before, loaded()]))")
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    before, after = json.loads(out.stdout.strip().splitlines()[-1])
    # and whole rows hashed for wide tables (credit card's 24 QIs: no 62-bit key)
    grouping = [k for k in warmup.KEY_KERNELS if k.startswith("engine.kernel.grouping")]
    grouping.append("engine.kernel.grouping:_group_by_rows")
    assert all(before[k] == 0 for k in grouping)
    assert all(after[k] > 0 for k in grouping)
