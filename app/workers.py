"""Long work in a QThread: one controller owns the current task.

Every background thread of the GUI belongs to this module: ``TaskController`` (one
current task, replaced by the next), ``SerialWorker`` (requests answered in order on
one thread, e.g. Explore's checks and lattice images), and ``Shutdowns``, the one
place where each owner registers how to stop its threads when the window closes.

A task is a plain function ``fn(report, cancelled) -> value`` (no Qt): it calls
``report(payload)`` with immutable progress payloads and polls ``cancelled()``.
``TaskController.start`` runs it in a fresh QThread; starting another task
cancels the running one, and the late signals of a cancelled task are dropped
(each signal carries the task's id). Errors arrive as readable messages.
"""
from __future__ import annotations

import logging
import threading
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, Qt, QThread, QThreadPool, Signal, Slot

from engine.errors import AnonymistError

log = logging.getLogger(__name__)

TaskFunction = Callable[[Callable[[Any], None], Callable[[], bool]], Any]


@dataclass(frozen=True)
class TaskOutcome:
    """What a finished task hands back."""

    task_id: int
    label: str
    value: Any
    cancelled: bool


def readable_error(exc: BaseException) -> str:
    """A message for users: the engine's own text, or a short line for the unexpected."""
    if isinstance(exc, AnonymistError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return "There is not enough memory for this operation."
    if isinstance(exc, OSError):
        return f"{exc.strerror or 'Input/output error'}: {exc.filename or ''}".strip(": ")
    return f"Unexpected error ({type(exc).__name__}): {exc}"


class _Task(QObject):
    """Runs ``fn`` in the worker thread; emits progress and the end."""

    progressed = Signal(int, object)
    succeeded = Signal(int, object)
    failed = Signal(int, str)

    def __init__(self, task_id: int, fn: TaskFunction):
        super().__init__()
        self.task_id = task_id
        self.fn = fn
        self.cancel_event = threading.Event()

    @Slot()
    def run(self) -> None:
        try:
            value = self.fn(lambda p: self.progressed.emit(self.task_id, p),
                            self.cancel_event.is_set)
        except BaseException as exc:  # noqa: BLE001 - everything ends in a message
            if not isinstance(exc, AnonymistError):
                log.error("task failed:\n%s", traceback.format_exc())
            self.failed.emit(self.task_id, readable_error(exc))
        else:
            self.succeeded.emit(self.task_id, value)


class TaskController(QObject):
    """Owns the current worker thread.

    Signals
    -------
    started(str)
        A task with this label started.
    progressed(object)
        The current task's progress payload.
    finished(TaskOutcome)
        The current task returned (possibly after a cancel, with its best so far).
    failed(str, str)
        The current task's label and a readable error message.
    """

    started = Signal(str)
    progressed = Signal(object)
    finished = Signal(object)
    failed = Signal(str, str)
    idle = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._next_id = 0
        self._current: _Task | None = None
        self._label = ""
        self._threads: dict[int, tuple[QThread, _Task]] = {}

    @property
    def running(self) -> bool:
        return self._current is not None

    @property
    def label(self) -> str:
        return self._label

    def start(self, label: str, fn: TaskFunction) -> int:
        """Run ``fn`` in a new thread, cancelling the task that runs now."""
        self.cancel()
        self._next_id += 1
        task = _Task(self._next_id, fn)
        thread = QThread()
        thread.setObjectName(f"anonymist-task-{task.task_id}")
        task.moveToThread(thread)
        thread.started.connect(task.run)
        task.progressed.connect(self._on_progress)
        task.succeeded.connect(self._on_success)
        task.failed.connect(self._on_failure)
        # quit from the worker thread itself, so waiting on it never needs the GUI loop
        task.succeeded.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        task.failed.connect(thread.quit, Qt.ConnectionType.DirectConnection)
        thread.finished.connect(self._reap_finished)
        self._threads[task.task_id] = (thread, task)
        self._current, self._label = task, label
        thread.start()
        self.started.emit(label)
        return task.task_id

    def cancel(self) -> None:
        """Ask the current task to stop; its late signals are then ignored except
        its result, which a search returns with the best found so far."""
        if self._current is not None:
            self._current.cancel_event.set()

    def cancel_and_forget(self) -> None:
        """Stop the current task and drop whatever it still reports."""
        if self._current is not None:
            self._current.cancel_event.set()
            self._current = None
            self.idle.emit()

    def wait_all(self, msecs: int = 5000) -> bool:
        """Cancel and wait for every thread (on close); True if all ended."""
        for thread, task in list(self._threads.values()):
            task.cancel_event.set()
            thread.quit()  # takes effect once the task's run() returns
        ok = True
        for thread, _ in list(self._threads.values()):
            ok = thread.wait(msecs) and ok
        return ok

    def _is_current(self, task_id: int) -> bool:
        return self._current is not None and self._current.task_id == task_id

    @Slot(int, object)
    def _on_progress(self, task_id: int, payload: object) -> None:
        if self._is_current(task_id):
            self.progressed.emit(payload)

    @Slot(int, object)
    def _on_success(self, task_id: int, value: object) -> None:
        if self._is_current(task_id):
            cancelled = self._current.cancel_event.is_set()
            self._current = None
            self.finished.emit(TaskOutcome(task_id, self._label, value, cancelled))
            self.idle.emit()

    @Slot(int, str)
    def _on_failure(self, task_id: int, message: str) -> None:
        if self._is_current(task_id):
            self._current = None
            self.failed.emit(self._label, message)
            self.idle.emit()

    @Slot()
    def _reap_finished(self) -> None:
        for task_id, (thread, task) in list(self._threads.items()):
            if thread.isFinished():
                del self._threads[task_id]
                task.deleteLater()
                thread.deleteLater()


class Shutdowns:
    """How to stop every background thread, registered by their owners (the window's
    controllers, each perspective) and run once when the window closes or the
    application quits, latest registered first."""

    def __init__(self):
        self._steps: list[tuple[str, Callable[[], object]]] = []

    def register(self, name: str, stop: Callable[[], object]) -> None:
        self._steps.append((name, stop))

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self._steps]

    def run(self) -> None:
        steps, self._steps = self._steps, []
        for name, stop in reversed(steps):
            try:
                stop()
            except Exception:  # noqa: BLE001 - the others must still stop
                log.exception("stopping %s failed", name)


