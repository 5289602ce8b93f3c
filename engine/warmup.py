"""Compile the numba kernels once, after installation: ``python -m engine.warmup``.

numba compiles a kernel on its first call and keeps the machine code in its disk
cache (``__pycache__`` beside the module, or ``NUMBA_CACHE_DIR``), so without this
step the first anonymization after installing spends seconds compiling. The warm-up
anonymizes a small synthetic table under every privacy model and metric family,
with the optimal search and the heuristics, builds the released tables and runs the
population-uniqueness estimators: the kernels are called with the types real data
gives them (int32 codes, int64 counts, float64 shares). The README's install
command runs it; running it again costs about a second (everything is cached).
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: (what is compiled, [[privacy]] tables, [metric], [transformation] overrides)
_K = {"model": "k-anonymity", "k": 2}
RUNS = [
    ("k-anonymity, loss, optimal", [_K], {"name": "loss"}, {}),
    ("suppression, entropy", [_K], {"name": "entropy"}, {"suppression_limit": 0.1}),
    ("precision", [_K], {"name": "precision"}, {"suppression_limit": 0.1}),
    ("height", [_K], {"name": "height"}, {}),
    ("discernibility", [_K], {"name": "discernibility"}, {"suppression_limit": 0.1}),
    ("aecs", [_K], {"name": "aecs"}, {"suppression_limit": 0.1}),
    ("ambiguity", [_K], {"name": "ambiguity"}, {}),
    ("kl-divergence", [_K], {"name": "kl-divergence"}, {}),
    ("normalized entropy", [_K], {"name": "normalized-entropy"}, {"suppression_limit": 0.1}),
    ("distinct l-diversity", [_K, {"model": "distinct-l-diversity", "attribute": "disease",
                                   "l": 2}], {"name": "loss"}, {"suppression_limit": 0.1}),
    ("entropy l-diversity", [{"model": "entropy-l-diversity", "attribute": "disease",
                              "l": 1.5}], {"name": "loss"}, {"suppression_limit": 0.1}),
    ("recursive (c,l)-diversity", [_K, {"model": "recursive-cl-diversity",
                                        "attribute": "disease", "c": 4, "l": 2}],
     {"name": "loss"}, {"suppression_limit": 0.1}),
    ("t-closeness, hierarchical", [_K, {"model": "t-closeness", "attribute": "disease",
                                        "t": 0.4, "distance": "hierarchical"}],
     {"name": "loss"}, {"suppression_limit": 0.1}),
    ("t-closeness, equal", [{"model": "t-closeness", "attribute": "disease", "t": 0.4,
                             "distance": "equal"}], {"name": "loss"}, {}),
    ("t-closeness, ordered", [{"model": "t-closeness", "attribute": "disease", "t": 0.4,
                               "distance": "ordered"}], {"name": "loss"}, {}),
    ("delta-disclosure", [{"model": "delta-disclosure", "attribute": "disease",
                           "delta": 2.0}], {"name": "loss"}, {"suppression_limit": 0.1}),
    ("beta-likeness", [{"model": "beta-likeness", "attribute": "disease", "beta": 2.0}],
     {"name": "loss"}, {"suppression_limit": 0.1}),
    ("lightning", [_K], {"name": "loss"}, {"algorithm": "lightning", "step_limit": 30}),
    ("genetic", [_K], {"name": "loss"}, {"algorithm": "genetic", "step_limit": 30}),
    ("top-down", [_K], {"name": "loss"}, {"algorithm": "top-down", "step_limit": 30}),
]


#: kernels every anonymization calls: when their cache is warm, the warm-up has run
KEY_KERNELS = ("engine.kernel.grouping:_group_keys", "engine.kernel.grouping:_rollup_keyed",
               "engine.kernel.tagging:flood", "engine.identifiers.fast:scan_kernel")


def is_warm() -> bool:
    """Whether numba's cache already holds the key kernels for this source (reads
    numba's cache index; True when that cannot be told, so nothing waits on it)."""
    import importlib
    try:
        for key in KEY_KERNELS:
            module, name = key.split(":")
            module = importlib.import_module(module)
            if hasattr(module, "_compile"):  # kernels made on first use (identifiers)
                module._compile()
            kernel = getattr(module, name)
            if not kernel._cache._cache_file._load_index():
                return False
    except Exception:  # noqa: BLE001 - numba internals changed: assume warm
        return True
    return True


def _data(folder: Path, rows: int = 400):
    """A small table like real data (strings, three quasi-identifiers with hierarchies,
    a sensitive attribute with one) and its hierarchy files."""
    import pandas as pd

    rng = np.random.default_rng(0)
    ages = rng.integers(17, 90, rows)
    frame = pd.DataFrame({
        "age": ages.astype(str),
        "sex": rng.choice(["Female", "Male"], rows),
        "zip": rng.choice([f"{z:05d}" for z in range(13050, 13070)], rows),
        "disease": rng.choice(["flu", "cold", "asthma", "ulcer", "gastritis"], rows),
    })
    hierarchies = {
        "age": [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "<50" if a < 50 else ">=50",
                 "*"] for a in range(17, 90)],
        "sex": [["Female", "*"], ["Male", "*"]],
        "zip": [[f"{z:05d}", f"{z:05d}"[:4] + "*", f"{z:05d}"[:3] + "**", "*"]
                for z in range(13050, 13070)],
        "disease": [["flu", "respiratory", "*"], ["cold", "respiratory", "*"],
                    ["asthma", "respiratory", "*"], ["ulcer", "digestive", "*"],
                    ["gastritis", "digestive", "*"]],
    }
    paths = {}
    for name, rows_of in hierarchies.items():
        paths[name] = folder / f"{name}.csv"
        paths[name].write_text("".join(";".join(r) + "\n" for r in rows_of), encoding="utf-8")
    return frame, paths


