"""Kernels loaded from numba's disk cache skip numba's compiler registries
(engine/kernel/numba_cache.py, issue 19: 0.35 s of every process), and give the
results they give when compiled; a signature the cache lacks is still compiled."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RUN = r'''
import json, sys
import numpy as np
from engine.kernel import grouping
gen = np.array([[1, 2], [3, 4], [1, 2], [5, 6], [3, 4]], dtype=np.int32)
group_of, first = grouping.group_rows(gen)
sums = grouping.sum_by_group(np.array([1.5, 2.5, 3.0, 4.0, 0.5]), group_of, len(first))
# numba's polynomial implementations: imported only by the registries' refresh
out = {"group_of": group_of.tolist(), "first": first.tolist(), "sums": sums.tolist(),
       "registries_after_loads": "numba.np.polynomial.polynomial_core" in sys.modules}
if sys.argv[1] == "new-signature":  # not in the cache: compiled, registries and all
    small = grouping._sum_by_group(np.array([1, 2, 3, 4, 5], dtype=np.int8), group_of,
                                   len(first))
    out["int8_sums"] = small.tolist()
print(json.dumps(out))
'''


def run(cache: Path, mode: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", RUN, mode], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_cached_kernels_load_without_registries_and_compute_the_same(tmp_path):
    compiled = run(tmp_path, "plain")  # empty cache: compiled (registries loaded)
    loaded = run(tmp_path, "new-signature")  # the cache's machine code
    assert compiled["registries_after_loads"] is True
    assert loaded["registries_after_loads"] is False
    for key in ("group_of", "first", "sums"):
        assert loaded[key] == compiled[key]
    assert compiled["group_of"] == [0, 1, 0, 2, 1] and compiled["first"] == [0, 1, 3]
    assert compiled["sums"] == [4.5, 3.0, 4.0]
    assert loaded["int8_sums"] == [4, 7, 4]  # compiled after a light load: still right