class _SerialBridge(QObject):
    done = Signal(int, object, object)  # generation, tag, value
    failed = Signal(int, object, str)


class _SerialJob(QRunnable):
    def __init__(self, bridge: _SerialBridge, generation: int, fn: Callable[[], Any], tag):
        super().__init__()
        self.bridge, self.generation, self.fn, self.tag = bridge, generation, fn, tag

    def run(self) -> None:
        try:
            value = self.fn()
        except Exception as exc:  # noqa: BLE001 - reported, never raised in the pool
            log.error("background request failed:\n%s", traceback.format_exc())
            self.bridge.failed.emit(self.generation, self.tag, readable_error(exc))
        else:
            self.bridge.done.emit(self.generation, self.tag, value)


class SerialWorker(QObject):
    """Runs plain functions (no Qt) one after the other on one background thread.

    ``submit(fn, tag)`` queues ``fn``; ``done(tag, value)`` or ``failed(tag,
    message)`` answer it on the GUI thread. ``forget()`` starts a new generation:
    answers to requests submitted before it are dropped (their data was replaced).
    """

    done = Signal(object, object)
    failed = Signal(object, str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._bridge = _SerialBridge()
        self._bridge.done.connect(self._done)
        self._bridge.failed.connect(self._failed)
        self.generation = 0

    def submit(self, fn: Callable[[], Any], tag=None) -> None:
        self._pool.start(_SerialJob(self._bridge, self.generation, fn, tag))

    def forget(self) -> None:
        self.generation += 1

    def wait(self, msecs: int = 5000) -> bool:
        """Wait for the queued requests (tests, closing)."""
        return self._pool.waitForDone(msecs)

    def _done(self, generation: int, tag, value) -> None:
        if generation == self.generation:
            self.done.emit(tag, value)

    def _failed(self, generation: int, tag, message: str) -> None:
        if generation == self.generation:
            self.failed.emit(tag, message)
