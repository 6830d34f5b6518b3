"""Run a blocking function off the GUI thread and get its result back on it.

A small worker in the design of superqt's ``utils/_qthreading.py`` (``create_worker``)
without depending on superqt: a plain callable on the pool plus a signals :class:`QObject`,
run on ``QThreadPool.globalInstance()``. The signals object is created on the thread
that starts the worker (the GUI thread), so Qt delivers ``finished``/``errored`` to it
through a queued connection: callbacks run on the GUI thread and may touch widgets;
the function itself must not.

Rules (STYLE "Threading for NVML"):

* ``errored`` is always connected (:func:`run_in_thread` requires ``on_error``): an
  exception in the function is delivered as a value, never re-raised into the GUI thread.
* A strong reference to each running worker is held in :data:`_RUNNING` until its result
  has been delivered, so neither the Python wrapper nor its signals are collected early.
* Cooperative quit: :meth:`Worker.abandon` drops the result (the function cannot be
  interrupted, but nothing is delivered to a widget that is going away);
  :meth:`Worker.wait` blocks up to a timeout for the function to return.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

#: Workers started and not yet delivered (strong references).
_RUNNING: set[Worker] = set()


class WorkerSignals(QObject):
    """The signals of a :class:`Worker`; lives on the thread that created the worker."""

    finished = Signal(object)
    errored = Signal(object)
    delivered = Signal()


class Worker:
    """Call ``fn(*args, **kwargs)`` on a pool thread; emit its result or its exception.

    A plain object whose :meth:`run` the pool calls (``QThreadPool.start(callable)``), not
    a ``QRunnable`` subclass: a Python ``QRunnable`` handed to the pool with auto-delete
    off is kept by the binding for ever, which leaked one worker per GPU-panel refresh.

    Parameters
    ----------
    fn : callable
        The blocking function. It must not touch Qt widgets.
    *args, **kwargs
        Its arguments.
    """

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.signals = WorkerSignals()
        self._call = (fn, args, kwargs)
        self._abandoned = threading.Event()
        self._returned = threading.Event()

    def run(self) -> None:
        """Run the function (on the pool thread) and emit the outcome."""
        fn, args, kwargs = self._call
        try:
            result = fn(*args, **kwargs)
        except Exception as err:  # delivered as a value: never re-raised in the GUI thread
            outcome, value = self.signals.errored, err
        else:
            outcome, value = self.signals.finished, result
        self._returned.set()
        if not self._abandoned.is_set():
            outcome.emit(value)
        else:
            self.signals.delivered.emit()

    def start(self, pool: QThreadPool | None = None, *, daemon: bool = False) -> Worker:
        """Queue the worker on ``pool`` (default: the global pool); returns ``self``.

        Connect ``finished`` and ``errored`` before calling this: the strong reference is
        released by a slot connected here, after theirs. With ``daemon`` the function runs
        on its own daemon thread instead of the pool: the pool waits for its threads when
        the application quits, so a read that never returns (a file on a hung mount) would
        keep the process alive after the window has closed; a daemon thread never does.
        """
        _RUNNING.add(self)
        for signal in (self.signals.finished, self.signals.errored, self.signals.delivered):
            signal.connect(self._on_self_delivered)
        if daemon:
            threading.Thread(target=self.run, name="vramdesk-read", daemon=True).start()
        else:
            (pool or QThreadPool.globalInstance()).start(self.run)
        return self

    def abandon(self) -> None:
        """Drop the result: neither ``finished`` nor ``errored`` will be emitted after this."""
        self._abandoned.set()

    def is_abandoned(self) -> bool:
        """Whether :meth:`abandon` was called."""
        return self._abandoned.is_set()

    def wait(self, timeout_ms: int) -> bool:
        """Block up to ``timeout_ms`` for the function to return; ``True`` if it did."""
        return self._returned.wait(timeout_ms / 1000)

    def _on_self_delivered(self, *_: object) -> None:
        # Release on the next turn of the event loop, not inside the signal's own delivery.
        QTimer.singleShot(0, partial(_release, self))


def _release(worker: Worker) -> None:
    """Forget a delivered worker: drop the strong reference and cut its connections.

    Each connection holds its slot strongly on the C++ side, out of reach of Python's
    collector; the worker's own slot (a bound method) therefore kept the worker and its
    signals alive forever, about 4.5 KiB per GPU-panel refresh (issue 11). Disconnecting
    breaks that cycle, so the worker is freed as soon as the last reference goes.
    """
    _RUNNING.discard(worker)
    for signal in (worker.signals.finished, worker.signals.errored, worker.signals.delivered):
        signal.disconnect()


def run_in_thread(
    fn: Callable[[], Any],
    on_result: Callable[[Any], None],
    on_error: Callable[[Exception], None],
    *,
    pool: QThreadPool | None = None,
    daemon: bool = False,
) -> Worker:
    """Run ``fn()`` on the thread pool; call ``on_result`` or ``on_error`` on this thread.

    Parameters
    ----------
    fn : callable
        Takes no argument; blocking work only, no widgets.
    on_result : callable
        Called with ``fn``'s return value, on the thread that called ``run_in_thread``.
    on_error : callable
        Called with the exception ``fn`` raised, on the same thread. Required: an
        unconnected error would be lost (or, in superqt's worker, re-raised in the GUI).
    pool : QThreadPool, optional
        Default ``QThreadPool.globalInstance()``.
    daemon : bool
        Run on a daemon thread of its own, not the pool (:meth:`Worker.start`): for reads
        of the user's files, which must never keep the process alive.

    Returns
    -------
    Worker
        The started worker (for :meth:`Worker.abandon` and :meth:`Worker.wait`).
    """
    worker = Worker(fn)
    worker.signals.finished.connect(on_result)
    worker.signals.errored.connect(on_error)
    return worker.start(pool, daemon=daemon)
