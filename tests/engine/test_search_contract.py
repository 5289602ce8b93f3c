"""The anytime contract every heuristic search keeps, on synthetic problems."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from engine.search import run_search
from engine.search.exhaustive import exhaustive_search
from engine.search.heuristics import HEURISTICS
from tests.engine.search_fixtures import set_transformation, synthetic_problem

ANYTIME = ["lightning", "top-down", "genetic", "kgen"]
ALL = ANYTIME + ["datafly", "igreedy"]


def run(name, problem, **kw):
    return HEURISTICS[name](problem, **kw)


def trajectory(outcome) -> list:
    """Checked transformations in checking order with their losses."""
    return list(outcome.space.losses.items())


@pytest.fixture(scope="module")
def huge():
    """30 quasi-identifiers, 4**30 (about 1.2e18) transformations."""
    return synthetic_problem(n_qis=30, rows=1500, levels=4, k=3, suppression_limit=1.0)


@pytest.mark.parametrize("name", ALL)
def test_huge_lattice_visits_only_what_it_checks(name, huge):
    set_transformation(huge, step_limit=40)
    set_transformation(huge, time_limit_s=None)
    out = run(name, huge)
    assert huge.lattice.size > 1e16
    assert 1 <= out.checked <= 40
    assert out.space.checked_count == out.checked and not out.space.dense
    assert out.optimum is not None and out.optimum.anonymous
    best_id = out.space.optimum_id
    info = out.space.info(best_id)
    assert info.checked and info.loss == out.optimum.loss
    assert info.levels == out.optimum.levels


@pytest.mark.parametrize("name", ANYTIME)
def test_same_seed_same_result_other_seed_still_valid(name):
    problem = synthetic_problem(n_qis=6, rows=300, levels=4, k=3, suppression_limit=0.2,
                                step_limit=60, seed=7)
    a, b = run(name, problem), run(name, problem)
    assert trajectory(a) == trajectory(b)
    assert a.optimum == b.optimum and a.checked == b.checked == 60
    set_transformation(problem, seed=8)
    assert run(name, problem).checked == 60


@pytest.mark.parametrize("name", ANYTIME)
def test_cancel_returns_best_so_far(name, huge):
    set_transformation(huge, step_limit=None)
    set_transformation(huge, time_limit_s=60)
    calls = {"n": 0}

    def cancel():
        calls["n"] += 1
        return calls["n"] > 25

    out = run(name, huge, cancel=cancel)
    assert out.cancelled
    assert out.optimum is not None and out.optimum.anonymous
    assert out.checked < 30
    assert out.optimum.loss == min(l for i, l in out.space.losses.items()
                                   if out.space.state(i) == 1)


@pytest.mark.filterwarnings("error")  # ids beyond int64 must not overflow anywhere
@pytest.mark.parametrize("name", ANYTIME)
def test_lattice_beyond_int64(name):
    problem = synthetic_problem(n_qis=33, rows=300, levels=4, k=3, suppression_limit=1.0,
                                step_limit=40, seed=2)
    assert problem.lattice.size == 4 ** 33 > 2 ** 63
    out = run(name, problem)
    assert 0 < out.checked <= 40 and out.optimum is not None
    ids = list(out.space.losses)
    assert max(ids) < problem.lattice.size
    for i in ids:
        assert out.space.info(i).levels == problem.lattice.levels_of(i)
    optimum = out.space.optimum_id
    assert problem.lattice.levels_of(optimum) == out.optimum.levels


@pytest.mark.parametrize("name", ANYTIME)
def test_progress_reports_checked_elapsed_and_best(name, huge):
    set_transformation(huge, step_limit=None)
    set_transformation(huge, time_limit_s=0.6)
    reports = []
    out = run(name, huge, progress=reports.append)
    assert len(reports) >= 2
    checked = [r.checked for r in reports]
    elapsed = [r.elapsed_s for r in reports]
    assert checked == sorted(checked) and elapsed == sorted(elapsed)
    last = reports[-1]
    assert last.checked == out.checked
    assert last.best_levels == out.optimum.levels and last.best_loss == out.optimum.loss
    # the best so far never gets worse
    losses = [r.best_loss for r in reports if r.best_loss is not None]
    assert all(not (b > a) for a, b in zip(losses, losses[1:]))


@pytest.mark.parametrize("name", ANYTIME)
def test_reaches_the_exact_optimum_on_a_small_lattice(name):
    problem = synthetic_problem(n_qis=4, rows=400, levels=4, k=5, suppression_limit=0.05)
    exact = exhaustive_search(problem).optimum
    set_transformation(problem, step_limit=256)
    out = run(name, problem)
    assert out.optimum.loss == pytest.approx(exact.loss, rel=1e-12)


def test_lightning_prunes_at_zero_suppression_and_ends_early():
    problem = synthetic_problem(n_qis=4, rows=400, levels=4, k=5, suppression_limit=0.0)
    exact = exhaustive_search(problem).optimum
    set_transformation(problem, step_limit=10_000)
    out = run("lightning", problem)
    assert out.optimum.loss == pytest.approx(exact.loss, rel=1e-12)
    assert out.checked < problem.lattice.size


def test_top_down_skips_below_non_anonymous_at_zero_suppression():
    problem = synthetic_problem(n_qis=4, rows=400, levels=4, k=5, suppression_limit=0.0,
                                step_limit=10_000)
    exact = exhaustive_search(problem).optimum
    out = run("top-down", problem)
    assert out.optimum.loss == pytest.approx(exact.loss, rel=1e-12)
    assert out.checked < problem.lattice.size


@pytest.mark.parametrize("name", ["datafly", "igreedy"])
def test_baselines_stop_at_the_first_anonymous_transformation(name):
    problem = synthetic_problem(n_qis=4, rows=400, levels=4, k=5, suppression_limit=0.0)
    out = run(name, problem)
    assert out.optimum is not None and out.optimum.anonymous
    assert out.checked <= problem.lattice.height * 4 + 1
    # with a 100% limit the bottom is already anonymous
    full = synthetic_problem(n_qis=4, rows=400, levels=4, k=5, suppression_limit=1.0)
    assert run(name, full).optimum.levels == full.lattice.bottom


def test_genetic_settings_come_from_the_job():
    problem = synthetic_problem(n_qis=6, rows=300, levels=4, k=3, suppression_limit=0.2,
                                genetic={"subpopulation_size": 6, "iterations": 2,
                                         "top_down_start": 5})
    out = run("genetic", problem)
    assert out.checked > 5
    set_transformation(problem, genetic={"subpopulation_size": 6, "iterations": 2,
                                         "top_down_start": 0})
    out = run("genetic", problem)
    assert 0 < out.checked <= 2 * 6 * 3
    set_transformation(problem, genetic={"population_size": 10, "max_evaluations": 20})
    out = run("kgen", problem)
    assert 0 < out.checked <= 10 + 2 * 20


def test_genetic_starts_with_the_top_down_search_and_seeds_from_it(huge):
    """The first ``top_down_start`` checks are the top-down search's own (same order),
    and more while it improves (until one check per QI in a row found nothing better);
    the populations then start from its best, so the result is never worse than it."""
    set_transformation(huge, step_limit=400, time_limit_s=None, seed=0, genetic={})
    top_down = trajectory(run("top-down", huge))
    set_transformation(huge, genetic={"top_down_start": 40})
    genetic = run("genetic", huge)
    mine = trajectory(genetic)
    n = next(i for i, (a, b) in enumerate(zip(mine, top_down)) if a != b)
    best, improved_at = None, 0  # checks when the top-down search last improved
    for i, (_, loss) in enumerate(top_down[:n], start=1):
        if best is None or loss < best:
            best, improved_at = loss, i
    assert n == max(40, improved_at + len(huge.qis)) < 400
    assert genetic.checked == 400
    assert genetic.optimum.loss <= best
    assert run("genetic", huge).optimum == genetic.optimum  # deterministic per seed
    set_transformation(huge, genetic={"top_down_start": 0})  # ARX's start: not top-down's
    assert trajectory(run("genetic", huge))[:40] != top_down[:40]


def test_genetic_ends_with_a_top_down_start_that_searched_everything():
    """A top-down search that ends within its checks has searched the lattice: its
    best is the optimum and the genetic search stops there."""
    problem = synthetic_problem(n_qis=3, rows=300, levels=3, k=3, suppression_limit=0.1,
                                genetic={"top_down_start": 1000})
    exact = exhaustive_search(problem).optimum
    out = run("genetic", problem)
    assert out.checked <= problem.lattice.size
    assert out.optimum.loss == pytest.approx(exact.loss, rel=1e-12)
    assert trajectory(out) == trajectory(run("top-down", problem))


def test_optimal_hands_over_to_the_genetic_search_above_the_threshold():
    problem = synthetic_problem(n_qis=6, rows=300, levels=4, k=3, suppression_limit=0.2,
                                heuristic_threshold=100, step_limit=30)
    out = run_search(problem)
    assert out.algorithm == "genetic" and out.checked <= 30
    set_transformation(problem, heuristic_threshold=problem.lattice.size)  # not above
    assert run_search(problem).algorithm == "optimal"


@pytest.mark.parametrize("name", ["genetic", "kgen", "top-down"])
def test_job_file_runs_a_heuristic_end_to_end(adult_dir, name):
    import engine

    job = (adult_dir / "job.toml").read_text().replace(
        'algorithm = "optimal"',
        f'algorithm = "{name}"\nstep_limit = 40\nseed = 3\n\n'
        f'[transformation.genetic]\nsubpopulation_size = 10\npopulation_size = 10\n')
    (adult_dir / "job.toml").write_text(job)
    reports = []
    first = engine.anonymize(None, adult_dir / "job.toml", progress=reports.append)
    again = engine.anonymize(None, adult_dir / "job.toml")
    assert first.outcome.algorithm == name and first.transformations_checked <= 40
    assert first.optimum is not None and first.optimum.anonymous
    assert first.optimum.levels == again.optimum.levels
    assert reports and reports[-1].checked == first.transformations_checked


class CountedClock:
    """A clock that only moves when a check runs: every evaluation costs ``cost``."""

    def __init__(self, cost: float):
        self.now, self.cost, self.checks = 0.0, cost, 0

    def __call__(self) -> float:
        return self.now

    def wrap(self, evaluate):
        def timed(levels):
            self.now += self.cost
            self.checks += 1
            return evaluate(levels)
        return timed


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", ANYTIME)
@pytest.mark.parametrize("limit,cost", [(10.0, 1.0), (10.0, 0.3), (1.0, 0.45)])
def test_time_limit_is_kept_in_counted_time(name, limit, cost, threads, monkeypatch):
    """Checks cost ``cost`` counted seconds each (no real clock): a search never starts
    a check that would end after its limit, and stops only when one more would; also
    when the roll-ups of a batch run ahead in other threads (only judging the classes,
    in the searching thread, is counted)."""
    from engine.search import anytime
    problem = synthetic_problem(n_qis=30, rows=1500, levels=4, k=3, suppression_limit=1.0,
                                time_limit_s=limit, threads=threads)
    clock = CountedClock(cost)
    monkeypatch.setattr(anytime, "clock", clock)
    monkeypatch.setattr(problem, "evaluate_classes", clock.wrap(problem.evaluate_classes))
    out = run(name, problem)
    assert clock.now <= limit + 1e-9
    assert clock.checks == out.checked == int(limit / cost + 1e-9)
    assert out.optimum is not None


def test_an_earlier_deadline_of_the_caller_wins(monkeypatch):
    """``Problem.deadline`` (set by engine.api.anonymize to count preparing and the
    output within the limit) stops the search before its own limit."""
    from engine.search import anytime
    problem = synthetic_problem(n_qis=30, rows=1500, levels=4, k=3, suppression_limit=1.0,
                                time_limit_s=10.0)
    clock = CountedClock(1.0)
    monkeypatch.setattr(anytime, "clock", clock)
    monkeypatch.setattr(problem, "evaluate_classes", clock.wrap(problem.evaluate_classes))
    problem.deadline = 4.0
    out = run("lightning", problem)
    assert clock.checks == out.checked == 4


def test_anonymize_reserves_time_for_preparing_and_the_output(monkeypatch):
    from engine.api import search_deadline
    import engine.api
    problem = synthetic_problem(n_qis=3, rows=400, time_limit_s=10.0)
    start = 100.0
    # a fixed clock: preparing took two seconds, however long this test is paused
    monkeypatch.setattr(engine.api, "time", SimpleNamespace(perf_counter=lambda: start + 2.0))
    without = search_deadline(problem, start, build_output=False)
    with_output = search_deadline(problem, start, build_output=True)
    assert start + 9.8 < with_output < without < start + 10.0
    problem_no_limit = synthetic_problem(n_qis=3, rows=400)
    assert search_deadline(problem_no_limit, start, True) is None
