"""Long work in a QThread: one controller owns the current task.

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

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

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
