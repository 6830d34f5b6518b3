"""The generic worker: results and errors come back on the GUI thread, references are released."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest
from PySide6.QtCore import QThreadPool

from vramdesk.gui import workers
from vramdesk.gui.workers import Worker, run_in_thread


def _recorder(seen, tag):
    return lambda value: seen.append((tag, value, threading.get_ident()))


def test_result_arrives_on_the_calling_thread(qtbot):
    seen = []
    worker = run_in_thread(threading.get_ident, _recorder(seen, "ok"), _recorder(seen, "err"))
    assert worker in workers._RUNNING
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)  # delivered through the event loop
    ((tag, pool_thread, delivered_on),) = seen
    here = threading.get_ident()
    assert tag == "ok" and pool_thread != here and delivered_on == here
    qtbot.waitUntil(lambda: worker not in workers._RUNNING, timeout=1000)


def test_exception_is_delivered_as_a_value(qtbot):
    seen = []

    def fail():
        raise ValueError("bad input")

    worker = run_in_thread(fail, _recorder(seen, "ok"), _recorder(seen, "err"))
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    ((tag, err, delivered_on),) = seen
    here = threading.get_ident()
    assert (tag, type(err), str(err), delivered_on) == ("err", ValueError, "bad input", here)
    qtbot.waitUntil(lambda: worker not in workers._RUNNING, timeout=1000)


def test_on_error_is_required():
    with pytest.raises(TypeError):
        run_in_thread(int, print)  # type: ignore[call-arg]


def test_abandoned_worker_delivers_nothing_and_is_released(qtbot):
    gate = threading.Event()
    seen = []
    worker = run_in_thread(
        lambda: gate.wait(5) and 42, _recorder(seen, "ok"), _recorder(seen, "err")
    )
    worker.abandon()
    assert worker.is_abandoned() and worker.wait(20) is False
    with qtbot.waitSignal(worker.signals.delivered, timeout=5000):
        gate.set()
    assert worker.wait(10_000) is True  # a wait on the event, generous under load
    qtbot.waitUntil(lambda: worker not in workers._RUNNING, timeout=10_000)
    assert seen == []


def test_worker_on_a_private_pool(qtbot):
    pool = QThreadPool()
    seen = []
    worker = Worker(lambda a, b=0: a + b, 40, b=2)
    worker.signals.finished.connect(_recorder(seen, "ok"))
    worker.signals.errored.connect(_recorder(seen, "err"))
    with qtbot.waitSignal(worker.signals.finished, timeout=5000):
        worker.start(pool)
    assert [s[:2] for s in seen] == [("ok", 42)]
    assert pool.waitForDone(1000)


def test_result_arrives_when_the_caller_keeps_no_reference(qtbot):
    seen = []
    run_in_thread(lambda: 7, _recorder(seen, "ok"), _recorder(seen, "err"))
    gc.collect()
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    assert [s[:2] for s in seen] == [("ok", 7)]
    qtbot.waitUntil(lambda: not workers._RUNNING, timeout=1000)


def test_a_delivered_worker_is_freed(qtbot):
    # issue 11: every GPU-panel refresh (each 2 s) left its worker and signals alive, because
    # the binding kept a QRunnable handed to the pool and the worker's own slot closed a cycle
    seen = []
    worker = run_in_thread(lambda: 7, _recorder(seen, "ok"), _recorder(seen, "err"))
    ref = weakref.ref(worker)
    del worker
    qtbot.waitUntil(lambda: not workers._RUNNING, timeout=5000)
    gc.collect()
    assert [s[:2] for s in seen] == [("ok", 7)]
    assert ref() is None
