"""Work a hidden view does not do: a refresh that waits until the view is shown (issue 11).

A tab behind another does nothing on an edit; it only remembers that its figures are
stale, and refreshes when it is shown (before that first paint) or when code asks for what
it shows. A shown view refreshes on the next turn of the event loop (a zero-interval
single-shot timer), so a burst of signals from one edit costs one refresh and no wait.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


class WhenShown(QObject):
    """Runs ``refresh`` for ``view`` when it is stale and shown, or on :meth:`ensure`.

    ``redraw`` (optional) repaints the last figures without recomputing them (a unit
    switch): it too waits while the view is hidden.
    """

    def __init__(
        self,
        view: QWidget,
        refresh: Callable[[], None],
        redraw: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(view)
        self.view, self._refresh, self._redraw = view, refresh, redraw
        self.stale = True  # nothing computed yet
        self.undrawn = False
        self.refresh_count = 0
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self.ensure)
        view.installEventFilter(self)

    def request(self, *_args: object) -> None:
        """The figures changed: refresh on the next turn when shown, else when next shown."""
        self.stale = True
        if self.view.isVisible():
            self._timer.start()

    def mark_stale(self) -> None:
        """The figures changed and a :meth:`request` follows: stale, no refresh scheduled.

        A view shown, or asked for what it shows (:meth:`ensure`), before the request
        comes refreshes then.
        """
        self.stale = True

    def request_redraw(self, *_args: object) -> None:
        """The display (not the figures) changed: redraw now when shown, else when shown."""
        if self.stale:
            self.request()
        elif self.view.isVisible() and self._redraw is not None:
            self._redraw()
        else:
            self.undrawn = True

    def ensure(self) -> None:
        """Bring the view up to date now (a caller about to read what it shows)."""
        self._timer.stop()
        if self.stale:
            self.stale = self.undrawn = False
            self.refresh_count += 1
            self._refresh()
        elif self.undrawn and self._redraw is not None:
            self.undrawn = False
            self._redraw()

    def mark_fresh(self) -> None:
        """The view was just refreshed by a direct call."""
        self._timer.stop()
        self.stale = self.undrawn = False

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Refresh a stale view as it is shown (the event is passed on untouched)."""
        if obj is self.view and event.type() == QEvent.Type.Show:
            self.ensure()  # before the first paint of the shown view
        return False


class LazyBody:
    """Mixin for a tab (a ``QWidget``) whose widgets are built when first shown or used.

    A tab behind another costs nothing at start-up: its ``__init__`` keeps the cheap state
    and connections, and :meth:`_build_body` (the subclass's) creates the widgets named in
    ``LAZY`` the first time the tab is shown or any of those attributes is read (code and
    tests that reach ``tab.plot`` or ``tab.table`` get the built widget). Subclasses call
    ``self._body_built = False`` first in ``__init__`` and :meth:`_ensure_body` from
    ``showEvent``.
    """

    LAZY: frozenset[str] = frozenset()
    _body_built: bool

    def _build_body(self) -> None:
        raise NotImplementedError

    def _ensure_body(self) -> None:
        """Build the widgets now unless they are built."""
        if not self._body_built:
            self._body_built = True
            self._build_body()

    def __getattr__(self, name: str) -> object:
        # only reached when normal lookup fails: a lazy widget not built yet
        if name in type(self).LAZY and not self._body_built:
            self._ensure_body()
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