def _job(paths: dict, privacy: list, metric: dict, transformation: dict) -> dict:
    attributes = {q: {"type": "quasi-identifying", "hierarchy": str(paths[q])}
                  for q in ("age", "sex", "zip")}
    attributes["disease"] = {"type": "sensitive", "hierarchy": str(paths["disease"])}
    return {"attributes": attributes, "privacy": privacy, "metric": metric,
            "transformation": {"suppression_limit": 0.0, "algorithm": "optimal",
                               **transformation}}


#: the runs whose kernels ``load_kernels`` loads: k-anonymity with the Loss metric
#: (optimal search, released table) and the heuristics
LOAD_RUNS = [RUNS[0]] + [r for r in RUNS if r[3].get("algorithm") in
                         ("lightning", "genetic", "top-down")]


def _wide_rows() -> None:
    """Group rows whose codes do not fit one 62-bit key (wide tables such as credit
    card's 24 QIs hash whole rows; the small table's keys always fit)."""
    from engine.kernel.grouping import group_rows
    group_rows(np.zeros((2, 2), dtype=np.int32))


def _persons(frame, paths: dict) -> None:
    """Count persons (``[data] person``): pairs of rows per patient, most with different
    quasi-identifiers, under k-anonymity and entropy l-diversity (the person-count
    kernels, engine/kernel/person_counts.py)."""
    from engine.api import anonymize
    job = _job(paths, [_K, {"model": "entropy-l-diversity", "attribute": "disease",
                            "l": 1.5}], {"name": "loss"}, {"suppression_limit": 0.1})
    job["data"] = {"person": "patient"}
    patients = frame.assign(patient=[f"p{i // 2}" for i in range(len(frame))])
    anonymize(patients, job)


def _identifiers() -> None:
    """The compiled scan of free text for identifiers (engine/identifiers/fast.py): a
    few notes with a name, a number, an e-mail address, an IBAN and a title."""
    from engine.identifiers import IdentifyingValues
    from engine.identifiers.fast import find_all
    values = IdentifyingValues.build({"name": ["Mary Okafor"], "number": ["100833"],
                                      "code": ["K-77a"]})
    find_all(["Call Mary Okafor on 555-123-4567, chart 100833.", "",
              "Dr. Hale wrote to a.b@example.org about DE89 3704 0044 0532 0130 00."],
             values, True)


def _anonymize_runs(runs, out, cancelled) -> bool:
    """Anonymize the small table for each run, then group wide rows; False when
    ``cancelled()`` stopped it."""
    from engine.api import anonymize

    with tempfile.TemporaryDirectory(prefix="anonymist-warmup-") as tmp:
        frame, paths = _data(Path(tmp))
        for label, privacy, metric, transformation in runs:
            if cancelled():
                return False
            t0 = time.perf_counter()
            result = anonymize(frame, _job(paths, privacy, metric, transformation))
            if result.optimum is not None:
                result.transformed()  # the released table
            if out is not None:
                print(f"  {label:<40} {time.perf_counter() - t0:5.1f} s", file=out,
                      flush=True)
        if runs is RUNS:
            _persons(frame, paths)
            _identifiers()
    _wide_rows()
    return True


def load_kernels(cancelled=lambda: False) -> float:
    """Load the common kernels from numba's disk cache into this process (numba's
    import and each kernel's cached machine code: about 0.6 s of CPU), so that a
    run with a time limit does not spend its limit on it; the command line does this
    before a time-limited run starts its clock, the app in a worker when it starts.
    (With a cold cache this compiles them, as the first run would.) Returns the
    seconds taken."""
    start = time.perf_counter()
    _anonymize_runs(LOAD_RUNS, None, cancelled)
    return time.perf_counter() - start


def warm(out=sys.stdout, cancelled=lambda: False) -> float:
    """Run the warm-up, printing a line per step to ``out`` and stopping between steps
    once ``cancelled()``; returns the seconds taken."""
    from engine import estimators

    start = time.perf_counter()
    if not _anonymize_runs(RUNS, out, cancelled):
        return time.perf_counter() - start
    t0 = time.perf_counter()
    sizes = np.array([1] * 40 + [2] * 15 + [3] * 6 + [5] * 3 + [9], dtype=np.int64)
    for fraction in (0.01, 0.5):
        estimators.dankar(sizes, fraction)
        estimators.pitman(sizes, fraction)
        estimators.snb(sizes, fraction)
    print(f"  {'population-uniqueness estimators':<40} {time.perf_counter() - t0:5.1f} s",
          file=out, flush=True)
    return time.perf_counter() - start


def main() -> int:
    print("Compiling Anonymist's numba kernels into numba's cache (once after installing):",
          flush=True)
    elapsed = warm()
    print(f"done in {elapsed:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
