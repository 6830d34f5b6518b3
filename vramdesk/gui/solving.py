"""The reverse solve off the GUI thread: one solve at a time, the newest inputs next.

The session (:class:`vramdesk.core.session.ScenarioSession` with ``defer_solve``) publishes
the breakdown of an edit at once and asks for its solve (``solve_requested``). The solve
searches the context and concurrency through dozens of estimates; on the GUI thread an
8,192-layer model under partial offload held the window 1.4-1.9 s per edit (issue 22).
Here it runs on the thread pool (:func:`vramdesk.gui.workers.run_in_thread`); while one
runs, only the newest request waits (a burst of keystrokes solves twice, not once per key),
and a result for inputs that have changed since is dropped by the session.
"""

from __future__ import annotations

from typing import Any

from vramdesk.core.session import ScenarioSession
from vramdesk.gui.workers import Worker, run_in_thread


def _solve(job: tuple) -> Any:
    # on first use: the solver is imported by the session already; this is the call only
    from vramdesk.core.solve.solver import solve

    inputs, capacity = job
    return solve(*inputs, capacity)


class BackgroundSolver:
    """Runs the session's requested solves on the thread pool and delivers them back.

    Parameters
    ----------
    session : ScenarioSession
        A session made with ``defer_solve=True``.
    """

    def __init__(self, session: ScenarioSession) -> None:
        self.session = session
        self._worker: Worker | None = None
        self._running: tuple | None = None
        self._next: tuple | None = None
        #: Solves started (one per burst of edits at most two).
        self.started = 0
        session.solve_requested.connect(self.request)
        if session.pending_job is not None:  # asked for while the session was being built
            self.request(session.pending_job)

    def request(self, job: tuple) -> None:
        """Solve ``job`` now, or after the running solve (replacing any job waiting)."""
        if self._worker is not None:
            self._next = job
            return
        self._start(job)

    def _start(self, job: tuple) -> None:
        self._running, self.started = job, self.started + 1
        self._worker = run_in_thread(
            lambda: _solve(job), lambda r: self._done(job, r), lambda e: self._done(job, None, e)
        )

    def _done(self, job: tuple, result: Any, error: Exception | None = None) -> None:
        self._worker = self._running = None
        # the estimate of the same inputs was accepted, so the solve raises nothing the
        # window could show; a failure leaves no solve rather than a stale one
        self.session.deliver_solve(job, None if error is not None else result)
        job, self._next = self._next, None
        if job is not None and job is self.session.pending_job:
            self._start(job)

    def busy(self) -> bool:
        """Whether a solve is running or waiting."""
        return self._worker is not None or self.session.solve_pending

    def shutdown(self, timeout_ms: int = 5000) -> bool:
        """Drop the running solve's result and wait up to ``timeout_ms`` for it to return."""
        self._next = None
        worker, self._worker = self._worker, None
        if worker is None:
            return True
        worker.abandon()
        return worker.wait(timeout_ms)
