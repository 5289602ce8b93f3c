"""Long runs stay responsive, can be cancelled, and a new run replaces the old one."""
from __future__ import annotations

import threading

from PySide6.QtCore import QCoreApplication, QTimer

from app.workers import TaskController
from tests.app.conftest import open_sample


def set_algorithm(window, name):
    combo = window.configure.search.algorithm
    combo.setCurrentIndex(combo.findData(name))
    combo.activated.emit(combo.currentIndex())
    assert window.document.settings.transformation.algorithm == name


def test_cancel_long_run_keeps_gui_responsive(qtbot, window, adult_dir, messages,
                                             monkeypatch):
    # each check takes at least 2 ms, so the exhaustive search (12,960 checks) lasts long
    # enough to be cancelled however fast the machine is
    import time

    from engine.problem import Problem
    evaluate = Problem.evaluate

    def slow_evaluate(self, *args, **kwargs):
        time.sleep(0.002)
        return evaluate(self, *args, **kwargs)

    monkeypatch.setattr(Problem, "evaluate", slow_evaluate)
    open_sample(qtbot, window)
    set_algorithm(window, "exhaustive")  # 12,960 transformations: tens of seconds
    ticks = []  # for each tick of a GUI-thread timer: whether the search was running
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(window.search.running))
    timer.start()
    progress = []
    window.search.progressed.connect(progress.append)
    with qtbot.waitSignal(window.search.progressed, timeout=60_000):
        window.actions["anonymize"].trigger()
    assert not window.progress.cancel.isHidden() and window.actions["cancel"].isEnabled()
    start = len(ticks)
    qtbot.waitUntil(lambda: len(progress) >= 5, timeout=60_000)
    # counted, not timed: the GUI thread's timer fired while the search ran (a search
    # on the GUI thread would leave none), however loaded the machine is
    assert window.search.running
    assert any(ticks[start:]), "the event loop did not run during the search"
    with qtbot.waitSignal(window.search.finished, timeout=60_000) as blocker:
        window.progress.cancel.click()
    timer.stop()
    outcome = blocker.args[0]
    assert outcome.cancelled
    result = window.document.result
    assert result.cancelled and result.transformations_checked < result.lattice_size
    assert "cancelled" in window.configure.result.details.text()
    assert window.progress.bar.isHidden()
    assert progress[-1].checked > 0 and progress[-1].total == 12960
    assert not messages


def test_new_task_cancels_the_running_one(qtbot):
    tasks = TaskController()
    release = threading.Event()
    first_cancelled = threading.Event()

    def slow(report, cancelled):
        while not cancelled():
            release.wait(0.01)
        first_cancelled.set()
        return "first"

    finished = []
    tasks.finished.connect(finished.append)
    tasks.start("slow", slow)
    with qtbot.waitSignal(tasks.finished, timeout=60_000):
        tasks.start("fast", lambda report, cancelled: "second")
    assert first_cancelled.wait(30)
    assert tasks.wait_all(30_000)
    # the first task's late signals, queued before its thread ended, arrive now: they
    # must be dropped
    QCoreApplication.sendPostedEvents()
    QCoreApplication.processEvents()
    assert [o.value for o in finished] == ["second"]


def test_task_error_becomes_readable_message(qtbot):
    tasks = TaskController()

    def broken(report, cancelled):
        raise KeyError("boom")

    with qtbot.waitSignal(tasks.failed, timeout=60_000) as blocker:
        tasks.start("Broken", broken)
    label, message = blocker.args
    assert label == "Broken" and "boom" in message and "Traceback" not in message
    assert tasks.wait_all(30_000)


def test_cancel_while_preparing_abandons_the_run_at_once(qtbot, window, monkeypatch):
    """The first run of a session spends seconds loading the numba kernels while it
    prepares, which nothing can interrupt: Cancel then ends the run in the window at
    once (it has no best so far to wait for); the worker finishes later and its
    result is dropped."""
    import engine.api

    entered, release = threading.Event(), threading.Event()
    prepare = engine.api.prepare

    def uninterruptible_prepare(*args, **kwargs):  # stands for the kernels' cache load
        entered.set()
        release.wait(60)
        return prepare(*args, **kwargs)

    monkeypatch.setattr(engine.api, "prepare", uninterruptible_prepare)
    open_sample(qtbot, window)
    before = window.document.result
    finished = []
    window.search.finished.connect(finished.append)
    with qtbot.waitSignal(window.search.started, timeout=60_000):
        window.actions["anonymize"].trigger()
    try:
        assert entered.wait(60)
        (thread, task), = window.search._threads.values()
        with qtbot.waitSignal(window.search.idle, timeout=60_000):
            window.progress.cancel.click()
        # the run has ended in the window while the worker is still inside the load
        assert not release.is_set() and thread.isRunning()
        assert not window.search.running and not window.actions["cancel"].isEnabled()
        assert window.progress.bar.isHidden()
        assert "cancelled while preparing" in window.statusBar().currentMessage()
        with qtbot.waitSignal(task.succeeded, timeout=60_000):  # the late result...
            release.set()
        assert window.search.wait_all(60_000)
        assert finished == [] and window.document.result is before  # ...is dropped
    finally:
        release.set()  # never leave the worker waiting (a failed assertion above)
    # and the next run works as usual
    monkeypatch.setattr(engine.api, "prepare", prepare)
    with qtbot.waitSignal(window.search.finished, timeout=60_000):
        window.actions["anonymize"].trigger()
    assert window.document.result is not None and window.document.result.optimum is not None


def test_anonymize_is_off_while_a_run_is_under_way(qtbot, window, monkeypatch):
    """A second click on Anonymize (or Ctrl+R) during a run does not throw the run away
    and start again: the action and Configure's button are off until the run ends."""
    import engine.api

    entered, release = threading.Event(), threading.Event()
    prepare = engine.api.prepare

    def held_prepare(*args, **kwargs):
        entered.set()
        release.wait(60)
        return prepare(*args, **kwargs)

    monkeypatch.setattr(engine.api, "prepare", held_prepare)
    open_sample(qtbot, window)
    started = []
    window.search.started.connect(started.append)
    try:
        window.actions["anonymize"].trigger()
        assert entered.wait(60)
        assert not window.actions["anonymize"].isEnabled()
        assert not window.configure.anonymize_button.isEnabled()
        window.actions["anonymize"].trigger()
        window.configure.anonymize_button.click()
        assert len(started) == 1
        with qtbot.waitSignal(window.search.finished, timeout=60_000):
            release.set()
    finally:
        release.set()
    assert window.actions["anonymize"].isEnabled()
    assert window.configure.anonymize_button.isEnabled()
    assert window.configure.anonymize_button.text() == "Anonymize"
