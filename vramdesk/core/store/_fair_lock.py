"""An inter-process lock granted in arrival order, for the preset directory.

``filelock.FileLock`` polls a non-blocking ``flock`` every 50 ms: a writer that has just
released the lock and wants it again nearly always wins against one that is asleep
between polls, so with four busy writers a few saves waited more than the 10 s timeout
although nobody held the lock that long.

:class:`FairLock` puts a queue in front of that lock. A waiter creates a ticket file
named by its arrival time in ``<lock>.queue/`` (created under a temporary name, locked
with ``flock``, then renamed into place, so a visible ticket is always held) and takes
the file lock only when no older live ticket exists; a ticket whose ``flock`` can be
taken belongs to a process that died and is removed. Without ``fcntl`` (Windows) it is
the plain file lock. Reentrant within one object; threads of one process take turns.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

#: A ticket still being created (not yet locked) older than this, seconds, was abandoned.
STALE_NEW_TICKET_S = 60.0


class _Held:
    """What :meth:`FairLock.acquire` returns: ``with lock.acquire(timeout=0):`` releases once."""

    def __init__(self, lock: FairLock) -> None:
        self.lock = lock

    def __enter__(self) -> FairLock:
        return self.lock

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def lock_timeout() -> type[Exception]:
    """``filelock.Timeout``, the error a lock not granted in time raises (imported on use)."""
    # on first use: the lock library loads only when a preset is written
    import filelock

    return filelock.Timeout


class FairLock:
    """Mutual exclusion across processes, granted first come, first served.

    Parameters
    ----------
    lock_file : Path
        The lock file (``<directory>/.lock``); the queue is ``<lock_file>.queue/``.
    timeout : float
        Seconds :meth:`acquire` waits by default before raising ``filelock.Timeout``.
    """

    def __init__(self, lock_file: Path, timeout: float) -> None:
        self.lock_file = Path(lock_file)
        self.timeout = timeout
        self.queue = self.lock_file.with_name(self.lock_file.name + ".queue")
        self._inner_lock: Any = None  # the filelock.FileLock, made on first use
        self._threads = threading.RLock()
        self._depth = 0
        self._ticket: tuple[int, Path] | None = None

    @property
    def _inner(self) -> Any:
        """The ``filelock.FileLock`` (imported on first use: start-up does not pay for it)."""
        if self._inner_lock is None:
            # on first use: the lock library loads only when a preset is written
            import filelock

            self._inner_lock = filelock.FileLock(
                self.lock_file, timeout=self.timeout, thread_local=False
            )
        return self._inner_lock

    # ------------------------------------------------------------------ public
    def acquire(self, timeout: float | None = None) -> _Held:
        """Wait (at most ``timeout`` s, default :attr:`timeout`) for the lock, in turn.

        Raises
        ------
        filelock.Timeout
            The lock was not granted in time.
        OSError
            The lock file or the queue cannot be created.
        """
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        if not self._threads.acquire(timeout=max(timeout, 0)):
            raise lock_timeout()(str(self.lock_file))
        try:
            if self._depth == 0:
                self._acquire_in_turn(deadline)
            self._depth += 1
        except BaseException:
            self._threads.release()
            raise
        return _Held(self)

    def release(self) -> None:
        """Release one level; the last one lets the next ticket in."""
        try:
            self._depth -= 1
            if self._depth == 0:
                try:
                    self._inner.release()
                finally:
                    self._drop_ticket()
        finally:
            self._threads.release()

    def __enter__(self) -> FairLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def clean(self) -> int:
        """Remove tickets of processes that died (and abandoned half-made ones); return how many."""
        if fcntl is None:
            return 0
        removed = 0
        try:
            names = os.listdir(self.queue)
        except OSError:
            return 0
        now = time.time()
        for name in names:
            path = self.queue / name
            if name.endswith(".new"):
                with contextlib.suppress(OSError):
                    if now - path.stat().st_mtime > STALE_NEW_TICKET_S:
                        path.unlink()
                        removed += 1
            elif self._ticket is None or path != self._ticket[1]:
                removed += self._remove_if_dead(path)
        return removed

    # --------------------------------------------------------------- internals
    def _acquire_in_turn(self, deadline: float) -> None:
        if fcntl is None:
            self._inner.acquire(timeout=max(0.0, deadline - time.monotonic()))
            return
        self.queue.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{os.getpid():010d}-{os.urandom(4).hex()}"
        pending = self.queue / f"{name}.new"
        fd = os.open(pending, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # a fresh file of our own: granted at once
            os.rename(pending, self.queue / name)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                pending.unlink()
            raise
        self._ticket = (fd, self.queue / name)
        try:
            delay = 0.001
            while self._live_ticket_ahead(name):
                if time.monotonic() >= deadline:
                    raise lock_timeout()(str(self.lock_file))
                time.sleep(delay)
                delay = min(delay * 2, 0.01)
            self._inner.acquire(timeout=max(0.0, deadline - time.monotonic()))
        except BaseException:
            self._drop_ticket()
            raise

    def _live_ticket_ahead(self, mine: str) -> bool:
        for other in sorted(os.listdir(self.queue)):
            if other >= mine:
                return False
            if not other.endswith(".new") and not self._remove_if_dead(self.queue / other):
                return True
        return False

    def _remove_if_dead(self, path: Path) -> int:
        """1 if ``path``'s owner is gone (its flock could be taken) and it was removed, else 0."""
        assert fcntl is not None
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            return 1  # already gone: not ahead of anyone
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return 0
            with contextlib.suppress(OSError):
                path.unlink()
            return 1
        finally:
            os.close(fd)

    def _drop_ticket(self) -> None:
        if self._ticket is None:
            return
        fd, path = self._ticket
        self._ticket = None
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)

    def __repr__(self) -> str:
        return f"FairLock({str(self.lock_file)!r})"
