"""Batches checked with their roll-ups in worker threads give the one-thread search."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from engine.errors import AnonymistError
from engine.project.job_file import load_job
from engine.search.concurrent_checks import RollupBatch, RollupThreads, thread_count
from engine.search.heuristics import HEURISTICS
from tests.engine.search_fixtures import synthetic_problem


def trajectory(outcome) -> list:
    """Checked transformations in checking order with their losses."""
    return list(outcome.space.losses.items())


def fresh(**transformation):
    """16 quasi-identifiers, 100 % suppression: batches of up to 16 neighbours and
    generations of 50, many with thousands of classes. A new problem for each run:
    snapshots cached by an earlier run would answer the checks without roll-ups."""
    return synthetic_problem(n_qis=16, rows=3000, levels=4, k=3, suppression_limit=1.0,
                             **transformation)


@pytest.fixture(scope="module")
def wide():
    return fresh()


@pytest.mark.parametrize("name", ["genetic", "kgen", "top-down", "lightning"])
def test_same_checks_and_result_with_any_number_of_threads(name, monkeypatch):
    submitted = []
    submit = RollupThreads.submit
    monkeypatch.setattr(RollupThreads, "submit",
                        lambda self, *a: submitted.append(self.threads) or submit(self, *a))
    runs = {}
    for threads in (1, 2, 3):
        problem = fresh(step_limit=260, seed=3, threads=threads)
        out = HEURISTICS[name](problem)
        runs[threads] = (trajectory(out), out.optimum.levels, out.optimum.loss, out.checked)
    assert runs[1][3] == 260
    assert runs[2] == runs[1] and runs[3] == runs[1]
    assert 1 not in submitted and 2 in submitted and 3 in submitted  # ran ahead


def test_cancel_stops_a_batch_where_one_thread_stops():
    """The cancel flag is asked before each check of a batch, as for single checks."""
    cancelled = {}
    for threads in (1, 2):
        problem = fresh(time_limit_s=60, seed=0, threads=threads)
        calls = {"n": 0}

        def cancel(calls=calls):
            calls["n"] += 1
            return calls["n"] > 70

        out = HEURISTICS["genetic"](problem, cancel=cancel)
        assert out.cancelled and 50 < out.checked <= 70
        cancelled[threads] = trajectory(out)
    assert cancelled[2] == cancelled[1]


def test_batch_takes_classes_in_order_and_caches_them(wide):
    """The classes of a batch are those ``classify`` gives, whatever ran ahead."""
    classifier = wide.classifier
    rng = np.random.default_rng(5)
    lows = np.asarray(wide.lattice.min_levels)
    highs = np.asarray(wide.lattice.max_levels)
    rows = [tuple(rng.integers(lows, highs + 1).tolist()) for _ in range(12)]
    rows = list(dict.fromkeys(rows))
    threads = RollupThreads(2)
    started = []
    try:
        batch = RollupBatch(classifier, threads, rows,
                            lambda: started.append(threading.get_ident()) or True)
        got = [batch.take(i) for i in range(len(rows))]
        batch.close()
    finally:
        threads.close()
    assert started  # roll-ups were started ahead
    for levels, classes in zip(rows, got):
        expected, _ = classifier.rollup(classifier.base, np.asarray(levels, np.int64))
        assert np.array_equal(classes.counts, expected.counts)
        assert np.array_equal(classes.gen, expected.gen)
        assert np.array_equal(classes.rep, expected.rep)
        assert classifier.classify(levels) is classes  # cached when taken


def test_threads_setting(tmp_path, monkeypatch):
    import engine.search.concurrent_checks as cc
    assert thread_count(3) == 3
    monkeypatch.setattr(cc, "available_cores", lambda: 2)
    for load, threads in [(0.0, 2), (1.2, 2), (1.6, 1), (7.5, 1)]:
        monkeypatch.setattr(cc.os, "getloadavg", lambda load=load: (load, load, load))
        assert thread_count(None) == threads, load
    path = tmp_path / "job.toml"
    path.write_text("[transformation]\nthreads = 2\n")
    assert load_job(path).transformation.threads == 2
    path.write_text("[transformation]\nthreads = 0\n")
    with pytest.raises(AnonymistError, match=r"threads = 0 must be a whole number of at least 1"):
        load_job(path)
